// SPDX-License-Identifier: Apache-2.0 OR MIT
// features family tests, the training-side options of the feature maps and linear attention:
// the elementwise kinds POSENC_RF_ELU_PLUS_ONE and POSENC_RF_RELU (forward against a float64
// evaluation of the same formula, backward against float64 central differences) and the
// unnormalized linear attention (POSENC_LINEAR_UNNORMALIZED: forward against float64, backward
// against float64 central differences, the decoding step with state_z = NULL), every ISA path,
// bitwise determinism over thread counts, argument validation.
#include "tests/test_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

using namespace posenc_test;

namespace {

std::vector<float> randn(size_t n, double sd, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(g(rng));
  return v;
}

std::vector<double> to64(const std::vector<float>& a) { return std::vector<double>(a.begin(), a.end()); }

double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

/// float64 elementwise feature: elu(p) + 1 or relu(p).
double elem64(posenc_rf_kind kind, double p) {
  if (kind == POSENC_RF_ELU_PLUS_ONE) return p > 0 ? p + 1.0 : std::exp(p);
  return p > 0 ? p : 0.0;
}

/// float64 map of rows x [n, d] (double) with omega [m, d] and weights w [m].
std::vector<double> map64(posenc_rf_kind kind, const std::vector<double>& om, const std::vector<double>& w,
                          const std::vector<double>& x, int64_t n, int m, int d) {
  std::vector<double> out(size_t(n) * m);
  for (int64_t i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      double p = 0;
      for (int c = 0; c < d; ++c) p += om[size_t(j) * d + c] * x[size_t(i) * d + c];
      out[size_t(i) * m + j] = w[size_t(j)] * elem64(kind, p);
    }
  return out;
}

const posenc_rf_kind kElemKinds[] = {POSENC_RF_ELU_PLUS_ONE, POSENC_RF_RELU};

class FeaturesKinds : public IsaTest {};

TEST_P(FeaturesKinds, EluAndReluMatchFloat64WithWeightsAndIdentityOmega) {
  for (int d : {13, 64}) {
    for (int m : {d, 50}) {  // m = d with Omega = I: fast-transformers' elu_feature_map of x itself
      const int64_t n = 37;
      std::vector<float> om;
      if (m == d) {
        om.assign(size_t(m) * d, 0.0f);
        for (int j = 0; j < d; ++j) om[size_t(j) * d + j] = 1.0f;
      } else {
        om = randn(size_t(m) * d, 1.0 / std::sqrt(double(d)), 5 + d);
      }
      auto x = randn(size_t(n) * d, 1.5, 99 + d + m);
      std::vector<float> wts(static_cast<size_t>(m));
      for (int j = 0; j < m; ++j) wts[size_t(j)] = (j % 7 == 0) ? 0.0f : 0.25f + 0.01f * j;
      for (auto kind : kElemKinds)
        for (const float* w : {static_cast<const float*>(nullptr), static_cast<const float*>(wts.data())}) {
          std::vector<float> out(size_t(n) * m);
          poison(out);
          ASSERT_EQ(posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, w, x.data(), n, out.data()),
                    POSENC_OK) << posenc_last_error_message();
          EXPECT_EQ(count_poison(out), 0u);
          const std::vector<double> w64 = w ? to64(wts) : std::vector<double>(size_t(m), 1.0);
          const auto ref = map64(kind, to64(om), w64, to64(x), n, m, d);
          for (int64_t i = 0; i < n; ++i)
            for (int j = 0; j < m; ++j) {
              double xo = 0;  // |x_i| |omega_j|: the scale of the float32 projection's rounding
              double xn = 0, on = 0;
              for (int c = 0; c < d; ++c) {
                xn += double(x[size_t(i) * d + c]) * x[size_t(i) * d + c];
                on += double(om[size_t(j) * d + c]) * om[size_t(j) * d + c];
              }
              xo = std::sqrt(xn * on);
              const size_t e = size_t(i) * m + j;
              ASSERT_NEAR(out[e], ref[e], 1e-6 * (1 + xo) * (w ? wts[size_t(j)] + 1e-30 : 1.0) + 1e-7 * std::fabs(ref[e]))
                  << "kind " << kind << " d " << d << " m " << m << " i " << i << " j " << j;
            }
          // the shift argument is ignored by these kinds; 1, 2, 3 threads give the same bits
          for (auto sh : {POSENC_RF_SHIFT_ROW_MAX, POSENC_RF_SHIFT_SHARED_MAX})
            for (int threads : {1, 2, 3}) {
              ThreadScope ts(threads);
              std::vector<float> again(out.size());
              ASSERT_EQ(posenc_rf_features_f32(kind, sh, om.data(), m, d, w, x.data(), n, again.data()), POSENC_OK);
              EXPECT_TRUE(same_bits(out, again)) << threads;
            }
        }
    }
  }
}

