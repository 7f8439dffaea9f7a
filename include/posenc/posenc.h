/*
 * posenc.h — the C ABI of posenc, a library of positional-encoding kernels.
 *
 * This is the one header a C (C99), C++, Rust or Python (ctypes) caller needs.
 *
 * Conventions (see docs/CONVENTIONS.md):
 *  - Every enum ends with a *_MAX_ENUM_ = 0x7fffffff member (as Vulkan does) so that any int32
 *    value is a valid value of the enum type in C and C++; out-of-range values are rejected
 *    with POSENC_ERR_INVALID_ARGUMENT.
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
  POSENC_ERR_INTERNAL = 7,         /**< a bug in posenc; please report it */
  POSENC_STATUS_MAX_ENUM_ = 0x7fffffff /**< not a status: makes the enum 32-bit wide */
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
  POSENC_ISA_NEON = 8,   /**< aarch64 Advanced SIMD */
  POSENC_ISA_MAX_ENUM_ = 0x7fffffff /**< not an ISA: makes the enum 32-bit wide */
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
  POSENC_SINUSOIDAL_HALVES = 1,      /**< tensor2tensor / fairseq: [sin(p w_0..) | cos(p w_0..)] */
  POSENC_SINUSOIDAL_LAYOUT_MAX_ENUM_ = 0x7fffffff /**< not a layout: makes the enum 32-bit wide */
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
/* @@SPHERE-END@@ */

/* ======================================================================================== */
/* features — Bochner: random Fourier / positive / PFF features, linear attention            */
/* ======================================================================================== */

/* @@FEATURES-BEGIN@@ (section owned by the features family) */

/** How posenc_rf_sample_f32 draws the rows omega_i of Omega [m, d]. */
typedef enum {
  POSENC_RF_IID = 0,        /**< omega_i ~ N(0, I/sigma^2), i.i.d. (Rahimi & Recht 2007) */
  POSENC_RF_ORTHOGONAL = 1, /**< ORF (Yu et al. 2016; Performer Thm 2): blocks of d rows from the
                                 Q of a Householder QR of a Gaussian d x d matrix, columns of Q
                                 sign-fixed by sign(diag R), each row scaled by an independent chi_d
                                 norm; blocks stacked when m > d (the last one truncated) */
  POSENC_RF_QMC = 2,        /**< randomized quasi-Monte Carlo: point i of the d-dimensional Sobol
                                 sequence (Boost.Random sobol, zero point skipped), XORed with a
                                 per-coordinate 64-bit digital shift drawn from the seed,
                                 u = ((v >> 11) + 0.5) * 2^-53, omega = Phi^{-1}(u) / sigma with
                                 Wichura's AS241 PPND16 */
  POSENC_RF_PFF = 3         /**< DiJiang PFF (Chen et al. ICML 2024, eq. 9): directions v_i = the QMC
                                 normal vectors above normalized to the unit sphere, radii
                                 r_i = sqrt(F^{-1}_{chi^2_d}(t_i)) (Boost.Math quantile) with
                                 stratified t_i = (s_i + U_i)/m, s a seeded permutation of 0..m-1;
                                 omega_i = r_i v_i / sigma */
} posenc_rf_sampling;

/** Feature map of posenc_rf_features_f32 (p_ij = omega_j . x_i, w_j the optional weights, 1 if
 *  weights is NULL). */
typedef enum {
  POSENC_RF_TRIG = 0,      /**< out [n, 2m] = w_j [cos p_ij | sin p_ij] / sqrt(m) (cos block first):
                                phi(x).phi(y) estimates the Gaussian kernel exp(-|x-y|^2/(2 sigma^2))
                                (Rahimi & Recht 2007; [cos, sin] pairs, Sutherland & Schneider 2015) */
  POSENC_RF_POSITIVE = 1,  /**< out [n, m] = w_j exp(p_ij - |x_i|^2/2 - c_i) / sqrt(m): FAVOR+
                                (Choromanski et al. ICLR 2021, Lemma 1), estimates SM(x,y) = exp(x.y)
                                for sigma = 1 (scale x by sigma otherwise) */
  POSENC_RF_HYPERBOLIC = 2, /**< out [n, 2m] = w_j [exp(p_ij) | exp(-p_ij)] exp(-|x_i|^2/2 - c_i)
                                 / sqrt(2m): FAVOR+ hyperbolic variant, estimates SM(x,y) */
  POSENC_RF_GAUSSIAN_POSITIVE = 3 /**< out [n, m] = w_j exp(p_ij - |x_i|^2 - c_i) / sqrt(m): DiJiang
                                       PFF (eq. 9; WPFF eq. 10 with weights), estimates the Gaussian
                                       kernel K_G(x,y) = exp(-|x-y|^2/2) for sigma = 1 */
} posenc_rf_kind;

