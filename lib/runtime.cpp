// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/runtime.cpp — status strings, thread-local errors, version, ISA dispatch and threads.
#include "lib/internal.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace posenc {
namespace detail {

// ---------------------------------------------------------------- errors
namespace {
thread_local std::string t_message;
thread_local const char* t_function = "posenc";
thread_local posenc_status t_status = POSENC_OK;  // of the last set_error (read by profiling)
}  // namespace

posenc_status recorded_status() { return t_status; }
void reset_recorded_status() { t_status = POSENC_OK; }

void clear_error() { t_message.clear(); }
const char* error_message_cstr() { return t_message.c_str(); }
const char* current_function() { return t_function; }
void set_current_function(const char* name) { t_function = name ? name : "posenc"; }

posenc_status set_error(posenc_status s, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  t_status = s;
  try {
    t_message = std::string(t_function) + ": " + buf;
  } catch (...) {
    // Keep the status even if the message cannot be stored.
  }
  return s;
}

// ---------------------------------------------------------------- dispatch
namespace {

#if defined(__x86_64__) || defined(__i386__)
/// CPUID.1:ECX bit 29 (F16C: VCVTPH2PS / VCVTPS2PH on 128/256-bit vectors), which the AVX2 and
/// AVX-512 paths are compiled with (-mf16c). Every x86 CPU with AVX2 has it.
bool has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
}
#endif

uint32_t detect_available() {
  uint32_t mask = POSENC_ISA_SCALAR;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
#if defined(POSENC_HAVE_AVX2)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c()) mask |= POSENC_ISA_AVX2;
#endif
#if defined(POSENC_HAVE_AVX512)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c())
    mask |= POSENC_ISA_AVX512;
#endif
#endif
#if defined(POSENC_HAVE_NEON) && defined(__aarch64__)
  mask |= POSENC_ISA_NEON;  // Advanced SIMD is mandatory in Armv8-A
#endif
  return mask;
}

posenc_isa best_of(uint32_t mask) {
  if (mask & POSENC_ISA_AVX512) return POSENC_ISA_AVX512;
  if (mask & POSENC_ISA_AVX2) return POSENC_ISA_AVX2;
  if (mask & POSENC_ISA_NEON) return POSENC_ISA_NEON;
  return POSENC_ISA_SCALAR;
}

bool parse_isa(const char* s, posenc_isa* out) {
  std::string v;
  for (const char* c = s; *c; ++c) v.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*c))));
  if (v == "auto" || v.empty()) { *out = POSENC_ISA_AUTO; return true; }
  if (v == "scalar") { *out = POSENC_ISA_SCALAR; return true; }
  if (v == "avx2") { *out = POSENC_ISA_AVX2; return true; }
  if (v == "avx512") { *out = POSENC_ISA_AVX512; return true; }
  if (v == "neon") { *out = POSENC_ISA_NEON; return true; }
  return false;
}

struct dispatch_state {
  uint32_t available = POSENC_ISA_SCALAR;
  std::atomic<int> active{POSENC_ISA_SCALAR};
  // Non-empty while POSENC_ISA named a path that cannot run; kernel calls then fail.
  std::atomic<bool> env_error{false};
  std::string env_message;
};

dispatch_state& dispatch() {
  static dispatch_state* st = [] {
    auto* s = new dispatch_state();
    s->available = detect_available();
    posenc_isa chosen = best_of(s->available);
    if (const char* env = std::getenv("POSENC_ISA")) {
      posenc_isa want;
      if (!parse_isa(env, &want)) {
        s->env_error = true;
        s->env_message = std::string("environment variable POSENC_ISA='") + env +
                         "' is not one of scalar, avx2, avx512, neon, auto";
      } else if (want != POSENC_ISA_AUTO && !(s->available & want)) {
        s->env_error = true;
        s->env_message = std::string("environment variable POSENC_ISA='") + env +
                         "' names an ISA path that is not available on this CPU/build";
        chosen = want;
      } else if (want != POSENC_ISA_AUTO) {
        chosen = want;
      }
    }
    s->active.store(chosen);
    return s;
  }();
  return *st;
}

}  // namespace

const std::string* threads_env_error();  // below: POSENC_NUM_THREADS held a value it cannot use

posenc_status kernel_isa(posenc_isa* isa) {
  dispatch_state& d = dispatch();
  if (d.env_error.load(std::memory_order_acquire))
    return set_error(POSENC_ERR_UNSUPPORTED, "%s (unset it, or call posenc_isa_set to choose a path)",
                     d.env_message.c_str());
  if (const std::string* m = threads_env_error())
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s (unset it, or call posenc_threads_set to choose a count)",
                     m->c_str());
  *isa = static_cast<posenc_isa>(d.active.load(std::memory_order_acquire));
  return POSENC_OK;
}

// ---------------------------------------------------------------- threads
namespace {
struct thread_state {
  std::mutex mu;
  std::shared_ptr<tbb::task_arena> arena;
  std::atomic<int32_t> count{1};
  // Set while POSENC_NUM_THREADS holds a value that is not a whole number in 0..4096: kernel calls
  // then fail (like an unusable POSENC_ISA) until posenc_threads_set is called.
  std::atomic<bool> env_error{false};
  std::string env_message;
};

int32_t hardware_threads() {
  int n = tbb::this_task_arena::max_concurrency();
  if (n < 1) n = static_cast<int>(std::thread::hardware_concurrency());
  return n < 1 ? 1 : n;
}

thread_state& threads() {
  static thread_state* st = [] {
    auto* s = new thread_state();
    int32_t n = 0;
    if (const char* env = std::getenv("POSENC_NUM_THREADS"); env && *env) {  // empty = unset
      char* end = nullptr;
      errno = 0;
      const long v = std::strtol(env, &end, 10);
      if (end != env && *end == '\0' && errno == 0 && v >= 0 && v <= 4096) {
        n = static_cast<int32_t>(v);
      } else {
        s->env_error = true;
        s->env_message = std::string("environment variable POSENC_NUM_THREADS='") + env +
                         "' is not a whole number in 0..4096 (0 = all hardware threads)";
      }
    }
    if (n == 0) n = hardware_threads();
    s->count = n;
    s->arena = std::make_shared<tbb::task_arena>(n);
    return s;
  }();
  return *st;
}

std::shared_ptr<tbb::task_arena> current_arena() {
  thread_state& t = threads();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.arena;
}
}  // namespace

