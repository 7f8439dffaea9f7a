// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere.cpp — this ISA's sphere kernel table posenc::POSENC_NS::sphere_kernels() (compiled
// once per ISA by cmake/PosencIsa.cmake): the entry points of kernels/sphere_*.cpp, the scratch
// size and the block sizes and store policy lib/sphere.cpp plans with.
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/sh_real.hpp"

namespace posenc {
namespace POSENC_NS {

namespace {
int64_t scratch_doubles(int32_t lmax) { return sph::scratch_doubles(lmax); }
}  // namespace

const sphere_kernels_t* sphere_kernels() {
  static const sphere_kernels_t table = {
      &scratch_doubles,
      sph::kSphTilePoints,
      static_cast<int64_t>(kMaxLanesF64),
      sph::kSphStreamMinBytes,
      &sphere_coef_table_doubles,
      &sphere_coef_table,
      &sphere_legendre_f64,
      &sphere_legendre_f32,
      &sphere_sh_real_f64,
      &sphere_sh_real_f32,
      &sphere_legendre_poly_f64,
      &sphere_legendre_sum_f64,
      &sphere_rotate_f64,
      &sphere_xyz_bad_f64,
      &sphere_xyz_bad_f32,
      &sphere_grad_scratch_doubles,
      &sphere_sh_grad_f64,
      &sphere_sh_grad_f32,
  };
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
