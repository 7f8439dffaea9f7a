// SPDX-License-Identifier: Apache-2.0 OR MIT
// posenc.hpp: the C++ wrappers never guess. A buffer whose size does not fit the shape throws
// posenc::error(INVALID_ARGUMENT) instead of being truncated, and an allocating wrapper checks the
// output size before it allocates (posenc::error(SIZE_OVERFLOW), never std::bad_alloc or
// std::length_error).
#include "tests/test_common.hpp"

#include <posenc/posenc.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

// Runs f, expects posenc::error with status s and a message containing `needle`.
template <class F>
void expect_error(F&& f, posenc_status s, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected posenc::error " << posenc_status_string(s);
  } catch (const posenc::error& e) {
    EXPECT_EQ(e.status(), s) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << typeid(e).name() << " (" << e.what() << "), expected posenc::error";
  }
}

}  // namespace

TEST(CppApi, SphHarmRealSpanMustHoldWholePoints) {
  const std::vector<double> four = {0.0, 0.0, 1.0, 0.5};
  expect_error([&] { posenc::sph_harm_real(2, four); }, POSENC_ERR_INVALID_ARGUMENT, "multiple of 3");
  const std::vector<float> five(5, 0.5f);
  expect_error([&] { posenc::sph_harm_real(2, five); }, POSENC_ERR_INVALID_ARGUMENT, "multiple of 3");
  // Whole points work and agree with the pointer overload.
  const std::vector<double> two = {0.0, 0.0, 1.0, 1.0, 0.0, 0.0};
  const std::vector<double> y = posenc::sph_harm_real(2, two);
  ASSERT_EQ(y.size(), 2u * 9u);
  std::vector<double> ref(18, -1.0);
  posenc::sph_harm_real(2, two.data(), 2, ref.data());
  EXPECT_EQ(y, ref);
}

TEST(CppApi, RfFeaturesInputsMustMatchTheirShapes) {
  const std::vector<float> omega = posenc::rf_sample(POSENC_RF_IID, 4, 8, 1.0, 1);
  const std::vector<float> x(4 * 3 + 1, 0.25f);  // 3.25 rows of d = 4
  expect_error([&] { posenc::rf_features(POSENC_RF_TRIG, omega, 8, 4, x); }, POSENC_ERR_INVALID_ARGUMENT,
               "multiple of d");
  const std::vector<float> short_omega(omega.begin(), omega.end() - 1);
  const std::vector<float> x3(12, 0.25f);
  expect_error([&] { posenc::rf_features(POSENC_RF_TRIG, short_omega, 8, 4, x3); }, POSENC_ERR_INVALID_ARGUMENT,
               "omega");
  EXPECT_EQ(posenc::rf_features(POSENC_RF_TRIG, omega, 8, 4, x3).size(), 3u * 16u);
}

TEST(CppApi, SizesAreCheckedBeforeAllocating) {
  // 2^40 x 2^20 floats: 2^62 bytes, more than any allocation can hold.
  expect_error([] { posenc::sinusoidal(int64_t(1) << 40, 1 << 20); }, POSENC_ERR_SIZE_OVERFLOW, "sinusoidal");
  expect_error([] { posenc::sinusoidal(INT64_MAX, 1 << 30); }, POSENC_ERR_SIZE_OVERFLOW, "sinusoidal");
  expect_error([] { posenc::rf_sample(POSENC_RF_IID, INT32_MAX, INT32_MAX); }, POSENC_ERR_SIZE_OVERFLOW,
               "rf_sample");
  expect_error([] { posenc::rope_decay(std::vector<double>(4, 0.5), INT64_MAX); }, POSENC_ERR_SIZE_OVERFLOW,
               "rope_decay");
  expect_error([] { posenc::rwse(INT64_MAX / 2, {}, {}, 1 << 20); }, POSENC_ERR_SIZE_OVERFLOW, "rwse");
  expect_error([] { posenc::laplacian_pe(INT64_MAX / 2, {}, {}, 1 << 20); }, POSENC_ERR_SIZE_OVERFLOW,
               "laplacian_pe");
  // Invalid (negative) sizes are still reported by the C function, naming the argument.
  expect_error([] { posenc::sinusoidal(-1, 8); }, POSENC_ERR_INVALID_ARGUMENT, "n");
  // Ordinary sizes are unaffected.
  EXPECT_EQ(posenc::sinusoidal(3, 8).size(), 24u);
}
