// SPDX-License-Identifier: Apache-2.0 OR MIT
/*
 * posenc/sphere.h — the C ABI of posenc, sphere section:
 * S²: associated Legendre, spherical harmonics, addition theorem, Wigner-D.
 *
 * posenc/posenc.h includes this header with the others; its opening comment states the
 * conventions every section follows. This header compiles alone, as C99 and as C++.
 */
#ifndef POSENC_SPHERE_H
#define POSENC_SPHERE_H

#include "posenc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================== */
/* sphere — S²: associated Legendre, spherical harmonics, addition theorem, Wigner-D         */
/* ======================================================================================== */

/* @@SPHERE-BEGIN@@ (section owned by the sphere family) */

/* Conventions of this section:
 *  - theta is the polar angle (colatitude) in [0, pi], phi the azimuth, both in radians;
 *    x = cos(theta). Geographic input is in degrees with polar = 90 - latitude.
 *  - P_l^m(x) = (1 - x^2)^{m/2} d^m/dx^m P_l(x) WITHOUT the Condon-Shortley phase (-1)^m unless
 *    a function says otherwise (csphase = -1 or the complex SH, which include it).
 *  - Real orthonormal SH ("real form", as sphericart and e3nn use), index l(l+1)+m, m = -l..l:
 *      m > 0:  sqrt(2) N_lm P_l^m(cos theta) cos(m phi)
 *      m = 0:  N_l0 P_l(cos theta)
 *      m < 0:  sqrt(2) N_l|m| P_l^|m|(cos theta) sin(|m| phi),
 *    N_lm = sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!); so Y_1,-1 : Y_1,0 : Y_1,1 = y : z : x.
 *  - Every recurrence keeps the normalization inside its coefficients (Holmes & Featherstone,
 *    J. Geodesy 76, 279 (2002)); no factorial or (2l-1)!! is ever formed. Values whose
 *    magnitude leaves the double range near the poles are carried with a per-lane extended
 *    exponent (units of 2^600, as SHTns / ducc0 do), so the normalized functions stay finite and
 *    accurate far beyond GSL's limit (GSL 2.7.1 returns inf from lmax 2823).
 *  - Every function runs SIMD across points and splits the points over the thread pool in tiles
 *    fixed by the problem size: results are bitwise identical for any thread count.
 *  - lmax must be in [0, 2^20]; a larger lmax, or an output size that overflows int64_t / the
 *    address space, is POSENC_ERR_SIZE_OVERFLOW. n == 0 is a no-op (pointers may then be NULL).
 *    All inputs are validated before anything is written. */

/** Normalizations of the associated Legendre functions. The functions are GSL's (gsl_sf_legendre_t)
 *  but the enum values are not: GSL numbers them GSL_SF_LEGENDRE_SCHMIDT 0, SPHARM 1, FULL 2,
 *  NONE 3, posenc NONE 0, SCHMIDT 1, SPHARM 2, FULL 3. Map by name (posenc = (gsl + 1) % 4,
 *  gsl = (posenc + 3) % 4), never by value. */
