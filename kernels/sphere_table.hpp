// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere_table.hpp — the sphere family's kernel table (S²): plain function pointers, one
// table per ISA (posenc::isa_<name>::sphere_kernels()), filled in kernels/sphere.cpp. No SIMD
// here: lib/sphere.cpp includes this header with baseline flags.
#pragma once

#include <cmath>
#include <cstdint>

namespace posenc {

/// Everything a Legendre-type recurrence needs, prepared once per call by lib/sphere.cpp.
///
/// Columns m = 0..lmax of y_l^m (l >= m) follow (Holmes & Featherstone 2002, normalization inside
/// the coefficients):
///   y_0^0 = y00;  y_m^m = (y_{m-1}^{m-1} * diag[m]) * u   (u = sin(theta) >= 0; diag includes the
///   Condon-Shortley sign);  y_{m+1}^m = (sub[m] * x) * y_m^m;
///   y_l^m = (a_lm * x) * y_{l-1}^m - b_lm * y_{l-2}^m   (l >= m + 2),
/// with a_lm, b_lm by `kind` (kernels/sphere/legendre.hpp coef_row, which also fills the table
/// `ab` through sphere_kernels_t::coef_table, so a table and on-the-fly rows give the same bits):
///   kind 0 (unnormalized):   a = (2l-1)/(l-m),                 b = (l+m-1)/(l-m)
///   kind 1 (Schmidt):        a = (2l-1)/sqrt((l-m)(l+m)),      b = sqrt((l-1-m)(l-1+m)/((l-m)(l+m)))
/// The value returned for degree l is y_l^m * lscale[l] (lscale NULL: 1). The orthonormal norms
/// run the Schmidt recurrence and scale by sqrt((2l+1)/(4 pi)) per degree, as GSL does: the
/// recurrence with orthonormal coefficients is measurably less accurate near the poles at high
/// degree (4.6e-9 against 1.9e-10 at l = 2700, x = 1 - 1e-12).
/// Values whose magnitude leaves the double range are carried with a per-lane extended exponent
/// (units of 2^600), as SHTns / ducc0 do.
struct sph_plan {
  int32_t lmax;
  int32_t kind;        ///< 0 unnormalized, 1 Schmidt-type (all other norms)
  int32_t extended;    ///< 1: track the extended exponent (all norms but NONE)
  int32_t stream;      ///< 1 = write the output with non-temporal stores (lib sets it for
                       ///< outputs of at least sphere_kernels_t::stream_min_bytes; how each
                       ///< ISA path streams: kernels/sphere/policy.hpp)
  double y00;          ///< y_0^0
  const double* diag;  ///< [lmax+1], diag[m] for m >= 1
  const double* sub;   ///< [lmax+1], sub[m]
  const double* lscale;  ///< [lmax+1] per-degree output factor, or nullptr
  const double* ab;    ///< optional table of a_lm and b_lm (sphere_kernels_t::coef_table), or nullptr
  /// Real-SH fast path (lib sets these for the real basis and lmax <= kSphFastLmax, else nullptr):
  /// the orthonormal recurrence of the real basis, degree by degree (see sph::sh_fast_block):
  ///   Y_0^0 = fy00;  Y_m^m = Y_{m-1}^{m-1} * (fdiag[m] * u);
  ///   Y_l^m = (fab_a * x) * Y_{l-1}^m + fab_nb * Y_{l-2}^m   (m < l; fab_nb = 0 at m = l-1),
  /// the pair (fab_a, fab_nb) of (l, m) at fab[2 * (l (l-1) / 2 + m)]. Closed forms (sphericart;
  /// Limpanuparb & Milthorpe 2014): fab_a = sqrt((4l^2 - 1) / ((l-m)(l+m))),
  /// fab_nb = -sqrt((2l+1)(l-m-1)(l+m-1) / ((2l-3)(l-m)(l+m))), fdiag[1] = sqrt(3),
  /// fdiag[m >= 2] = sqrt((2m+1) / (2m)), fy00 = 1 / sqrt(4 pi).
  const double* fab;
  const double* fdiag;
  double fy00;
  /// fab rounded to float32, for the float32-native fast path (lmax <= kSphF32NativeLmax, else
  /// nullptr; its seeds come from fdiag in float64; ignored by paths without it).
  const float* fab32;
  /// Near-pole form of the same columns (lib sets it with fab where lmax >= kSphPoleMinLmax;
  /// see sph::sh_fast_block): for
  /// (l, m < min(l, kSphPoleOrders)) the triple (-alpha, -beta, r) at
  /// fpole[3 * (l kSphPoleOrders + m)], where r = r_l^m is
  /// the column at cos theta = 1 relative to its seed (r_m^m = 1, r_l^m = prod of
  /// rho_j = sqrt((2j+1)(j+m) / ((2j-1)(j-m))), j = m+1..l), alpha = fab_a r_{l-1} / r_l,
  /// beta = fab_nb r_{l-2} / r_l, which are alpha = (2l-1) / (l+m), beta = 1 - alpha (r in long
  /// double, rounded once).
  const double* fpole;
};

/// The near-pole form of the fast path (sph_plan::fpole, sph::sh_fast_block): where it applies.
/// kSphPoleCos and kSphPoleOrders also select the lanes and orders of the extended-range
/// path's difference form (sph::core_pole, kernels/sphere/legendre.hpp; every lmax there).
/// Measured (tests/test_sphere_grad.cpp, docs/ACCURACY.md): with the ordinary recurrence alone
/// the worst block-relative error of float64 values grows like l^2 eps as sin theta falls below
/// ~l / 200 (lmax 40: 1.0e-13 to 1.5e-13 at sin theta 0.05 - 0.17, 3.9e-13 below 0.03;
/// lmax 20: 8.7e-14; lmax 10: 2.2e-14), and with the difference form it stays ~l eps there
/// (lmax 40: 1.1e-14, lmax 100: 2.5e-14). Hence: lmax >= kSphPoleMinLmax (below it the ordinary
/// recurrence is under 1e-13 everywhere and those blocks keep their compiled bodies), points with
/// |cos theta| > kSphPoleCos (sin theta < 0.243: 3 % of random directions) and orders
/// m < kSphPoleOrders (the higher orders carry sin^m theta and their error stays below the
/// block's). Cost, A/B in one process, 65536 random directions, 1 thread (posenc_ab --clock cpu):
/// lmax 20 / 40 1.02-1.03 / 1.00-1.02 (AVX-512 and AVX2).
constexpr int32_t kSphPoleMinLmax = 17;
constexpr double kSphPoleCos = 0.97;
constexpr int32_t kSphPoleOrders = 8;

/// Highest lmax for which float32 real SH run the recurrence itself in float32 on AVX-512 and
/// AVX2 (16 / 8 points per vector instead of 8 / 4, 16 x 16 / 8 x 8 transposes; set-up, seeds and the rounding error of
/// cos theta kept in float64). Forward recurrences near the poles lose ~l^2 eps (the two roots of
/// the recurrence meet at x = 1), so the error grows with lmax: measured worst block-relative
/// error against float64 over 400k random points 2.1e-6 at lmax 10, 3.7e-6 at 16, 5.2e-6 at 20,
/// 6.9e-6 at 24 (the contract is 1e-5). Above 16 float32 SH are computed in float64 and rounded
/// once (<= 1e-7). tests/test_sphere.cpp Float32NativeWithinOneEMinus5PerDegreeBlock.
constexpr int32_t kSphF32NativeLmax = 16;

/// Highest lmax of the real-SH fast path (its coefficient table is lmax (lmax+1) / 2 pairs, <= 1 MiB).
constexpr int32_t kSphFastLmax = 360;


/// Flags of the derivative kernels (posenc.h POSENC_SPH_SOLID / POSENC_SPH_ZERO_AS_ZERO).
constexpr uint32_t kSphSolid = 1u;
constexpr uint32_t kSphZeroAsZero = 2u;

/// The five coefficients of degree l >= 1, order 0 <= m <= l, of the derivative kernel
/// (kernels/sphere/sh_grad.hpp), into c[0..5):
///   c[0] a:  the orthonormal recurrence ybar_l^m = (a cos theta) ybar_{l-1}^m + nb ybar_{l-2}^m
///            (m < l), a = sqrt((4l^2-1)/((l-m)(l+m))); for m = l the sectoral factor
///            (ybar_l^l = ybar_{l-1}^{l-1} (a sin theta)): sqrt(3) at l = 1, sqrt((2l+1)/(2l)) above
///   c[1] nb: -sqrt((2l+1)(l-m-1)(l+m-1)/((2l-3)(l-m)(l+m))) for m < l-1, else 0
///   c[2] cz: d/dz R_l,+-m = cz R_l-1,+-m,  cz = sqrt(k (l+m)(l-m)),  k = (2l+1)/(2l-1)
///   c[3] alpha, c[4] beta: d/dx, d/dy of R_l,+-m from R_l-1,+-(m-1) and R_l-1,+-(m+1) (m >= 1):
///            alpha = sqrt(k (l+m)(l+m-1)) / 2 (times sqrt(2) at m = 1), beta = sqrt(k (l-m)(l-m-1)) / 2;
///            m = 0: c[3] = 0, c[4] = sqrt(k l (l-1) / 2) (d/dx R_l0 = -c[4] R_l-1,1).
/// R_lm = r^l Y_lm are the real orthonormal solid harmonics (posenc.h real form). The ladder
/// relations follow from d/dz Q_l^m = (l+m) Q_l-1^m and d/dx Q_l^m = -x Q_l-1^m+1 for
/// r^l P_l^m(z/r) = rho^m Q_l^m (Bigi et al., J. Chem. Phys. 159, 064802 (2023), sphericart) and
/// (x+iy)^m for the azimuth. lib/ tabulates these for lmax <= kSphGradTableLmax, the kernel
/// computes them per degree above: the same expression, so the same bits.
/// (static: each translation unit keeps its own copy, so no symbol is shared between objects
/// built with different ISA flags; -ffp-contract=off keeps the bits equal.)
static inline void sph_grad_coef(int32_t l, int32_t m, double* c) {
  const double ld = l, md = m, lm = double(l - m), lp = double(l + m);
  const double k = (2.0 * ld + 1.0) / (2.0 * ld - 1.0);
  if (m < l) c[0] = std::sqrt((4.0 * ld * ld - 1.0) / (lm * lp));
  else c[0] = l == 1 ? std::sqrt(3.0) : std::sqrt((2.0 * md + 1.0) / (2.0 * md));
  c[1] = m < l - 1 ? -std::sqrt((2.0 * ld + 1.0) * (lm - 1.0) * (lp - 1.0) / ((2.0 * ld - 3.0) * lm * lp)) : 0.0;
  c[2] = std::sqrt(k * lp * lm);
  if (m == 0) {
    c[3] = 0.0;
    c[4] = std::sqrt(k * ld * (ld - 1.0) * 0.5);
  } else {
    c[3] = 0.5 * std::sqrt(k * lp * (lp - 1.0)) * (m == 1 ? 1.41421356237309504880 : 1.0);
    c[4] = m < l - 1 ? 0.5 * std::sqrt(k * lm * (lm - 1.0)) : 0.0;
  }
}

/// Degrees up to which lib/ passes the table of sph_grad_coef (5 (lmax+1)(lmax+2)/2 doubles,
/// 2.6 MB at 360); above, the kernel computes each degree's row per block of points.
constexpr int32_t kSphGradTableLmax = 360;

/// Highest lmax of the low-degree kernel (sphere_kernels_t::sh_low_*, kernels/sphere/sh_low.hpp):
/// real SH and their gradients as polynomials in x / |x| with every block in registers.
constexpr int32_t kSphLowLmax = 3;

/// One call of the derivative kernel (sphere_kernels_t::sh_grad_*).
struct sph_grad_plan {
  int32_t lmax;
  uint32_t flags;       ///< kSphSolid | kSphZeroAsZero
  const double* coef;   ///< sph_grad_coef of (l, m) at coef + 5 (l (l+1)/2 + m), or nullptr
  int32_t stream = 0;   ///< 1: the outputs are large (stream_min_bytes): sh_grad writes them non-temporally
};

struct sphere_kernels_t {
  /// Scratch doubles a block kernel needs for lmax (legendre / sh_real / legendre_poly).
  int64_t (*scratch_doubles)(int32_t lmax);
  /// Real-SH tiles are a multiple of this many points (the same on every ISA: tiles alike on
  /// every path, no super-block split by a tile boundary).
  int64_t sh_tile_points;
  /// Other tiles are a multiple of this many points (the widest vector of any ISA).
  int64_t tile_points;
  /// Outputs of at least this many bytes are written with non-temporal stores (sph_plan::stream).
  int64_t stream_min_bytes;
  /// Doubles of the coefficient table sph_plan::ab for lmax (the same on every ISA).
  int64_t (*coef_table_doubles)(int32_t lmax);
  /// Fills the coefficient table sph_plan::ab for `kind` and degrees 2..lmax.
  void (*coef_table)(int32_t kind, int32_t lmax, double* ab);
  /// Associated Legendre, points [0, n) of x; out [n, (lmax+1)(lmax+2)/2] row-major (GSL order).
  void (*legendre_f64)(const sph_plan* plan, const double* x, int64_t n, double* out, double* scratch);
  void (*legendre_f32)(const sph_plan* plan, const float* x, int64_t n, float* out, double* scratch);
  /// Real orthonormal SH from xyz [n, 3] (nonzero, finite); out [n, (lmax+1)^2], index l(l+1)+m.
  /// plan: Schmidt recurrence (it carries the sqrt(2) of the real form), lscale = sqrt((2l+1)/(4 pi)).
  void (*sh_real_f64)(const sph_plan* plan, const double* xyz, int64_t n, double* out, double* scratch);
  void (*sh_real_f32)(const sph_plan* plan, const float* xyz, int64_t n, float* out, double* scratch);
  /// Legendre polynomials P_0..P_lmax of x [n]; out [n, lmax+1].
  void (*legendre_poly_f64)(int32_t lmax, const double* x, int64_t n, double* out, double* scratch);
  /// Clenshaw sum out[i] = sum_l c[l] P_l(x[i]); alpha[k] = (2k+1)/(k+1), beta[k] = -k/(k+1).
  void (*legendre_sum_f64)(int32_t lmax, const double* c, const double* alpha, const double* beta,
                           const double* x, int64_t n, double* out);
  /// Block-diagonal rotation: out[i, block l] = D_l coeffs[i, block l]; dt holds every D_l
  /// transposed ((2l+1)^2 values each, concatenated). coeffs/out [n, (lmax+1)^2].
  void (*rotate_f64)(int32_t lmax, const double* dt, const double* coeffs, int64_t n, double* out);
  /// 1 if some point of xyz [n, 3] has a non-finite coordinate or is (0, 0, 0), else 0 (a fast
  /// vectorized first pass of the argument check; lib names the first bad point itself).
  int (*xyz_bad_f64)(const double* xyz, int64_t n);
  int (*xyz_bad_f32)(const float* xyz, int64_t n);
  /// Real SH (unit-sphere or solid, plan->flags) and their Cartesian first and second
  /// derivatives of xyz [n, 3] (finite; (0, 0, 0) only with kSphZeroAsZero); each output may be
  /// nullptr: values [n, K], grad [n, 3, K], hess [n, 3, 3, K], K = (lmax+1)^2.
  int64_t (*grad_scratch_doubles)(int32_t lmax);
  void (*sh_grad_f64)(const sph_grad_plan* plan, const double* xyz, int64_t n, double* values, double* grad,
                      double* hess, double* scratch);
  void (*sh_grad_f32)(const sph_grad_plan* plan, const float* xyz, int64_t n, float* values, float* grad,
                      float* hess, double* scratch);
  /// Highest lmax at which sh_grad_f32 computes unit-sphere values + gradients without Hessians in
  /// float32 lanes (kernels/sphere/sh_grad_f32.hpp, from lmax 4: lower degrees take sh_low);
  /// -1 on the paths without them. lib/ names the profiling path by it.
  int32_t grad_f32_lanes_lmax;
  /// Real SH of lmax <= kSphLowLmax (unit-sphere or solid, plan->flags; plan->coef required) of
  /// xyz [n, 3] (finite; (0, 0, 0) only with kSphZeroAsZero), values [n, K] and, where grad is
  /// not nullptr, gradients [n, 3, K]; values may be nullptr. No scratch. Same values as sh_grad
  /// to within the documented bounds, not bitwise (docs/ACCURACY.md). sh_low_f32: computed in
  /// float64 and rounded once, but unit-sphere calls with gradients on the paths with float32
  /// lanes (AVX-512, AVX2: kernels/sphere/sh_low_f32.hpp, the float32 contract).
  void (*sh_low_f64)(const sph_grad_plan* plan, const double* xyz, int64_t n, double* values, double* grad);
  void (*sh_low_f32)(const sph_grad_plan* plan, const float* xyz, int64_t n, float* values, float* grad);
  /// xyz [n, 3] = (cos lat cos lon, cos lat sin lon, sin lat) of lonlat [n, 2] in degrees
  /// (finite longitudes, latitudes in [-90, 90]; reduction in degrees, exact at multiples of 90).
  void (*lonlat_xyz_f64)(const double* lonlat, int64_t n, double* xyz);
  /// Real SH of lmax <= kSphLowLmax (unit sphere, plan->flags = 0, plan->coef required) of
  /// lonlat [n, 2] (as lonlat_xyz_f64, converted in the kernel's registers): values [n, K],
  /// the same bits as lonlat_xyz_f64 followed by sh_low_f64.
  void (*sh_low_lonlat_f64)(const sph_grad_plan* plan, const double* lonlat, int64_t n, double* values);
  /// 1 if some point of lonlat [n, 2] has a non-finite longitude or a latitude outside
  /// [-90, 90] (or NaN), else 0 (the vectorized first pass of the argument check).
  int (*lonlat_bad_f64)(const double* lonlat, int64_t n);
  /// xyz [n, 3] = (|sin theta| cos phi, |sin theta| sin phi, cos theta) of theta [n], phi [n] in
  /// radians (finite; SciPy's direction, the complex entry point's front end).
  void (*thetaphi_xyz_f64)(const double* theta, const double* phi, int64_t n, double* xyz);
  /// Complex SH out [n, K, 2] (Condon-Shortley phase, SciPy's convention) of lmax = plan->lmax
  /// <= kSphLowLmax (unit sphere, plan->flags = 0, plan->coef required; plan->stream: large
  /// output, lmax 1 and 3 written in non-temporal lines) of theta [n], phi [n] in radians
  /// (finite; converted in the kernel's registers as thetaphi_xyz_f64 does, used as unit vectors
  /// without a second norm), in one pass from the block's real values in registers.
  void (*sh_low_complex_f64)(const sph_grad_plan* plan, const double* theta, const double* phi, int64_t n,
                             double* out);
  /// out [n, K, 2] (complex, Condon-Shortley phase) from the real SH re [n, K] of the same
  /// points: Y_l^m = (-1)^m (re[c+m] + i re[c-m]) / sqrt 2, Y_l^-m = conj / sqrt 2 of the same
  /// pair, Y_l^0 = re[c] (c = l (l+1), m > 0).
  void (*complex_from_real_f64)(int lmax, const double* re, int64_t n, double* out);
};

}  // namespace posenc
