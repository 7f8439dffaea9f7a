// SPDX-License-Identifier: Apache-2.0 OR MIT
// features family tests, attention: linear and exact softmax attention against float64 (causal
// and not, FAVOR+ stabilization, shifts), the C++ wrappers, the backward passes of the feature
// maps, linear and softmax attention (float64 finite differences), and decoding steps.
#include "tests/test_features_common.hpp"

#include <algorithm>
#include <cmath>
#include <random>

using namespace posenc_test;

namespace {

// ------------------------------------------------------------------ attention
std::vector<double> linear_ref(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                               int64_t n, int F, int dv, bool causal, double eps) {
  std::vector<double> out(size_t(n) * dv), S(size_t(F) * dv, 0.0), z(F, 0.0);
  auto add = [&](int64_t j) {
    for (int f = 0; f < F; ++f) {
      z[f] += k[j * F + f];
      for (int c = 0; c < dv; ++c) S[f * dv + c] += double(k[j * F + f]) * v[j * dv + c];
    }
  };
  if (!causal) for (int64_t j = 0; j < n; ++j) add(j);
  for (int64_t i = 0; i < n; ++i) {
    if (causal) add(i);
    double den = eps;
    for (int f = 0; f < F; ++f) den += double(q[i * F + f]) * z[f];
    for (int c = 0; c < dv; ++c) {
      double num = 0;
      for (int f = 0; f < F; ++f) num += double(q[i * F + f]) * S[f * dv + c];
      out[i * dv + c] = num / den;
    }
  }
  return out;
}

std::vector<double> softmax_ref(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                                int64_t n, int d, int dv, bool causal, double scale) {
  std::vector<double> out(size_t(n) * dv), s(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t jn = causal ? i + 1 : n;
    double mx = -INFINITY;
    for (int64_t j = 0; j < jn; ++j) {
      double t = 0;
      for (int c = 0; c < d; ++c) t += double(q[i * d + c]) * k[j * d + c];
      s[j] = scale * t;
      mx = std::max(mx, s[j]);
    }
    double l = 0;
    for (int64_t j = 0; j < jn; ++j) { s[j] = std::exp(s[j] - mx); l += s[j]; }
    for (int c = 0; c < dv; ++c) {
      double a = 0;
      for (int64_t j = 0; j < jn; ++j) a += s[j] * v[j * dv + c];
      out[i * dv + c] = a / l;
    }
  }
  return out;
}

std::vector<float> uniform01(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

class FeaturesAttention : public IsaTest {};

TEST_P(FeaturesAttention, LinearMatchesFloat64CausalAndNot) {
  for (int64_t n : {1, 7, 300, 1100}) {
    const int F = 40, dv = 24;
    auto q = uniform01(size_t(n) * F, 1), k = uniform01(size_t(n) * F, 2);
    auto v = randn(size_t(n) * dv, 1.0, 3);
    for (int causal : {0, 1}) {
      std::vector<float> out(size_t(n) * dv);
      poison(out);
      ASSERT_EQ(posenc_linear_attention_f32(q.data(), k.data(), v.data(), n, F, dv, causal, 1e-6f, out.data()),
                POSENC_OK) << posenc_last_error_message();
      auto ref = linear_ref(q, k, v, n, F, dv, causal, 1e-6);
      double worst = 0;
      for (size_t i = 0; i < out.size(); ++i) worst = std::max(worst, std::fabs(out[i] - ref[i]));
      EXPECT_LE(worst, 2e-5) << "n " << n << " causal " << causal;  // |v| <= ~4: out is a convex mean
      std::printf("[linear] n=%lld causal=%d max abs err vs float64 %.2e\n", (long long)n, causal, worst);
      std::vector<float> again(out.size());
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        ASSERT_EQ(posenc_linear_attention_f32(q.data(), k.data(), v.data(), n, F, dv, causal, 1e-6f, again.data()),
                  POSENC_OK);
        EXPECT_TRUE(same_bits(out, again)) << threads;
      }
    }
  }
}

TEST_P(FeaturesAttention, SoftmaxMatchesFloat64NaiveCausalAndNot) {
  for (int64_t n : {1, 5, 300}) {
    const int d = 20, dv = 24;
    auto q = randn(size_t(n) * d, 1.0, 4), k = randn(size_t(n) * d, 1.0, 5), v = randn(size_t(n) * dv, 1.0, 6);
    const float scale = 1.0f / std::sqrt(float(d));
    for (int causal : {0, 1}) {
      std::vector<float> out(size_t(n) * dv);
      poison(out);
      ASSERT_EQ(posenc_softmax_attention_f32(q.data(), k.data(), v.data(), n, d, dv, causal, scale, out.data()),
                POSENC_OK) << posenc_last_error_message();
      auto ref = softmax_ref(q, k, v, n, d, dv, causal, scale);
      double worst = 0;
      for (size_t i = 0; i < out.size(); ++i) worst = std::max(worst, std::fabs(out[i] - ref[i]));
      EXPECT_LE(worst, 1e-5) << "n " << n << " causal " << causal;
      std::printf("[softmax] n=%lld causal=%d max abs err vs float64 %.2e\n", (long long)n, causal, worst);
      std::vector<float> again(out.size());
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        ASSERT_EQ(posenc_softmax_attention_f32(q.data(), k.data(), v.data(), n, d, dv, causal, scale, again.data()),
                  POSENC_OK);
        EXPECT_TRUE(same_bits(out, again)) << threads;
      }
    }
  }
}

