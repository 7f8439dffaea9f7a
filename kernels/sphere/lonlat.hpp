// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/lonlat.hpp — geographic coordinates to unit vectors, W points a vector: sine
// and cosine of angles in degrees with the reduction done in degrees (exact), so that multiples
// of 90 degrees give exact 0 and +-1 (the poles are exactly (0, 0, +-1)). AVX-512 and AVX2
// reduce to |r| <= 11.25 / 22.5 degrees and add the angle from a table read by a lane permute
// (sincos_table); the scalar path does the same with AVX-512's 16 angles read from memory, a
// point's longitude and latitude in the two lanes of one vector (sincos_table16_d2); NEON
// reduces to [-45, 45] degrees and evaluates fdlibm's kernel polynomials on [-pi/4, pi/4]
// (k_sin.c / k_cos.c, error < 1 ulp there; sincosd).
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

/// x in both lanes.
inline sph_d2 splat_d2(double x) { return sph_d2{x, x}; }

/// sin(360 j / N) and cos(360 j / N), j = 0..N-1 (N = 16: steps of 22.5 degrees, 8: 45).
inline constexpr double kTabA1 = 0.382683432365089771728, kTabA2 = 0.707106781186547524401,
                        kTabA3 = 0.923879532511286756128;
alignas(64) inline constexpr double kSin16[16] = {0,      kTabA1,  kTabA2,  kTabA3,  1,  kTabA3,  kTabA2,  kTabA1,
                                                  0,      -kTabA1, -kTabA2, -kTabA3, -1, -kTabA3, -kTabA2, -kTabA1};
alignas(64) inline constexpr double kCos16[16] = {1,       kTabA3,  kTabA2,  kTabA1,  0, -kTabA1, -kTabA2, -kTabA3,
                                                  -1,      -kTabA3, -kTabA2, -kTabA1, 0, kTabA1,  kTabA2,  kTabA3};
alignas(64) inline constexpr double kSin8[8] = {0, kTabA2, 1, kTabA2, 0, -kTabA2, -1, -kTabA2};
alignas(64) inline constexpr double kCos8[8] = {1, kTabA2, 0, -kTabA2, -1, -kTabA2, 0, kTabA2};

