// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/learned.cpp — instantiates the learned family's kernels for this TU's ISA (compiled
// once per ISA by cmake/PosencIsa.cmake) and exposes them as posenc::POSENC_NS::learned_kernels().
#include "kernels/learned.hpp"

namespace posenc {
namespace POSENC_NS {

const learned_kernels_t* learned_kernels() {
  static const learned_kernels_t table = {
      &learned_add_rows,
      &learned_scatter_rows,
      &learned_resample_pass,
  };
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