TEST_P(FeaturesAttention, PositiveFeaturesApproximateSoftmaxAttentionAsMGrows) {
  // Performer: phi = POSITIVE features of q, k (small norms, scale 1): linear attention ->
  // softmax attention of exp(q.k). Mean abs error over 4 Omega draws, ORF sampling.
  const int64_t n = 128;
  const int d = 16, dv = 8;
  auto q = randn(size_t(n) * d, 0.15, 7), k = randn(size_t(n) * d, 0.15, 8), v = randn(size_t(n) * dv, 1.0, 9);
  std::vector<float> exact(size_t(n) * dv);
  ASSERT_EQ(posenc_softmax_attention_f32(q.data(), k.data(), v.data(), n, d, dv, 0, 1.0f, exact.data()), POSENC_OK);
  double err_prev = 1e30;
  for (int m : {16, 64, 256}) {
    double err = 0;
    for (uint64_t seed = 0; seed < 4; ++seed) {
      auto om = sample(POSENC_RF_ORTHOGONAL, d, m, 1.0, 300 + seed);
      std::vector<float> pq(size_t(n) * m), pk(size_t(n) * m), out(size_t(n) * dv);
      ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, q.data(), n, pq.data()), POSENC_OK);
      ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, k.data(), n, pk.data()), POSENC_OK);
      ASSERT_EQ(posenc_linear_attention_f32(pq.data(), pk.data(), v.data(), n, m, dv, 0, 1e-6f, out.data()), POSENC_OK);
      for (size_t i = 0; i < out.size(); ++i) err += std::fabs(out[i] - exact[i]);
    }
    err /= 4.0 * double(n * dv);
    std::printf("[performer] m=%3d mean abs error vs exact softmax attention %.3e\n", m, err);
    EXPECT_LT(err, err_prev);
    err_prev = err;
  }
  EXPECT_LT(err_prev, 0.01);
}

TEST_P(FeaturesAttention, QueryShiftCancelsInLinearAttention) {
  // Queries with |q|^2 = 80 are shifted (c_i > 0); linear attention still equals the float64
  // formula with the unshifted features because the row factor cancels in the ratio.
  const int64_t n = 40;
  const int d = 16, m = 64, dv = 8;
  auto om = sample(POSENC_RF_ORTHOGONAL, d, m, 1.0, 12);
  auto q = randn(size_t(n) * d, 1.0, 13), k = randn(size_t(n) * d, 0.1, 14), v = randn(size_t(n) * dv, 1.0, 15);
  for (int64_t i = 0; i < n; ++i) {
    double nn = 0;
    for (int c = 0; c < d; ++c) nn += double(q[i * d + c]) * q[i * d + c];
    for (int c = 0; c < d; ++c) q[i * d + c] = static_cast<float>(q[i * d + c] * std::sqrt(80.0 / nn));
  }
  std::vector<float> pq(size_t(n) * m), pk(size_t(n) * m), out(size_t(n) * dv);
  ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, q.data(), n, pq.data()), POSENC_OK);
  ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, k.data(), n, pk.data()), POSENC_OK);
  for (int causal : {0, 1}) {
    ASSERT_EQ(posenc_linear_attention_f32(pq.data(), pk.data(), v.data(), n, m, dv, causal, 0.0f, out.data()), POSENC_OK);
    // float64 reference with unshifted features
    auto rq = features_ref(POSENC_RF_POSITIVE, om, m, d, nullptr, q, n);
    auto rk = features_ref(POSENC_RF_POSITIVE, om, m, d, nullptr, k, n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t jn = causal ? i + 1 : n;
      double den = 0;
      std::vector<double> num(dv, 0.0);
      for (int64_t j = 0; j < jn; ++j) {
        double a = 0;
        for (int f = 0; f < m; ++f) a += rq[i * m + f] * rk[j * m + f];
        den += a;
        for (int c = 0; c < dv; ++c) num[c] += a * v[j * dv + c];
      }
      for (int c = 0; c < dv; ++c) EXPECT_NEAR(out[i * dv + c], num[c] / den, 2e-3) << i << "," << c;
    }
  }
}

/// float64 FAVOR+ linear attention with the unshifted positive features of the same float omega,
/// q and k (evaluated with a per-query and one key shift in float64, which cancel exactly).
std::vector<double> favor_ref(const std::vector<float>& om, int m, int d, const std::vector<float>& q,
                              const std::vector<float>& k, const std::vector<float>& v, int64_t n, int dv) {
  auto expo = [&](const std::vector<float>& x, int64_t i, int j) {
    double p = 0, ss = 0;
    for (int c = 0; c < d; ++c) {
      p += double(om[size_t(j) * d + c]) * x[i * d + c];
      ss += double(x[i * d + c]) * x[i * d + c];
    }
    return p - ss / 2;
  };
  std::vector<double> eq(size_t(n) * m), ek(size_t(n) * m);
  double kmax = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    double qmax = -INFINITY;
    for (int j = 0; j < m; ++j) {
      eq[i * m + j] = expo(q, i, j);
      ek[i * m + j] = expo(k, i, j);
      qmax = std::max(qmax, eq[i * m + j]);
      kmax = std::max(kmax, ek[i * m + j]);
    }
    for (int j = 0; j < m; ++j) eq[i * m + j] = std::exp(eq[i * m + j] - qmax);
  }
  for (auto& e : ek) e = std::exp(e - kmax);
  std::vector<double> out(size_t(n) * dv, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double den = 0;
    for (int64_t t = 0; t < n; ++t) {
      double a = 0;
      for (int j = 0; j < m; ++j) a += eq[i * m + j] * ek[t * m + j];
      den += a;
      for (int c = 0; c < dv; ++c) out[i * dv + c] += a * v[t * dv + c];
    }
    for (int c = 0; c < dv; ++c) out[i * dv + c] /= den;
  }
  return out;
}