/** Draws the random-feature matrix Omega (omega [m, d], row i = omega_i, float32 rounded from
 *  float64).
 *
 *  sampling: see posenc_rf_sampling. d: input dimension; m: number of features; sigma: kernel
 *  length scale (omega has covariance I/sigma^2 marginally for IID, ORTHOGONAL and QMC; PFF rows
 *  have chi_d/sigma norms). seed: any 64-bit value; a splitmix64 stream (Steele et al. 2014)
 *  feeds the Gaussian draws (through PPND16), the digital shifts, the strata and permutation.
 *  Deterministic: the output depends only on (sampling, d, m, sigma, seed) — it is computed once
 *  in float64 outside the SIMD kernels, so every ISA path and thread count gives the same bits.
 *
 *  Properties (tests/test_features.cpp, docs/ACCURACY.md): every row of QMC and PFF is marginally
 *  exactly N(0, I/sigma^2) resp. isotropic with chi_d radius, so feature-kernel estimates stay
 *  unbiased; ORF blocks are orthogonal to 1e-15 before rounding; PPND16 has relative error
 *  <= 1e-14 against Boost erfc_inv over (1e-300, 1 - 1e-16). MSE tables: docs/ACCURACY.md.
 *
 *  Errors: NULL_POINTER (omega NULL); INVALID_ARGUMENT (sampling not a posenc_rf_sampling,
 *  d <= 0, m <= 0, sigma not finite or <= 0, d > 3667 for QMC and PFF — the dimension limit of
 *  Boost's Sobol tables); SIZE_OVERFLOW (m * d). omega is untouched on error. */
POSENC_API posenc_status posenc_rf_sample_f32(posenc_rf_sampling sampling, int32_t d, int32_t m, double sigma,
                                              uint64_t seed, float* omega);

/** Random-feature map phi(x) for each row of x [n, d], with Omega = omega [m, d].
 *
 *  out: [n, m] (POSITIVE, GAUSSIAN_POSITIVE) or [n, 2m] (TRIG, HYPERBOLIC), formulas in
 *  posenc_rf_kind. weights [m]: WPFF's per-feature diagonal D (DiJiang eq. 10; each feature j —
 *  both halves for TRIG and HYPERBOLIC — is multiplied by weights[j] >= 0), or NULL for 1.
 *  Then sum_j phi_j(x) phi_j(y) estimates the kernel of the kind (unbiased for every sampling
 *  when weights is NULL; see posenc_rf_sample_f32).
 *
 *  Computation: the projection x . Omega^T is a fused, register-blocked SIMD micro-kernel
 *  (float32 FMAs over d) whose epilogue applies cos/sin (reduced in turns) or exp to the output
 *  tile while it is in registers / L1.
 *
 *  Stabilization of the exponential kinds: c_i = max(0, max_j e_ij - 60) where e_ij is the
 *  exponent before the shift (p_ij - |x_i|^2/2, +-p_ij - |x_i|^2/2, p_ij - |x_i|^2). So c_i = 0
 *  (the exact, unbiased map) whenever no exponent of the row exceeds 60, and every feature is
 *  <= e^60 / sqrt(m) ~ 1.1e26 / sqrt(m): no overflow for any input, in particular for |x|^2 up to
 *  80 and beyond. A shifted row is the exact row times the constant e^{-c_i}: in kernelized
 *  attention (posenc_linear_attention_f32) a query row's factor multiplies numerator and
 *  denominator of out_i = phi(q_i)^T S / phi(q_i)^T z alike and cancels exactly (as the
 *  per-query max shift of Performer). A key row with c_j > 0 would be down-weighted; that needs
 *  max_i omega_i . k - |k|^2/2 > 60, i.e. |omega_i|^2 > 120 and |k| near |omega_i| — not reached by
 *  d <= 64 with Performer's usual k / d^{1/4} scaling. Exponents below -87.3 give 0.
 *
 *  Accuracy (float32, against the same formula in float64 with the same omega, tested on every
 *  ISA path): TRIG abs error <= 2e-6 * (1 + max_j |p_ij|) / sqrt(m) (the float32 rounding of p
 *  dominates; observed 3.7e-6 / sqrt(m) at |x| ~ 1.6); exponential kinds rel error
 *  <= 4e-6 * (2 + max_j |p_ij|) (observed 2.3e-6), up to float32 underflow below e^-87.
 *
 *  Errors: NULL_POINTER (omega NULL; x or out NULL while n > 0); INVALID_ARGUMENT (kind not a
 *  posenc_rf_kind, m <= 0, d <= 0, n < 0, a weight negative or not finite, an omega entry not
 *  finite); SIZE_OVERFLOW (n * d, n * 2m). n == 0 is a no-op. out is untouched on error. */
