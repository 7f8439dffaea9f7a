// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/features.cpp — instantiates the features family's kernels for this TU's ISA (compiled
// once per ISA by cmake/PosencIsa.cmake) and exposes them as posenc::POSENC_NS::features_kernels().
#include "kernels/features.hpp"

namespace posenc {
namespace POSENC_NS {

// Filled member by member; an entry left out is null and lib/ refuses the table (kernel_table_ok).
constexpr features_kernels_t make_features_kernels() {
  features_kernels_t t{};
  t.features_rows = &features_rows;
  t.matmul = &matmul;
  t.transpose = &transpose;
  t.linear_bwd_dots = &linear_bwd_dots;
  t.colsum_acc = &colsum_acc;
  t.linear_rows = &linear_rows;
  t.causal_chunk = &causal_chunk;
  t.softmax_rows = &softmax_rows;
  return t;
}

const features_kernels_t* features_kernels() {
  static constexpr features_kernels_t table = make_features_kernels();
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