TEST_P(FeaturesKinds, EluAndReluGradientsMatchFloat64FiniteDifferences) {
  const int d = 7, m = 20;
  const int64_t n = 300;  // two 256-row tiles
  auto om = randn(size_t(m) * d, 1.0, 41);
  auto x = randn(size_t(n) * d, 0.6, 42);
  std::vector<float> wts(static_cast<size_t>(m));
  for (int j = 0; j < m; ++j) wts[size_t(j)] = 0.3f + 0.05f * j;
  const auto om64 = to64(om), x64 = to64(x);
  double worst = 0;
  for (auto kind : kElemKinds) {
    auto g = randn(size_t(n) * m, 1.0, 43 + kind);
    for (const float* w : {static_cast<const float*>(nullptr), static_cast<const float*>(wts.data())}) {
      const std::vector<double> w64 = w ? to64(wts) : std::vector<double>(size_t(m), 1.0);
      std::vector<float> gx(size_t(n) * d), gw(static_cast<size_t>(m)), gom(size_t(m) * d);
      poison(gx); poison(gw); poison(gom);
      ASSERT_EQ(posenc_rf_features_backward_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, w, x.data(), n,
                                                g.data(), gx.data(), gw.data(), gom.data()), POSENC_OK)
          << posenc_last_error_message();
      EXPECT_EQ(count_poison(gx) + count_poison(gw) + count_poison(gom), 0u);
      auto loss = [&](const std::vector<double>& o, const std::vector<double>& ww, const std::vector<double>& xx) {
        const auto f = map64(kind, o, ww, xx, n, m, d);
        double s = 0;
        for (size_t e = 0; e < f.size(); ++e) s += double(g[e]) * f[e];
        return s;
      };
      const double h = 1e-6;  // ReLU's kink: no p_ij of these inputs lies within h |x| of 0
      std::vector<double> rx(size_t(n) * d), rw(static_cast<size_t>(m)), ro(size_t(m) * d);
      for (size_t e = 0; e < rx.size(); e += 7) {  // a subset of grad_x (every 7th entry)
        auto xp = x64, xm = x64;
        xp[e] += h; xm[e] -= h;
        rx[e] = (loss(om64, w64, xp) - loss(om64, w64, xm)) / (2 * h);
      }
      for (int j = 0; j < m; ++j) {  // linear in w_j
        auto wp = w64, wm = w64;
        wp[size_t(j)] += 0.5; wm[size_t(j)] -= 0.5;
        rw[size_t(j)] = loss(om64, wp, x64) - loss(om64, wm, x64);
      }
      for (size_t e = 0; e < ro.size(); ++e) {
        auto op = om64, omn = om64;
        op[e] += h; omn[e] -= h;
        ro[e] = (loss(op, w64, x64) - loss(omn, w64, x64)) / (2 * h);
      }
      auto cmp = [&](const std::vector<float>& got, const std::vector<double>& ref, size_t step, const char* what) {
        const double tol = 1e-4 * max_abs(ref) + 1e-5;
        for (size_t e = 0; e < got.size(); e += step) {
          worst = std::max(worst, std::fabs(got[e] - ref[e]) / (max_abs(ref) + 1e-300));
          ASSERT_NEAR(got[e], ref[e], tol) << what << " kind " << kind << " weights " << (w != nullptr) << " e " << e;
        }
      };
      cmp(gx, rx, 7, "grad_x");
      cmp(gw, rw, 1, "grad_weights");
      cmp(gom, ro, 1, "grad_omega");
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        std::vector<float> gx2(gx.size()), gw2(gw.size()), go2(gom.size());
        ASSERT_EQ(posenc_rf_features_backward_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, w, x.data(), n,
                                                  g.data(), gx2.data(), gw2.data(), go2.data()), POSENC_OK);
        EXPECT_TRUE(same_bits(gx, gx2) && same_bits(gw, gw2) && same_bits(gom, go2)) << threads;
      }
    }
  }
  std::printf("[elu/relu backward] max abs err / max |ref| vs float64 central differences %.2e\n", worst);
}

