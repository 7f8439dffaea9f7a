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

/// Two float64 lanes as a GCC / Clang vector: the scalar path converts a point's longitude and
/// latitude together in one (SSE2 on x86-64, Advanced SIMD on aarch64: both baseline), the
/// same IEEE operations lane by lane, so the same bits as one lane at a time.
typedef double sph_d2 __attribute__((vector_size(16)));

template <class VV>
inline VV splat(double x) { return VV(x); }
template <>
inline sph_d2 splat<sph_d2>(double x) { return sph_d2{x, x}; }

/// sin and cos of deg degrees (finite, |deg| < 2^50: the caller reduces larger angles with
/// fmod, which is exact). k = round(deg / 90) by the 1.5 * 2^52 trick, r = deg - 90 k exact (an
/// integer multiple of 90 and deg share deg's ulp and |r| <= 45 + a rounding), a = r pi / 180
/// (one rounding), then the quadrant k mod 4. VV: V, or sph_d2 on the scalar path (no FMA).
template <class VV>
inline void sincosd(const VV& deg, VV& s, VV& c) {
  const VV magic = splat<VV>(0x1.8p52), one = splat<VV>(1.0);
  const VV k = (deg * splat<VV>(1.0 / 90.0) + magic) - magic;
  const VV r = deg - k * splat<VV>(90.0);
  const VV a = r * splat<VV>(0.017453292519943295769);  // pi / 180
  const VV z = a * a;
  // fdlibm __kernel_sin(a, 0, 0) and __kernel_cos(a, 0)
  const VV sr = madd(z, madd(z, madd(z, madd(z, splat<VV>(1.58969099521155010221e-10), splat<VV>(-2.50507602534068634195e-08)),
                                    splat<VV>(2.75573137070700676789e-06)),
                         splat<VV>(-1.98412698298579493134e-04)),
                    splat<VV>(8.33333333332248946124e-03));
  const VV sa = a + (z * a) * madd(z, sr, splat<VV>(-1.66666666666666324348e-01));
  const VV cr = z * madd(z, madd(z, madd(z, madd(z, madd(z, splat<VV>(-1.13596475577881948265e-11), splat<VV>(2.08757232129817482790e-09)),
                                              splat<VV>(-2.75573143513906633035e-07)),
                                      splat<VV>(2.48015872894767294178e-05)),
                             splat<VV>(-1.38888888888741095749e-03)),
                    splat<VV>(4.16666666666666019037e-02));
  const VV hz = splat<VV>(0.5) * z, w = one - hz;
  const VV ca = w + (((one - w) - hz) + z * cr);
  // The quadrant k mod 4. One lane: by exact arithmetic on small integers, no compare and no
  // select (there a select is a branch, mispredicted half the time on random angles):
  // par(m) = m - 2 round(m / 2) is -1, 0 or 1, so t = par(k)^2 is 1 for odd k (sin and cos
  // swap) and 1 - 2 par(.)^2 = (-1)^(.) is the sign: sin is negative in quadrants 2 and 3
  // ((-1)^floor(k / 2)), cos in quadrants 1 and 2 ((-1)^floor((k + 1) / 2)); floor(k / 2) =
  // (k - t) / 2 and floor((k + 1) / 2) = (k + t) / 2, exact. The swap t ca + (1 - t) sa adds
  // an exact zero to a nonzero ca, or +0 to sa, which is never -0 (sa(-0) = +0): the same bits
  // as choosing. Rounding by the 1.5 * 2^52 trick (|k| < 2^45).
  const VV half = splat<VV>(0.5), two = splat<VV>(2.0);
  if constexpr (std::is_same<VV, V>::value && W > 1) {
    // SIMD: compares and blends are cheaper than the arithmetic below (about 15 operations
    // against 33 a call) and branch-free. q = k - 4 round(k / 4) in {-2, -1, 0, 1, 2}: quadrant
    // 3 is q = -1, quadrant 2 q = +-2. Negation by -1 x (exact), as below: the same bits.
    const V q = k - V(4.0) * ((k * V(0.25) + magic) - magic), aq = abs(q);
    const auto odd = aq == one;
    const V s0 = select(odd, ca, sa), c0 = select(odd, sa, ca), m1(-1.0);
    s = select((q < V(0.0)) | (q == two), s0 * m1, s0);
    c = select((q == one) | (aq == two), c0 * m1, c0);
  } else {
    auto par = [&](const VV& m) { return m - two * ((m * half + magic) - magic); };
    const VV pk = par(k), t = pk * pk, nt = one - t;
    const VV ps = par((k - t) * half), pc = par((k + t) * half);
    const VV sgs = one - two * (ps * ps), sgc = one - two * (pc * pc);
    s = sgs * (t * ca + nt * sa);
    c = sgc * (t * sa + nt * ca);
  }
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
  if constexpr (W == 1) {
    // One lane: longitude and latitude in the two lanes of one vector. The polynomials are a
    // latency chain of some 60 operations; two chains of one point a time cost 4x the xyz path.
    double l0, l1;
    stu(&l0, lo);
    stu(&l1, la);
    sph_d2 s2, c2;
    sincosd(sph_d2{l0, l1}, s2, c2);
    so = V(s2[0]);
    co = V(c2[0]);
    sa = V(s2[1]);
    ca = V(c2[1]);
  } else {
    sincosd(lo, so, co);
    sincosd(la, sa, ca);
  }
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
