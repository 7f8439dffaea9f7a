// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/internal.hpp — runtime helpers shared by the lib/ translation units (never installed).
//
// lib/ is compiled once with baseline flags. A public function in lib/<family>.cpp:
//   1. opens with `api_guard g("posenc_xxx");`, which clears the thread-local message;
//   2. validates every argument with the check_* helpers (they set the message and return the
//      status; use POSENC_CHECK to propagate), before touching any output;
//   3. picks the kernel table of the active ISA (active_table), and
//   4. runs tiles through parallel_tiles(), whose tile boundaries depend on the problem size
//      only, so results are bitwise identical for any thread count.
// Wrap the body in guarded(...) so that std::bad_alloc becomes POSENC_ERR_OUT_OF_MEMORY and any
// other exception POSENC_ERR_INTERNAL: nothing throws across the C ABI.
//
// Profiling (docs/PROFILING.md): api_guard also produces the verbose line and the trace event of
// the call (at its destruction, with the status), and parallel_tiles a trace event per tile, so a
// new function gets both with no extra code. Where a function picks an implementation branch,
// name it with a one-line `path("family_op.branch");` (the default path is the function name
// without "posenc_"), and give the roofline model with `work(bytes, flops, f32)` and the shape with
// `POSENC_SHAPE("n=%lld dim=%d", ...)`. With profiling off each of these is one relaxed load.
#pragma once

#include "posenc/posenc.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace posenc {
namespace detail {

// ---------------------------------------------------------------- errors
void clear_error();
const char* error_message_cstr();
/// Sets the thread-local message to "<function>: <printf-formatted text>" and returns s.
posenc_status set_error(posenc_status s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/// Name of the public function being executed on this thread (for messages).
const char* current_function();
void set_current_function(const char* name);

/// Status of the last set_error on this thread since the call began (profiling only).
posenc_status recorded_status();
void reset_recorded_status();

// ---------------------------------------------------------------- profiling (lib/verbose.cpp, lib/trace.cpp)
/// The profiling word: verbose level (0..2) in bits 0-1, kProfTrace while a trace runs. 0 = off.
extern std::atomic<uint32_t> g_prof;
constexpr uint32_t kProfLevelMask = 3u, kProfTrace = 4u;
inline uint32_t prof_flags() { return g_prof.load(std::memory_order_relaxed); }
inline uint64_t prof_now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch()).count());
}

/// The profiling state of the call running on this thread (lib/verbose.cpp).
struct call_ctx;
/// Starts recording a call (nullptr when not recorded: a call nested in another posenc call).
call_ctx* call_begin(const char* fn, uint32_t flags);
/// Ends it: the record for posenc_last_call_info, the verbose line, the trace event.
void call_end(call_ctx* c);
void set_path(const char* name);
void set_work(double bytes, double flops, bool flops_f32);
void set_shape(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Opens every public function: names it for error messages, clears the message, and records the
/// call while profiling is on (verbose line and trace event at destruction, with the status).
class api_guard {
 public:
  explicit api_guard(const char* fn) {
    set_current_function(fn);
    clear_error();
    const uint32_t f = prof_flags();
    if (__builtin_expect(f != 0, 0)) ctx_ = call_begin(fn, f);
  }
  ~api_guard() {
    if (__builtin_expect(ctx_ != nullptr, 0)) call_end(ctx_);
  }
  api_guard(const api_guard&) = delete;
  api_guard& operator=(const api_guard&) = delete;

 private:
  call_ctx* ctx_ = nullptr;
};

/// Names the implementation branch this call takes (a string literal listed in
/// docs/PROFILING.md), e.g. path("sh_real.fast.stream_nt"). The last call wins.
inline void path(const char* name) {
  if (__builtin_expect(prof_flags() != 0, 0)) set_path(name);
}
/// The roofline model of the branch taken: bytes read + written and floating-point operations
/// (FMA = 2; flops_f32: float32 operations). 0 = not modelled. Calls add up.
inline void work(double bytes, double flops = 0.0, bool flops_f32 = false) {
  if (__builtin_expect(prof_flags() != 0, 0)) set_work(bytes, flops, flops_f32);
}
/// The call's shape for the verbose line (printf format; name=value items separated by spaces).
#define POSENC_SHAPE(...)                                                                        \
  do {                                                                                           \
    if (__builtin_expect(::posenc::detail::prof_flags() != 0, 0)) ::posenc::detail::set_shape(__VA_ARGS__); \
  } while (0)

/// Tile tracing (lib/trace.cpp): tiles_begin notes the tile count of a parallel section and
/// returns the call to attach tile events to (nullptr: not tracing); tile_done records one.
call_ctx* tiles_begin(int64_t num_tiles);
void tile_done(const call_ctx* c, int64_t tile, int64_t num_tiles, uint64_t t0_ns);

#define POSENC_CHECK(expr)                                   \
  do {                                                       \
    posenc_status posenc_check_status_ = (expr);             \
    if (posenc_check_status_ != POSENC_OK) return posenc_check_status_; \
  } while (0)

/// Runs f() (returning posenc_status) and turns escaping exceptions into status codes.
template <class F>
posenc_status guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return set_error(POSENC_ERR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return set_error(POSENC_ERR_INTERNAL, "internal error: %s", e.what());
  } catch (...) {
    return set_error(POSENC_ERR_INTERNAL, "internal error (unknown exception)");
  }
}

