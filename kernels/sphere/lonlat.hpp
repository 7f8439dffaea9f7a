// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/lonlat.hpp — geographic coordinates to unit vectors, W points a vector: sine
// and cosine of angles in degrees with the reduction done in degrees (exact), so that multiples
// of 90 degrees give exact 0 and +-1 (the poles are exactly (0, 0, +-1)). AVX-512 and AVX2
// reduce to |r| <= 11.25 / 22.5 degrees and add the angle from a table read by a lane permute
// (sincosd_table); the scalar and NEON paths reduce to [-45, 45] degrees and evaluate fdlibm's
// kernel polynomials on [-pi/4, pi/4] (k_sin.c / k_cos.c, error < 1 ulp there; sincosd).
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

/// sin and cos of deg degrees (finite, |deg| < 2^50) with a table of N = vx::kLookupN angles
/// (AVX-512 16, AVX2 8): t = deg N / 360 + 1.5 2^52 (one fused rounding: k = t - 1.5 2^52 is
/// round(deg N / 360) up to a tie), r = deg - (360 / N) k exact (both multiples of deg's ulp, as
/// in sincosd; |r| <= 180 / N + a rounding), polynomials in r and w = r^2 in degrees: sin r =
/// r PS(w), cos r = 1 + w PC(w), minimax fits on |r| <= 1.0001 180 / N (mpmath chebyfit, 50
/// digits; fit error: sin relative 4.2e-18 (N = 16, degree 4 in w) / 1.1e-18 (N = 8, degree 5),
/// cos absolute 1.4e-20 / 1.2e-20), then the angle sum with S = sin(360 k / N), C = cos(360 k /
/// N) from the table (vx::lookup on t's low bits): sin = sr C + cr S, cos = cr C - sr S.
/// Error: 2.2 ulp of 1 at most (docs/ACCURACY.md: measured against long double); r = 0 gives the
/// table's value exactly (0 and +-1 at multiples of 90 degrees). About half the operations of
/// the quadrant form below (~20 an angle), and no compares or selects.
template <int N>
__attribute__((always_inline)) inline void sincosd_table(const V& deg, V& s, V& c) {
  static_assert(N == 16 || N == 8, "tables of 16 (AVX-512) or 8 (AVX2) angles");
  // sin(360 j / N) and cos(360 j / N), j = 0..N-1 (16: steps of 22.5 degrees, 8: 45 degrees)
  constexpr double a1 = 0.382683432365089771728, a2 = 0.707106781186547524401, a3 = 0.923879532511286756128;
  alignas(64) static constexpr double ts16[16] = {0, a1, a2, a3, 1, a3, a2, a1, 0, -a1, -a2, -a3, -1, -a3, -a2, -a1};
  alignas(64) static constexpr double tc16[16] = {1, a3, a2, a1, 0, -a1, -a2, -a3, -1, -a3, -a2, -a1, 0, a1, a2, a3};
  alignas(64) static constexpr double ts8[8] = {0, a2, 1, a2, 0, -a2, -1, -a2};
  alignas(64) static constexpr double tc8[8] = {1, a2, 0, -a2, -1, -a2, 0, a2};
  const V magic(0x1.8p52);
  const V t = madd(deg, V(N / 360.0), magic);
  const V r = madd(t - magic, V(-360.0 / N), deg);
  const V w = r * r;
  V ps, pc;
  if constexpr (N == 16) {
    ps = madd(w, madd(w, madd(w, madd(w, V(4.13763953823635250786e-22), V(-9.78838084373598138281e-17)),
                                  V(1.34960162298161726854e-11)),
                         V(-8.86096155701269275329e-7)),
              V(0.0174532925199432956965));
    pc = madd(w, madd(w, madd(w, madd(w, V(-7.22259832475187198608e-25), V(2.13549371917355280639e-19)),
                                  V(-3.92583198547889133749e-14)),
                         V(3.86632385156295184871e-9)),
              V(-0.000152308709893354299568));
  } else {
    ps = madd(w, madd(w, madd(w, madd(w, madd(w, V(-1.14342313793680127033e-27), V(4.14124807480656370001e-22)),
                                           V(-9.78838481084424121435e-17)),
                                  V(1.34960162315723007069e-11)),
                         V(-8.8609615570129540121e-7)),
              V(0.0174532925199432957508));
    pc = madd(w, madd(w, madd(w, madd(w, madd(w, V(1.6637466404670810022e-30), V(-7.22785104464357318621e-25)),
                                           V(2.13549429726363187166e-19)),
                                  V(-3.92583198573558179778e-14)),
                         V(3.86632385156299039332e-9)),
              V(-0.00015230870989335429965));
  }
  const V sr = r * ps, cr = madd(w, pc, V(1.0));
  const V S = vx::lookup(N == 16 ? ts16 : ts8, t), C = vx::lookup(N == 16 ? tc16 : tc8, t);
  s = madd(sr, C, cr * S);
  c = madd(cr, C, -(sr * S));
}

/// sin and cos of deg degrees (finite, |deg| < 2^50: the caller reduces larger angles with
/// fmod, which is exact). k = round(deg / 90) by the 1.5 * 2^52 trick, r = deg - 90 k exact (an
/// integer multiple of 90 and deg share deg's ulp and |r| <= 45 + a rounding), a = r pi / 180
/// (one rounding), then the quadrant k mod 4. VV: V, or sph_d2 on the scalar path (no FMA).
template <class VV>
inline void sincosd(const VV& deg, VV& s, VV& c) {
  if constexpr (std::is_same<VV, V>::value && W > 1 && vx::kLookupN > 0) {
    sincosd_table<vx::kLookupN>(deg, s, c);
    return;
  }
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