TEST_P(FeaturesAttention, FavorStabilizationMatchesFloat64ForLargeNormQueries) {
  // Keys N(0, 1), queries N(0, a^2), d = 64, m = 256: unshifted (OVERFLOW) query rows underflow
  // to 0 for a >= 3; queries with ROW_MAX and keys with SHARED_MAX match the float64 estimate.
  const int d = 64, m = 256, dv = 16;
  const int64_t n = 128;
  auto om = sample(POSENC_RF_ORTHOGONAL, d, m, 1.0, 21);
  auto k = randn(size_t(n) * d, 1.0, 22), v = randn(size_t(n) * dv, 1.0, 23);
  for (double a : {1.0, 2.0, 3.0, 5.0}) {
    auto q = randn(size_t(n) * d, a, 24 + uint64_t(a));
    const auto ref = favor_ref(om, m, d, q, k, v, n, dv);
    std::vector<float> pq(size_t(n) * m), pk(size_t(n) * m), out(size_t(n) * dv);
    poison(pq);
    poison(pk);
    ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_ROW_MAX, om.data(), m, d, nullptr, q.data(), n,
                                     pq.data()), POSENC_OK) << posenc_last_error_message();
    ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_SHARED_MAX, om.data(), m, d, nullptr, k.data(),
                                     n, pk.data()), POSENC_OK) << posenc_last_error_message();
    EXPECT_EQ(count_poison(pq) + count_poison(pk), 0u);
    // every query row's largest feature is exactly 1/sqrt(m); the largest key feature of the call too
    const float top = static_cast<float>(1.0 / std::sqrt(double(m)));
    float kmax = 0;
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(*std::max_element(pq.begin() + i * m, pq.begin() + (i + 1) * m), top) << "row " << i;
      kmax = std::max(kmax, *std::max_element(pk.begin() + i * m, pk.begin() + (i + 1) * m));
    }
    EXPECT_NEAR(kmax, top, 1e-6 * top);
    for (int causal : {0}) {
      poison(out);
      ASSERT_EQ(posenc_linear_attention_f32(pq.data(), pk.data(), v.data(), n, m, dv, causal, 0.0f, out.data()),
                POSENC_OK);
      double worst = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_TRUE(std::isfinite(out[i])) << "a " << a << " i " << i;
        worst = std::max(worst, std::fabs(out[i] - ref[i]));
      }
      std::printf("[favor] a=%g stabilized max abs err vs float64 FAVOR+ %.2e\n", a, worst);
      EXPECT_LE(worst, 2e-4 * a) << "a " << a;
      // no zero row
      for (int64_t i = 0; i < n; ++i) {
        double r = 0;
        for (int c = 0; c < dv; ++c) r += std::fabs(out[i * dv + c]);
        EXPECT_GT(r, 0.0) << "row " << i;
      }
    }
    if (a == 5.0) {  // the unstabilized map loses every query row (all features underflow)
      std::vector<float> p0(size_t(n) * m);
      ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, q.data(),
                                       n, p0.data()), POSENC_OK);
      EXPECT_EQ(*std::max_element(p0.begin(), p0.end()), 0.0f);
    }
  }
}

TEST_P(FeaturesAttention, SharedAndRowMaxShiftsAreRowConstantsAndThreadInvariant) {
  const int d = 24, m = 40;
  const int64_t n = 500;
  auto om = sample(POSENC_RF_IID, d, m, 1.0, 31);
  auto x = randn(size_t(n) * d, 0.5, 32);
  std::vector<float> w(m);
  for (int j = 0; j < m; ++j) w[j] = 0.5f + 0.02f * j;
  for (int kk = 1; kk < 4; ++kk) {
    const auto kind = static_cast<posenc_rf_kind>(kk);
    const int len = wide(kind) ? 2 * m : m;
    const auto ref = features_ref(kind, om, m, d, w.data(), x, n);
    for (auto sh : {POSENC_RF_SHIFT_ROW_MAX, POSENC_RF_SHIFT_SHARED_MAX}) {
      std::vector<float> first;
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        std::vector<float> out(size_t(n) * len);
        poison(out);
        ASSERT_EQ(posenc_rf_features_f32(kind, sh, om.data(), m, d, w.data(), x.data(), n, out.data()), POSENC_OK);
        if (first.empty()) first = out;
        else EXPECT_TRUE(same_bits(first, out)) << kk << " " << sh << " threads " << threads;
      }
      // out = ref * e^{-c_i}; SHARED_MAX: one c for all rows
      double c0 = 0;
      for (int64_t i = 0; i < n; ++i) {
        const size_t j0 = size_t(std::max_element(ref.begin() + i * len, ref.begin() + (i + 1) * len) - ref.begin());
        const double ci = std::log(ref[j0] / first[j0]);
        if (i == 0) c0 = ci;
        if (sh == POSENC_RF_SHIFT_SHARED_MAX) EXPECT_NEAR(ci, c0, 1e-5) << kk << " row " << i;
        for (int j = 0; j < len; ++j) {
          const double r = ref[i * len + j] * std::exp(-ci);
          EXPECT_NEAR(first[i * len + j], r, 1e-5 * r + 1e-30) << kk << " " << sh << " row " << i << " j " << j;
        }
      }
    }
  }
}

