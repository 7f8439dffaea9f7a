// SPDX-License-Identifier: Apache-2.0 OR MIT
// features family tests: sampling (IID / ORF / QMC / PFF), the inverse normal CDF, feature maps
// against float64 references, statistical properties (unbiasedness, MSE against Performer's
// Lemma 2 and Theorem 2, QMC vs i.i.d., chi vs normal radii for PFF), thread-count determinism
// and argument validation. Attention and the backward passes: tests/test_features_attention.cpp.
#include "tests/test_features_common.hpp"

#include "lib/features_ppnd.hpp"

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/erf.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>

using namespace posenc_test;

namespace {

// Boost.Math evaluated in double (no long-double promotion: quad precision in software on aarch64).
using fast_policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

// ------------------------------------------------------------------ inverse normal CDF
TEST(FeaturesPpnd16, MatchesBoostErfcInvToOneE14) {
  // Phi^{-1}(p) = -sqrt(2) erfc_inv(2p); for p > 1/2 use the exact 1 - p.
  double worst = 0;
  auto check = [&](double p) {
    const double ref = p < 0.5 ? -std::sqrt(2.0) * boost::math::erfc_inv(2 * p)
                               : std::sqrt(2.0) * boost::math::erfc_inv(2 * (1 - p));
    const double got = posenc::detail::ppnd16(p);
    const double rel = ref == 0 ? std::fabs(got) : std::fabs(got - ref) / std::fabs(ref);
    worst = std::max(worst, rel);
    EXPECT_LE(rel, 1e-14) << "p = " << p << " got " << got << " ref " << ref;
  };
  for (double lg = -300; lg <= std::log10(0.49); lg += 0.37) check(std::pow(10.0, lg));
  for (double lg = -16; lg <= std::log10(0.49); lg += 0.11) check(1.0 - std::pow(10.0, lg));
  for (int i = 1; i < 2000; ++i) check(i / 2000.0);
  check(0.425 + 0.5); check(0.075); check(1e-300); check(1 - 1.1102230246251565e-16);
  check(std::exp(-25.0)); check(std::exp(-25.0) * 1.0000001); check(std::exp(-25.0) * 0.9999999);
  std::printf("[ppnd16] max rel error vs Boost erfc_inv over (1e-300, 1-1e-16): %.3g\n", worst);
  EXPECT_EQ(posenc::detail::ppnd16(0.5), 0.0);
}

// ------------------------------------------------------------------ sampling
class FeaturesSample : public IsaTest {};

TEST_P(FeaturesSample, DeterministicInSeedThreadsAndIsa) {
  static std::map<int, std::vector<float>> first;  // per sampling, from the first ISA run
  for (int s = 0; s < 4; ++s) {
    const auto sm = static_cast<posenc_rf_sampling>(s);
    std::vector<float> a, b;
    {
      ThreadScope ts(1);
      a = sample(sm, 7, 20, 1.3, 42);
    }
    {
      ThreadScope ts(3);
      b = sample(sm, 7, 20, 1.3, 42);
    }
    EXPECT_TRUE(same_bits(a, b)) << s;
    auto it = first.find(s);
    if (it == first.end()) first[s] = a;
    else EXPECT_TRUE(same_bits(a, it->second)) << "sampling " << s << " differs between ISA paths";
    EXPECT_FALSE(same_bits(a, sample(sm, 7, 20, 1.3, 43))) << s;
    for (float v : a) EXPECT_TRUE(std::isfinite(v));
  }
}

TEST_P(FeaturesSample, OrthogonalBlocksAndChiNorms) {
  const int d = 8, m = 20;  // blocks of 8, 8, 4 rows
  const double sigma = 0.5;
  auto w = sample(POSENC_RF_ORTHOGONAL, d, m, sigma, 7);
  auto dot = [&](int i, int j) {
    double s = 0;
    for (int c = 0; c < d; ++c) s += double(w[i * d + c]) * w[j * d + c];
    return s;
  };
  for (int b = 0; b < m; b += d)
    for (int i = b; i < std::min(m, b + d); ++i)
      for (int j = b; j < i; ++j)
        EXPECT_LE(std::fabs(dot(i, j)) / std::sqrt(dot(i, i) * dot(j, j)), 1e-6) << i << "," << j;
  // norms: sigma * |omega| ~ chi_8 (mean of chi^2 = 8); over many seeds
  double acc = 0;
  int cnt = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    auto v = sample(POSENC_RF_ORTHOGONAL, d, d, sigma, seed);
    for (int i = 0; i < d; ++i) {
      double s = 0;
      for (int c = 0; c < d; ++c) s += double(v[i * d + c]) * v[i * d + c];
      acc += s * sigma * sigma;
      ++cnt;
    }
  }
  // chi^2_8: mean 8, sd 4 -> the mean of 1600 has sd 0.1
  EXPECT_NEAR(acc / cnt, 8.0, 0.5);
}

