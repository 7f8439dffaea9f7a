// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_rope_common.hpp — helpers shared by the rope family's test files: parameters,
// random data, independent long-double / float64 references of the rotation, and independent
// IEEE binary16 conversions (ldexp / nearbyint, no bit tricks shared with the kernels).
#pragma once

#include "tests/test_common.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace posenc_test {

inline posenc_rope_params make_params(posenc_rope_type type, int32_t dim, double theta) {
  posenc_rope_params p;
  EXPECT_EQ(posenc_rope_params_init(&p, type, dim, theta), POSENC_OK) << posenc_last_error_message();
  return p;
}

/// Edge positions (0, +-1, powers of two around 2^12 .. 2^24, large values of both signs) and
/// n_random uniform ones in [-2^24, 2^24].
inline std::vector<int64_t> edge_and_random_positions(size_t n_random, uint64_t seed) {
  std::vector<int64_t> p = {0, 1, -1, 2, 7, 100, 4095, 4096, 65535, 131071, 131072, (1 << 24) - 1, 1 << 24,
                            -(1 << 24), -(1 << 24) + 1, 12345678, -9876543};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> d(-(int64_t(1) << 24), int64_t(1) << 24);
  for (size_t i = 0; i < n_random; ++i) p.push_back(d(rng));
  return p;
}

inline std::vector<float> random_f32(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

/// Positions with no two consecutive entries differing by +1 (every row is an exact anchor).
inline std::vector<int64_t> scattered_positions(size_t n, int64_t hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> d(0, hi - 1);
  std::vector<int64_t> p;
  while (p.size() < n) {
    const int64_t x = d(rng);
    if (!p.empty() && x == p.back() + 1) continue;
    p.push_back(x);
  }
  return p;
}

/// inv_freq and attention factor of p through the library (tested on their own in RopeFreq).
inline std::vector<double> inv_of(const posenc_rope_params& p, double* af = nullptr) {
  std::vector<double> inv(p.rotary_dim / 2);
  double a = 0;
  EXPECT_EQ(posenc_rope_inv_freq(&p, inv.data(), &a), POSENC_OK) << posenc_last_error_message();
  if (af) *af = a;
  return inv;
}

/// Rotates one head (head_dim doubles at x, result in y) by per-pair angles ang [rot/2]
/// (long double radians) with amplitude A: pair (a, b) -> (a c - b s, a s + b c), c = A cos,
/// s = +-A sin. layout 0: pairs (j, j + rot/2); 1: (2j, 2j+1). Channels >= rot are copied.
inline void ref_rotate_head(const double* x, double* y, int64_t head_dim, const long double* ang, int rot, int layout,
                            double A, bool inverse) {
  std::copy(x, x + head_dim, y);
  const int half = rot / 2;
  for (int j = 0; j < half; ++j) {
    const int ia = layout == 0 ? j : 2 * j, ib = layout == 0 ? j + half : 2 * j + 1;
    const double c = static_cast<double>(A * cosl(ang[j]));
    const double s = static_cast<double>((inverse ? -A : A) * sinl(ang[j]));
    y[ia] = x[ia] * c - x[ib] * s;
    y[ib] = x[ia] * s + x[ib] * c;
  }
}

/// Largest |got - ref| / ((|a| + |b|) max(A, 1)) over the rotated channels of one head, with
/// (a, b) the input pair of the element (the documented bound of the apply functions is 4e-7).
inline double pair_rel_err(const double* in, const float* got, const double* ref, int rot, int layout, double A) {
  const int half = rot / 2;
  double worst = 0;
  for (int j = 0; j < half; ++j) {
    const int ia = layout == 0 ? j : 2 * j, ib = layout == 0 ? j + half : 2 * j + 1;
    const double scale = (std::fabs(in[ia]) + std::fabs(in[ib])) * std::max(A, 1.0) + 1e-30;
    worst = std::max(worst, std::fabs(got[ia] - ref[ia]) / scale);
    worst = std::max(worst, std::fabs(got[ib] - ref[ib]) / scale);
  }
  return worst;
}

/// IEEE binary16 -> float32 by the definition (value = m 2^(e-25) for normals).
inline float ref_f16_to_f32(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 31) return m ? std::nanf("") : static_cast<float>(sign * INFINITY);
  if (e == 0) return static_cast<float>(sign * std::ldexp(static_cast<double>(m), -24));
  return static_cast<float>(sign * std::ldexp(static_cast<double>(1024 + m), e - 25));
}

/// float32 -> IEEE binary16 rounded to nearest, ties to even (nearbyint in the default mode);
/// NaN -> quiet NaN with the sign and the top 9 payload bits (what FCVTN / the kernels do).
inline uint16_t ref_f32_to_f16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  if (std::isnan(x)) return static_cast<uint16_t>(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
  const double ax = std::fabs(static_cast<double>(x));
  if (ax >= 65520.0) return static_cast<uint16_t>(sign | 0x7c00u);  // halfway to 2^16 rounds up (65504 is odd)
  if (ax < std::ldexp(1.0, -14)) return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(ax, 24))));
  int e;
  std::frexp(ax, &e);  // ax = f 2^e, f in [0.5, 1)
  double m = std::nearbyint(std::ldexp(ax, 11 - e));  // 11 significant bits
  if (m == 2048.0) {
    m = 1024.0;
    ++e;
  }
  const int be = e - 1 + 15;
  if (be >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  return static_cast<uint16_t>(sign | (be << 10) | (static_cast<int>(m) - 1024));
}

inline bool f16_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

}  // namespace posenc_test
