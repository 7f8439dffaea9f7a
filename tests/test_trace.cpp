// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_trace.cpp — the Chrome trace-event file (posenc_trace_start/stop, POSENC_TRACE):
// valid JSON, every event with ph/ts/dur/pid/tid, one call event per call, tile events inside
// their call's time span on the threads that ran them, 8 threads calling at once, and a file
// completed at process exit (child processes of this binary with POSENC_TRACE set).
#include "tests/test_common.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using json = nlohmann::json;
using posenc_test::IsaTest;
using posenc_test::ThreadScope;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "posenc_trace_" + std::to_string(::getpid()) + "_" + name + ".json";
}

/// Parses the file (fails the test on invalid JSON) and checks the fields every event must have.
json load_trace(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path;
  json j;
  try {
    j = json::parse(f);
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << " is not valid JSON: " << e.what();
    return json::object({{"traceEvents", json::array()}});
  }
  EXPECT_TRUE(j.contains("traceEvents") && j["traceEvents"].is_array());
  for (const auto& e : j["traceEvents"]) {
    for (const char* k : {"ph", "ts", "dur", "pid", "tid", "name"}) EXPECT_TRUE(e.contains(k)) << k << " missing: " << e;
    EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number() && e["dur"].get<double>() >= 0) << e;
    EXPECT_TRUE(e["pid"].is_number_integer() && e["tid"].is_number_integer()) << e;
  }
  return j;
}

std::vector<json> events_named(const json& j, const std::string& name) {
  std::vector<json> out;
  for (const auto& e : j["traceEvents"])
    if (e["name"] == name) out.push_back(e);
  return out;
}

/// Every tile event lies inside the time span of the call it names (ts in microseconds with
/// nanosecond digits: compared in integer nanoseconds).
void expect_tiles_nested(const json& j) {
  std::map<uint64_t, json> calls;
  for (const auto& e : j["traceEvents"])
    if (e.value("cat", "") == "posenc") calls[e["args"]["call"].get<uint64_t>()] = e;
  auto ns = [](const json& v) { return static_cast<int64_t>(std::llround(v.get<double>() * 1000.0)); };
  for (const auto& t : events_named(j, "tile")) {
    const uint64_t id = t["args"]["call"].get<uint64_t>();
    ASSERT_TRUE(calls.count(id)) << "tile of unknown call " << id;
    const json& c = calls[id];
    EXPECT_EQ(t["args"]["function"], c["name"]);
    EXPECT_GE(ns(t["ts"]), ns(c["ts"])) << t << " starts before " << c;
    EXPECT_LE(ns(t["ts"]) + ns(t["dur"]), ns(c["ts"]) + ns(c["dur"])) << t << " ends after " << c;
  }
}

class Trace : public IsaTest {};

TEST_P(Trace, CallAndNestedTileEvents) {
  ThreadScope ts(2);
  const std::string path = temp_path(std::string("tiles_") + posenc_isa_name(GetParam()));
  ASSERT_EQ(posenc_trace_start(path.c_str()), POSENC_OK) << posenc_last_error_message();
  const int64_t n = 4096;
  const int32_t dim = 64;  // 256 rows per tile: 16 tiles
  std::vector<float> out(static_cast<size_t>(n) * dim);
  ASSERT_EQ(posenc_sinusoidal_f32(nullptr, n, dim, 1e4, POSENC_SINUSOIDAL_HALVES, out.data()), POSENC_OK);
  EXPECT_NE(posenc_sinusoidal_f32(nullptr, n, 7, 1e4, POSENC_SINUSOIDAL_HALVES, out.data()), POSENC_OK);
  ASSERT_EQ(posenc_trace_stop(), POSENC_OK);
  const json j = load_trace(path);
  const auto calls = events_named(j, "posenc_sinusoidal_f32");
  ASSERT_EQ(calls.size(), 2u);
  const json& ok = calls[0]["args"]["status"] == "POSENC_OK" ? calls[0] : calls[1];
  const json& bad = calls[0]["args"]["status"] == "POSENC_OK" ? calls[1] : calls[0];
  EXPECT_EQ(ok["ph"], "X");
  EXPECT_EQ(ok["args"]["isa"], posenc_isa_name(GetParam()));
  EXPECT_EQ(ok["args"]["path"], "sinusoidal.consecutive");
  EXPECT_EQ(ok["args"]["tiles"], 16);
  EXPECT_EQ(ok["args"]["threads"], 2);
  EXPECT_EQ(ok["args"]["bytes"], 4.0 * n * dim);
  EXPECT_EQ(bad["args"]["status"], "POSENC_ERR_INVALID_ARGUMENT");
  const auto tiles = events_named(j, "tile");
  ASSERT_EQ(tiles.size(), 16u);
  std::set<int64_t> idx;
  for (const auto& t : tiles) {
    EXPECT_EQ(t["args"]["tiles"], 16);
    EXPECT_EQ(t["pid"], ok["pid"]);
    idx.insert(t["args"]["tile"].get<int64_t>());
  }
  EXPECT_EQ(idx.size(), 16u);
  EXPECT_EQ(*idx.begin(), 0);
  EXPECT_EQ(*idx.rbegin(), 15);
  expect_tiles_nested(j);
  std::remove(path.c_str());
}

