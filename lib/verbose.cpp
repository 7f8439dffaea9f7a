// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/verbose.cpp — verbose mode (POSENC_VERBOSE / posenc_verbose_set), the per-call record of
// api_guard (posenc_last_call_info), and the measured roofline the verbose lines compare with
// (posenc_roofline_measure). docs/PROFILING.md documents the line format and every path name.
#include "kernels/peak_table.hpp"
#include "lib/verbose.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

POSENC_USE_KERNELS(peak_kernels_t, peak_kernels)

namespace posenc {
namespace detail {

std::atomic<uint32_t> g_prof{0};

namespace {

// ---------------------------------------------------------------- the running call
thread_local call_ctx t_ctx;          // POD: no constructor, no guard on access
thread_local int t_depth = 0;         // 1 while a recorded call runs on this thread
thread_local bool t_in_callback = false;
std::atomic<uint64_t> g_call_ids{0};

/// The last recorded call of this thread (posenc_last_call_info); struct_size 0 = none yet.
thread_local posenc_call_info t_last;

// ---------------------------------------------------------------- output
/// Lines for stderr are buffered like stdio's streams: written at once when stderr is a
/// terminal (checked when the level or the sink is set), else in blocks of kBlockBytes, and at
/// once for error lines, level or sink changes and process exit. (A write system call per line
/// costs 4-7 us on some virtual machines, more than the rest of the line.)
constexpr size_t kBlockBytes = 4096;

struct sink_state {
  std::mutex mu;
  posenc_verbose_fn fn = nullptr;
  void* user = nullptr;
  bool info_done = false;  // the info lines have been written to the current sink
  bool tty = false;        // stderr is a terminal
  std::string buf;         // stderr lines not yet written
};
sink_state& sink() {
  static sink_state* s = new sink_state();  // never destroyed: lines may come during exit
  return *s;
}

void flush_locked(sink_state& s) {
  if (s.buf.empty()) return;
  std::fwrite(s.buf.data(), 1, s.buf.size(), stderr);
  std::fflush(stderr);
  s.buf.clear();
}

void write_line_locked(sink_state& s, const std::string& line, bool now = false) {
  if (s.fn) {
    t_in_callback = true;
    s.fn(line.c_str(), s.user);
    t_in_callback = false;
    return;
  }
  s.buf += line;
  s.buf.push_back('\n');
  if (now || s.tty || s.buf.size() >= kBlockBytes) flush_locked(s);
}

/// Writes the buffered lines (level or sink changes; at exit through flush_at_exit).
void flush_sink(bool recheck_tty) {
  sink_state& s = sink();
  std::lock_guard<std::mutex> lock(s.mu);
  flush_locked(s);
  if (recheck_tty) s.tty = ::isatty(2) != 0;
}

struct flush_at_exit {
  ~flush_at_exit() { flush_sink(false); }
} g_flush_at_exit;

std::string available_names() {
  std::string s;
  const uint32_t m = posenc_isa_available();
  for (posenc_isa i : {POSENC_ISA_SCALAR, POSENC_ISA_AVX2, POSENC_ISA_AVX512, POSENC_ISA_NEON})
    if (m & static_cast<uint32_t>(i)) s += std::string(s.empty() ? "" : " ") + posenc_isa_name(i);
  return s;
}

void info_lines_locked(sink_state& s) {
  if (s.info_done) return;
  s.info_done = true;
  std::string l = std::string("posenc_verbose,info,version=") + posenc_version_string() +
                  ",isa=" + posenc_isa_name(posenc_isa_active()) + ",available=" + available_names() + ",threads=";
  append_int(l, thread_count());
  write_line_locked(s, l);
  write_line_locked(s, "posenc_verbose,info,columns,exec,function,isa,path,threads,shape,ms,rate,roofline");
  write_line_locked(s, "posenc_verbose,info,columns,error,function,isa,status,message");
}

void emit(const std::string& line, bool info, bool now) {
  sink_state& s = sink();
  std::lock_guard<std::mutex> lock(s.mu);
  if (info) info_lines_locked(s);
  // At once also when the level has just dropped below 2 (e.g. this call set it to 0): no line
  // stays buffered after verbose mode is off.
  write_line_locked(s, line, now || (prof_flags() & kProfLevelMask) < 2);
}

// ---------------------------------------------------------------- roofline
/// One measurement with `threads` threads at once: body(i) runs on thread i; wall seconds.
template <class F>
double run_threads(int32_t threads, F&& body) {
  const uint64_t t0 = prof_now_ns();
  if (threads <= 1) {
    body(0);
  } else {
    std::vector<std::thread> th;
    th.reserve(static_cast<size_t>(threads));
    for (int32_t i = 0; i < threads; ++i) th.emplace_back([&body, i] { body(i); });
    for (auto& t : th) t.join();
  }
  return static_cast<double>(prof_now_ns() - t0) * 1e-9;
}

constexpr int kPeakRuns = 5;
constexpr size_t kCopyBytes = size_t(32) << 20;
constexpr int64_t kFmaIters = int64_t(1) << 20;

posenc_status measure(posenc_isa isa, int32_t threads, posenc_roofline* r) {
  const uint64_t start = prof_now_ns();
  const peak_kernels_t* k = peak_kernels_for(isa);
  std::unique_ptr<char[]> src(new char[kCopyBytes]), dst(new char[kCopyBytes]);
  std::memset(src.get(), 1, kCopyBytes);  // first touch outside the timed runs
  std::memset(dst.get(), 0, kCopyBytes);
  const size_t part = kCopyBytes / static_cast<size_t>(threads);
  double copy_s = HUGE_VAL, f64_s = HUGE_VAL, f32_s = HUGE_VAL;
  std::vector<double> sinks(static_cast<size_t>(threads) * 8);
  std::vector<float> sinkf(static_cast<size_t>(threads) * 16);
  std::vector<double> f64_flops(static_cast<size_t>(threads)), f32_flops(static_cast<size_t>(threads));
  for (int run = 0; run < kPeakRuns; ++run) {
    copy_s = std::min(copy_s, run_threads(threads, [&](int32_t i) {
      std::memcpy(dst.get() + static_cast<size_t>(i) * part, src.get() + static_cast<size_t>(i) * part, part);
    }));
    f64_s = std::min(f64_s, run_threads(threads, [&](int32_t i) {
      f64_flops[static_cast<size_t>(i)] = k->fma_f64(kFmaIters, &sinks[static_cast<size_t>(i) * 8]);
    }));
    f32_s = std::min(f32_s, run_threads(threads, [&](int32_t i) {
      f32_flops[static_cast<size_t>(i)] = k->fma_f32(kFmaIters, &sinkf[static_cast<size_t>(i) * 16]);
    }));
  }
  double flops64 = 0, flops32 = 0;
  for (int32_t i = 0; i < threads; ++i) {
    flops64 += f64_flops[static_cast<size_t>(i)];
    flops32 += f32_flops[static_cast<size_t>(i)];
  }
  r->isa = isa;
  r->threads = threads;
  r->memcpy_bytes_per_s = 2.0 * static_cast<double>(part * static_cast<size_t>(threads)) / copy_s;
  r->fma_flops_per_s_f64 = flops64 / f64_s;
  r->fma_flops_per_s_f32 = flops32 / f32_s;
  r->seconds = static_cast<double>(prof_now_ns() - start) * 1e-9;
  return POSENC_OK;
}

/// The first measurement of each (ISA, thread count), for the verbose lines.
struct roofline_cache {
  std::mutex mu;
  std::vector<posenc_roofline> entries;
};
roofline_cache& cache() {
  static roofline_cache* c = new roofline_cache();
  return *c;
}

bool cached_roofline(posenc_isa isa, int32_t threads, posenc_roofline* out) {
  roofline_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (const auto& e : c.entries)
    if (e.isa == isa && e.threads == threads) {
      *out = e;
      return true;
    }
  posenc_roofline r{};
  r.struct_size = sizeof r;
  try {
    if (measure(isa, threads, &r) != POSENC_OK) return false;
    c.entries.push_back(r);
  } catch (...) {
    return false;  // out of memory: the line shows no roofline
  }
  *out = r;
  return true;
}

// ---------------------------------------------------------------- the exec line
/// Appends to_chars(args...) of v (printf-like %g / %f without printf's cost: the line is built
/// at every call at level 2).
template <class... A>
void append_num(std::string& out, double v, A... args) {
  char b[64];
  const auto r = std::to_chars(b, b + sizeof b, v, args...);
  out.append(b, r.ptr);
}

std::string exec_line(const call_ctx& c, posenc_isa isa, int32_t threads) {
  const double secs = static_cast<double>(c.t1_ns - c.t0_ns) * 1e-9;
  std::string l;
  l.reserve(256);
  l += "posenc_verbose,exec,";
  l += c.fn;
  l += ',';
  l += posenc_isa_name(isa);
  l += ',';
  l += path_of(c);
  l += ",threads=";
  append_int(l, threads);
  l += ',';
  l += c.shape[0] ? c.shape : "-";
  l += ',';
  append_num(l, secs * 1e3, std::chars_format::general, 6);
  l += ',';
  if ((c.bytes > 0 || c.flops > 0) && secs > 0) {
    const int32_t eff = static_cast<int32_t>(std::max<int64_t>(1, std::min<int64_t>(threads, c.tiles)));
    posenc_roofline r{};
    const bool have = cached_roofline(isa, eff, &r);
    const double peak = c.flops_f32 ? r.fma_flops_per_s_f32 : r.fma_flops_per_s_f64;
    // Memory-bound when the intensity times the bandwidth stays under the compute peak.
    const bool memory = c.flops <= 0 || (c.bytes > 0 && have && c.flops / c.bytes * r.memcpy_bytes_per_s < peak);
    const double rate = memory ? c.bytes / secs : c.flops / secs;
    append_num(l, rate * 1e-9, std::chars_format::general, 3);
    l += memory ? "GB/s," : "GFLOP/s,";
    if (have) {
      append_num(l, 100.0 * rate / (memory ? r.memcpy_bytes_per_s : peak), std::chars_format::fixed, 1);
      l += '%';
    } else {
      l += '-';
    }
  } else {
    l += "-,-";
  }
  return l;
}

std::string error_line(const call_ctx& c, posenc_status st, posenc_isa isa) {
  std::string msg = error_message_cstr();
  for (char& ch : msg)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return std::string("posenc_verbose,error,") + c.fn + "," + posenc_isa_name(isa) + "," + posenc_status_string(st) +
         "," + msg;
}

// ---------------------------------------------------------------- level
bool parse_level(const char* s, int32_t* out) {
  if (s == nullptr) return false;
  if ((s[0] == '0' || s[0] == '1' || s[0] == '2') && s[1] == '\0') {
    *out = s[0] - '0';
    return true;
  }
  return false;
}

void store_level(int32_t level) {
  uint32_t cur = g_prof.load(std::memory_order_relaxed);
  while (!g_prof.compare_exchange_weak(cur, (cur & ~kProfLevelMask) | static_cast<uint32_t>(level),
                                       std::memory_order_relaxed)) {
  }
}

struct env_init {
  env_init() {
    const char* v = std::getenv("POSENC_VERBOSE");
    if (v == nullptr || v[0] == '\0') return;
    int32_t level = 0;
    if (parse_level(v, &level)) {
      store_level(level);
      sink().tty = ::isatty(2) != 0;
    }
    else
      std::fprintf(stderr,
                   "posenc: environment variable POSENC_VERBOSE='%s' is not 0, 1 or 2; verbose mode stays off\n", v);
  }
} g_env_init;

}  // namespace

// ---------------------------------------------------------------- api_guard's hooks
call_ctx* call_begin(const char* fn, uint32_t flags) {
  if (t_depth != 0 || t_in_callback) return nullptr;  // nested in a posenc call, or in the callback
  t_depth = 1;
  call_ctx& c = t_ctx;
  c.fn = fn;
  c.path = nullptr;
  c.flags = flags;
  c.bytes = c.flops = 0.0;
  c.flops_f32 = false;
  c.tiles = 0;
  c.shape[0] = '\0';
  c.id = g_call_ids.fetch_add(1, std::memory_order_relaxed) + 1;
  reset_recorded_status();
  c.t0_ns = prof_now_ns();
  return &c;
}

void call_end(call_ctx* c) {
  c->t1_ns = prof_now_ns();
  t_depth = 0;
  const posenc_status st = recorded_status();
  const posenc_isa isa = posenc_isa_active();
  const int32_t threads = thread_count();
  posenc_call_info& l = t_last;
  l.struct_size = sizeof l;
  l.status = st;
  l.isa = isa;
  l.threads = threads;
  l.tiles = c->tiles;
  l.seconds = static_cast<double>(c->t1_ns - c->t0_ns) * 1e-9;
  l.bytes = c->bytes;
  l.flops = c->flops;
  l.flops_f32 = c->flops_f32 ? 1 : 0;
  l.function = c->fn;
  l.path = path_of(*c);
  std::memcpy(l.shape, c->shape, sizeof l.shape);
  try {
    const uint32_t level = c->flags & kProfLevelMask;
    if (st != POSENC_OK && level >= 1) emit(error_line(*c, st, isa), false, true);
    else if (st == POSENC_OK && level >= 2) emit(exec_line(*c, isa, threads), true, false);
    if (c->flags & kProfTrace) trace_call(*c, st, isa, threads);
  } catch (...) {
    // Out of memory while formatting: the call's own result stands; the line is lost.
  }
}

void append_int(std::string& out, long long v) {
  char b[24];
  const auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, r.ptr);
}

const char* path_of(const call_ctx& c) {
  if (c.path) return c.path;
  return std::strncmp(c.fn, "posenc_", 7) == 0 ? c.fn + 7 : c.fn;
}

void set_path(const char* name) {
  if (t_depth == 1) t_ctx.path = name;
}

void set_work(double bytes, double flops, bool flops_f32) {
  if (t_depth != 1) return;
  t_ctx.bytes += bytes;
  t_ctx.flops += flops;
  if (flops > 0) t_ctx.flops_f32 = flops_f32;
}

void set_shape(const char* fmt, ...) {
  if (t_depth != 1) return;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(t_ctx.shape, sizeof t_ctx.shape, fmt, ap);
  va_end(ap);
  for (char* p = t_ctx.shape; *p; ++p)
    if (*p == ',' || *p == '\n') *p = ';';  // the line stays CSV
}

call_ctx* tiles_begin(int64_t num_tiles) {
  if (t_depth != 1) return nullptr;
  t_ctx.tiles = std::max(t_ctx.tiles, num_tiles);
  return (t_ctx.flags & kProfTrace) ? &t_ctx : nullptr;
}

namespace {

/// Zeros *p and sets its struct_size (the _init functions).
template <class T>
posenc_status init_struct(T* p, const char* name) {
  POSENC_CHECK(check_not_null(p, name));
  std::memset(p, 0, sizeof *p);
  p->struct_size = sizeof(T);
  return POSENC_OK;
}

posenc_status check_struct_size(uint32_t got, size_t want, const char* name, const char* type) {
  if (got != want)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s->struct_size must be sizeof(%s) = %zu (got %u); call %s_init", name,
                     type, want, got, type);
  return POSENC_OK;
}

}  // namespace

}  // namespace detail
}  // namespace posenc