TEST_P(FeaturesKinds, EluFeaturesThroughLinearAttentionMatchFloat64) {
  // fast-transformers' LinearAttention: phi = elu(x) + 1 of queries and keys, eps = 1e-6
  const int64_t n = 300;
  const int d = 16, dv = 8;
  std::vector<float> eye(size_t(d) * d, 0.0f);
  for (int j = 0; j < d; ++j) eye[size_t(j) * d + j] = 1.0f;
  auto q = randn(size_t(n) * d, 1.0, 7), k = randn(size_t(n) * d, 1.0, 8), v = randn(size_t(n) * dv, 1.0, 9);
  std::vector<float> pq(size_t(n) * d), pk(size_t(n) * d), out(size_t(n) * dv);
  ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_ELU_PLUS_ONE, POSENC_RF_SHIFT_OVERFLOW, eye.data(), d, d, nullptr, q.data(),
                                   n, pq.data()), POSENC_OK);
  ASSERT_EQ(posenc_rf_features_f32(POSENC_RF_ELU_PLUS_ONE, POSENC_RF_SHIFT_OVERFLOW, eye.data(), d, d, nullptr, k.data(),
                                   n, pk.data()), POSENC_OK);
  for (int causal : {0, 1}) {
    ASSERT_EQ(posenc_linear_attention_f32(pq.data(), pk.data(), v.data(), n, d, dv, causal, 1e-6f, out.data()), POSENC_OK);
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      std::vector<double> num(size_t(dv), 0.0);
      double den = 0;
      for (int64_t j = 0; j < (causal ? i + 1 : n); ++j) {
        double a = 0;
        for (int c = 0; c < d; ++c) a += elem64(POSENC_RF_ELU_PLUS_ONE, q[size_t(i * d + c)]) *
                                         elem64(POSENC_RF_ELU_PLUS_ONE, k[size_t(j * d + c)]);
        den += a;
        for (int c = 0; c < dv; ++c) num[size_t(c)] += a * v[size_t(j * dv + c)];
      }
      for (int c = 0; c < dv; ++c) worst = std::max(worst, std::fabs(out[size_t(i * dv + c)] - num[size_t(c)] / (den + 1e-6)));
    }
    EXPECT_LE(worst, 2e-5) << causal;
    std::printf("[elu+1 linear attention] causal=%d max abs err vs float64 %.2e\n", causal, worst);
  }
}

TEST_P(FeaturesKinds, BadKindWritesNothing) {
  const int d = 4, m = 8, n = 3;
  auto om = randn(size_t(m) * d, 1.0, 1), x = randn(size_t(n) * d, 1.0, 2);
  std::vector<float> out(size_t(n) * 2 * m);
  poison(out);
  EXPECT_POSENC_ERROR(posenc_rf_features_f32(static_cast<posenc_rf_kind>(6), POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d,
                                             nullptr, x.data(), n, out.data()), POSENC_ERR_INVALID_ARGUMENT, "kind");
  EXPECT_EQ(count_poison(out), out.size());
}

POSENC_INSTANTIATE_ISA(FeaturesKinds);

