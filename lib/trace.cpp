// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/trace.cpp — Chrome trace-event JSON (POSENC_TRACE=<file.json>, posenc_trace_start/stop):
// one complete event per posenc call on the caller's thread and one per tile on the thread that
// ran it. Each thread buffers its events (no lock shared with other threads while recording) and
// appends them to the file when the buffer fills, when the thread exits, and when the trace stops
// (at the latest at process exit), so the file is valid JSON after a normal exit.
#include "lib/verbose.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace posenc {
namespace detail {

namespace {

struct tile_rec {
  uint64_t call, t0_ns, dur_ns;
  const char* fn;
  int64_t tile, tiles;
};

/// One thread's events not yet in the file.
struct event_buf {
  std::mutex mu;
  uint32_t session = 0;  // the trace the events belong to
  std::string text;      // formatted call events, each starting with ",\n"
  std::vector<tile_rec> tiles;
  std::string spare_text;  // the previous flush's buffers, kept (allocated and touched) for reuse
  std::vector<tile_rec> spare_tiles;
  long tid = 0;
};

constexpr size_t kFlushText = size_t(256) << 10;
constexpr size_t kFlushTiles = 4096;

struct trace_state {
  std::mutex mu;  // the file, the session and the registry of buffers
  std::FILE* file = nullptr;
  std::string path;
  uint32_t session = 0;              // number of the running trace (0: none yet)
  std::atomic<uint32_t> live{0};     // session while running, 0 when stopped
  std::atomic<uint64_t> origin_ns{0};  // ts = 0
  std::atomic<long> pid{0};
  std::vector<std::shared_ptr<event_buf>> bufs;
};
trace_state& state() {
  static trace_state* s = new trace_state();  // never destroyed: threads may flush during exit
  return *s;
}

long os_tid() {
#if defined(__linux__)
  return static_cast<long>(::syscall(SYS_gettid));
#else
  return static_cast<long>(std::hash<std::thread::id>()(std::this_thread::get_id()) & 0x7fffffff);
#endif
}

long os_pid() {
#if defined(__linux__)
  return static_cast<long>(::getpid());
#else
  return 1;
#endif
}

void write_locked(trace_state& s, uint32_t session, const std::string& text) {
  if (s.file && s.live.load(std::memory_order_relaxed) == session && !text.empty())
    std::fwrite(text.data(), 1, text.size(), s.file);
}

/// Microseconds with nanosecond digits ("12.345").
void append_us(std::string& out, uint64_t ns) {
  append_int(out, static_cast<long long>(ns / 1000));
  const unsigned f = static_cast<unsigned>(ns % 1000);
  const char d[4] = {'.', static_cast<char>('0' + f / 100), static_cast<char>('0' + f / 10 % 10),
                     static_cast<char>('0' + f % 10)};
  out.append(d, 4);
}

/// "ts":..,"dur":..,"pid":..,"tid":.. of an event that began at t0_ns (steady clock).
void fmt_ts(std::string& out, uint64_t t0_ns, uint64_t dur_ns, long tid) {
  const trace_state& s = state();
  const uint64_t origin = s.origin_ns.load(std::memory_order_relaxed);
  out += "\"ts\":";
  append_us(out, t0_ns >= origin ? t0_ns - origin : 0);
  out += ",\"dur\":";
  append_us(out, dur_ns);
  out += ",\"pid\":";
  append_int(out, s.pid.load(std::memory_order_relaxed));
  out += ",\"tid\":";
  append_int(out, tid);
}

void write_events(uint32_t session, long tid, std::string& text, const std::vector<tile_rec>& tiles);

/// Moves a buffer's events out (under its lock) and appends them to the file (under the file's).
void flush(event_buf& b) {
  std::string text;
  std::vector<tile_rec> tiles;
  uint32_t session;
  long tid;
  {
    std::lock_guard<std::mutex> lock(b.mu);
    text.swap(b.text);
    b.text.swap(b.spare_text);
    tiles.swap(b.tiles);
    b.tiles.swap(b.spare_tiles);
    session = b.session;
    tid = b.tid;
  }
  write_events(session, tid, text, tiles);
  text.clear();
  tiles.clear();
  std::lock_guard<std::mutex> lock(b.mu);
  if (b.spare_text.capacity() < text.capacity()) b.spare_text.swap(text);
  if (b.spare_tiles.capacity() < tiles.capacity()) b.spare_tiles.swap(tiles);
}

/// Formats the tile records after the call events and appends both to the file.
void write_events(uint32_t session, long tid, std::string& text, const std::vector<tile_rec>& tiles) {
  trace_state& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.live.load(std::memory_order_relaxed) != session) return;  // a stopped trace's leftovers
  for (const tile_rec& t : tiles) {
    text += ",\n{\"name\":\"tile\",\"cat\":\"posenc.tile\",\"ph\":\"X\",";
    fmt_ts(text, t.t0_ns, t.dur_ns, tid);
    text += ",\"args\":{\"call\":";
    append_int(text, static_cast<long long>(t.call));
    text += ",\"function\":\"";
    text += t.fn;
    text += "\",\"tile\":";
    append_int(text, t.tile);
    text += ",\"tiles\":";
    append_int(text, t.tiles);
    text += "}}";
  }
  write_locked(s, session, text);
}

/// This thread's buffer, registered on first use and flushed when the thread exits.
struct thread_handle {
  std::shared_ptr<event_buf> buf;
  ~thread_handle() {
    if (!buf) return;
    flush(*buf);
    trace_state& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    for (size_t i = 0; i < s.bufs.size(); ++i)
      if (s.bufs[i] == buf) {
        s.bufs.erase(s.bufs.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
  }
};
thread_local thread_handle t_handle;

/// This thread's buffer, emptied first if it holds events of an earlier trace; nullptr when no
/// trace runs.
event_buf* my_buf(std::unique_lock<std::mutex>& lock) {
  const uint32_t live = state().live.load(std::memory_order_acquire);
  if (live == 0) return nullptr;
  if (!t_handle.buf) {
    auto b = std::make_shared<event_buf>();
    b->tid = os_tid();
    trace_state& s = state();
    std::lock_guard<std::mutex> g(s.mu);
    s.bufs.push_back(b);
    t_handle.buf = std::move(b);
  }
  event_buf* b = t_handle.buf.get();
  lock = std::unique_lock<std::mutex>(b->mu);
  if (b->session != live) {
    b->text.clear();
    b->tiles.clear();
    b->session = live;
  }
  return b;
}

/// ,"key":v (shortest round-trip digits; JSON has no inf / nan: those become null).
void json_number(std::string& out, const char* key, double v) {
  out += ",\"";
  out += key;
  out += "\":";
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char b[32];
  const auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, r.ptr);
}

void stop_trace() {
  trace_state& s = state();
  g_prof.fetch_and(~kProfTrace, std::memory_order_relaxed);
  std::vector<std::shared_ptr<event_buf>> bufs;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.live.load(std::memory_order_relaxed) == 0) return;
    bufs = s.bufs;
  }
  for (auto& b : bufs) flush(*b);
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.live.load(std::memory_order_relaxed) == 0) return;
  std::fputs("\n]}\n", s.file);
  std::fclose(s.file);
  s.file = nullptr;
  s.live.store(0, std::memory_order_release);
}