TEST_P(FeaturesAttention, BadInputWritesNothingAndNamesTheArgument) {
  const int64_t n = 4;
  const int F = 3, dv = 2;
  std::vector<float> a(n * F, 0.5f), b(n * F, 0.5f), v(n * dv, 1.0f), out(n * dv);
  poison(out);
  EXPECT_POSENC_ERROR(posenc_linear_attention_f32(a.data(), b.data(), v.data(), -1, F, dv, 0, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(posenc_linear_attention_f32(a.data(), b.data(), v.data(), n, 0, dv, 0, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "F");
  EXPECT_POSENC_ERROR(posenc_linear_attention_f32(a.data(), b.data(), v.data(), n, F, 0, 0, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "dv");
  EXPECT_POSENC_ERROR(posenc_linear_attention_f32(a.data(), b.data(), v.data(), n, F, dv, 0, -1.0f, out.data()), POSENC_ERR_INVALID_ARGUMENT, "eps");
  EXPECT_POSENC_ERROR(posenc_linear_attention_f32(nullptr, b.data(), v.data(), n, F, dv, 0, 0, out.data()), POSENC_ERR_NULL_POINTER, "phi_q");
  EXPECT_POSENC_ERROR(posenc_linear_attention_f32(a.data(), nullptr, v.data(), n, F, dv, 1, 0, out.data()), POSENC_ERR_NULL_POINTER, "phi_k");
  EXPECT_POSENC_ERROR(posenc_linear_attention_f32(a.data(), b.data(), nullptr, n, F, dv, 1, 0, out.data()), POSENC_ERR_NULL_POINTER, "v");
  EXPECT_POSENC_ERROR(posenc_linear_attention_f32(a.data(), b.data(), v.data(), n, F, dv, 1, 0, nullptr), POSENC_ERR_NULL_POINTER, "out");
  EXPECT_POSENC_ERROR(posenc_softmax_attention_f32(a.data(), b.data(), v.data(), -2, F, dv, 0, 1, out.data()), POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(posenc_softmax_attention_f32(a.data(), b.data(), v.data(), n, 0, dv, 0, 1, out.data()), POSENC_ERR_INVALID_ARGUMENT, "d");
  EXPECT_POSENC_ERROR(posenc_softmax_attention_f32(a.data(), b.data(), v.data(), n, F, -1, 0, 1, out.data()), POSENC_ERR_INVALID_ARGUMENT, "dv");
  EXPECT_POSENC_ERROR(posenc_softmax_attention_f32(a.data(), b.data(), v.data(), n, F, dv, 0, NAN, out.data()), POSENC_ERR_INVALID_ARGUMENT, "scale");
  EXPECT_POSENC_ERROR(posenc_softmax_attention_f32(nullptr, b.data(), v.data(), n, F, dv, 0, 1, out.data()), POSENC_ERR_NULL_POINTER, "q");
  EXPECT_POSENC_ERROR(posenc_softmax_attention_f32(a.data(), b.data(), v.data(), n, F, dv, 0, 1, nullptr), POSENC_ERR_NULL_POINTER, "out");
  EXPECT_POSENC_ERROR(posenc_softmax_attention_f32(a.data(), b.data(), v.data(), int64_t(1) << 62, F, dv, 0, 1, out.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "overflows");
  EXPECT_EQ(count_poison(out), out.size());
  EXPECT_EQ(posenc_linear_attention_f32(nullptr, nullptr, nullptr, 0, F, dv, 1, 0, nullptr), POSENC_OK);
  EXPECT_EQ(posenc_softmax_attention_f32(nullptr, nullptr, nullptr, 0, F, dv, 1, 1, nullptr), POSENC_OK);
}

POSENC_INSTANTIATE_ISA(FeaturesAttention);

}  // namespace

#include "posenc/posenc.hpp"

namespace {
TEST(FeaturesCpp, WrappersMatchCAndThrow) {
  auto om = posenc::rf_sample(POSENC_RF_QMC, 8, 16, 1.0, 3);
  std::vector<float> x(5 * 8, 0.1f);
  auto f = posenc::rf_features(POSENC_RF_HYPERBOLIC, om, 16, 8, x);
  ASSERT_EQ(f.size(), 5u * 32u);
  std::vector<float> g(f.size());
  ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_HYPERBOLIC, POSENC_RF_SHIFT_OVERFLOW, om.data(), 16, 8, nullptr, x.data(), 5, g.data()), POSENC_OK);
  EXPECT_TRUE(posenc_test::same_bits(f, g));
  EXPECT_THROW(posenc::rf_sample(POSENC_RF_IID, 0, 4), posenc::error);
  std::vector<float> out(5 * 32);
  EXPECT_THROW(posenc::linear_attention(f.data(), f.data(), nullptr, 5, 32, 2, true, 0.0f, out.data()), posenc::error);
}
}  // namespace

// ------------------------------------------------------------------ backward passes
namespace {

/// float64 feature row of x (double inputs), unshifted.
void phi64_row(posenc_rf_kind kind, const std::vector<double>& om, const std::vector<double>& w, const double* x,
               int m, int d, double* out) {
  double ss = 0;
  for (int c = 0; c < d; ++c) ss += x[c] * x[c];
  for (int j = 0; j < m; ++j) {
    double p = 0;
    for (int c = 0; c < d; ++c) p += om[size_t(j) * d + c] * x[c];
    switch (kind) {
      case POSENC_RF_TRIG: out[j] = w[j] * std::cos(p) / std::sqrt(m); out[m + j] = w[j] * std::sin(p) / std::sqrt(m); break;
      case POSENC_RF_POSITIVE: out[j] = w[j] * std::exp(p - ss / 2) / std::sqrt(m); break;
      case POSENC_RF_HYPERBOLIC:
        out[j] = w[j] * std::exp(p - ss / 2) / std::sqrt(2.0 * m);
        out[m + j] = w[j] * std::exp(-p - ss / 2) / std::sqrt(2.0 * m);
        break;
      default: out[j] = w[j] * std::exp(p - ss) / std::sqrt(m); break;
    }
  }
}

double feat_loss_row(posenc_rf_kind kind, const std::vector<double>& om, const std::vector<double>& w, const double* x,
                     int m, int d, const float* g) {
  std::vector<double> r(size_t(2 * m));
  phi64_row(kind, om, w, x, m, d, r.data());
  double s = 0;
  for (int j = 0; j < (wide(kind) ? 2 * m : m); ++j) s += g[j] * r[size_t(j)];
  return s;
}

std::vector<double> to64(const std::vector<float>& a) { return std::vector<double>(a.begin(), a.end()); }

double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

class FeaturesBackward : public IsaTest {};

TEST_P(FeaturesBackward, FeatureMapGradientsMatchFloat64FiniteDifferences) {
  const int d = 7, m = 20;
  const int64_t n = 300;  // two 256-row tiles
  auto om = sample(POSENC_RF_IID, d, m, 1.0, 41);
  auto x = randn(size_t(n) * d, 0.4, 42);
  std::vector<float> wts(m);
  for (int j = 0; j < m; ++j) wts[j] = 0.3f + 0.05f * j;
  const auto om64 = to64(om), x64 = to64(x);
  double worst = 0;
  for (int kk = 0; kk < 4; ++kk) {
    const auto kind = static_cast<posenc_rf_kind>(kk);
    const int F = wide(kind) ? 2 * m : m;
    auto g = randn(size_t(n) * F, 1.0, 43 + kk);
    for (const float* w : {static_cast<const float*>(nullptr), static_cast<const float*>(wts.data())}) {
      const std::vector<double> w64 = w ? to64(wts) : std::vector<double>(size_t(m), 1.0);
      std::vector<float> gx(size_t(n) * d), gw(m), gom(size_t(m) * d);
      poison(gx); poison(gw); poison(gom);
      ASSERT_EQ(posenc_rf_features_backward_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, w, x.data(), n, g.data(),
                                                gx.data(), gw.data(), gom.data()), POSENC_OK) << posenc_last_error_message();
      EXPECT_EQ(count_poison(gx) + count_poison(gw) + count_poison(gom), 0u);
      const double h = 1e-5;
      // grad_x: only row i depends on x_i
      std::vector<double> rx(size_t(n) * d);
      for (int64_t i = 0; i < n; ++i)
        for (int c = 0; c < d; ++c) {
          std::vector<double> xp(x64.begin() + i * d, x64.begin() + (i + 1) * d), xm = xp;
          xp[c] += h; xm[c] -= h;
          rx[i * d + c] = (feat_loss_row(kind, om64, w64, xp.data(), m, d, &g[i * F]) -
                           feat_loss_row(kind, om64, w64, xm.data(), m, d, &g[i * F])) / (2 * h);
        }
      auto full = [&](const std::vector<double>& o, const std::vector<double>& ww) {
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += feat_loss_row(kind, o, ww, &x64[i * d], m, d, &g[i * F]);
        return s;
      };
      std::vector<double> rw(m), ro(size_t(m) * d);
      for (int j = 0; j < m; ++j) {  // the loss is linear in w_j: the gradient at any w
        auto wp = w64, wm = w64;
        wp[j] += 0.5; wm[j] -= 0.5;
        rw[j] = full(om64, wp) - full(om64, wm);
      }
      for (size_t e = 0; e < ro.size(); ++e) {
        auto op = om64, omn = om64;
        op[e] += h; omn[e] -= h;
        ro[e] = (full(op, w64) - full(omn, w64)) / (2 * h);
      }
      auto cmp = [&](const std::vector<float>& got, const std::vector<double>& ref, const char* what) {
        const double tol = 1e-4 * max_abs(ref) + 1e-6;
        for (size_t e = 0; e < got.size(); ++e) {
          worst = std::max(worst, std::fabs(got[e] - ref[e]) / (max_abs(ref) + 1e-300));
          ASSERT_NEAR(got[e], ref[e], tol) << what << " kind " << kk << " weights " << (w != nullptr) << " e " << e;
        }
      };
      cmp(gx, rx, "grad_x");
      cmp(gw, rw, "grad_weights");
      cmp(gom, ro, "grad_omega");
      // each output alone gives the same bits; 1, 2, 3 threads too
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        std::vector<float> gx2(gx.size()), gw2(gw.size()), go2(gom.size());
        ASSERT_EQ(posenc_rf_features_backward_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, w, x.data(), n,
                                                  g.data(), gx2.data(), nullptr, nullptr), POSENC_OK);
        ASSERT_EQ(posenc_rf_features_backward_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, w, x.data(), n,
                                                  g.data(), nullptr, gw2.data(), go2.data()), POSENC_OK);
        EXPECT_TRUE(same_bits(gx, gx2) && same_bits(gw, gw2) && same_bits(gom, go2)) << kk << " threads " << threads;
      }
    }
  }
  std::printf("[features backward] max abs err / max |ref| vs float64 central differences %.2e\n", worst);
}

