// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere.cpp — instantiates the sphere family's kernels for this TU's ISA (compiled once
// per ISA by cmake/PosencIsa.cmake) and exposes them as posenc::POSENC_NS::sphere_kernels().
#include "kernels/sphere.hpp"

namespace posenc {
namespace POSENC_NS {

const sphere_kernels_t* sphere_kernels() {
  static const sphere_kernels_t table = {
      &sphere_scratch_doubles, &sphere_legendre_f64, &sphere_legendre_f32, &sphere_sh_real_f64,
      &sphere_sh_real_f32,     &sphere_legendre_poly_f64, &sphere_legendre_sum_f64, &sphere_rotate_f64,
      &sphere_xyz_bad_f64,     &sphere_xyz_bad_f32,
  };
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
