// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_common.hpp — helpers shared by the GoogleTest files.
//
// Every kernel test is a value-parameterized test over test_isas(): every ISA path this host can
// run, or only the one named by POSENC_ISA when that variable is set (CI reruns the whole suite
// with POSENC_ISA=scalar). A fixture derived from IsaTest forces that path in SetUp and checks
// that posenc_isa_active() reports it.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "posenc/posenc.h"

namespace posenc_test {

/// ISA paths to test: POSENC_ISA's (if set and not "auto"), else every available one.
std::vector<posenc_isa> test_isas();
std::string isa_param_name(const ::testing::TestParamInfo<posenc_isa>& info);

/// The text of every C ABI header in include_dir (the *.h files of include/posenc: posenc.h and the
/// per-section headers it includes), in file-name order; "" if the folder cannot be read.
std::string c_header_text(const std::string& include_dir);

class IsaTest : public ::testing::TestWithParam<posenc_isa> {
 protected:
  void SetUp() override {
    ASSERT_EQ(posenc_isa_set(GetParam()), POSENC_OK) << posenc_last_error_message();
    ASSERT_EQ(posenc_isa_active(), GetParam());
  }
  void TearDown() override { posenc_threads_set(0); }
};

/// Sets the thread count for the lifetime of the object.
struct ThreadScope {
  explicit ThreadScope(int32_t n) { EXPECT_EQ(posenc_threads_set(n), POSENC_OK); }
  ~ThreadScope() { posenc_threads_set(0); }
};

/// Poison patterns: a signalling-looking NaN payload no kernel produces.
inline float poison_f32() { uint32_t u = 0x7fbadbadu; float f; std::memcpy(&f, &u, 4); return f; }
inline double poison_f64() { uint64_t u = 0x7ff4badbadbadbadull; double d; std::memcpy(&d, &u, 8); return d; }
inline bool is_poison(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u == 0x7fbadbadu; }
inline bool is_poison(double d) { uint64_t u; std::memcpy(&u, &d, 8); return u == 0x7ff4badbadbadbadull; }

inline void poison(std::vector<float>& v) { for (auto& x : v) x = poison_f32(); }
inline void poison(std::vector<double>& v) { for (auto& x : v) x = poison_f64(); }
/// Number of elements still holding the poison pattern.
template <class T> size_t count_poison(const std::vector<T>& v) { size_t c = 0; for (auto x : v) c += is_poison(x); return c; }

/// Bitwise equality of two buffers.
template <class T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Expects a failing status, a message mentioning `needle`, and nothing else.
#define EXPECT_POSENC_ERROR(call, status, needle)                                        \
  do {                                                                                   \
    posenc_status s_ = (call);                                                           \
    EXPECT_EQ(s_, status) << posenc_status_string(s_) << ": " << posenc_last_error_message(); \
    EXPECT_NE(std::string(posenc_last_error_message()).find(needle), std::string::npos) \
        << "message '" << posenc_last_error_message() << "' does not name '" << needle << "'"; \
  } while (0)

}  // namespace posenc_test

#define POSENC_INSTANTIATE_ISA(Suite) \
  INSTANTIATE_TEST_SUITE_P(Isa, Suite, ::testing::ValuesIn(posenc_test::test_isas()), posenc_test::isa_param_name)