/// Kolmogorov–Smirnov statistic of the sample xs against the CDF cdf.
template <class Cdf>
double ks_statistic(std::vector<double> xs, Cdf cdf) {
  std::sort(xs.begin(), xs.end());
  const double n = double(xs.size());
  double dmax = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double f = cdf(xs[i]);
    dmax = std::max({dmax, f - double(i) / n, double(i + 1) / n - f});
  }
  return dmax;
}

TEST_P(FeaturesSample, OrthogonalRowsAreHaarWithChiNorms) {
  // The law of the ORTHOGONAL sampler (Stewart's reflectors, Marsaglia–Tsang chi norms) against
  // closed forms: |omega_i|^2 ~ chi^2_d (Boost CDF); for Haar Q, every entry u of a unit row has
  // u^2 ~ Beta(1/2, (d-1)/2), and tr Q has mean 0 and second moment 1. d = 1: the Gamma(1/2)
  // branch of the norm sampler and a random sign.
  for (int d : {1, 2, 6}) {
    const int trials = 1500;
    std::vector<double> norms2, first, last;
    double tr1 = 0, tr2 = 0;
    for (int t = 0; t < trials; ++t) {
      auto w = sample(POSENC_RF_ORTHOGONAL, d, d, 1.0, 1000 + uint64_t(t));
      double tr = 0;
      for (int i = 0; i < d; ++i) {
        double s = 0;
        for (int c = 0; c < d; ++c) s += double(w[i * d + c]) * w[i * d + c];
        norms2.push_back(s);
        const double r = std::sqrt(s);
        tr += w[i * d + i] / r;
        first.push_back(double(w[i * d]) * w[i * d] / s);
        last.push_back(double(w[i * d + d - 1]) * w[i * d + d - 1] / s);
      }
      tr1 += tr;
      tr2 += tr * tr;
    }
    const boost::math::chi_squared_distribution<double, fast_policy> chi2(d);
    // KS critical value at level 1e-3: 1.95 / sqrt(n)
    const double crit = 1.95 / std::sqrt(double(norms2.size()));
    EXPECT_LT(ks_statistic(norms2, [&](double x) { return boost::math::cdf(chi2, x); }), crit) << "d " << d;
    EXPECT_NEAR(tr1 / trials, 0.0, 5.0 / std::sqrt(double(trials))) << "d " << d;  // Var tr Q = 1
    if (d == 1) continue;
    EXPECT_NEAR(tr2 / trials, 1.0, 0.2) << "d " << d;
    const boost::math::beta_distribution<double, fast_policy> beta(0.5, 0.5 * (d - 1));
    for (auto* xs : {&first, &last})
      EXPECT_LT(ks_statistic(*xs, [&](double x) { return boost::math::cdf(beta, x); }), crit) << "d " << d;
  }
}

TEST_P(FeaturesSample, QmcAndPffMarginals) {
  const int d = 6, m = 512;
  auto q = sample(POSENC_RF_QMC, d, m, 2.0, 11);
  for (int c = 0; c < d; ++c) {
    double s1 = 0, s2 = 0;
    for (int i = 0; i < m; ++i) {
      s1 += q[i * d + c];
      s2 += double(q[i * d + c]) * q[i * d + c];
    }
    // QMC: far tighter than i.i.d. (sd of the mean would be 0.5/sqrt(512) = 0.022)
    EXPECT_NEAR(s1 / m, 0.0, 0.02) << c;
    EXPECT_NEAR(s2 / m, 0.25, 0.02) << c;
  }
  auto p = sample(POSENC_RF_PFF, d, m, 1.0, 11);
  double r2 = 0;
  for (int i = 0; i < m; ++i)
    for (int c = 0; c < d; ++c) r2 += double(p[i * d + c]) * p[i * d + c];
  EXPECT_NEAR(r2 / m, double(d), 0.05);  // stratified chi^2_6 radii: mean 6 almost exactly
}

