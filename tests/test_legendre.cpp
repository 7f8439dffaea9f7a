// SPDX-License-Identifier: Apache-2.0 OR MIT
// sphere family tests (S²), associated Legendre functions: against GSL (every normalization, both
// phases, to degree 2700 and at the poles), closed forms, a long-double reference beyond GSL's
// range (to degree 10000), float32 against float64, the streamed large-output path and the
// Legendre polynomials / zonal kernel. Every test runs on every ISA path (IsaTest).
#include "tests/test_sphere_common.hpp"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_legendre.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <type_traits>

namespace {

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

}  // namespace