TEST_P(FeaturesBackward, RowMaxShiftGradientIsTheRowScaledExactGradient) {
  // ROW_MAX treats c_i as a constant: grad_x row i = e^{-c_i} x the OVERFLOW (exact) row.
  const int d = 9, m = 24;
  const int64_t n = 20;
  auto om = sample(POSENC_RF_ORTHOGONAL, d, m, 1.0, 51);
  auto x = randn(size_t(n) * d, 0.5, 52), g = randn(size_t(n) * m, 1.0, 53);
  std::vector<float> g0(size_t(n) * d), g1(size_t(n) * d), f0(size_t(n) * m), f1(size_t(n) * m);
  ASSERT_EQ(posenc_rf_features_backward_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr,
                                            x.data(), n, g.data(), g0.data(), nullptr, nullptr), POSENC_OK);
  ASSERT_EQ(posenc_rf_features_backward_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_ROW_MAX, om.data(), m, d, nullptr,
                                            x.data(), n, g.data(), g1.data(), nullptr, nullptr), POSENC_OK);
  ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, x.data(), n, f0.data()), POSENC_OK);
  ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_ROW_MAX, om.data(), m, d, nullptr, x.data(), n, f1.data()), POSENC_OK);
  for (int64_t i = 0; i < n; ++i) {
    const double ratio = double(f1[i * m]) / f0[i * m];
    double rmax = 0;
    for (int c = 0; c < d; ++c) rmax = std::max(rmax, std::fabs(ratio * g0[i * d + c]));
    for (int c = 0; c < d; ++c) EXPECT_NEAR(g1[i * d + c], ratio * g0[i * d + c], 1e-4 * rmax) << "row " << i;
  }
}