// ------------------------------------------------------------------ unnormalized linear attention
/// float64 loss sum_i go_i . out_i of the unnormalized linear attention out_i = sum_j (q_i . k_j) v_j.
double unnorm_loss64(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                     int64_t n, int F, int dv, bool causal, const std::vector<float>& go, std::vector<double>* out) {
  double loss = 0;
  if (!out) {  // loss = sum_{i, j in i's sum} (q_i . k_j) (go_i . v_j): O(n^2 (F + dv))
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < (causal ? i + 1 : n); ++j) {
        double a = 0, b = 0;
        for (int f = 0; f < F; ++f) a += q[size_t(i * F + f)] * k[size_t(j * F + f)];
        for (int c = 0; c < dv; ++c) b += double(go[size_t(i * dv + c)]) * v[size_t(j * dv + c)];
        loss += a * b;
      }
    return loss;
  }
  out->assign(size_t(n) * dv, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < (causal ? i + 1 : n); ++j) {
      double a = 0;
      for (int f = 0; f < F; ++f) a += q[size_t(i * F + f)] * k[size_t(j * F + f)];
      for (int c = 0; c < dv; ++c) (*out)[size_t(i * dv + c)] += a * v[size_t(j * dv + c)];
    }
  return loss;
}

class FeaturesUnnormalized : public IsaTest {};

TEST_P(FeaturesUnnormalized, ForwardBackwardAndStepMatchFloat64) {
  for (int64_t n : {5, 300}) {  // 300: three 128-row chunks (causal)
    const int F = 8, dv = 5;
    auto q = randn(size_t(n) * F, 0.3, 61), k = randn(size_t(n) * F, 0.3, 62);  // signed features too
    auto v = randn(size_t(n) * dv, 1.0, 63), go = randn(size_t(n) * dv, 1.0, 64);
    auto q64 = to64(q), k64 = to64(k), v64 = to64(v);
    for (int causal : {0, 1}) {
      const int32_t flags = (causal ? POSENC_LINEAR_CAUSAL : 0) | POSENC_LINEAR_UNNORMALIZED;
      std::vector<float> out(size_t(n) * dv);
      poison(out);
      ASSERT_EQ(posenc_linear_attention_f32(q.data(), k.data(), v.data(), n, F, dv, flags, 0.5f, out.data()), POSENC_OK)
          << posenc_last_error_message();
      std::vector<double> ref;
      unnorm_loss64(q64, k64, v64, n, F, dv, causal != 0, go, &ref);
      const double scale = max_abs(ref);
      double worst = 0;
      for (size_t e = 0; e < out.size(); ++e) worst = std::max(worst, std::fabs(out[e] - ref[e]));
      EXPECT_LE(worst, 2e-6 * (1 + scale)) << "n " << n << " causal " << causal;
      // backward
      std::vector<float> gq(size_t(n) * F), gk(size_t(n) * F), gv(size_t(n) * dv);
      poison(gq); poison(gk); poison(gv);
      ASSERT_EQ(posenc_linear_attention_backward_f32(q.data(), k.data(), v.data(), n, F, dv, flags, 0.5f, go.data(),
                                                     gq.data(), gk.data(), gv.data()), POSENC_OK)
          << posenc_last_error_message();
      EXPECT_EQ(count_poison(gq) + count_poison(gk) + count_poison(gv), 0u);
      std::mt19937_64 pick(7 + n + causal);
      double worst_g = 0;
      auto fd = [&](std::vector<double>& arr, const std::vector<float>& got, const char* what) {
        std::uniform_int_distribution<size_t> u(0, arr.size() - 1);
        for (int t = 0; t < 20; ++t) {
          const size_t e = t < 3 ? arr.size() - 1 - size_t(t) : u(pick);
          const double x0 = arr[e], h = 1e-4;  // the loss is bilinear: central differences are exact
          arr[e] = x0 + h;
          const double lp = unnorm_loss64(q64, k64, v64, n, F, dv, causal != 0, go, nullptr);
          arr[e] = x0 - h;
          const double lm = unnorm_loss64(q64, k64, v64, n, F, dv, causal != 0, go, nullptr);
          arr[e] = x0;
          const double r = (lp - lm) / (2 * h);
          worst_g = std::max(worst_g, std::fabs(got[e] - r) / (1 + std::fabs(r)));
          ASSERT_NEAR(got[e], r, 1e-4 * (1 + std::fabs(r))) << what << " n " << n << " causal " << causal << " e " << e;
        }
      };
      fd(q64, gq, "grad_phi_q");
      fd(k64, gk, "grad_phi_k");
      fd(v64, gv, "grad_v");
      std::printf("[unnormalized] n=%lld causal=%d forward max abs err %.2e (max |out| %.2f), backward max "
                  "err/(1+|ref|) vs float64 central differences %.2e\n", (long long)n, causal, worst, scale, worst_g);
      for (int threads : {1, 2, 3}) {
        ThreadScope ts(threads);
        std::vector<float> o2(out.size()), a(gq.size()), b(gk.size()), c(gv.size());
        ASSERT_EQ(posenc_linear_attention_f32(q.data(), k.data(), v.data(), n, F, dv, flags, 0.5f, o2.data()), POSENC_OK);
        ASSERT_EQ(posenc_linear_attention_backward_f32(q.data(), k.data(), v.data(), n, F, dv, flags, 0.5f, go.data(),
                                                       a.data(), b.data(), c.data()), POSENC_OK);
        EXPECT_TRUE(same_bits(o2, out) && same_bits(a, gq) && same_bits(b, gk) && same_bits(c, gv)) << threads;
      }
      // decoding with state_z = NULL reproduces the causal rows
      if (causal) {
        std::vector<float> S(size_t(F) * dv, 0.0f), o(static_cast<size_t>(dv));
        double wstep = 0;
        for (int64_t i = 0; i < n; ++i) {
          poison(o);
          ASSERT_EQ(posenc_linear_attention_step_f32(&q[size_t(i * F)], &k[size_t(i * F)], &v[size_t(i * dv)], F, dv,
                                                     0.5f, S.data(), nullptr, o.data()), POSENC_OK)
              << posenc_last_error_message();
          for (int c = 0; c < dv; ++c) wstep = std::max(wstep, std::fabs(double(o[size_t(c)]) - out[size_t(i * dv + c)]));
        }
        EXPECT_LE(wstep, 2e-6 * (1 + scale));
      }
    }
  }
}