using namespace posenc::detail;

extern "C" {

POSENC_API posenc_status posenc_verbose_set(int32_t level) {
  api_guard g("posenc_verbose_set");
  if (level < 0 || level > 2)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "level must be 0, 1 or 2 (got %d)", static_cast<int>(level));
  store_level(level);
  flush_sink(true);
  return POSENC_OK;
}

POSENC_API int32_t posenc_verbose_get(void) {
  return static_cast<int32_t>(g_prof.load(std::memory_order_relaxed) & kProfLevelMask);
}

POSENC_API posenc_status posenc_verbose_callback_set(posenc_verbose_fn fn, void* user) {
  api_guard g("posenc_verbose_callback_set");
  sink_state& s = sink();
  std::lock_guard<std::mutex> lock(s.mu);
  flush_locked(s);
  s.fn = fn;
  s.user = user;
  s.info_done = false;  // a new sink gets the info lines again
  s.tty = ::isatty(2) != 0;
  return POSENC_OK;
}

POSENC_API posenc_status posenc_call_info_init(posenc_call_info* info) {
  api_guard g("posenc_call_info_init");
  return init_struct(info, "info");
}

POSENC_API posenc_status posenc_last_call_info(posenc_call_info* info) {
  // Not an api_guard: reading the record must not replace it.
  set_current_function("posenc_last_call_info");
  clear_error();
  POSENC_CHECK(check_not_null(info, "info"));
  POSENC_CHECK(check_struct_size(info->struct_size, sizeof(posenc_call_info), "info", "posenc_call_info"));
  if (t_last.struct_size == 0)
    return set_error(POSENC_ERR_UNSUPPORTED,
                     "no call has been recorded on this thread (recording needs verbose level >= 1 or a trace)");
  *info = t_last;
  return POSENC_OK;
}