/// float64 loss sum_i go_i . out_i of linear attention (running prefix sums for causal).
double lin_loss64(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v, int64_t n,
                  int F, int dv, bool causal, double eps, const std::vector<float>& go) {
  std::vector<double> S(size_t(F) * dv, 0.0), z(F, 0.0);
  auto add = [&](int64_t j) {
    for (int f = 0; f < F; ++f) {
      z[f] += k[j * F + f];
      for (int c = 0; c < dv; ++c) S[size_t(f) * dv + c] += k[j * F + f] * v[j * dv + c];
    }
  };
  if (!causal) for (int64_t j = 0; j < n; ++j) add(j);
  double loss = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (causal) add(i);
    double den = eps;
    for (int f = 0; f < F; ++f) den += q[i * F + f] * z[f];
    for (int c = 0; c < dv; ++c) {
      double num = 0;
      for (int f = 0; f < F; ++f) num += q[i * F + f] * S[size_t(f) * dv + c];
      loss += go[i * dv + c] * num / den;
    }
  }
  return loss;
}

TEST_P(FeaturesBackward, LinearAttentionGradientsMatchFloat64FiniteDifferencesCausalAndNot) {
  // causal backward: 64-row chunks in blocks of 8 chunks. 300: five chunks of one block (the
  // running sums cross chunks); 1100: three blocks, the last one partial (the block scans)
  for (int64_t n : {5, 300, 1100}) {
    const int F = 8, dv = 5;
    auto q = uniform01(size_t(n) * F, 61), k = uniform01(size_t(n) * F, 62);
    for (auto* a : {&q, &k}) for (auto& e : *a) e = 0.1f + e;
    auto v = randn(size_t(n) * dv, 1.0, 63), go = randn(size_t(n) * dv, 1.0, 64);
    const float eps = 1e-3f;
    for (int causal : {0, 1}) {
      std::vector<float> gq(size_t(n) * F), gk(size_t(n) * F), gv(size_t(n) * dv);
      poison(gq); poison(gk); poison(gv);
      ASSERT_EQ(posenc_linear_attention_backward_f32(q.data(), k.data(), v.data(), n, F, dv, causal, eps, go.data(),
                                                     gq.data(), gk.data(), gv.data()), POSENC_OK)
          << posenc_last_error_message();
      EXPECT_EQ(count_poison(gq) + count_poison(gk) + count_poison(gv), 0u);
      auto q64 = to64(q), k64 = to64(k), v64 = to64(v);
      std::mt19937_64 pick(7 + n + causal);
      double worst = 0;
      auto fd = [&](std::vector<double>& arr, const std::vector<float>& got, const char* what) {
        std::uniform_int_distribution<size_t> u(0, arr.size() - 1);
        for (int t = 0; t < 60; ++t) {
          const size_t e = t < 3 ? arr.size() - 1 - size_t(t) : u(pick);  // the last rows too
          const double x0 = arr[e], h = 1e-5;
          arr[e] = x0 + h;
          const double lp = lin_loss64(q64, k64, v64, n, F, dv, causal, eps, go);
          arr[e] = x0 - h;
          const double lm = lin_loss64(q64, k64, v64, n, F, dv, causal, eps, go);
          arr[e] = x0;
          const double ref = (lp - lm) / (2 * h);
          worst = std::max(worst, std::fabs(got[e] - ref) / (1 + std::fabs(ref)));
          ASSERT_NEAR(got[e], ref, 2e-4 * (1 + std::fabs(ref))) << what << " n " << n << " causal " << causal << " e " << e;
        }
      };
      fd(q64, gq, "grad_phi_q");
      fd(k64, gk, "grad_phi_k");
      fd(v64, gv, "grad_v");
      std::printf("[linear backward] n=%lld causal=%d max err/(1+|ref|) vs float64 central differences %.2e\n",
                  (long long)n, causal, worst);
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        std::vector<float> a(gq.size()), b(gk.size()), c(gv.size());
        ASSERT_EQ(posenc_linear_attention_backward_f32(q.data(), k.data(), v.data(), n, F, dv, causal, eps, go.data(),
                                                       a.data(), b.data(), c.data()), POSENC_OK);
        EXPECT_TRUE(same_bits(a, gq) && same_bits(b, gk) && same_bits(c, gv)) << threads;
      }
    }
  }
}

