// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere_sh_f32.cpp — this ISA's float32 real SH (float32-native recurrence and the
// float64 one rounded; its own translation unit, as the float64 one).
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/sh_real.hpp"

namespace posenc {
namespace POSENC_NS {

void sphere_sh_real_f32(const sph_plan* P, const float* xyz, int64_t n, float* out, double* scr) {
  sph::sh_real_impl(P, xyz, n, out, scr);
}

}  // namespace POSENC_NS
}  // namespace posenc
