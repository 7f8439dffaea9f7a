// SPDX-License-Identifier: Apache-2.0 OR MIT
// sphere family tests (S²): Legendre vs GSL and closed forms, real/complex SH vs Boost.Math,
// property tests (addition theorem, quadrature orthonormality, equivariance), Wigner-D, f32,
// threads, bad input. Every kernel test runs on every ISA path (IsaTest).
#include "tests/test_common.hpp"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_legendre.h>

#include <Eigen/Dense>
#include <boost/math/special_functions/spherical_harmonic.hpp>

#include <algorithm>
#include <complex>
#include <map>
#include <random>
#include <tuple>
#include <type_traits>

using namespace posenc_test;

namespace {

constexpr double kPi = 3.14159265358979323846;

int64_t nleg(int L) { return int64_t(L + 1) * (L + 2) / 2; }
int64_t nsh(int L) { return int64_t(L + 1) * (L + 1); }

#if defined(__aarch64__) || defined(__SANITIZE_ADDRESS__)
constexpr bool kSlow = true;  // qemu / ASan: keep the big-degree work smaller
#else
constexpr bool kSlow = false;
#endif

/// GSL reference, cached across ISA instantiations (GSL at lmax 2700 is slow under qemu).
const std::vector<double>& gsl_ref(int norm, int L, int cs, double x) {
  static std::map<std::tuple<int, int, int, double>, std::vector<double>> cache;
  auto key = std::make_tuple(norm, L, cs, x);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  static const gsl_sf_legendre_t gn[4] = {GSL_SF_LEGENDRE_NONE, GSL_SF_LEGENDRE_SCHMIDT, GSL_SF_LEGENDRE_SPHARM,
                                          GSL_SF_LEGENDRE_FULL};
  std::vector<double> r(gsl_sf_legendre_array_n(static_cast<size_t>(L)));
  gsl_set_error_handler_off();
  gsl_sf_legendre_array_e(gn[norm], static_cast<size_t>(L), x, double(cs), r.data());
  r.resize(static_cast<size_t>(nleg(L)));
  return cache.emplace(key, std::move(r)).first->second;
}

/// Forward three-term recurrences in l lose accuracy near the poles like (l+1)^1.5 eps (both GSL
/// and posenc; measured against long double: 1.6e-11 at l = 2700, x = 1): the tolerance used
/// when comparing two such evaluations near a pole.
double pole_tol(int l) { return 16.0 * std::pow(double(l + 1), 1.5) * 2.220446049250313e-16; }

/// Max over l of max_m |a - b| / rms_m(b) / tol(l) (finite b entries only; rms floor 1e-300).
template <class Tol>
double block_rel_err(const double* a, const std::vector<double>& b, int L, Tol tol, int* worst_l = nullptr) {
  double worst = 0;
  for (int l = 0; l <= L; ++l) {
    const int64_t o = int64_t(l) * (l + 1) / 2;
    double ss = 0;
    int cnt = 0;
    for (int m = 0; m <= l; ++m)
      if (std::isfinite(b[o + m])) { ss += b[o + m] * b[o + m]; ++cnt; }
    if (cnt == 0) continue;
    const double rms = std::max(std::sqrt(ss / cnt), 1e-300);
    if (!std::isfinite(rms)) continue;
    for (int m = 0; m <= l; ++m) {
      if (!std::isfinite(b[o + m])) continue;
      const double e = std::fabs(a[o + m] - b[o + m]) / rms / tol(l);
      if (!(e <= worst)) {
        worst = e;
        if (worst_l) *worst_l = l;
      }
    }
  }
  return worst;
}

/// 1e-12 relative to the degree block away from the poles (|x| <= 0.999), pole_tol near them.
auto gsl_tol(double x) {
  return [x](int l) { return std::fabs(x) <= 0.999 ? 1e-12 : std::max(1e-12, pole_tol(l)); };
}

class Legendre : public IsaTest {};

TEST_P(Legendre, MatchesGslAllNormsBothPhasesLowAndMidDegree) {
  std::vector<double> xs = {1.0, -1.0, 0.0, 1.0 - 1e-15, -1.0 + 1e-12, 1.0 - 1e-6, 0.999, -0.5, 0.3, 1e-300};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int i = 0; i < 5; ++i) xs.push_back(U(rng));
  const int64_t n = int64_t(xs.size());
  for (int L : {0, 1, 2, 3, 7, 31, 200}) {
    for (int norm = 0; norm < 4; ++norm) {
      for (int cs : {1, -1}) {
        const int64_t K = nleg(L);
        std::vector<double> out(static_cast<size_t>(n * K) + 1);
        poison(out);
        ASSERT_EQ(posenc_legendre_f64(posenc_legendre_norm(norm), L, cs, xs.data(), n, out.data() + 1), POSENC_OK)
            << posenc_last_error_message();
        EXPECT_TRUE(is_poison(out[0]));
        for (int64_t i = 0; i < n; ++i) {
          const auto& ref = gsl_ref(norm, L, cs, xs[static_cast<size_t>(i)]);
          const double* o = out.data() + 1 + i * K;
          for (int64_t j = 0; j < K; ++j) ASSERT_FALSE(is_poison(o[j]));
          int wl = -1;
          const double e = block_rel_err(o, ref, L, gsl_tol(xs[static_cast<size_t>(i)]), &wl);
          EXPECT_LE(e, 1.0) << "L " << L << " norm " << norm << " cs " << cs << " x " << xs[static_cast<size_t>(i)] << " l " << wl;
        }
      }
    }
  }
}

TEST_P(Legendre, MatchesGslToDegree2700IncludingPoles) {
  const int L = 2700;
  // Near-pole and generic points (poles below); under qemu / ASan the near-pole one only.
  const std::vector<double> xs = kSlow ? std::vector<double>{1.0 - 1e-12} : std::vector<double>{1.0 - 1e-12, 0.3};
  const int64_t n = int64_t(xs.size()), K = nleg(L);
  std::vector<double> out(static_cast<size_t>(n * K));
  for (int norm = 0; norm < 4; ++norm) {
    for (int cs : {1, -1}) {
      ASSERT_EQ(posenc_legendre_f64(posenc_legendre_norm(norm), L, cs, xs.data(), n, out.data()), POSENC_OK);
      for (int64_t i = 0; i < n; ++i) {
        const auto& ref = gsl_ref(norm, L, cs, xs[static_cast<size_t>(i)]);
        const double* o = out.data() + i * K;
        if (norm != 0) {
          for (int64_t j = 0; j < K; ++j) ASSERT_TRUE(std::isfinite(o[j])) << "index " << j;
        }
        int wl = -1;
        const double e = block_rel_err(o, ref, L, gsl_tol(xs[static_cast<size_t>(i)]), &wl);
        EXPECT_LE(e, 1.0) << "norm " << norm << " cs " << cs << " x " << xs[static_cast<size_t>(i)] << " at l " << wl;
      }
    }
  }
  // The poles: only m = 0 is nonzero; P_l(+-1) = (+-1)^l in every norm's scaling.
  const std::vector<double> poles = {1.0, -1.0};
  std::vector<double> po(static_cast<size_t>(2 * K));
  ASSERT_EQ(posenc_legendre_f64(POSENC_LEGENDRE_SCHMIDT, L, 1, poles.data(), 2, po.data()), POSENC_OK);
  for (int l = 0; l <= L; ++l)
    for (int m = 0; m <= l; ++m) {
      const int64_t j = int64_t(l) * (l + 1) / 2 + m;
      ASSERT_NEAR(po[static_cast<size_t>(j)], m == 0 ? 1.0 : 0.0, pole_tol(l) / 16);
      ASSERT_NEAR(po[static_cast<size_t>(K + j)], m == 0 ? ((l & 1) ? -1.0 : 1.0) : 0.0, pole_tol(l) / 16);
    }
}

