// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/rope.cpp — instantiates the rope family's kernels for this TU's ISA (compiled once per
// ISA by cmake/PosencIsa.cmake) and exposes them as posenc::POSENC_NS::rope_kernels().
#include "kernels/rope_apply.hpp"

namespace posenc {
namespace POSENC_NS {

const rope_kernels_t* rope_kernels() {
  static const rope_kernels_t table = {
      &sinusoidal_rows,
      &cos_sin_rows,
      {&apply_f32_rows, &apply_bf16_rows, &apply_f16_rows},
      &apply_cached_f32_rows,
      &decay_rows,
  };
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
