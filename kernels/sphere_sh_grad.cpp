// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere_sh_grad.cpp — this ISA's real SH with Cartesian gradients and Hessians
// (kernels/sphere/sh_grad.hpp; float32 unit-sphere values + gradients kernels/sphere/sh_grad_f32.hpp;
// compiled once per ISA, collected by kernels/sphere.cpp).
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/sh_grad_f32.hpp"

namespace posenc {
namespace POSENC_NS {

int64_t sphere_grad_scratch_doubles(int32_t lmax) { return sph::grad_f32_scratch(lmax); }
void sphere_sh_grad_f64(const sph_grad_plan* P, const double* xyz, int64_t n, double* values, double* grad,
                        double* hess, double* scr) {
  sph::sh_grad_impl(P, xyz, n, values, grad, hess, scr);
}
void sphere_sh_grad_f32(const sph_grad_plan* P, const float* xyz, int64_t n, float* values, float* grad,
                        float* hess, double* scr) {
  sph::sh_grad_f32_impl(P, xyz, n, values, grad, hess, scr);
}

}  // namespace POSENC_NS
}  // namespace posenc
