// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere_sh_low.cpp — this ISA's low-degree real SH and gradients
// (kernels/sphere/sh_low.hpp; compiled once per ISA, collected by kernels/sphere.cpp).
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/sh_low_f32.hpp"

namespace posenc {
namespace POSENC_NS {

void sphere_sh_low_f64(const sph_grad_plan* P, const double* xyz, int64_t n, double* values, double* grad) {
  sph::sh_low_impl(P, xyz, n, values, grad);
}
void sphere_sh_low_f32(const sph_grad_plan* P, const float* xyz, int64_t n, float* values, float* grad) {
  sph::sh_low_f32_impl(P, xyz, n, values, grad);
}

}  // namespace POSENC_NS
}  // namespace posenc