TEST_P(Legendre, ClosedFormsAtLowDegree) {
  std::vector<double> xs = {-1, -0.7, -0.1, 0, 0.2, 0.5, 0.99, 1};
  const int L = 3;
  const int64_t K = nleg(L), n = int64_t(xs.size());
  std::vector<double> out(static_cast<size_t>(n * K)), sch(static_cast<size_t>(n * K)), sph(static_cast<size_t>(n * K)), full(static_cast<size_t>(n * K));
  ASSERT_EQ(posenc_legendre_f64(POSENC_LEGENDRE_NONE, L, 1, xs.data(), n, out.data()), POSENC_OK);
  ASSERT_EQ(posenc_legendre_f64(POSENC_LEGENDRE_SCHMIDT, L, -1, xs.data(), n, sch.data()), POSENC_OK);
  ASSERT_EQ(posenc_legendre_f64(POSENC_LEGENDRE_SPHARM, L, 1, xs.data(), n, sph.data()), POSENC_OK);
  ASSERT_EQ(posenc_legendre_f64(POSENC_LEGENDRE_FULL, L, 1, xs.data(), n, full.data()), POSENC_OK);
  for (int64_t i = 0; i < n; ++i) {
    const double x = xs[static_cast<size_t>(i)], s = std::sqrt(1 - x * x);
    const double P[10] = {1, x, s, 1.5 * x * x - 0.5, 3 * x * s, 3 * s * s,
                          0.5 * (5 * x * x * x - 3 * x), 1.5 * (5 * x * x - 1) * s, 15 * x * s * s, 15 * s * s * s};
    const int ll[10] = {0, 1, 1, 2, 2, 2, 3, 3, 3, 3}, mm[10] = {0, 0, 1, 0, 1, 2, 0, 1, 2, 3};
    for (int j = 0; j < 10; ++j) {
      const int l = ll[j], m = mm[j];
      double fr = 1;  // (l-m)!/(l+m)!
      for (int k = l - m + 1; k <= l + m; ++k) fr /= k;
      EXPECT_NEAR(out[static_cast<size_t>(i * K + j)], P[j], 1e-14 * 15) << j;
      EXPECT_NEAR(sch[static_cast<size_t>(i * K + j)], ((m & 1) ? -1 : 1) * std::sqrt((m ? 2.0 : 1.0) * fr) * P[j], 1e-15 * 4);
      EXPECT_NEAR(sph[static_cast<size_t>(i * K + j)], std::sqrt((2 * l + 1) / (4 * kPi) * fr) * P[j], 1e-15 * 4);
      EXPECT_NEAR(full[static_cast<size_t>(i * K + j)], std::sqrt((l + 0.5) * fr) * P[j], 1e-15 * 4);
    }
  }
}

/// Long double reference of Schmidt columns S_l^m, l = m..L, for the listed m (plain recurrence;
/// long double's exponent range covers x = 0.5 at any degree used here).
std::vector<std::vector<double>> schmidt_ld_columns(int L, double x, const std::vector<int>& ms) {
  std::vector<std::vector<double>> cols;
  const long double X = x, u = sqrtl((1.0L - X) * (1.0L + X));
  for (int m : ms) {
    long double z = 1.0L;
    for (int k = 1; k <= m; ++k) z = k == 1 ? u : z * sqrtl((2.0L * k - 1) / (2.0L * k)) * u;
    std::vector<double> c(static_cast<size_t>(L + 1), 0.0);
    long double a2 = z, a1 = 0;
    c[static_cast<size_t>(m)] = double(a2);
    if (m + 1 <= L) {
      a1 = sqrtl(2.0L * m + 1) * X * a2;
      c[static_cast<size_t>(m + 1)] = double(a1);
    }
    for (int l = m + 2; l <= L; ++l) {
      const long double v = ((2.0L * l - 1) * X * a1 - sqrtl((long double)(l - 1 - m) * (l - 1 + m)) * a2) /
                            sqrtl((long double)(l - m) * (l + m));
      a2 = a1;
      a1 = v;
      c[static_cast<size_t>(l)] = double(v);
    }
    cols.push_back(std::move(c));
  }
  return cols;
}

TEST_P(Legendre, ExtendedRangeBeyondGslTo10000) {
  // One point per call: the output at lmax 10000 is 50M doubles (400 MB).
  const int L = kSlow ? 3000 : 10000;
  const int64_t K = nleg(L);
  std::vector<double> out(static_cast<size_t>(K));
  // Under qemu / ASan the near-pole point only (x = 0.5 feeds the long double comparison).
  const std::vector<double> xs = kSlow ? std::vector<double>{1.0 - 1e-15} : std::vector<double>{1.0 - 1e-15, 0.5};
  for (double x : xs) {
    ASSERT_EQ(posenc_legendre_f64(POSENC_LEGENDRE_SCHMIDT, L, 1, &x, 1, out.data()), POSENC_OK);
    // Addition theorem for Schmidt functions: sum_m S_l^m(x)^2 = 1 for every l, at every x.
    double worst = 0;
    int wl = -1;
    for (int l = 0; l <= L; ++l) {
      const double* o = out.data() + int64_t(l) * (l + 1) / 2;
      double s = 0;
      for (int m = 0; m <= l; ++m) s += o[m] * o[m];
      ASSERT_TRUE(std::isfinite(s)) << "l " << l;
      const double e = std::fabs(s - 1) / std::max(1e-13, pole_tol(l) / 16);
      if (!(e <= worst)) { worst = e; wl = l; }
    }
    EXPECT_LE(worst, 1.0) << "sum rule at x " << x << " l " << wl;
    // Against a long double evaluation of some columns (x86: 64-bit mantissa); the rms of a
    // Schmidt degree block is 1/sqrt(l+1).
    if (sizeof(long double) > sizeof(double) && !kSlow && x == 0.5) {
      const std::vector<int> ms = {0, 1, 7, 100, 1000, 4000, 9000, L};
      const auto cols = schmidt_ld_columns(L, x, ms);
      double we = 0;
      for (size_t c = 0; c < ms.size(); ++c)
        for (int l = ms[c]; l <= L; ++l) {
          const double e = std::fabs(out[static_cast<size_t>(int64_t(l) * (l + 1) / 2 + ms[c])] - cols[c][static_cast<size_t>(l)]) *
                           std::sqrt(l + 1.0) / std::max(1e-13, pole_tol(l) / 16);
          we = std::max(we, e);
        }
      EXPECT_LE(we, 1.0) << "vs long double";
    }
  }
}

TEST_P(Legendre, Float32MatchesFloat64) {
  std::vector<float> xf = {1.f, -1.f, 0.f, 0.99999f, -0.25f, 0.7f, 0.123f, -0.9f, 0.5f};
  std::vector<double> xd(xf.begin(), xf.end());
  const int L = 150;
  const int64_t n = int64_t(xf.size()), K = nleg(L);
  for (int norm = 1; norm < 4; ++norm) {
    std::vector<float> of(static_cast<size_t>(n * K));
    std::vector<double> od(static_cast<size_t>(n * K));
    poison(of);
    ASSERT_EQ(posenc_legendre_f32(posenc_legendre_norm(norm), L, -1, xf.data(), n, of.data()), POSENC_OK);
    ASSERT_EQ(posenc_legendre_f64(posenc_legendre_norm(norm), L, -1, xd.data(), n, od.data()), POSENC_OK);
    for (int64_t i = 0; i < n * K; ++i) {
      ASSERT_FALSE(is_poison(of[static_cast<size_t>(i)]));
      ASSERT_EQ(of[static_cast<size_t>(i)], static_cast<float>(od[static_cast<size_t>(i)])) << i;  // computed in f64, rounded once
    }
  }
}

/// >= 16 MB of output takes the non-temporal path on AVX2 (each row of a full block its own
/// line_stream, from lmax 32); one point a call takes the ordinary tiles. Same bits required,
/// every value written, the output misaligned by one element; the first 10 float64 rows also
/// against GSL (block-relative, as MatchesGslToDegree2700IncludingPoles). lmax 40 and 600, with points at
/// and next to the poles (x = 1 - 1e-15, -1 + 1e-12: sin theta ~ 1e-7, so the sectoral seeds
/// leave the double range and columns carry extended exponents); 13 / 27 points at lmax 600:
/// tiles of 8 points, a partial last block.
TEST_P(Legendre, LargeOutputStreamedPathMatchesOnePointCallsBitwise) {
  const std::vector<std::pair<int, int64_t>> cases = {{40, 2441}, {600, 13}};
  for (const auto& [L, n64] : cases)
    for (int f32 = 0; f32 <= 1; ++f32) {
      const int64_t K = nleg(L);
      const int64_t n = f32 ? 2 * n64 + 1 : n64;
      std::vector<double> xd(static_cast<size_t>(n));
      std::mt19937_64 rng(11);
      std::uniform_real_distribution<double> U(-1.0, 1.0);
      for (auto& v : xd) v = U(rng);
      const double special[] = {1.0, -1.0, 0.0, 1.0 - 1e-15, -1.0 + 1e-12, 1e-300};
      for (size_t i = 0; i < 6; ++i) xd[(i * 5 + 3) % xd.size()] = special[i];
      std::vector<float> xf(xd.begin(), xd.end());
      const auto norm = f32 ? POSENC_LEGENDRE_FULL : POSENC_LEGENDRE_SCHMIDT;
      const int cs = f32 ? 1 : -1;
      ASSERT_GE(n * K * (f32 ? 4 : 8), int64_t(16) << 20);
      // The whole call (streamed) against one point a call, for either element type.
      auto check = [&](const auto& xin, auto fn) {
        using T = typename std::decay_t<decltype(xin)>::value_type;
        std::vector<T> a(static_cast<size_t>(n * K) + 1), b(static_cast<size_t>(n * K));
        poison(a);
        ASSERT_EQ(fn(norm, L, cs, xin.data(), n, a.data() + 1), POSENC_OK) << posenc_last_error_message();
        EXPECT_TRUE(is_poison(a[0]));
        for (int64_t p = 0; p < n; ++p) ASSERT_EQ(fn(norm, L, cs, xin.data() + p, 1, b.data() + p * K), POSENC_OK);
        a.erase(a.begin());
        for (T v : a) ASSERT_FALSE(is_poison(v));
        EXPECT_TRUE(same_bits(a, b)) << "lmax " << L << (f32 ? " float32" : " float64");
        if constexpr (std::is_same<T, double>::value) {  // the streamed rows against GSL too
          for (int64_t p = 0; p < 10; ++p) {
            const double xp = xin[static_cast<size_t>(p)];
            int wl = -1;
            const double e = block_rel_err(a.data() + p * K, gsl_ref(static_cast<int>(norm), L, cs, xp), L, gsl_tol(xp), &wl);
            EXPECT_LE(e, 1.0) << "lmax " << L << " x " << xp << " at l " << wl;
          }
        }
      };
      if (f32) check(xf, posenc_legendre_f32);
      else check(xd, posenc_legendre_f64);
    }
}

