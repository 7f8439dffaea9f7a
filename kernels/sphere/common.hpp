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
