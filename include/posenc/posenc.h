/*
 * posenc.h — the C ABI of posenc, a library of positional-encoding kernels.
 *
 * This is the one header a C (C99), C++, Rust or Python (ctypes) caller needs.
 *
 * Conventions (see docs/CONVENTIONS.md):
 *  - Every function returns posenc_status; nothing throws or aborts across the boundary. On any
 *    status other than POSENC_OK, posenc_last_error_message() gives a thread-local sentence that
 *    names the offending argument and the rule it broke.
 *  - All arguments are validated before any output is written: on error every output buffer,
 *    including in-place buffers, is exactly as it was.
 *  - Arrays are row-major, element counts and strides are int64_t (strides in elements); shapes
 *    are written as [n, k]. Pointers need only the natural alignment of their element type.
 *  - Parameter structs start with uint32_t struct_size and have an _init function.
 *  - Results are bitwise identical for any thread count; different ISA paths agree within the
 *    documented accuracy bound of each function.
 *  - Every function may be called concurrently from many threads on different outputs.
 */
#ifndef POSENC_POSENC_H
#define POSENC_POSENC_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define POSENC_API
#elif defined(__GNUC__) || defined(__clang__)
#define POSENC_API __attribute__((visibility("default")))
#else
#define POSENC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================== */
/* Runtime                                                                                   */
/* ======================================================================================== */

/** Status returned by every posenc function. */
typedef enum {
  POSENC_OK = 0,                   /**< success */
  POSENC_ERR_NULL_POINTER = 1,     /**< a required pointer argument was NULL */
  POSENC_ERR_INVALID_ARGUMENT = 2, /**< an argument broke a documented rule (range, parity, ...) */
  POSENC_ERR_UNSUPPORTED = 3,      /**< requested ISA not available / POSENC_ISA names one that
                                        this CPU cannot run */
  POSENC_ERR_OUT_OF_MEMORY = 4,    /**< an internal allocation failed */
  POSENC_ERR_SIZE_OVERFLOW = 5,    /**< a size product (e.g. n * dim) overflows int64_t/size_t */
  POSENC_ERR_NOT_CONVERGED = 6,    /**< an iterative solver did not converge */
  POSENC_ERR_INTERNAL = 7          /**< a bug in posenc; please report it */
} posenc_status;

/** Static English name of a status, e.g. "POSENC_ERR_NULL_POINTER"; "unknown status" for values
 *  outside the enum. Never NULL. */
POSENC_API const char* posenc_status_string(posenc_status s);

/** Thread-local message of the last failed posenc call on this thread: one sentence naming the
 *  argument and the rule, e.g. "posenc_sinusoidal_f32: dim must be even and > 0 (got 7)".
 *  Every call clears it on entry, so after a successful call it is "" (never NULL). The pointer
 *  stays valid until the next posenc call on the same thread. */
POSENC_API const char* posenc_last_error_message(void);

/** Library version as MAJOR*10000 + MINOR*100 + PATCH (0.1.0 -> 100). */
POSENC_API uint32_t posenc_version(void);
/** Library version as "MAJOR.MINOR.PATCH". Never NULL. */
POSENC_API const char* posenc_version_string(void);

/** Instruction-set paths. Values are bits so that posenc_isa_available() can be a mask. */
typedef enum {
  POSENC_ISA_AUTO = 0,   /**< best available: avx512 > avx2 > scalar on x86-64, neon > scalar on aarch64 */
  POSENC_ISA_SCALAR = 1, /**< portable C++ built with baseline flags; the reference path */
  POSENC_ISA_AVX2 = 2,   /**< x86-64 AVX2 + FMA */
  POSENC_ISA_AVX512 = 4, /**< x86-64 AVX-512 F+DQ+BW+VL */
  POSENC_ISA_NEON = 8    /**< aarch64 Advanced SIMD */
} posenc_isa;

/** Bitmask of the ISA paths that are both compiled into this library and runnable on this CPU
 *  (checked with __builtin_cpu_supports, which includes the OS's register-state support).
 *  POSENC_ISA_SCALAR is always set. */
POSENC_API uint32_t posenc_isa_available(void);

/** The ISA path the kernels use now (never POSENC_ISA_AUTO). If the environment variable
 *  POSENC_ISA named a path that cannot run here, this returns the path it named; every kernel
 *  call then fails with POSENC_ERR_UNSUPPORTED until posenc_isa_set() is called. */
POSENC_API posenc_isa posenc_isa_active(void);

/** Select the ISA path for all later calls in this process. POSENC_ISA_AUTO picks the best
 *  available one. Errors: POSENC_ERR_UNSUPPORTED if isa is not in posenc_isa_available(),
 *  POSENC_ERR_INVALID_ARGUMENT if it is not a posenc_isa value; the active ISA is then unchanged.
 *  A successful call also clears an error left by an unusable POSENC_ISA value.
 *  Thread-safe; calls already running finish on the path they started with. */
