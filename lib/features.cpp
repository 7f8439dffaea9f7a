// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/features.cpp — features family, random features: sampling of Omega (float64, here, so every
// ISA path gets the same bits), the feature maps and their backward pass: argument validation,
// packing, tiling, and calls into the per-ISA kernel table (kernels/features.hpp). Attention:
// lib/features_attention.cpp (forward, decoding step) and lib/features_attention_backward.cpp.
#include "kernels/features_table.hpp"
#include "lib/features_internal.hpp"
#include "lib/features_ppnd.hpp"
#include "lib/internal.hpp"

#include <Eigen/Dense>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/random/sobol.hpp>

#include <cmath>
#include <cstring>
#include <limits>
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

/// Gamma(a, 1) (a > 0), exact: Marsaglia & Tsang, "A simple method for generating gamma
/// variables", ACM TOMS 26(3), 2000 (squeeze and log test, normals by PPND16); a < 1 through
/// Gamma(a) = Gamma(a + 1) U^(1/a) (their section 6).
double gamma_mt(splitmix64& rng, double a) {
  if (a < 1.0) {
    const double g = gamma_mt(rng, a + 1.0);
    return g * std::pow(rng.uniform(), 1.0 / a);
  }
  const double dd = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * dd);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform(), x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return dd * v;
    if (std::log(u) < 0.5 * x2 + dd * (1.0 - v + std::log(v))) return dd * v;
  }
}

/// The ORTHOGONAL sampler's float64 work arrays for one d.
struct orf_workspace {
  Eigen::MatrixXd v, q;  // Householder vectors (essential parts below the diagonal), Q
  Eigen::VectorXd tau, x, work;
  std::vector<double> sign;
  explicit orf_workspace(int32_t dim)
      : v(dim, dim), q(dim, dim), tau(dim), x(dim), work(dim), sign(static_cast<size_t>(dim)) {}
};

/// ORTHOGONAL rows into omega [m, d]; all scratch is allocated before omega is written. Per
/// block of d rows (the last one: rows < d), Stewart's construction of the Q factor of a
/// Householder QR of a Gaussian d x d matrix without the matrix: reflector k (k < rows) is
/// Eigen's makeHouseholder of a fresh N(0, I_{d-k}) vector x (coordinates k..d-1), with
/// beta_k = -sign(x_0) |x| the diagonal entry of R it would produce; Q = H_0 ... H_{rows-1}
/// (columns j < rows need no later reflector), column k times sign(beta_k) (R's diagonal made
/// positive: Q Haar-distributed), row b0 + k of omega = that column times its chi_d norm / sigma.
void orthogonal_rows(int32_t d, int32_t m, double sigma, uint64_t seed, float* omega) {
  orf_workspace ws(d);
  orf_workspace* const w = &ws;
  std::vector<double> norms(static_cast<size_t>(m));
  // chi_d norms: sqrt(2 Gamma(d/2, 1)), from their own stream
  splitmix64 nrm = stream(seed, POSENC_RF_ORTHOGONAL, 3);
  const double inv_sigma = 1.0 / sigma;
  for (auto& r : norms) r = std::sqrt(2.0 * gamma_mt(nrm, 0.5 * d)) * inv_sigma;
  splitmix64 rng = stream(seed, POSENC_RF_ORTHOGONAL, 0);
  const size_t D = static_cast<size_t>(d);
  for (int32_t b0 = 0; b0 < m; b0 += d) {
    const int32_t rows = std::min(d, m - b0);
    for (int32_t k = 0; k < rows; ++k) {
      const int32_t len = d - k;
      double* xp = w->x.data();
      for (int32_t e = 0; e < len; ++e) xp[e] = rng.normal();
      auto ess = w->v.col(k).tail(len - 1);
      double beta = 0.0;
      w->x.head(len).makeHouseholder(ess, w->tau(k), beta);
      w->sign[size_t(k)] = beta < 0.0 ? -1.0 : 1.0;
    }
    Eigen::HouseholderSequence<Eigen::MatrixXd, Eigen::VectorXd> h(w->v, w->tau);
    h.setLength(rows);
    h.evalTo(w->q, w->work);
    for (int32_t i = 0; i < rows; ++i) {  // row b0 + i: column i of Q, sign-fixed, times its norm
      const double s = w->sign[size_t(i)] * norms[size_t(b0 + i)];
      const double* qc = w->q.data() + size_t(i) * D;
      float* row = omega + static_cast<size_t>(b0 + i) * D;
      for (size_t k = 0; k < D; ++k) row[k] = static_cast<float>(qc[k] * s);
    }
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
    case POSENC_RF_ORTHOGONAL:
      orthogonal_rows(d, m, sigma, seed, omega);
      break;
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
    if (sampling == POSENC_RF_ORTHOGONAL) {  // allocates all its scratch before it writes omega
      orthogonal_rows(d, m, sigma, seed, omega);
      return POSENC_OK;
    }
    // Sample into a scratch buffer so a failure (e.g. bad_alloc) leaves omega untouched.
    std::vector<float> tmp(static_cast<size_t>(total));
    sample_rows(sampling, d, m, sigma, seed, tmp.data());
    std::copy(tmp.begin(), tmp.end(), omega);
    return POSENC_OK;
  });
}

