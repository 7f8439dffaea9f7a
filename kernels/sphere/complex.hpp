// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/complex.hpp — the complex SH writers (posenc_sph_harm_complex_f64: SciPy's
// convention with the Condon-Shortley phase). With a = R_l,m and b = R_l,-m (m > 0) of the real
// basis and h = 1 / sqrt 2:
//   Y_l^m = (-1)^m h (a + i b),  Y_l^-m = h (a - i b),  Y_l^0 = R_l,0 + 0 i,
// each value one product of a real value and +-h (the same products on every path):
//   low_complex_features: in registers, for the low-degree kernel (sh_low_body with kCplx: the
//     complex rows written straight from the block's real values, one pass, no buffer);
//   complex_from_real: rows of real values (the general path's tile buffer) to complex rows.
#pragma once

#include "kernels/sphere/common.hpp"
#include "kernels/sphere/lonlat.hpp"  // sph_d2

namespace posenc {
namespace POSENC_NS {
namespace sph {

inline constexpr double kInvSqrt2 = 0.70710678118654752440;

/// The 2K complex feature vectors c (re, im of feature k at c[2k], c[2k + 1]) of the K = (L+1)^2
/// real feature vectors y of a block (feature l (l+1) + m): the map above, every index a
/// constant of the unrolled loop.
template <int L>
__attribute__((always_inline)) inline void low_complex_features(const V* y, V* c) {
  const V h(kInvSqrt2), nh(-kInvSqrt2), zero(0.0);
#pragma GCC unroll 8
  for (int l = 0; l <= L; ++l) {
    const int k0 = l * (l + 1);
    c[2 * k0] = y[k0];
    c[2 * k0 + 1] = zero;
#pragma GCC unroll 8
    for (int m = 1; m <= l; ++m) {
      const V s = (m & 1) ? nh : h;
      c[2 * (k0 + m)] = y[k0 + m] * s;      // (-1)^m h a
      c[2 * (k0 + m) + 1] = y[k0 - m] * s;  // (-1)^m h b
      c[2 * (k0 - m)] = y[k0 + m] * h;      // h a
      c[2 * (k0 - m) + 1] = y[k0 - m] * nh;  // -h b
    }
  }
}

/// out [n, K, 2] from the real SH re [n, K] of the same points, K = (lmax+1)^2, in address order
/// (m = -l .. l; the descending stores of m < 0 between the ascending ones of m > 0 cost 1.35x
/// at lmax 40, where the output streams to memory). Each pair (a, b) is one two-lane vector,
/// multiplied by (h, -h) or ((-1)^m h, (-1)^m h): the same products as low_complex_features.
inline void complex_from_real(int lmax, const double* re, int64_t n, double* out) {
  const int64_t K = int64_t(lmax + 1) * (lmax + 1);
  const double h = kInvSqrt2;
  const sph_d2 hv = {h, -h}, pos = {h, h}, neg = {-h, -h};
  for (int64_t i = 0; i < n; ++i) {
    const double* r = re + i * K;
    double* o = out + 2 * i * K;
    for (int64_t l = 0; l <= lmax; ++l) {
      const int64_t c = l * (l + 1);
      for (int64_t m = l; m >= 1; --m) {
        const sph_d2 p = {r[c + m], r[c - m]}, b = p * hv;
        std::memcpy(o + 2 * (c - m), &b, sizeof b);
      }
      o[2 * c] = r[c];
      o[2 * c + 1] = 0.0;
      for (int64_t m = 1; m <= l; ++m) {
        const sph_d2 p = {r[c + m], r[c - m]}, a = p * ((m & 1) ? neg : pos);
        std::memcpy(o + 2 * (c + m), &a, sizeof a);
      }
    }
  }
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
