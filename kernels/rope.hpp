// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/rope.hpp — S¹ kernels (sinusoidal tables; RoPE cos/sin, rotation, decay).
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

/// Writes scale*cos / scale*sin of rows [r0, r1) at cos_out/sin_out + (i - out_row0) * half.
inline void rope_cos_sin_to(const int64_t* positions, int64_t r0, int64_t r1, const rope_freqs_t* f,
                            int64_t out_row0, float* cos_out, float* sin_out) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const std::size_t h = static_cast<std::size_t>(f->half);
  const V scale(f->scale);
  rope_gen_rows(positions, r0, r1, f->half, f->wh, f->wl,
                [&](int64_t i, std::size_t j, std::size_t cnt, const V& c, const V& s) {
                  const std::size_t o = static_cast<std::size_t>(i - out_row0) * h + j;
                  if (cnt == W) {
                    store_f64_as_f32(cos_out + o, c * scale);
                    store_f64_as_f32(sin_out + o, s * scale);
                  } else {
                    store_f64_as_f32_partial(cos_out + o, c * scale, cnt);
                    store_f64_as_f32_partial(sin_out + o, s * scale, cnt);
                  }
                });
}

/// See rope_kernels_t::cos_sin_rows.
inline void cos_sin_rows(const int64_t* positions, int64_t r0, int64_t r1, const rope_freqs_t* f, float* cos_out,
                         float* sin_out) {
  rope_cos_sin_to(positions, r0, r1, f, 0, cos_out, sin_out);
}

// ------------------------------------------------------------------------------------------
// bf16 <-> f32 (bf16 = upper 16 bits of an IEEE float32; stores round to nearest even, NaN stays
// a quiet NaN)
// ------------------------------------------------------------------------------------------
inline float bf16_to_f32(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u | 0x00400000u) >> 16);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline vec<float> load_as_f32(const float* p) { return load(p); }
// Note: never call store(p, batch) unqualified here: ADL also finds xsimd::store, which is the
// ALIGNED store and wins overload resolution. Use .store_unaligned().
inline void store_from_f32(float* p, const vec<float>& v) { v.store_unaligned(p); }