const std::string* threads_env_error() {
  thread_state& t = threads();
  return t.env_error.load(std::memory_order_acquire) ? &t.env_message : nullptr;
}

int32_t thread_count() { return threads().count.load(std::memory_order_relaxed); }

void parallel_tiles_impl(int64_t num_tiles, void (*fn)(void*, int64_t), void* ctx) {
  std::shared_ptr<tbb::task_arena> arena = current_arena();
  arena->execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, num_tiles, 1),
        [&](const tbb::blocked_range<int64_t>& r) {
          for (int64_t t = r.begin(); t != r.end(); ++t) fn(ctx, t);
        },
        tbb::simple_partitioner());
  });
}

}  // namespace detail
}  // namespace posenc

using namespace posenc::detail;

extern "C" {

POSENC_API const char* posenc_status_string(posenc_status s) {
  switch (s) {
    case POSENC_OK: return "POSENC_OK";
    case POSENC_ERR_NULL_POINTER: return "POSENC_ERR_NULL_POINTER";
    case POSENC_ERR_INVALID_ARGUMENT: return "POSENC_ERR_INVALID_ARGUMENT";
    case POSENC_ERR_UNSUPPORTED: return "POSENC_ERR_UNSUPPORTED";
    case POSENC_ERR_OUT_OF_MEMORY: return "POSENC_ERR_OUT_OF_MEMORY";
    case POSENC_ERR_SIZE_OVERFLOW: return "POSENC_ERR_SIZE_OVERFLOW";
    case POSENC_ERR_NOT_CONVERGED: return "POSENC_ERR_NOT_CONVERGED";
    case POSENC_ERR_INTERNAL: return "POSENC_ERR_INTERNAL";
    default: break;
  }
  return "unknown status";
}

POSENC_API const char* posenc_last_error_message(void) {
  // Reading the message is not a call that can fail, so it does not clear it.
  return posenc::detail::error_message_cstr();
}

POSENC_API uint32_t posenc_version(void) {
  return POSENC_VERSION_MAJOR * 10000u + POSENC_VERSION_MINOR * 100u + POSENC_VERSION_PATCH;
}

#define POSENC_STR2_(x) #x
#define POSENC_STR_(x) POSENC_STR2_(x)
POSENC_API const char* posenc_version_string(void) {
  return POSENC_STR_(POSENC_VERSION_MAJOR) "." POSENC_STR_(POSENC_VERSION_MINOR) "." POSENC_STR_(POSENC_VERSION_PATCH);
}

POSENC_API uint32_t posenc_isa_available(void) { return dispatch().available; }

POSENC_API posenc_isa posenc_isa_active(void) {
  return static_cast<posenc_isa>(dispatch().active.load(std::memory_order_acquire));
}

POSENC_API posenc_status posenc_isa_set(posenc_isa isa) {
  api_guard g("posenc_isa_set");
  dispatch_state& d = dispatch();
  switch (isa) {
    case POSENC_ISA_AUTO: case POSENC_ISA_SCALAR: case POSENC_ISA_AVX2: case POSENC_ISA_AVX512:
    case POSENC_ISA_NEON: break;
    default:
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "isa must be a posenc_isa value (got %d)", static_cast<int>(isa));
  }
  posenc_isa target = isa == POSENC_ISA_AUTO ? best_of(d.available) : isa;
  if (!(d.available & target))
    return set_error(POSENC_ERR_UNSUPPORTED, "isa '%s' is not available on this CPU/build (available mask 0x%x)",
                     posenc_isa_name(isa), d.available);
  d.active.store(target, std::memory_order_release);
  d.env_error.store(false, std::memory_order_release);
  return POSENC_OK;
}

POSENC_API const char* posenc_isa_name(posenc_isa isa) {
  switch (isa) {
    case POSENC_ISA_AUTO: return "auto";
    case POSENC_ISA_SCALAR: return "scalar";
    case POSENC_ISA_AVX2: return "avx2";
    case POSENC_ISA_AVX512: return "avx512";
    case POSENC_ISA_NEON: return "neon";
    default: break;
  }
  return "unknown";
}

POSENC_API posenc_status posenc_threads_set(int32_t n) {
  api_guard g("posenc_threads_set");
  if (n < 0 || n > 4096)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "n must be in [0, 4096] (got %d)", static_cast<int>(n));
  return guarded([&] {
    thread_state& t = threads();
    int32_t want = n == 0 ? hardware_threads() : n;
    auto arena = std::make_shared<tbb::task_arena>(want);
    std::lock_guard<std::mutex> lock(t.mu);
    t.arena = std::move(arena);
    t.count = want;
    t.env_error.store(false, std::memory_order_release);  // an explicit count replaces a bad POSENC_NUM_THREADS
    return POSENC_OK;
  });
}

POSENC_API int32_t posenc_threads_get(void) { return thread_count(); }

}  // extern "C"
