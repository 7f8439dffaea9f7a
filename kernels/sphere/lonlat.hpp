// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/lonlat.hpp — geographic coordinates to unit vectors, W points a vector: sine
// and cosine of angles in degrees with the reduction done in degrees (exact), then fdlibm's
// kernel polynomials on [-pi/4, pi/4] (k_sin.c / k_cos.c, error < 1 ulp there), so that
// multiples of 90 degrees give exact 0 and +-1 (the poles are exactly (0, 0, +-1)).
#pragma once

#include "kernels/sphere/common.hpp"

#include <cmath>

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// sin and cos of deg degrees (finite, |deg| < 2^50: the caller reduces larger angles with
/// fmod, which is exact). k = round(deg / 90) by the 1.5 * 2^52 trick, r = deg - 90 k exact (an
/// integer multiple of 90 and deg share deg's ulp and |r| <= 45 + a rounding), a = r pi / 180
/// (one rounding), then the quadrant k mod 4.
inline void sincosd(const V& deg, V& s, V& c) {
  const V magic(0x1.8p52), one(1.0);
  const V k = (deg * V(1.0 / 90.0) + magic) - magic;
  const V r = deg - k * V(90.0);
  const V a = r * V(0.017453292519943295769);  // pi / 180
  const V z = a * a;
  // fdlibm __kernel_sin(a, 0, 0) and __kernel_cos(a, 0)
  const V sr = madd(z, madd(z, madd(z, madd(z, V(1.58969099521155010221e-10), V(-2.50507602534068634195e-08)),
                                    V(2.75573137070700676789e-06)),
                         V(-1.98412698298579493134e-04)),
                    V(8.33333333332248946124e-03));
  const V sa = a + (z * a) * madd(z, sr, V(-1.66666666666666324348e-01));
  const V cr = z * madd(z, madd(z, madd(z, madd(z, madd(z, V(-1.13596475577881948265e-11), V(2.08757232129817482790e-09)),
                                              V(-2.75573143513906633035e-07)),
                                      V(2.48015872894767294178e-05)),
                             V(-1.38888888888741095749e-03)),
                    V(4.16666666666666019037e-02));
  const V hz = V(0.5) * z, w = one - hz;
  const V ca = w + (((one - w) - hz) + z * cr);
  const V q = k - V(4.0) * floor(k * V(0.25));  // k mod 4, in {0, 1, 2, 3}
  const auto odd = (q == one) | (q == V(3.0));
  const V s0 = select(odd, ca, sa), c0 = select(odd, sa, ca);
  s = select(q >= V(2.0), -s0, s0);
  c = select((q == one) | (q == V(2.0)), -c0, c0);
}

/// xyz [n, 3] = (cos lat cos lon, cos lat sin lon, sin lat) of lonlat [n, 2] in degrees
/// (finite longitudes, latitudes in [-90, 90]).
inline void lonlat_xyz(const double* lonlat, int64_t n, double* xyz) {
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    alignas(64) double lo[W], la[W];
    for (std::size_t i = 0; i < W; ++i) {
      double a = i < np ? lonlat[2 * (p0 + static_cast<int64_t>(i))] : 0.0;
      if (!(std::fabs(a) < 0x1p50)) a = std::fmod(a, 360.0);  // exact
      lo[i] = a;
      la[i] = i < np ? lonlat[2 * (p0 + static_cast<int64_t>(i)) + 1] : 0.0;
    }
    V so, co, sa, ca;
    sincosd(load(lo), so, co);
    sincosd(load(la), sa, ca);
    alignas(64) double xb[W], yb[W], zb[W];
    stu(xb, ca * co);
    stu(yb, ca * so);
    stu(zb, sa);
    for (std::size_t i = 0; i < np; ++i) {
      double* q = xyz + 3 * (p0 + static_cast<int64_t>(i));
      q[0] = xb[i];
      q[1] = yb[i];
      q[2] = zb[i];
    }
  }
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
