// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_oom.cpp — every family under allocation failure (tests/fault_inject.hpp): one call of
// every computing function of posenc.h (tests/api_catalogue.hpp) with each of its allocations
// failed in turn must return OK with the unfailed call's outputs, or POSENC_ERR_OUT_OF_MEMORY with
// every output (and in-place operand) bit-identical to its state before the call. The profiling
// paths (verbose lines, the trace file) and posenc_threads_set are swept too. The number of
// allocation sites tried is printed per function ("[ info ]" lines). The graph family's larger
// sweeps (every Laplacian PE solver) are in tests/test_graph_oom.cpp.
#include "tests/test_common.hpp"
#include "tests/api_catalogue.hpp"
#include "tests/fault_inject.hpp"

#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

using namespace posenc_test;

void sweep_family(const std::string& family) {
  std::map<std::string, long> sites;
  std::set<std::string> names;
  for (const ApiCall& c : make_api_calls()) {
    if (c.family != family) continue;
    names.insert(c.name);
    const auto r = posenc_fault::sweep(c.name.c_str(), [&] { c.reset(); }, c.call, [&] { return c.snapshot(); });
    sites[c.name] += r.sites;
  }
  ASSERT_FALSE(names.empty());
  long total = 0;
  for (const auto& kv : sites) total += kv.second;
  std::printf("[ info     ] family %s: %zu functions, %ld allocation sites tried\n", family.c_str(), names.size(),
              total);
}

TEST(Oom, Rope) { sweep_family("rope"); }
TEST(Oom, Sphere) { sweep_family("sphere"); }
TEST(Oom, Features) { sweep_family("features"); }
TEST(Oom, Graph) { sweep_family("graph"); }
TEST(Oom, Learned) { sweep_family("learned"); }

/// The functions of posenc.h that have no case in tests/api_catalogue.hpp, each with the reason.
/// Every other function declared POSENC_API must have one (so that a new function cannot miss the
/// fault-injection and concurrency tests), and this list must be exact.
const std::map<std::string, const char*>& catalogue_exceptions() {
  static const std::map<std::string, const char*> m = {
      // runtime: tested in test_runtime.cpp; posenc_threads_set is swept by Oom.ThreadsSet
      {"posenc_version", "runtime"}, {"posenc_version_string", "runtime"}, {"posenc_status_string", "runtime"},
      {"posenc_last_error_message", "runtime"}, {"posenc_isa_available", "runtime"}, {"posenc_isa_active", "runtime"},
      {"posenc_isa_set", "runtime (the concurrency test calls it from its own thread)"},
      {"posenc_isa_name", "runtime"}, {"posenc_threads_get", "runtime"},
      {"posenc_threads_set", "swept by Oom.ThreadsSet; the concurrency test calls it from its own thread"},
      // struct initializers: write the caller's struct only, never allocate
      {"posenc_rope_params_init", "initializer"}, {"posenc_laplacian_pe_info_init", "initializer"},
      {"posenc_call_info_init", "initializer"}, {"posenc_rwse_info_init", "initializer"},
      {"posenc_rope_plan_destroy", "frees a plan (the plan cases create and destroy plans)"},
      // profiling and tracing: swept by Oom.VerboseAndTrace, tested in test_verbose.cpp / test_trace.cpp
      {"posenc_verbose_set", "profiling"}, {"posenc_verbose_get", "profiling"},
      {"posenc_verbose_callback_set", "profiling"}, {"posenc_last_call_info", "profiling"},
      {"posenc_roofline_init", "profiling"}, {"posenc_roofline_measure", "profiling (seconds of measurement)"},
      {"posenc_trace_start", "tracing: swept by Oom.VerboseAndTrace"},
      {"posenc_trace_stop", "tracing: swept by Oom.VerboseAndTrace"},
  };
  return m;
}

/// The names of the functions the C headers (include/posenc/*.h) declare POSENC_API.
std::set<std::string> declared_functions() {
  std::istringstream f(c_header_text(POSENC_SOURCE_DIR "/include/posenc"));
  std::set<std::string> names;
  std::string line;
  const std::regex decl(R"(^POSENC_API\b.*?\b(posenc_[a-z0-9_]+)\s*\()");
  std::smatch m;
  while (std::getline(f, line))
    if (std::regex_search(line, m, decl)) names.insert(m[1]);
  return names;
}

/// Every computing function of posenc.h has a case in the catalogue (tests/api_catalogue.hpp),
/// the others are listed with a reason in catalogue_exceptions(), and both lists are exact.
TEST(Oom, CatalogueCoversEveryComputingFunction) {
  const std::set<std::string> declared = declared_functions();
  ASSERT_GT(declared.size(), 50u) << "could not read the headers in " POSENC_SOURCE_DIR "/include/posenc";
  std::set<std::string> covered;
  for (const ApiCall& c : make_api_calls()) covered.insert(c.name);
  const auto& except = catalogue_exceptions();
  for (const std::string& fn : declared)
    EXPECT_TRUE(covered.count(fn) || except.count(fn))
        << fn << " (posenc.h) has no case in the catalogue (tests/api_catalogue_<family>.hpp) and is not in catalogue_exceptions()";
  for (const std::string& fn : covered) EXPECT_TRUE(declared.count(fn)) << fn << ": catalogue case of no posenc.h function";
  for (const auto& kv : except) {
    EXPECT_TRUE(declared.count(kv.first)) << kv.first << ": exception of no posenc.h function";
    EXPECT_FALSE(covered.count(kv.first)) << kv.first << " has a catalogue case: remove it from catalogue_exceptions()";
  }
  std::printf("[ info     ] %zu functions in posenc.h: %zu in the catalogue (%zu calls), %zu exceptions\n",
              declared.size(), covered.size(), make_api_calls().size(), except.size());
}