TEST_P(FeaturesSample, BadInputWritesNothingAndNamesTheArgument) {
  std::vector<float> w(64);
  poison(w);
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_IID, 0, 4, 1.0, 1, w.data()), POSENC_ERR_INVALID_ARGUMENT, "d");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_IID, 4, 0, 1.0, 1, w.data()), POSENC_ERR_INVALID_ARGUMENT, "m");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_IID, 4, -3, 1.0, 1, w.data()), POSENC_ERR_INVALID_ARGUMENT, "m");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_IID, 4, 4, 0.0, 1, w.data()), POSENC_ERR_INVALID_ARGUMENT, "sigma");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_QMC, 4, 4, -1.0, 1, w.data()), POSENC_ERR_INVALID_ARGUMENT, "sigma");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_QMC, 4, 4, NAN, 1, w.data()), POSENC_ERR_INVALID_ARGUMENT, "sigma");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(static_cast<posenc_rf_sampling>(9), 4, 4, 1.0, 1, w.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "sampling");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_QMC, 3668, 1, 1.0, 1, w.data()), POSENC_ERR_INVALID_ARGUMENT, "3667");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_PFF, 4000, 1, 1.0, 1, w.data()), POSENC_ERR_INVALID_ARGUMENT, "Sobol");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_IID, 4, 4, 1.0, 1, nullptr), POSENC_ERR_NULL_POINTER, "omega");
  EXPECT_POSENC_ERROR(posenc_rf_sample_f32(POSENC_RF_IID, 2147483647, 2147483647, 1.0, 1, w.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "omega");
  EXPECT_EQ(count_poison(w), w.size());
  // d = 3667 is accepted for QMC (the generator's limit)
  std::vector<float> big(3667);
  EXPECT_EQ(posenc_rf_sample_f32(POSENC_RF_QMC, 3667, 1, 1.0, 1, big.data()), POSENC_OK);
}

POSENC_INSTANTIATE_ISA(FeaturesSample);

// ------------------------------------------------------------------ feature maps
class FeaturesMap : public IsaTest {};

TEST_P(FeaturesMap, MatchesFloat64ReferenceAllKindsWeightsAndTails) {
  double worst_trig = 0, worst_exp_rel = 0;
  for (int d : {13, 64}) {
    for (int m : {50, 256}) {
      const int64_t n = 37;
      auto om = sample(POSENC_RF_IID, d, m, 1.0, 5 + d + m);
      auto x = randn(size_t(n) * d, 0.8 / std::sqrt(double(d)) * 2.0, 99 + d);
      std::vector<float> wts(m);
      for (int j = 0; j < m; ++j) wts[j] = (j % 7 == 0) ? 0.0f : 0.25f + 0.01f * j;
      for (int k = 0; k < 4; ++k) {
        const auto kind = static_cast<posenc_rf_kind>(k);
        for (const float* w : {static_cast<const float*>(nullptr), static_cast<const float*>(wts.data())}) {
          const int len = wide(kind) ? 2 * m : m;
          std::vector<float> out(size_t(n) * len);
          poison(out);
          ASSERT_EQ(posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, w, x.data(), n, out.data()), POSENC_OK)
              << posenc_last_error_message();
          EXPECT_EQ(count_poison(out), 0u);
          auto ref = features_ref(kind, om, m, d, w, x, n);
          std::vector<double> pmax(n, 0.0);  // max |p| per row, for the documented bound
          for (int64_t row = 0; row < n; ++row)
            for (int j = 0; j < m; ++j) {
              double p = 0;
              for (int c = 0; c < d; ++c) p += double(om[size_t(j) * d + c]) * x[row * d + c];
              pmax[row] = std::max(pmax[row], std::fabs(p));
            }
          for (size_t i = 0; i < out.size(); ++i) {
            const double pm = pmax[int64_t(i) / len];
            const double tol = kind == POSENC_RF_TRIG ? 1e-6 * (1 + pm) / std::sqrt(m) * 2.0
                                                      : 4e-6 * (1 + pm + 1.0) * std::fabs(ref[i]) + 1e-30;
            if (kind == POSENC_RF_TRIG) worst_trig = std::max(worst_trig, std::fabs(out[i] - ref[i]) * std::sqrt(m));
            else if (ref[i] > 1e-30) worst_exp_rel = std::max(worst_exp_rel, std::fabs(out[i] - ref[i]) / ref[i]);
            ASSERT_LE(std::fabs(out[i] - ref[i]), tol) << "kind " << k << " d " << d << " m " << m << " i " << i
                                                       << " got " << out[i] << " ref " << ref[i];
          }
        }
      }
    }
  }
  std::printf("[maps] max |err| * sqrt(m) TRIG %.2e, max rel err exp kinds %.2e (|x| ~ 1.6, |p| <= ~6)\n",
              worst_trig, worst_exp_rel);
}

