// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/learned_table.hpp — the learned family's kernel table: plain function pointers, one
// table per ISA (posenc::isa_<name>::learned_kernels()), filled in kernels/learned.cpp. No SIMD
// here: lib/learned.cpp includes this header with baseline flags.
#pragma once

#include <cstdint>

namespace posenc {

struct learned_kernels_t {
  /// Rows [row_begin, row_end) of x [n, dim]: x[i, :] += table[positions[i], :]. Positions are
  /// already validated (0 <= positions[i] < rows).
  void (*add_rows)(const float* table, int32_t dim, const int64_t* positions, int64_t row_begin,
                   int64_t row_end, float* x);

  /// Deterministic scatter-add for the touched table rows u in [u_begin, u_end):
  ///   row = urows[u]; for e in [offsets[u], offsets[u+1]) in order:
  ///     grad_table[row, :] += grad_x[order[e], :]
  /// order[] lists the rows of grad_x grouped by position, increasing i within a group, so the
  /// result equals the sequential loop `for i: grad_table[positions[i]] += grad_x[i]` bit for bit.
  void (*scatter_rows)(const float* grad_x, int32_t dim, const int64_t* urows, const int64_t* offsets,
                       const int64_t* order, int64_t u_begin, int64_t u_end, float* grad_table);

  /// One separable resampling pass, channels [c_begin, c_end) of items [item_begin, item_end):
  ///   out[j*len + c] = sum_{k < ntaps[j]} w[j*max_taps + k] * src[idx[j*max_taps + k]*len + c]
  /// summed in increasing k (fused multiply-add where the ISA has FMA).
  void (*resample_pass)(const float* src, int64_t len, const int64_t* idx, const float* w,
                        const int32_t* ntaps, int32_t max_taps, int64_t item_begin, int64_t item_end,
                        int64_t c_begin, int64_t c_end, float* out);
};

}  // namespace posenc