/// posenc_threads_set allocates a new task arena: on failure the count stays as it was.
TEST(Oom, ThreadsSet) {
  ASSERT_EQ(posenc_threads_set(1), POSENC_OK);
  posenc_fault::arm(0);
  ASSERT_EQ(posenc_threads_set(3), POSENC_OK);
  const long sites = posenc_fault::disarm();
  long oom = 0;
  for (long i = 1; i <= sites; ++i) {
    ASSERT_EQ(posenc_threads_set(1), POSENC_OK);
    posenc_fault::arm(i);
    const posenc_status s = posenc_threads_set(3);
    posenc_fault::disarm();
    ASSERT_TRUE(s == POSENC_OK || s == POSENC_ERR_OUT_OF_MEMORY) << posenc_status_string(s);
    if (s == POSENC_ERR_OUT_OF_MEMORY) {
      ++oom;
      EXPECT_EQ(posenc_threads_get(), 1) << "allocation " << i;
    } else {
      EXPECT_EQ(posenc_threads_get(), 3) << "allocation " << i;
    }
  }
  posenc_threads_set(0);
  std::printf("[ info     ] posenc_threads_set: %ld allocation sites, %ld gave OUT_OF_MEMORY\n", sites, oom);
}

/// Verbose mode formats a line per call and the trace records an event per call: a failed
/// allocation there must not turn a successful call into a crash or change its outputs.
TEST(Oom, VerboseAndTrace) {
  std::vector<ApiCall> calls = make_api_calls();
  std::vector<const ApiCall*> some;
  std::set<std::string> seen;
  for (const ApiCall& c : calls)
    if ((c.name == "posenc_sph_harm_real_f64" || c.name == "posenc_rope_apply_f32" || c.name == "posenc_rwse_f64") &&
        seen.insert(c.name).second)
      some.push_back(&c);
  ASSERT_EQ(some.size(), 3u);
  struct Sink {
    static void cb(const char*, void* user) { ++*static_cast<long*>(user); }
  };
  long lines = 0;
  ASSERT_EQ(posenc_verbose_callback_set(&Sink::cb, &lines), POSENC_OK);
  ASSERT_EQ(posenc_verbose_set(2), POSENC_OK);
  for (const ApiCall* c : some)
    posenc_fault::sweep((c->name + " (verbose 2)").c_str(), [&] { c->reset(); }, c->call,
                        [&] { return c->snapshot(); });
  ASSERT_EQ(posenc_verbose_set(0), POSENC_OK);
  ASSERT_EQ(posenc_verbose_callback_set(nullptr, nullptr), POSENC_OK);
  EXPECT_GT(lines, 0);

  const std::string path = ::testing::TempDir() + "posenc_oom_trace.json";
  ASSERT_EQ(posenc_trace_start(path.c_str()), POSENC_OK) << posenc_last_error_message();
  for (const ApiCall* c : some)
    posenc_fault::sweep((c->name + " (tracing)").c_str(), [&] { c->reset(); }, c->call,
                        [&] { return c->snapshot(); });
  EXPECT_EQ(posenc_trace_stop(), POSENC_OK) << posenc_last_error_message();

  // posenc_trace_start / stop themselves: OK or OUT_OF_MEMORY, and tracing is off afterwards.
  posenc_fault::arm(0);
  posenc_status s = posenc_trace_start(path.c_str());
  posenc_status s2 = posenc_trace_stop();
  const long sites = posenc_fault::disarm();
  ASSERT_EQ(s, POSENC_OK);
  ASSERT_EQ(s2, POSENC_OK);
  long oom = 0;
  for (long i = 1; i <= sites; ++i) {
    posenc_fault::arm(i);
    s = posenc_trace_start(path.c_str());
    s2 = s == POSENC_OK ? posenc_trace_stop() : POSENC_OK;
    posenc_fault::disarm();
    EXPECT_TRUE(s == POSENC_OK || s == POSENC_ERR_OUT_OF_MEMORY) << i << " " << posenc_status_string(s);
    EXPECT_TRUE(s2 == POSENC_OK || s2 == POSENC_ERR_OUT_OF_MEMORY)
        << i << " " << posenc_status_string(s2);
    oom += (s == POSENC_ERR_OUT_OF_MEMORY) + (s2 == POSENC_ERR_OUT_OF_MEMORY);
    posenc_trace_stop();  // whatever happened, tracing ends
    ASSERT_EQ(posenc_trace_start(path.c_str()), POSENC_OK) << "allocation " << i << ": " << posenc_last_error_message();
    ASSERT_EQ(posenc_trace_stop(), POSENC_OK) << "allocation " << i;
  }
  std::printf("[ info     ] posenc_trace_start + posenc_trace_stop: %ld allocation sites, %ld gave OUT_OF_MEMORY\n",
              sites, oom);
  std::remove(path.c_str());
}

}  // namespace
