// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_concurrency.cpp — many threads calling functions of every family at once (one call
// of each computing function of posenc.h, tests/api_catalogue.hpp, each worker with its own
// buffers and in its own order), while other threads keep changing the thread count
// (posenc_threads_set) and the ISA path (posenc_isa_set). Every result must be bitwise equal to
// the serial run of the same call on one of the ISA paths (a call runs on the path that was active
// when it began; results never depend on the thread count). The tsan preset builds this test with
// ThreadSanitizer (scripts/test-all.sh tsan; suppressions for TBB's internals: tests/tsan.supp).
#include "tests/test_common.hpp"
#include "tests/api_catalogue.hpp"

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace posenc_test;
using Bytes = std::vector<std::vector<unsigned char>>;

std::vector<posenc_isa> available_isas() {
  std::vector<posenc_isa> v;
  for (posenc_isa i : {POSENC_ISA_SCALAR, POSENC_ISA_AVX2, POSENC_ISA_AVX512, POSENC_ISA_NEON})
    if (posenc_isa_available() & static_cast<uint32_t>(i)) v.push_back(i);
  return v;
}

TEST(Concurrency, ManyThreadsManyFunctionsWhileThreadsAndIsaChange) {
  const std::vector<posenc_isa> isas = available_isas();
  ASSERT_FALSE(isas.empty());
  // Serial references: every call on every ISA path, one thread.
  std::vector<std::vector<Bytes>> ref(isas.size());
  size_t num_calls = 0;
  {
    ThreadScope ts(1);
    for (size_t a = 0; a < isas.size(); ++a) {
      ASSERT_EQ(posenc_isa_set(isas[a]), POSENC_OK);
      const std::vector<ApiCall> calls = make_api_calls();
      num_calls = calls.size();
      for (const ApiCall& c : calls) {
        c.reset();
        ASSERT_EQ(c.call(), POSENC_OK) << c.name << ": " << posenc_last_error_message();
        ref[a].push_back(c.snapshot());
      }
    }
  }
  // Under ThreadSanitizer (about 10x slower) one round is enough to see every pair of functions.
  const char* rounds_env = std::getenv("POSENC_CONCURRENCY_ROUNDS");
  const int rounds = rounds_env ? std::atoi(rounds_env) : 3;
  const int workers = 4;
  std::atomic<int> running{workers};
  std::atomic<long> calls_made{0}, mismatches{0}, failures{0};
  std::vector<std::string> first_error(workers);
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      const std::vector<ApiCall> calls = make_api_calls();
      for (int r = 0; r < rounds; ++r)
        for (size_t j = 0; j < calls.size(); ++j) {
          const size_t i = (j * (2 * w + 1) + static_cast<size_t>(w * 7 + r)) % calls.size();  // own order
          const ApiCall& c = calls[i];
          c.reset();
          const posenc_status s = c.call();
          calls_made.fetch_add(1);
          if (s != POSENC_OK) {
            if (failures.fetch_add(1) == 0 || first_error[size_t(w)].empty())
              first_error[size_t(w)] = c.name + ": " + posenc_status_string(s) + " " + posenc_last_error_message();
            continue;
          }
          const Bytes got = c.snapshot();
          bool match = false;
          for (size_t a = 0; a < isas.size() && !match; ++a) match = got == ref[a][i];
          if (!match) {
            mismatches.fetch_add(1);
            if (first_error[size_t(w)].empty()) first_error[size_t(w)] = c.name + ": result unlike every serial run";
          }
        }
      running.fetch_sub(1);
    });
  std::atomic<long> changes{0};
  std::thread threads_changer([&] {
    const int32_t counts[] = {1, 2, 3, 0, 4};
    for (int i = 0; running.load() > 0; ++i) {
      EXPECT_EQ(posenc_threads_set(counts[i % 5]), POSENC_OK);
      changes.fetch_add(1);
      std::this_thread::yield();
    }
  });
  std::thread isa_changer([&] {
    for (size_t i = 0; running.load() > 0; ++i) {
      EXPECT_EQ(posenc_isa_set(isas[i % isas.size()]), POSENC_OK);
      EXPECT_NE(posenc_isa_active(), POSENC_ISA_AUTO);
      changes.fetch_add(1);
      std::this_thread::yield();
    }
  });
  for (auto& t : pool) t.join();
  threads_changer.join();
  isa_changer.join();
  posenc_isa_set(POSENC_ISA_AUTO);
  posenc_threads_set(0);
  for (int w = 0; w < workers; ++w) EXPECT_TRUE(first_error[size_t(w)].empty()) << first_error[size_t(w)];
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(calls_made.load(), long(workers) * rounds * long(num_calls));
  std::printf("[ info     ] %ld calls (%zu cases) from %d threads, %ld thread-count / ISA changes meanwhile\n",
              calls_made.load(), num_calls, workers, changes.load());
}

}  // namespace