TEST_P(Legendre, PolynomialsMatchGslAndKernelMatchesExplicitSum) {
  std::vector<double> xs = {-1, 1, 0, 0.3, -0.77, 1 - 1e-9, 0.5, 0.25, -0.999, 0.6, 0.11};
  const int L = 1000;
  const int64_t n = int64_t(xs.size());
  std::vector<double> out(static_cast<size_t>(n * (L + 1)));
  ASSERT_EQ(posenc_legendre_poly_f64(L, xs.data(), n, out.data()), POSENC_OK);
  std::vector<double> ref(static_cast<size_t>(L + 1));
  for (int64_t i = 0; i < n; ++i) {
    gsl_sf_legendre_Pl_array(L, xs[static_cast<size_t>(i)], ref.data());
    for (int l = 0; l <= L; ++l)
      ASSERT_NEAR(out[static_cast<size_t>(i * (L + 1) + l)], ref[static_cast<size_t>(l)], std::max(1e-13, pole_tol(l) / 16)) << l;
  }
  // Kernel: Clenshaw vs the explicit weighted sum of P_l from GSL.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<double> w(static_cast<size_t>(L + 1));
  for (auto& v : w) v = U(rng);
  std::vector<double> k1(static_cast<size_t>(n)), k2(static_cast<size_t>(n));
  ASSERT_EQ(posenc_sph_kernel_f64(L, w.data(), xs.data(), n, k1.data()), POSENC_OK);
  ASSERT_EQ(posenc_sph_kernel_f64(L, nullptr, xs.data(), n, k2.data()), POSENC_OK);
  for (int64_t i = 0; i < n; ++i) {
    gsl_sf_legendre_Pl_array(L, xs[static_cast<size_t>(i)], ref.data());
    // Tolerance: the reference P_l carry the near-pole error (l+1)^1.5 eps of any forward
    // recurrence; away from the poles 1e-13 of the sum of |terms|.
    long double s1 = 0, s2 = 0, mag = 0, tol = 0;
    for (int l = 0; l <= L; ++l) {
      const long double t = (2.0L * l + 1) / (4 * kPi) * ref[static_cast<size_t>(l)];
      s1 += w[static_cast<size_t>(l)] * t;
      s2 += t;
      mag += fabsl(t);
      tol += (2.0L * l + 1) / (4 * kPi) * std::max(1e-13, pole_tol(l) / 8);
    }
    const double tl = std::fabs(xs[static_cast<size_t>(i)]) <= 0.999 ? 1e-13 * double(mag) : double(tol);
    EXPECT_NEAR(k1[static_cast<size_t>(i)], double(s1), tl) << xs[static_cast<size_t>(i)];
    EXPECT_NEAR(k2[static_cast<size_t>(i)], double(s2), tl) << xs[static_cast<size_t>(i)];
  }
}

POSENC_INSTANTIATE_ISA(Legendre);

// ------------------------------------------------------------------------------ real SH
std::vector<double> test_dirs(size_t n_random, uint64_t seed) {
  std::vector<double> v = {0, 0, 1,   0, 0, -1,   1, 0, 0,   0, 1, 0,   -1, -1, 0,   1e-9, 0, 1,
                           0, -1e-12, -3, 2, 3, 4,   1e-300, 2e-300, -1e-300,   1e300, -1e300, 5e299,
                           0.5, -0.25, 1e-17};
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0, 1);
  for (size_t i = 0; i < 3 * n_random; ++i) v.push_back(N(rng) * 3);
  return v;
}

/// Real SH by Boost.Math (its spherical_harmonic includes the Condon-Shortley phase).
void boost_real_sh(int L, double x, double y, double z, double* out) {
  const double r = std::sqrt(x * x / 1e0 + y * y + z * z);
  (void)r;
  const double mx = std::max({std::fabs(x), std::fabs(y), std::fabs(z)});
  x /= mx; y /= mx; z /= mx;
  const double rr = std::sqrt(x * x + y * y + z * z);
  const double theta = std::atan2(std::sqrt(x * x + y * y), z), phi = std::atan2(y, x);
  (void)rr;
  for (int l = 0; l <= L; ++l) {
    out[l * (l + 1)] = boost::math::spherical_harmonic_r(unsigned(l), 0, theta, phi);
    for (int m = 1; m <= l; ++m) {
      const double sg = (m & 1) ? -std::sqrt(2.0) : std::sqrt(2.0);
      out[l * (l + 1) + m] = sg * boost::math::spherical_harmonic_r(unsigned(l), m, theta, phi);
      out[l * (l + 1) - m] = sg * boost::math::spherical_harmonic_i(unsigned(l), m, theta, phi);
    }
  }
}

class SphHarm : public IsaTest {};

TEST_P(SphHarm, RealMatchesBoostToDegree20) {
  const auto dirs = test_dirs(40, 11);
  const int64_t n = int64_t(dirs.size() / 3);
  for (int L : {0, 1, 2, 3, 6, 13, 20}) {
    const int64_t K = nsh(L);
    std::vector<double> out(static_cast<size_t>(n * K) + 1), ref(static_cast<size_t>(K));
    poison(out);
    ASSERT_EQ(posenc_sph_harm_real_f64(L, dirs.data(), n, out.data() + 1), POSENC_OK) << posenc_last_error_message();
    EXPECT_TRUE(is_poison(out[0]));
    for (int64_t i = 0; i < n; ++i) {
      boost_real_sh(L, dirs[static_cast<size_t>(3 * i)], dirs[static_cast<size_t>(3 * i + 1)], dirs[static_cast<size_t>(3 * i + 2)], ref.data());
      for (int64_t k = 0; k < K; ++k) {
        ASSERT_FALSE(is_poison(out[static_cast<size_t>(1 + i * K + k)]));
        ASSERT_NEAR(out[static_cast<size_t>(1 + i * K + k)], ref[static_cast<size_t>(k)], 2e-13) << "L " << L << " point " << i << " k " << k;
      }
    }
  }
}

TEST_P(SphHarm, SumRuleAtLargeDegree) {
  const auto dirs = test_dirs(5, 12);
  const int64_t n = int64_t(dirs.size() / 3);
  const int L = kSlow ? 300 : 1000;
  const int64_t K = nsh(L);
  std::vector<double> out(static_cast<size_t>(n * K));
  ASSERT_EQ(posenc_sph_harm_real_f64(L, dirs.data(), n, out.data()), POSENC_OK);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int l = 0; l <= L; ++l) {
      double s = 0;
      for (int m = -l; m <= l; ++m) s += out[static_cast<size_t>(i * K + l * (l + 1) + m)] * out[static_cast<size_t>(i * K + l * (l + 1) + m)];
      worst = std::max(worst, std::fabs(s / ((2 * l + 1) / (4 * kPi)) - 1));
    }
  EXPECT_LE(worst, 1e-12);
}

TEST_P(SphHarm, OrthonormalUnderGaussLegendreQuadrature) {
  const int L = 20, nt = L + 1, np = 2 * L + 2;
  gsl_integration_glfixed_table* tab = gsl_integration_glfixed_table_alloc(static_cast<size_t>(nt));
  std::vector<double> dirs, wts;
  for (int i = 0; i < nt; ++i) {
    double xi, wi;
    gsl_integration_glfixed_point(-1, 1, static_cast<size_t>(i), &xi, &wi, tab);
    for (int j = 0; j < np; ++j) {
      const double ph = 2 * kPi * j / np, s = std::sqrt(1 - xi * xi);
      dirs.insert(dirs.end(), {s * std::cos(ph), s * std::sin(ph), xi});
      wts.push_back(wi * 2 * kPi / np);
    }
  }
  gsl_integration_glfixed_table_free(tab);
  const int64_t n = int64_t(wts.size()), K = nsh(L);
  std::vector<double> out(static_cast<size_t>(n * K));
  ASSERT_EQ(posenc_sph_harm_real_f64(L, dirs.data(), n, out.data()), POSENC_OK);
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> Y(out.data(), n, K);
  Eigen::VectorXd w = Eigen::Map<Eigen::VectorXd>(wts.data(), n);
  Eigen::MatrixXd G = Y.transpose() * w.asDiagonal() * Y;
  EXPECT_LE((G - Eigen::MatrixXd::Identity(K, K)).cwiseAbs().maxCoeff(), 1e-12);
}