POSENC_API posenc_status posenc_rf_features_f32(posenc_rf_kind kind, const float* omega, int32_t m, int32_t d,
                                                const float* weights, const float* x, int64_t n, float* out);

/** Kernelized linear attention (Katharopoulos et al. ICML 2020, eq. 4–6; causal form eq. 8–10).
 *
 *  phi_q, phi_k [n, F] (feature maps of queries and keys, e.g. from posenc_rf_features_f32),
 *  v [n, dv] -> out [n, dv]:
 *    non-causal: out_i = phi_q_i^T S / (phi_q_i^T z + eps), S = sum_j phi_k_j v_j^T [F, dv],
 *                z = sum_j phi_k_j [F];
 *    causal (causal != 0): the same with S_i, z_i summed over j <= i only.
 *  Non-causal: per-tile partial states (512 rows) reduced in tile order. Causal: chunks of 128
 *  rows; the state of every chunk (F x dv + F) is reduced to exclusive prefix sums, and inside a
 *  chunk the masked block (phi_Q phi_K^T) V is added — O(n F dv + n 128 (F + dv)) work, all
 *  products in our register-blocked SIMD micro-kernel, float32 accumulation. Bitwise identical
 *  for any thread count.
 *
 *  eps >= 0 guards the denominator (fast-transformers uses 1e-6); with non-negative features
 *  (POSITIVE, HYPERBOLIC, GAUSSIAN_POSITIVE) the denominator is > 0. Accuracy (float32
 *  accumulation): for non-negative features out_i is a convex combination of the v_j and the
 *  abs error against a float64 evaluation of the same formula is <= 2e-5 for |v| <= 4, n <= 1100
 *  (tested on every ISA path, causal and not; observed <= 3e-7); it grows like sqrt(n) * 6e-8 *
 *  max |v| with n.
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, F <= 0, dv <= 0,
 *  eps negative or not finite); SIZE_OVERFLOW. n == 0 is a no-op. out untouched on error. */
POSENC_API posenc_status posenc_linear_attention_f32(const float* phi_q, const float* phi_k, const float* v,
                                                     int64_t n, int32_t F, int32_t dv, int32_t causal, float eps,
                                                     float* out);

/** Exact softmax attention, the O(n^2) reference: out = softmax(scale * q k^T) v.
 *
 *  q, k [n, d], v [n, dv] -> out [n, dv]; out_i = sum_j p_ij v_j, p_ij = exp(s_ij - max_j s_ij) /
 *  sum_j exp(s_ij - max_j s_ij), s_ij = scale * q_i . k_j, over all j (causal == 0) or j <= i
 *  (causal != 0; Vaswani et al. 2017). Blocked and streaming (online softmax, Milakov & Gimelshein
 *  2018 / FlashAttention): query blocks of 64 rows, key blocks of 256, a running max and sum per
 *  row; memory O(n (d + dv)) besides the inputs (K^T is packed once), so n = 16384 and beyond fit.
 *  Accuracy: abs error <= 1e-5 * max |v| against a float64 naive evaluation (tested on every ISA
 *  path, n <= 300, causal and not; observed 5.3e-7 for N(0,1) inputs, scale 1/sqrt(d)).
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, d <= 0, dv <= 0,
 *  scale not finite); SIZE_OVERFLOW. n == 0 is a no-op. out untouched on error. */