TEST_P(FeaturesMap, PositiveFeaturesDoNotOverflowAtNormSquared80AndShiftIsARowConstant) {
  const int d = 64, m = 256;
  const int64_t n = 12;
  auto om = sample(POSENC_RF_ORTHOGONAL, d, m, 1.0, 3);
  std::vector<float> x(size_t(n) * d);
  for (int64_t i = 0; i < n; ++i) {
    // rows of |x|^2 = 80: along omega rows (worst case) and random directions
    std::vector<double> dir(d);
    if (i < 6) for (int c = 0; c < d; ++c) dir[c] = om[size_t(i) * d + c];
    else { auto r = randn(d, 1.0, 100 + i); for (int c = 0; c < d; ++c) dir[c] = r[c]; }
    double nn = 0;
    for (double v : dir) nn += v * v;
    for (int c = 0; c < d; ++c) x[i * d + c] = static_cast<float>(dir[c] * std::sqrt(80.0 / nn));
  }
  for (int k = 1; k < 4; ++k) {
    const auto kind = static_cast<posenc_rf_kind>(k);
    const int len = wide(kind) ? 2 * m : m;
    std::vector<float> out(size_t(n) * len);
    ASSERT_EQ(posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, x.data(), n, out.data()), POSENC_OK);
    auto ref = features_ref(kind, om, m, d, nullptr, x, n);
    for (int64_t i = 0; i < n; ++i) {
      // out = ref * e^{-c_i}: the ratio is one constant per row (where ref is not negligible)
      double rmax = 0;
      size_t jmax = 0;
      for (int j = 0; j < len; ++j) {
        const float v = out[size_t(i) * len + j];
        ASSERT_TRUE(std::isfinite(v) && v >= 0.0f) << k << " row " << i;
        EXPECT_LE(v, std::exp(60.0) / std::sqrt(double(m)) * 1.001);
        if (ref[size_t(i) * len + j] > rmax) { rmax = ref[size_t(i) * len + j]; jmax = size_t(j); }
      }
      const double ratio = out[size_t(i) * len + jmax] / rmax;
      for (int j = 0; j < len; ++j) {
        const double r = ref[size_t(i) * len + j];
        if (r > rmax * 1e-20 && r * ratio > 1e-30)  // not in float's underflow range
          EXPECT_NEAR(out[size_t(i) * len + j] / r / ratio, 1.0, 4e-4) << k << " row " << i << " j " << j;
      }
    }
  }
}

TEST_P(FeaturesMap, BitwiseIdenticalForOneTwoThreeThreads) {
  const int d = 32, m = 96;
  const int64_t n = 1000;
  auto om = sample(POSENC_RF_QMC, d, m, 1.0, 8);
  auto x = randn(size_t(n) * d, 0.2, 8);
  for (int k = 0; k < 4; ++k) {
    const auto kind = static_cast<posenc_rf_kind>(k);
    std::vector<float> ref;
    for (int threads : {1, 2, 3}) {
      ThreadScope ts(threads);
      std::vector<float> out(size_t(n) * (wide(kind) ? 2 * m : m));
      ASSERT_EQ(posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, x.data(), n, out.data()), POSENC_OK);
      if (ref.empty()) ref = out;
      else EXPECT_TRUE(same_bits(ref, out)) << "kind " << k << " threads " << threads;
    }
  }
}

