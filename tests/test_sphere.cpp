// SPDX-License-Identifier: Apache-2.0 OR MIT
// sphere family tests (S²), real and complex spherical harmonics and Wigner-D: against Boost.Math,
// property tests (sum rule, Gauss-Legendre orthonormality, addition theorem, equivariance and the
// homomorphism of D), lon/lat against xyz, float32, thread counts, and the bitwise agreement of
// the writers (whole lines, tails, streaming, extreme points). Every test runs on every ISA path.
#include "tests/test_sphere_common.hpp"

#include <gsl/gsl_integration.h>

#include <Eigen/Dense>
#include <boost/math/special_functions/spherical_harmonic.hpp>

#include <algorithm>
#include <complex>

namespace {

/// Real SH by Boost.Math (its spherical_harmonic includes the Condon-Shortley phase).
void boost_real_sh(int L, double x, double y, double z, double* out) {
  const double mx = std::max({std::fabs(x), std::fabs(y), std::fabs(z)});
  x /= mx; y /= mx; z /= mx;
  const double theta = std::atan2(std::sqrt(x * x + y * y), z), phi = std::atan2(y, x);
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

// Degree 1 of the complex entry point against long double: its direction (the vectorized sin /
// cos in radians below 2^20 in magnitude, std::sin / std::cos above) at random angles, beside
// multiples of pi / 8 (the table's steps) and large angles on both sides of 2^20; each point
// alone (a tail block) gives the bits it gets in a block.
TEST_P(SphHarm, ComplexDegreeOneWithinUlpsOfLongDouble) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-12, 12), eps(-1e-3, 1e-3);
  std::vector<double> th, ph;
  for (int j = -40; j <= 40; ++j)
    for (double d : {0.0, 1e-13, -1e-9, eps(rng), 0.19634954084936207}) {
      th.push_back(j * 0.39269908169872414 + d);
      ph.push_back(-j * 0.39269908169872414 + eps(rng));
    }
  for (int i = 0; i < 2000; ++i) th.push_back(u(rng)), ph.push_back(u(rng));
  for (double big : {0x1p20, -0x1p20, 0x1p20 + 0.5, 1048575.9, 3.3e7, -1e15, 1e300, 12345.678}) {
    th.push_back(big), ph.push_back(u(rng));
    th.push_back(u(rng)), ph.push_back(-big);
  }
  const int64_t n = int64_t(th.size());
  std::vector<double> a(size_t(8 * n));
  ASSERT_EQ(posenc_sph_harm_complex_f64(1, th.data(), ph.data(), n, a.data()), POSENC_OK);
  constexpr long double pi = 3.141592653589793238462643383279502884L;
  const long double c0 = sqrtl(3.0L / (4.0L * pi)), c1 = sqrtl(3.0L / (8.0L * pi));
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const long double st = fabsl(sinl((long double)th[size_t(i)])), ct = cosl((long double)th[size_t(i)]);
    const long double sp = sinl((long double)ph[size_t(i)]), cp = cosl((long double)ph[size_t(i)]);
    // (re, im) of Y_1^-1, Y_1^0, Y_1^1
    const long double ref[6] = {c1 * st * cp, -c1 * st * sp, c0 * ct, 0.0L, -c1 * st * cp, -c1 * st * sp};
    for (int k = 0; k < 6; ++k) {
      const double e = double(fabsl((long double)a[size_t(8 * i + 2 + k)] - ref[k]));
      worst = std::max(worst, e);
      ASSERT_LE(e, 2.5e-16) << "point " << i << " (" << th[size_t(i)] << ", " << ph[size_t(i)] << ") k " << k;
    }
  }
  std::printf("complex degree 1: worst absolute error %.3g over %lld points\n", worst, (long long)n);
  for (int64_t i = 0; i < n; i += 7) {
    std::vector<double> one(8);
    ASSERT_EQ(posenc_sph_harm_complex_f64(1, th.data() + i, ph.data() + i, 1, one.data()), POSENC_OK);
    EXPECT_TRUE(same_bits(one, std::vector<double>(a.begin() + 8 * i, a.begin() + 8 * (i + 1)))) << "point " << i;
  }
}

