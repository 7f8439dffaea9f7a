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
  // k mod 4 as q = k - 4 round(k / 4) in {-2, -1, 0, 1, 2} (the rounding by the same trick:
  // no floor, a library call on the scalar path): quadrant 3 is q = -1, quadrant 2 q = +-2.
  const V q = k - V(4.0) * ((k * V(0.25) + magic) - magic), aq = abs(q), two(2.0);
  const auto odd = aq == one;
  const V s0 = select(odd, ca, sa), c0 = select(odd, sa, ca);
  s = select((q < V(0.0)) | (q == two), -s0, s0);
  c = select((q == one) | (aq == two), -c0, c0);
}

/// The unit vectors (cos lat cos lon, cos lat sin lon, sin lat) of the np <= W points p0 ..
/// p0 + np - 1 of lonlat [n, 2] in degrees (finite longitudes, latitudes in [-90, 90]), lanes
/// past np from lon = lat = 0. A full block is two loads split into longitudes and latitudes;
/// a longitude of magnitude >= 2^50 is reduced by fmod (exact) first.
inline void lonlat_block(const double* lonlat, int64_t p0, std::size_t np, V& X, V& Y, V& Z) {
  V lo, la;
  if (np == W) {
    vx::deinterleave2(lonlat + 2 * p0, lo, la);
  } else {
    alignas(64) double a[W], b[W];
    for (std::size_t i = 0; i < W; ++i) {
      a[i] = i < np ? lonlat[2 * (p0 + static_cast<int64_t>(i))] : 0.0;
      b[i] = i < np ? lonlat[2 * (p0 + static_cast<int64_t>(i)) + 1] : 0.0;
    }
    lo = load(a);
    la = load(b);
  }
  if (any(!(abs(lo) < V(0x1p50)))) {
    alignas(64) double a[W];
    stu(a, lo);
    for (std::size_t i = 0; i < W; ++i)
      if (!(std::fabs(a[i]) < 0x1p50)) a[i] = std::fmod(a[i], 360.0);
    lo = load(a);
  }
  V so, co, sa, ca;
  sincosd(lo, so, co);
  sincosd(la, sa, ca);
  X = ca * co;
  Y = ca * so;
  Z = sa;
}

/// Points of lonlat [n, 2] for the low-degree kernel (sh_low_body's input), converted block by
/// block in registers: no xyz pass, no buffer.
struct lonlat_source {
  static constexpr bool kUnit = true;  // unit vectors to a few ulp: not normalized again
  const double* ll;
  void prefetch(int64_t p0) const { __builtin_prefetch(ll + 2 * p0 + 16 * static_cast<int64_t>(W), 0, 3); }
  void get(int64_t p0, std::size_t np, V& X, V& Y, V& Z) const { lonlat_block(ll, p0, np, X, Y, Z); }
};

/// xyz [n, 3] = (cos lat cos lon, cos lat sin lon, sin lat) of lonlat [n, 2] in degrees
/// (finite longitudes, latitudes in [-90, 90]).
inline void lonlat_xyz(const double* lonlat, int64_t n, double* xyz) {
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    V X, Y, Z;
    lonlat_block(lonlat, p0, np, X, Y, Z);
    alignas(64) double xb[W], yb[W], zb[W];
    stu(xb, X);
    stu(yb, Y);
    stu(zb, Z);
    for (std::size_t i = 0; i < np; ++i) {
      double* q = xyz + 3 * (p0 + static_cast<int64_t>(i));
      q[0] = xb[i];
      q[1] = yb[i];
      q[2] = zb[i];
    }
  }
}

/// 1 if some point of lonlat [n, 2] has a non-finite longitude or a latitude outside [-90, 90]
/// (or NaN), else 0: the vectorized first pass of the argument check (lib names the point).
/// Over the flat 2n values, W a vector: |v| s <= 90 with s = 0 on longitudes (0 for finite,
/// NaN for inf and NaN) and s = 1 on latitudes; one compare a vector.
inline int lonlat_any_bad(const double* p, int64_t n) {
  const int64_t m = 2 * n;
  int64_t e = 0;
  int r = 0;
  if constexpr (W > 1) {
    alignas(64) double sb[W];
    for (std::size_t i = 0; i < W; ++i) sb[i] = i % 2 == 0 ? 0.0 : 1.0;
    const V s = load(sb), lim(90.0);
    auto bad = lim != lim;
    for (; e + 2 * static_cast<int64_t>(W) <= m; e += 2 * static_cast<int64_t>(W)) {
      bad = bad | !((abs(load(p + e)) * s) <= lim);
      bad = bad | !((abs(load(p + e + static_cast<int64_t>(W))) * s) <= lim);
    }
    r = any(bad) ? 1 : 0;
  }
  for (; e < m; e += 2) r |= static_cast<int>(!(p[e] - p[e] == 0.0)) | static_cast<int>(!(std::fabs(p[e + 1]) <= 90.0));
  return r;
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