POSENC_API posenc_status posenc_softmax_attention_f32(const float* q, const float* k, const float* v, int64_t n,
                                                      int32_t d, int32_t dv, int32_t causal, float scale,
                                                      float* out);

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

/* Learned absolute position tables (GPT-2 wpe 1024x768, BERT 512x768, ViT/DeiT patch grids) as
 * parameters: a table [rows, dim] of float32, row-major, one row per position. Lookup is
 * x + P[pos]; a position outside the table is an error (a learned table cannot extrapolate).
 * Tables and outputs must not overlap unless stated. */

/** Lookup-add: x[i, :] += table[positions[i], :] for i < n.
 *
 *  table: [rows, dim]; positions: [n], each in [0, rows); x: [n, dim], updated in place.
 *  Exact: each element is one float32 addition (identical on every ISA and thread count).
 *  All positions are checked before x is touched.
 *
 *  Errors: NULL_POINTER (table NULL; positions or x NULL while n > 0); INVALID_ARGUMENT
 *  (rows <= 0, dim <= 0, n < 0, a position outside [0, rows): the message names the first such
 *  index and its value); SIZE_OVERFLOW (rows * dim or n * dim overflows). n == 0 is a no-op. */
POSENC_API posenc_status posenc_learned_add_f32(const float* table, int64_t rows, int32_t dim,
                                                const int64_t* positions, int64_t n, float* x);

/** Gradient of the lookup with respect to the table (a scatter-add, as PyTorch's embedding
 *  backward): grad_table[positions[i], :] += grad_x[i, :] for i < n.
 *
 *  grad_x: [n, dim]; positions: [n], each in [0, rows) (repeats allowed); grad_table:
 *  [rows, dim], accumulated in place (rows no position names are left untouched).
 *  Deterministic: the contributions to one table row are added in increasing i, in float32, so
 *  the result equals the sequential loop `for i in 0..n-1: grad_table[pos[i]] += grad_x[i]`
 *  bit for bit, for any thread count and on every ISA (the rows of grad_x are bucketed by
 *  position first; threads split the touched table rows, never one row's sum).
 *
 *  Errors: NULL_POINTER (grad_table NULL; grad_x or positions NULL while n > 0);
 *  INVALID_ARGUMENT (n < 0, dim <= 0, rows <= 0, a position outside [0, rows): the message names
 *  the first such index and its value); SIZE_OVERFLOW. n == 0 is a no-op. */
POSENC_API posenc_status posenc_learned_grad_f32(const float* grad_x, const int64_t* positions, int64_t n,
                                                 int32_t dim, float* grad_table, int64_t rows);

/** Singular spectrum and effective rank of a table [rows, dim].
 *
 *  singular_values: [min(rows, dim)] float64, descending, >= 0; effective_rank: one float64,
 *  erank = exp(H(p)), H(p) = -sum_k p_k ln p_k, p_k = s_k / sum_j s_j (Roy & Vetterli, "The
 *  effective rank: a measure of effective dimensionality", EUSIPCO 2007), 0 ln 0 = 0; it lies in
 *  [1, rank(table)] for a nonzero table. For the all-zero table, sum s = 0 and p is undefined:
 *  posenc defines erank = 0 (= its rank). Either output may be NULL (then it is not written).
 *  Method: the table is converted exactly to float64 and decomposed with Eigen's divide-and-
 *  conquer SVD (Eigen::BDCSVD) in one thread. Accuracy: singular values within ~1e-13 * s_max of
 *  the exact ones of the float32 table (backward-stable SVD in float64); rank(P) <= min(rows, dim).
 *
 *  Errors: NULL_POINTER (table NULL); INVALID_ARGUMENT (rows <= 0, dim <= 0, a non-finite
 *  entry: the message names it); SIZE_OVERFLOW; NOT_CONVERGED if BDCSVD reports no convergence. */
