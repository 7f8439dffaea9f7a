// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/rope_apply.hpp — RoPE rotation of Q/K in place or into separate outputs: float32, bfloat16 and IEEE binary16
// storage, any head / token / batch strides, one-axis or multi-axis (M-RoPE, axial) positions,
// re-rotation between two frequency sets. Compiled per ISA inside posenc::POSENC_NS.
//
// Every element is widened to float32 exactly, rotated in float32 with float32 cos/sin (computed
// once per token in float64 from the exact phase and shared by all heads), and stored back; bf16
// and f16 stores round to nearest, ties to even. The f16 conversions are the hardware ones:
// VCVTPH2PS / VCVTPS2PH (F16C on AVX2, AVX-512F on AVX-512; no AVX-512-FP16), the AArch64
// baseline FCVTL / FCVTN on NEON; the scalar path uses the integer bit manipulations below.
#pragma once

#include "kernels/rope.hpp"

namespace posenc {
namespace POSENC_NS {

// ------------------------------------------------------------------------------------------
// Scalar element conversions
// ------------------------------------------------------------------------------------------
/// bf16 (upper 16 bits of an IEEE float32) -> float32, exact.
inline float bf16_to_f32(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
/// float32 -> bf16, round to nearest even; a NaN stays a quiet NaN.
inline uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u | 0x00400000u) >> 16);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// IEEE binary16 <-> float32 by bit manipulation (F. Giesen's formulation, "half_to_float" and
// "float_to_half_fast3_rtne"). Both directions only ever compute on normal float32 values, so
// they are exact under flush-to-zero / denormals-are-zero modes too.
constexpr uint32_t kF16ExpMask = 0x7c00u << 13;  // the f16 exponent field after << 13
constexpr uint32_t kF16Rebias = (127u - 15u) << 23;
constexpr uint32_t kF16InfNanRebias = (128u - 16u) << 23;
constexpr uint32_t kF16SubMagic = 113u << 23;      // 2^-14 as float32 bits
constexpr uint32_t kF16Overflow = (127u + 16u) << 23;  // |x| >= 65536: infinity
constexpr uint32_t kF16DenormMagic = 126u << 23;   // 0.5f: its ulp is 2^-24, the f16 subnormal step
constexpr uint32_t kF16NormRebias = 0xc8000fffu;   // ((15 - 127) << 23) + 0xfff, modulo 2^32

/// binary16 -> float32, exact (subnormals, infinities, NaN payloads included).
inline float f16_to_f32(uint16_t h) {
  uint32_t o = static_cast<uint32_t>(h & 0x7fffu) << 13;
  const uint32_t e = o & kF16ExpMask;
  o += kF16Rebias;
  float f;
  if (e == kF16ExpMask) {
    o += kF16InfNanRebias;
    std::memcpy(&f, &o, 4);
  } else if (e == 0) {  // zero or subnormal: renormalize with one exact subtraction
    o += 1u << 23;
    std::memcpy(&f, &o, 4);
    float m;
    std::memcpy(&m, &kF16SubMagic, 4);
    f -= m;
  } else {
    std::memcpy(&f, &o, 4);
  }
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= static_cast<uint32_t>(h & 0x8000u) << 16;
  std::memcpy(&f, &u, 4);
  return f;
}
/// float32 -> binary16, round to nearest even (overflow -> infinity, subnormal results
/// rounded); a NaN becomes a quiet NaN keeping its sign and the top payload bits.
inline uint16_t f32_to_f16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  const uint32_t sign = u & 0x80000000u;
  const uint32_t a = u ^ sign;
  uint32_t o;
  if (a >= kF16Overflow) {
    o = a > 0x7f800000u ? (0x7e00u | ((a >> 13) & 0x3ffu)) : 0x7c00u;
  } else if (a < kF16SubMagic) {  // subnormal or zero result: the float add rounds (RNE)
    float f, d;
    std::memcpy(&f, &a, 4);
    std::memcpy(&d, &kF16DenormMagic, 4);
    f += d;
    uint32_t b;
    std::memcpy(&b, &f, 4);
    o = b - kF16DenormMagic;
  } else {
    o = (a + kF16NormRebias + ((a >> 13) & 1u)) >> 13;
  }
  return static_cast<uint16_t>(o | (sign >> 16));
}