TEST_P(FeaturesMap, BadInputWritesNothingAndNamesTheArgument) {
  const int d = 4, m = 8;
  auto om = sample(POSENC_RF_IID, d, m, 1.0, 1);
  std::vector<float> x(3 * d, 0.1f), out(3 * 2 * m), w(m, 1.0f);
  poison(out);
  auto f = [&](posenc_rf_kind k, const float* o, int mm, int dd, const float* ww, const float* xx, int64_t n,
               float* oo) { return posenc_rf_features_f32(k, POSENC_RF_SHIFT_OVERFLOW, o, mm, dd, ww, xx, n, oo); };
  EXPECT_POSENC_ERROR(f(POSENC_RF_TRIG, om.data(), 0, d, nullptr, x.data(), 3, out.data()), POSENC_ERR_INVALID_ARGUMENT, "m");
  EXPECT_POSENC_ERROR(posenc_rf_features_f32(POSENC_RF_POSITIVE, static_cast<posenc_rf_shift>(3), om.data(), m, d, nullptr,
                                             x.data(), 3, out.data()), POSENC_ERR_INVALID_ARGUMENT, "shift");
  EXPECT_POSENC_ERROR(f(POSENC_RF_TRIG, om.data(), m, 0, nullptr, x.data(), 3, out.data()), POSENC_ERR_INVALID_ARGUMENT, "d");
  EXPECT_POSENC_ERROR(f(POSENC_RF_TRIG, om.data(), m, d, nullptr, x.data(), -1, out.data()), POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(posenc_rf_features_f32(static_cast<posenc_rf_kind>(6), POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, x.data(), 3, out.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "kind");
  EXPECT_POSENC_ERROR(f(POSENC_RF_TRIG, nullptr, m, d, nullptr, x.data(), 3, out.data()), POSENC_ERR_NULL_POINTER, "omega");
  EXPECT_POSENC_ERROR(f(POSENC_RF_TRIG, om.data(), m, d, nullptr, nullptr, 3, out.data()), POSENC_ERR_NULL_POINTER, "x");
  EXPECT_POSENC_ERROR(f(POSENC_RF_TRIG, om.data(), m, d, nullptr, x.data(), 3, nullptr), POSENC_ERR_NULL_POINTER, "out");
  w[5] = -0.5f;
  EXPECT_POSENC_ERROR(f(POSENC_RF_POSITIVE, om.data(), m, d, w.data(), x.data(), 3, out.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "weights");
  w[5] = NAN;
  EXPECT_POSENC_ERROR(f(POSENC_RF_POSITIVE, om.data(), m, d, w.data(), x.data(), 3, out.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "weights");
  om[3] = INFINITY;
  EXPECT_POSENC_ERROR(f(POSENC_RF_POSITIVE, om.data(), m, d, nullptr, x.data(), 3, out.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "omega");
  om[3] = 0.0f;
  EXPECT_POSENC_ERROR(f(POSENC_RF_TRIG, om.data(), m, d, nullptr, x.data(), int64_t(1) << 62, out.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "x");
  EXPECT_EQ(count_poison(out), out.size());
  EXPECT_EQ(f(POSENC_RF_TRIG, om.data(), m, d, nullptr, nullptr, 0, nullptr), POSENC_OK);  // n == 0: no-op
}

POSENC_INSTANTIATE_ISA(FeaturesMap);

// ------------------------------------------------------------------ statistics
// Test point (d = 16): |x| = |y| = 0.8, x.y = 0.3 — fixed vectors built from a seed.
struct Point { std::vector<float> xy; double xx, yy, xy_dot; };
Point test_point(int d, double nx, double dotxy) {
  auto a = randn(d, 1.0, 1234), b = randn(d, 1.0, 4321);
  std::vector<double> u(a.begin(), a.end()), v(b.begin(), b.end());
  auto dot = [&](const std::vector<double>& p, const std::vector<double>& q) {
    double s = 0; for (int i = 0; i < d; ++i) s += p[i] * q[i]; return s; };
  const double nu = std::sqrt(dot(u, u));
  for (auto& e : u) e /= nu;
  const double c = dot(u, v);
  for (int i = 0; i < d; ++i) v[i] -= c * u[i];
  const double nv = std::sqrt(dot(v, v));
  for (auto& e : v) e /= nv;
  const double cs = dotxy / (nx * nx);  // cos of the angle
  Point p;
  p.xy.resize(2 * d);
  for (int i = 0; i < d; ++i) {
    p.xy[i] = static_cast<float>(nx * u[i]);
    p.xy[d + i] = static_cast<float>(nx * (cs * u[i] + std::sqrt(1 - cs * cs) * v[i]));
  }
  p.xx = p.yy = p.xy_dot = 0;
  for (int i = 0; i < d; ++i) {
    p.xx += double(p.xy[i]) * p.xy[i];
    p.yy += double(p.xy[d + i]) * p.xy[d + i];
    p.xy_dot += double(p.xy[i]) * p.xy[d + i];
  }
  return p;
}

/// Kernel estimates phi(x).phi(y) for `seeds` independent Omega draws (features on this ISA).
std::vector<double> estimates(posenc_rf_sampling s, posenc_rf_kind kind, int d, int m, int seeds, const Point& p,
                              uint64_t seed0 = 1000) {
  static std::map<std::tuple<int, int, int, int, uint64_t>, std::vector<std::vector<float>>> cache;
  auto key = std::make_tuple(int(s), d, m, seeds, seed0);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::vector<std::vector<float>> oms;
    for (int t = 0; t < seeds; ++t) oms.push_back(sample(s, d, m, 1.0, seed0 + t));
    it = cache.emplace(key, std::move(oms)).first;
  }
  const int len = wide(kind) ? 2 * m : m;
  std::vector<double> est;
  std::vector<float> out(2 * size_t(len));
  for (const auto& om : it->second) {
    EXPECT_EQ(posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, p.xy.data(), 2, out.data()), POSENC_OK);
    double e = 0;
    for (int j = 0; j < len; ++j) e += double(out[j]) * out[len + j];
    est.push_back(e);
  }
  return est;
}

double mean(const std::vector<double>& v) { double s = 0; for (double x : v) s += x; return s / v.size(); }
double mse(const std::vector<double>& v, double t) { double s = 0; for (double x : v) s += (x - t) * (x - t); return s / v.size(); }
/// Standard error of the mean squared error (from the sample).
double mse_se(const std::vector<double>& v, double t) {
  const double mu = mse(v, t);
  double s = 0;
  for (double x : v) { const double e = (x - t) * (x - t) - mu; s += e * e; }
  return std::sqrt(s / (v.size() - 1) / v.size());
}

// Performer Lemma 2 (Choromanski et al. 2021) and their Gaussian-kernel analogues.
struct Lemma2 {
  double sm, kg, zz, dd;  // SM = e^{x.y}, K_G = e^{-|x-y|^2/2}, |x+y|^2, |x-y|^2
  explicit Lemma2(const Point& p) {
    sm = std::exp(p.xy_dot);
    kg = std::exp(-(p.xx + p.yy - 2 * p.xy_dot) / 2);
    zz = p.xx + p.yy + 2 * p.xy_dot;
    dd = p.xx + p.yy - 2 * p.xy_dot;
  }
  double positive(int m) const { return std::exp(zz) * sm * sm * (1 - std::exp(-zz)) / m; }
  double hyperbolic(int m) const { return 0.5 * (1 - std::exp(-zz)) * positive(m); }
  double trig_kg(int m) const { return std::pow(1 - kg * kg, 2) / (2.0 * m); }  // = Lemma 2 trig / e^{|x|^2+|y|^2}
  double gp(int m) const { return kg * kg * (std::exp(zz) - 1) / m; }            // DiJiang PFF map, i.i.d. omega
  double orf_bound(int m, int d, const Point& p) const {                        // Theorem 2, m <= d
    return positive(m) - 2.0 * (m - 1) / (m * (d + 2.0)) * std::pow(sm - std::exp(-(p.xx + p.yy) / 2), 2);
  }
};

class FeaturesStats : public IsaTest {};

TEST_P(FeaturesStats, UnbiasedMeanOverSeedsWithinLemma2Tolerance) {
  const int d = 16, m = 64, S = 1500;
  const Point p = test_point(d, 0.8, 0.3);
  const Lemma2 L(p);
  struct Case { posenc_rf_sampling s; posenc_rf_kind k; double target, var; const char* name; };
  const Case cases[] = {
      {POSENC_RF_IID, POSENC_RF_POSITIVE, L.sm, L.positive(m), "iid positive -> SM"},
      {POSENC_RF_IID, POSENC_RF_HYPERBOLIC, L.sm, L.hyperbolic(m), "iid hyperbolic -> SM"},
      {POSENC_RF_ORTHOGONAL, POSENC_RF_POSITIVE, L.sm, L.positive(m), "orf positive -> SM"},
      {POSENC_RF_QMC, POSENC_RF_HYPERBOLIC, L.sm, L.hyperbolic(m), "qmc hyperbolic -> SM"},
      {POSENC_RF_PFF, POSENC_RF_TRIG, L.kg, L.trig_kg(m), "pff trig -> K_G"},
      {POSENC_RF_PFF, POSENC_RF_GAUSSIAN_POSITIVE, L.kg, L.gp(m), "pff gaussian_positive -> K_G"},
  };
  for (const auto& c : cases) {
    const auto est = estimates(c.s, c.k, d, m, S, p);
    const double mu = mean(est), se = std::sqrt(c.var / S);  // i.i.d. Lemma 2 variance: an upper
    // bound for ORF / QMC / PFF (they only reduce it; checked by the MSE tests)
    std::printf("[unbiased] %-30s mean %.6f target %.6f rel %+.2e (tol 5 se = %.2e)\n", c.name, mu, c.target,
                mu / c.target - 1, 5 * se / c.target);
    EXPECT_NEAR(mu, c.target, 5 * se) << c.name;
  }
}

TEST_P(FeaturesStats, PffStandardNormalRadiiWouldBeBiased) {
  // Same PFF directions, radii replaced by the standard-normal quantile of stratified t (the
  // mistake docs/REFERENCES.md §3 warns about): mean far from K_G; the chi radii of the library are not.
  const int d = 16, m = 64, S = 400;
  const Point p = test_point(d, 0.8, 0.3);
  const Lemma2 L(p);
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const boost::math::normal_distribution<double, fast_policy> N01;
  const boost::math::chi_squared_distribution<double, fast_policy> chi2(d);
  static std::vector<double> est_normal, est_chi;  // ISA-independent (float64 here): computed once
  for (int t = int(est_chi.size()); t < S; ++t) {
    auto om = sample(POSENC_RF_PFF, d, m, 1.0, 5000 + t);
    double en = 0, ec = 0;
    for (int j = 0; j < m; ++j) {
      double nn = 0, px = 0, py = 0;
      for (int c = 0; c < d; ++c) nn += double(om[j * d + c]) * om[j * d + c];
      for (int c = 0; c < d; ++c) {
        px += om[j * d + c] / std::sqrt(nn) * p.xy[c];
        py += om[j * d + c] / std::sqrt(nn) * p.xy[d + c];
      }
      const double tt = (j + U(rng)) / m;
      const double rn = boost::math::quantile(N01, tt), rc = std::sqrt(boost::math::quantile(chi2, tt));
      en += std::exp(rn * (px + py));
      ec += std::exp(rc * (px + py));
    }
    const double pre = std::exp(-p.xx - p.yy) / m;
    est_normal.push_back(en * pre);
    est_chi.push_back(ec * pre);
  }
  const double se = std::sqrt(L.gp(m) / S);
  std::printf("[pff radii] chi_d: mean/K_G = %.4f   standard normal: mean/K_G = %.4f   (5 se = %.4f)\n",
              mean(est_chi) / L.kg, mean(est_normal) / L.kg, 5 * se / L.kg);
  EXPECT_NEAR(mean(est_chi), L.kg, 5 * se);
  EXPECT_GT(std::fabs(mean(est_normal) - L.kg), 20 * se);
  // and the library's own estimate is the chi one
  EXPECT_NEAR(mean(estimates(POSENC_RF_PFF, POSENC_RF_GAUSSIAN_POSITIVE, d, m, S, p, 5000)), L.kg, 5 * se);
}

TEST_P(FeaturesStats, IidMseMatchesLemma2) {
  const int d = 16, m = 64, S = 1500;
  const Point p = test_point(d, 0.8, 0.3);
  const Lemma2 L(p);
  struct Case { posenc_rf_kind k; double target, lemma; const char* name; };
  const Case cases[] = {{POSENC_RF_TRIG, L.kg, L.trig_kg(m), "trig"},
                        {POSENC_RF_POSITIVE, L.sm, L.positive(m), "positive"},
                        {POSENC_RF_HYPERBOLIC, L.sm, L.hyperbolic(m), "hyperbolic"}};
  for (const auto& c : cases) {
    const auto est = estimates(POSENC_RF_IID, c.k, d, m, S, p);
    const double e = mse(est, c.target), se = mse_se(est, c.target);
    std::printf("[lemma2] iid %-10s m=%d MSE %.4e Lemma 2 %.4e ratio %.3f (se %.3f)\n", c.name, m, e, c.lemma,
                e / c.lemma, se / c.lemma);
    EXPECT_NEAR(e, c.lemma, 5 * se) << c.name;
  }
}

TEST_P(FeaturesStats, OrfMseBelowTheorem2BoundAndQmcBelowIid) {
  const Point p16 = test_point(16, 0.8, 0.3);
  const Lemma2 L(p16);
  {
    const int d = 16, m = 16, S = 3000;
    const auto est = estimates(POSENC_RF_ORTHOGONAL, POSENC_RF_POSITIVE, d, m, S, p16);
    const double e = mse(est, L.sm), se = mse_se(est, L.sm), bound = L.orf_bound(m, d, p16);
    std::printf("[thm2] ORF positive m=d=16 MSE %.4e (se %.1e) bound %.4e iid Lemma 2 %.4e\n", e, se, bound,
                L.positive(m));
    EXPECT_LE(e, bound + 3 * se);
  }
  {
    // TRIG and HYPERBOLIC: the positive map's squared error is too heavy-tailed for a sharp test
    // at this seed count (its QMC/iid ratio is in the MSE table of docs/ACCURACY.md).
    const int d = 16, m = 256, S = 600;
    for (auto k : {POSENC_RF_HYPERBOLIC, POSENC_RF_TRIG}) {
      const double target = k == POSENC_RF_TRIG ? L.kg : L.sm;
      const double iid = k == POSENC_RF_TRIG ? L.trig_kg(m) : L.hyperbolic(m);
      const auto est = estimates(POSENC_RF_QMC, k, d, m, S, p16);
      const double e = mse(est, target), se = mse_se(est, target);
      std::printf("[qmc] kind %d m=256 d=16 QMC MSE %.4e (se %.1e) iid Lemma 2 %.4e ratio %.3f\n", int(k), e, se,
                  iid, e / iid);
      EXPECT_LT(e + 5 * se, iid) << int(k);
    }
  }
}

POSENC_INSTANTIATE_ISA(FeaturesStats);

TEST(FeaturesMseTable, IidOrfQmcPffAtM16_64_256) {
  // The docs/ACCURACY.md table: positive features (target SM) and Gaussian-positive (target
  // K_G) at the test point, d = 16, 200 seeds per entry. Printed; the i.i.d. column must agree
  // with Lemma 2 (loosely: 200 seeds).
  posenc_isa_set(POSENC_ISA_AUTO);
  const int d = 16, S = 200;
  const Point p = test_point(d, 0.8, 0.3);
  const Lemma2 L(p);
  const char* names[] = {"iid", "orf", "qmc", "pff"};
  for (auto k : {POSENC_RF_POSITIVE, POSENC_RF_GAUSSIAN_POSITIVE, POSENC_RF_TRIG}) {
    for (int m : {16, 64, 256}) {
      const double target = k == POSENC_RF_POSITIVE ? L.sm : L.kg;
      const double lemma = k == POSENC_RF_POSITIVE ? L.positive(m) : k == POSENC_RF_TRIG ? L.trig_kg(m) : L.gp(m);
      std::printf("[mse-table] kind %d m=%3d lemma2 %.3e", int(k), m, lemma);
      for (int s = 0; s < 4; ++s) {
        const auto est = estimates(static_cast<posenc_rf_sampling>(s), k, d, m, S, p, 9000);
        const double e = mse(est, target);
        std::printf("  %s %.3e", names[s], e);
        EXPECT_TRUE(std::isfinite(e));
        if (s == 0) EXPECT_NEAR(e, lemma, 8 * mse_se(est, target));
      }
      std::printf("\n");
    }
  }
}

}  // namespace
