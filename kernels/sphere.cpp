// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere.cpp — this ISA's sphere kernel table posenc::POSENC_NS::sphere_kernels() (compiled
// once per ISA by cmake/PosencIsa.cmake): the entry points of kernels/sphere_*.cpp, the scratch
// size and the block sizes and store policy lib/sphere.cpp plans with.
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/sh_grad_f32.hpp"
#include "kernels/sphere/sh_real.hpp"

namespace posenc {
namespace POSENC_NS {

namespace {
int64_t scratch_doubles(int32_t lmax) { return sph::scratch_doubles(lmax); }
}  // namespace

// Filled member by member (a swap of two entries of the same type is visible in review and cannot
// hide behind positions); an entry left out is null and lib/ refuses the table (kernel_table_ok).
constexpr sphere_kernels_t make_sphere_kernels() {
  sphere_kernels_t t{};
  t.scratch_doubles = &scratch_doubles;
  t.sh_tile_points = sph::kSphTilePoints;
  t.tile_points = static_cast<int64_t>(kMaxLanesF64);
  t.stream_min_bytes = sph::kSphStreamMinBytes;
  t.coef_table_doubles = &sphere_coef_table_doubles;
  t.coef_table = &sphere_coef_table;
  t.legendre_f64 = &sphere_legendre_f64;
  t.legendre_f32 = &sphere_legendre_f32;
  t.sh_real_f64 = &sphere_sh_real_f64;
  t.sh_real_f32 = &sphere_sh_real_f32;
  t.legendre_poly_f64 = &sphere_legendre_poly_f64;
  t.legendre_sum_f64 = &sphere_legendre_sum_f64;
  t.rotate_f64 = &sphere_rotate_f64;
  t.xyz_bad_f64 = &sphere_xyz_bad_f64;
  t.xyz_bad_f32 = &sphere_xyz_bad_f32;
  t.grad_scratch_doubles = &sphere_grad_scratch_doubles;
  t.sh_grad_f64 = &sphere_sh_grad_f64;
  t.sh_grad_f32 = &sphere_sh_grad_f32;
  t.grad_f32_lanes_lmax = sph::grad_f32_lanes_lmax();
  t.sh_low_f64 = &sphere_sh_low_f64;
  t.sh_low_f32 = &sphere_sh_low_f32;
  t.lonlat_xyz_f64 = &sphere_lonlat_xyz_f64;
  t.sh_low_lonlat_f64 = &sphere_sh_low_lonlat_f64;
  t.lonlat_bad_f64 = &sphere_lonlat_bad_f64;
  t.thetaphi_xyz_f64 = &sphere_thetaphi_xyz_f64;
  t.sh_low_complex_f64 = &sphere_sh_low_complex_f64;
  t.complex_from_real_f64 = &sphere_complex_from_real_f64;
  return t;
}

const sphere_kernels_t* sphere_kernels() {
  static constexpr sphere_kernels_t table = make_sphere_kernels();
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