TEST_P(FeaturesBackward, BadInputWritesNothingAndNamesTheArgument) {
  const int d = 4, m = 8;
  const int64_t n = 3;
  auto om = sample(POSENC_RF_IID, d, m, 1.0, 1);
  std::vector<float> x(n * d, 0.1f), g(n * 2 * m, 1.0f), gx(n * d), gw(m), go(m * d);
  poison(gx); poison(gw); poison(go);
  auto fb = [&](posenc_rf_kind kind, int shift, const float* o, int mm, const float* xx, const float* gg, float* a, float* b,
                float* c) {
    return posenc_rf_features_backward_f32(kind, static_cast<posenc_rf_shift>(shift), o, mm, d, nullptr, xx, n, gg, a, b, c);
  };
  EXPECT_POSENC_ERROR(fb(static_cast<posenc_rf_kind>(9), 0, om.data(), m, x.data(), g.data(), gx.data(), gw.data(), go.data()), POSENC_ERR_INVALID_ARGUMENT, "kind");
  EXPECT_POSENC_ERROR(fb(POSENC_RF_TRIG, 7, om.data(), m, x.data(), g.data(), gx.data(), gw.data(), go.data()), POSENC_ERR_INVALID_ARGUMENT, "shift");
  EXPECT_POSENC_ERROR(fb(POSENC_RF_TRIG, 0, om.data(), 0, x.data(), g.data(), gx.data(), gw.data(), go.data()), POSENC_ERR_INVALID_ARGUMENT, "m");
  EXPECT_POSENC_ERROR(fb(POSENC_RF_TRIG, 0, om.data(), m, x.data(), nullptr, gx.data(), gw.data(), go.data()), POSENC_ERR_NULL_POINTER, "grad_out");
  EXPECT_POSENC_ERROR(fb(POSENC_RF_TRIG, 0, om.data(), m, nullptr, g.data(), gx.data(), gw.data(), go.data()), POSENC_ERR_NULL_POINTER, "x");
  EXPECT_POSENC_ERROR(fb(POSENC_RF_TRIG, 0, om.data(), m, x.data(), g.data(), nullptr, nullptr, nullptr), POSENC_ERR_NULL_POINTER, "grad_x");
  auto bad = om;
  bad[3] = NAN;
  EXPECT_POSENC_ERROR(fb(POSENC_RF_TRIG, 0, bad.data(), m, x.data(), g.data(), gx.data(), gw.data(), go.data()), POSENC_ERR_INVALID_ARGUMENT, "omega");
  EXPECT_EQ(count_poison(gx) + count_poison(gw) + count_poison(go), gx.size() + gw.size() + go.size());
  const int F = 3, dv = 2;
  std::vector<float> a(n * F, 0.5f), v(n * dv, 1.0f), god(n * dv, 1.0f), ga(n * F), gb(n * F), gv(n * dv);
  poison(ga); poison(gb); poison(gv);
  auto lb = [&](int64_t nn, int ff, float eps, const float* gout, float* x1, float* x2, float* x3) {
    return posenc_linear_attention_backward_f32(a.data(), a.data(), v.data(), nn, ff, dv, 1, eps, gout, x1, x2, x3);
  };
  EXPECT_POSENC_ERROR(lb(-1, F, 0, god.data(), ga.data(), gb.data(), gv.data()), POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(lb(n, 0, 0, god.data(), ga.data(), gb.data(), gv.data()), POSENC_ERR_INVALID_ARGUMENT, "F");
  EXPECT_POSENC_ERROR(lb(n, F, -1, god.data(), ga.data(), gb.data(), gv.data()), POSENC_ERR_INVALID_ARGUMENT, "eps");
  EXPECT_POSENC_ERROR(lb(n, F, 0, nullptr, ga.data(), gb.data(), gv.data()), POSENC_ERR_NULL_POINTER, "grad_out");
  EXPECT_POSENC_ERROR(lb(n, F, 0, god.data(), nullptr, gb.data(), gv.data()), POSENC_ERR_NULL_POINTER, "grad_phi_q");
  EXPECT_POSENC_ERROR(lb(n, F, 0, god.data(), ga.data(), nullptr, gv.data()), POSENC_ERR_NULL_POINTER, "grad_phi_k");
  EXPECT_POSENC_ERROR(lb(n, F, 0, god.data(), ga.data(), gb.data(), nullptr), POSENC_ERR_NULL_POINTER, "grad_v");
  EXPECT_EQ(count_poison(ga) + count_poison(gb) + count_poison(gv), ga.size() + gb.size() + gv.size());
  EXPECT_EQ(posenc_linear_attention_backward_f32(nullptr, nullptr, nullptr, 0, F, dv, 1, 0, nullptr, nullptr, nullptr, nullptr), POSENC_OK);
}

POSENC_INSTANTIATE_ISA(FeaturesBackward);

}  // namespace

namespace {
/// float64 loss sum_i go_i . softmax-attention out_i.
double softmax_loss64(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                      int64_t n, int d, int dv, bool causal, double scale, const std::vector<float>& go) {
  double loss = 0;
  std::vector<double> s(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t jn = causal ? i + 1 : n;
    double mx = -INFINITY;
    for (int64_t j = 0; j < jn; ++j) {
      double t = 0;
      for (int c = 0; c < d; ++c) t += q[i * d + c] * k[j * d + c];
      s[size_t(j)] = scale * t;
      mx = std::max(mx, s[size_t(j)]);
    }
    double l = 0;
    for (int64_t j = 0; j < jn; ++j) { s[size_t(j)] = std::exp(s[size_t(j)] - mx); l += s[size_t(j)]; }
    for (int c = 0; c < dv; ++c) {
      double a = 0;
      for (int64_t j = 0; j < jn; ++j) a += s[size_t(j)] * v[j * dv + c];
      loss += go[i * dv + c] * a / l;
    }
  }
  return loss;
}

class FeaturesSoftmaxBackward : public IsaTest {};

TEST_P(FeaturesSoftmaxBackward, GradientsMatchFloat64FiniteDifferencesCausalAndNot) {
  for (int64_t n : {3, 300}) {  // 300: 5 query blocks, 2 key blocks
    const int d = 6, dv = 5;
    auto q = randn(size_t(n) * d, 0.8, 71), k = randn(size_t(n) * d, 0.8, 72), v = randn(size_t(n) * dv, 1.0, 73);
    auto go = randn(size_t(n) * dv, 1.0, 74);
    const float scale = 0.7f;
    for (int causal : {0, 1}) {
      std::vector<float> gq(size_t(n) * d), gk(size_t(n) * d), gv(size_t(n) * dv);
      poison(gq); poison(gk); poison(gv);
      ASSERT_EQ(posenc_softmax_attention_backward_f32(q.data(), k.data(), v.data(), n, d, dv, causal, scale, go.data(),
                                                      gq.data(), gk.data(), gv.data()), POSENC_OK)
          << posenc_last_error_message();
      EXPECT_EQ(count_poison(gq) + count_poison(gk) + count_poison(gv), 0u);
      auto q64 = to64(q), k64 = to64(k), v64 = to64(v);
      std::mt19937_64 pick(17 + n + causal);
      double worst = 0;
      auto fd = [&](std::vector<double>& arr, const std::vector<float>& got, const char* what) {
        std::uniform_int_distribution<size_t> u(0, arr.size() - 1);
        for (int t = 0; t < 25; ++t) {
          const size_t e = t < 2 ? arr.size() - 1 - size_t(t) : (t < 4 ? size_t(t - 2) : u(pick));
          const double x0 = arr[e], h = 1e-5;
          arr[e] = x0 + h;
          const double lp = softmax_loss64(q64, k64, v64, n, d, dv, causal, scale, go);
          arr[e] = x0 - h;
          const double lm = softmax_loss64(q64, k64, v64, n, d, dv, causal, scale, go);
          arr[e] = x0;
          const double ref = (lp - lm) / (2 * h);
          worst = std::max(worst, std::fabs(got[e] - ref) / (1 + std::fabs(ref)));
          ASSERT_NEAR(got[e], ref, 2e-4 * (1 + std::fabs(ref))) << what << " n " << n << " causal " << causal << " e " << e;
        }
      };
      fd(q64, gq, "grad_q");
      fd(k64, gk, "grad_k");
      fd(v64, gv, "grad_v");
      std::printf("[softmax backward] n=%lld causal=%d max err/(1+|ref|) vs float64 central differences %.2e\n",
                  (long long)n, causal, worst);
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        std::vector<float> a(gq.size()), b(gk.size()), c(gv.size());
        ASSERT_EQ(posenc_softmax_attention_backward_f32(q.data(), k.data(), v.data(), n, d, dv, causal, scale, go.data(),
                                                        a.data(), b.data(), c.data()), POSENC_OK);
        EXPECT_TRUE(same_bits(a, gq) && same_bits(b, gk) && same_bits(c, gv)) << threads;
      }
    }
  }
}

