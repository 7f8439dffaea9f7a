// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_features_common.hpp — helpers shared by the features family's test files: sampled
// projections, the float64 reference of the feature maps and random inputs.
#pragma once

#include "tests/test_common.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace posenc_test {
inline bool wide(posenc_rf_kind k) { return k == POSENC_RF_TRIG || k == POSENC_RF_HYPERBOLIC; }

inline std::vector<float> sample(posenc_rf_sampling s, int d, int m, double sigma, uint64_t seed) {
  std::vector<float> w(static_cast<size_t>(m) * d);
  EXPECT_EQ(posenc_rf_sample_f32(s, d, m, sigma, seed, w.data()), POSENC_OK) << posenc_last_error_message();
  return w;
}

/// float64 reference of the feature map (unshifted, i.e. c_i = 0), from the same float omega.
inline std::vector<double> features_ref(posenc_rf_kind kind, const std::vector<float>& om, int m, int d,
                                 const float* weights, const std::vector<float>& x, int64_t n) {
  const int len = wide(kind) ? 2 * m : m;
  std::vector<double> out(static_cast<size_t>(n) * len);
  for (int64_t i = 0; i < n; ++i) {
    double ss = 0;
    for (int c = 0; c < d; ++c) ss += double(x[i * d + c]) * x[i * d + c];
    for (int j = 0; j < m; ++j) {
      double p = 0;
      for (int c = 0; c < d; ++c) p += double(om[size_t(j) * d + c]) * x[i * d + c];
      const double w = weights ? weights[j] : 1.0;
      double* o = &out[size_t(i) * len];
      switch (kind) {
        case POSENC_RF_TRIG: o[j] = w * std::cos(p) / std::sqrt(m); o[m + j] = w * std::sin(p) / std::sqrt(m); break;
        case POSENC_RF_POSITIVE: o[j] = w * std::exp(p - ss / 2) / std::sqrt(m); break;
        case POSENC_RF_HYPERBOLIC:
          o[j] = w * std::exp(p - ss / 2) / std::sqrt(2.0 * m);
          o[m + j] = w * std::exp(-p - ss / 2) / std::sqrt(2.0 * m);
          break;
        case POSENC_RF_GAUSSIAN_POSITIVE: o[j] = w * std::exp(p - ss) / std::sqrt(m); break;
        default: ADD_FAILURE() << "unknown kind"; break;
      }
    }
  }
  return out;
}

inline std::vector<float> randn(size_t n, double sd, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(g(rng));
  return v;
}

}  // namespace posenc_test
