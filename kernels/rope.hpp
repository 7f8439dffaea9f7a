// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/rope.hpp — S¹ kernels (sinusoidal tables; RoPE cos/sin generation, decay). The rotation
// of Q/K (apply) is in kernels/rope_apply.hpp.
// Compiled per ISA: everything lives in posenc::POSENC_NS (see kernels/simd.hpp).
//
// cos/sin generation (sinusoidal, cos_sin, apply): vectorized across frequencies, rows inner.
// An "anchor" row gets sin/cos of its exactly reduced phase (kernels/phase.hpp); the next row,
// when its position is the previous one + 1, is one angle-addition step in float64:
//   c' = c cos w - s sin w,  s' = s cos w + c sin w,
// with (cos w, sin w) themselves from the exact phase. Anchors are re-taken at every tile start,
// at every break in the run, and at every position that is a multiple of kRopeAnchorEvery (16),
// so at most 15 steps separate a value from an exact anchor: the float64 error stays below
// ~1e-14, far under the float32 rounding of the outputs.
#pragma once

#include "kernels/phase.hpp"
#include "kernels/rope_table.hpp"

namespace posenc {
namespace POSENC_NS {

// ------------------------------------------------------------------------------------------
// cos/sin row generator
// ------------------------------------------------------------------------------------------
inline int64_t rope_pos(const int64_t* positions, int64_t i) { return positions ? positions[i] : i; }

inline bool rope_is_anchor(const int64_t* positions, int64_t i, int64_t r0) {
  if (i == r0) return true;
  const uint64_t p = static_cast<uint64_t>(rope_pos(positions, i));
  const uint64_t pp = static_cast<uint64_t>(rope_pos(positions, i - 1));
  return p != pp + 1u || (p & static_cast<uint64_t>(kRopeAnchorEvery - 1)) == 0u;
}

/// Calls store(i, j, cnt, c, s) for every row i in [r0, r1) and frequency block j (cnt valid
/// lanes) with c, s = cos/sin(position_i * w_j) in float64.
template <class Store>
inline void rope_gen_rows(const int64_t* positions, int64_t r0, int64_t r1, int32_t half, const double* wh,
                          const double* wl, Store&& store) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const std::size_t h = static_cast<std::size_t>(half);
  for (std::size_t j = 0; j < h; j += W) {
    const V vh = load(wh + j), vl = load(wl + j);
    V sw, cw;
    sincos_phase(V(1.0), vh, vl, sw, cw);
    const V msw = -sw;
    const std::size_t cnt = h - j < W ? h - j : W;
    V c(0.0), s(0.0);
    for (int64_t i = r0; i < r1; ++i) {
      if (rope_is_anchor(positions, i, r0)) {
        sincos_phase(V(static_cast<double>(rope_pos(positions, i))), vh, vl, s, c);
      } else {
        const V cn = madd(s, msw, c * cw);
        s = madd(s, cw, c * sw);
        c = cn;
      }
      store(i, j, cnt, c, s);
    }
  }
}

/// Position of token i for frequency lanes [j, j + W): broadcast for one axis, else gathered
/// through pos->axis_of into lanepos (scratch, >= pad(half) doubles) once per row.
/// Calls store(i, j, cnt, c, s) for every row i in [r0, r1) and frequency block j with the exact
/// phase at every row: c, s = cos/sin(position * w_j), or of position * (w_j - w_from_j) for a
/// re-rotation (f->wh_from set; the two phases are reduced exactly, then subtracted).
template <class Store>
inline void rope_gen_rows_exact(const rope_pos_t* pos, int64_t r0, int64_t r1, const rope_freqs_t* f,
                                double* lanepos, Store&& store) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const std::size_t h = static_cast<std::size_t>(f->half);
  const int32_t na = pos->naxes;
  for (int64_t i = r0; i < r1; ++i) {
    V pb(0.0);
    if (na == 1) {
      pb = V(static_cast<double>(pos->p ? pos->p[i * pos->token_stride] : i));
    } else {
      double pa[4];
      for (int32_t a = 0; a < na; ++a) pa[a] = static_cast<double>(pos->p[a * pos->axis_stride + i * pos->token_stride]);
      for (std::size_t j = 0; j < h; ++j) lanepos[j] = pa[pos->axis_of[j]];
      for (std::size_t j = h; j % W != 0; ++j) lanepos[j] = 0.0;  // lanes past half: defined, discarded
    }
    for (std::size_t j = 0; j < h; j += W) {
      const V p = na == 1 ? pb : load(lanepos + j);
      V r = phase_turns(p, load(f->wh + j), load(f->wl + j));
      if (f->wh_from != nullptr) {
        r = r - phase_turns(p, load(f->wh_from + j), load(f->wl_from + j));
        r = r - nearbyint(r);
      }
      V s, c;
      sincos_turns_reduced(r, s, c);
      store(i, j, h - j < W ? h - j : W, c, s);
    }
  }
}