namespace posenc {
namespace detail {
posenc_status check_kind_shift(int kv, int hv) {
  if (kv < POSENC_RF_TRIG || kv > POSENC_RF_RELU)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "kind must be POSENC_RF_TRIG (0), POSENC_RF_POSITIVE (1), POSENC_RF_HYPERBOLIC (2), "
                     "POSENC_RF_GAUSSIAN_POSITIVE (3), POSENC_RF_ELU_PLUS_ONE (4) or POSENC_RF_RELU (5) (got %d)", kv);
  if (hv < POSENC_RF_SHIFT_OVERFLOW || hv > POSENC_RF_SHIFT_SHARED_MAX)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "shift must be POSENC_RF_SHIFT_OVERFLOW (0), POSENC_RF_SHIFT_ROW_MAX (1) or "
                     "POSENC_RF_SHIFT_SHARED_MAX (2) (got %d)", hv);
  return POSENC_OK;
}

void features_run(const features_kernels_t* k, int kind, int shift, const float* x, int64_t n, int32_t d,
                  const float* wt, int32_t m, int64_t m_pad, const float* scale, float* out) {
  const int64_t grain = 192;  // rows per tile (a multiple of the 6-row register block)
  const bool shared = rf_kind_exp(kind) && shift == POSENC_RF_SHIFT_SHARED_MAX;
  std::vector<float> stats(shared ? static_cast<size_t>(2 * n) : 0);
  parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
    std::vector<float> scratch(static_cast<size_t>(kFeaturesRowBlock * m_pad));
    const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
    k->features_rows(kind, rf_kind_exp(kind) ? shift : 0, x, r0, r1, d, wt, m, static_cast<int32_t>(m_pad),
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

std::vector<float> pack_omega_t(const float* omega, int32_t m, int32_t d, int64_t m_pad) {
  std::vector<float> wt(static_cast<size_t>(d * m_pad), 0.0f);
  for (int32_t j = 0; j < m; ++j)
    for (int32_t c = 0; c < d; ++c) wt[static_cast<size_t>(c * m_pad + j)] = omega[static_cast<size_t>(j) * d + c];
  return wt;
}
bool rf_kind_wide(int kv) { return kv == POSENC_RF_TRIG || kv == POSENC_RF_HYPERBOLIC; }
bool rf_kind_exp(int kv) {
  return kv == POSENC_RF_POSITIVE || kv == POSENC_RF_HYPERBOLIC || kv == POSENC_RF_GAUSSIAN_POSITIVE;
}
double rf_base_scale(int kv, int32_t m) {
  if (kv == POSENC_RF_ELU_PLUS_ONE || kv == POSENC_RF_RELU) return 1.0;
  return 1.0 / std::sqrt(kv == POSENC_RF_HYPERBOLIC ? 2.0 * m : static_cast<double>(m));
}
}  // namespace detail
}  // namespace posenc

