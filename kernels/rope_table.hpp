// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/rope_table.hpp — the rope family's kernel table: plain function pointers, one table
// per ISA (posenc::isa_<name>::rope_kernels()), filled in kernels/rope.cpp. No SIMD here:
// lib/rope.cpp includes this header with baseline flags.
#pragma once

#include <cstdint>

namespace posenc {

/// Rows of a cos/sin generator: positions i in [r0, r1) come from the exact phase at "anchor"
/// rows and from one angle-addition step (double) at the others. Row i is an anchor when
/// i == r0, when positions[i] != positions[i-1] + 1, or when positions[i] is a multiple of
/// kRopeAnchorEvery. The value at a position therefore never depends on the thread count, and
/// for runs of consecutive positions starting at a multiple of kRopeAnchorEvery it does not
/// depend on the tile size either (as long as tiles are multiples of kRopeAnchorEvery rows).
constexpr int64_t kRopeAnchorEvery = 16;
/// Maximum rows of one decay tile (the kernel keeps per-row accumulators on the stack).
constexpr int64_t kRopeDecayTile = 512;

/// Frequencies prepared by lib/ (lib/phase_prep.hpp): turns per position as double-double,
/// arrays padded with zeros to a multiple of 16 (kernels load whole vectors).
struct rope_freqs_t {
  int32_t half;       ///< number of frequencies (rotary_dim / 2)
  const double* wh;   ///< [pad(half)] high part of inv_freq / (2 pi)
  const double* wl;   ///< [pad(half)] low part
  double scale;       ///< attention_factor: cos and sin are multiplied by it
};

/// Q/K buffers of one apply call (element type float or uint16_t bf16 bit patterns).
struct rope_qk_t {
  int layout;          ///< 0 NEOX (x[j], x[j+half]), 1 INTERLEAVED (x[2j], x[2j+1])
  int inverse;         ///< rotate by -angle
  int32_t rotary_dim;  ///< channels [0, rotary_dim) of each head are rotated
  int64_t head_dim;
  void* q;
  int64_t num_q_heads;
  int64_t q_stride;  ///< elements between tokens (resolved: never 0)
  void* k;           ///< may be null (then num_k_heads == 0)
  int64_t num_k_heads;
  int64_t k_stride;
};

struct rope_kernels_t {
  /// Rows [row_begin, row_end) of a sinusoidal table out [n, 2*half] (row stride 2*half).
  /// Position of row i = positions ? positions[i] : i. wh/wl: turns per position (double-double,
  /// lib/phase_prep.hpp), padded with zeros to a multiple of 16. layout: posenc_sinusoidal_layout.
  void (*sinusoidal_rows)(const int64_t* positions, int64_t row_begin, int64_t row_end, int32_t half,
                          const double* wh, const double* wl, int layout, float* out);
  /// Rows [r0, r1) of cos_out/sin_out [n, half]: scale * cos/sin(position * inv_freq).
  /// positions may be null (= row index).
  void (*cos_sin_rows)(const int64_t* positions, int64_t r0, int64_t r1, const rope_freqs_t* f,
                       float* cos_out, float* sin_out);
  /// Rotates tokens [t0, t1) of q/k (float32) in place. scratch: >= 4 * (t1 - t0 + 1) *
  /// pad(rotary_dim) floats.
  void (*apply_f32_rows)(const int64_t* positions, int64_t t0, int64_t t1, const rope_freqs_t* f,
                         const rope_qk_t* h, float* scratch);
  /// As apply_f32_rows on bf16 storage (uint16_t bit patterns), float32 arithmetic, RNE stores.
  void (*apply_bf16_rows)(const int64_t* positions, int64_t t0, int64_t t1, const rope_freqs_t* f,
                          const rope_qk_t* h, float* scratch);
  /// As apply_f32_rows with cos/sin rows read from cos_table/sin_table [rows, rotary_dim/2]
  /// at row positions[t] (already validated to be in range).
  void (*apply_cached_f32_rows)(const float* cos_table, const float* sin_table, const int64_t* positions,
                                int64_t t0, int64_t t1, const rope_qk_t* h, float* scratch);
  /// Decay rows [r0, r1) (r1 - r0 <= kRopeDecayTile): f[i] = sum_j cos(n_i w_j),
  /// bound[i] (if non-null) = (1/nf) sum_{j=1..nf} |sum_{k<j} exp(i n_i w_k)|, n_i = n_begin + i*n_step.
  /// wh/wl: turns per unit of n, padded with zeros to a multiple of 64.
  void (*decay_rows)(const double* wh, const double* wl, int32_t nf, int64_t n_begin, int64_t n_step,
                     int64_t r0, int64_t r1, double* f, double* bound);
};

}  // namespace posenc
