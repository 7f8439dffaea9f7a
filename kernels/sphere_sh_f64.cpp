// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere_sh_f64.cpp — this ISA's float64 real SH (its own translation unit: the bodies
// compiled per lmax make it the largest of the family).
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/sh_real.hpp"

namespace posenc {
namespace POSENC_NS {

void sphere_sh_real_f64(const sph_plan* P, const double* xyz, int64_t n, double* out, double* scr) {
  sph::sh_real_impl(P, xyz, n, out, scr);
}

}  // namespace POSENC_NS
}  // namespace posenc