TEST_P(SphHarm, AdditionTheoremMatchesKernel) {
  const int L = 200;
  const auto dirs = test_dirs(10, 13);
  const int64_t n = int64_t(dirs.size() / 3), K = nsh(L);
  std::vector<double> Y(static_cast<size_t>(n * K));
  ASSERT_EQ(posenc_sph_harm_real_f64(L, dirs.data(), n, Y.data()), POSENC_OK);
  std::vector<double> w(static_cast<size_t>(L + 1));
  for (int l = 0; l <= L; ++l) w[static_cast<size_t>(l)] = std::exp(-0.01 * l);
  std::vector<double> cg, direct;
  auto unit = [&](int64_t i, double* u) {
    const double mx = std::max({std::fabs(dirs[3 * i]), std::fabs(dirs[3 * i + 1]), std::fabs(dirs[3 * i + 2])});
    double a = dirs[3 * i] / mx, b = dirs[3 * i + 1] / mx, c = dirs[3 * i + 2] / mx, r = std::sqrt(a * a + b * b + c * c);
    u[0] = a / r; u[1] = b / r; u[2] = c / r;
  };
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double a[3], b[3];
      unit(i, a);
      unit(j, b);
      cg.push_back(std::max(-1.0, std::min(1.0, a[0] * b[0] + a[1] * b[1] + a[2] * b[2])));
      double s = 0;
      for (int l = 0; l <= L; ++l) {
        double t = 0;
        for (int m = -l; m <= l; ++m) t += Y[static_cast<size_t>(i * K + l * (l + 1) + m)] * Y[static_cast<size_t>(j * K + l * (l + 1) + m)];
        s += w[static_cast<size_t>(l)] * t;
      }
      direct.push_back(s);
    }
  std::vector<double> kern(cg.size());
  ASSERT_EQ(posenc_sph_kernel_f64(L, w.data(), cg.data(), int64_t(cg.size()), kern.data()), POSENC_OK);
  // Scale: sum_l w_l (2l+1)/(4 pi); the cos_gamma rounding (~1e-16) moves P_l by up to l^2 1e-16.
  double scale = 0;
  for (int l = 0; l <= L; ++l) scale += w[static_cast<size_t>(l)] * (2 * l + 1) / (4 * kPi);
  for (size_t q = 0; q < kern.size(); ++q) EXPECT_NEAR(kern[q], direct[q], 1e-10 * scale) << q;
}

TEST_P(SphHarm, ComplexMatchesBoost) {
  std::vector<double> th = {0, kPi, 1e-10, 0.3, 1.2, 2.9, kPi / 2, -0.4, 4.0}, ph = {0, 1, -2, 0.5, 3.1, -3.1, 7, 0.1, -1};
  const int64_t n = int64_t(th.size());
  for (int L : {0, 1, 5, 20}) {
    const int64_t K = nsh(L);
    std::vector<double> out(static_cast<size_t>(2 * n * K));
    poison(out);
    ASSERT_EQ(posenc_sph_harm_complex_f64(L, th.data(), ph.data(), n, out.data()), POSENC_OK);
    for (int64_t i = 0; i < n; ++i)
      for (int l = 0; l <= L; ++l)
        for (int m = -l; m <= l; ++m) {
          // SciPy convention: P_l^m(cos theta) with |sin theta|: Boost at theta' in [0, pi].
          double t = std::fmod(std::fabs(th[static_cast<size_t>(i)]), 2 * kPi);
          double p = ph[static_cast<size_t>(i)];
          if (t > kPi) t = 2 * kPi - t;
          const std::complex<double> ref = boost::math::spherical_harmonic(unsigned(l), m, t, p);
          const size_t o = static_cast<size_t>(2 * (i * K + l * (l + 1) + m));
          ASSERT_NEAR(out[o], ref.real(), 2e-13) << l << " " << m << " pt " << i;
          ASSERT_NEAR(out[o + 1], ref.imag(), 2e-13) << l << " " << m << " pt " << i;
        }
  }
}

TEST_P(SphHarm, LonLatMatchesCartesian) {
  std::vector<double> ll = {0, 0, 90, 0, 0, 90, 0, -90, 180, 45, -180, -45, 360, 10, 12.5, -33.3, -1000, 89.999999, 7, 60};
  const int64_t n = int64_t(ll.size() / 2);
  const int L = 40;
  const int64_t K = nsh(L);
  std::vector<double> a(static_cast<size_t>(n * K)), b(static_cast<size_t>(n * K)), xyz;
  for (int64_t i = 0; i < n; ++i) {
    const long double lo = ll[static_cast<size_t>(2 * i)] * kPi / 180.0L, la = ll[static_cast<size_t>(2 * i + 1)] * kPi / 180.0L;
    xyz.insert(xyz.end(), {double(cosl(la) * cosl(lo)), double(cosl(la) * sinl(lo)), double(sinl(la))});
  }
  ASSERT_EQ(posenc_sph_harm_real_lonlat_f64(L, ll.data(), n, a.data()), POSENC_OK);
  ASSERT_EQ(posenc_sph_harm_real_f64(L, xyz.data(), n, b.data()), POSENC_OK);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-12) << i;
  // North pole: only m = 0 survives, Y_l0 = sqrt((2l+1)/(4 pi)).
  for (int l = 0; l <= L; ++l)
    for (int m = -l; m <= l; ++m)
      EXPECT_EQ(a[static_cast<size_t>(2 * K + l * (l + 1) + m)] == 0.0, m != 0) << l << " " << m;
}

// The lon/lat front end at low degree (the low-degree kernel), mid degree and with longitudes
// far outside [-360, 360] (reduced in degrees: exact), against the Cartesian entry point of
// long-double unit vectors; multiples of 90 degrees give exact zeros; 1 and 3 threads agree.
TEST_P(SphHarm, LonLatLowDegreeLargeLongitudesAndExactQuadrants) {
  std::vector<double> ll = {90, 0, -270, 0, 3600000090.0, 0, -3600000180.0, 0, 1e300, 20, -7.5e17, -60,
                            0x1p50 + 90, 30, 123.456, 78.9, -179.999, -89.5, 45, 45, 0, 90, 10, -90};
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> ulon(-720, 720), ulat(-90, 90);
  for (int i = 0; i < 37; ++i) ll.insert(ll.end(), {ulon(rng), ulat(rng)});
  const int64_t n = int64_t(ll.size() / 2);
  std::vector<double> xyz;
  for (int64_t i = 0; i < n; ++i) {
    const long double lo = fmodl((long double)ll[size_t(2 * i)], 360.0L) * kPi / 180.0L;
    const long double la = (long double)ll[size_t(2 * i + 1)] * kPi / 180.0L;
    xyz.insert(xyz.end(), {double(cosl(la) * cosl(lo)), double(cosl(la) * sinl(lo)), double(sinl(la))});
  }
  for (int L : {0, 1, 2, 3, 10}) {
    const int64_t K = nsh(L);
    std::vector<double> a(size_t(n * K)), b(size_t(n * K)), c(size_t(n * K));
    poison(a);
    ASSERT_EQ(posenc_sph_harm_real_lonlat_f64(L, ll.data(), n, a.data()), POSENC_OK);
    EXPECT_EQ(count_poison(a), 0u);
    ASSERT_EQ(posenc_sph_harm_real_f64(L, xyz.data(), n, b.data()), POSENC_OK);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 2e-14) << "L " << L << " i " << i;
    if (L >= 1) {
      // (lon, lat) = (90 + 360 k, 0): x = z = 0 exactly, y = 1; (-180 + 360 k, 0): y = z = 0
      const double y1 = 0.48860251190291992159;  // sqrt(3 / (4 pi))
      for (int64_t i : {0, 1, 2}) {
        EXPECT_EQ(a[size_t(i * K + 3)], 0.0) << i;
        EXPECT_EQ(a[size_t(i * K + 2)], 0.0) << i;
        EXPECT_NEAR(a[size_t(i * K + 1)], y1, 1e-16) << i;
      }
      EXPECT_EQ(a[size_t(3 * K + 1)], 0.0);
      EXPECT_EQ(a[size_t(3 * K + 2)], 0.0);
    }
    ThreadScope ts(3);
    ASSERT_EQ(posenc_sph_harm_real_lonlat_f64(L, ll.data(), n, c.data()), POSENC_OK);
    EXPECT_TRUE(same_bits(a, c)) << "L " << L;
    // Every point alone (a tail block) gives the bits it gets inside a full block.
    for (int64_t i = 0; i < n; ++i) {
      std::vector<double> one(static_cast<size_t>(K));
      ASSERT_EQ(posenc_sph_harm_real_lonlat_f64(L, ll.data() + 2 * i, 1, one.data()), POSENC_OK);
      EXPECT_TRUE(same_bits(one, std::vector<double>(a.begin() + i * K, a.begin() + (i + 1) * K))) << "L " << L << " point " << i;
    }
  }
}