// ---------------------------------------------------------------- validation
inline posenc_status check_not_null(const void* p, const char* name) {
  if (p == nullptr) return set_error(POSENC_ERR_NULL_POINTER, "%s must not be NULL", name);
  return POSENC_OK;
}
/// p may be NULL only when count == 0.
inline posenc_status check_not_null_if(const void* p, int64_t count, const char* name) {
  if (p == nullptr && count > 0)
    return set_error(POSENC_ERR_NULL_POINTER, "%s must not be NULL when its size is %lld > 0", name,
                     static_cast<long long>(count));
  return POSENC_OK;
}
inline posenc_status check_nonneg(int64_t v, const char* name) {
  if (v < 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be >= 0 (got %lld)", name, static_cast<long long>(v));
  return POSENC_OK;
}
inline posenc_status check_positive(int64_t v, const char* name) {
  if (v <= 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be > 0 (got %lld)", name, static_cast<long long>(v));
  return POSENC_OK;
}
inline posenc_status check_finite_positive(double v, const char* name) {
  if (!(std::isfinite(v) && v > 0.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be finite and > 0 (got %g)", name, v);
  return POSENC_OK;
}
/// out = a * b, failing with SIZE_OVERFLOW (naming `what`) if the product of non-negative
/// a and b exceeds int64_t or what the address space can hold for elements of elem_size bytes.
inline posenc_status checked_mul(int64_t a, int64_t b, int64_t* out, const char* what, int64_t elem_size = 1) {
  int64_t r = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) {
    return set_error(POSENC_ERR_SIZE_OVERFLOW, "size of %s overflows (%lld x %lld)", what,
                     static_cast<long long>(a), static_cast<long long>(b));
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(r, elem_size, &bytes) ||
      static_cast<uint64_t>(bytes) > static_cast<uint64_t>(std::numeric_limits<std::ptrdiff_t>::max())) {
    return set_error(POSENC_ERR_SIZE_OVERFLOW, "size of %s overflows the address space (%lld elements)", what,
                     static_cast<long long>(r));
  }
  *out = r;
  return POSENC_OK;
}

// ---------------------------------------------------------------- dispatch
/// The ISA the kernels should use now, or POSENC_OK-failing status if POSENC_ISA was unusable
/// (message set). Reads POSENC_ISA / detects the CPU on first use.
posenc_status kernel_isa(posenc_isa* isa);

/// The int a C caller passed for an enum parameter, read through its object representation: a C
/// caller may pass any int, and loading an out-of-range value as the C++ enum type is undefined
/// behaviour (UBSan -fsanitize=enum). lib/ validates the value it returns.
template <class E>
int enum_bits(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized here");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

/// Index of the first zero 8-byte word of a kernel table, or -1 when there is none. Every entry of a
/// table (kernels/<family>_table.hpp) is a function pointer or a non-zero int64_t, and the tables are
/// filled member by member from a zeroed value (kernels/<family>.cpp), so a zero word is an entry
/// the fill forgot.
template <class Table>
int kernel_table_hole(const Table* t) {
  static_assert(sizeof(Table) % sizeof(uint64_t) == 0 && alignof(Table) == alignof(uint64_t),
                "kernel tables hold 8-byte entries only (function pointers, int64_t)");
  uint64_t w[sizeof(Table) / sizeof(uint64_t)];
  std::memcpy(w, t, sizeof(Table));
  for (size_t i = 0; i < sizeof(Table) / sizeof(uint64_t); ++i)
    if (w[i] == 0) return static_cast<int>(i);
  return -1;
}

/// Declares `const Table* posenc::isa_<name>::fn();` for every compiled ISA and defines
/// `posenc_status posenc::detail::fn_active(const Table** out)` that returns the active ISA's table
/// (POSENC_ERR_INTERNAL if that table has an entry left empty).
#define POSENC_ISA_DECL_(ns, Table, fn) namespace ns { const Table* fn(); }
#if defined(POSENC_HAVE_AVX2)
#define POSENC_IF_AVX2_(x) x
#else
#define POSENC_IF_AVX2_(x)
#endif
#if defined(POSENC_HAVE_AVX512)
#define POSENC_IF_AVX512_(x) x
#else
#define POSENC_IF_AVX512_(x)
#endif
#if defined(POSENC_HAVE_NEON)
#define POSENC_IF_NEON_(x) x
#else
#define POSENC_IF_NEON_(x)
#endif
#define POSENC_USE_KERNELS(Table, fn)                                                          \
  namespace posenc {                                                                            \
  POSENC_ISA_DECL_(isa_scalar, Table, fn)                                                       \
  POSENC_IF_AVX2_(POSENC_ISA_DECL_(isa_avx2, Table, fn))                                        \
  POSENC_IF_AVX512_(POSENC_ISA_DECL_(isa_avx512, Table, fn))                                    \
  POSENC_IF_NEON_(POSENC_ISA_DECL_(isa_neon, Table, fn))                                        \
  namespace detail {                                                                            \
  inline const Table* fn##_for(posenc_isa isa) {                                                \
    switch (isa) {                                                                              \
      POSENC_IF_AVX2_(case POSENC_ISA_AVX2: return isa_avx2::fn();)                             \
      POSENC_IF_AVX512_(case POSENC_ISA_AVX512: return isa_avx512::fn();)                       \
      POSENC_IF_NEON_(case POSENC_ISA_NEON: return isa_neon::fn();)                             \
      default: return isa_scalar::fn();                                                         \
    }                                                                                           \
  }                                                                                             \
  inline posenc_status fn##_active(const Table** out) {                                         \
    posenc_isa isa;                                                                             \
    POSENC_CHECK(kernel_isa(&isa));                                                             \
    *out = fn##_for(isa);                                                                       \
    const int hole = kernel_table_hole(*out);                                                   \
    if (hole >= 0)                                                                              \
      return set_error(POSENC_ERR_INTERNAL, "internal error: " #Table " of ISA %s has no entry "  \
                       "at word %d (kernels/*.cpp fill)", posenc_isa_name(isa), hole);            \
    return POSENC_OK;                                                                           \
  }                                                                                             \
  }                                                                                             \
  }

// ---------------------------------------------------------------- threads
int32_t thread_count();
/// Runs body(t) for every tile t in [0, num_tiles) on the posenc arena. The caller chooses
/// tiles from the problem size only; which thread runs a tile never changes a result.
/// body must not throw (kernels do not).
void parallel_tiles_impl(int64_t num_tiles, void (*fn)(void*, int64_t), void* ctx);
template <class F>
void run_tiles(int64_t num_tiles, F& body) {
  if (num_tiles == 1 || thread_count() == 1) {
    for (int64_t t = 0; t < num_tiles; ++t) body(t);
    return;
  }
  parallel_tiles_impl(
      num_tiles, [](void* c, int64_t t) { (*static_cast<F*>(c))(t); }, &body);
}
template <class F>
void parallel_tiles(int64_t num_tiles, F&& body) {
  if (num_tiles <= 0) return;
  if (__builtin_expect(prof_flags() != 0, 0)) {
    if (const call_ctx* c = tiles_begin(num_tiles)) {  // a trace runs: one event per tile
      auto traced = [&](int64_t t) {
        const uint64_t t0 = prof_now_ns();
        body(t);
        tile_done(c, t, num_tiles, t0);
      };
      run_tiles(num_tiles, traced);
      return;
    }
  }
  run_tiles(num_tiles, body);
}
/// Number of tiles of `grain` items covering `n` items.
inline int64_t tiles_of(int64_t n, int64_t grain) { return n <= 0 ? 0 : (n + grain - 1) / grain; }

/// Deterministic reduction: partial[t] = map(t) per tile in parallel, then combined in tile
/// order on the calling thread. The result does not depend on the thread count.
template <class T, class Map, class Combine>
T deterministic_reduce(int64_t num_tiles, T init, Map&& map, Combine&& combine) {
  std::vector<T> partial(static_cast<size_t>(num_tiles > 0 ? num_tiles : 0), init);
  parallel_tiles(num_tiles, [&](int64_t t) { partial[static_cast<size_t>(t)] = map(t); });
  T acc = init;
  for (const T& p : partial) acc = combine(acc, p);
  return acc;
}

}  // namespace detail
}  // namespace posenc