/// POSENC_TRACE at load; the file is completed when the library is unloaded (process exit).
struct env_trace {
  env_trace() {
    const char* p = std::getenv("POSENC_TRACE");
    if (p == nullptr || p[0] == '\0') return;
    if (posenc_trace_start(p) != POSENC_OK)
      std::fprintf(stderr, "posenc: environment variable POSENC_TRACE: %s; no trace is written\n",
                   posenc_last_error_message());
  }
  ~env_trace() { stop_trace(); }
} g_env_trace;

}  // namespace

void json_escape_to(std::string& out, const char* s) {
  for (; *s; ++s) {
    const unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
}

void trace_call(const call_ctx& c, posenc_status status, posenc_isa isa, int32_t threads) {
  std::unique_lock<std::mutex> lock;
  event_buf* b = my_buf(lock);
  if (b == nullptr) return;
  std::string& t = b->text;
  t += ",\n{\"name\":\"";
  json_escape_to(t, c.fn);
  t += "\",\"cat\":\"posenc\",\"ph\":\"X\",";
  fmt_ts(t, c.t0_ns, c.t1_ns - c.t0_ns, b->tid);
  t += ",\"args\":{\"call\":";
  append_int(t, static_cast<long long>(c.id));
  t += ",\"status\":\"";
  t += posenc_status_string(status);
  t += "\",\"isa\":\"";
  t += posenc_isa_name(isa);
  t += "\",\"path\":\"";
  json_escape_to(t, path_of(c));
  t += "\",\"shape\":\"";
  json_escape_to(t, c.shape);
  t += "\"";
  json_number(t, "threads", threads);
  json_number(t, "tiles", static_cast<double>(c.tiles));
  json_number(t, "bytes", c.bytes);
  json_number(t, "flops", c.flops);
  t += c.flops_f32 ? ",\"flops_precision\":\"f32\"}}" : ",\"flops_precision\":\"f64\"}}";
  const bool full = t.size() > kFlushText;
  lock.unlock();
  if (full) flush(*b);
}

void tile_done(const call_ctx* c, int64_t tile, int64_t num_tiles, uint64_t t0_ns) {
  const uint64_t t1 = prof_now_ns();
  try {
    std::unique_lock<std::mutex> lock;
    event_buf* b = my_buf(lock);
    if (b == nullptr) return;
    b->tiles.push_back({c->id, t0_ns, t1 - t0_ns, c->fn, tile, num_tiles});
    const bool full = b->tiles.size() > kFlushTiles;
    lock.unlock();
    if (full) flush(*b);
  } catch (...) {
    // Out of memory recording the event: the event is lost, the call goes on (its tile has
    // already written its outputs; failing now would break the promise of untouched outputs).
  }
}

}  // namespace detail
}  // namespace posenc

