// SPDX-License-Identifier: Apache-2.0 OR MIT
/*
 * posenc/learned.h — the C ABI of posenc, learned section:
 * learned position tables as parameters.
 *
 * posenc/posenc.h includes this header with the others; its opening comment states the
 * conventions every section follows. This header compiles alone, as C99 and as C++.
 */
#ifndef POSENC_LEARNED_H
#define POSENC_LEARNED_H

#include "posenc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

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
  POSENC_RESAMPLE_LINEAR = 2,     /**< mode='bilinear' ('linear' in 1-D), antialias=False:
                                       src = max(scale*(i + 0.5) - 0.5, 0), 2 taps, the upper one
                                       clamped to the edge. Like PyTorch, no antialiasing when
                                       downsampling */
  POSENC_RESAMPLE_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
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
 *  Accuracy: max abs error <= 1e-6 * sum_k |w_k| * max|table| per pass against float64; measured
 *  against torch 1.13 F.interpolate run in float64: <= 1.1e-7 * max|table| (1-D, 512..32768 rows,
 *  all modes). torch in float32 errs up to 2.9e-4 * max|table| there. table, out must not overlap.
 *
 *  Errors: NULL_POINTER (table or out NULL); INVALID_ARGUMENT (prefix < 0, dim <= 0, any of
 *  old_h, old_w, new_h, new_w <= 0, mode not a posenc_resample); SIZE_OVERFLOW (any size product
 *  overflows). */
POSENC_API posenc_status posenc_learned_resample_f32(const float* table, int32_t prefix, int64_t old_h,
                                                     int64_t old_w, int32_t dim, int64_t new_h, int64_t new_w,
                                                     posenc_resample mode, float* out);

/** Adjoint (transpose) of posenc_learned_resample_f32: the gradient of a loss with respect to the
 *  table given its gradient with respect to the resampled table, for fine-tuning through a
 *  resize (timm resample_abs_pos_embed inside a model; PyTorch's F.interpolate backward).
 *
 *  The forward is out = A table with A = [I_prefix, 0; 0, Wh (x) Ww] (Ww, Wh the per-axis weight
 *  matrices of posenc_learned_resample_f32, as the same float32 weights); this computes
 *  grad_table = A^T grad_out: the prefix rows copied, then a height pass with Wh^T (new_h ->
 *  old_h rows) and a width pass with Ww^T (new_w -> old_w columns), an axis whose size does not
 *  change copied exactly. Each output element is one ordered sum of its column of A (the
 *  forward's taps transposed into a gather, increasing output index), so the result is bitwise
 *  identical for any thread count; the sums use fused multiply-add where the ISA has FMA.
 *
 *  grad_out: [prefix + new_h*new_w, dim]; grad_table: [prefix + old_h*old_w, dim], overwritten
 *  (not accumulated); layouts and arguments as posenc_learned_resample_f32 (old_* the sizes of
 *  the forward's input). grad_out and grad_table must not overlap.
 *  Accuracy: max abs error <= 1e-6 * sum_k |w_k| * max|grad_out| per pass against float64
 *  evaluation of A^T with the same weights; <A x, y> = <x, A^T y> to float32 rounding (tests).
 *
 *  Errors: NULL_POINTER (grad_out or grad_table NULL); INVALID_ARGUMENT (prefix < 0, dim <= 0,
 *  any size <= 0, mode not a posenc_resample); SIZE_OVERFLOW. Nothing is written on error. */
POSENC_API posenc_status posenc_learned_resample_backward_f32(const float* grad_out, int32_t prefix, int64_t old_h,
                                                              int64_t old_w, int32_t dim, int64_t new_h,
                                                              int64_t new_w, posenc_resample mode,
                                                              float* grad_table);

/* @@LEARNED-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_LEARNED_H */
