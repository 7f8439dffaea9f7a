// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/features.cpp — features family (Bochner random features, linear and softmax attention):
// argument validation, sampling of Omega (float64, here, so every ISA path gets the same bits),
// packing, tiling, and calls into the per-ISA kernel table (kernels/features.hpp).
#include "kernels/features_table.hpp"
#include "lib/features_ppnd.hpp"
#include "lib/internal.hpp"

#include <Eigen/Dense>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/random/sobol.hpp>

#include <cstring>
#include <limits>
#include <memory>
#include <vector>

POSENC_USE_KERNELS(features_kernels_t, features_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace {

constexpr int32_t kSobolMaxDim = 3667;  // Boost.Random's default Sobol table (max_dimension)

/// splitmix64 (Steele, Lea & Flood 2014): a tiny, portable, fully specified 64-bit stream.
struct splitmix64 {
  uint64_t s;
  explicit splitmix64(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1), never 0 or 1: ((v >> 11) + 0.5) * 2^-53.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53; }
  double normal() { return ppnd16(uniform()); }
};

/// Stream for (sampling, purpose, seed): distinct purposes never share draws.
splitmix64 stream(uint64_t seed, int sampling, int purpose) {
  splitmix64 mix(seed ^ (0xD1B54A32D192ED03ull * static_cast<uint64_t>(1 + sampling * 8 + purpose)));
  return splitmix64(mix.next());
}

/// m randomized-QMC standard normal vectors of dimension d (row-major [m, d]).
void qmc_normals(int32_t d, int32_t m, uint64_t seed, int sampling, std::vector<double>& g) {
  boost::random::sobol sob(static_cast<std::size_t>(d));
  splitmix64 sh = stream(seed, sampling, 1);
  std::vector<uint64_t> shift(static_cast<size_t>(d));
  for (auto& s : shift) s = sh.next();
  g.resize(static_cast<size_t>(m) * static_cast<size_t>(d));
  for (int32_t i = 0; i < m; ++i)
    for (int32_t k = 0; k < d; ++k) {
      const uint64_t v = static_cast<uint64_t>(sob()) ^ shift[static_cast<size_t>(k)];
      const double u = (static_cast<double>(v >> 11) + 0.5) * 0x1p-53;
      g[static_cast<size_t>(i) * d + k] = ppnd16(u);
    }
}

void sample_rows(posenc_rf_sampling sampling, int32_t d, int32_t m, double sigma, uint64_t seed, float* omega) {
  const size_t D = static_cast<size_t>(d);
  const double inv_sigma = 1.0 / sigma;
  switch (sampling) {
    case POSENC_RF_IID: {
      splitmix64 rng = stream(seed, sampling, 0);
      for (size_t i = 0; i < static_cast<size_t>(m) * D; ++i) omega[i] = static_cast<float>(rng.normal() * inv_sigma);
      break;
    }
    case POSENC_RF_ORTHOGONAL: {
      splitmix64 rng = stream(seed, sampling, 0);
      Eigen::MatrixXd g(d, d);
      for (int32_t b0 = 0; b0 < m; b0 += d) {
        for (int32_t i = 0; i < d; ++i)
          for (int32_t j = 0; j < d; ++j) g(i, j) = rng.normal();
        Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
        Eigen::MatrixXd q = qr.householderQ();
        const Eigen::MatrixXd& r = qr.matrixQR();
        for (int32_t j = 0; j < d; ++j)
          if (r(j, j) < 0.0) q.col(j) = -q.col(j);
        const int32_t rows = std::min(d, m - b0);
        for (int32_t i = 0; i < rows; ++i) {
          double ss = 0.0;  // chi_d norm: |N(0, I_d)|
          for (int32_t k = 0; k < d; ++k) {
            const double z = rng.normal();
            ss += z * z;
          }
          const double s = std::sqrt(ss) * inv_sigma;
          float* row = omega + static_cast<size_t>(b0 + i) * D;
          for (int32_t k = 0; k < d; ++k) row[k] = static_cast<float>(q(k, i) * s);  // column i of Q
        }
      }
      break;
    }
    case POSENC_RF_QMC: {
      std::vector<double> g;
      qmc_normals(d, m, seed, sampling, g);
      for (size_t i = 0; i < g.size(); ++i) omega[i] = static_cast<float>(g[i] * inv_sigma);
      break;
    }
    case POSENC_RF_PFF: {
      std::vector<double> g;
      qmc_normals(d, m, seed, sampling, g);
      splitmix64 rng = stream(seed, sampling, 2);
      std::vector<int32_t> perm(static_cast<size_t>(m));
      for (int32_t i = 0; i < m; ++i) perm[static_cast<size_t>(i)] = i;
      for (int32_t i = m - 1; i > 0; --i) {  // Fisher–Yates, deterministic
        const auto j = static_cast<int32_t>(rng.next() % static_cast<uint64_t>(i + 1));
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
      }
      // promote_double<false>: evaluate in double (Boost's default promotes to long double, which is
      // software quad precision on aarch64); the quantile stays accurate to a few ulp.
      using policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
      const boost::math::chi_squared_distribution<double, policy> chi2(static_cast<double>(d));
      for (int32_t i = 0; i < m; ++i) {
        const double t = (static_cast<double>(perm[static_cast<size_t>(i)]) + rng.uniform()) / m;
        const double r = std::sqrt(boost::math::quantile(chi2, t));
        const double* v = g.data() + static_cast<size_t>(i) * D;
        double nn = 0.0;
        for (int32_t k = 0; k < d; ++k) nn += v[k] * v[k];
        const double s = r / std::sqrt(nn) * inv_sigma;
        for (int32_t k = 0; k < d; ++k) omega[static_cast<size_t>(i) * D + k] = static_cast<float>(v[k] * s);
      }
      break;
    }
    default:
      break;  // unreachable: the sampling was validated by the caller
  }
}

int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }

}  // namespace

