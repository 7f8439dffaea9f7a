// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/check.hpp — the vectorized first pass of the xyz argument check.
#pragma once

#include "kernels/sphere/common.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// 1 if some point of xyz [n, 3] has a non-finite coordinate or is (0, 0, 0), else 0. Branch-free
/// over the flat array of 3n values, W_T values a vector:
/// - non-finite: v * 0 is NaN exactly for inf and NaN, so one FMA a vector accumulates
///   acc = v * 0 + acc, NaN at the end iff some value was non-finite (NaN is absorbing);
/// - zero point: the point starting at element e (e % 3 == 0) is zero iff the bits of v_e, v_e+1,
///   v_e+2 OR to +0 or -0, i.e. to a value that compares equal to 0 (a NaN or denormal pattern
///   does not; unaligned loads at +1 and +2 supply the neighbours); the lanes that start no
///   point are ORed with the bits of 1.0 as well, so one compare with 0 a vector finds them.
///   (No bitwise_andnot: its operand order differs between xsimd 8.1's x86 and NEON kernels.)
/// About 7 operations a vector (an abs / add / compare-and-mask form took about 16, 2.5-4 % of
/// an AVX2 float64 lmax 10 call). Where vx::kHasXyzBad (AVX-512, AVX2), vx::xyz_bad_block
/// instead: one word per block of points from the elements' classes (vfpclass) or compares. Only
/// says whether there is a bad point: lib/sphere.cpp then names the first one with a scalar loop.
template <class T>
inline int xyz_any_bad(const T* p, int64_t n) {
  int r = 0;
  int64_t e = 0;
  if constexpr (vx::kHasXyzBad) {
    // AVX-512: vfpclass gives both classes as masks, 2 operations a vector instead of ~7; AVX2:
    // compares and sign masks (lmax 1 with gradients: the pass was 11-13 % of the call)
    constexpr int64_t WT = static_cast<int64_t>(width<T>);
    const int64_t m = 3 * n;
    uint64_t acc = 0;
    for (; e + 3 * WT <= m; e += 3 * WT) acc |= vx::xyz_bad_block(p + e);
    r = acc != 0 ? 1 : 0;
  } else if constexpr (width<T> > 1) {
    using VT = vec<T>;
    constexpr int64_t WT = static_cast<int64_t>(width<T>);
    const int64_t m = 3 * n;
    alignas(64) T pat[3 * WT];
    for (int64_t k = 0; k < 3 * WT; ++k) pat[k] = k % 3 == 0 ? T(0) : T(1);
    const VT zero(T(0));
    const VT ns[3] = {load(pat), load(pat + WT), load(pat + 2 * WT)};  // lanes that start no point: 1.0
    VT acc[3] = {zero, zero, zero};
    auto bad = zero != zero;
    for (; e + 3 * WT + 2 <= m; e += 3 * WT) {
      const T* q = p + e;
      for (int j = 0; j < 3; ++j) {
        const VT a = load(q + j * WT);
        acc[j] = fma(a, zero, acc[j]);
        const VT o = a | load(q + j * WT + 1) | load(q + j * WT + 2) | ns[j];  // +-0 compares equal to 0
        bad = bad | (o == zero);
      }
    }
    const VT s = acc[0] + acc[1] + acc[2];
    r = any(bad | !(s == zero)) ? 1 : 0;  // !(s == 0): NaN (xsimd's != is ordered on x86)
  }
  for (int64_t i = e / 3; i < n; ++i) {
    const T x = p[3 * i], y = p[3 * i + 1], z = p[3 * i + 2];
    r |= static_cast<int>(!(x * T(0) + y * T(0) + z * T(0) == T(0))) | static_cast<int>(x == T(0) && y == T(0) && z == T(0));
  }
  return r;
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