using namespace posenc::detail;

extern "C" {

POSENC_API posenc_status posenc_trace_start(const char* path) {
  api_guard g("posenc_trace_start");
  POSENC_CHECK(check_not_null(path, "path"));
  trace_state& s = state();
  return guarded([&] {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.live.load(std::memory_order_relaxed) != 0)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "a trace is already being written to '%s' (call posenc_trace_stop first)",
                       s.path.c_str());
    std::FILE* f = std::fopen(path, "w");
    if (f == nullptr) {
      const int err = errno;
      if (err == ENOMEM) throw std::bad_alloc();  // OUT_OF_MEMORY, like every other allocation
      return set_error(POSENC_ERR_UNSUPPORTED, "cannot create the trace file '%s': %s", path, std::strerror(err));
    }
    s.file = f;
    s.path = path;
    s.pid.store(os_pid(), std::memory_order_relaxed);
    const uint64_t origin = prof_now_ns();
    s.origin_ns.store(origin, std::memory_order_relaxed);
    ++s.session;
    if (s.session == 0) s.session = 1;
    std::string head = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"posenc_version\":\"";
    head += posenc_version_string();
    head += "\"},\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",";
    fmt_ts(head, origin, 0, os_tid());
    head += ",\"args\":{\"name\":\"posenc\"}}";
    std::fputs(head.c_str(), f);
    s.live.store(s.session, std::memory_order_release);
    g_prof.fetch_or(kProfTrace, std::memory_order_relaxed);
    return POSENC_OK;
  });
}

POSENC_API posenc_status posenc_trace_stop(void) {
  api_guard g("posenc_trace_stop");
  return guarded([] {
    stop_trace();
    return POSENC_OK;
  });
}

}  // extern "C"