/// posenc_sph_harm_real_f32 of the float directions df against posenc_sph_harm_real_f64 of the
/// same directions in double (dd): the worst over points and degrees of the rms error of the
/// degree block relative to its rms value. Every float output must be written (poisoned first).
double f32_block_error(int L, const std::vector<float>& df, const std::vector<double>& dd) {
  const int64_t n = int64_t(df.size() / 3), K = nsh(L);
  std::vector<float> of(static_cast<size_t>(n * K));
  std::vector<double> od(static_cast<size_t>(n * K));
  poison(of);
  EXPECT_EQ(posenc_sph_harm_real_f32(L, df.data(), n, of.data()), POSENC_OK) << posenc_last_error_message();
  EXPECT_EQ(posenc_sph_harm_real_f64(L, dd.data(), n, od.data()), POSENC_OK) << posenc_last_error_message();
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int l = 0; l <= L; ++l) {
      double se = 0, sr = 0;
      for (int m = -l; m <= l; ++m) {
        const size_t k = static_cast<size_t>(i * K + l * (l + 1) + m);
        if (is_poison(of[k])) {
          ADD_FAILURE() << "lmax " << L << ": output " << k << " not written";
          return 1.0;
        }
        se += (double(of[k]) - od[k]) * (double(of[k]) - od[k]);
        sr += od[k] * od[k];
      }
      worst = std::max(worst, std::sqrt(se / sr));
    }
  return worst;
}

TEST_P(SphHarm, Float32WithinOneEMinus5PerDegreeBlockTo150) {
  const int L = 150;
  const auto dirs = test_dirs(20, 14);
  std::vector<float> df;
  for (size_t i = 0; i < dirs.size(); ++i) {
    const size_t p = i / 3;
    if (p == 8 || p == 9) continue;  // 1e-300 / 1e300 are not float32 values
    df.push_back(float(dirs[i]));
  }
  std::vector<double> dd(df.begin(), df.end());
  const double worst = f32_block_error(L, df, dd);
  EXPECT_LE(worst, 1e-5);
  EXPECT_LE(worst, 1e-7);  // rounded once from float64
}

TEST_P(SphHarm, BitwiseIdenticalForOneTwoThreeThreads) {
  const auto dirs = test_dirs(300, 15);
  const int64_t n = int64_t(dirs.size() / 3);
  std::vector<float> df(dirs.size());
  for (size_t i = 0; i < dirs.size(); ++i) df[i] = float(std::max(-1e30, std::min(1e30, dirs[i])));
  for (size_t i = 24; i < 30; ++i) df[i] = 1.0f;
  std::vector<double> xs(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = std::tanh(dirs[static_cast<size_t>(3 * i)]);
  std::vector<std::vector<double>> r64(3), l64(3);
  std::vector<std::vector<float>> r32(3);
  for (int t = 1; t <= 3; ++t) {
    ThreadScope ts(t);
    r64[t - 1].resize(static_cast<size_t>(n * nsh(30)));
    r32[t - 1].resize(static_cast<size_t>(n * nsh(30)));
    l64[t - 1].resize(static_cast<size_t>(n * nleg(60)));
    ASSERT_EQ(posenc_sph_harm_real_f64(30, dirs.data(), n, r64[t - 1].data()), POSENC_OK);
    ASSERT_EQ(posenc_sph_harm_real_f32(30, df.data(), n, r32[t - 1].data()), POSENC_OK);
    ASSERT_EQ(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 60, -1, xs.data(), n, l64[t - 1].data()), POSENC_OK);
  }
  EXPECT_TRUE(same_bits(r64[0], r64[1]) && same_bits(r64[0], r64[2]));
  EXPECT_TRUE(same_bits(r32[0], r32[1]) && same_bits(r32[0], r32[2]));
  EXPECT_TRUE(same_bits(l64[0], l64[1]) && same_bits(l64[0], l64[2]));
}

/// Calls of 300 points take the AVX-512 whole-line writer (super-blocks of 64 / 128 points whose
/// rows share an alignment, partial lines merged across rows) for their first 256 points; calls
/// of one point take the plain tile writer. The values come from the same recurrence, so the
/// bits must agree, at every output misalignment, for degrees whose rows are shorter and longer
/// than two lines; nothing outside the output may be touched.
/// n directions with standard normal components (3 n values).
std::vector<double> normal_dirs(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0, 1);
  std::vector<double> d(static_cast<size_t>(3 * n));
  for (auto& v : d) v = N(rng);
  return d;
}

TEST_P(SphHarm, WholeLineWriterMatchesPerPointCallsBitwise) {
  const int64_t n = 300;
  const std::vector<double> d = normal_dirs(n, 21);
  std::vector<float> df(d.begin(), d.end());
  std::vector<double> dd(df.begin(), df.end());  // the same directions for both precisions
  // Every lmax with a compiled body (1..16: order-outer recurrence, kSphOrderOuterLmax) and one
  // past it: the super-blocks take those bodies, the per-point calls the run-time-lmax one.
  for (int L : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 20}) {
    const int64_t K = nsh(L);
    for (int off : {0, 1, 3, 7, 13}) {
      std::vector<double> a(static_cast<size_t>(n * K + 32)), b(static_cast<size_t>(n * K));
      std::vector<float> af(static_cast<size_t>(n * K + 32)), bf(static_cast<size_t>(n * K));
      poison(a);
      poison(af);
      ASSERT_EQ(posenc_sph_harm_real_f64(L, dd.data(), n, a.data() + off), POSENC_OK);
      ASSERT_EQ(posenc_sph_harm_real_f32(L, df.data(), n, af.data() + off), POSENC_OK);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(posenc_sph_harm_real_f64(L, dd.data() + 3 * i, 1, b.data() + i * K), POSENC_OK);
        ASSERT_EQ(posenc_sph_harm_real_f32(L, df.data() + 3 * i, 1, bf.data() + i * K), POSENC_OK);
      }
      for (size_t i = 0; i < a.size(); ++i) {
        const bool inside = i >= size_t(off) && i < size_t(off + n * K);
        ASSERT_EQ(is_poison(a[i]), !inside) << "L " << L << " off " << off << " i " << i;
        ASSERT_EQ(is_poison(af[i]), !inside) << "L " << L << " off " << off << " i " << i;
      }
      EXPECT_TRUE(same_bits(std::vector<double>(a.begin() + off, a.begin() + off + n * K), b)) << "L " << L << " off " << off;
      EXPECT_TRUE(same_bits(std::vector<float>(af.begin() + off, af.begin() + off + n * K), bf)) << "L " << L << " off " << off;
    }
  }
}

/// Every tail size: n = 1 .. 40 points (full blocks of 4, 8 or 16 points and a last block of
/// every size np < W, partial float32 tiles), at lmax 3 (blocks of < 1 KB, not staged), 10 (the
/// compiled order-outer body, staged through line_stream) and 17 (run-time lmax), output
/// misaligned by one element. Same bits as one-point calls, and no element outside the output
/// written (a tail block storing rows past its last point shows as an overwritten poison).
TEST_P(SphHarm, EveryTailSizeMatchesPerPointCallsBitwise) {
  const std::vector<double> d = normal_dirs(40, 29);
  std::vector<float> df(d.begin(), d.end());
  std::vector<double> dd(df.begin(), df.end());
  for (int L : {3, 10, 17}) {
    const int64_t K = nsh(L);
    std::vector<double> b(static_cast<size_t>(40 * K));
    std::vector<float> bf(static_cast<size_t>(40 * K));
    for (int64_t i = 0; i < 40; ++i) {
      ASSERT_EQ(posenc_sph_harm_real_f64(L, dd.data() + 3 * i, 1, b.data() + i * K), POSENC_OK);
      ASSERT_EQ(posenc_sph_harm_real_f32(L, df.data() + 3 * i, 1, bf.data() + i * K), POSENC_OK);
    }
    for (int64_t n = 1; n <= 40; ++n) {
      std::vector<double> a(static_cast<size_t>(n * K + 2 * K));
      std::vector<float> af(static_cast<size_t>(n * K + 2 * K));
      poison(a);
      poison(af);
      ASSERT_EQ(posenc_sph_harm_real_f64(L, dd.data(), n, a.data() + 1), POSENC_OK);
      ASSERT_EQ(posenc_sph_harm_real_f32(L, df.data(), n, af.data() + 1), POSENC_OK);
      for (size_t i = 0; i < a.size(); ++i) {
        const bool inside = i >= 1 && i < size_t(1 + n * K);
        ASSERT_EQ(is_poison(a[i]), !inside) << "L " << L << " n " << n << " i " << i;
        ASSERT_EQ(is_poison(af[i]), !inside) << "L " << L << " n " << n << " i " << i;
        if (inside) {
          ASSERT_TRUE(same_bits(std::vector<double>{a[i]}, std::vector<double>{b[i - 1]})) << "L " << L << " n " << n << " i " << i;
          ASSERT_TRUE(same_bits(std::vector<float>{af[i]}, std::vector<float>{bf[i - 1]})) << "L " << L << " n " << n << " i " << i;
        }
      }
    }
  }
}

