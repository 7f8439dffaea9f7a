// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere_lonlat.cpp — this ISA's geographic-coordinate front end: conversion to unit
// vectors, the low-degree real SH straight from lon / lat, the argument check's first pass, and
// the complex entry point's (theta, phi) in radians to unit vectors and its writers
// (kernels/sphere/lonlat.hpp, sh_low.hpp, complex.hpp; compiled once per ISA, collected by
// kernels/sphere.cpp).
#include "kernels/sphere/complex.hpp"
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/lonlat.hpp"
#include "kernels/sphere/sh_low.hpp"

namespace posenc {
namespace POSENC_NS {

void sphere_lonlat_xyz_f64(const double* lonlat, int64_t n, double* xyz) { sph::lonlat_xyz(lonlat, n, xyz); }

// Values only, unit sphere: the one body per degree the lon / lat entry point calls.
void sphere_sh_low_lonlat_f64(const sph_grad_plan* P, const double* lonlat, int64_t n, double* values) {
  static_assert(kSphLowLmax == 3, "one case per degree below");
  const sph::lonlat_source src{lonlat};
  double* const none = nullptr;
  switch (P->lmax) {
    case 0: sph::sh_low_body<0, false, false>(P, src, n, values, none); break;
    case 1: sph::sh_low_body<1, false, false>(P, src, n, values, none); break;
    case 2: sph::sh_low_body<2, false, false>(P, src, n, values, none); break;
    default: sph::sh_low_body<3, false, false>(P, src, n, values, none); break;
  }
}

int sphere_lonlat_bad_f64(const double* lonlat, int64_t n) { return sph::lonlat_any_bad(lonlat, n); }

void sphere_thetaphi_xyz_f64(const double* theta, const double* phi, int64_t n, double* xyz) {
  sph::thetaphi_xyz(theta, phi, n, xyz);
}

void sphere_sh_low_complex_f64(const sph_grad_plan* P, const double* theta, const double* phi, int64_t n, double* out) {
  sph::sh_low_complex_src(P, sph::thetaphi_source{theta, phi}, n, out);
}

void sphere_complex_from_real_f64(int lmax, const double* re, int64_t n, double* out) {
  sph::complex_from_real(lmax, re, n, out);
}

}  // namespace POSENC_NS
}  // namespace posenc