TEST_P(FeaturesUnnormalized, BadFlagsWriteNothing) {
  const int64_t n = 4;
  const int F = 3, dv = 2;
  auto q = randn(size_t(n) * F, 1.0, 1), v = randn(size_t(n) * dv, 1.0, 2);
  std::vector<float> out(size_t(n) * dv), a(size_t(n) * F), b(size_t(n) * F), c(size_t(n) * dv);
  poison(out); poison(a); poison(b); poison(c);
  for (int32_t flags : {4, -1, 8 | POSENC_LINEAR_CAUSAL}) {
    EXPECT_POSENC_ERROR(posenc_linear_attention_f32(q.data(), q.data(), v.data(), n, F, dv, flags, 0.0f, out.data()),
                        POSENC_ERR_INVALID_ARGUMENT, "flags");
    EXPECT_POSENC_ERROR(posenc_linear_attention_backward_f32(q.data(), q.data(), v.data(), n, F, dv, flags, 0.0f,
                                                             v.data(), a.data(), b.data(), c.data()),
                        POSENC_ERR_INVALID_ARGUMENT, "flags");
  }
  EXPECT_EQ(count_poison(out) + count_poison(a) + count_poison(b) + count_poison(c),
            out.size() + a.size() + b.size() + c.size());
}

POSENC_INSTANTIATE_ISA(FeaturesUnnormalized);

