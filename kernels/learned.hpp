// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/learned.hpp — learned position tables: lookup-add, deterministic gradient scatter, and
// the separable resampling pass. Compiled per ISA: everything lives in posenc::POSENC_NS (see
// kernels/simd.hpp). All three kernels are vectorized over the channel dimension, with a partial
// load/store for the tail, so any dim and any (element-aligned) pointer work.
#pragma once

#include "kernels/learned_table.hpp"
#include "kernels/simd.hpp"

namespace posenc {
namespace POSENC_NS {

/// Unaligned store. (An unqualified `store(p, batch)` would find xsimd::store by ADL, which is
/// an ALIGNED store and more specialized than simd.hpp's store: never call it unqualified.)
template <class V> inline void storeu(typename V::value_type* p, const V& v) { v.store_unaligned(p); }

/// See learned_kernels_t::add_rows.
inline void learned_add_rows(const float* table, int32_t dim, const int64_t* positions, int64_t row_begin,
                             int64_t row_end, float* x) {
  using V = vec<float>;
  constexpr std::size_t W = width<float>;
  const std::size_t d = static_cast<std::size_t>(dim);
  for (int64_t i = row_begin; i < row_end; ++i) {
    const float* src = table + static_cast<std::size_t>(positions[i]) * d;
    float* dst = x + static_cast<std::size_t>(i) * d;
    std::size_t c = 0;
    for (; c + 4 * W <= d; c += 4 * W) {
      const V a0 = load(dst + c) + load(src + c);
      const V a1 = load(dst + c + W) + load(src + c + W);
      const V a2 = load(dst + c + 2 * W) + load(src + c + 2 * W);
      const V a3 = load(dst + c + 3 * W) + load(src + c + 3 * W);
      storeu(dst + c, a0);
      storeu(dst + c + W, a1);
      storeu(dst + c + 2 * W, a2);
      storeu(dst + c + 3 * W, a3);
    }
    for (; c + W <= d; c += W) storeu(dst + c, V(load(dst + c) + load(src + c)));
    if (c < d) {
      const std::size_t r = d - c;
      store_partial(dst + c, V(load_partial(dst + c, r) + load_partial(src + c, r)), r);
    }
  }
}

/// See learned_kernels_t::scatter_rows. Each channel block of a touched row is held in
/// registers while the contributions of that row are added in order.
inline void learned_scatter_rows(const float* grad_x, int32_t dim, const int64_t* urows, const int64_t* offsets,
                                 const int64_t* order, int64_t u_begin, int64_t u_end, float* grad_table) {
  using V = vec<float>;
  constexpr std::size_t W = width<float>;
  const std::size_t d = static_cast<std::size_t>(dim);
  for (int64_t u = u_begin; u < u_end; ++u) {
    float* g = grad_table + static_cast<std::size_t>(urows[u]) * d;
    const int64_t e0 = offsets[u], e1 = offsets[u + 1];
    std::size_t c = 0;
    for (; c + 4 * W <= d; c += 4 * W) {
      V a0 = load(g + c), a1 = load(g + c + W), a2 = load(g + c + 2 * W), a3 = load(g + c + 3 * W);
      for (int64_t e = e0; e < e1; ++e) {
        const float* s = grad_x + static_cast<std::size_t>(order[e]) * d + c;
        a0 += load(s);
        a1 += load(s + W);
        a2 += load(s + 2 * W);
        a3 += load(s + 3 * W);
      }
      storeu(g + c, a0);
      storeu(g + c + W, a1);
      storeu(g + c + 2 * W, a2);
      storeu(g + c + 3 * W, a3);
    }
    for (; c + W <= d; c += W) {
      V a = load(g + c);
      for (int64_t e = e0; e < e1; ++e) a += load(grad_x + static_cast<std::size_t>(order[e]) * d + c);
      storeu(g + c, a);
    }
    if (c < d) {
      const std::size_t r = d - c;
      V a = load_partial(g + c, r);
      for (int64_t e = e0; e < e1; ++e) a += load_partial(grad_x + static_cast<std::size_t>(order[e]) * d + c, r);
      store_partial(g + c, a, r);
    }
  }
}

/// See learned_kernels_t::resample_pass.
inline void learned_resample_pass(const float* src, int64_t len, const int64_t* idx, const float* w,
                                  const int32_t* ntaps, int32_t max_taps, int64_t item_begin, int64_t item_end,
                                  int64_t c_begin, int64_t c_end, float* out) {
  using V = vec<float>;
  constexpr std::size_t W = width<float>;
  const std::size_t L = static_cast<std::size_t>(len);
  const std::size_t c1 = static_cast<std::size_t>(c_end);
  for (int64_t j = item_begin; j < item_end; ++j) {
    const int64_t* ij = idx + static_cast<std::size_t>(j) * static_cast<std::size_t>(max_taps);
    const float* wj = w + static_cast<std::size_t>(j) * static_cast<std::size_t>(max_taps);
    const int32_t nt = ntaps[j];
    float* o = out + static_cast<std::size_t>(j) * L;
    std::size_t c = static_cast<std::size_t>(c_begin);
    for (; c + 4 * W <= c1; c += 4 * W) {
      V a0(0.0f), a1(0.0f), a2(0.0f), a3(0.0f);
      for (int32_t k = 0; k < nt; ++k) {
        const V wk(wj[k]);
        const float* s = src + static_cast<std::size_t>(ij[k]) * L + c;
        a0 = madd(wk, load(s), a0);
        a1 = madd(wk, load(s + W), a1);
        a2 = madd(wk, load(s + 2 * W), a2);
        a3 = madd(wk, load(s + 3 * W), a3);
      }
      storeu(o + c, a0);
      storeu(o + c + W, a1);
      storeu(o + c + 2 * W, a2);
      storeu(o + c + 3 * W, a3);
    }
    for (; c + W <= c1; c += W) {
      V a(0.0f);
      for (int32_t k = 0; k < nt; ++k) a = madd(V(wj[k]), load(src + static_cast<std::size_t>(ij[k]) * L + c), a);
      storeu(o + c, a);
    }
    if (c < c1) {
      const std::size_t r = c1 - c;
      V a(0.0f);
      for (int32_t k = 0; k < nt; ++k)
        a = madd(V(wj[k]), load_partial(src + static_cast<std::size_t>(ij[k]) * L + c, r), a);
      store_partial(o + c, a, r);
    }
  }
}

}  // namespace POSENC_NS
}  // namespace posenc
