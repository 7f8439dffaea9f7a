// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/rope_table.hpp — the rope family's kernel table: plain function pointers, one table
// per ISA (posenc::isa_<name>::rope_kernels()), filled in kernels/rope.cpp. No SIMD here:
// lib/rope*.cpp include this header with baseline flags.
#pragma once

#include <cstdint>

namespace posenc {

/// Rows of a cos/sin generator: positions i in [r0, r1) come from the exact phase at "anchor"
/// rows and from one angle-addition step (double) at the others. Row i is an anchor when
/// i == r0, when positions[i] != positions[i-1] + 1, or when positions[i] is a multiple of
/// kRopeAnchorEvery. The value at a position therefore never depends on the thread count, and
/// for runs of consecutive positions starting at a multiple of kRopeAnchorEvery it does not
/// depend on the tile size either (as long as tiles are multiples of kRopeAnchorEvery rows).
/// Multi-axis positions and re-rotations take the exact phase at every row.
constexpr int64_t kRopeAnchorEvery = 16;
/// Maximum rows of one decay tile (the kernel keeps per-row accumulators on the stack).
constexpr int64_t kRopeDecayTile = 512;

/// Element types of the apply kernels (posenc_rope_dtype).
enum rope_elem : int { kRopeF32 = 0, kRopeBF16 = 1, kRopeF16 = 2 };

/// Frequencies prepared by lib/ (lib/phase_prep.hpp): turns per position as double-double,
/// arrays padded with zeros to a multiple of 16 (kernels load whole vectors).
struct rope_freqs_t {
  int32_t half;       ///< number of frequencies (rotary_dim / 2)
  const double* wh;   ///< [pad(half)] high part of inv_freq / (2 pi)
  const double* wl;   ///< [pad(half)] low part
  double scale;       ///< attention_factor: cos and sin are multiplied by it
  /// Re-rotation only (else null): the angle is position * (w - w_from), formed as the
  /// difference of the two exactly reduced phases.
  const double* wh_from;
  const double* wl_from;
};

/// Positions of the tokens of one call. Token t (flattened over batch rows) of axis a is
/// p[a * axis_stride + t * token_stride].
struct rope_pos_t {
  const int64_t* p;        ///< null: token t has position t (one axis, one sequence)
  int32_t naxes;           ///< 1 (plain RoPE) or the number of axes (M-RoPE 3, axial 1..4)
  int64_t axis_stride;     ///< elements between the axes of one token
  int64_t token_stride;    ///< elements between consecutive tokens (1 when naxes == 1)
  const int32_t* axis_of;  ///< [half] axis of each rotary pair when naxes > 1, else null
};

/// Q/K buffers of one apply call. Token t = b * seq + s of head h starts at
/// base + b * batch_stride + s * token_stride + h * head_stride (elements, all resolved).
struct rope_qk_t {
  int layout;          ///< 0 NEOX (x[j], x[j+half]), 1 INTERLEAVED (x[2j], x[2j+1])
  int inverse;         ///< rotate by -angle
  int32_t rotary_dim;  ///< channels [0, rotary_dim) of each head are rotated
  int64_t head_dim;
  int64_t seq;         ///< tokens per batch row (> 0)
  void* q;
  int64_t num_q_heads;
  int64_t q_head_stride;
  int64_t q_token_stride;
  int64_t q_batch_stride;
  void* k;  ///< may be null (then num_k_heads == 0)
  int64_t num_k_heads;
  int64_t k_head_stride;
  int64_t k_token_stride;
  int64_t k_batch_stride;
  /// Out of place (posenc_rope_plan_apply_out), else null: the values are read from q_src /
  /// k_src (their own strides, same dtype and head_dim) and the rotated heads written to q / k,
  /// channels [rotary_dim, head_dim) copied unchanged. Null: q / k are rotated in place.
  const void* q_src;
  int64_t q_src_head_stride;
  int64_t q_src_token_stride;
  int64_t q_src_batch_stride;
  const void* k_src;
  int64_t k_src_head_stride;
  int64_t k_src_token_stride;
  int64_t k_src_batch_stride;
};

/// Floats of scratch an apply tile of `tokens` tokens needs (rotary_dim padded to 16).
constexpr int64_t rope_apply_scratch_floats(int64_t tokens, int32_t rotary_dim) {
  return (2 * tokens + 4) * ((static_cast<int64_t>(rotary_dim) + 15) / 16 * 16);
}

/// Rotates tokens [t0, t1) of q/k in place (element type by index rope_elem). scratch: >=
/// rope_apply_scratch_floats(t1 - t0, rotary_dim) floats, 8-byte aligned.
using rope_apply_fn = void (*)(const rope_pos_t* pos, int64_t t0, int64_t t1, const rope_freqs_t* f,
                               const rope_qk_t* h, float* scratch);

struct rope_kernels_t {
  /// Rows [row_begin, row_end) of a sinusoidal table out [n, 2*half] (row stride 2*half).
  /// Position of row i = positions ? positions[i] : i. wh/wl: turns per position (double-double,
  /// lib/phase_prep.hpp), padded with zeros to a multiple of 16. layout: posenc_sinusoidal_layout.
  void (*sinusoidal_rows)(const int64_t* positions, int64_t row_begin, int64_t row_end, int32_t half,
                          const double* wh, const double* wl, int layout, float* out);
  /// Rows [r0, r1) of cos_out/sin_out [n, half]: scale * cos/sin(position * inv_freq) (per-pair
  /// axis when pos->naxes > 1). scratch: >= 2 * pad(half) doubles.
  void (*cos_sin_rows)(const rope_pos_t* pos, int64_t r0, int64_t r1, const rope_freqs_t* f, float* cos_out,
                       float* sin_out, double* scratch);
  /// apply[rope_elem]: see rope_apply_fn.
  rope_apply_fn apply[3];
  /// As apply[kRopeF32] with cos/sin rows read from cos_table/sin_table [rows, rotary_dim/2]
  /// at row positions[t] (already validated to be in range). scratch: >= 4 * pad(rotary_dim).
  void (*apply_cached_f32_rows)(const float* cos_table, const float* sin_table, const int64_t* positions,
                                int64_t t0, int64_t t1, const rope_qk_t* h, float* scratch);
  /// Decay rows [r0, r1) (r1 - r0 <= kRopeDecayTile): f[i] = sum_j cos(n_i w_j),
  /// bound[i] (if non-null) = (1/nf) sum_{j=1..nf} |sum_{k<j} exp(i n_i w_k)|, n_i = n_begin + i*n_step.
  /// wh/wl: turns per unit of n, padded with zeros to a multiple of 64.
  void (*decay_rows)(const double* wh, const double* wl, int32_t nf, int64_t n_begin, int64_t n_step,
                     int64_t r0, int64_t r1, double* f, double* bound);
};

}  // namespace posenc