TEST_P(FeaturesSoftmaxBackward, BadInputWritesNothingAndNamesTheArgument) {
  const int64_t n = 4;
  const int d = 3, dv = 2;
  std::vector<float> a(n * d, 0.5f), v(n * dv, 1.0f), go(n * dv, 1.0f), gq(n * d), gk(n * d), gv(n * dv);
  poison(gq); poison(gk); poison(gv);
  auto sb = [&](int64_t nn, int dd, float sc, const float* g, float* x1, float* x2, float* x3) {
    return posenc_softmax_attention_backward_f32(a.data(), a.data(), v.data(), nn, dd, dv, 1, sc, g, x1, x2, x3);
  };
  EXPECT_POSENC_ERROR(sb(-1, d, 1, go.data(), gq.data(), gk.data(), gv.data()), POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(sb(n, 0, 1, go.data(), gq.data(), gk.data(), gv.data()), POSENC_ERR_INVALID_ARGUMENT, "d");
  EXPECT_POSENC_ERROR(sb(n, d, NAN, go.data(), gq.data(), gk.data(), gv.data()), POSENC_ERR_INVALID_ARGUMENT, "scale");
  EXPECT_POSENC_ERROR(sb(n, d, 1, nullptr, gq.data(), gk.data(), gv.data()), POSENC_ERR_NULL_POINTER, "grad_out");
  EXPECT_POSENC_ERROR(sb(n, d, 1, go.data(), nullptr, gk.data(), gv.data()), POSENC_ERR_NULL_POINTER, "grad_q");
  EXPECT_POSENC_ERROR(sb(n, d, 1, go.data(), gq.data(), nullptr, gv.data()), POSENC_ERR_NULL_POINTER, "grad_k");
  EXPECT_POSENC_ERROR(sb(n, d, 1, go.data(), gq.data(), gk.data(), nullptr), POSENC_ERR_NULL_POINTER, "grad_v");
  EXPECT_EQ(count_poison(gq) + count_poison(gk) + count_poison(gv), gq.size() + gk.size() + gv.size());
  EXPECT_EQ(posenc_softmax_attention_backward_f32(nullptr, nullptr, nullptr, 0, d, dv, 0, 1, nullptr, nullptr, nullptr, nullptr), POSENC_OK);
}

POSENC_INSTANTIATE_ISA(FeaturesSoftmaxBackward);
}  // namespace

namespace {
class FeaturesDecoding : public IsaTest {};

TEST_P(FeaturesDecoding, StepsReproduceCausalLinearAttentionRowByRow) {
  const int64_t n = 300;
  const int F = 24, dv = 7;
  auto q = uniform01(size_t(n) * F, 81), k = uniform01(size_t(n) * F, 82);
  auto v = randn(size_t(n) * dv, 1.0, 83);
  std::vector<float> ref(size_t(n) * dv);
  ASSERT_EQ(posenc_linear_attention_f32(q.data(), k.data(), v.data(), n, F, dv, 1, 1e-6f, ref.data()), POSENC_OK);
  std::vector<float> S(size_t(F) * dv, 0.0f), z(F, 0.0f), out(dv);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    poison(out);
    ASSERT_EQ(posenc_linear_attention_step_f32(&q[i * F], &k[i * F], &v[i * dv], F, dv, 1e-6f, S.data(), z.data(), out.data()),
              POSENC_OK) << posenc_last_error_message();
    for (int c = 0; c < dv; ++c) worst = std::max(worst, std::fabs(double(out[c]) - ref[i * dv + c]));
  }
  EXPECT_LE(worst, 2e-5);
  std::printf("[decoding] max abs diff of %lld steps vs causal linear attention %.2e\n", (long long)n, worst);
  // bad input writes nothing
  auto S0 = S, z0 = z;
  poison(out);
  EXPECT_POSENC_ERROR(posenc_linear_attention_step_f32(q.data(), k.data(), v.data(), 0, dv, 0.0f, S.data(), z.data(), out.data()), POSENC_ERR_INVALID_ARGUMENT, "F");
  EXPECT_POSENC_ERROR(posenc_linear_attention_step_f32(q.data(), k.data(), v.data(), F, dv, NAN, S.data(), z.data(), out.data()), POSENC_ERR_INVALID_ARGUMENT, "eps");
  EXPECT_POSENC_ERROR(posenc_linear_attention_step_f32(q.data(), k.data(), v.data(), F, dv, 0.0f, nullptr, z.data(), out.data()), POSENC_ERR_NULL_POINTER, "state_s");
  EXPECT_POSENC_ERROR(posenc_linear_attention_step_f32(q.data(), k.data(), v.data(), F, dv, 0.0f, S.data(), z.data(), nullptr), POSENC_ERR_NULL_POINTER, "out");
  EXPECT_TRUE(same_bits(S, S0) && same_bits(z, z0));
  EXPECT_EQ(count_poison(out), out.size());
}

POSENC_INSTANTIATE_ISA(FeaturesDecoding);
}  // namespace