POSENC_API posenc_status posenc_learned_spectrum_f32(const float* table, int64_t rows, int32_t dim,
                                                     double* singular_values, double* effective_rank);

/** Best rank-r approximation (truncated SVD): table ~= left [rows, r] * right [r, dim], with
 *  left = U_r Sigma_r and right = V_r^T (the r leading singular triplets). By Eckart-Young-Mirsky
 *  the Frobenius error of the float64 factors is sqrt(sum_{k > r} s_k^2), the smallest of any
 *  rank-r matrix; the float32 outputs add a rounding error of ~6e-8 * ||table||_F.
 *  Sign rule: each row of right has its largest-magnitude entry positive (first on ties), so the
 *  factors are deterministic. Method: Eigen::BDCSVD in float64 (thin U, V), one thread.
 *  With repeated singular values at the cut, the choice among equally good factors is Eigen's.
 *
 *  Errors: NULL_POINTER (table, left or right NULL); INVALID_ARGUMENT (rows <= 0, dim <= 0,
 *  r < 1 or r > min(rows, dim), a non-finite entry); SIZE_OVERFLOW; NOT_CONVERGED. */
POSENC_API posenc_status posenc_learned_lowrank_f32(const float* table, int64_t rows, int32_t dim, int32_t r,
                                                    float* left, float* right);

/** Interpolation for posenc_learned_resample_f32 (PyTorch F.interpolate on CPU, align_corners=False,
 *  sizes given, no scale_factor: scale = in_size / out_size per axis). */
typedef enum {
  POSENC_RESAMPLE_BICUBIC_AA = 0, /**< timm's default: mode='bicubic', antialias=True. Keys cubic
                                       a = -0.5, support 2*max(scale, 1), center = scale*(i + 0.5),
                                       taps outside the input dropped, weights renormalized to 1
                                       (ATen _compute_indices_min_size_weights_aa) */
  POSENC_RESAMPLE_BICUBIC = 1,    /**< mode='bicubic', antialias=False (DeiT): Keys a = -0.75, 4 taps
                                       around src = scale*(i + 0.5) - 0.5, indices clamped to the edge */
  POSENC_RESAMPLE_LINEAR = 2      /**< mode='bilinear' ('linear' in 1-D), antialias=False:
                                       src = max(scale*(i + 0.5) - 0.5, 0), 2 taps, the upper one
                                       clamped to the edge. Like PyTorch, no antialiasing when
                                       downsampling */
} posenc_resample;

/** Resample a learned 2-D (or 1-D) position grid to a new size, as timm
 *  resample_abs_pos_embed(posemb, new_size, old_size, num_prefix_tokens=prefix, interpolation,
 *  antialias) and PyTorch F.interpolate(..., align_corners=False) on CPU.
 *
 *  table: [prefix + old_h*old_w, dim]: the first `prefix` rows are class/register/distillation
 *  tokens, copied to out unchanged; grid row y*old_w + x holds position (y, x) (channels last).
 *  out: [prefix + new_h*new_w, dim], same layout. A 1-D table is old_h = new_h = 1.
 *  Separable: the per-axis weights are computed once in float64 (stored as float32), then a
 *  width pass and a height pass, each a weighted sum of whole rows vectorized over the channels;
 *  an axis whose size does not change is copied exactly (PyTorch's weights are exactly the
 *  identity there), so equal sizes give a bit-exact copy.
 *  Accuracy: max abs error <= 1e-6 * sum_k |w_k| * max|table| per pass against float64
 *  evaluation of the same weights (observed ~2e-7 relative); PyTorch itself computes the weights
 *  in float32, so posenc agrees with torch to ~1e-6 relative. table and out must not overlap.
 *
 *  Errors: NULL_POINTER (table or out NULL); INVALID_ARGUMENT (prefix < 0, dim <= 0, any of
 *  old_h, old_w, new_h, new_w <= 0, mode not a posenc_resample); SIZE_OVERFLOW (any size product
 *  overflows). */
POSENC_API posenc_status posenc_learned_resample_f32(const float* table, int32_t prefix, int64_t old_h,
                                                     int64_t old_w, int32_t dim, int64_t new_h, int64_t new_w,
                                                     posenc_resample mode, float* out);

/* @@LEARNED-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_POSENC_H */