extern "C" POSENC_API posenc_status posenc_rf_sample_f32(posenc_rf_sampling sampling, int32_t d, int32_t m,
                                                        double sigma, uint64_t seed, float* omega) {
  api_guard g("posenc_rf_sample_f32");
  const int sv = enum_bits(sampling);
  if (sv < POSENC_RF_IID || sv > POSENC_RF_PFF)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "sampling must be POSENC_RF_IID (0), POSENC_RF_ORTHOGONAL (1), POSENC_RF_QMC (2) or "
                     "POSENC_RF_PFF (3) (got %d)", sv);
  POSENC_CHECK(check_positive(d, "d"));
  POSENC_CHECK(check_positive(m, "m"));
  POSENC_CHECK(check_finite_positive(sigma, "sigma"));
  if ((sampling == POSENC_RF_QMC || sampling == POSENC_RF_PFF) && d > kSobolMaxDim)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "d must be <= %d for POSENC_RF_QMC and POSENC_RF_PFF (dimension limit of the Sobol "
                     "generator's direction-number table) (got %d)", kSobolMaxDim, d);
  int64_t total = 0;
  POSENC_CHECK(checked_mul(m, d, &total, "omega [m, d]", sizeof(float)));
  POSENC_CHECK(check_not_null(omega, "omega"));
  static const char* const kSamplePaths[] = {"rf_sample.iid", "rf_sample.orthogonal", "rf_sample.qmc", "rf_sample.pff"};
  path(kSamplePaths[sv]);
  POSENC_SHAPE("d=%d m=%d", d, m);
  return guarded([&] {
    // Sample into a scratch buffer so a failure (e.g. bad_alloc) leaves omega untouched.
    std::vector<float> tmp(static_cast<size_t>(total));
    sample_rows(sampling, d, m, sigma, seed, tmp.data());
    std::copy(tmp.begin(), tmp.end(), omega);
    return POSENC_OK;
  });
}

namespace {
posenc_status check_kind_shift(int kv, int hv) {
  if (kv < POSENC_RF_TRIG || kv > POSENC_RF_GAUSSIAN_POSITIVE)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "kind must be POSENC_RF_TRIG (0), POSENC_RF_POSITIVE (1), POSENC_RF_HYPERBOLIC (2) or "
                     "POSENC_RF_GAUSSIAN_POSITIVE (3) (got %d)", kv);
  if (hv < POSENC_RF_SHIFT_OVERFLOW || hv > POSENC_RF_SHIFT_SHARED_MAX)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "shift must be POSENC_RF_SHIFT_OVERFLOW (0), POSENC_RF_SHIFT_ROW_MAX (1) or "
                     "POSENC_RF_SHIFT_SHARED_MAX (2) (got %d)", hv);
  return POSENC_OK;
}

/// The validated feature map (shared by the forward and the backward's recomputation): out [n, F]
/// with per-feature scale[j] (weights included or not), packed Omega^T wt [d, m_pad].
void features_run(const features_kernels_t* k, int kind, int shift, const float* x, int64_t n, int32_t d,
                  const float* wt, int32_t m, int64_t m_pad, const float* scale, float* out) {
  const int64_t grain = 192;  // rows per tile (a multiple of the 6-row register block)
  const bool shared = kind != POSENC_RF_TRIG && shift == POSENC_RF_SHIFT_SHARED_MAX;
  std::vector<float> stats(shared ? static_cast<size_t>(2 * n) : 0);
  parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
    std::vector<float> scratch(static_cast<size_t>(kFeaturesRowBlock * m_pad));
    const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
    k->features_rows(kind, kind == POSENC_RF_TRIG ? 0 : shift, x, r0, r1, d, wt, m, static_cast<int32_t>(m_pad),
                     scale, scratch.data(), out, shared ? stats.data() : nullptr);
  });
  if (!shared) return;
  // one constant c = max_i (P_i - h_i) for the whole call; row i times exp(P_i - h_i - c) (float64)
  double c = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) c = std::max(c, double(stats[size_t(2 * i)]) - double(stats[size_t(2 * i + 1)]));
  const int64_t len = kind == POSENC_RF_HYPERBOLIC ? 2 * int64_t(m) : int64_t(m);
  parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
    const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
    for (int64_t i = r0; i < r1; ++i) {
      const auto f = static_cast<float>(std::exp(double(stats[size_t(2 * i)]) - double(stats[size_t(2 * i + 1)]) - c));
      if (f == 1.0f) continue;
      float* row = out + i * len;
      for (int64_t j = 0; j < len; ++j) row[j] *= f;
    }
  });
}

/// Omega^T packed [d, m_pad] (zero columns past m).
std::vector<float> pack_omega_t(const float* omega, int32_t m, int32_t d, int64_t m_pad) {
  std::vector<float> wt(static_cast<size_t>(d * m_pad), 0.0f);
  for (int32_t j = 0; j < m; ++j)
    for (int32_t c = 0; c < d; ++c) wt[static_cast<size_t>(c * m_pad + j)] = omega[static_cast<size_t>(j) * d + c];
  return wt;
}
}  // namespace

extern "C" POSENC_API posenc_status posenc_rf_features_f32(posenc_rf_kind kind, posenc_rf_shift shift,
                                                          const float* omega, int32_t m, int32_t d,
                                                          const float* weights, const float* x, int64_t n,
                                                          float* out) {
  api_guard g("posenc_rf_features_f32");
  const int kv = enum_bits(kind), hv = enum_bits(shift);
  POSENC_CHECK(check_kind_shift(kv, hv));
  POSENC_CHECK(check_positive(m, "m"));
  POSENC_CHECK(check_positive(d, "d"));
  POSENC_CHECK(check_nonneg(n, "n"));
  POSENC_CHECK(check_not_null(omega, "omega"));
  const bool wide = kind == POSENC_RF_TRIG || kind == POSENC_RF_HYPERBOLIC;
  int64_t md = 0, nd = 0, nout = 0;
  POSENC_CHECK(checked_mul(m, d, &md, "omega [m, d]", sizeof(float)));
  POSENC_CHECK(checked_mul(n, d, &nd, "x [n, d]", sizeof(float)));
  POSENC_CHECK(checked_mul(n, wide ? 2 * static_cast<int64_t>(m) : m, &nout, "out", sizeof(float)));
  POSENC_CHECK(check_not_null_if(x, nd, "x"));
  POSENC_CHECK(check_not_null_if(out, nout, "out"));
  for (int64_t i = 0; i < md; ++i)
    if (!std::isfinite(omega[i]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "omega entries must be finite (omega[%lld] = %g)",
                       static_cast<long long>(i), static_cast<double>(omega[i]));
  if (weights)
    for (int32_t j = 0; j < m; ++j)
      if (!(std::isfinite(weights[j]) && weights[j] >= 0.0f))
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "weights must be finite and >= 0 (weights[%d] = %g)", j,
                         static_cast<double>(weights[j]));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  static const char* const kFeaturePaths[] = {"rf_features.trig", "rf_features.positive", "rf_features.hyperbolic",
                                              "rf_features.gaussian_positive"};
  path(kFeaturePaths[kv]);
  if (kv != POSENC_RF_TRIG && hv != POSENC_RF_SHIFT_OVERFLOW)
    path(hv == POSENC_RF_SHIFT_ROW_MAX ? "rf_features.exp_row_max" : "rf_features.exp_shared_max");
  work(4.0 * double(nd + md + nout), 2.0 * double(n) * m * d, true);  // the projection; exp/sin/cos not counted
  POSENC_SHAPE("n=%lld d=%d m=%d", (long long)n, d, m);
  return guarded([&] {
    const int64_t m_pad = round_up(m, kFeaturesColPad);
    const std::vector<float> wt = pack_omega_t(omega, m, d, m_pad);
    std::vector<float> scale(static_cast<size_t>(m_pad), 0.0f);  // per-feature scale
    const double base = 1.0 / std::sqrt(kind == POSENC_RF_HYPERBOLIC ? 2.0 * m : static_cast<double>(m));
    for (int32_t j = 0; j < m; ++j)
      scale[static_cast<size_t>(j)] = static_cast<float>(base * (weights ? static_cast<double>(weights[j]) : 1.0));
    if (hv == POSENC_RF_SHIFT_SHARED_MAX && kv != POSENC_RF_TRIG) {
      // the shared constant needs every row first: compute into scratch, so out stays untouched on bad_alloc
      std::vector<float> tmp(static_cast<size_t>(nout));
      features_run(k, kv, hv, x, n, d, wt.data(), m, m_pad, scale.data(), tmp.data());
      std::copy(tmp.begin(), tmp.end(), out);
    } else {
      features_run(k, kv, hv, x, n, d, wt.data(), m, m_pad, scale.data(), out);
    }
    return POSENC_OK;
  });
}