namespace {
struct rf_sizes {
  int64_t md, nd, F, nout;  // m * d, n * d, columns of a row of the map, n * F
};

/// The shape checks shared by the feature map and its backward, in this order: kind, shift, m > 0,
/// d > 0, n >= 0, omega not NULL, the size products (omega, x, the [n, F] map named size_name) and
/// x, the map (named map_name) not NULL while they have elements.
posenc_status check_rf_shapes(int kv, int hv, const float* omega, int32_t m, int32_t d, const float* x, int64_t n,
                              const float* map, const char* size_name, const char* map_name, rf_sizes* sz) {
  POSENC_CHECK(check_kind_shift(kv, hv));
  POSENC_CHECK(check_positive(m, "m"));
  POSENC_CHECK(check_positive(d, "d"));
  POSENC_CHECK(check_nonneg(n, "n"));
  POSENC_CHECK(check_not_null(omega, "omega"));
  sz->F = rf_kind_wide(kv) ? 2 * static_cast<int64_t>(m) : m;
  POSENC_CHECK(checked_mul(m, d, &sz->md, "omega [m, d]", sizeof(float)));
  POSENC_CHECK(checked_mul(n, d, &sz->nd, "x [n, d]", sizeof(float)));
  POSENC_CHECK(checked_mul(n, sz->F, &sz->nout, size_name, sizeof(float)));
  POSENC_CHECK(check_not_null_if(x, sz->nd, "x"));
  POSENC_CHECK(check_not_null_if(map, sz->nout, map_name));
  return POSENC_OK;
}

/// omega entries finite; weights (if not NULL) finite and >= 0.
posenc_status check_rf_values(const float* omega, int64_t md, const float* weights, int32_t m) {
  for (int64_t i = 0; i < md; ++i)
    if (!std::isfinite(omega[i]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "omega entries must be finite (omega[%lld] = %g)",
                       static_cast<long long>(i), static_cast<double>(omega[i]));
  if (weights)
    for (int32_t j = 0; j < m; ++j)
      if (!(std::isfinite(weights[j]) && weights[j] >= 0.0f))
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "weights must be finite and >= 0 (weights[%d] = %g)", j,
                         static_cast<double>(weights[j]));
  return POSENC_OK;
}
}  // namespace