TEST_P(Trace, EightThreadsAtOnce) {
  ThreadScope ts(2);
  const std::string path = temp_path(std::string("eight_") + posenc_isa_name(GetParam()));
  ASSERT_EQ(posenc_trace_start(path.c_str()), POSENC_OK) << posenc_last_error_message();
  constexpr int kThreads = 8, kCalls = 25;
  std::vector<std::thread> th;
  for (int t = 0; t < kThreads; ++t)
    th.emplace_back([t] {
      std::vector<float> out(2048 * 16);
      std::vector<double> xyz(300, 0.5), sh(100 * 16);
      for (int i = 0; i < kCalls; ++i) {
        if ((i + t) % 2) EXPECT_EQ(posenc_sinusoidal_f32(nullptr, 2048, 16, 1e4, POSENC_SINUSOIDAL_HALVES, out.data()), POSENC_OK);
        else EXPECT_EQ(posenc_sph_harm_real_f64(3, xyz.data(), 100, sh.data()), POSENC_OK);
      }
    });
  for (auto& x : th) x.join();
  ASSERT_EQ(posenc_trace_stop(), POSENC_OK);
  const json j = load_trace(path);
  const size_t calls = events_named(j, "posenc_sinusoidal_f32").size() + events_named(j, "posenc_sph_harm_real_f64").size();
  EXPECT_EQ(calls, size_t(kThreads) * kCalls);
  std::set<int64_t> tids;
  for (const auto& e : j["traceEvents"])
    if (e.value("cat", "") == "posenc") tids.insert(e["tid"].get<int64_t>());
  EXPECT_EQ(tids.size(), size_t(kThreads));  // each caller on its own track
  EXPECT_GT(events_named(j, "tile").size(), 0u);
  expect_tiles_nested(j);
  std::remove(path.c_str());
}

POSENC_INSTANTIATE_ISA(Trace);

TEST(TraceApi, ErrorsAndEmptyTrace) {
  EXPECT_POSENC_ERROR(posenc_trace_start(nullptr), POSENC_ERR_NULL_POINTER, "path");
  EXPECT_POSENC_ERROR(posenc_trace_start("/nonexistent-dir/x/trace.json"), POSENC_ERR_UNSUPPORTED, "/nonexistent-dir");
  const std::string path = temp_path("empty");
  ASSERT_EQ(posenc_trace_start(path.c_str()), POSENC_OK);
  EXPECT_POSENC_ERROR(posenc_trace_start(path.c_str()), POSENC_ERR_INVALID_ARGUMENT, "already");
  ASSERT_EQ(posenc_trace_stop(), POSENC_OK);
  EXPECT_EQ(posenc_trace_stop(), POSENC_OK);  // nothing running: still OK
  const json j = load_trace(path);
  EXPECT_EQ(events_named(j, "tile").size(), 0u);
  // The first start began before the trace ran: not recorded; the second, failing one is.
  const auto starts = events_named(j, "posenc_trace_start");
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0]["args"]["status"], "POSENC_ERR_INVALID_ARGUMENT");
  std::remove(path.c_str());
}

/// Runs this test binary again with POSENC_TRACE=path and a gtest filter; returns its exit code.
/// In a cross build the child runs under the emulator that runs this test (POSENC_TEST_EMULATOR,
/// set by tests/CMakeLists.txt): the binary cannot be executed directly on the host.
int run_child(const std::string& path, const std::string& filter) {
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);  // qemu-user gives the guest binary
  if (len <= 0) return -1;
  self[len] = '\0';
  const char* emu = std::getenv("POSENC_TEST_EMULATOR");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("POSENC_TRACE", path.c_str(), 1);
    const std::string f = "--gtest_filter=" + filter;
    if (emu != nullptr && *emu != '\0')
      ::execlp(emu, emu, self, f.c_str(), "--gtest_also_run_disabled_tests", static_cast<char*>(nullptr));
    else
      ::execl(self, "posenc_test_trace", f.c_str(), "--gtest_also_run_disabled_tests", static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs only in the child of ExitWithCallsFromEightThreads: 8 threads call, nothing stops the trace.
TEST(TraceChild, DISABLED_EightThreadsThenExit) {
  std::vector<std::thread> th;
  for (int t = 0; t < 8; ++t)
    th.emplace_back([] {
      std::vector<float> out(4096 * 64);
      for (int i = 0; i < 10; ++i)
        ASSERT_EQ(posenc_sinusoidal_f32(nullptr, 4096, 64, 1e4, POSENC_SINUSOIDAL_HALVES, out.data()), POSENC_OK);
    });
  for (auto& x : th) x.join();
}

TEST(TraceEnv, ValidFileWhenTheProcessMakesNoCall) {
  const std::string path = temp_path("env_nocall");
  ASSERT_EQ(run_child(path, "NoSuchTest.None"), 0);
  const json j = load_trace(path);
  EXPECT_GE(j["traceEvents"].size(), 1u);
  for (const auto& e : j["traceEvents"]) EXPECT_EQ(e["ph"], "M") << e;
  std::remove(path.c_str());
}

TEST(TraceEnv, CompletedAtExitWithCallsFromEightThreads) {
  const std::string path = temp_path("env_eight");
  ASSERT_EQ(run_child(path, "TraceChild.DISABLED_EightThreadsThenExit"), 0);
  const json j = load_trace(path);
  EXPECT_EQ(events_named(j, "posenc_sinusoidal_f32").size(), 80u);
  expect_tiles_nested(j);
  std::remove(path.c_str());
}

}  // namespace