namespace {
posenc_status check_attention_arrays(const float* a, const float* b, const float* v, float* out, int64_t n,
                                     int64_t da, int64_t dv, const char* na, const char* nb) {
  int64_t t = 0;
  POSENC_CHECK(checked_mul(n, da, &t, na, sizeof(float)));
  POSENC_CHECK(checked_mul(n, dv, &t, "v", sizeof(float)));
  POSENC_CHECK(checked_mul(n, std::max<int64_t>(da, dv) + 256, &t, "attention scratch", sizeof(float)));
  POSENC_CHECK(check_not_null_if(a, n, na));
  POSENC_CHECK(check_not_null_if(b, n, nb));
  POSENC_CHECK(check_not_null_if(v, n, "v"));
  POSENC_CHECK(check_not_null_if(out, n, "out"));
  return POSENC_OK;
}
}  // namespace

extern "C" POSENC_API posenc_status posenc_linear_attention_f32(const float* phi_q, const float* phi_k,
                                                               const float* v, int64_t n, int32_t F, int32_t dv,
                                                               int32_t causal, float eps, float* out) {
  api_guard g("posenc_linear_attention_f32");
  POSENC_CHECK(check_nonneg(n, "n"));
  POSENC_CHECK(check_positive(F, "F"));
  POSENC_CHECK(check_positive(dv, "dv"));
  if (!(std::isfinite(eps) && eps >= 0.0f))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "eps must be finite and >= 0 (got %g)", static_cast<double>(eps));
  POSENC_CHECK(check_attention_arrays(phi_q, phi_k, v, out, n, F, dv, "phi_q", "phi_k"));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  // State (2 n F dv + n F) and read-out (2 n F dv + 2 n F); causal adds the 128-row chunks'
  // quadratic part (2 n 128 (F + dv)).
  path(causal ? "linear_attention.causal_chunked" : "linear_attention.global");
  work(4.0 * double(n) * 2.0 * (F + dv),
       4.0 * double(n) * F * dv + 3.0 * double(n) * F + (causal ? 2.0 * double(n) * 128 * (F + dv) : 0.0), true);
  POSENC_SHAPE("n=%lld F=%d dv=%d", (long long)n, F, dv);
  return guarded([&] {
    const int64_t state = static_cast<int64_t>(F) * dv + F;  // S [F, dv] then z [F]
    if (!causal) {
      const int64_t grain = 512;
      const int64_t nt = tiles_of(n, grain);
      std::vector<float> part(static_cast<size_t>(nt * state), 0.0f);
      parallel_tiles(nt, [&](int64_t t) {
        const int64_t r0 = t * grain, len = std::min(n, r0 + grain) - r0;
        float* st = part.data() + t * state;
        k->matmul(phi_k + r0 * F, 1, F, v + r0 * dv, dv, F, dv, len, st, dv, 0);
        k->colsum_acc(phi_k + r0 * F, len, F, st + static_cast<int64_t>(F) * dv);
      });
      std::vector<float> s(static_cast<size_t>(state), 0.0f);
      for (int64_t t = 0; t < nt; ++t)  // fixed (tile) order: independent of the thread count
        for (int64_t e = 0; e < state; ++e) s[static_cast<size_t>(e)] += part[static_cast<size_t>(t * state + e)];
      const int64_t og = 256;
      parallel_tiles(tiles_of(n, og), [&](int64_t t) {
        const int64_t r0 = t * og, len = std::min(n, r0 + og) - r0;
        k->linear_rows(phi_q + r0 * F, len, F, s.data(), dv, s.data() + static_cast<int64_t>(F) * dv, dv, nullptr,
                       nullptr, eps, out + r0 * dv);
      });
      return POSENC_OK;
    }
    const int64_t C = 128;
    const int64_t nc = tiles_of(n, C);
    std::vector<float> st(static_cast<size_t>(nc * state), 0.0f);
    parallel_tiles(nc, [&](int64_t c) {
      const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
      float* s = st.data() + c * state;
      k->matmul(phi_k + r0 * F, 1, F, v + r0 * dv, dv, F, dv, len, s, dv, 0);
      k->colsum_acc(phi_k + r0 * F, len, F, s + static_cast<int64_t>(F) * dv);
    });
    // exclusive prefix sums over chunks, parallel over state elements (order along chunks fixed)
    const int64_t eg = 2048;
    parallel_tiles(tiles_of(state, eg), [&](int64_t t) {
      const int64_t e0 = t * eg, e1 = std::min(state, e0 + eg);
      std::vector<float> run(static_cast<size_t>(e1 - e0), 0.0f);
      for (int64_t c = 0; c < nc; ++c) {
        float* s = st.data() + c * state;
        for (int64_t e = e0; e < e1; ++e) {
          const float tmp = s[e];
          s[e] = run[static_cast<size_t>(e - e0)];
          run[static_cast<size_t>(e - e0)] += tmp;
        }
      }
    });
    const int64_t l32 = round_up(C, 32);
    parallel_tiles(nc, [&](int64_t c) {
      const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
      std::vector<float> scratch(static_cast<size_t>(F * l32 + C * l32 + C * dv + C));
      float* num = scratch.data() + F * l32 + C * l32;
      float* den = num + C * dv;
      k->causal_chunk(phi_q + r0 * F, phi_k + r0 * F, v + r0 * dv, len, F, dv, scratch.data(), num, den);
      const float* s = st.data() + c * state;
      k->linear_rows(phi_q + r0 * F, len, F, s, dv, s + static_cast<int64_t>(F) * dv, dv, num, den, eps,
                     out + r0 * dv);
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_softmax_attention_f32(const float* q, const float* kk, const float* v,
                                                                int64_t n, int32_t d, int32_t dv, int32_t causal,
                                                                float scale, float* out) {
  api_guard g("posenc_softmax_attention_f32");
  POSENC_CHECK(check_nonneg(n, "n"));
  POSENC_CHECK(check_positive(d, "d"));
  POSENC_CHECK(check_positive(dv, "dv"));
  if (!std::isfinite(scale))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "scale must be finite (got %g)", static_cast<double>(scale));
  POSENC_CHECK(check_attention_arrays(q, kk, v, out, n, d, dv, "q", "k"));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  // 2 (d + dv) flops per (query, key) pair scored; exp not counted. Causal: pairs j <= i.
  path(causal ? "softmax_attention.causal" : "softmax_attention.full");
  work(4.0 * double(n) * 2.0 * (d + dv),
       2.0 * double(d + dv) * (causal ? double(n) * double(n + 1) / 2.0 : double(n) * double(n)), true);
  POSENC_SHAPE("n=%lld d=%d dv=%d", (long long)n, d, dv);
  return guarded([&] {
    const int64_t n_pad = round_up(n, kFeaturesColPad);
    std::vector<float> kt(static_cast<size_t>(d * n_pad), 0.0f);  // K^T [d, n_pad]
    const int64_t tg = 1024;
    parallel_tiles(tiles_of(n, tg), [&](int64_t t) {
      const int64_t j0 = t * tg, j1 = std::min(n, j0 + tg);
      for (int32_t c = 0; c < d; ++c)
        for (int64_t j = j0; j < j1; ++j) kt[static_cast<size_t>(c * n_pad + j)] = kk[j * d + c];
    });
    const int64_t QB = 64;
    parallel_tiles(tiles_of(n, QB), [&](int64_t t) {
      const int64_t q0 = t * QB, q1 = std::min(n, q0 + QB);
      std::vector<float> scratch(static_cast<size_t>(QB * 256 + QB * dv + 2 * QB));
      k->softmax_rows(q, kt.data(), n_pad, v, n, d, dv, q0, q1, causal != 0 ? 1 : 0, scale, scratch.data(), out);
    });
    return POSENC_OK;
  });
}

// ------------------------------------------------------------------------------- backward passes
extern "C" POSENC_API posenc_status posenc_rf_features_backward_f32(posenc_rf_kind kind, posenc_rf_shift shift,
                                                                   const float* omega, int32_t m, int32_t d,
                                                                   const float* weights, const float* x, int64_t n,
                                                                   const float* grad_out, float* grad_x,
                                                                   float* grad_weights, float* grad_omega) {
  api_guard g("posenc_rf_features_backward_f32");
  const int kv = enum_bits(kind), hv = enum_bits(shift);
  POSENC_CHECK(check_kind_shift(kv, hv));
  POSENC_CHECK(check_positive(m, "m"));
  POSENC_CHECK(check_positive(d, "d"));
  POSENC_CHECK(check_nonneg(n, "n"));
  POSENC_CHECK(check_not_null(omega, "omega"));
  const bool wide = kind == POSENC_RF_TRIG || kind == POSENC_RF_HYPERBOLIC;
  const int64_t F = wide ? 2 * static_cast<int64_t>(m) : m;
  int64_t md = 0, nd = 0, nout = 0;
  POSENC_CHECK(checked_mul(m, d, &md, "omega [m, d]", sizeof(float)));
  POSENC_CHECK(checked_mul(n, d, &nd, "x [n, d]", sizeof(float)));
  POSENC_CHECK(checked_mul(n, F, &nout, "grad_out [n, F]", sizeof(float)));
  POSENC_CHECK(check_not_null_if(x, nd, "x"));
  POSENC_CHECK(check_not_null_if(grad_out, nout, "grad_out"));
  if (!grad_x && !grad_weights && !grad_omega)
    return set_error(POSENC_ERR_NULL_POINTER, "grad_x, grad_weights and grad_omega are all NULL (at least one is required)");
  for (int64_t i = 0; i < md; ++i)
    if (!std::isfinite(omega[i]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "omega entries must be finite (omega[%lld] = %g)",
                       static_cast<long long>(i), static_cast<double>(omega[i]));
  if (weights)
    for (int32_t j = 0; j < m; ++j)
      if (!(std::isfinite(weights[j]) && weights[j] >= 0.0f))
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "weights must be finite and >= 0 (weights[%d] = %g)", j,
                         static_cast<double>(weights[j]));
  if (n == 0) {  // empty sums
    if (grad_weights) std::fill(grad_weights, grad_weights + m, 0.0f);
    if (grad_omega) std::fill(grad_omega, grad_omega + md, 0.0f);
    return POSENC_OK;
  }
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  path(kv == POSENC_RF_TRIG ? "rf_features_backward.trig" : "rf_features_backward.exp");
  work(4.0 * double(2 * nd + md + 2 * nout), 2.0 * double(n) * m * d * (1.0 + (grad_x ? 1 : 0) + (grad_omega ? 1 : 0)),
       true);
  POSENC_SHAPE("n=%lld d=%d m=%d", (long long)n, d, m);
  return guarded([&] {
    const int64_t m_pad = round_up(m, kFeaturesColPad);
    const std::vector<float> wt = pack_omega_t(omega, m, d, m_pad);
    std::vector<float> base(static_cast<size_t>(m_pad), 0.0f);
    const auto b0 = static_cast<float>(1.0 / std::sqrt(kind == POSENC_RF_HYPERBOLIC ? 2.0 * m : static_cast<double>(m)));
    std::fill(base.begin(), base.begin() + m, b0);
    std::vector<float> u(static_cast<size_t>(nout));  // the unweighted map, same shift as the forward
    features_run(k, kv, hv, x, n, d, wt.data(), m, m_pad, base.data(), u.data());
    const int64_t grain = 256;
    const int64_t nt = tiles_of(n, grain);
    std::vector<double> gw_part(grad_weights ? static_cast<size_t>(nt * m) : 0);
    std::vector<float> gom_part(grad_omega ? static_cast<size_t>(nt * md) : 0);
    const double hf = kv == POSENC_RF_GAUSSIAN_POSITIVE ? 2.0 : (kv == POSENC_RF_TRIG ? 0.0 : 1.0);
    parallel_tiles(nt, [&](int64_t t) {
      const int64_t r0 = t * grain, rows = std::min(n, r0 + grain) - r0;
      std::vector<float> dp(static_cast<size_t>(rows * m));
      std::vector<double> tsum(static_cast<size_t>(rows), 0.0);
      double* gw = grad_weights ? gw_part.data() + t * m : nullptr;
      for (int64_t i = 0; i < rows; ++i) {
        const float* gi = grad_out + (r0 + i) * F;
        const float* ui = u.data() + (r0 + i) * F;
        float* di = dp.data() + i * m;
        double ts = 0.0;
        for (int32_t j = 0; j < m; ++j) {
          const float w = weights ? weights[j] : 1.0f;
          if (kv == POSENC_RF_TRIG) {  // d/dp of [cos p | sin p] = [-sin p | cos p]
            di[j] = w * (gi[m + j] * ui[j] - gi[j] * ui[m + j]);
            if (gw) gw[j] += double(gi[j]) * ui[j] + double(gi[m + j]) * ui[m + j];
          } else if (kv == POSENC_RF_HYPERBOLIC) {
            const float gp = w * gi[j] * ui[j], gm = w * gi[m + j] * ui[m + j];
            di[j] = gp - gm;
            ts += double(gp) + double(gm);
            if (gw) gw[j] += double(gi[j]) * ui[j] + double(gi[m + j]) * ui[m + j];
          } else {
            const float gp = w * gi[j] * ui[j];
            di[j] = gp;
            ts += gp;
            if (gw) gw[j] += double(gi[j]) * ui[j];
          }
        }
        tsum[static_cast<size_t>(i)] = ts;
      }
      if (grad_x) {
        float* gx = grad_x + r0 * d;
        k->matmul(dp.data(), m, 1, omega, d, rows, d, m, gx, d, 0);  // dp . Omega
        if (hf != 0.0)
          for (int64_t i = 0; i < rows; ++i)
            for (int32_t c = 0; c < d; ++c)
              gx[i * d + c] = static_cast<float>(double(gx[i * d + c]) - hf * tsum[size_t(i)] * x[(r0 + i) * d + c]);
      }
      if (grad_omega) k->matmul(dp.data(), 1, m, x + r0 * d, d, m, d, rows, gom_part.data() + t * md, d, 0);  // dp^T x
    });
    if (grad_weights)  // tile partials summed in tile order, in float64
      for (int32_t j = 0; j < m; ++j) {
        double s = 0.0;
        for (int64_t t = 0; t < nt; ++t) s += gw_part[size_t(t * m + j)];
        grad_weights[j] = static_cast<float>(s);
      }
    if (grad_omega)
      for (int64_t e = 0; e < md; ++e) {
        double s = 0.0;
        for (int64_t t = 0; t < nt; ++t) s += gom_part[size_t(t * md + e)];
        grad_omega[e] = static_cast<float>(s);
      }
    return POSENC_OK;
  });
}

namespace {
/// b [cols, rows] = a^T for a [rows, cols] (leading dimension lda).
void transpose_to(const float* a, int64_t rows, int64_t cols, int64_t lda, float* b) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c) b[c * rows + i] = a[i * lda + c];
}
}  // namespace

extern "C" POSENC_API posenc_status posenc_linear_attention_backward_f32(
    const float* phi_q, const float* phi_k, const float* v, int64_t n, int32_t F, int32_t dv, int32_t causal, float eps,
    const float* grad_out, float* grad_phi_q, float* grad_phi_k, float* grad_v) {
  api_guard g("posenc_linear_attention_backward_f32");
  POSENC_CHECK(check_nonneg(n, "n"));
  POSENC_CHECK(check_positive(F, "F"));
  POSENC_CHECK(check_positive(dv, "dv"));
  if (!(std::isfinite(eps) && eps >= 0.0f))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "eps must be finite and >= 0 (got %g)", static_cast<double>(eps));
  POSENC_CHECK(check_not_null_if(grad_out, n, "grad_out"));
  POSENC_CHECK(check_not_null_if(grad_phi_q, n, "grad_phi_q"));
  POSENC_CHECK(check_not_null_if(grad_phi_k, n, "grad_phi_k"));
  POSENC_CHECK(check_not_null_if(grad_v, n, "grad_v"));
  POSENC_CHECK(check_attention_arrays(phi_q, phi_k, v, grad_v, n, F, dv, "phi_q", "phi_k"));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  path(causal ? "linear_attention_backward.causal_chunked" : "linear_attention_backward.global");
  work(4.0 * double(n) * 4.0 * (F + dv),
       12.0 * double(n) * F * dv + (causal ? 8.0 * double(n) * 128 * (F + dv) : 0.0), true);
  POSENC_SHAPE("n=%lld F=%d dv=%d", (long long)n, F, dv);
  return guarded([&] {
    // The gradients are computed in staging arrays and copied out at the end: an allocation that
    // fails in a later pass (per-chunk scratch) then leaves the caller's arrays untouched.
    std::unique_ptr<float[]> stage_q(new float[size_t(n * F)]), stage_k(new float[size_t(n * F)]),
        stage_v(new float[size_t(n * dv)]);
    float* const out_q = grad_phi_q;
    float* const out_k = grad_phi_k;
    float* const out_v = grad_v;
    grad_phi_q = stage_q.get();
    grad_phi_k = stage_k.get();
    grad_v = stage_v.get();
    const int64_t C = causal ? 128 : 512;  // rows per chunk (causal) or tile
    const int64_t nc = tiles_of(n, C);
    const int64_t FD = static_cast<int64_t>(F) * dv, state = FD + F;
    // forward states: causal: exclusive prefix sums of the chunk states; else one global state
    std::vector<float> st(static_cast<size_t>(nc * state), 0.0f);
    parallel_tiles(nc, [&](int64_t c) {
      const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
      float* s = st.data() + c * state;
      k->matmul(phi_k + r0 * F, 1, F, v + r0 * dv, dv, F, dv, len, s, dv, 0);
      k->colsum_acc(phi_k + r0 * F, len, F, s + FD);
    });
    std::vector<float> total;  // non-causal: the one state, summed in tile order
    if (causal) {
      // exclusive prefix (the forward's order: run before adding)
      const int64_t eg = 2048;
      parallel_tiles(tiles_of(state, eg), [&](int64_t t) {
        const int64_t e0 = t * eg, e1 = std::min(state, e0 + eg);
        std::vector<float> run(static_cast<size_t>(e1 - e0), 0.0f);
        for (int64_t c = 0; c < nc; ++c) {
          float* s = st.data() + c * state;
          for (int64_t e = e0; e < e1; ++e) {
            const float tmp = s[e];
            s[e] = run[size_t(e - e0)];
            run[size_t(e - e0)] += tmp;
          }
        }
      });
    } else {
      total.assign(static_cast<size_t>(state), 0.0f);
      for (int64_t t = 0; t < nc; ++t)
        for (int64_t e = 0; e < state; ++e) total[size_t(e)] += st[size_t(t * state + e)];
    }
    // pass 1 per chunk: out, a_i = go_i / den_i, b_i = -(go_i . out_i) / den_i; grad_phi_q; the
    // chunk's R = phi_q^T A [F, dv] and r = sum_i b_i phi_q_i [F]; intra-chunk parts of grad_phi_k, grad_v.
    std::vector<float> rs(static_cast<size_t>(nc * state), 0.0f);
    const int64_t l32 = round_up(C, 32);
    parallel_tiles(nc, [&](int64_t c) {
      const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
      const float* s = causal ? st.data() + c * state : total.data();
      const float* z = s + FD;
      const float* q = phi_q + r0 * F;
      const float* kk = phi_k + r0 * F;
      const float* vv = v + r0 * dv;
      const float* go = grad_out + r0 * dv;
      std::vector<float> num(static_cast<size_t>(len * dv)), den(static_cast<size_t>(len), 0.0f);
      std::vector<float> a(static_cast<size_t>(len * dv)), b(static_cast<size_t>(len));
      std::vector<float> sT(static_cast<size_t>(FD));
      std::vector<float> scratch, P, M, kT, vT;
      if (causal) {
        scratch.resize(static_cast<size_t>(F * l32 + C * l32));
        k->causal_chunk(q, kk, vv, len, F, dv, scratch.data(), num.data(), den.data());
        k->matmul(q, F, 1, s, dv, len, dv, F, num.data(), dv, 1);
      } else {
        k->matmul(q, F, 1, s, dv, len, dv, F, num.data(), dv, 0);
      }
      for (int64_t i = 0; i < len; ++i) {
        double dz = 0.0;
        for (int32_t f = 0; f < F; ++f) dz += double(q[i * F + f]) * z[f];
        const double dn = dz + double(den[size_t(i)]) + double(eps);
        double gdo = 0.0;
        for (int32_t cdx = 0; cdx < dv; ++cdx) gdo += double(go[i * dv + cdx]) * num[size_t(i * dv + cdx)];
        if (dn == 0.0) {  // the forward wrote a zero row: zero gradient
          for (int32_t cdx = 0; cdx < dv; ++cdx) a[size_t(i * dv + cdx)] = 0.0f;
          b[size_t(i)] = 0.0f;
          continue;
        }
        for (int32_t cdx = 0; cdx < dv; ++cdx) a[size_t(i * dv + cdx)] = static_cast<float>(go[i * dv + cdx] / dn);
        b[size_t(i)] = static_cast<float>(-gdo / (dn * dn));
      }
      // grad_phi_q = A S^T + b z^T (+ intra: M phi_k, M_ij = [j <= i] (a_i . v_j + b_i))
      transpose_to(s, F, dv, dv, sT.data());
      float* gq = grad_phi_q + r0 * F;
      k->matmul(a.data(), dv, 1, sT.data(), F, len, F, dv, gq, F, 0);
      for (int64_t i = 0; i < len; ++i)
        for (int32_t f = 0; f < F; ++f) gq[i * F + f] += b[size_t(i)] * z[f];
      float* gk = grad_phi_k + r0 * F;
      float* gv = grad_v + r0 * dv;
      if (causal) {
        vT.resize(static_cast<size_t>(dv * len));
        kT.resize(static_cast<size_t>(F * len));
        M.resize(static_cast<size_t>(len * len));
        P.resize(static_cast<size_t>(len * len));
        transpose_to(vv, len, dv, dv, vT.data());
        transpose_to(kk, len, F, F, kT.data());
        k->matmul(a.data(), dv, 1, vT.data(), len, len, len, dv, M.data(), len, 0);
        k->matmul(q, F, 1, kT.data(), len, len, len, F, P.data(), len, 0);
        for (int64_t i = 0; i < len; ++i)
          for (int64_t j = 0; j < len; ++j) {
            if (j <= i) M[size_t(i * len + j)] += b[size_t(i)];
            else M[size_t(i * len + j)] = P[size_t(i * len + j)] = 0.0f;
          }
        k->matmul(M.data(), len, 1, kk, F, len, F, len, gq, F, 1);            // M phi_k
        k->matmul(M.data(), 1, len, q, F, len, F, len, gk, F, 0);             // M^T phi_q
        k->matmul(P.data(), 1, len, a.data(), dv, len, dv, len, gv, dv, 0);   // P^T A
      }
      float* r = rs.data() + c * state;
      k->matmul(q, 1, F, a.data(), dv, F, dv, len, r, dv, 0);  // R = phi_q^T A
      for (int64_t i = 0; i < len; ++i)
        for (int32_t f = 0; f < F; ++f) r[FD + f] += b[size_t(i)] * q[i * F + f];
    });
    // R, r seen by chunk c: causal: the sum over later chunks (reverse exclusive scan); else all.
    if (causal) {
      const int64_t eg = 2048;
      parallel_tiles(tiles_of(state, eg), [&](int64_t t) {
        const int64_t e0 = t * eg, e1 = std::min(state, e0 + eg);
        std::vector<float> run(static_cast<size_t>(e1 - e0), 0.0f);
        for (int64_t c = nc - 1; c >= 0; --c) {
          float* s = rs.data() + c * state;
          for (int64_t e = e0; e < e1; ++e) {
            const float tmp = s[e];
            s[e] = run[size_t(e - e0)];
            run[size_t(e - e0)] += tmp;
          }
        }
      });
    } else {
      std::vector<double> acc(static_cast<size_t>(state), 0.0);
      for (int64_t t = 0; t < nc; ++t)
        for (int64_t e = 0; e < state; ++e) acc[size_t(e)] += rs[size_t(t * state + e)];
      for (int64_t e = 0; e < state; ++e) rs[size_t(e)] = static_cast<float>(acc[size_t(e)]);
    }
    // pass 2: grad_phi_k += V R^T + r, grad_v += phi_k R
    parallel_tiles(nc, [&](int64_t c) {
      const int64_t r0 = c * C, len = std::min(n, r0 + C) - r0;
      const float* r = rs.data() + (causal ? c * state : 0);
      std::vector<float> rT(static_cast<size_t>(FD));
      transpose_to(r, F, dv, dv, rT.data());
      float* gk = grad_phi_k + r0 * F;
      float* gv = grad_v + r0 * dv;
      k->matmul(v + r0 * dv, dv, 1, rT.data(), F, len, F, dv, gk, F, causal ? 1 : 0);
      for (int64_t i = 0; i < len; ++i)
        for (int32_t f = 0; f < F; ++f) gk[i * F + f] += r[FD + f];
      k->matmul(phi_k + r0 * F, F, 1, r, dv, len, dv, F, gv, dv, causal ? 1 : 0);
    });
    std::memcpy(out_q, grad_phi_q, size_t(n * F) * sizeof(float));
    std::memcpy(out_k, grad_phi_k, size_t(n * F) * sizeof(float));
    std::memcpy(out_v, grad_v, size_t(n * dv) * sizeof(float));
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_softmax_attention_backward_f32(
    const float* q, const float* kk, const float* v, int64_t n, int32_t d, int32_t dv, int32_t causal, float scale,
    const float* grad_out, float* grad_q, float* grad_k, float* grad_v) {
  api_guard g("posenc_softmax_attention_backward_f32");
  POSENC_CHECK(check_nonneg(n, "n"));
  POSENC_CHECK(check_positive(d, "d"));
  POSENC_CHECK(check_positive(dv, "dv"));
  if (!std::isfinite(scale))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "scale must be finite (got %g)", static_cast<double>(scale));
  POSENC_CHECK(check_not_null_if(grad_out, n, "grad_out"));
  POSENC_CHECK(check_not_null_if(grad_q, n, "grad_q"));
  POSENC_CHECK(check_not_null_if(grad_k, n, "grad_k"));
  POSENC_CHECK(check_not_null_if(grad_v, n, "grad_v"));
  POSENC_CHECK(check_attention_arrays(q, kk, v, grad_v, n, d, dv, "q", "k"));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  path(causal ? "softmax_attention_backward.causal" : "softmax_attention_backward.full");
  const double pairs = causal ? double(n) * double(n + 1) / 2.0 : double(n) * double(n);
  work(4.0 * double(n) * 4.0 * (d + dv), pairs * (6.0 * d + 6.0 * dv), true);
  POSENC_SHAPE("n=%lld d=%d dv=%d", (long long)n, d, dv);
  return guarded([&] {
    // The gradients are computed in staging arrays and copied out at the end: an allocation that
    // fails in a later pass (per-block scratch) then leaves the caller's arrays untouched.
    std::unique_ptr<float[]> stage_q(new float[size_t(n * d)]), stage_k(new float[size_t(n * d)]),
        stage_v(new float[size_t(n * dv)]);
    float* const out_q = grad_q;
    float* const out_k = grad_k;
    float* const out_v = grad_v;
    grad_q = stage_q.get();
    grad_k = stage_k.get();
    grad_v = stage_v.get();
    const int64_t n_pad = round_up(n, kFeaturesColPad);
    std::vector<float> kt(static_cast<size_t>(d * n_pad), 0.0f), vt(static_cast<size_t>(dv * n_pad), 0.0f);
    const int64_t tg = 1024;
    parallel_tiles(tiles_of(n, tg), [&](int64_t t) {  // K^T [d, n_pad], V^T [dv, n_pad]
      const int64_t j0 = t * tg, j1 = std::min(n, j0 + tg);
      for (int32_t c = 0; c < d; ++c)
        for (int64_t j = j0; j < j1; ++j) kt[size_t(c * n_pad + j)] = kk[j * d + c];
      for (int32_t c = 0; c < dv; ++c)
        for (int64_t j = j0; j < j1; ++j) vt[size_t(c * n_pad + j)] = v[j * dv + c];
    });
    const int64_t QB = 64, KB = 256;
    // the forward output (the forward kernel: same bits), then L_i = m_i + log l_i and
    // Dl_i = grad_out_i . out_i (float64)
    std::vector<float> out(static_cast<size_t>(n * dv));
    parallel_tiles(tiles_of(n, QB), [&](int64_t t) {
      const int64_t q0 = t * QB, q1 = std::min(n, q0 + QB);
      std::vector<float> scratch(static_cast<size_t>(QB * 256 + QB * dv + 2 * QB));
      k->softmax_rows(q, kt.data(), n_pad, v, n, d, dv, q0, q1, causal != 0 ? 1 : 0, scale, scratch.data(), out.data());
    });
    std::vector<float> lse(static_cast<size_t>(n)), dl(static_cast<size_t>(n));
    // block of scores for query rows [q0, q0+nq) and keys [j0, j0+bl): p = exp(scale s - L) (0 masked)
    auto probs = [&](int64_t q0, int64_t nq, int64_t j0, int64_t bl, float* s) {
      k->matmul(q + q0 * d, d, 1, kt.data() + j0, n_pad, nq, bl, d, s, KB, 0);
      for (int64_t i = 0; i < nq; ++i)
        for (int64_t j = 0; j < bl; ++j) {
          float& e = s[i * KB + j];
          e = (causal && j0 + j > q0 + i) ? 0.0f : std::exp(e * scale - lse[size_t(q0 + i)]);
        }
    };
    parallel_tiles(tiles_of(n, QB), [&](int64_t t) {
      const int64_t q0 = t * QB, nq = std::min(n, q0 + QB) - q0;
      std::vector<float> s(static_cast<size_t>(QB * KB));
      std::vector<double> mx(static_cast<size_t>(nq), -std::numeric_limits<double>::infinity()), l(size_t(nq), 0.0);
      const int64_t kend = causal ? q0 + nq : n;
      for (int64_t j0 = 0; j0 < kend; j0 += KB) {
        const int64_t bl = std::min(kend - j0, KB);
        k->matmul(q + q0 * d, d, 1, kt.data() + j0, n_pad, nq, bl, d, s.data(), KB, 0);
        for (int64_t i = 0; i < nq; ++i) {
          const int64_t jm = causal ? std::min(bl, q0 + i - j0 + 1) : bl;
          if (jm <= 0) continue;
          double bm = -std::numeric_limits<double>::infinity();
          for (int64_t j = 0; j < jm; ++j) bm = std::max(bm, double(s[size_t(i * KB + j)]) * scale);
          const double nm = std::max(mx[size_t(i)], bm);
          double acc = l[size_t(i)] * std::exp(mx[size_t(i)] - nm);
          for (int64_t j = 0; j < jm; ++j) acc += std::exp(double(s[size_t(i * KB + j)]) * scale - nm);
          l[size_t(i)] = acc;
          mx[size_t(i)] = nm;
        }
      }
      for (int64_t i = 0; i < nq; ++i) {
        lse[size_t(q0 + i)] = static_cast<float>(mx[size_t(i)] + std::log(l[size_t(i)]));
        double a = 0.0;
        for (int32_t c = 0; c < dv; ++c) a += double(grad_out[(q0 + i) * dv + c]) * out[size_t((q0 + i) * dv + c)];
        dl[size_t(q0 + i)] = static_cast<float>(a);
      }
    });
    // grad_q: per query block over key blocks; dS = P (dP - Dl), dP = dO V^T; grad_q = scale dS K
    parallel_tiles(tiles_of(n, QB), [&](int64_t t) {
      const int64_t q0 = t * QB, nq = std::min(n, q0 + QB) - q0;
      std::vector<float> s(static_cast<size_t>(QB * KB)), dp(static_cast<size_t>(QB * KB));
      const int64_t kend = causal ? q0 + nq : n;
      float* gq = grad_q + q0 * d;
      std::fill(gq, gq + nq * d, 0.0f);
      for (int64_t j0 = 0; j0 < kend; j0 += KB) {
        const int64_t bl = std::min(kend - j0, KB);
        probs(q0, nq, j0, bl, s.data());
        k->matmul(grad_out + q0 * dv, dv, 1, vt.data() + j0, n_pad, nq, bl, dv, dp.data(), KB, 0);
        for (int64_t i = 0; i < nq; ++i)
          for (int64_t j = 0; j < bl; ++j)
            s[size_t(i * KB + j)] *= (dp[size_t(i * KB + j)] - dl[size_t(q0 + i)]) * scale;
        k->matmul(s.data(), KB, 1, kk + j0 * d, d, nq, d, bl, gq, d, 1);
      }
    });
    // grad_k, grad_v: per key block over query blocks; grad_v = P^T dO, grad_k = scale dS^T Q
    parallel_tiles(tiles_of(n, KB), [&](int64_t t) {
      const int64_t j0 = t * KB, bl = std::min(n, j0 + KB) - j0;
      std::vector<float> s(static_cast<size_t>(QB * KB)), dp(static_cast<size_t>(QB * KB));
      float* gk = grad_k + j0 * d;
      float* gv = grad_v + j0 * dv;
      std::fill(gk, gk + bl * d, 0.0f);
      std::fill(gv, gv + bl * dv, 0.0f);
      for (int64_t q0 = causal ? j0 / QB * QB : 0; q0 < n; q0 += QB) {
        const int64_t nq = std::min(n, q0 + QB) - q0;
        probs(q0, nq, j0, bl, s.data());
        k->matmul(s.data(), 1, KB, grad_out + q0 * dv, dv, bl, dv, nq, gv, dv, 1);
        k->matmul(grad_out + q0 * dv, dv, 1, vt.data() + j0, n_pad, nq, bl, dv, dp.data(), KB, 0);
        for (int64_t i = 0; i < nq; ++i)
          for (int64_t j = 0; j < bl; ++j)
            s[size_t(i * KB + j)] *= (dp[size_t(i * KB + j)] - dl[size_t(q0 + i)]) * scale;
        k->matmul(s.data(), 1, KB, q + q0 * d, d, bl, d, nq, gk, d, 1);
      }
    });
    std::memcpy(out_q, grad_q, size_t(n * d) * sizeof(float));
    std::memcpy(out_k, grad_k, size_t(n * d) * sizeof(float));
    std::memcpy(out_v, grad_v, size_t(n * dv) * sizeof(float));
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_linear_attention_step_f32(const float* phi_q, const float* phi_k,
                                                                    const float* v, int32_t F, int32_t dv, float eps,
                                                                    float* state_s, float* state_z, float* out) {
  api_guard g("posenc_linear_attention_step_f32");
  POSENC_CHECK(check_positive(F, "F"));
  POSENC_CHECK(check_positive(dv, "dv"));
  if (!(std::isfinite(eps) && eps >= 0.0f))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "eps must be finite and >= 0 (got %g)", static_cast<double>(eps));
  int64_t fd = 0;
  POSENC_CHECK(checked_mul(F, dv, &fd, "state_s [F, dv]", sizeof(float)));
  POSENC_CHECK(check_not_null(phi_q, "phi_q"));
  POSENC_CHECK(check_not_null(phi_k, "phi_k"));
  POSENC_CHECK(check_not_null(v, "v"));
  POSENC_CHECK(check_not_null(state_s, "state_s"));
  POSENC_CHECK(check_not_null(state_z, "state_z"));
  POSENC_CHECK(check_not_null(out, "out"));
  path("linear_attention_step.state");
  work(4.0 * double(2 * fd + 3 * F + 2 * dv), 4.0 * double(fd) + 3.0 * F, true);
  POSENC_SHAPE("F=%d dv=%d", F, dv);
  return guarded([&] {
    std::vector<double> num(static_cast<size_t>(dv), 0.0);
    double den = 0.0;
    for (int32_t f = 0; f < F; ++f) {
      const float kf = phi_k[f];
      float* row = state_s + static_cast<int64_t>(f) * dv;
      for (int32_t c = 0; c < dv; ++c) row[c] += kf * v[c];
      state_z[f] += kf;
      const double qf = phi_q[f];
      den += qf * state_z[f];
      for (int32_t c = 0; c < dv; ++c) num[size_t(c)] += qf * row[c];
    }
    den += eps;
    for (int32_t c = 0; c < dv; ++c) out[c] = den == 0.0 ? 0.0f : static_cast<float>(num[size_t(c)] / den);
    return POSENC_OK;
  });
}