extern "C" POSENC_API posenc_status posenc_rf_features_f32(posenc_rf_kind kind, posenc_rf_shift shift,
                                                          const float* omega, int32_t m, int32_t d,
                                                          const float* weights, const float* x, int64_t n,
                                                          float* out) {
  api_guard g("posenc_rf_features_f32");
  const int kv = enum_bits(kind), hv = enum_bits(shift);
  rf_sizes sz{};
  POSENC_CHECK(check_rf_shapes(kv, hv, omega, m, d, x, n, out, "out", "out", &sz));
  const int64_t nd = sz.nd, md = sz.md, nout = sz.nout;
  POSENC_CHECK(check_rf_values(omega, md, weights, m));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  static const char* const kFeaturePaths[] = {"rf_features.trig",          "rf_features.positive",
                                              "rf_features.hyperbolic",    "rf_features.gaussian_positive",
                                              "rf_features.elu_plus_one", "rf_features.relu"};
  path(kFeaturePaths[kv]);
  if (rf_kind_exp(kv) && hv != POSENC_RF_SHIFT_OVERFLOW)
    path(hv == POSENC_RF_SHIFT_ROW_MAX ? "rf_features.exp_row_max" : "rf_features.exp_shared_max");
  work(4.0 * double(nd + md + nout), 2.0 * double(n) * m * d, true);  // the projection; exp/sin/cos not counted
  POSENC_SHAPE("n=%lld d=%d m=%d", (long long)n, d, m);
  return guarded([&] {
    const int64_t m_pad = round_up(m, kFeaturesColPad);
    const std::vector<float> wt = pack_omega_t(omega, m, d, m_pad);
    std::vector<float> scale(static_cast<size_t>(m_pad), 0.0f);  // per-feature scale
    const double base = rf_base_scale(kv, m);
    for (int32_t j = 0; j < m; ++j)
      scale[static_cast<size_t>(j)] = static_cast<float>(base * (weights ? static_cast<double>(weights[j]) : 1.0));
    if (hv == POSENC_RF_SHIFT_SHARED_MAX && rf_kind_exp(kv)) {
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

extern "C" POSENC_API posenc_status posenc_rf_features_bf16(posenc_rf_kind kind, posenc_rf_shift shift,
                                                           const float* omega, int32_t m, int32_t d,
                                                           const float* weights, const uint16_t* x, int64_t n,
                                                           uint16_t* out) {
  api_guard g("posenc_rf_features_bf16");
  const int kv = enum_bits(kind), hv = enum_bits(shift);
  rf_sizes sz{};
  const float* xf = reinterpret_cast<const float*>(x);  // only compared with NULL by the checks
  POSENC_CHECK(check_rf_shapes(kv, hv, omega, m, d, xf, n, reinterpret_cast<const float*>(out), "out", "out", &sz));
  const int64_t nd = sz.nd, md = sz.md, nout = sz.nout;
  POSENC_CHECK(check_rf_values(omega, md, weights, m));
  if (n == 0) return POSENC_OK;
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  path("rf_features_bf16.widen_f32_narrow");
  work(2.0 * double(nd + nout) + 4.0 * double(md), 2.0 * double(n) * m * d, true);
  POSENC_SHAPE("n=%lld d=%d m=%d", (long long)n, d, m);
  return guarded([&] {
    const int64_t m_pad = round_up(m, kFeaturesColPad);
    const std::vector<float> wt = pack_omega_t(omega, m, d, m_pad);
    std::vector<float> scale(static_cast<size_t>(m_pad), 0.0f);
    const double base = rf_base_scale(kv, m);
    for (int32_t j = 0; j < m; ++j)
      scale[static_cast<size_t>(j)] = static_cast<float>(base * (weights ? static_cast<double>(weights[j]) : 1.0));
    std::vector<float> xw(static_cast<size_t>(nd)), tmp(static_cast<size_t>(nout));
    const int64_t F = sz.F, grain = 1024;
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      bf16_widen(x + r0 * d, (r1 - r0) * d, xw.data() + r0 * d);
    });
    features_run(k, kv, hv, xw.data(), n, d, wt.data(), m, m_pad, scale.data(), tmp.data());
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      bf16_narrow(tmp.data() + r0 * F, (r1 - r0) * F, out + r0 * F);
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_rf_features_backward_f32(posenc_rf_kind kind, posenc_rf_shift shift,
                                                                   const float* omega, int32_t m, int32_t d,
                                                                   const float* weights, const float* x, int64_t n,
                                                                   const float* grad_out, float* grad_x,
                                                                   float* grad_weights, float* grad_omega) {
  api_guard g("posenc_rf_features_backward_f32");
  const int kv = enum_bits(kind), hv = enum_bits(shift);
  rf_sizes sz{};
  POSENC_CHECK(check_rf_shapes(kv, hv, omega, m, d, x, n, grad_out, "grad_out [n, F]", "grad_out", &sz));
  const int64_t nd = sz.nd, md = sz.md, nout = sz.nout, F = sz.F;
  if (!grad_x && !grad_weights && !grad_omega)
    return set_error(POSENC_ERR_NULL_POINTER, "grad_x, grad_weights and grad_omega are all NULL (at least one is required)");
  POSENC_CHECK(check_rf_values(omega, md, weights, m));
  if (n == 0) {  // empty sums
    if (grad_weights) std::fill(grad_weights, grad_weights + m, 0.0f);
    if (grad_omega) std::fill(grad_omega, grad_omega + md, 0.0f);
    return POSENC_OK;
  }
  const features_kernels_t* k = nullptr;
  POSENC_CHECK(features_kernels_active(&k));
  path(kv == POSENC_RF_TRIG ? "rf_features_backward.trig"
                            : (rf_kind_exp(kv) ? "rf_features_backward.exp" : "rf_features_backward.elementwise"));
  work(4.0 * double(2 * nd + md + 2 * nout), 2.0 * double(n) * m * d * (1.0 + (grad_x ? 1 : 0) + (grad_omega ? 1 : 0)),
       true);
  POSENC_SHAPE("n=%lld d=%d m=%d", (long long)n, d, m);
  return guarded([&] {
    const int64_t m_pad = round_up(m, kFeaturesColPad);
    const std::vector<float> wt = pack_omega_t(omega, m, d, m_pad);
    std::vector<float> base(static_cast<size_t>(m_pad), 0.0f);
    const auto b0 = static_cast<float>(rf_base_scale(kv, m));
    std::fill(base.begin(), base.begin() + m, b0);
    std::vector<float> u(static_cast<size_t>(nout));  // the unweighted map, same shift as the forward
    features_run(k, kv, hv, x, n, d, wt.data(), m, m_pad, base.data(), u.data());
    const int64_t grain = 256;
    const int64_t nt = tiles_of(n, grain);
    std::vector<double> gw_part(grad_weights ? static_cast<size_t>(nt * m) : 0);
    std::vector<float> gom_part(grad_omega ? static_cast<size_t>(nt * md) : 0);
    const double hf = kv == POSENC_RF_GAUSSIAN_POSITIVE ? 2.0 : (rf_kind_exp(kv) ? 1.0 : 0.0);
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
          } else if (kv == POSENC_RF_ELU_PLUS_ONE) {  // u = elu(p) + 1: u' = 1 for p > 0 (u > 1), else u
            di[j] = w * gi[j] * (ui[j] > 1.0f ? 1.0f : ui[j]);
            if (gw) gw[j] += double(gi[j]) * ui[j];
          } else if (kv == POSENC_RF_RELU) {  // u = max(p, 0): u' = [u > 0]
            di[j] = ui[j] > 0.0f ? w * gi[j] : 0.0f;
            if (gw) gw[j] += double(gi[j]) * ui[j];
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