/// sin and cos of x with a table of N = vx::kLookupN angles (AVX-512 16, AVX2 8); x in degrees
/// (kRad false: finite, |x| < 2^50) or radians (kRad true: |x| <= 2^20). t = x N / P + 1.5 2^52
/// (P = 360 or 2 pi; one fused rounding: k = t - 1.5 2^52 is round(x N / P) up to a tie).
/// Degrees: r = x - (360 / N) k exact (both multiples of x's ulp, as in sincosd). Radians: r =
/// x - (2 pi / N) k by three fused steps on 2 pi / N split into three doubles (Cody-Waite; |k| <
/// 2^22, error about 1 ulp of r). |r| <= P / (2 N) + a rounding; sin r = r PS(w), cos r = 1 +
/// w PC(w) (w = r^2), minimax fits on |r| <= 1.0001 P / (2 N) (mpmath chebyfit, 50 digits; fit
/// error: sin relative 4.2e-18 (N = 16, degree 4 in w) / 1.1e-18 (N = 8, degree 5), cos
/// absolute 1.4e-20 / 1.2e-20), then the angle sum with S = sin(P k / N), C = cos(P k / N) from
/// the table (vx::lookup on t's low bits): sin = sr C + cr S, cos = cr C - sr S. Error (degrees,
/// measured against long double over 1.6e7-3.2e7 angles): 3.7 ulp relative, 2.3 x 2^-53 absolute;
/// r = 0 gives the table's value exactly (0 and +-1 at multiples of 90 degrees). About half the
/// operations of sincosd's quadrant form (~20 an angle), and no compares or selects.
template <int N, bool kRad>
__attribute__((always_inline)) inline void sincos_table(const V& x, V& s, V& c) {
  static_assert(N == 16 || N == 8, "tables of 16 (AVX-512) or 8 (AVX2) angles");
  const V magic(0x1.8p52);
  V t, r;
  if constexpr (kRad) {
    t = madd(x, V(N == 16 ? 2.5464790894703255 : 1.2732395447351628), magic);  // N / (2 pi)
    const V k = t - magic;
    r = madd(k, V(N == 16 ? -0.39269908169872414 : -0.7853981633974483), x);
    r = madd(k, V(N == 16 ? -1.5308084989341915e-17 : -3.061616997868383e-17), r);
    r = madd(k, V(N == 16 ? 3.7434622621479246e-34 : 7.486924524295849e-34), r);
  } else {
    t = madd(x, V(N / 360.0), magic);
    r = madd(t - magic, V(-360.0 / N), x);
  }
  const V w = r * r;
  V ps, pc;
  if constexpr (kRad && N == 16) {
    ps = madd(w, madd(w, madd(w, madd(w, V(0.00000275331781555124539197), V(-0.000198412616969358122928)),
                                  V(0.00833333333221178174031)),
                         V(-0.166666666666661260809)),
              V(0.999999999999999995831));
    pc = madd(w, madd(w, madd(w, madd(w, V(-2.75372005125702501529e-7), V(0.000024801580514128692538)),
                                  V(-0.00138888888879541841715)),
                         V(0.041666666666666216139)),
              V(-0.499999999999999999653));
  } else if constexpr (kRad) {
    ps = madd(w, madd(w, madd(w, madd(w, madd(w, V(-2.49779005837799879719e-8), V(0.0000027557190513126055022)),
                                           V(-0.000198412697383508757213)),
                                  V(0.00833333333329613136823)),
                         V(-0.166666666666666174851)),
              V(0.999999999999999998946));
    pc = madd(w, madd(w, madd(w, madd(w, madd(w, V(2.08237422918554694453e-9), V(-2.75572272667091924478e-7)),
                                           V(0.0000248015872280550841853)),
                                  V(-0.00138888888888623089447)),
                         V(0.0416666666666666315273)),
              V(-0.499999999999999999925));
  } else if constexpr (N == 16) {
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
  const V S = vx::lookup(N == 16 ? kSin16 : kSin8, t), C = vx::lookup(N == 16 ? kCos16 : kCos8, t);
  s = madd(sr, C, cr * S);
  c = madd(cr, C, -(sr * S));
}

/// sin and cos of deg degrees (finite, |deg| < 2^50: the caller reduces larger angles with
/// fmod, which is exact). k = round(deg / 90) by the 1.5 * 2^52 trick, r = deg - 90 k exact (an
/// integer multiple of 90 and deg share deg's ulp and |r| <= 45 + a rounding), a = r pi / 180
/// (one rounding), then the quadrant k mod 4 by compares and blends. The vector paths only
/// (lonlat_block): AVX-512 and AVX2 take sincos_table, NEON this quadrant form; the scalar path
/// converts both angles of a point at once (sincos_table16_d2).
inline void sincosd(const V& deg, V& s, V& c) {
  if constexpr (vx::kLookupN > 0) {
    sincos_table<vx::kLookupN, false>(deg, s, c);
    return;
  }
  const V magic = V(0x1.8p52), one = V(1.0);
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
  // q = k - 4 round(k / 4) in {-2, -1, 0, 1, 2}: quadrant 3 is q = -1, quadrant 2 q = +-2;
  // negation by -1 x (exact). Rounding by the 1.5 * 2^52 trick (|k| < 2^45).
  const V two(2.0);
  const V q = k - V(4.0) * ((k * V(0.25) + magic) - magic), aq = abs(q);
  const auto odd = aq == one;
  const V s0 = select(odd, ca, sa), c0 = select(odd, sa, ca), m1(-1.0);
  s = select((q < V(0.0)) | (q == two), s0 * m1, s0);
  c = select((q == one) | (aq == two), c0 * m1, c0);
}

/// sincos_table<16, false> on the two lanes of an sph_d2 (the scalar path: no FMA, each madd a
/// product and a sum, so t = x 16 / 360 + 1.5 2^52 rounds twice: k may differ from round(x /
/// 22.5) next to a tie, |r| then a rounding above 11.25; r = x - 22.5 k is exact; the table read
/// from memory at t's low 4 bits per lane). Error (degrees, against long double over 1.1e7
/// angles: random in +-400, beside multiples of 11.25, tiny): 3.6 ulp relative, 2.1 x 2^-53
/// absolute, as sincos_table<16> with FMA; about 30 operations for the two angles against some
/// 60 of sincosd's quadrant form (lon / lat at lmax 1: 0.58x the time).
inline void sincos_table16_d2(const sph_d2& x, sph_d2& s, sph_d2& c) {
  const sph_d2 magic = splat_d2(0x1.8p52);
  const sph_d2 t = x * splat_d2(16.0 / 360.0) + magic;
  const sph_d2 r = x - (t - magic) * splat_d2(22.5);  // exact
  const sph_d2 w = r * r;
  auto cst = [](double v) { return splat_d2(v); };
  const sph_d2 ps = (((cst(4.13763953823635250786e-22) * w + cst(-9.78838084373598138281e-17)) * w +
                      cst(1.34960162298161726854e-11)) * w + cst(-8.86096155701269275329e-7)) * w +
                    cst(0.0174532925199432956965);
  const sph_d2 pc = (((cst(-7.22259832475187198608e-25) * w + cst(2.13549371917355280639e-19)) * w +
                      cst(-3.92583198547889133749e-14)) * w + cst(3.86632385156295184871e-9)) * w +
                    cst(-0.000152308709893354299568);
  const sph_d2 sr = r * ps, cr = w * pc + cst(1.0);
  uint64_t b0, b1;
  const double t0 = t[0], t1 = t[1];
  std::memcpy(&b0, &t0, sizeof b0);
  std::memcpy(&b1, &t1, sizeof b1);
  const sph_d2 S = {kSin16[b0 & 15u], kSin16[b1 & 15u]}, C = {kCos16[b0 & 15u], kCos16[b1 & 15u]};
  s = sr * C + cr * S;
  c = cr * C - sr * S;
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
    // One lane: longitude and latitude in the two lanes of one vector (two chains of one
    // point a time cost 4x the xyz path with sincosd's quadrant form).
    double l0, l1;
    stu(&l0, lo);
    stu(&l1, la);
    sph_d2 s2, c2;
    sincos_table16_d2(sph_d2{l0, l1}, s2, c2);
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

/// Rows 0 .. np - 1 of xyz [np, 3] from the lanes of X, Y, Z (np <= W).
inline void store_xyz_block(const V& X, const V& Y, const V& Z, std::size_t np, double* xyz) {
  alignas(64) double xb[W], yb[W], zb[W];
  stu(xb, X);
  stu(yb, Y);
  stu(zb, Z);
  for (std::size_t i = 0; i < np; ++i) {
    xyz[3 * i] = xb[i];
    xyz[3 * i + 1] = yb[i];
    xyz[3 * i + 2] = zb[i];
  }
}

/// xyz [n, 3] = (cos lat cos lon, cos lat sin lon, sin lat) of lonlat [n, 2] in degrees
/// (finite longitudes, latitudes in [-90, 90]).
inline void lonlat_xyz(const double* lonlat, int64_t n, double* xyz) {
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    V X, Y, Z;
    lonlat_block(lonlat, p0, np, X, Y, Z);
    store_xyz_block(X, Y, Z, np, xyz + 3 * p0);
  }
}

/// The directions (|sin theta| cos phi, |sin theta| sin phi, cos theta) of the np <= W points
/// p0 .. p0 + np - 1 of theta [n], phi [n] in radians (finite): SciPy's direction,
/// posenc_sph_harm_complex_f64's front end; lanes past np from theta = phi = 0. AVX-512 and
/// AVX2: sincos_table in radians, W points a vector, for angles of magnitude <= 2^20, and
/// std::sin / std::cos for an angle above (lane by lane: a point's bits never depend on its
/// block); scalar and NEON: std::sin / std::cos.
inline void thetaphi_block(const double* theta, const double* phi, int64_t p0, std::size_t np, V& X, V& Y, V& Z) {
  alignas(64) double b[4][W];  // |sin theta|, cos theta, sin phi, cos phi
  if constexpr (W > 1 && vx::kLookupN > 0) {
    V th, ph;
    if (np == W) {
      th = load(theta + p0);
      ph = load(phi + p0);
    } else {
      for (std::size_t i = 0; i < W; ++i) {
        b[0][i] = i < np ? theta[p0 + static_cast<int64_t>(i)] : 0.0;
        b[1][i] = i < np ? phi[p0 + static_cast<int64_t>(i)] : 0.0;
      }
      th = load(b[0]);
      ph = load(b[1]);
    }
    V st, ct, sp, cp;
    sincos_table<vx::kLookupN, true>(th, st, ct);
    sincos_table<vx::kLookupN, true>(ph, sp, cp);
    st = abs(st);
    const V lim(0x1p20);
    if (__builtin_expect(any((!(abs(th) <= lim)) | (!(abs(ph) <= lim))), 0)) {
      stu(b[0], st);
      stu(b[1], ct);
      stu(b[2], sp);
      stu(b[3], cp);
      for (std::size_t i = 0; i < np; ++i) {
        const double t = theta[p0 + static_cast<int64_t>(i)], f = phi[p0 + static_cast<int64_t>(i)];
        if (!(std::fabs(t) <= 0x1p20)) b[0][i] = std::fabs(std::sin(t)), b[1][i] = std::cos(t);
        if (!(std::fabs(f) <= 0x1p20)) b[2][i] = std::sin(f), b[3][i] = std::cos(f);
      }
      st = load(b[0]);
      ct = load(b[1]);
      sp = load(b[2]);
      cp = load(b[3]);
    }
    X = st * cp;
    Y = st * sp;
    Z = ct;
  } else {
    for (std::size_t i = 0; i < W; ++i) {
      const double t = i < np ? theta[p0 + static_cast<int64_t>(i)] : 0.0;
      const double f = i < np ? phi[p0 + static_cast<int64_t>(i)] : 0.0;
      b[0][i] = std::fabs(std::sin(t));
      b[1][i] = std::cos(t);
      b[2][i] = std::sin(f);
      b[3][i] = std::cos(f);
    }
    const V st = load(b[0]);
    X = st * load(b[3]);
    Y = st * load(b[2]);
    Z = load(b[1]);
  }
}

/// Points of theta [n], phi [n] for the low-degree kernel (sh_low_body's input; the complex
/// entry point), converted block by block in registers (thetaphi_block): no xyz pass, no
/// buffer, and (as lonlat_source) not normalized again: unit vectors to a few ulp (normalized
/// again, the norm's chain was 1.2x the time at lmax 1).
struct thetaphi_source {
  static constexpr bool kUnit = true;  // unit vectors to a few ulp: not normalized again
  const double* th;
  const double* ph;
  void prefetch(int64_t p0) const {
    __builtin_prefetch(th + p0 + 16 * static_cast<int64_t>(W), 0, 3);
    __builtin_prefetch(ph + p0 + 16 * static_cast<int64_t>(W), 0, 3);
  }
  void get(int64_t p0, std::size_t np, V& X, V& Y, V& Z) const { thetaphi_block(th, ph, p0, np, X, Y, Z); }
};

/// xyz [n, 3] of theta [n], phi [n] (thetaphi_block).
inline void thetaphi_xyz(const double* theta, const double* phi, int64_t n, double* xyz) {
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    V X, Y, Z;
    thetaphi_block(theta, phi, p0, np, X, Y, Z);
    store_xyz_block(X, Y, Z, np, xyz + 3 * p0);
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
