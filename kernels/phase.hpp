// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/phase.hpp — exact-phase sin/cos, the primitive behind every S¹ encoding.
//
// Problem: sin(p * w) for integer positions p up to 2^24 (and beyond) and frequencies w in
// radians per position. Forming the phase p*w in float32 loses ~1e-2 at p = 128K (docs/REFERENCES.md
// §1); generic vector sin/cos (xsimd 8.1) fall back to a scalar per-lane reduction once a lane
// exceeds 64*pi. We never form a rounded phase in radians. Instead:
//
//   1. the frequency is given in turns per position as a double-double  w/(2*pi) = wh + wl
//      (prepared once per frequency by lib/, see freq_turns() in lib/phase_prep.hpp);
//   2. p*wh is split exactly into xh + xl with an exact two-product (FMA, or Dekker's
//      splitting on the scalar path), so  p*w/(2*pi) = xh + xl + p*wl  to ~2^-104 relative;
//   3. the integer number of turns is dropped exactly: r = (xh - nearbyint(xh)) + (xl + p*wl),
//      |r| <= 1/2 (xh - nearbyint(xh) is exact by Sterbenz's lemma);
//   4. r is split into a quadrant q = nearbyint(4r) and a remainder t = r - q/4 (exact), the
//      angle a = 2*pi*t has |a| <= pi/4, and sin/cos come from the fdlibm kernel polynomials
//      (__kernel_sin / __kernel_cos minimax coefficients, |error| < 2^-58 on [-pi/4, pi/4]),
//      with the quadrant applied by swapping and negating.
//
// Accuracy (float64 result): |error| <= ~4e-16 for any |p| <= 2^53 — the result is sin/cos of
// the exactly reduced phase. Rounded to float32 this is the correctly rounded value up to one
// rounding (<= 6e-8 abs). Cost: ~30 flops per (sin, cos) pair, branch-free, all lanes in SIMD.
#pragma once

#include "kernels/simd.hpp"

namespace posenc {
namespace POSENC_NS {

/// sin and cos of 2*pi*r for a reduced argument |r| <= 1/2 + 2^-40 (turns).
template <class V>
inline void sincos_turns_reduced(const V& r, V& s, V& c) {
  const V q = nearbyint(r * V(4.0));          // quadrant, in {-2, -1, 0, 1, 2}
  const V t = r - q * V(0.25);                // exact, |t| <= 1/8
  const V a = t * V(6.283185307179586476925);  // |a| <= pi/4 (rounding error ~1e-16 relative)
  const V z = a * a;
  // fdlibm __kernel_sin: sin(a) = a + a^3 * (S1 + z*(S2 + ... + z*S6))
  V ps = madd(z, V(1.58969099521155010221e-10), V(-2.50507602534068634195e-08));
  ps = madd(z, ps, V(2.75573137070700676789e-06));
  ps = madd(z, ps, V(-1.98412698298579493134e-04));
  ps = madd(z, ps, V(8.33333333332248946124e-03));
  ps = madd(z, ps, V(-1.66666666666666324348e-01));
  const V sn = madd(a * z, ps, a);
  // fdlibm __kernel_cos: cos(a) = 1 - z/2 + z^2 * (C1 + z*(C2 + ... + z*C6))
  V pc = madd(z, V(-1.13596475577881948265e-11), V(2.08757232129817482790e-09));
  pc = madd(z, pc, V(-2.75573143513906633035e-07));
  pc = madd(z, pc, V(2.48015872894767294178e-05));
  pc = madd(z, pc, V(-1.38888888888741095749e-03));
  pc = madd(z, pc, V(4.16666666666666019037e-02));
  const V hz = z * V(0.5);
  const V w = V(1.0) - hz;
  // w + ((1 - w) - hz) recovers the rounding of 1 - hz (fdlibm's trick for |a| > 0.3).
  const V cs = w + (((V(1.0) - w) - hz) + z * z * pc);
  // quadrant q mod 4 in {0,1,2,3}: (s, c) = (S, C), (C, -S), (-S, -C), (-C, S)
  const V qm = q - V(4.0) * floor(q * V(0.25));
  const auto odd = (qm == V(1.0)) | (qm == V(3.0));
  const auto neg_s = qm >= V(2.0);
  const auto neg_c = (qm == V(1.0)) | (qm == V(2.0));
  const V s0 = select(odd, cs, sn);
  const V c0 = select(odd, sn, cs);
  s = select(neg_s, -s0, s0);
  c = select(neg_c, -c0, c0);
}

/// Fractional turns of p * (wh + wl): returns r with |r| <= 1/2 and p*(wh+wl) - r an integer,
/// exact to ~2^-100 relative to p*wh. p must hold an integer value with |p| <= 2^53.
template <class V>
inline V phase_turns(const V& p, const V& wh, const V& wl) {
  const V xh = p * wh;
  const V xl = two_prod_err(p, wh, xh);
  const V n = nearbyint(xh);
  return (xh - n) + (xl + p * wl);
}

/// sin and cos of the phase p * w where w/(2*pi) = wh + wl (turns per position).
template <class V>
inline void sincos_phase(const V& p, const V& wh, const V& wl, V& s, V& c) {
  sincos_turns_reduced(phase_turns(p, wh, wl), s, c);
}

}  // namespace POSENC_NS
}  // namespace posenc
