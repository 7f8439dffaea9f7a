// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/features.cpp — instantiates the features family's kernels for this TU's ISA (compiled
// once per ISA by cmake/PosencIsa.cmake) and exposes them as posenc::POSENC_NS::features_kernels().
#include "kernels/features.hpp"

namespace posenc {
namespace POSENC_NS {

const features_kernels_t* features_kernels() {
  static const features_kernels_t table = {
      &features_rows, &matmul, &colsum_acc, &linear_rows, &causal_chunk, &softmax_rows,
  };
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