POSENC_API posenc_status posenc_roofline_init(posenc_roofline* r) {
  api_guard g("posenc_roofline_init");
  return init_struct(r, "r");
}

POSENC_API posenc_status posenc_roofline_measure(posenc_isa isa, int32_t threads, posenc_roofline* out) {
  api_guard g("posenc_roofline_measure");
  POSENC_CHECK(check_not_null(out, "out"));
  POSENC_CHECK(check_struct_size(out->struct_size, sizeof(posenc_roofline), "out", "posenc_roofline"));
  int isa_i;
  std::memcpy(&isa_i, &isa, sizeof isa_i);
  if (isa_i != POSENC_ISA_AUTO && isa_i != POSENC_ISA_SCALAR && isa_i != POSENC_ISA_AVX2 &&
      isa_i != POSENC_ISA_AVX512 && isa_i != POSENC_ISA_NEON)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "isa must be a posenc_isa value (got %d)", isa_i);
  if (threads < 0 || threads > 4096)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "threads must be in [0, 4096] (got %d)", static_cast<int>(threads));
  const posenc_isa target = isa_i == POSENC_ISA_AUTO ? posenc_isa_active() : static_cast<posenc_isa>(isa_i);
  if (!(posenc_isa_available() & static_cast<uint32_t>(target)))
    return set_error(POSENC_ERR_UNSUPPORTED, "isa '%s' is not available on this CPU/build (available: %s)",
                     posenc_isa_name(target), available_names().c_str());
  const int32_t n = threads == 0 ? thread_count() : threads;
  return guarded([&] {
    posenc_roofline r = *out;
    POSENC_CHECK(measure(target, n, &r));
    *out = r;
    return POSENC_OK;
  });
}

}  // extern "C"