inline vec<float> load_as_f32(const uint16_t* p) {
#if defined(POSENC_ISA_SCALAR)
  return vec<float>(bf16_to_f32(*p));
#elif defined(POSENC_ISA_AVX2)
  const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return vec<float>(_mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
#elif defined(POSENC_ISA_AVX512)
  const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  return vec<float>(_mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
#elif defined(POSENC_ISA_NEON)
  return vec<float>(vreinterpretq_f32_u32(vshlq_n_u32(vmovl_u16(vld1_u16(p)), 16)));
#endif
}

inline void store_from_f32(uint16_t* p, const vec<float>& v) {
#if defined(POSENC_ISA_SCALAR)
  *p = f32_to_bf16(v.v);
#elif defined(POSENC_ISA_AVX2)
  const __m256 x = v;
  const __m256i u = _mm256_castps_si256(x);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
  const __m256i qn = _mm256_or_si256(u, _mm256_set1_epi32(0x00400000));
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  r = _mm256_srli_epi32(_mm256_blendv_epi8(r, qn, nan), 16);
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0xD8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
#elif defined(POSENC_ISA_AVX512)
  const __m512 x = v;
  const __m512i u = _mm512_castps_si512(x);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
  const __m512i qn = _mm512_or_si512(u, _mm512_set1_epi32(0x00400000));
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  r = _mm512_srli_epi32(_mm512_mask_mov_epi32(r, nan, qn), 16);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(r));
#elif defined(POSENC_ISA_NEON)
  const float32x4_t x = v;
  const uint32x4_t u = vreinterpretq_u32_f32(x);
  const uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
  uint32x4_t r = vaddq_u32(u, vaddq_u32(lsb, vdupq_n_u32(0x7fff)));
  const uint32x4_t qn = vorrq_u32(u, vdupq_n_u32(0x00400000));
  const uint32x4_t ok = vceqq_f32(x, x);  // all ones where not NaN
  r = vbslq_u32(ok, r, qn);
  vst1_u16(p, vshrn_n_u32(r, 16));
#endif
}

inline float elem_to_f32(float x) { return x; }
inline float elem_to_f32(uint16_t x) { return bf16_to_f32(x); }
inline void elem_from_f32(float* p, float x) { *p = x; }
inline void elem_from_f32(uint16_t* p, float x) { *p = f32_to_bf16(x); }

template <class E>
inline vec<float> load_as_f32_partial(const E* p, std::size_t cnt) {
  alignas(64) float buf[width<float>] = {};
  for (std::size_t k = 0; k < cnt; ++k) buf[k] = elem_to_f32(p[k]);
  return load(buf);
}
template <class E>
inline void store_from_f32_partial(E* p, const vec<float>& v, std::size_t cnt) {
  alignas(64) float buf[width<float>];
  v.store_unaligned(buf);
  for (std::size_t k = 0; k < cnt; ++k) elem_from_f32(p + k, buf[k]);
}

/// Swaps adjacent float lanes (0<->1, 2<->3, ...). Not defined for the one-lane scalar path.
inline vec<float> swap_pairs(const vec<float>& v) {
#if defined(POSENC_ISA_AVX2)
  return vec<float>(_mm256_permute_ps(static_cast<__m256>(v), 0xB1));
#elif defined(POSENC_ISA_AVX512)
  return vec<float>(_mm512_permute_ps(static_cast<__m512>(v), 0xB1));
#elif defined(POSENC_ISA_NEON)
  return vec<float>(vrev64q_f32(static_cast<float32x4_t>(v)));
#else
  return v;
#endif
}

// ------------------------------------------------------------------------------------------
// Rotation of one token's heads
// ------------------------------------------------------------------------------------------
/// Rotates the first rotary_dim channels of `heads` consecutive heads starting at x.
/// NEOX: cp/sp are [half] cos and (signed) sin. INTERLEAVED: cp/sp are [rotary_dim] with
/// cp[2j] = cp[2j+1] = cos_j, sp[2j] = -sin_j, sp[2j+1] = +sin_j (signed for the inverse).
template <class E>
inline void rope_rotate_heads(E* x, int64_t heads, int64_t head_dim, int32_t rotary_dim, int layout,
                              const float* cp, const float* sp) {
  using V = vec<float>;
  constexpr std::size_t W = width<float>;
  const std::size_t rot = static_cast<std::size_t>(rotary_dim);
  const std::size_t half = rot / 2;
  for (int64_t hd = 0; hd < heads; ++hd, x += head_dim) {
    if (layout == 0) {
      E* x2p = x + half;
      std::size_t j = 0;
      for (; j + W <= half; j += W) {
        const V x1 = load_as_f32(x + j), x2 = load_as_f32(x2p + j);
        const V c = load(cp + j), s = load(sp + j);
        store_from_f32(x + j, madd(x1, c, -(x2 * s)));
        store_from_f32(x2p + j, madd(x2, c, x1 * s));
      }
      if (j < half) {
        const std::size_t cnt = half - j;
        const V x1 = load_as_f32_partial(x + j, cnt), x2 = load_as_f32_partial(x2p + j, cnt);
        const V c = load_partial(cp + j, cnt), s = load_partial(sp + j, cnt);
        store_from_f32_partial(x + j, madd(x1, c, -(x2 * s)), cnt);
        store_from_f32_partial(x2p + j, madd(x2, c, x1 * s), cnt);
      }
    } else {
      if constexpr (W == 1) {
        for (std::size_t j = 0; j < rot; j += 2) {
          const float a = elem_to_f32(x[j]), b = elem_to_f32(x[j + 1]);
          // same operations as the SIMD form x*c + swap(x)*s (the scalar path has no FMA)
          elem_from_f32(x + j, a * cp[j] + b * sp[j]);
          elem_from_f32(x + j + 1, b * cp[j + 1] + a * sp[j + 1]);
        }
      } else {
        std::size_t j = 0;
        for (; j + W <= rot; j += W) {
          const V v = load_as_f32(x + j);
          store_from_f32(x + j, madd(v, load(cp + j), swap_pairs(v) * load(sp + j)));
        }
        if (j < rot) {
          const std::size_t cnt = rot - j;
          const V v = load_as_f32_partial(x + j, cnt);
          store_from_f32_partial(x + j, madd(v, load_partial(cp + j, cnt), swap_pairs(v) * load_partial(sp + j, cnt)),
                                 cnt);
        }
      }
    }
  }
}

/// Rotates all Q and K heads of token t with prepared rows cp, sp (see rope_rotate_heads).
template <class E>
inline void rope_rotate_token(const float* cp, const float* sp, const rope_qk_t* h, int64_t t) {
  E* q = static_cast<E*>(h->q) + t * h->q_stride;
  rope_rotate_heads(q, h->num_q_heads, h->head_dim, h->rotary_dim, h->layout, cp, sp);
  if (h->k != nullptr && h->num_k_heads > 0) {
    E* k = static_cast<E*>(h->k) + t * h->k_stride;
    rope_rotate_heads(k, h->num_k_heads, h->head_dim, h->rotary_dim, h->layout, cp, sp);
  }
}

/// Prepares one token's cos/sin rows c, s [half] for the layout and direction (into ebuf, 2 *
/// rotary_dim floats, when needed) and rotates all its Q and K heads.
template <class E>
inline void rope_apply_token(const float* c, const float* s, const rope_qk_t* h, int64_t t, float* ebuf) {
  const std::size_t rot = static_cast<std::size_t>(h->rotary_dim);
  const std::size_t half = rot / 2;
  const float* cp = c;
  const float* sp = s;
  if (h->layout == 0) {
    if (h->inverse) {
      float* ns = ebuf;
      for (std::size_t j = 0; j < half; ++j) ns[j] = -s[j];
      sp = ns;
    }
  } else {
    float* ce = ebuf;
    float* se = ebuf + rot;
    const float sg = h->inverse ? -1.0f : 1.0f;
    for (std::size_t j = 0; j < half; ++j) {
      ce[2 * j] = c[j];
      ce[2 * j + 1] = c[j];
      se[2 * j] = -sg * s[j];
      se[2 * j + 1] = sg * s[j];
    }
    cp = ce;
    sp = se;
  }
  rope_rotate_token<E>(cp, sp, h, t);
}

/// cos/sin once per token, shared by all heads of Q and K, generated directly in the form the
/// layout needs (the same float32 values rope_apply_token would prepare from a table):
/// NEOX: cos [T, half] | signed sin [T, half]; INTERLEAVED: [T, rotary_dim] each, duplicated.
template <class E>
inline void rope_apply_rows(const int64_t* positions, int64_t t0, int64_t t1, const rope_freqs_t* f,
                            const rope_qk_t* h, float* scratch) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const int64_t T = t1 - t0;
  const std::size_t rot = static_cast<std::size_t>(h->rotary_dim);
  const std::size_t half = rot / 2;
  const std::size_t row = h->layout == 0 ? half : rot;
  float* cs = scratch;
  float* sn = scratch + static_cast<std::size_t>(T) * row;
  const V scale(f->scale);
  const V sscale(h->inverse ? -f->scale : f->scale);
  if (h->layout == 0) {
    rope_gen_rows(positions, t0, t1, f->half, f->wh, f->wl,
                  [&](int64_t i, std::size_t j, std::size_t cnt, const V& c, const V& s) {
                    const std::size_t o = static_cast<std::size_t>(i - t0) * row + j;
                    if (cnt == W) {
                      store_f64_as_f32(cs + o, c * scale);
                      store_f64_as_f32(sn + o, s * sscale);
                    } else {
                      store_f64_as_f32_partial(cs + o, c * scale, cnt);
                      store_f64_as_f32_partial(sn + o, s * sscale, cnt);
                    }
                  });
  } else {
    rope_gen_rows(positions, t0, t1, f->half, f->wh, f->wl,
                  [&](int64_t i, std::size_t j, std::size_t cnt, const V& c, const V& s) {
                    const std::size_t o = static_cast<std::size_t>(i - t0) * row + 2 * j;
                    const V cv = c * scale, sv = s * sscale;
                    if (cnt == W) {
                      store_f64_as_f32_interleaved(cs + o, cv, cv);
                      store_f64_as_f32_interleaved(sn + o, -sv, sv);
                    } else {
                      store_f64_as_f32_interleaved_partial(cs + o, cv, cv, cnt);
                      store_f64_as_f32_interleaved_partial(sn + o, -sv, sv, cnt);
                    }
                  });
  }
  for (int64_t t = t0; t < t1; ++t) {
    const std::size_t o = static_cast<std::size_t>(t - t0) * row;
    rope_rotate_token<E>(cs + o, sn + o, h, t);
  }
}

inline void apply_f32_rows(const int64_t* positions, int64_t t0, int64_t t1, const rope_freqs_t* f,
                           const rope_qk_t* h, float* scratch) {
  rope_apply_rows<float>(positions, t0, t1, f, h, scratch);
}
inline void apply_bf16_rows(const int64_t* positions, int64_t t0, int64_t t1, const rope_freqs_t* f,
                            const rope_qk_t* h, float* scratch) {
  rope_apply_rows<uint16_t>(positions, t0, t1, f, h, scratch);
}
inline void apply_cached_f32_rows(const float* cos_table, const float* sin_table, const int64_t* positions,
                                  int64_t t0, int64_t t1, const rope_qk_t* h, float* scratch) {
  const std::size_t half = static_cast<std::size_t>(h->rotary_dim / 2);
  for (int64_t t = t0; t < t1; ++t) {
    const std::size_t o = static_cast<std::size_t>(positions[t]) * half;
    rope_apply_token<float>(cos_table + o, sin_table + o, h, t, scratch);
  }
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