/// Dispatches to the anchored recurrence (one axis, no re-rotation) or the exact generator.
template <class Store>
inline void rope_gen(const rope_pos_t* pos, int64_t r0, int64_t r1, const rope_freqs_t* f, double* lanepos,
                     Store&& store) {
  if (pos->naxes == 1 && f->wh_from == nullptr)
    rope_gen_rows(pos->p, r0, r1, f->half, f->wh, f->wl, store);
  else
    rope_gen_rows_exact(pos, r0, r1, f, lanepos, store);
}

/// See rope_kernels_t::sinusoidal_rows.
inline void sinusoidal_rows(const int64_t* positions, int64_t row_begin, int64_t row_end, int32_t half,
                            const double* wh, const double* wl, int layout, float* out) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const std::size_t h = static_cast<std::size_t>(half);
  const std::size_t row_len = 2 * h;
  rope_gen_rows(positions, row_begin, row_end, half, wh, wl,
                [&](int64_t i, std::size_t j, std::size_t cnt, const V& c, const V& s) {
                  float* row = out + static_cast<std::size_t>(i) * row_len;
                  if (layout == 0) {  // interleaved: sin at 2j, cos at 2j+1
                    if (cnt == W) store_f64_as_f32_interleaved(row + 2 * j, s, c);
                    else store_f64_as_f32_interleaved_partial(row + 2 * j, s, c, cnt);
                  } else {  // halves: [sin | cos]
                    if (cnt == W) {
                      store_f64_as_f32(row + j, s);
                      store_f64_as_f32(row + h + j, c);
                    } else {
                      store_f64_as_f32_partial(row + j, s, cnt);
                      store_f64_as_f32_partial(row + h + j, c, cnt);
                    }
                  }
                });
}

/// See rope_kernels_t::cos_sin_rows.
inline void cos_sin_rows(const rope_pos_t* pos, int64_t r0, int64_t r1, const rope_freqs_t* f, float* cos_out,
                         float* sin_out, double* scratch) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const std::size_t h = static_cast<std::size_t>(f->half);
  const V scale(f->scale);
  rope_gen(pos, r0, r1, f, scratch, [&](int64_t i, std::size_t j, std::size_t cnt, const V& c, const V& s) {
    const std::size_t o = static_cast<std::size_t>(i) * h + j;
    if (cnt == W) {
      store_f64_as_f32(cos_out + o, c * scale);
      store_f64_as_f32(sin_out + o, s * scale);
    } else {
      store_f64_as_f32_partial(cos_out + o, c * scale, cnt);
      store_f64_as_f32_partial(sin_out + o, s * scale, cnt);
    }
  });
}

// ------------------------------------------------------------------------------------------
// Long-range decay
// ------------------------------------------------------------------------------------------
/// x*y - z, fused where the ISA has FMA.
template <class V> inline V msub(const V& x, const V& y, const V& z) {
  if constexpr (kHasFma) {
    return fma(x, y, -z);
  } else {
    return x * y - z;
  }
}

/// acc += c[0] + ... + c[G-1] (pairwise tree; G = 4 or 8).
template <std::size_t G, class V>
inline void decay_add_row(double* acc, const V (&c)[G]) {
  V t;
  if constexpr (G == 8) {
    t = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
  } else {
    static_assert(G == 4, "G must be 4 or 8");
    t = (c[0] + c[1]) + (c[2] + c[3]);
  }
  (load(acc) + t).store_unaligned(acc);
}

/// f only (no bound): per group of G frequency vectors, exact anchors cos(n0 w), cos(n1 w) and
/// the exact step cosine, then the Chebyshev recurrence c_{k+1} = 2 cos(step w) c_k - c_{k-1}
/// (one FMA per term). Its error after k steps is at most ~eps k^2 / 2 per term (|U_k| <= k+1),
/// 3e-11 for a 512-row tile.
template <std::size_t G>
inline void decay_cos_rows(const double* wh, const double* wl, int32_t nf, int64_t n_begin, int64_t n_step, int64_t r0,
                           int64_t r1, double* f) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const int64_t T = r1 - r0;
  alignas(64) double acc[kRopeDecayTile * W];
  for (int64_t i = 0; i < T; ++i) V(0.0).store_unaligned(acc + i * W);
  const V vn0(static_cast<double>(n_begin + r0 * n_step));
  const V vns(static_cast<double>(n_step));
  const std::size_t n = static_cast<std::size_t>(nf);
  alignas(64) double mask[W];
  for (std::size_t j = 0; j < n; j += G * W) {
    V cp[G], c[G], tw[G];
    for (std::size_t g = 0; g < G; ++g) {
      const std::size_t jg = j + g * W;
      const V vh = load(wh + jg), vl = load(wl + jg);
      V s0, sw, cw;
      sincos_phase(vn0, vh, vl, s0, cp[g]);
      sincos_phase(vns, vh, vl, sw, cw);
      c[g] = msub(cp[g], cw, s0 * sw);  // cos(n1 w): one angle-addition step from the anchor
      tw[g] = cw + cw;
      if (jg + W > n) {  // lanes past nf contribute exactly 0 (the recurrence keeps zeros)
        for (std::size_t k = 0; k < W; ++k) mask[k] = jg + k < n ? 1.0 : 0.0;
        const V m = load(mask);
        cp[g] = cp[g] * m;
        c[g] = c[g] * m;
      }
    }
    // Two steps per iteration so that no register moves are needed: cp and c alternate as the
    // older value (overwritten by the next one) and the newer.
    decay_add_row<G>(acc + 0 * W, cp);
    if (T > 1) decay_add_row<G>(acc + 1 * W, c);
    int64_t i = 2;
    for (; i + 1 < T; i += 2) {
      for (std::size_t g = 0; g < G; ++g) cp[g] = msub(tw[g], c[g], cp[g]);
      decay_add_row<G>(acc + i * W, cp);
      for (std::size_t g = 0; g < G; ++g) c[g] = msub(tw[g], cp[g], c[g]);
      decay_add_row<G>(acc + (i + 1) * W, c);
    }
    if (i < T) {
      for (std::size_t g = 0; g < G; ++g) cp[g] = msub(tw[g], c[g], cp[g]);
      decay_add_row<G>(acc + i * W, cp);
    }
  }
  for (int64_t i = 0; i < T; ++i) {
    double sum = 0.0;
    for (std::size_t k = 0; k < W; ++k) sum += acc[i * W + k];
    f[r0 + i] = sum;
  }
}