POSENC_API posenc_status posenc_isa_set(posenc_isa isa);

/** "scalar", "avx2", "avx512", "neon" or "auto"; "unknown" for other values. Never NULL. */
POSENC_API const char* posenc_isa_name(posenc_isa isa);

/** Number of worker threads (a oneTBB task_arena) used by every later call; 0 = all hardware
 *  threads. Errors: POSENC_ERR_INVALID_ARGUMENT if n < 0 or n > 4096. Results never depend on the
 *  thread count: work is tiled by problem size only. */
POSENC_API posenc_status posenc_threads_set(int32_t n);
/** The current worker-thread count (>= 1). */
POSENC_API int32_t posenc_threads_get(void);

/* Environment, read once at first use:
 *   POSENC_ISA=scalar|avx2|avx512|neon|auto   initial ISA path (case-insensitive). An unknown
 *       name or a path this CPU cannot run never silently falls back: kernel calls return
 *       POSENC_ERR_UNSUPPORTED with a message naming POSENC_ISA until posenc_isa_set() is called.
 *   POSENC_NUM_THREADS=n                       initial thread count (0 or unset = all). */

/* ======================================================================================== */
/* rope — S¹: RoPE frequencies, cos/sin, rotation, sinusoidal tables, decay                  */
/* ======================================================================================== */

/* @@ROPE-BEGIN@@ (section owned by the rope family) */

/** Layout of a sinusoidal table row. */
typedef enum {
  POSENC_SINUSOIDAL_INTERLEAVED = 0, /**< Vaswani et al. 2017 §3.5: out[p, 2i] = sin(p w_i),
                                          out[p, 2i+1] = cos(p w_i) */
  POSENC_SINUSOIDAL_HALVES = 1       /**< tensor2tensor / fairseq: [sin(p w_0..) | cos(p w_0..)] */
} posenc_sinusoidal_layout;

/** Sinusoidal absolute position table (Vaswani et al. 2017, §3.5).
 *
 *  out: [n, dim] float32, row i for position positions[i] (or i when positions is NULL);
 *  w_i = base^(-2i/dim) radians per position, i = 0 .. dim/2-1, evaluated in float64.
 *  The phase p*w_i is formed exactly (double-double product, reduction modulo 2*pi in turns) and
 *  sin/cos are evaluated by a polynomial on the reduced argument in float64, then rounded to
 *  float32. Accuracy: max abs error <= 2e-7 (observed <= 6e-8, i.e. float32 rounding) against
 *  float64 sin/cos of the exactly reduced phase, for |position| <= 2^24; positions up to 2^53
 *  remain exact in the phase. Unlike fp32-phase implementations (error 1e-2 at 128K, see
 *  docs/ACCURACY.md) the error does not grow with the position.
 *
 *  Errors: NULL_POINTER (out NULL while n > 0); INVALID_ARGUMENT (n < 0, dim odd or <= 0,
 *  base <= 0 or not finite, layout not a posenc_sinusoidal_layout); SIZE_OVERFLOW (n * dim
 *  overflows). n == 0 is a no-op. */
POSENC_API posenc_status posenc_sinusoidal_f32(const int64_t* positions, int64_t n, int32_t dim,
                                               double base, posenc_sinusoidal_layout layout,
                                               float* out);

/* @@ROPE-END@@ */

/* ======================================================================================== */
/* sphere — S²: associated Legendre, spherical harmonics, addition theorem, Wigner-D         */
/* ======================================================================================== */

/* @@SPHERE-BEGIN@@ (section owned by the sphere family) */

