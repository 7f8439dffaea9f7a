// SPDX-License-Identifier: Apache-2.0 OR MIT
// sphere family tests (S²), bad input: every entry point's argument errors name the argument and
// write nothing, and the vectorized first passes of the xyz and lon/lat checks find a bad point at
// every position of a long array. Every test runs on every ISA path (IsaTest).
#include "tests/test_sphere_common.hpp"

#include <cmath>
#include <limits>

namespace {

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
