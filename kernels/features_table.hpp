// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/features_table.hpp — the features family's kernel table (random features, linear and
// softmax attention): plain function pointers, one table per ISA
// (posenc::isa_<name>::features_kernels()), filled in kernels/features.cpp. No SIMD here:
// lib/features*.cpp include this header with baseline flags.
#pragma once

#include <cstdint>

namespace posenc {

/// Column padding of every packed right-hand side (B operands): a multiple of two vectors of
/// the widest ISA (2 x 16 floats), so the micro-kernel never loads past a padded row.
inline constexpr int32_t kFeaturesColPad = 32;
/// Rows of the output processed per register block in features_rows (scratch is this many rows).
inline constexpr int32_t kFeaturesRowBlock = 6;

struct features_kernels_t {
  /// Rows [r0, r1) of a feature map out = f(x · Omega^T).
  /// kind: posenc_rf_kind; shift: 0 = OVERFLOW guard, else ROW_MAX (each exp row divided by its
  /// largest term; SHARED_MAX is ROW_MAX plus a per-row factor applied by lib/); TRIG,
  /// ELU_PLUS_ONE and RELU ignore it. x [n, d];
  /// wt [d, m_pad] = Omega^T packed, zero-padded columns; scale [m_pad]: per-feature factor
  /// (weights / sqrt(m) or / sqrt(2m)); out [n, m] or [n, 2m]. stats [n, 2] or NULL: for
  /// shift != 0 and exp kinds, (max_j p_ij (|p_ij| for HYPERBOLIC), h_i) of each row.
  /// scratch: kFeaturesRowBlock * m_pad floats owned by the caller's tile.
  void (*features_rows)(int kind, int shift, const float* x, int64_t r0, int64_t r1, int32_t d, const float* wt,
                        int32_t m, int32_t m_pad, const float* scale, float* scratch, float* out, float* stats);
  /// C (+)= A · B for a rows x ncols block. A(i, k) = A[i*sai + k*sak]; B row-major with leading
  /// dimension ldb; C leading dimension ldc. accumulate != 0 adds to C, else overwrites.
  void (*matmul)(const float* a, int64_t sai, int64_t sak, const float* b, int64_t ldb, int64_t rows,
                 int64_t ncols, int64_t k, float* c, int64_t ldc, int accumulate);
  /// b [cols, rows] = the transpose of a [rows, cols] (leading dimension lda): b[c*rows + i] =
  /// a[i*lda + c]. Tiles of W x W (W floats per vector) through an L1 tile and register shuffles.
  void (*transpose)(const float* a, int64_t rows, int64_t cols, int64_t lda, float* b);
  /// The two float64 dot products per row of the linear-attention backward: for i < rows,
  /// out[2i] = q_i . z + sum_{j<=i} p_ij and out[2i+1] = q_i . u_i + sum_{j<=i} p_ij g_ij
  /// (q, u [rows, f]; z [f]; p, g [rows, ldp] or p NULL: no second sums). Float32 inputs widened
  /// exactly, products and sums in float64 (lanes summed in a fixed order).
  void (*linear_bwd_dots)(const float* q, const float* u, int64_t rows, int32_t f, const float* z, const float* p,
                          const float* g, int64_t ldp, double* out);
  /// z[0..F) += sum of rows [0, rows) of a [rows, F].
  void (*colsum_acc)(const float* a, int64_t rows, int32_t f, float* z);
  /// Linear-attention output of `rows` query rows: out_i = (phi_i^T S + extra_num_i) /
  /// (phi_i^T z + extra_den_i + eps). phi [rows, F]; s [F, dv] (leading dimension lds);
  /// extra_num [rows, dv] (leading dimension dv) and extra_den [rows] may be NULL (= 0).
  /// out [rows, dv] (leading dimension dv). z NULL: unnormalized, out_i = phi_i^T S + extra_num_i.
  void (*linear_rows)(const float* phi, int64_t rows, int32_t f, const float* s, int64_t lds, const float* z,
                      int32_t dv, const float* extra_num, const float* extra_den, float eps, float* out);
  /// Causal intra-chunk part: for i < len, num_i = sum_{j<=i} (q_i . k_j) v_j and
  /// den_i = sum_{j<=i} q_i . k_j. q, k [len, F]; v [len, dv]. scratch: F*ceil32(len) +
  /// len*ceil32(len) floats. num [len, dv], den [len].
  void (*causal_chunk)(const float* q, const float* k, const float* v, int64_t len, int32_t f, int32_t dv,
                       float* scratch, float* num, float* den);
  /// Exact softmax attention for query rows [q0, q1) (at most 64): out_i = sum_j p_ij v_j with
  /// p_i = softmax(scale * q_i . k_j) over j < n (j <= i if causal), streamed over key blocks of
  /// 256 with an online max. kt [d, n_pad] = K^T packed. scratch: 64*(d + 256 + dv_pad) + 128 floats.
  void (*softmax_rows)(const float* q, const float* kt, int64_t n_pad, const float* v, int64_t n, int32_t d,
                       int32_t dv, int64_t q0, int64_t q1, int causal, float scale, float* scratch,
                       float* out);
};

}  // namespace posenc