/* Conventions of this section (REFERENCES.md §2):
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

/** Normalizations of the associated Legendre functions: GSL's gsl_sf_legendre_t, same values. */
typedef enum {
  POSENC_LEGENDRE_NONE = 0,    /**< P_l^m(x), unnormalized (overflows to inf beyond l ~ 150,
                                    exactly where GSL does) */
  POSENC_LEGENDRE_SCHMIDT = 1, /**< Schmidt semi-normalized: sqrt((2 - delta_m0)(l-m)!/(l+m)!) P_l^m */
  POSENC_LEGENDRE_SPHARM = 2,  /**< spherical-harmonic: sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!) P_l^m */
  POSENC_LEGENDRE_FULL = 3     /**< fully normalized on [-1, 1]: sqrt((l+1/2)(l-m)!/(l+m)!) P_l^m */
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
 *  Accuracy (tests/test_sphere.cpp, docs/ACCURACY.md; errors relative to the rms of the degree-l
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
 *  while n > 0), SIZE_OVERFLOW (lmax > 2^20). */
POSENC_API posenc_status posenc_sph_kernel_f64(int32_t lmax, const double* weights, const double* cos_gamma,
                                               int64_t n, double* out);

/** Real orthonormal spherical harmonics (the real form above) of the directions xyz.
 *
 *  xyz: [n, 3] row-major (x, y, z), any finite nonzero length (normalized inside, after scaling
 *  by the largest component, so 1e-300 or 1e300 inputs are fine). out: [n, (lmax+1)^2],
 *  out[i, l(l+1)+m] = Y_lm, m = -l..l.
 *  Method: cos(theta) = z/r, sin(theta) = sqrt(x^2+y^2)/r, the orthonormal Legendre recurrence
 *  as posenc_legendre_f64 (SPHARM, extended exponent), and the azimuthal factors cos(m phi),
 *  sin(m phi) as the real and imaginary parts of ((x+iy)/sqrt(x^2+y^2))^m by complex
 *  multiplication (no trigonometric call; phi = 0 on the z axis, where every m != 0 term is 0).
 *  Vectorized across points (blocks of the vector width), point-major output written by an
 *  in-register transpose.
 *  Accuracy (f64): <= 2e-13 absolute against Boost.Math spherical_harmonic for lmax <= 20
 *  (including poles, near-poles and 1e-300 / 1e300 lengths); sum_m Y_lm^2 = (2l+1)/(4 pi) to
 *  8e-14 relative at lmax 150 and 5.2e-13 at lmax 1000; orthonormal under Gauss-Legendre x
 *  uniform quadrature to 1e-12 (lmax 20); equivariant under posenc_wigner_d_real_f64 to 1e-12.
 *  posenc_sph_harm_real_f32 takes float32 input, computes in float64 and rounds the output once:
 *  observed <= 5.5e-8 relative to the float64 result per degree block (rms) at lmax 150 (bound
 *  tested 1e-7; sphericart's float path fails from l ~ 19). No degree is hard-coded: the
 *  recurrence is used from l = 0.
 *
 *  Errors: INVALID_ARGUMENT (lmax < 0, n < 0, xyz[i] not finite or (0, 0, 0)); NULL_POINTER
 *  (xyz or out NULL while n > 0); SIZE_OVERFLOW (lmax > 2^20 or n (lmax+1)^2 overflows).
 *  Sources: Wikipedia "Spherical harmonics, real form"; Bigi et al., J. Chem. Phys. 159, 064802
 *  (2023) (sphericart) for the (x+iy)^m construction. */
POSENC_API posenc_status posenc_sph_harm_real_f64(int32_t lmax, const double* xyz, int64_t n, double* out);
/** float32 variant of posenc_sph_harm_real_f64: xyz [n, 3] float, out [n, (lmax+1)^2] float. */
POSENC_API posenc_status posenc_sph_harm_real_f32(int32_t lmax, const float* xyz, int64_t n, float* out);

/** Real orthonormal SH of geographic coordinates: lonlat [n, 2] = (longitude, latitude) in
 *  DEGREES, latitude in [-90, 90], longitude any finite value; polar angle = 90 - latitude,
 *  azimuth = longitude. Same basis and output as posenc_sph_harm_real_f64 (out [n, (lmax+1)^2]),
 *  the direction formed with sin/cos reduced in degrees (exact at multiples of 90 degrees).
 *  This is the SH location encoder of Russwurm et al. (ICLR 2024) / SatCLIP, finite at any L.
 *  Accuracy: within 1e-12 of posenc_sph_harm_real_f64 at the direction formed in long double
 *  (lmax 40); exactly 0 for every m != 0 at the poles. Errors:
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
 *  Y_l^-m = (R_lm - i R_l,-m)/sqrt(2) for m > 0, Y_l^0 = R_l0. Accuracy: <= 2e-13 absolute
 *  against Boost.Math spherical_harmonic for lmax <= 20. Errors: INVALID_ARGUMENT (lmax < 0, n < 0, theta or phi not
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

/* ======================================================================================== */
/* features — Bochner: random Fourier / positive / PFF features, linear attention            */
/* ======================================================================================== */

/* @@FEATURES-BEGIN@@ (section owned by the features family) */
/* @@FEATURES-END@@ */

/* ======================================================================================== */
/* graph — Laplacian eigenvector PE, random-walk structural encodings                        */
/* ======================================================================================== */

/* @@GRAPH-BEGIN@@ (section owned by the graph family) */
/* @@GRAPH-END@@ */

/* ======================================================================================== */
/* learned — learned position tables as parameters                                           */
/* ======================================================================================== */

/* @@LEARNED-BEGIN@@ (section owned by the learned family) */
/* @@LEARNED-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_POSENC_H */
