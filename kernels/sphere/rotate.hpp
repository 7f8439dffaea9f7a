// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/rotate.hpp — block-diagonal rotation of real SH coefficient vectors (the
// Wigner-D blocks come from lib/sphere.cpp's Ivanic & Ruedenberg recurrence).
#pragma once

#include "kernels/sphere/common.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// out[i, block l] = D_l coeffs[i, block l], vectorized over the output index of a block;
/// dt = D_l^T blocks concatenated.
inline void rotate(int32_t lmax, const double* dt, const double* coeffs, int64_t n, double* out) {
  const int64_t K = (static_cast<int64_t>(lmax) + 1) * (static_cast<int64_t>(lmax) + 1);
  for (int64_t i = 0; i < n; ++i) {
    const double* c = coeffs + i * K;
    double* o = out + i * K;
    const double* d = dt;
    int64_t off = 0;
    for (int32_t l = 0; l <= lmax; ++l) {
      const int64_t dl = 2 * static_cast<int64_t>(l) + 1;
      for (int64_t a0 = 0; a0 < dl; a0 += static_cast<int64_t>(2 * W)) {
        const int64_t rem = dl - a0;
        if (rem >= static_cast<int64_t>(2 * W)) {
          V acc0(0.0), acc1(0.0);
          for (int64_t b = 0; b < dl; ++b) {
            const V cb(c[off + b]);
            acc0 = madd(cb, load(d + b * dl + a0), acc0);
            acc1 = madd(cb, load(d + b * dl + a0 + static_cast<int64_t>(W)), acc1);
          }
          stu(o + off + a0, acc0);
          stu(o + off + a0 + static_cast<int64_t>(W), acc1);
        } else {
          for (int64_t a1 = a0; a1 < dl; a1 += static_cast<int64_t>(W)) {
            const std::size_t cnt = static_cast<std::size_t>(dl - a1 < static_cast<int64_t>(W) ? dl - a1 : static_cast<int64_t>(W));
            V acc(0.0);
            for (int64_t b = 0; b < dl; ++b) {
              const V cb(c[off + b]);
              const V dv = (W == 1 || cnt == W) ? load(d + b * dl + a1) : load_partial(d + b * dl + a1, cnt);
              acc = madd(cb, dv, acc);
            }
            if (W == 1 || cnt == W) stu(o + off + a1, acc);
            else store_partial(o + off + a1, acc, cnt);
          }
        }
      }
      d += dl * dl;
      off += dl;
    }
  }
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
