// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere_lonlat.cpp — this ISA's geographic-coordinate conversion
// (kernels/sphere/lonlat.hpp; compiled once per ISA, collected by kernels/sphere.cpp).
#include "kernels/sphere/kernels.hpp"
#include "kernels/sphere/lonlat.hpp"

namespace posenc {
namespace POSENC_NS {

void sphere_lonlat_xyz_f64(const double* lonlat, int64_t n, double* xyz) { sph::lonlat_xyz(lonlat, n, xyz); }

}  // namespace POSENC_NS
}  // namespace posenc