/// A point of extreme magnitude (largest component outside [2^-400, 2^400]: scaled before its
/// norm is taken) shares its block with ordinary points, in the plain blocks, the whole-line
/// super-blocks and the tail. Every point's bits must equal those of the point computed alone,
/// so that a point's output never depends on its block partners.
TEST_P(SphHarm, ExtremeMagnitudePointLeavesItsBlockPartnersBitsUnchanged) {
  const int64_t n = 150;
  std::vector<double> d = normal_dirs(n, 31);
  const double ext[][3] = {{3e300, -1e300, 5e299}, {1e-300, 2e-300, -1e-300}, {2e-310, -1e-310, 3e-310},
                           {0.0, 0.0, -1e305}, {1e-250, 0.0, 0.0}};
  const int64_t at[] = {0, 5, 13, 22, 70, 77, 101, 146};
  for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); ++i)
    for (int c = 0; c < 3; ++c) d[size_t(3 * at[i] + c)] = ext[i % 5][c];
  for (int L : {3, 5, 10, 17, 30}) {
    const int64_t K = nsh(L);
    std::vector<double> a(static_cast<size_t>(n * K)), b(static_cast<size_t>(n * K));
    poison(a);
    poison(b);
    ASSERT_EQ(posenc_sph_harm_real_f64(L, d.data(), n, a.data()), POSENC_OK);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(posenc_sph_harm_real_f64(L, d.data() + 3 * i, 1, b.data() + i * K), POSENC_OK);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_TRUE(same_bits(std::vector<double>(a.begin() + i * K, a.begin() + (i + 1) * K),
                            std::vector<double>(b.begin() + i * K, b.begin() + (i + 1) * K)))
          << "L " << L << " point " << i;
  }
}

/// A block with a point off the pole whose sin(theta)^lmax underflows takes the extended-range
/// recurrence instead of the fast path; inside a super-block of the line writer its neighbours'
/// shared lines must still be written. Checked against Boost, nothing outside the output touched.
TEST_P(SphHarm, ExtendedRangeBlocksInsideWholeLineSuperBlocks) {
  const int64_t n = 320;
  std::vector<double> d = normal_dirs(n, 22);
  for (int64_t p : {0, 9, 63, 64, 100, 127, 255, 256, 299}) {  // sin(theta) = 1e-150: sin^20 underflows
    d[size_t(3 * p)] = 1e-150;
    d[size_t(3 * p + 1)] = 0.0;
    d[size_t(3 * p + 2)] = p % 2 ? 1.0 : -1.0;
  }
  const int L = 20;
  const int64_t K = nsh(L);
  for (int off : {0, 5}) {
    std::vector<double> a(static_cast<size_t>(n * K + 16)), ref(static_cast<size_t>(K));
    poison(a);
    ASSERT_EQ(posenc_sph_harm_real_f64(L, d.data(), n, a.data() + off), POSENC_OK);
    for (int64_t i = 0; i < n; ++i) {
      boost_real_sh(L, d[size_t(3 * i)], d[size_t(3 * i + 1)], d[size_t(3 * i + 2)], ref.data());
      for (int64_t k = 0; k < K; ++k) {
        const double v = a[size_t(off + i * K + k)];
        ASSERT_FALSE(is_poison(v)) << i << " " << k;
        ASSERT_NEAR(v, ref[size_t(k)], 2e-13) << "off " << off << " point " << i << " k " << k;
      }
    }
    for (int i = 0; i < off; ++i) EXPECT_TRUE(is_poison(a[size_t(i)]));
    for (size_t i = size_t(off + n * K); i < a.size(); ++i) EXPECT_TRUE(is_poison(a[i]));
  }
}

/// float32 real SH for lmax <= kSphF32NativeLmax run the recurrence in float32 on AVX-512 and
/// AVX2 (scalar, NEON: float64, rounded once). Either way every degree block must stay within 1e-5 (relative,
/// rms over the block) of the float64 values of the same float32 directions: random points in
/// whole-line super-blocks and in the tail, and near-pole points whose blocks leave the float
/// range (sin(theta)^lmax < 2^-100: the float64 path for that block) or the double range.
TEST_P(SphHarm, Float32NativeWithinOneEMinus5PerDegreeBlock) {
  const int64_t n = 1000;  // 3 super-blocks of 256 + a 232-point tail
  std::vector<double> d = normal_dirs(n, 23);
  const double near[] = {1e-3, 1e-6, 1e-12, 1e-30, 1e-38};
  for (int64_t p : {0, 5, 17, 255, 256, 300, 511, 700, 999}) {
    d[size_t(3 * p)] = near[p % 5];
    d[size_t(3 * p + 1)] = p % 3 ? 0.5 * near[p % 5] : 0.0;
    d[size_t(3 * p + 2)] = p % 2 ? 1.0 : -1.0;
  }
  std::vector<float> df(d.begin(), d.end());
  std::vector<double> dd(df.begin(), df.end());
  double worst_all = 0;
  for (int L : {0, 1, 2, 3, 5, 8, 10, 13, 16, 17, 20, 24, 28, 31, 32, 33}) {
    const double worst = f32_block_error(L, df, dd);
    EXPECT_LE(worst, 1e-5) << "lmax " << L;
    worst_all = std::max(worst_all, worst);
    RecordProperty("worst_block_rel_err_L" + std::to_string(L), std::to_string(worst));
    if (std::getenv("POSENC_TEST_VERBOSE")) std::printf("lmax %d: worst %.3g\n", L, worst);
  }
  std::printf("[ f32 ] worst block-relative error, lmax <= 33: %.3g (isa %d)\n", worst_all, static_cast<int>(GetParam()));
}

TEST_P(SphHarm, LargeOutputStreamedPathMatchesSmallCallsBitwise) {
  // >= 16 MB of output takes the non-temporal paths (lib/sphere.cpp; on AVX-512 the whole-line
  // writer with each block's last lines put during the next block, at lmax 60 also drained
  // mid-block, the previous block's lines not all put by the first drain); chunks of 512 points
  // take the ordinary ones. Same bits required, every point written. At lmax 60 some blocks
  // take the extended-range path (sin(theta) = 1e-30), at the same positions in both runs
  // (chunks and tiles are whole super-blocks).
#if defined(__aarch64__)
  const int f32_last = 0;  // no streamed path on NEON; keeps the qemu run short
#else
  const int f32_last = 1;
#endif
  // lmax 0 and 1: blocks of 16 to 256 bytes, so the line a block shares with the next is held
  // across several blocks (line_stream: a block inside one line, a line completed by the next).
#if defined(__aarch64__)
  const std::vector<int> Ls = {10, 60};
#else
  const std::vector<int> Ls = {0, 1, 10, 60};
#endif
  for (int L : Ls)
  for (int f32 = 0; f32 <= f32_last; ++f32) {
    const int64_t K = nsh(L);
    int64_t n = L == 10 ? (f32 ? 34677 : 17339) : (f32 ? 1201 : 601);  // odd: a partial last block
    if (L == 0) n = f32 ? 4194305 : 2097153;  // 16 MB + one point
    if (L == 1) n = f32 ? 1048577 : 524289;
    auto dirs = test_dirs(static_cast<size_t>(n), 16);
    // lmax 10: also in the last, ordinary blocks (two of them apart), so that the float32 path's
    // float64 fallback streams blocks that do not follow the previous streamed block.
    if (L == 60 || L == 10)
      for (size_t p : {size_t(40), size_t(77), size_t(300), size_t(590), size_t(n - 50), size_t(n - 10)}) {
        dirs[3 * p] = 1e-30;  // sin(theta)^60 underflows, in float32 too
        dirs[3 * p + 1] = 0.0;
        dirs[3 * p + 2] = 1.0;
      }
    const int64_t nn = int64_t(dirs.size() / 3);
    std::vector<float> df(dirs.size());
    for (size_t i = 0; i < dirs.size(); ++i) df[i] = float(std::max(-1e30, std::min(1e30, dirs[i])));
    for (size_t i = 24; i < 30; ++i) df[i] = 1.0f;
    ASSERT_GE(nn * K * (f32 ? 4 : 8), int64_t(16) << 20);
    std::vector<double> a64, b64;
    std::vector<float> a32, b32;
    if (f32) {
      a32.resize(static_cast<size_t>(nn * K) + 1);
      b32.resize(static_cast<size_t>(nn * K));
      poison(a32);
      ASSERT_EQ(posenc_sph_harm_real_f32(L, df.data(), nn, a32.data() + 1), POSENC_OK);  // misaligned
      EXPECT_TRUE(is_poison(a32[0]));
      for (int64_t p = 0; p < nn; p += 512)
        ASSERT_EQ(posenc_sph_harm_real_f32(L, df.data() + 3 * p, std::min<int64_t>(512, nn - p), b32.data() + p * K), POSENC_OK);
      a32.erase(a32.begin());
      for (float v : a32) ASSERT_FALSE(is_poison(v));
      EXPECT_TRUE(same_bits(a32, b32));
    } else {
      a64.resize(static_cast<size_t>(nn * K) + 1);
      b64.resize(static_cast<size_t>(nn * K));
      poison(a64);
      ASSERT_EQ(posenc_sph_harm_real_f64(L, dirs.data(), nn, a64.data() + 1), POSENC_OK);
      EXPECT_TRUE(is_poison(a64[0]));
      for (int64_t p = 0; p < nn; p += 512)
        ASSERT_EQ(posenc_sph_harm_real_f64(L, dirs.data() + 3 * p, std::min<int64_t>(512, nn - p), b64.data() + p * K), POSENC_OK);
      a64.erase(a64.begin());
      for (double v : a64) ASSERT_FALSE(is_poison(v));
      EXPECT_TRUE(same_bits(a64, b64));
    }
  }
}