typedef enum {
  POSENC_LEGENDRE_NONE = 0,    /**< P_l^m(x), unnormalized (overflows to inf beyond l ~ 150,
                                    exactly where GSL does) */
  POSENC_LEGENDRE_SCHMIDT = 1, /**< Schmidt semi-normalized: sqrt((2 - delta_m0)(l-m)!/(l+m)!) P_l^m */
  POSENC_LEGENDRE_SPHARM = 2,  /**< spherical-harmonic: sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!) P_l^m */
  POSENC_LEGENDRE_FULL = 3, /**< fully normalized on [-1, 1]: sqrt((l+1/2)(l-m)!/(l+m)!) P_l^m */
  POSENC_LEGENDRE_NORM_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_legendre_norm;

/** Associated Legendre functions P_l^m(x) for 0 <= m <= l <= lmax, in GSL's layout.
 *
 *  x: [n], each in [-1, 1]. out: [n, (lmax+1)(lmax+2)/2] row-major; out[i, l(l+1)/2 + m] is the
 *  function of degree l, order m at x[i] (GSL's gsl_sf_legendre_array_index order).
 *  csphase: +1 (no Condon-Shortley phase, GSL's default) or -1 (multiply by (-1)^m), exactly as
 *  GSL's csphase argument of gsl_sf_legendre_array_e.
 *
 *  Method: the three-term recurrence in l at fixed m with normalized coefficients (Holmes &
 *  Featherstone 2002; the same recurrences as GSL 2.x), the sectoral seeds by
 *  P_m^m = P_{m-1}^{m-1} c_m sqrt(1-x^2) with sqrt(1-x^2) = sqrt((1-x)(1+x)); the SCHMIDT,
 *  SPHARM and FULL norms carry a per-lane extended exponent, so no value underflows or
 *  overflows before it is representable.
 *  SPHARM and FULL run the Schmidt recurrence and scale degree l by sqrt((2l+1)/(4 pi)) resp.
 *  sqrt(l+1/2) on output, as GSL does (more accurate near the poles than orthonormal
 *  coefficients).
 *  Accuracy (tests/test_legendre.cpp, docs/ACCURACY.md; errors relative to the rms of the degree-l
 *  block): against GSL 2.7.1, <= 1e-12 for |x| <= 0.999 up to lmax 2700 (observed <= 6e-13 vs a
 *  long double evaluation). Near the poles every forward recurrence in l (GSL's too) loses
 *  accuracy like (l+1)^1.5 eps: observed vs long double at l = 2700, 1.6e-11 at x = 1 and
 *  8.7e-11 at x = 1 - 1e-15 (GSL: 2.5e-10 and 2.7e-11); the tests bound the difference to GSL
 *  there by 16 (l+1)^1.5 eps. Beyond GSL (which returns inf from lmax 2823): every value stays
 *  finite up to lmax 10000 (tested; any lmax <= 2^20 is accepted), with sum_m S_l^m(x)^2 = 1 to
 *  <= 4e-11 for all l <= 10000 and <= 1.7e-12 (x = 0.5) / 8.6e-12 (x = 1e-3) against long
 *  double. NONE is the plain recurrence and overflows to inf where GSL does (l ~ 150).
 *  posenc_legendre_f32 computes in float64 and rounds once to float32.
 *
 *  Errors: INVALID_ARGUMENT (norm not a posenc_legendre_norm, lmax < 0, csphase not +-1, n < 0,
 *  some x[i] outside [-1, 1] or NaN); NULL_POINTER (x or out NULL while n > 0); SIZE_OVERFLOW
 *  (lmax > 2^20 or n (lmax+1)(lmax+2)/2 overflows). Sources: GSL gsl_sf_legendre_array_e;
 *  Holmes & Featherstone 2002; Schaeffer, SHTns (2013) / Reinecke, ducc0 for the exponent range. */
POSENC_API posenc_status posenc_legendre_f64(posenc_legendre_norm norm, int32_t lmax, int32_t csphase,
                                             const double* x, int64_t n, double* out);
/** float32 variant of posenc_legendre_f64: x is widened, everything is computed in float64 and
 *  each value is rounded once to float32 (so the result is the float64 result rounded; values
 *  below float32's range flush towards 0). Same layout, degree range and errors. */
POSENC_API posenc_status posenc_legendre_f32(posenc_legendre_norm norm, int32_t lmax, int32_t csphase,
                                             const float* x, int64_t n, float* out);

/** Legendre polynomials: out [n, lmax+1], out[i, l] = P_l(x[i]), x[i] in [-1, 1], by Bonnet's
 *  recurrence l P_l = (2l-1) x P_{l-1} - (l-1) P_{l-2}. Accuracy: <= 1e-13 absolute for
 *  lmax <= 1000 against GSL gsl_sf_legendre_Pl_array away from x = +-1, and <= (l+1)^1.5 eps near
 *  them (the recurrence's own conditioning, shared by GSL). Errors: INVALID_ARGUMENT (lmax < 0,
 *  n < 0, x[i] outside [-1, 1]), NULL_POINTER, SIZE_OVERFLOW as posenc_legendre_f64. */
POSENC_API posenc_status posenc_legendre_poly_f64(int32_t lmax, const double* x, int64_t n, double* out);

/** Addition-theorem (zonal) kernel on S²:
 *    out[i] = sum_{l=0}^{lmax} w_l (2l+1)/(4 pi) P_l(cos_gamma[i])
 *  (= sum_l w_l sum_m Y_lm(a) Y_lm(b) for unit vectors with a.b = cos_gamma[i]).
 *  weights: [lmax+1] finite, or NULL for all 1. cos_gamma: [n] in [-1, 1]. out: [n].
 *  Method: Clenshaw's backward recurrence for the Legendre series (O(lmax) per point, stable).
 *  Accuracy: <= 1e-13 of sum_l |w_l (2l+1)/(4 pi) P_l| against the explicit long double sum of
 *  GSL's P_l for |cos_gamma| <= 0.999 (lmax 1000); near +-1 within sum_l (2l+1)/(4 pi) (l+1)^1.5
 *  eps / 8; equal to the explicit sum of real SH products (addition theorem) to 1e-10 of
 *  sum_l w_l (2l+1)/(4 pi) at lmax 200. Errors: INVALID_ARGUMENT (lmax < 0,
 *  n < 0, a weight not finite, cos_gamma[i] outside [-1, 1]), NULL_POINTER (cos_gamma or out NULL
 *  while n > 0), SIZE_OVERFLOW (lmax > 2^20, or n * 8 bytes overflowing int64). */
POSENC_API posenc_status posenc_sph_kernel_f64(int32_t lmax, const double* weights, const double* cos_gamma,
                                               int64_t n, double* out);

/** Real orthonormal spherical harmonics (the real form above) of the directions xyz.
 *
 *  xyz: [n, 3] row-major (x, y, z), any finite nonzero length (normalized inside, after scaling
 *  by the largest component, so 1e-300 or 1e300 inputs are fine). out: [n, (lmax+1)^2],
 *  out[i, l(l+1)+m] = Y_lm, m = -l..l.
 *  Method: cos(theta) = z/r, sin(theta) = sqrt(x^2+y^2)/r, and the azimuthal factors cos(m phi),
 *  sin(m phi) as the real and imaginary parts of ((x+iy)/sqrt(x^2+y^2))^m by complex
 *  multiplication (no trigonometric call; phi = 0 on the z axis, where every m != 0 term is 0).
 *  lmax <= 360: the orthonormal three-term recurrence with closed-form coefficients
 *  (Y_l^m = a_lm x Y_{l-1}^m - b_lm Y_{l-2}^m, sectoral seeds by sqrt((2m+1)/(2m)) sin(theta)),
 *  degree outer, order inner, each value written to its cos and sin feature; a block of points
 *  with sin(theta)^lmax below 2^-900 (and not on the pole), and every lmax > 360, takes the
 *  recurrence of posenc_legendre_f64 (SPHARM, extended exponent) instead. Vectorized across
 *  points (blocks of the vector width), point-major output written by in-register transposes;
 *  on AVX-512 in whole aligned 64-byte lines (non-temporal when the output is >= 16 MB, so no
 *  read-for-ownership). Bits do not depend on the thread count; they can differ by the
 *  recurrence's rounding between a call and the same points split over several calls when a
 *  block takes the extended-range path.
 *  Near the poles cos theta is carried as z/r + c, c = (s - z/r) - s sin^2(theta) / (1 + |z/r|)
 *  (s = sign z, where |z/r| > 1/2), in every step of the recurrence: the rounding of z/r alone
 *  (~1 ulp of 1) became ~l^2 ulp of the degree block (7e-13 at l = 40, z = 0.999627). For
 *  17 <= lmax <= 360 the orders m < 8 of points with |z/r| > 0.97 run the recurrence in
 *  difference form instead (each column scaled by its value at cos theta = 1, w_l = y_l / r_l,
 *  stepping d_l = w_l - w_{l-1} = -beta d_{l-1} - alpha t w_{l-1} with t = 1 - |cos theta| =
 *  sin^2(theta) / (1 + |cos theta|), alpha = (2l-1)/(l+m), alpha + beta = 1): the ordinary
 *  recurrence's rounding grows like l^2 eps as x -> 1, where its two roots meet; this form's
 *  like l eps. Decided point by point, so a point's bits do not depend on its neighbours.
 *  lmax <= 3 (also posenc_sph_harm_real_ex_* with any flags and
 *  posenc_sph_harm_real_grad_* without Hessians) takes a dedicated kernel: Y_lm as polynomials
 *  in u = x/|x| (the recurrence's coefficients in u_z, (u_x + i u_y)^m for the azimuth), each
 *  block of points in registers, rows written from in-register transposes. Its bits differ
 *  from the recurrence's (the first 16 values of an lmax 4 call are not those of an lmax 3
 *  call; both within the bounds below).
 *  Accuracy (f64): lmax <= 3: <= 1e-14 block-relative against long double (measured 2.7e-15);
 *  near the poles (sin theta from 0.25 down to 1e-8, both poles): block-relative <= 1e-13 for
 *  lmax <= 40 (measured 1.1e-14 on every ISA path, random and fixed directions incl.
 *  z = 0.999627) and, per degree above 20, <= 4e-17 l^2 for the block of degree l to lmax 360
 *  (measured 2.4e-17 l^2: 1.7e-13 to 2.4e-13 at l = 100, 2.4e-12 at l = 360, from the orders
 *  m >= 8 at sin theta 0.1 - 0.25, where the ordinary recurrence's l^2 growth remains).
 *  lmax > 360 takes the extended-range recurrence (above); its near-pole points (|z/r| > 0.97,
 *  sin theta >= 2^-60) run the orders m < 8 in the same difference form: block-relative
 *  <= 1e-13 for the blocks of degree <= 40 and <= 5e-18 l^2.5 for the block of degree l above 20
 *  (1 - |z/r| from 2e-2 down to 1e-12, both poles; measured 9.1e-15 and 2.3e-18 l^2.5 on every
 *  ISA path: 2.4e-12 at l = 400, 7.4e-12 at l = 1000 with 1 - z = 5e-9, where the ordinary
 *  recurrence gave 5.3e-10).
 *  Also <= 2e-13 absolute against Boost.Math spherical_harmonic for lmax <= 20
 *  (including poles, near-poles and 1e-300 / 1e300 lengths); sum_m Y_lm^2 = (2l+1)/(4 pi) to
 *  8e-14 relative at lmax 150 and 5.2e-13 at lmax 1000; orthonormal under Gauss-Legendre x
 *  uniform quadrature to 1e-12 (lmax 20); equivariant under posenc_wigner_d_real_f64 to 1e-12.
 *  posenc_sph_harm_real_f32 takes float32 input. For lmax > 16, and on the scalar and NEON
 *  paths, it computes in float64 and rounds the output once: observed <= 5.5e-8 relative to the float64
 *  result per degree block (rms) at lmax 150 (bound tested 1e-7; sphericart's float path fails
 *  from l ~ 19). On AVX-512 and AVX2 with lmax <= 16 the recurrence itself runs in float32 (16 / 8
 *  points per vector, the same operations per lane on both; set-up, sectoral seeds and the rounding error of cos theta kept from float64; blocks
 *  whose seeds leave the float range take the float64 path): measured worst 2.1e-6 (lmax 10),
 *  3.7e-6 (lmax 16) per degree block over 400k random directions, tested <= 1e-5 (the contract)
 *  up to lmax 33 on every ISA. Its bits therefore differ between ISAs (within those bounds).
 *  No degree above 3 is hard-coded.
 *
 *  Errors: INVALID_ARGUMENT (lmax < 0, n < 0, xyz[i] not finite or (0, 0, 0)); NULL_POINTER
 *  (xyz or out NULL while n > 0); SIZE_OVERFLOW (lmax > 2^20 or n (lmax+1)^2 overflows).
 *  Sources: Wikipedia "Spherical harmonics, real form"; Bigi et al., J. Chem. Phys. 159, 064802
 *  (2023) (sphericart) for the (x+iy)^m construction. */
POSENC_API posenc_status posenc_sph_harm_real_f64(int32_t lmax, const double* xyz, int64_t n, double* out);
/** float32 variant of posenc_sph_harm_real_f64: xyz [n, 3] float, out [n, (lmax+1)^2] float. */
POSENC_API posenc_status posenc_sph_harm_real_f32(int32_t lmax, const float* xyz, int64_t n, float* out);

/* Flags of posenc_sph_harm_real_ex_* and posenc_sph_harm_real_grad_*. */
/** Solid harmonics R_lm(x) = |x|^l Y_lm(x/|x|) (sphericart's SolidHarmonics) instead of Y_lm(x/|x|). */
#define POSENC_SPH_SOLID 1u
/** A zero vector is accepted (instead of INVALID_ARGUMENT for the whole call, e3nn's rule): its
 *  values are Y_00 = 1/sqrt(4 pi) and 0 for l >= 1. Unit-sphere derivatives there are all 0; with
 *  POSENC_SPH_SOLID they are the exact derivatives of the polynomials R_lm at 0 (the constant
 *  gradient of degree 1 and Hessian of degree 2, 0 elsewhere). */
#define POSENC_SPH_ZERO_AS_ZERO 2u

/** posenc_sph_harm_real_f64 with flags (POSENC_SPH_SOLID, POSENC_SPH_ZERO_AS_ZERO, or 0).
 *
 *  xyz: [n, 3], out: [n, (lmax+1)^2], index l(l+1)+m, the real form above. flags = 0 is
 *  posenc_sph_harm_real_f64 (the same bits). Any other flags take the recurrence of
 *  posenc_sph_harm_real_grad_f64 (values only; same functions, not the same bits: within
 *  1.5e-12 (tested) block-relative of posenc_sph_harm_real_f64 at lmax 40), or for lmax <= 3
 *  the low-degree kernel of posenc_sph_harm_real_f64 (the unit-sphere values then have the
 *  same bits for every flag), then
 *  SOLID multiplies degree l by |x|^l (which overflows to +-inf, or NaN where Y_lm = 0, once
 *  |x|^l leaves the double range). Errors: as posenc_sph_harm_real_f64, plus INVALID_ARGUMENT
 *  for flags with other bits; a zero vector is accepted with POSENC_SPH_ZERO_AS_ZERO. */
POSENC_API posenc_status posenc_sph_harm_real_ex_f64(int32_t lmax, const double* xyz, int64_t n, uint32_t flags,
                                                     double* out);
/** float32 variant of posenc_sph_harm_real_ex_f64 (flags = 0: posenc_sph_harm_real_f32; other flags:
 *  computed in float64, each value rounded once to float32). */
POSENC_API posenc_status posenc_sph_harm_real_ex_f32(int32_t lmax, const float* xyz, int64_t n, uint32_t flags,
                                                     float* out);

/** Real SH (or, with POSENC_SPH_SOLID, solid harmonics) with their Cartesian gradients and
 *  Hessians, in sphericart's layouts.
 *
 *  xyz: [n, 3] row-major, finite; any nonzero length (scaled by its largest component before it
 *  is normalized); (0, 0, 0) only with POSENC_SPH_ZERO_AS_ZERO. flags: POSENC_SPH_SOLID |
 *  POSENC_SPH_ZERO_AS_ZERO or 0.
 *  values: [n, (lmax+1)^2] or NULL, index l(l+1)+m: Y_lm(x/|x|) (the real form above), or
 *    |x|^l Y_lm with SOLID.
 *  grad: [n, 3, (lmax+1)^2], required: grad[i, a, k] = d values[i, k] / d x_a (a = x, y, z).
 *    Unit-sphere harmonics include the chain rule through x/|x|, so grad is orthogonal to x
 *    and scales like 1/|x|.
 *  hess: [n, 3, 3, (lmax+1)^2] or NULL: hess[i, a, b, k] = d^2 values[i, k] / d x_a d x_b
 *    (symmetric: both triangles are written with the same values); scales like 1/|x|^2.
 *  Derivatives that leave the double range (|x| near the smallest or largest doubles, or
 *  |x|^l with SOLID) overflow to +-inf.
 *  Method: the solid harmonics R_lm = r^l Y_lm are evaluated at u = x/|x|, degree by degree:
 *  the orthonormal three-term recurrence in l for the Legendre part and (x+iy)^m for the azimuth
 *  (as posenc_sph_harm_real_f64); d R_lm / dz = sqrt((2l+1)/(2l-1) (l+m)(l-m)) R_{l-1,m}, and
 *  d/dx, d/dy of R_lm are combinations of R_{l-1,+-(m-1)} and R_{l-1,+-(m+1)}; the Hessian
 *  applies the same relations to the gradients of degree l-1 (coefficients and derivation:
 *  kernels/sphere_table.hpp sph_grad_coef). Homogeneity gives the solid results
 *  (|x|^l R, |x|^{l-1} grad R, |x|^{l-2} hess R) and, with Euler's relations u.grad R = l R and
 *  (hess R) u = (l-1) grad R, the quotient rule of Y = R / r^l:
 *    grad Y = (grad R - l Y u) / r,
 *    hess Y = (hess R - l (u grad R^T + grad R u^T) + l (l+2) Y u u^T - l Y I) / r^2.
 *  Every quantity is a bounded orthonormal function at a unit vector: no r^l, factorial or
 *  (2l-1)!! is formed, so the results stay finite at any degree (sphericart's break from l ~ 87
 *  in float64 because its prefactors overflow). SIMD across points, blocks of the vector width;
 *  bits do not depend on the thread count.
 *  Near the poles cos theta is carried as +-1 -+ rho^2 / (r (r + |z|)), so the zonal
 *  recurrence does not turn the rounding of z / r into l^2 ulp.
 *  lmax <= 3 with hess NULL: the low-degree kernel of posenc_sph_harm_real_f64 (values and
 *  gradients as polynomials in x/|x|, the same ladder relations), so values and gradients
 *  differ in their last bits from a call with Hessians (within 1e-14 / 1e-13 block-relative
 *  of long double, measured 2.7e-15 / 3.3e-14).
 *  Accuracy (f64, tests/test_sphere_grad.cpp, docs/ACCURACY.md; errors relative to the rms of
 *  the degree-l block of the same output, worst over random directions, the poles and
 *  z = +-0.999627): against 8th-order long-double finite differences of an independent
 *  long-double evaluation, lmax 40: values 1.2e-13, gradients 1.5e-13 (tested <= 2e-13 / 1e-12),
 *  Hessians tested <= 3e-12 (the differences' own rounding: 1.5e-12 measured); against
 *  sphericart 2.0.3's compute_with_hessians (both bases, lmax 1..40): values 1.1e-13,
 *  gradients 1.4e-13, Hessians 2.2e-13 (tested <= 2e-13 / 1e-12 / 1e-12); |u . grad Y| <= 1.6e-14 of the
 *  gradient block; values within 1.5e-12 (tested) of posenc_sph_harm_real_f64. lmax 1000: finite, values and gradients within 4.5e-10 of long double (tested
 *  2e-9); Hessians finite (tested to lmax 300). float32 (computed in float64, rounded once):
 *  within 1e-6 of the float64 result per degree block (one rounding of the largest element).
 *  Errors: INVALID_ARGUMENT (lmax < 0, n < 0, flags with other bits, xyz[i] not finite, or
 *  (0, 0, 0) without POSENC_SPH_ZERO_AS_ZERO; the message names the point); NULL_POINTER (xyz or
 *  grad NULL while n > 0); SIZE_OVERFLOW (lmax > 2^20, or n 9 (lmax+1)^2 overflows with hess,
 *  n 3 (lmax+1)^2 without). Sources: Bigi et al., J. Chem. Phys. 159, 064802 (2023)
 *  (sphericart: (x+iy)^m, the Q_l^m derivative relations, these layouts); Wikipedia
 *  "Spherical harmonics, real form". */
POSENC_API posenc_status posenc_sph_harm_real_grad_f64(int32_t lmax, const double* xyz, int64_t n, uint32_t flags,
                                                       double* values, double* grad, double* hess);
/** float32 variant of posenc_sph_harm_real_grad_f64: xyz widened, computed in float64, every output
 *  rounded once to float32 (so within 1e-6 of the float64 result per degree block, tested to
 *  lmax 150). Except unit-sphere values + gradients without Hessians (flags without
 *  POSENC_SPH_SOLID, hess NULL) at lmax 1..44 on AVX-512 and 1..63 on AVX2, computed partly in
 *  float32 lanes (16 / 8 points a vector): at lmax 1..3 the norm, 1/|x| and q_l^m(z) in float64,
 *  the rest in float32; at lmax 4 and up the set-up, the Legendre recurrence and the d/dz
 *  bracket in float64, the azimuth products, ladder relations, chain rule and transposes in
 *  float32. These are within 1e-5 of the float64 result per degree block (the float32 contract;
 *  measured: values 3.9e-7 and gradients 7.6e-7 at lmax <= 3, 1.5e-6 at lmax 40, 1.8e-6 at 63,
 *  near the poles and at lengths 1e-30..1e38 included); a point's bits do not depend on the
 *  other points of the call or the thread count. */
POSENC_API posenc_status posenc_sph_harm_real_grad_f32(int32_t lmax, const float* xyz, int64_t n, uint32_t flags,
                                                       float* values, float* grad, float* hess);

/** Real orthonormal SH of geographic coordinates: lonlat [n, 2] = (longitude, latitude) in
 *  DEGREES, latitude in [-90, 90], longitude any finite value; polar angle = 90 - latitude,
 *  azimuth = longitude. Same basis and output as posenc_sph_harm_real_f64 (out [n, (lmax+1)^2]),
 *  the direction formed with sin/cos reduced in degrees (exact at multiples of 90 degrees):
 *  on AVX-512 / AVX2 k = round(deg / 22.5) / round(deg / 45), deg - 22.5 k / 45 k exact, minimax
 *  polynomials on the remainder and the angle sum with a table of sin / cos (k mod 16 / 8;
 *  <= 3.7 ulp, 2.3 x 2^-53 absolute, measured); on the scalar path the same with the 16-entry
 *  table, without FMA (3.6 ulp, 2.1 x 2^-53, measured); on NEON k = round(deg / 90), deg - 90 k
 *  exact, then fdlibm's sin / cos kernel polynomials (< 1 ulp on [-pi/4, pi/4]); fmod
 *  by 360 first for |deg| >= 2^50; vectorized across points. For
 *  lmax <= 3 the low-degree kernel of posenc_sph_harm_real_f64 converts each block of points in
 *  its registers and takes the unit vectors as they are (not normalized again); above, each
 *  tile's directions take the kernels of posenc_sph_harm_real_f64 (streamed whole-line writer).
 *  SatCLIP (Russwurm et al., ICLR 2024) uses the same basis up to signs: its encoder with
 *  legendre_polys = L is lmax = L - 1 here (its "L = 10" is lmax 9), in the same order of (l, m);
 *  it evaluates at phi' = lon + 180, theta' = lat + 90 degrees, so its closed-form harmonics are
 *  (-1)^(l+m) times these, and its default "analytic" ones (-1)^l times these for m != 0 and
 *  pi (-1)^l times these for m = 0. Python: sph_harm_real_lonlat(..., convention="satclip")
 *  returns the closed-form signs; python/tests/test_satclip.py checks both for L <= 4.
 *  Accuracy: within 1e-12 of posenc_sph_harm_real_f64 at the direction formed in long double
 *  (lmax 40; 2e-14 for lmax <= 3); exactly 0 for every m != 0 at the poles. Errors:
 *  INVALID_ARGUMENT (lmax < 0, n < 0, longitude not finite, latitude outside [-90, 90] or NaN);
 *  NULL_POINTER; SIZE_OVERFLOW. */
POSENC_API posenc_status posenc_sph_harm_real_lonlat_f64(int32_t lmax, const double* lonlat, int64_t n,
                                                         double* out);

/** Complex orthonormal SH with the Condon-Shortley phase, SciPy's convention
 *  (scipy.special.sph_harm_y(l, m, theta, phi), = sph_harm(m, l, phi, theta) before 1.15):
 *    Y_l^m = (-1)^m N_lm P_l^m(cos theta) e^{i m phi},  Y_l^{-m} = (-1)^m conj(Y_l^m).
 *  theta: [n] polar angle, phi: [n] azimuth, radians, any finite values (|sin theta| is used, as
 *  SciPy does). out: [n, (lmax+1)^2, 2] as (re, im), index l(l+1)+m, m = -l..l.
 *  Computed from the real basis R: Y_l^m = (-1)^m (R_lm + i R_l,-m)/sqrt(2) and
 *  Y_l^-m = (R_lm - i R_l,-m)/sqrt(2) for m > 0, Y_l^0 = R_l0, R of the direction
 *  (|sin theta| cos phi, |sin theta| sin phi, cos theta): its sin / cos on AVX-512 / AVX2 by a
 *  Cody-Waite reduction to |r| <= pi/16 / pi/8, minimax polynomials and a table of sin / cos of
 *  the steps, for angles of magnitude <= 2^20 (std::sin / std::cos above, and on the scalar and
 *  NEON paths). Accuracy: <= 2e-13 absolute against Boost.Math spherical_harmonic for
 *  lmax <= 20; degree 1 within 2.5e-16 of long double. Errors: INVALID_ARGUMENT (lmax < 0, n < 0, theta or phi not
 *  finite); NULL_POINTER; SIZE_OVERFLOW (n 2 (lmax+1)^2 overflows). */
POSENC_API posenc_status posenc_sph_harm_complex_f64(int32_t lmax, const double* theta, const double* phi,
                                                     int64_t n, double* out);

/** Real Wigner-D matrices of a rotation, for the real basis above.
 *
 *  rotation: [3, 3] row-major, proper orthogonal (max |R^T R - I| <= 1e-9 and det R > 0).
 *  out: the blocks D^0, D^1, ..., D^lmax concatenated, block l (2l+1) x (2l+1) row-major with rows
 *  and columns in the order m = -l..l; (lmax+1)(2lmax+1)(2lmax+3)/3 values in all. They satisfy
 *  Y_l(R v) = D^l(R) Y_l(v) for every direction v (Y_l the 2l+1 real SH of degree l), and
 *  D(R1 R2) = D(R1) D(R2); D^1 is R itself in the (y, z, x) order.
 *  Method: the Ivanic & Ruedenberg recurrence from the 3x3 matrix (J. Phys. Chem. 100, 6342
 *  (1996); corrections 102, 9099 (1998)): no Euler angles, so no gimbal-lock singularity.
 *  Accuracy: orthogonality and equivariance to <= 1e-12 for lmax <= 20 (tests), error growing
 *  about linearly in l. Errors: INVALID_ARGUMENT (lmax < 0, rotation not finite, not orthogonal,
 *  or improper); NULL_POINTER (rotation or out NULL); SIZE_OVERFLOW (lmax > 65535). */
POSENC_API posenc_status posenc_wigner_d_real_f64(int32_t lmax, const double* rotation, double* out);

/** Rotates real SH coefficient vectors: out[i] = D(R) coeffs[i] block by block (degree l uses
 *  D^l of posenc_wigner_d_real_f64), so that sum_k out[i,k] Y_k(v) = sum_k coeffs[i,k] Y_k(R^T v).
 *  coeffs, out: [n, (lmax+1)^2], index l(l+1)+m; out may equal coeffs (in place; no other overlap).
 *  Accuracy as posenc_wigner_d_real_f64 (<= 1e-12 relative to |coeffs_i| for lmax <= 20).
 *  Errors: as posenc_wigner_d_real_f64, plus INVALID_ARGUMENT (n < 0), NULL_POINTER (coeffs or
 *  out NULL while n > 0), SIZE_OVERFLOW (n (lmax+1)^2 overflows). */
POSENC_API posenc_status posenc_sph_rotate_real_f64(int32_t lmax, const double* rotation, const double* coeffs,
                                                    int64_t n, double* out);

/* @@SPHERE-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_SPHERE_H */
