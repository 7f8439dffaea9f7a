// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/kernels.hpp — the sphere family's kernel entry points of one ISA
// (posenc::POSENC_NS), each defined in one of the kernels/sphere_*.cpp translation units and
// collected into the table by kernels/sphere.cpp. Signatures and contracts: kernels/sphere_table.hpp.
#pragma once

#include "kernels/sphere_table.hpp"

#include <cstdint>

namespace posenc {
namespace POSENC_NS {

// kernels/sphere_legendre.cpp
int64_t sphere_coef_table_doubles(int32_t lmax);
void sphere_coef_table(int32_t kind, int32_t lmax, double* ab);
void sphere_legendre_f64(const sph_plan* P, const double* x, int64_t n, double* out, double* scr);
void sphere_legendre_f32(const sph_plan* P, const float* x, int64_t n, float* out, double* scr);
void sphere_legendre_poly_f64(int32_t lmax, const double* x, int64_t n, double* out, double* scr);
void sphere_legendre_sum_f64(int32_t lmax, const double* c, const double* alpha, const double* beta, const double* x,
                             int64_t n, double* out);
void sphere_rotate_f64(int32_t lmax, const double* dt, const double* coeffs, int64_t n, double* out);
int sphere_xyz_bad_f64(const double* xyz, int64_t n);
int sphere_xyz_bad_f32(const float* xyz, int64_t n);
// kernels/sphere_sh_f64.cpp, kernels/sphere_sh_f32.cpp
void sphere_sh_real_f64(const sph_plan* P, const double* xyz, int64_t n, double* out, double* scr);
void sphere_sh_real_f32(const sph_plan* P, const float* xyz, int64_t n, float* out, double* scr);
// kernels/sphere_sh_grad.cpp
int64_t sphere_grad_scratch_doubles(int32_t lmax);
void sphere_sh_grad_f64(const sph_grad_plan* P, const double* xyz, int64_t n, double* values, double* grad,
                        double* hess, double* scr);
void sphere_sh_grad_f32(const sph_grad_plan* P, const float* xyz, int64_t n, float* values, float* grad,
                        float* hess, double* scr);
// kernels/sphere_sh_low.cpp
void sphere_sh_low_f64(const sph_grad_plan* P, const double* xyz, int64_t n, double* values, double* grad);
void sphere_sh_low_f32(const sph_grad_plan* P, const float* xyz, int64_t n, float* values, float* grad);
// kernels/sphere_lonlat.cpp
void sphere_lonlat_xyz_f64(const double* lonlat, int64_t n, double* xyz);
void sphere_sh_low_lonlat_f64(const sph_grad_plan* P, const double* lonlat, int64_t n, double* values);
int sphere_lonlat_bad_f64(const double* lonlat, int64_t n);
void sphere_thetaphi_xyz_f64(const double* theta, const double* phi, int64_t n, double* xyz);
void sphere_sh_low_complex_f64(const sph_grad_plan* P, const double* theta, const double* phi, int64_t n,
                               double* out);
void sphere_complex_from_real_f64(int lmax, const double* re, int64_t n, double* out);

}  // namespace POSENC_NS
}  // namespace posenc