// ------------------------------------------------------------------------------------------
// Codecs: vector load/store of width<float> elements as float32
// ------------------------------------------------------------------------------------------
struct codec_f32 {
  using E = float;
  static vec<float> vload(const float* p) { return load(p); }
  // Never call store(p, batch) unqualified: ADL also finds xsimd::store (the ALIGNED store).
  static void vstore(float* p, const vec<float>& v) { v.store_unaligned(p); }
  static float widen(float x) { return x; }
  static float narrow(float x) { return x; }
};

struct codec_bf16 {
  using E = uint16_t;
  static float widen(uint16_t x) { return bf16_to_f32(x); }
  static uint16_t narrow(float x) { return f32_to_bf16(x); }
  static vec<float> vload(const uint16_t* p) {
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
  static void vstore(uint16_t* p, const vec<float>& v) {
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
};

struct codec_f16 {
  using E = uint16_t;
  static float widen(uint16_t x) { return f16_to_f32(x); }
  static uint16_t narrow(float x) { return f32_to_f16(x); }
  static vec<float> vload(const uint16_t* p) {
#if defined(POSENC_ISA_SCALAR)
    return vec<float>(f16_to_f32(*p));
#elif defined(POSENC_ISA_AVX2)
    // VCVTPH2PS ymm (F16C): exact, subnormals included.
    return vec<float>(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#elif defined(POSENC_ISA_AVX512)
    // VCVTPH2PS zmm is AVX-512F (no F16C or AVX-512-FP16 needed): exact, subnormals included.
    return vec<float>(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
#elif defined(POSENC_ISA_NEON)
    return vec<float>(vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))));
#endif
  }
  static void vstore(uint16_t* p, const vec<float>& v) {
#if defined(POSENC_ISA_SCALAR)
    *p = f32_to_f16(v.v);
#elif defined(POSENC_ISA_AVX2)
    // VCVTPS2PH ymm (F16C): round to nearest even by the immediate, whatever MXCSR says.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                     _mm256_cvtps_ph(static_cast<__m256>(v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#elif defined(POSENC_ISA_AVX512)
    // VCVTPS2PH zmm (AVX-512F): round to nearest even by the immediate, whatever MXCSR says;
    // f16 subnormal results are produced even under FTZ.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                        _mm512_cvtps_ph(static_cast<__m512>(v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#elif defined(POSENC_ISA_NEON)
    vst1_u16(p, vreinterpret_u16_f16(vcvt_f16_f32(static_cast<float32x4_t>(v))));
#endif
  }
};

template <class C>
inline vec<float> load_partial_as_f32(const typename C::E* p, std::size_t cnt) {
  alignas(64) float buf[width<float>] = {};
  for (std::size_t k = 0; k < cnt; ++k) buf[k] = C::widen(p[k]);
  return load(buf);
}
template <class C>
inline void store_partial_from_f32(typename C::E* p, const vec<float>& v, std::size_t cnt) {
  alignas(64) float buf[width<float>];
  v.store_unaligned(buf);
  for (std::size_t k = 0; k < cnt; ++k) p[k] = C::narrow(buf[k]);
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
/// Rotates the first rotary_dim channels of `heads` heads read from src0 (heads src_stride apart)
/// into x0 (heads head_stride apart); src0 == x0 (with equal strides) rotates in place. tail > 0
/// (out of place only): the channels [rotary_dim, rotary_dim + tail) are copied unchanged.
/// NEOX: cp/sp are [half] cos and (signed) sin. INTERLEAVED: cp/sp are [rotary_dim] with
/// cp[2j] = cp[2j+1] = cos_j, sp[2j] = -sin_j, sp[2j+1] = +sin_j (signed for the inverse).
template <class C>
inline void rope_rotate_heads(typename C::E* x0, const typename C::E* src0, int64_t heads, int64_t head_stride,
                              int64_t src_stride, int32_t rotary_dim, int64_t tail, int layout, const float* cp,
                              const float* sp) {
  using V = vec<float>;
  using E = typename C::E;
  constexpr std::size_t W = width<float>;
  const std::size_t rot = static_cast<std::size_t>(rotary_dim);
  const std::size_t half = rot / 2;
  for (int64_t hd = 0; hd < heads; ++hd) {
    // Indexed, not advanced: x0 + heads * head_stride (one past the last head) need not be a
    // valid pointer when the stride of a single head is arbitrary (the strided API accepts it).
    E* const x = x0 + hd * head_stride;
    const E* const y = src0 + hd * src_stride;
    if (tail > 0) std::memcpy(x + rotary_dim, y + rotary_dim, static_cast<std::size_t>(tail) * sizeof(E));
    if (layout == 0) {
      E* x2p = x + half;
      const E* y2p = y + half;
      std::size_t j = 0;
      for (; j + W <= half; j += W) {
        const V x1 = C::vload(y + j), x2 = C::vload(y2p + j);
        const V c = load(cp + j), s = load(sp + j);
        C::vstore(x + j, madd(x1, c, negate(x2 * s)));
        C::vstore(x2p + j, madd(x2, c, x1 * s));
      }
      if (j < half) {
        const std::size_t cnt = half - j;
        const V x1 = load_partial_as_f32<C>(y + j, cnt), x2 = load_partial_as_f32<C>(y2p + j, cnt);
        const V c = load_partial(cp + j, cnt), s = load_partial(sp + j, cnt);
        store_partial_from_f32<C>(x + j, madd(x1, c, negate(x2 * s)), cnt);
        store_partial_from_f32<C>(x2p + j, madd(x2, c, x1 * s), cnt);
      }
    } else {
      if constexpr (W == 1) {
        for (std::size_t j = 0; j < rot; j += 2) {
          const float a = C::widen(y[j]), b = C::widen(y[j + 1]);
          // same operations as the SIMD form x*c + swap(x)*s (the scalar path has no FMA)
          x[j] = C::narrow(a * cp[j] + b * sp[j]);
          x[j + 1] = C::narrow(b * cp[j + 1] + a * sp[j + 1]);
        }
      } else {
        std::size_t j = 0;
        for (; j + W <= rot; j += W) {
          const V v = C::vload(y + j);
          C::vstore(x + j, madd(v, load(cp + j), swap_pairs(v) * load(sp + j)));
        }
        if (j < rot) {
          const std::size_t cnt = rot - j;
          const V v = load_partial_as_f32<C>(y + j, cnt);
          store_partial_from_f32<C>(
              x + j, madd(v, load_partial(cp + j, cnt), swap_pairs(v) * load_partial(sp + j, cnt)), cnt);
        }
      }
    }
  }
}

/// Offset (elements) of token t = b * seq + s: b * batch_stride + s * token_stride.
inline int64_t rope_token_offset(int64_t t, int64_t seq, int64_t token_stride, int64_t batch_stride) {
  if (t < seq) return t * token_stride;
  const int64_t b = t / seq;
  return b * batch_stride + (t - b * seq) * token_stride;
}

/// Rotates all Q and K heads of token t with prepared rows cp, sp (see rope_rotate_heads).
template <class C>
inline void rope_rotate_token(const float* cp, const float* sp, const rope_qk_t* h, int64_t t) {
  using E = typename C::E;
  const int64_t tail = h->head_dim - h->rotary_dim;
  if (h->num_q_heads > 0) {
    E* q = static_cast<E*>(h->q) + rope_token_offset(t, h->seq, h->q_token_stride, h->q_batch_stride);
    if (h->q_src == nullptr) {
      rope_rotate_heads<C>(q, q, h->num_q_heads, h->q_head_stride, h->q_head_stride, h->rotary_dim, 0, h->layout, cp,
                           sp);
    } else {
      const E* s = static_cast<const E*>(h->q_src) +
                   rope_token_offset(t, h->seq, h->q_src_token_stride, h->q_src_batch_stride);
      rope_rotate_heads<C>(q, s, h->num_q_heads, h->q_head_stride, h->q_src_head_stride, h->rotary_dim, tail,
                           h->layout, cp, sp);
    }
  }
  if (h->num_k_heads > 0) {
    E* k = static_cast<E*>(h->k) + rope_token_offset(t, h->seq, h->k_token_stride, h->k_batch_stride);
    if (h->k_src == nullptr) {
      rope_rotate_heads<C>(k, k, h->num_k_heads, h->k_head_stride, h->k_head_stride, h->rotary_dim, 0, h->layout, cp,
                           sp);
    } else {
      const E* s = static_cast<const E*>(h->k_src) +
                   rope_token_offset(t, h->seq, h->k_src_token_stride, h->k_src_batch_stride);
      rope_rotate_heads<C>(k, s, h->num_k_heads, h->k_head_stride, h->k_src_head_stride, h->rotary_dim, tail,
                           h->layout, cp, sp);
    }
  }
}

/// Prepares one token's cos/sin rows c, s [half] for the layout and direction (into ebuf, 2 *
/// rotary_dim floats, when needed) and rotates all its Q and K heads.
template <class C>
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
  rope_rotate_token<C>(cp, sp, h, t);
}

/// cos/sin once per token, shared by all heads of Q and K, generated directly in the form the
/// layout needs (the same float32 values rope_apply_token would prepare from a table):
/// NEOX: cos [T, half] | signed sin [T, half]; INTERLEAVED: [T, rotary_dim] each, duplicated.
template <class C>
inline void rope_apply_rows(const rope_pos_t* pos, int64_t t0, int64_t t1, const rope_freqs_t* f, const rope_qk_t* h,
                            float* scratch) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const int64_t T = t1 - t0;
  const std::size_t rot = static_cast<std::size_t>(h->rotary_dim);
  const std::size_t pad_rot = (rot + 15) / 16 * 16;
  const std::size_t half = rot / 2;
  const std::size_t row = h->layout == 0 ? half : rot;
  float* cs = scratch;
  float* sn = scratch + static_cast<std::size_t>(T) * pad_rot;
  double* lanepos = reinterpret_cast<double*>(scratch + 2 * static_cast<std::size_t>(T) * pad_rot);
  const V scale(f->scale);
  const V sscale(h->inverse ? -f->scale : f->scale);
  if (h->layout == 0) {
    rope_gen(pos, t0, t1, f, lanepos, [&](int64_t i, std::size_t j, std::size_t cnt, const V& c, const V& s) {
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
    rope_gen(pos, t0, t1, f, lanepos, [&](int64_t i, std::size_t j, std::size_t cnt, const V& c, const V& s) {
      const std::size_t o = static_cast<std::size_t>(i - t0) * row + 2 * j;
      const V cv = c * scale, sv = s * sscale;
      if (cnt == W) {
        store_f64_as_f32_interleaved(cs + o, cv, cv);
        store_f64_as_f32_interleaved(sn + o, negate(sv), sv);
      } else {
        store_f64_as_f32_interleaved_partial(cs + o, cv, cv, cnt);
        store_f64_as_f32_interleaved_partial(sn + o, negate(sv), sv, cnt);
      }
    });
  }
  for (int64_t t = t0; t < t1; ++t) {
    const std::size_t o = static_cast<std::size_t>(t - t0) * row;
    rope_rotate_token<C>(cs + o, sn + o, h, t);
  }
}

inline void apply_f32_rows(const rope_pos_t* pos, int64_t t0, int64_t t1, const rope_freqs_t* f, const rope_qk_t* h,
                           float* scratch) {
  rope_apply_rows<codec_f32>(pos, t0, t1, f, h, scratch);
}
inline void apply_bf16_rows(const rope_pos_t* pos, int64_t t0, int64_t t1, const rope_freqs_t* f, const rope_qk_t* h,
                            float* scratch) {
  rope_apply_rows<codec_bf16>(pos, t0, t1, f, h, scratch);
}
inline void apply_f16_rows(const rope_pos_t* pos, int64_t t0, int64_t t1, const rope_freqs_t* f, const rope_qk_t* h,
                           float* scratch) {
  rope_apply_rows<codec_f16>(pos, t0, t1, f, h, scratch);
}
inline void apply_cached_f32_rows(const float* cos_table, const float* sin_table, const int64_t* positions,
                                  int64_t t0, int64_t t1, const rope_qk_t* h, float* scratch) {
  const std::size_t half = static_cast<std::size_t>(h->rotary_dim / 2);
  for (int64_t t = t0; t < t1; ++t) {
    const std::size_t o = static_cast<std::size_t>(positions[t]) * half;
    rope_apply_token<codec_f32>(cos_table + o, sin_table + o, h, t, scratch);
  }
}

}  // namespace POSENC_NS
}  // namespace posenc