// The complex rows of full blocks and of large outputs (16 MB and more), into an output one
// double past an aligned line: the low-degree kernel's one pass (lmax <= 3; lmax 1 and 3 in
// non-temporal lines) and the tile buffer of lmax 10. Against Boost.Math at every 499th point and
// the last ones, bitwise against the same points in short calls (ordinary stores) and against
// one thread.
TEST_P(SphHarm, ComplexLargeOutputsMatchBoostShortCallsAndThreads) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-7, 7);
  for (int L : {1, 2, 3, 10}) {
    const int64_t K = nsh(L), n = (int64_t(17) << 20) / (16 * K) + 5;  // output > 16 MB
    std::vector<double> th(static_cast<size_t>(n)), ph(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) th[size_t(i)] = u(rng), ph[size_t(i)] = u(rng);
    std::vector<double> buf(size_t(2 * n * K + 8));
    poison(buf);
    double* const out = buf.data() + 1;
    ASSERT_EQ(posenc_sph_harm_complex_f64(L, th.data(), ph.data(), n, out), POSENC_OK);
    ASSERT_TRUE(is_poison(buf[0]) && is_poison(buf[size_t(2 * n * K + 1)])) << "L " << L;
    for (int64_t i = 0; i < n; i = i + 499 < n - 3 ? i + 499 : i + 1) {
      double t = std::fmod(std::fabs(th[size_t(i)]), 2 * kPi);
      if (t > kPi) t = 2 * kPi - t;
      for (int l = 0; l <= L; ++l)
        for (int m = -l; m <= l; ++m) {
          const std::complex<double> ref = boost::math::spherical_harmonic(unsigned(l), m, t, ph[size_t(i)]);
          const size_t o = size_t(2 * (i * K + l * (l + 1) + m));
          ASSERT_NEAR(out[o], ref.real(), 2e-13) << "L " << L << " (" << l << ", " << m << ") pt " << i;
          ASSERT_NEAR(out[o + 1], ref.imag(), 2e-13) << "L " << L << " (" << l << ", " << m << ") pt " << i;
        }
    }
    for (int64_t i0 : {int64_t(0), int64_t(1000), n / 2 + 3, n - 21}) {
      std::vector<double> part(size_t(2 * 21 * K));
      ASSERT_EQ(posenc_sph_harm_complex_f64(L, th.data() + i0, ph.data() + i0, 21, part.data()), POSENC_OK);
      EXPECT_TRUE(same_bits(part, std::vector<double>(out + 2 * i0 * K, out + 2 * (i0 + 21) * K))) << "L " << L << " at " << i0;
    }
    std::vector<double> one(buf.size());
    {
      ThreadScope ts(1);
      ASSERT_EQ(posenc_sph_harm_complex_f64(L, th.data(), ph.data(), n, one.data() + 1), POSENC_OK);
    }
    EXPECT_TRUE(std::memcmp(one.data() + 1, out, size_t(16 * n * K)) == 0) << "L " << L << ": one thread";
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

// The degree-1 values of the lon/lat front end are sqrt(3 / (4 pi)) (y, z, x): its sine and
// cosine in degrees against long double with the angle reduced exactly in long double (angles at
// and beside the boundaries of every reduction step, 11.25 and 22.5 degrees, small and large
// angles, random ones), within 2.5e-16 absolute (the direction within a few 2^-53, then one
// product). Measured worst: docs/ACCURACY.md.
TEST_P(SphHarm, LonLatDegreeOneWithinUlpsOfLongDouble) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> ulon(-1080, 1080), ulat(-90, 90), eps(-1e-3, 1e-3);
  std::vector<double> ll;
  for (int j = -32; j <= 32; ++j) {
    const double b = 11.25 * j;
    for (double d : {0.0, 1e-12, -1e-12, 1e-7, eps(rng), eps(rng) * 1e3, 5.625, -5.625})
      ll.insert(ll.end(), {b + d, std::max(-90.0, std::min(90.0, b / 4 + d))});
  }
  for (int i = 0; i < 3000; ++i) ll.insert(ll.end(), {ulon(rng), ulat(rng)});
  for (int i = 0; i < 200; ++i) ll.insert(ll.end(), {std::ldexp(eps(rng), -int(rng() % 60)), std::ldexp(eps(rng), -int(rng() % 60))});
  ll.insert(ll.end(), {1e15 + 0.125, 89.99999999, -3.7e12, -89.9999});
  const int64_t n = int64_t(ll.size() / 2);
  std::vector<double> a(size_t(4 * n));
  ASSERT_EQ(posenc_sph_harm_real_lonlat_f64(1, ll.data(), n, a.data()), POSENC_OK);
  constexpr long double pi = 3.141592653589793238462643383279502884L;  // kPi is a double
  auto sc = [&](double deg, long double& s, long double& c) {
    // deg - 90 q exact in long double (64-bit mantissa: |deg| < 2^50 here), then the quadrant
    const long double q = roundl((long double)deg / 90.0L), r = (long double)deg - 90.0L * q;
    const long double sa = sinl(r * pi / 180.0L), ca = cosl(r * pi / 180.0L);
    switch (((long long)fmodl(q, 4.0L) + 4) % 4) {
      case 0: s = sa, c = ca; break;
      case 1: s = ca, c = -sa; break;
      case 2: s = -sa, c = -ca; break;
      default: s = -ca, c = sa; break;
    }
  };
  const long double y1 = sqrtl(3.0L / (4.0L * pi));
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    long double so, co, sa, ca;
    sc(ll[size_t(2 * i)], so, co);
    sc(ll[size_t(2 * i + 1)], sa, ca);
    const long double ref[3] = {y1 * ca * so, y1 * sa, y1 * ca * co};  // Y_1,-1, Y_1,0, Y_1,1
    for (int k = 0; k < 3; ++k) {
      const double e = double(fabsl((long double)a[size_t(4 * i + 1 + k)] - ref[k]));
      worst = std::max(worst, e);
      ASSERT_LE(e, 2.5e-16) << "point " << i << " (" << ll[size_t(2 * i)] << ", " << ll[size_t(2 * i + 1)] << ") k " << k;
    }
  }
  std::printf("lon/lat degree 1: worst absolute error %.3g over %lld points\n", worst, (long long)n);
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

}  // namespace
