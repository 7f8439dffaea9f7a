// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/learned.cpp — instantiates the learned family's kernels for this TU's ISA (compiled
// once per ISA by cmake/PosencIsa.cmake) and exposes them as posenc::POSENC_NS::learned_kernels().
#include "kernels/learned.hpp"

namespace posenc {
namespace POSENC_NS {

// Filled member by member; an entry left out is null and lib/ refuses the table (kernel_table_ok).
constexpr learned_kernels_t make_learned_kernels() {
  learned_kernels_t t{};
  t.add_rows = &learned_add_rows;
  t.scatter_rows = &learned_scatter_rows;
  t.resample_pass = &learned_resample_pass;
  return t;
}

const learned_kernels_t* learned_kernels() {
  static constexpr learned_kernels_t table = make_learned_kernels();
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
