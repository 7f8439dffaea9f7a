// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/common.hpp — what every sphere kernel file shares: the block vector V (W
// points of float64, SIMD across points), unaligned and narrowing row stores, scratch
// alignment. Compiled per ISA: everything lives in posenc::POSENC_NS::sph.
#pragma once

#include "kernels/simd/isa.hpp"
#include "kernels/sphere_table.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// One vector = one quantity of the W points of a block.
using V = vec<double>;
constexpr std::size_t W = width<double>;

/// Unaligned store (never xsimd::store, which ADL would pick for a batch and which is aligned).
template <class T>
inline void stu(T* p, const vec<T>& v) { v.store_unaligned(p); }

/// A row of W output values, as float64 or rounded to float32.
inline void store_row(double* dst, const V& v) { stu(dst, v); }
inline void store_row(float* dst, const V& v) { store_f64_as_f32(dst, v); }
inline void store_row_partial(double* dst, const V& v, std::size_t c) { store_partial(dst, v, c); }
inline void store_row_partial(float* dst, const V& v, std::size_t c) { store_f64_as_f32_partial(dst, v, c); }

/// The scratch pointer rounded up to 64 bytes (scratch_doubles counts the slack): every vector
/// access to scratch is then aligned and never splits a cache line.
inline double* align64(double* p) {
  const std::uintptr_t u = reinterpret_cast<std::uintptr_t>(p);
  return reinterpret_cast<double*>((u + 63u) & ~static_cast<std::uintptr_t>(63u));
}

/// (0, 1, ..., W-1).
inline V iota() {
  alignas(64) double b[W];
  for (std::size_t i = 0; i < W; ++i) b[i] = static_cast<double>(i);
  return load(b);
}

/// cos (m phi) and sin (m phi) of a block for m = 0 .. n-1, into cm[m stride] and sm[m stride]
/// (W lanes each), from c1 = cos phi and s1 = sin phi: e^{i m phi} = (cos phi + i sin phi)^m by
/// complex multiplication, no trig; two chains (even and odd m, each stepping by e^{2 i phi})
/// halve the latency of the recurrence. sm[0] receives s0: sin 0 = 0, or a value that travels in
/// that slot, which no path reads as sin (0 phi).
inline void cos_sin_m_phi(const V& c1, const V& s1, int64_t n, int64_t stride, double* cm, double* sm, const V& s0) {
  const V one(1.0), zero(0.0);
  const V c2 = c1 * c1 - s1 * s1, s2 = (c1 * s1) * V(2.0);
  V ce = one, se = zero, co = c1, so = s1;
  stu(cm, ce);
  stu(sm, s0);
  if (n > 1) {
    stu(cm + stride, co);
    stu(sm + stride, so);
  }
  for (int64_t m = 2; m < n; m += 2) {
    const V cn = ce * c2 - se * s2, sn = ce * s2 + se * c2;
    ce = cn;
    se = sn;
    stu(cm + m * stride, ce);
    stu(sm + m * stride, se);
    if (m + 1 < n) {
      const V cn2 = co * c2 - so * s2, sn2 = co * s2 + so * c2;
      co = cn2;
      so = sn2;
      stu(cm + (m + 1) * stride, co);
      stu(sm + (m + 1) * stride, so);
    }
  }
}

/// One ladder step of the Cartesian derivatives of the solid harmonics (the coefficients cz, al,
/// be of sph_grad_coef at degree l, order m): d/dx, d/dy, d/dz of order +m into dp[0..2] and of
/// order -m into dn[0..2] (not written for m = 0) from the row of degree l - 1, read through
/// at(q) = its value at order q (zero outside the row). Shared by the low-degree kernel and the
/// derivative kernel, so that both give the same bits. VT: V, or vec<float> (the float32 lanes
/// of the low-degree kernel).
template <class At, class I, class VT>
__attribute__((always_inline)) inline void ladder_step(At&& at, I m, const VT& cz, const VT& al, const VT& be, VT* dp,
                                                       VT* dn) {
  const VT zero(0);
  if (m == 0) {
    dp[0] = zero - be * at(1);
    dp[1] = zero - be * at(-1);
    dp[2] = cz * at(0);
  } else if (m == 1) {
    const VT y0 = at(0), ypp = at(2), ymm = at(-2);
    dp[0] = al * y0 - be * ypp;
    dp[1] = zero - be * ymm;
    dp[2] = cz * at(1);
    dn[0] = zero - be * ymm;
    dn[1] = al * y0 + be * ypp;
    dn[2] = cz * at(-1);
  } else {
    const VT ap = at(m - 1), an = at(-(m - 1)), bp = at(m + 1), bn = at(-(m + 1));
    dp[0] = al * ap - be * bp;
    dp[1] = zero - (al * an + be * bn);
    dp[2] = cz * at(m);
    dn[0] = al * an - be * bn;
    dn[1] = al * ap + be * bp;
    dn[2] = cz * at(-m);
  }
}

/// Loads x[p0 + i], i < np, as doubles into dst[0..W), `pad` in the lanes past np.
template <class TI>
inline void load_block(const TI* src, int64_t p0, std::size_t np, double* dst, double pad) {
  for (std::size_t i = 0; i < W; ++i) dst[i] = i < np ? static_cast<double>(src[p0 + static_cast<int64_t>(i)]) : pad;
}

/// Points in block p0 of n (W, or fewer in the last block).
inline std::size_t block_points(int64_t n, int64_t p0) {
  return static_cast<std::size_t>(n - p0 < static_cast<int64_t>(W) ? n - p0 : static_cast<int64_t>(W));
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
