// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere_legendre.cpp — this ISA's Legendre kernels (associated Legendre functions,
// polynomials, Clenshaw sum), the rotation of SH coefficients and the xyz check (compiled once
// per ISA by cmake/PosencIsa.cmake; collected by kernels/sphere.cpp).
#include "kernels/sphere/check.hpp"
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/legendre.hpp"
#include "kernels/sphere/rotate.hpp"

namespace posenc {
namespace POSENC_NS {

int64_t sphere_coef_table_doubles(int32_t lmax) { return sph::coef_table_size(lmax); }
void sphere_coef_table(int32_t kind, int32_t lmax, double* ab) { sph::coef_table(kind, lmax, ab); }
void sphere_legendre_f64(const sph_plan* P, const double* x, int64_t n, double* out, double* scr) {
  sph::legendre_impl(P, x, n, out, scr);
}
void sphere_legendre_f32(const sph_plan* P, const float* x, int64_t n, float* out, double* scr) {
  sph::legendre_impl(P, x, n, out, scr);
}
void sphere_legendre_poly_f64(int32_t lmax, const double* x, int64_t n, double* out, double* scr) {
  sph::legendre_poly(lmax, x, n, out, scr);
}
void sphere_legendre_sum_f64(int32_t lmax, const double* c, const double* alpha, const double* beta, const double* x,
                             int64_t n, double* out) {
  sph::legendre_sum(lmax, c, alpha, beta, x, n, out);
}
void sphere_rotate_f64(int32_t lmax, const double* dt, const double* coeffs, int64_t n, double* out) {
  sph::rotate(lmax, dt, coeffs, n, out);
}
int sphere_xyz_bad_f64(const double* xyz, int64_t n) { return sph::xyz_any_bad(xyz, n); }
int sphere_xyz_bad_f32(const float* xyz, int64_t n) { return sph::xyz_any_bad(xyz, n); }

}  // namespace POSENC_NS
}  // namespace posenc