// ------------------------------------------------------------------ bfloat16 storage
uint16_t to_bf16(float f) {  // round to nearest even (test-side reference, finite inputs)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t lsb = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7fffu + lsb) >> 16);
}
float from_bf16(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::vector<uint16_t> bf16_of(const std::vector<float>& a) {
  std::vector<uint16_t> r(a.size());
  for (size_t i = 0; i < a.size(); ++i) r[i] = to_bf16(a[i]);
  return r;
}

class FeaturesBf16 : public IsaTest {};

TEST_P(FeaturesBf16, OutputIsTheFloat32ResultOfTheWidenedInputsRoundedOnce) {
  const int d = 16, m = 40;
  const int64_t n = 300;
  auto om = randn(size_t(m) * d, 1.0 / 4, 3);
  const auto xb = bf16_of(randn(size_t(n) * d, 1.0, 4));
  std::vector<float> xw(xb.size());
  for (size_t i = 0; i < xb.size(); ++i) xw[i] = from_bf16(xb[i]);
  for (int kk = 0; kk < 6; ++kk) {
    const auto kind = static_cast<posenc_rf_kind>(kk);
    const int F = (kind == POSENC_RF_TRIG || kind == POSENC_RF_HYPERBOLIC) ? 2 * m : m;
    for (auto sh : {POSENC_RF_SHIFT_OVERFLOW, POSENC_RF_SHIFT_SHARED_MAX}) {
      std::vector<float> ref(size_t(n) * F);
      std::vector<uint16_t> out(size_t(n) * F, 0xdeadu);
      ASSERT_EQ(posenc_rf_features_f32(kind, sh, om.data(), m, d, nullptr, xw.data(), n, ref.data()), POSENC_OK);
      ASSERT_EQ(posenc_rf_features_bf16(kind, sh, om.data(), m, d, nullptr, xb.data(), n, out.data()), POSENC_OK)
          << posenc_last_error_message();
      for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], to_bf16(ref[i])) << "kind " << kk << " i " << i;
    }
  }
  // linear attention, causal / not, normalized / not; 1-3 threads
  const int F = 24, dv = 8;
  auto qb = bf16_of(randn(size_t(n) * F, 1.0, 5)), kb = bf16_of(randn(size_t(n) * F, 1.0, 6));
  for (auto* a : {&qb, &kb})
    for (auto& e : *a) e &= 0x7fffu;  // non-negative features
  const auto vb = bf16_of(randn(size_t(n) * dv, 1.0, 7));
  auto widen = [](const std::vector<uint16_t>& a) {
    std::vector<float> r(a.size());
    for (size_t i = 0; i < a.size(); ++i) r[i] = from_bf16(a[i]);
    return r;
  };
  const auto qw = widen(qb), kw = widen(kb), vw = widen(vb);
  for (int32_t flags : {0, 1, 2, 3}) {
    std::vector<float> ref(size_t(n) * dv);
    ASSERT_EQ(posenc_linear_attention_f32(qw.data(), kw.data(), vw.data(), n, F, dv, flags, 1e-6f, ref.data()), POSENC_OK);
    for (int threads : {1, 2, 3}) {
      ThreadScope ts(threads);
      std::vector<uint16_t> out(size_t(n) * dv, 0xdeadu);
      ASSERT_EQ(posenc_linear_attention_bf16(qb.data(), kb.data(), vb.data(), n, F, dv, flags, 1e-6f, out.data()),
                POSENC_OK) << posenc_last_error_message();
      for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], to_bf16(ref[i])) << "flags " << flags << " i " << i;
    }
  }
  // bad input writes nothing
  std::vector<uint16_t> out(size_t(n) * dv, 0xdeadu);
  EXPECT_POSENC_ERROR(posenc_linear_attention_bf16(qb.data(), kb.data(), nullptr, n, F, dv, 0, 0.0f, out.data()),
                      POSENC_ERR_NULL_POINTER, "v");
  EXPECT_POSENC_ERROR(posenc_linear_attention_bf16(qb.data(), kb.data(), vb.data(), n, F, dv, 0, -1.0f, out.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "eps");
  EXPECT_POSENC_ERROR(posenc_rf_features_bf16(POSENC_RF_TRIG, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, -1, nullptr,
                                              xb.data(), n, out.data()), POSENC_ERR_INVALID_ARGUMENT, "d");
  for (auto e : out) ASSERT_EQ(e, 0xdeadu);
}

POSENC_INSTANTIATE_ISA(FeaturesBf16);

}  // namespace