POSENC_INSTANTIATE_ISA(SphHarm);

// ------------------------------------------------------------------------------ Wigner-D
Eigen::Matrix3d random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> N(0, 1);
  Eigen::Quaterniond q(N(rng), N(rng), N(rng), N(rng));
  q.normalize();
  return q.toRotationMatrix();
}

std::vector<double> rowmajor(const Eigen::Matrix3d& R) {
  std::vector<double> r(9);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[static_cast<size_t>(3 * i + j)] = R(i, j);
  return r;
}

/// Applies the block-diagonal D (concatenated blocks) to a vector of (L+1)^2 coefficients.
std::vector<double> apply_d(int L, const std::vector<double>& D, const double* y) {
  std::vector<double> o(static_cast<size_t>(nsh(L)), 0.0);
  size_t off = 0;
  for (int l = 0; l <= L; ++l) {
    const int d = 2 * l + 1, b = l * l;
    for (int a = 0; a < d; ++a)
      for (int c = 0; c < d; ++c) o[static_cast<size_t>(b + a)] += D[off + static_cast<size_t>(a * d + c)] * y[b + c];
    off += static_cast<size_t>(d * d);
  }
  return o;
}

class Wigner : public IsaTest {};

TEST_P(Wigner, EquivarianceAndHomomorphismToDegree20) {
  const int L = 20;
  const int64_t K = nsh(L), ND = int64_t(L + 1) * (2 * L + 1) * (2 * L + 3) / 3;
  std::mt19937_64 rng(21);
  const auto dirs = test_dirs(10, 22);
  const int64_t n = int64_t(dirs.size() / 3);
  // Include the Euler-angle singular cases: identity, rotations about z, a half-turn about x.
  std::vector<Eigen::Matrix3d> rots = {Eigen::Matrix3d::Identity(),
                                       Eigen::AngleAxisd(0.7, Eigen::Vector3d::UnitZ()).toRotationMatrix(),
                                       Eigen::AngleAxisd(kPi, Eigen::Vector3d::UnitX()).toRotationMatrix()};
  for (int i = 0; i < 6; ++i) rots.push_back(random_rotation(rng));
  for (const auto& R : rots) {
    std::vector<double> D(static_cast<size_t>(ND)), Y(static_cast<size_t>(n * K)), YR(static_cast<size_t>(n * K)), rd;
    ASSERT_EQ(posenc_wigner_d_real_f64(L, rowmajor(R).data(), D.data()), POSENC_OK) << posenc_last_error_message();
    for (int64_t i = 0; i < n; ++i) {
      Eigen::Vector3d v(dirs[static_cast<size_t>(3 * i)], dirs[static_cast<size_t>(3 * i + 1)], dirs[static_cast<size_t>(3 * i + 2)]);
      v /= v.cwiseAbs().maxCoeff();
      const Eigen::Vector3d w = R * v;
      rd.insert(rd.end(), {w[0], w[1], w[2]});
    }
    ASSERT_EQ(posenc_sph_harm_real_f64(L, dirs.data(), n, Y.data()), POSENC_OK);
    ASSERT_EQ(posenc_sph_harm_real_f64(L, rd.data(), n, YR.data()), POSENC_OK);
    for (int64_t i = 0; i < n; ++i) {
      const auto dy = apply_d(L, D, Y.data() + i * K);
      for (int64_t k = 0; k < K; ++k) ASSERT_NEAR(YR[static_cast<size_t>(i * K + k)], dy[static_cast<size_t>(k)], 1e-12) << "k " << k;
    }
    // posenc_sph_rotate_real_f64 = D applied per row, also in place.
    std::vector<double> rot(static_cast<size_t>(n * K)), inplace = Y;
    ASSERT_EQ(posenc_sph_rotate_real_f64(L, rowmajor(R).data(), Y.data(), n, rot.data()), POSENC_OK);
    ASSERT_EQ(posenc_sph_rotate_real_f64(L, rowmajor(R).data(), inplace.data(), n, inplace.data()), POSENC_OK);
    for (int64_t i = 0; i < n; ++i) {
      const auto dy = apply_d(L, D, Y.data() + i * K);
      for (int64_t k = 0; k < K; ++k) ASSERT_NEAR(rot[static_cast<size_t>(i * K + k)], dy[static_cast<size_t>(k)], 1e-13);
    }
    EXPECT_TRUE(same_bits(rot, inplace));
  }
  // D(R1 R2) = D(R1) D(R2), and D(R) orthogonal.
  for (int t = 0; t < 4; ++t) {
    const Eigen::Matrix3d A = random_rotation(rng), B = random_rotation(rng);
    std::vector<double> DA(static_cast<size_t>(ND)), DB(static_cast<size_t>(ND)), DAB(static_cast<size_t>(ND));
    ASSERT_EQ(posenc_wigner_d_real_f64(L, rowmajor(A).data(), DA.data()), POSENC_OK);
    ASSERT_EQ(posenc_wigner_d_real_f64(L, rowmajor(B).data(), DB.data()), POSENC_OK);
    ASSERT_EQ(posenc_wigner_d_real_f64(L, rowmajor(A * B).data(), DAB.data()), POSENC_OK);
    size_t off = 0;
    for (int l = 0; l <= L; ++l) {
      const int d = 2 * l + 1;
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> a(DA.data() + off, d, d),
          b(DB.data() + off, d, d), ab(DAB.data() + off, d, d);
      EXPECT_LE((a * b - ab).cwiseAbs().maxCoeff(), 1e-12) << l;
      EXPECT_LE((a * a.transpose() - Eigen::MatrixXd::Identity(d, d)).cwiseAbs().maxCoeff(), 1e-12) << l;
      off += static_cast<size_t>(d * d);
    }
  }
}

POSENC_INSTANTIATE_ISA(Wigner);

// ------------------------------------------------------------------------------ bad input
class SphereErrors : public IsaTest {};

