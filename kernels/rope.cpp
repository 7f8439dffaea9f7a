// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/rope.cpp — instantiates the rope family's kernels for this TU's ISA (compiled once per
// ISA by cmake/PosencIsa.cmake) and exposes them as posenc::POSENC_NS::rope_kernels().
#include "kernels/rope_apply.hpp"

namespace posenc {
namespace POSENC_NS {

// Filled member by member; an entry left out is null and lib/ refuses the table (kernel_table_ok).
constexpr rope_kernels_t make_rope_kernels() {
  rope_kernels_t t{};
  t.sinusoidal_rows = &sinusoidal_rows;
  t.cos_sin_rows = &cos_sin_rows;
  t.apply[kRopeF32] = &apply_f32_rows;
  t.apply[kRopeBF16] = &apply_bf16_rows;
  t.apply[kRopeF16] = &apply_f16_rows;
  t.apply_cached_f32_rows = &apply_cached_f32_rows;
  t.decay_rows = &decay_rows;
  return t;
}

const rope_kernels_t* rope_kernels() {
  static constexpr rope_kernels_t table = make_rope_kernels();
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