/// f and the bound: vectorized across rows (lanes = W consecutive n), frequencies in order in
/// the outer loop, so that the prefix sums S_j(n) run along j in every lane at once. For each
/// frequency: exact anchors for the first W rows, then a rotation by W*n_step*w (formed from
/// the exact single-step rotation by W-1 angle additions) from one row block to the next.
inline void decay_bound_rows(const double* wh, const double* wl, int32_t nf, int64_t n_begin, int64_t n_step,
                             int64_t r0, int64_t r1, double* f, double* bound) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const int64_t T = r1 - r0;
  const int64_t blocks = (T + static_cast<int64_t>(W) - 1) / static_cast<int64_t>(W);
  alignas(64) double re[kRopeDecayTile], im[kRopeDecayTile], bs[kRopeDecayTile], fs[kRopeDecayTile];
  alignas(64) double nl[W];
  for (int64_t i = 0; i < blocks * static_cast<int64_t>(W); ++i) re[i] = im[i] = bs[i] = fs[i] = 0.0;
  for (std::size_t k = 0; k < W; ++k) {  // lanes past the tile repeat its last row (discarded)
    const int64_t row = r0 + static_cast<int64_t>(k) < r1 ? r0 + static_cast<int64_t>(k) : r1 - 1;
    nl[k] = static_cast<double>(n_begin + row * n_step);
  }
  const V vn(load(nl));
  const V vns(static_cast<double>(n_step));
  for (int32_t j = 0; j < nf; ++j) {
    const V vh(wh[j]), vl(wl[j]);
    V c, s, c1, s1;
    sincos_phase(vn, vh, vl, s, c);
    sincos_phase(vns, vh, vl, s1, c1);
    V cw = c1, sw = s1;  // rotation by W * n_step * w
    for (std::size_t k = 1; k < W; ++k) {
      const V cn = madd(-sw, s1, cw * c1);
      sw = madd(sw, c1, cw * s1);
      cw = cn;
    }
    const V msw = -sw;
    for (int64_t b = 0; b < blocks; ++b) {
      double* pr = re + b * W;
      double* pi = im + b * W;
      const V r = load(pr) + c, m = load(pi) + s;
      r.store_unaligned(pr);
      m.store_unaligned(pi);
      (load(bs + b * W) + sqrt(madd(r, r, m * m))).store_unaligned(bs + b * W);
      (load(fs + b * W) + c).store_unaligned(fs + b * W);
      const V cn = madd(s, msw, c * cw);
      s = madd(s, cw, c * sw);
      c = cn;
    }
  }
  for (int64_t i = 0; i < T; ++i) {
    f[r0 + i] = fs[i];
    bound[r0 + i] = bs[i] / static_cast<double>(nf);
  }
}

/// See rope_kernels_t::decay_rows: f alone by decay_cos_rows, f with the bound by
/// decay_bound_rows.
inline void decay_rows(const double* wh, const double* wl, int32_t nf, int64_t n_begin, int64_t n_step, int64_t r0,
                       int64_t r1, double* f, double* bound) {
  constexpr std::size_t W = width<double>;
  if (bound == nullptr) {
    // 8 independent chains where there are 32 registers (AVX-512), else 4.
    decay_cos_rows<(W >= 8 ? 8 : 4)>(wh, wl, nf, n_begin, n_step, r0, r1, f);
  } else {
    decay_bound_rows(wh, wl, nf, n_begin, n_step, r0, r1, f, bound);
  }
}

}  // namespace POSENC_NS
}  // namespace posenc
