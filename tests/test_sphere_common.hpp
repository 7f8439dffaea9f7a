// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_sphere_common.hpp — helpers shared by the sphere family's test files (Legendre, real
// SH and Wigner-D, bad input): sizes of the outputs, the directions every test uses, kSlow for
// qemu / ASan runs.
#pragma once

#include "tests/test_common.hpp"

#include <cstdint>
#include <random>
#include <vector>

namespace posenc_test {

inline constexpr double kPi = 3.14159265358979323846;

inline int64_t nleg(int L) { return int64_t(L + 1) * (L + 2) / 2; }
inline int64_t nsh(int L) { return int64_t(L + 1) * (L + 1); }

#if defined(__aarch64__) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSlow = true;  // qemu / ASan: keep the big-degree work smaller
#else
inline constexpr bool kSlow = false;
#endif

/// The directions the SH tests use: poles, axes, tiny / huge / denormal lengths, then n_random
/// points with normal components (scaled by 3).
inline std::vector<double> test_dirs(size_t n_random, uint64_t seed) {
  std::vector<double> v = {0, 0, 1,   0, 0, -1,   1, 0, 0,   0, 1, 0,   -1, -1, 0,   1e-9, 0, 1,
                           0, -1e-12, -3, 2, 3, 4,   1e-300, 2e-300, -1e-300,   1e300, -1e300, 5e299,
                           0.5, -0.25, 1e-17};
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0, 1);
  for (size_t i = 0; i < 3 * n_random; ++i) v.push_back(N(rng) * 3);
  return v;
}

}  // namespace posenc_test

using namespace posenc_test;