TEST_P(SphereErrors, BadInputIsAClearErrorAndWritesNothing) {
  std::vector<double> x = {0.1, 0.2, 1.5}, out(64);
  std::vector<float> xf = {0.1f, 2.0f}, outf(64);
  poison(out);
  poison(outf);
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 3, 1, x.data(), 3, out.data()), POSENC_ERR_INVALID_ARGUMENT, "x[2]");
  EXPECT_POSENC_ERROR(posenc_legendre_f32(POSENC_LEGENDRE_FULL, 3, 1, xf.data(), 2, outf.data()), POSENC_ERR_INVALID_ARGUMENT, "x[1]");
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, -1, 1, x.data(), 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "lmax");
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 3, 0, x.data(), 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "csphase");
  posenc_legendre_norm bad_norm;  // an out-of-range value as a C caller could pass it
  const int seven = 7;
  std::memcpy(&bad_norm, &seven, sizeof bad_norm);
  EXPECT_POSENC_ERROR(posenc_legendre_f64(bad_norm, 3, 1, x.data(), 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "norm");
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 2000000000, 1, x.data(), 2, out.data()), POSENC_ERR_SIZE_OVERFLOW, "lmax");
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 1000000, 1, x.data(), int64_t(1) << 40, out.data()), POSENC_ERR_SIZE_OVERFLOW, "out");
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 3, 1, x.data(), -1, out.data()), POSENC_ERR_INVALID_ARGUMENT, "n");
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 3, 1, nullptr, 2, out.data()), POSENC_ERR_NULL_POINTER, "x");
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 3, 1, x.data(), 2, nullptr), POSENC_ERR_NULL_POINTER, "out");
  const double nanv = std::nan("");
  std::vector<double> xn = {0.0, nanv};
  EXPECT_POSENC_ERROR(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 3, 1, xn.data(), 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "x[1]");
  EXPECT_POSENC_ERROR(posenc_legendre_poly_f64(3, x.data(), 3, out.data()), POSENC_ERR_INVALID_ARGUMENT, "x[2]");
  EXPECT_POSENC_ERROR(posenc_legendre_poly_f64(-2, x.data(), 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "lmax");
  EXPECT_POSENC_ERROR(posenc_sph_kernel_f64(3, nullptr, x.data(), 3, out.data()), POSENC_ERR_INVALID_ARGUMENT, "cos_gamma[2]");
  std::vector<double> wbad = {1, nanv, 1, 1};
  EXPECT_POSENC_ERROR(posenc_sph_kernel_f64(3, wbad.data(), x.data(), 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "weights[1]");
  std::vector<double> xyz = {1, 0, 0, 0, 0, 0};
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_f64(2, xyz.data(), 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "xyz[1]");
  std::vector<double> xyzi = {1, 0, std::numeric_limits<double>::infinity()};
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_f64(2, xyzi.data(), 1, out.data()), POSENC_ERR_INVALID_ARGUMENT, "xyz[0]");
  std::vector<float> xyzf = {0, 0, 0};
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_f32(2, xyzf.data(), 1, outf.data()), POSENC_ERR_INVALID_ARGUMENT, "xyz[0]");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_f64(-1, xyz.data(), 1, out.data()), POSENC_ERR_INVALID_ARGUMENT, "lmax");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_f64(2000000, xyz.data(), 1, out.data()), POSENC_ERR_SIZE_OVERFLOW, "lmax");
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_f64(1000000, xyz.data(), int64_t(1) << 40, out.data()), POSENC_ERR_SIZE_OVERFLOW, "out");
  std::vector<double> ll = {0, 91};
  EXPECT_POSENC_ERROR(posenc_sph_harm_real_lonlat_f64(2, ll.data(), 1, out.data()), POSENC_ERR_INVALID_ARGUMENT, "latitude");
  std::vector<double> th = {0.1, nanv}, ph = {0, 0};
  EXPECT_POSENC_ERROR(posenc_sph_harm_complex_f64(2, th.data(), ph.data(), 2, out.data()), POSENC_ERR_INVALID_ARGUMENT, "theta[1]");
  std::vector<double> R = {1, 0, 0, 0, 1, 0, 0, 0, -1}, Rn = {1, 0.01, 0, 0, 1, 0, 0, 0, 1};
  EXPECT_POSENC_ERROR(posenc_wigner_d_real_f64(2, R.data(), out.data()), POSENC_ERR_INVALID_ARGUMENT, "proper");
  EXPECT_POSENC_ERROR(posenc_wigner_d_real_f64(2, Rn.data(), out.data()), POSENC_ERR_INVALID_ARGUMENT, "orthogonal");
  EXPECT_POSENC_ERROR(posenc_wigner_d_real_f64(2, nullptr, out.data()), POSENC_ERR_NULL_POINTER, "rotation");
  std::vector<double> coeffs(9, 1.0), cin = coeffs;
  EXPECT_POSENC_ERROR(posenc_sph_rotate_real_f64(2, Rn.data(), coeffs.data(), 1, coeffs.data()), POSENC_ERR_INVALID_ARGUMENT, "orthogonal");
  EXPECT_TRUE(same_bits(coeffs, cin));
  EXPECT_EQ(count_poison(out), out.size());
  EXPECT_EQ(count_poison(outf), outf.size());
  // n == 0 is a no-op, NULL allowed.
  EXPECT_EQ(posenc_legendre_f64(POSENC_LEGENDRE_FULL, 5, 1, nullptr, 0, nullptr), POSENC_OK);
  EXPECT_EQ(posenc_sph_harm_real_f64(5, nullptr, 0, nullptr), POSENC_OK);
}

/// The vectorized first pass of the xyz check (kernel xyz_bad) at every position of a long array:
/// each kind of bad point at each index is found and named, the output stays poisoned, and
/// points that only look bad in the flat array (zeros straddling two points, denormals) pass.
/// Two backgrounds: the first (runs of flat zeros) makes the vector pass report "maybe" on its
/// own, the second (no zero coordinate anywhere) never does, so there a bad point that the
/// vector pass misses goes unreported and the test fails.
TEST_P(SphereErrors, BadPointFoundAtEveryPositionOfALongArray) {
  for (int background = 0; background < 2; ++background) {
  SCOPED_TRACE(background == 0 ? "background: runs of flat zeros" : "background: no zero coordinate");
  const int64_t n = 53;  // > 3 vectors of points on every ISA, odd tail
  std::vector<double> base(static_cast<size_t>(3 * n));
  for (int64_t i = 0; i < n; ++i) {
    if (background == 0) {  // (1, 0, 0), (0, 0, 1), ... : runs of flat zeros across points
      base[static_cast<size_t>(3 * i + (i % 2 ? 2 : 0))] = (i % 3 == 0) ? 4.9e-324 : 1.0 + double(i);
    } else {
      for (int c = 0; c < 3; ++c) base[static_cast<size_t>(3 * i + c)] = (c == 1 ? -0.5 : 0.25) * (1.0 + double(i % 7));
    }
  }
  const int K = nsh(2);
  auto to_f32 = [](const std::vector<double>& v) {  // the f64 denormal becomes a float denormal
    std::vector<float> f(v.size());
    for (size_t i = 0; i < v.size(); ++i) f[i] = v[i] == 4.9e-324 ? 1e-45f : static_cast<float>(v[i]);
    return f;
  };
  {
    std::vector<double> out(static_cast<size_t>(n * K));
    ASSERT_EQ(posenc_sph_harm_real_f64(2, base.data(), n, out.data()), POSENC_OK) << posenc_last_error_message();
    std::vector<float> bf = to_f32(base), of(static_cast<size_t>(n * K));
    ASSERT_EQ(posenc_sph_harm_real_f32(2, bf.data(), n, of.data()), POSENC_OK) << posenc_last_error_message();
  }
  const double bad[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity()};
  for (int64_t i = 0; i < n; ++i) {
    const std::string name = "xyz[" + std::to_string(i) + "]";
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<double> v = base;
      if (kind < 3) {
        v[static_cast<size_t>(3 * i + (i + kind) % 3)] = bad[kind];
      } else {
        for (int c = 0; c < 3; ++c) v[static_cast<size_t>(3 * i + c)] = c == 1 ? -0.0 : 0.0;
      }
      std::vector<double> out(static_cast<size_t>(n * K));
      poison(out);
      EXPECT_POSENC_ERROR(posenc_sph_harm_real_f64(2, v.data(), n, out.data()), POSENC_ERR_INVALID_ARGUMENT, name.c_str());
      EXPECT_EQ(count_poison(out), out.size());
      std::vector<float> vf = to_f32(v), outf(static_cast<size_t>(n * K));
      poison(outf);
      EXPECT_POSENC_ERROR(posenc_sph_harm_real_f32(2, vf.data(), n, outf.data()), POSENC_ERR_INVALID_ARGUMENT, name.c_str());
      EXPECT_EQ(count_poison(outf), outf.size());
    }
  }
  }
}

/// The lon/lat check's vectorized first pass (lonlat_bad_f64) must find a bad longitude (NaN,
/// +-inf) or latitude (NaN, beyond +-90 by one ulp, +-inf) at every position of a long array
/// (full vectors and the tail), and lib names that point; nothing is written. Latitudes of
/// exactly +-90 and huge finite longitudes are accepted.
TEST_P(SphereErrors, LonLatBadPointFoundAtEveryPosition) {
  const int64_t n = 37;  // > 2 vectors of points on every ISA, odd tail
  std::vector<double> base(static_cast<size_t>(2 * n));
  for (int64_t i = 0; i < n; ++i) {
    base[size_t(2 * i)] = i % 5 == 0 ? 1e300 * (i % 2 ? -1 : 1) : 7.5 * double(i) - 100;
    base[size_t(2 * i + 1)] = i % 4 == 0 ? (i % 8 ? -90.0 : 90.0) : 2.5 * double(i % 30) - 40;
  }
  const int K = nsh(2);
  {
    std::vector<double> out(static_cast<size_t>(n * K));
    ASSERT_EQ(posenc_sph_harm_real_lonlat_f64(2, base.data(), n, out.data()), POSENC_OK) << posenc_last_error_message();
  }
  const double inf = std::numeric_limits<double>::infinity(), nanv = std::numeric_limits<double>::quiet_NaN();
  const double bad_lon[] = {nanv, inf, -inf};
  const double bad_lat[] = {nanv, std::nextafter(90.0, 100.0), std::nextafter(-90.0, -100.0), inf, -inf};
  for (int64_t i = 0; i < n; ++i) {
    const std::string name = "lonlat[" + std::to_string(i) + "]";
    for (int kind = 0; kind < 8; ++kind) {
      std::vector<double> v = base;
      if (kind < 3) v[size_t(2 * i)] = bad_lon[kind];
      else v[size_t(2 * i + 1)] = bad_lat[kind - 3];
      std::vector<double> out(static_cast<size_t>(n * K));
      poison(out);
      EXPECT_POSENC_ERROR(posenc_sph_harm_real_lonlat_f64(2, v.data(), n, out.data()), POSENC_ERR_INVALID_ARGUMENT,
                          name.c_str());
      EXPECT_EQ(count_poison(out), out.size());
    }
  }
}

POSENC_INSTANTIATE_ISA(SphereErrors);

}  // namespace
