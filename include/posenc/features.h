// SPDX-License-Identifier: Apache-2.0 OR MIT
/*
 * posenc/features.h — the C ABI of posenc, features section:
 * Bochner: random Fourier / positive / PFF features, linear attention.
 *
 * posenc/posenc.h includes this header with the others; its opening comment states the
 * conventions every section follows. This header compiles alone, as C99 and as C++.
 */
#ifndef POSENC_FEATURES_H
#define POSENC_FEATURES_H

#include "posenc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================== */
/* features — Bochner: random Fourier / positive / PFF features, linear attention            */
/* ======================================================================================== */

/* @@FEATURES-BEGIN@@ (section owned by the features family) */

/** How posenc_rf_sample_f32 draws the rows omega_i of Omega [m, d]. */
typedef enum {
  POSENC_RF_IID = 0,        /**< omega_i ~ N(0, I/sigma^2), i.i.d. (Rahimi & Recht 2007) */
  POSENC_RF_ORTHOGONAL = 1, /**< ORF (Yu et al. 2016; Performer Thm 2): blocks of d rows, each the
                                 columns of a Haar-distributed orthogonal Q, each row scaled by an
                                 independent chi_d norm; blocks stacked when m > d (the last one
                                 truncated). Q is built as the Q factor of a Householder QR of a
                                 Gaussian d x d matrix without forming the matrix (Stewart, SIAM
                                 J. Numer. Anal. 17(3), 1980): reflector k of the block is the
                                 Householder reflector (Eigen's makeHouseholder) of a fresh
                                 N(0, I_{d-k}) vector on coordinates k..d-1, Q = H_0 ... H_{r-1} for
                                 a block of r rows, column k sign-fixed by the sign of the diagonal
                                 entry of R that reflector produces; the norms are
                                 sqrt(2 Gamma(d/2)), Gamma by Marsaglia & Tsang (ACM TOMS 26(3),
                                 2000, exact rejection sampler), from a stream of their own */
  POSENC_RF_QMC = 2,        /**< randomized quasi-Monte Carlo: point i of the d-dimensional Sobol
                                 sequence (Boost.Random sobol, zero point skipped), XORed with a
                                 per-coordinate 64-bit digital shift drawn from the seed,
                                 u = ((v >> 11) + 0.5) * 2^-53, omega = Phi^{-1}(u) / sigma with
                                 Wichura's AS241 PPND16 */
  POSENC_RF_PFF = 3,        /**< DiJiang PFF (Chen et al. ICML 2024, eq. 9): directions v_i = the QMC
                                 normal vectors above normalized to the unit sphere, radii
                                 r_i = sqrt(F^{-1}_{chi^2_d}(t_i)) (Boost.Math quantile) with
                                 stratified t_i = (s_i + U_i)/m, s a seeded permutation of 0..m-1;
                                 omega_i = r_i v_i / sigma */
  POSENC_RF_SAMPLING_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
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
  POSENC_RF_GAUSSIAN_POSITIVE = 3, /**< out [n, m] = w_j exp(p_ij - |x_i|^2 - c_i) / sqrt(m): DiJiang
                                       PFF (eq. 9; WPFF eq. 10 with weights), estimates the Gaussian
                                       kernel K_G(x,y) = exp(-|x-y|^2/2) for sigma = 1 */
  POSENC_RF_ELU_PLUS_ONE = 4, /**< out [n, m] = w_j (elu(p_ij) + 1) = w_j (p_ij + 1) for p_ij > 0,
                                   w_j exp(p_ij) otherwise: fast-transformers' elu_feature_map
                                   (Katharopoulos et al. 2020, eq. 7) applied to x Omega^T; pass
                                   Omega = I_d (m = d) for their map of x itself. No 1/sqrt(m)
                                   factor, no shift (the map is at most linear in p) */
  POSENC_RF_RELU = 5,         /**< out [n, m] = w_j max(p_ij, 0): Performer's generalized kernel with
                                   kernel_fn = ReLU (Choromanski et al. 2021, sec. 2.4;
                                   performer-pytorch's generalized_kernel, which adds its
                                   kernel_epsilon = 1e-3 to every feature and scales x by d^-1/4 when
                                   normalize_data: do both in the caller). No 1/sqrt(m), no shift */
  POSENC_RF_KIND_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rf_kind;

/** Stabilizing shift c of the exponential kinds of posenc_rf_features_f32 (POSITIVE, HYPERBOLIC,
 *  GAUSSIAN_POSITIVE; TRIG, ELU_PLUS_ONE and RELU ignore it). e_ij is the exponent before the shift (p_ij - |x_i|^2/2,
 *  +-p_ij - |x_i|^2/2 or p_ij - |x_i|^2) and a row is computed as exp(e_ij - c_i). In FAVOR+
 *  linear attention (Choromanski et al. 2021; performer-pytorch's softmax_kernel) queries take
 *  ROW_MAX and keys SHARED_MAX: out_i = phi_q_i^T S / phi_q_i^T z is invariant under a per-query
 *  factor and under one factor common to all keys, so both shifts cancel exactly (with eps = 0),
 *  while no key is reweighted relative to another. */
typedef enum {
  POSENC_RF_SHIFT_OVERFLOW = 0,   /**< c_i = max(0, max_j e_ij - 60): the exact, unshifted map unless a
                                       row would exceed e^60 (a per-row overflow guard) */
  POSENC_RF_SHIFT_ROW_MAX = 1,    /**< c_i = max_j e_ij: every row's largest feature is scale_j * e^0
                                       (Performer's query stabilization); never underflows a whole row */
  POSENC_RF_SHIFT_SHARED_MAX = 2, /**< c = max_{i,j} e_ij over all n rows of the call, one constant for
                                       every row (Performer's key stabilization): rows keep their
                                       relative weights, the largest feature of the call is
                                       scale_j * e^0 */
  POSENC_RF_SHIFT_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rf_shift;

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
 *  out: [n, m] (POSITIVE, GAUSSIAN_POSITIVE, ELU_PLUS_ONE, RELU) or [n, 2m] (TRIG, HYPERBOLIC),
 *  formulas in posenc_rf_kind. weights [m]: WPFF's per-feature diagonal D (DiJiang eq. 10; each feature j —
 *  both halves for TRIG and HYPERBOLIC — is multiplied by weights[j] >= 0), or NULL for 1.
 *  Then sum_j phi_j(x) phi_j(y) estimates the kernel of the kind (unbiased for every sampling
 *  when weights is NULL; see posenc_rf_sample_f32).
 *
 *  Computation: the projection x . Omega^T is a fused, register-blocked SIMD micro-kernel
 *  (float32 FMAs over d) whose epilogue applies cos/sin (reduced in turns) or exp to the output
 *  tile while it is in registers / L1 (ELU_PLUS_ONE and RELU: elementwise, in registers).
 *
 *  Stabilization of the exponential kinds (shift, see posenc_rf_shift): a shifted row is the exact
 *  row times e^{-c_i}. OVERFLOW: c_i = max(0, max_j e_ij - 60), so c_i = 0 (the exact, unbiased
 *  map) whenever no exponent of the row exceeds 60 and every feature is <= e^60 / sqrt(m): no
 *  overflow for any input. ROW_MAX: c_i = max_j e_ij, computed as exp(p_ij - max_j p_ij) (the
 *  |x_i|^2 term cancels exactly; HYPERBOLIC uses max_j |p_ij|); use it for the QUERIES of linear
 *  attention, whose row factor cancels in out_i = phi_q_i^T S / phi_q_i^T z. SHARED_MAX: one
 *  c = max_i (max_j p_ij - h_i) over the whole call (h_i = |x_i|^2/2, |x_i|^2 for
 *  GAUSSIAN_POSITIVE), row i computed as exp(p_ij - max_j p_ij) * exp(max_j p_ij - h_i - c) (the
 *  second factor in float64); use it for the KEYS: the factor is common to all keys, so no key
 *  is reweighted relative to another (OVERFLOW would shift a key row alone once its exponent
 *  passes 60, e.g. |omega_j|^2 > 120 at d = 128) and it cancels between numerator and
 *  denominator. Queries N(0, a^2 I), a = 5, d = 64 have all e_ij < -290: unshifted, every feature
 *  underflows to 0; with ROW_MAX / SHARED_MAX the attention output matches the float64 FAVOR+
 *  estimate (tests/test_features.cpp, FavorStabilization). Exponents below -87.3 give 0.
 *
 *  Accuracy (float32, against the same formula in float64 with the same omega, tested on every
 *  ISA path): TRIG abs error <= 2e-6 * (1 + max_j |p_ij|) / sqrt(m) (the float32 rounding of p
 *  dominates; observed 3.7e-6 / sqrt(m) at |x| ~ 1.6); exponential kinds rel error
 *  <= 4e-6 * (2 + max_j |p_ij|) (observed 2.3e-6), up to float32 underflow below e^-87;
 *  ELU_PLUS_ONE and RELU abs error <= w_j * 1e-6 * (1 + |x_i| |omega_j|) + 1e-7 |out_ij| (the
 *  float32 projection; tests/test_features_kinds.cpp).
 *
 *  Errors: NULL_POINTER (omega NULL; x or out NULL while n > 0); INVALID_ARGUMENT (kind not a
 *  posenc_rf_kind, shift not a posenc_rf_shift, m <= 0, d <= 0, n < 0, a weight negative or not finite, an omega entry not
 *  finite); SIZE_OVERFLOW (n * d, n * 2m). n == 0 is a no-op. out is untouched on error. */
POSENC_API posenc_status posenc_rf_features_f32(posenc_rf_kind kind, posenc_rf_shift shift, const float* omega,
                                                int32_t m, int32_t d, const float* weights, const float* x, int64_t n,
                                                float* out);

/** The flags argument of posenc_linear_attention_f32 and posenc_linear_attention_backward_f32
 *  (bits; 0 = non-causal, normalized; the values 0 and 1 keep the meaning of the former causal
 *  argument). Any other bit is INVALID_ARGUMENT. */
typedef enum {
  POSENC_LINEAR_CAUSAL = 1,       /**< out_i sums over j <= i only */
  POSENC_LINEAR_UNNORMALIZED = 2, /**< no denominator: out_i = phi_q_i^T S (eps unused): DiJiang's
                                       released attention and retention-style models (RetNet
                                       without decay) */
  POSENC_LINEAR_FLAGS_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_linear_flags;

/** Kernelized linear attention (Katharopoulos et al. ICML 2020, eq. 4–6; causal form eq. 8–10).
 *
 *  phi_q, phi_k [n, F] (feature maps of queries and keys, e.g. from posenc_rf_features_f32),
 *  v [n, dv] -> out [n, dv]:
 *    non-causal: out_i = phi_q_i^T S / (phi_q_i^T z + eps), S = sum_j phi_k_j v_j^T [F, dv],
 *                z = sum_j phi_k_j [F];
 *    causal (flags & POSENC_LINEAR_CAUSAL): the same with S_i, z_i summed over j <= i only;
 *    unnormalized (flags & POSENC_LINEAR_UNNORMALIZED): out_i = phi_q_i^T S (or S_i), no
 *    denominator and eps unused (still validated); same accumulation as the numerator above.
 *  Non-causal: per-tile partial states (512 rows) reduced in tile order. Causal: chunks of 128
 *  rows; the state of every chunk (F x dv + F) is reduced to exclusive prefix sums, and inside a
 *  chunk the masked block (phi_Q phi_K^T) V is added — O(n F dv + n 128 (F + dv)) work, all
 *  products in our register-blocked SIMD micro-kernel, float32 accumulation. Bitwise identical
 *  for any thread count.
 *
 *  eps >= 0 is added to the denominator (fast-transformers uses 1e-6 with elu+1 features of order
 *  1); a row whose denominator is exactly 0 is written as 0 (no NaN). For FAVOR+ features use
 *  eps = 0 with queries from POSENC_RF_SHIFT_ROW_MAX and keys from POSENC_RF_SHIFT_SHARED_MAX:
 *  both shifts then cancel exactly, and the denominator is > 0 unless every product phi_q_i,f
 *  phi_k_j,f underflows. An absolute eps is not scale-free: with keys N(0, I) and queries
 *  N(0, a^2 I), d = 64, m = 256, the stabilized denominators reach 1e-9 and eps = 1e-6 would
 *  dominate them. Accuracy (float32 accumulation): for non-negative features and eps = 0, out_i is
 *  a convex combination of the v_j (weights a_ij = phi_q_i . phi_k_j / sum_j a_ij); with eps > 0
 *  it is that combination times D_i / (D_i + eps) <= 1. The abs error against a float64
 *  evaluation of the same formula is <= 2e-5 for |v| <= 4, n <= 1100 (tested on every ISA path,
 *  causal and not; observed <= 3e-7); it grows like sqrt(n) * 6e-8 * max |v| with n. Against
 *  the float64 FAVOR+ estimate on the same omega (stabilized as above, eps = 0, n = 128, keys
 *  N(0, I), queries N(0, a^2 I), a = 1, 2, 3, 5): <= 2e-4 * a (observed <= 2.7e-5 at a = 5;
 *  test FavorStabilizationMatchesFloat64ForLargeNormQueries).
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, F <= 0, dv <= 0,
 *  eps negative or not finite, flags with a bit other than posenc_linear_flags); SIZE_OVERFLOW.
 *  n == 0 is a no-op. out untouched on error. */
POSENC_API posenc_status posenc_linear_attention_f32(const float* phi_q, const float* phi_k, const float* v,
                                                     int64_t n, int32_t F, int32_t dv, int32_t flags, float eps,
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

/** Backward of posenc_rf_features_f32: the gradients of L = sum_ij grad_out_ij out_ij.
 *
 *  Same kind, shift, omega [m, d], weights [m] (or NULL for 1), x [n, d] and n as the forward call
 *  (the map is recomputed, bitwise as the forward); grad_out [n, F] (F = 2m for TRIG and
 *  HYPERBOLIC, m otherwise). Outputs, each optional (NULL: not computed), at least one non-NULL:
 *  grad_x [n, d]; grad_weights [m] = sum_i sum_halves grad_out_ij u_ij (u the unweighted map; the
 *  gradient at weights = 1 when weights is NULL); grad_omega [m, d] = sum_i dp_ij x_i. With
 *  p_ij = omega_j . x_i and G = grad_out * out: TRIG dp_ij = w_j (g_i,m+j cos p_ij - g_ij sin p_ij)
 *  / sqrt(m); POSITIVE and GAUSSIAN_POSITIVE dp_ij = G_ij; HYPERBOLIC dp_ij = G_ij - G_i,m+j;
 *  ELU_PLUS_ONE dp_ij = w_j g_ij (1 if p_ij > 0, else exp(p_ij)); RELU dp_ij = w_j g_ij [p_ij > 0]
 *  (0 at p_ij = 0, as torch's relu); grad_x_i = sum_j dp_ij omega_j - h' (sum_j G_ij) x_i with
 *  h' = 0 (TRIG, ELU_PLUS_ONE, RELU), 1, 2 (GAUSSIAN_POSITIVE).
 *  The shift c_i (posenc_rf_shift) is a constant (not differentiated; Performer detaches it too):
 *  with OVERFLOW c_i = 0 below exponent 60, so this is the exact gradient; with ROW_MAX and
 *  SHARED_MAX the factor e^{-c} cancels in linear attention (eps = 0), so the gradient of the
 *  attention output through both calls is exact as well.
 *
 *  Accumulation: float32 products in our SIMD micro-kernel within tiles of 256 rows; grad_weights
 *  and grad_omega sum the tile partials in tile order in float64: bitwise identical for any thread
 *  count. Accuracy: against float64 central differences of the float64 formula (tested on every ISA
 *  path, all kinds, with and without weights): max abs error <= 1e-4 * max |reference| (observed
 *  in tests/test_features.cpp, FeaturesBackward).
 *
 *  Errors: as posenc_rf_features_f32 (grad_out in place of out), and NULL_POINTER when grad_x,
 *  grad_weights and grad_omega are all NULL. n == 0 zero-fills grad_weights and grad_omega. No
 *  output is written on error. */
POSENC_API posenc_status posenc_rf_features_backward_f32(posenc_rf_kind kind, posenc_rf_shift shift, const float* omega,
                                                         int32_t m, int32_t d, const float* weights, const float* x,
                                                         int64_t n, const float* grad_out, float* grad_x,
                                                         float* grad_weights, float* grad_omega);

/** Backward of posenc_linear_attention_f32: given the same phi_q, phi_k [n, F], v [n, dv], flags
 *  (posenc_linear_flags) and eps as the forward call and grad_out [n, dv], writes grad_phi_q, grad_phi_k [n, F] and
 *  grad_v [n, dv] (all required).
 *
 *  With D_i = phi_q_i . z_i + eps, out_i = phi_q_i^T S_i / D_i, a_i = grad_out_i / D_i and
 *  b_i = -(grad_out_i . out_i) / D_i: grad_phi_q_i = S_i a_i + b_i z_i; grad_phi_k_j =
 *  sum_{i: j in i's sum} (a_i . v_j + b_i) phi_q_i; grad_v_j = sum_{i: j in i's sum} (phi_q_i .
 *  phi_k_j) a_i. A row whose forward denominator is 0 (written as 0) contributes 0. With
 *  POSENC_LINEAR_UNNORMALIZED the same with D_i = 1 and b_i = 0 (a_i = grad_out_i). Non-causal:
 *  the state S, z (tile partials in tile order, as the forward), then R = sum_i phi_q_i a_i^T and
 *  r = sum_i b_i phi_q_i (tile partials summed in tile order in float64), grad_phi_k = V R^T + r,
 *  grad_v = phi_k R. Causal: 64-row chunks (the forward uses 128) and exclusive prefix states for
 *  grad_phi_q; the chunks' R, r as a REVERSE exclusive prefix scan (suffix sums over later chunks,
 *  fast-transformers' causal_dot_backward computed in chunks) for grad_phi_k and grad_v, plus the
 *  masked intra-chunk blocks, formed on a staircase of 16-row blocks (the blocks above the
 *  diagonal, all masked, are skipped). Both scans run in two levels: blocks of 8 chunks, whose
 *  totals are scanned first, then the chunks of each block in order (the reverse scan in reverse
 *  order) with the running sum in the tile's scratch (the chunk states are formed twice, for the
 *  block totals and for the running state: cheaper than storing and re-reading n/64 of them);
 *  the block size depends on n only. The forward output is not recomputed: with U = grad_out S^T and the
 *  intra-chunk P = phi_q phi_k^T, G = grad_out V^T, grad_out_i . out_i = (phi_q_i . U_i +
 *  sum_j P_ij G_ij) / D_i and grad_phi_q = U / D + b z^T + M phi_k. Float32 products in our SIMD
 *  micro-kernel, D_i and b_i in float64 (the row sums of float32 products widened exactly, in
 *  SIMD). Bitwise identical for any thread count.
 *
 *  Accuracy: against float64 central differences of the float64 forward (tested on every ISA
 *  path, causal and not, n = 300 and 1100: one and three blocks of 64-row chunks): abs error
 *  <= 2e-4 * (1 + max |reference|).
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, F <= 0, dv <= 0,
 *  eps negative or not finite, flags with a bit other than posenc_linear_flags); SIZE_OVERFLOW.
 *  n == 0 is a no-op. No output is written on error. */
POSENC_API posenc_status posenc_linear_attention_backward_f32(const float* phi_q, const float* phi_k, const float* v,
                                                              int64_t n, int32_t F, int32_t dv, int32_t flags,
                                                              float eps, const float* grad_out, float* grad_phi_q,
                                                              float* grad_phi_k, float* grad_v);

/** Backward of posenc_softmax_attention_f32 by recomputation (FlashAttention-2, Dao 2023, Alg. 2):
 *  given the same q, k [n, d], v [n, dv], causal and scale as the forward call and grad_out
 *  [n, dv], writes grad_q, grad_k [n, d] and grad_v [n, dv] (all required).
 *
 *  The forward output O (the forward kernel) and per query the log-sum-exp L_i (float64) and
 *  Dl_i = grad_out_i . O_i (float64) are computed first; then, with P_ij = exp(scale s_ij - L_i)
 *  recomputed block by block (64 queries x 256 keys, j <= i when causal) and dS = P o (grad_out
 *  V^T - Dl): grad_q = scale dS K (per query block, over key blocks), grad_v = P^T grad_out and
 *  grad_k = scale dS^T Q (per key block, over query blocks): no atomics, each output row written
 *  by one tile in a fixed order, so bitwise identical for any thread count. Memory O(n (d + dv))
 *  besides the inputs (K^T and V^T packed once, O, L, Dl) — the n x n matrix never exists.
 *  Float32 products in our SIMD micro-kernel.
 *
 *  Accuracy: against float64 central differences of the float64 forward (tested on every ISA
 *  path, causal and not, n = 300 so blocks cross): abs error <= 2e-4 * (1 + max |reference|).
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, d <= 0, dv <= 0,
 *  scale not finite); SIZE_OVERFLOW. n == 0 is a no-op. No output is written on error. */
POSENC_API posenc_status posenc_softmax_attention_backward_f32(const float* q, const float* k, const float* v, int64_t n,
                                                               int32_t d, int32_t dv, int32_t causal, float scale,
                                                               const float* grad_out, float* grad_q, float* grad_k,
                                                               float* grad_v);

/** One step of recurrent (decoding) linear attention (fast-transformers' RecurrentLinearAttention):
 *  consumes one row (phi_q [F], phi_k [F], v [dv]) and the state (state_s [F, dv] row-major,
 *  state_z [F]), updates the state in place, S += phi_k v^T and z += phi_k (float32, in this order
 *  per element), then writes out [dv] = phi_q^T S / (phi_q . z + eps) with the dot products in
 *  float64 (a zero denominator gives a zero row, as posenc_linear_attention_f32). Starting from
 *  S = 0, z = 0 and feeding rows 0..n-1 gives the rows of the causal posenc_linear_attention_f32
 *  (same formula, summed in another order: abs difference <= 2e-5 for |v| <= 4, n <= 300,
 *  tested on every ISA path).
 *
 *  Unnormalized form (POSENC_LINEAR_UNNORMALIZED): pass state_z = NULL; the state is S alone,
 *  out = phi_q^T S (float64 dot products, eps unused), and feeding rows 0..n-1 gives the rows of
 *  the causal unnormalized posenc_linear_attention_f32 (same bound).
 *
 *  Errors: NULL_POINTER (phi_q, phi_k, v, state_s or out NULL); INVALID_ARGUMENT (F <= 0, dv <= 0,
 *  eps negative or not finite); SIZE_OVERFLOW (F * dv). Nothing (state or out) is written on error. */
POSENC_API posenc_status posenc_linear_attention_step_f32(const float* phi_q, const float* phi_k, const float* v,
                                                          int32_t F, int32_t dv, float eps, float* state_s,
                                                          float* state_z, float* out);

/** Multi-head, batched posenc_linear_attention_f32: one call for arrays [batch, heads, n, dim]
 *  with strides (torch's [B, H, n, d] tensors, including views such as q.view(B, n, H, d)
 *  .transpose(1, 2), without copies in the caller).
 *
 *  Layout: element (b, h, i, c) of an array is at base[b * s[0] + h * s[1] + i * s[2] + c], with
 *  s its strides argument (int64_t[3], in ELEMENTS, each >= 0; torch's tensor.stride()[:3]); the
 *  last dimension is contiguous. A NULL strides pointer means the contiguous layout
 *  {heads n dim, n dim, dim}. phi_q, phi_k: dim = F; v, out: dim = dv. The rows of out must not
 *  overlap (sorted by stride, every stride of an extent > 1 is >= the span of the smaller ones);
 *  out must not alias an input.
 *
 *  flags, eps and the formula as posenc_linear_attention_f32, per (b, h) head. The batch * heads
 *  heads run TBB-parallel; each runs the single-head algorithm on its rows (read in place when a
 *  head's rows are contiguous, s[2] == dim, else packed into a per-head buffer) into a staging
 *  array of batch * heads * n * dv floats, written to out once every head is done (so that out is
 *  untouched on any error, OUT_OF_MEMORY included); every head's output is bitwise identical to
 *  posenc_linear_attention_f32 on that head, for any thread count (tests/test_features_multihead.cpp). Accuracy: as
 *  posenc_linear_attention_f32.
 *
 *  Errors: NULL_POINTER (an array NULL while batch * heads * n > 0); INVALID_ARGUMENT (batch,
 *  heads or n < 0, F <= 0, dv <= 0, eps negative or not finite, flags with another bit, a stride
 *  < 0, out's strides making rows overlap); SIZE_OVERFLOW (batch * heads * n, an array's largest
 *  offset). No element is a no-op. out untouched on error. */
POSENC_API posenc_status posenc_linear_attention_mh_f32(int64_t batch, int64_t heads, int64_t n, int32_t F, int32_t dv,
                                                        const float* phi_q, const int64_t* q_strides,
                                                        const float* phi_k, const int64_t* k_strides, const float* v,
                                                        const int64_t* v_strides, int32_t flags, float eps, float* out,
                                                        const int64_t* out_strides);

/** Multi-head, batched posenc_linear_attention_backward_f32: the inputs of
 *  posenc_linear_attention_mh_f32 plus grad_out [batch, heads, n, dv], writes grad_phi_q,
 *  grad_phi_k [batch, heads, n, F] and grad_v [batch, heads, n, dv] (all required), each array
 *  with its own strides (NULL: contiguous; layout rules as posenc_linear_attention_mh_f32, the
 *  rows of each gradient must not overlap). TBB-parallel over the heads, staged like
 *  posenc_linear_attention_mh_f32 (2 F + dv floats per row); every head bitwise
 *  identical to posenc_linear_attention_backward_f32 on that head, for any thread count.
 *  Accuracy: as posenc_linear_attention_backward_f32.
 *
 *  Errors: as posenc_linear_attention_mh_f32 for every array. No output is written on error. */
POSENC_API posenc_status posenc_linear_attention_backward_mh_f32(
    int64_t batch, int64_t heads, int64_t n, int32_t F, int32_t dv, const float* phi_q, const int64_t* q_strides,
    const float* phi_k, const int64_t* k_strides, const float* v, const int64_t* v_strides, int32_t flags, float eps,
    const float* grad_out, const int64_t* grad_out_strides, float* grad_phi_q, const int64_t* grad_q_strides,
    float* grad_phi_k, const int64_t* grad_k_strides, float* grad_v, const int64_t* grad_v_strides);

/** posenc_rf_features_f32 on bfloat16 storage: x [n, d] and out [n, F] hold bf16 bit patterns
 *  (uint16_t, the upper 16 bits of an IEEE float32); omega and weights stay float32. x is widened
 *  to float32 exactly, the float32 map is computed (float32 accumulation, the same kernels), and
 *  each output is rounded once to bf16, to nearest, ties to even (a NaN stays a quiet NaN): out is
 *  bitwise RNE(posenc_rf_features_f32 of the widened x), so the float32 bounds hold plus 2^-9
 *  relative for the rounding. Uses float32 scratch of n (d + F) floats. Arguments, kinds, shifts
 *  and errors as posenc_rf_features_f32. */
POSENC_API posenc_status posenc_rf_features_bf16(posenc_rf_kind kind, posenc_rf_shift shift, const float* omega,
                                                 int32_t m, int32_t d, const float* weights, const uint16_t* x,
                                                 int64_t n, uint16_t* out);

/** posenc_linear_attention_f32 on bfloat16 storage: phi_q, phi_k [n, F], v [n, dv] and out [n, dv]
 *  hold bf16 bit patterns (uint16_t). Inputs are widened to float32 exactly, the float32
 *  algorithm runs (float32 accumulation, flags and eps as posenc_linear_attention_f32) and out is
 *  rounded once to bf16 (nearest, ties to even): bitwise RNE(posenc_linear_attention_f32 of the
 *  widened inputs). Uses float32 scratch of n (2F + 2dv) floats. Errors as
 *  posenc_linear_attention_f32. */
POSENC_API posenc_status posenc_linear_attention_bf16(const uint16_t* phi_q, const uint16_t* phi_k, const uint16_t* v,
                                                      int64_t n, int32_t F, int32_t dv, int32_t flags, float eps,
                                                      uint16_t* out);

/* @@FEATURES-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_FEATURES_H */
