// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/simd/avx2.hpp — the kernels/simd/ vocabulary on the AVX2 path (4 doubles, 8 floats a
// vector; FMA; non-temporal stores; gathers). Included through kernels/simd/isa.hpp only.
#pragma once

#include "kernels/simd/portable.hpp"

#include <immintrin.h>

namespace posenc {
namespace POSENC_NS {
namespace vx {

inline constexpr isa_id kIsa = isa_id::avx2;
/// Non-temporal stores (movntpd / movntdq).
inline constexpr bool kHasStream = true;
/// xyz_bad_block by compares and sign masks (below).
inline constexpr bool kHasXyzBad = true;
/// lookup(tab, t) reads a table of 8 doubles (two 8 x 32-bit permutes and a blend).
inline constexpr int kLookupN = 8;

/// tab[k mod 8] in each lane, k the integer in the low mantissa bits of t = k + 1.5 2^52
/// (|k| < 2^51); tab 32-byte aligned. The two halves of the table as 8 floats each: vpermps with
/// the dwords 2 (k mod 4), 2 (k mod 4) + 1 of each lane picks the entry of both halves, bit 2 of
/// k (moved to the sign bit) the half.
inline V lookup(const double* tab, const V& t) {
  const __m256i b = _mm256_castpd_si256(t);
  const __m256i d = _mm256_add_epi32(_mm256_slli_epi32(_mm256_shuffle_epi32(b, 0xA0), 1), _mm256_set_epi32(1, 0, 1, 0, 1, 0, 1, 0));
  const __m256 lo = _mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_load_pd(tab)), d);
  const __m256 hi = _mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_load_pd(tab + 4)), d);
  return V(_mm256_blendv_pd(_mm256_castps_pd(lo), _mm256_castps_pd(hi), _mm256_castsi256_pd(_mm256_slli_epi64(b, 61))));
}

/// For the 3 width<T> contiguous elements at q (4 points of x, y, z as double, 8 as float):
/// nonzero if one is inf or NaN or a point is (+-0, +-0, +-0) (a subnormal is not zero). The sum
/// a 0 + b 0 + c 0 of the three vectors is NaN in a lane iff one of its elements is not finite;
/// an ordered compare with 0 per vector gives one zero bit per element (vmovmskpd / vmovmskps),
/// and bits 3i, 3i + 1, 3i + 2 all set make point i zero.
template <class T>
inline uint64_t xyz_bad_block(const T* q) {
  if constexpr (std::is_same<T, double>::value) {
    const __m256d a = _mm256_loadu_pd(q), b = _mm256_loadu_pd(q + 4), c = _mm256_loadu_pd(q + 8);
    const __m256d zero = _mm256_setzero_pd();
    const __m256d s = _mm256_fmadd_pd(a, zero, _mm256_fmadd_pd(b, zero, _mm256_mul_pd(c, zero)));
    const uint64_t nf = static_cast<uint32_t>(_mm256_movemask_pd(_mm256_cmp_pd(s, s, _CMP_UNORD_Q)));
    const uint64_t z = static_cast<uint32_t>(_mm256_movemask_pd(_mm256_cmp_pd(a, zero, _CMP_EQ_OQ))) |
                       static_cast<uint32_t>(_mm256_movemask_pd(_mm256_cmp_pd(b, zero, _CMP_EQ_OQ))) << 4 |
                       static_cast<uint32_t>(_mm256_movemask_pd(_mm256_cmp_pd(c, zero, _CMP_EQ_OQ))) << 8;
    return nf | (z & (z >> 1) & (z >> 2) & 0x249u);
  } else {
    const __m256 a = _mm256_loadu_ps(q), b = _mm256_loadu_ps(q + 8), c = _mm256_loadu_ps(q + 16);
    const __m256 zero = _mm256_setzero_ps();
    const __m256 s = _mm256_fmadd_ps(a, zero, _mm256_fmadd_ps(b, zero, _mm256_mul_ps(c, zero)));
    const uint64_t nf = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(s, s, _CMP_UNORD_Q)));
    const uint64_t z = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(a, zero, _CMP_EQ_OQ))) |
                       static_cast<uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(b, zero, _CMP_EQ_OQ))) << 8 |
                       static_cast<uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(c, zero, _CMP_EQ_OQ))) << 16;
    return nf | (z & (z >> 1) & (z >> 2) & 0x249249u);
  }
}

/// In-place 4 x 4 transpose (r[i] lane j -> r[j] lane i): 4 unpacks, 4 128-bit lane permutes.
/// (Always inlined: as a call it was 16 % of the low-degree kernel at lmax 1.)
__attribute__((always_inline)) inline void transpose(V* r) {
  __m256d r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3];
  __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

using portable::rsqrt;

/// The coordinates q[0], q[3 pstride], q[6 pstride], q[9 pstride] as doubles, by one gather
/// (the vector load of four scalar stores cannot be forwarded: it waited for every earlier
/// store, which serialized consecutive blocks: 44 % of the time at lmax 10, resident output).
template <class TI>
inline V gather3(const TI* q, int64_t pstride) {
  const int64_t s = 3 * pstride;
  const __m256i idx = _mm256_set_epi64x(3 * s, 2 * s, s, 0);
  if constexpr (std::is_same<TI, double>::value) return V(_mm256_i64gather_pd(q, idx, 8));
  else return V(_mm256_cvtps_pd(_mm256_i64gather_ps(q, idx, 4)));
}

/// The 8 doubles at q split into even (a) and odd (b) elements: two loads, two unpacks and two
/// lane permutes (no gather).
inline void deinterleave2(const double* q, V& a, V& b) {
  const __m256d x = _mm256_loadu_pd(q), y = _mm256_loadu_pd(q + 4);
  a = V(_mm256_permute4x64_pd(_mm256_unpacklo_pd(x, y), 0xD8));  // x0 y0 x2 y2 -> x0 x2 y0 y2
  b = V(_mm256_permute4x64_pd(_mm256_unpackhi_pd(x, y), 0xD8));
}

/// The 12 contiguous elements at q (4 points of x, y, z): three loads, two blends, one 128-bit
/// lane permute and three in-lane shuffles (no gather).
template <class TI>
inline void deinterleave3(const TI* q, V& x, V& y, V& z) {
  __m256d a, b, c;
  if constexpr (std::is_same<TI, double>::value) {
    a = _mm256_loadu_pd(q);
    b = _mm256_loadu_pd(q + 4);
    c = _mm256_loadu_pd(q + 8);
  } else {
    a = _mm256_cvtps_pd(_mm_loadu_ps(q));
    b = _mm256_cvtps_pd(_mm_loadu_ps(q + 4));
    c = _mm256_cvtps_pd(_mm_loadu_ps(q + 8));
  }
  const __m256d p = _mm256_blend_pd(a, b, 0xC);          // 0 1 | 6 7
  const __m256d r = _mm256_blend_pd(b, c, 0xC);          // 4 5 | 10 11
  const __m256d m = _mm256_permute2f128_pd(a, c, 0x21);  // 2 3 | 8 9
  x = V(_mm256_shuffle_pd(p, m, 0xA));                   // 0 3 6 9
  y = V(_mm256_shuffle_pd(p, r, 0x5));                   // 1 4 7 10
  z = V(_mm256_shuffle_pd(m, r, 0xA));                   // 2 5 8 11
}

/// 4 NG features of 4 points in the order p 4 NG + k: a 4 x 4 transpose per group of 4.
template <int NG>
inline void pack4n(const V* f, V* o) {
  for (int g = 0; g < NG; ++g) {
    V t[4] = {f[4 * g], f[4 * g + 1], f[4 * g + 2], f[4 * g + 3]};
    transpose(t);
    for (int p = 0; p < 4; ++p) o[p * NG + g] = t[p];
  }
}

/// pack4n where f[4 g] is one lane-uniform vector for every g (the same 4 x 4 transposes).
template <int NG>
inline void pack4n_c0(const V* f, V* o) { pack4n<NG>(f, o); }

/// 4 NG float features of 8 points in the order p 4 NG + k. Per group of 4 features, 4 unpacks
/// give a[k] whose 128-bit half c holds the group's features of point 4c + k; each output is
/// two such halves (sequence s = 2m + h = NG p + g), one two-source lane permute.
template <int NG>
__attribute__((always_inline)) inline void fpack4n(const VF* f, VF* o) {
  __m256 a[4 * NG];
  for (int g = 0; g < NG; ++g) {
    const VF* h = f + 4 * g;
    const __m256 u0 = _mm256_unpacklo_ps(h[0], h[1]), u1 = _mm256_unpackhi_ps(h[0], h[1]);
    const __m256 u2 = _mm256_unpacklo_ps(h[2], h[3]), u3 = _mm256_unpackhi_ps(h[2], h[3]);
    a[4 * g + 0] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(u0), _mm256_castps_pd(u2)));
    a[4 * g + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(u0), _mm256_castps_pd(u2)));
    a[4 * g + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(u1), _mm256_castps_pd(u3)));
    a[4 * g + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(u1), _mm256_castps_pd(u3)));
  }
#pragma GCC unroll 48
  for (int m = 0; m < 4 * NG; ++m) {
    const int s0 = 2 * m, s1 = 2 * m + 1;
    const int p0 = s0 / NG, p1 = s1 / NG;
    const __m256 x = a[4 * (s0 % NG) + p0 % 4], y = a[4 * (s1 % NG) + p1 % 4];
    switch (2 * (p0 / 4) + p1 / 4) {  // half p0 / 4 of x, then half p1 / 4 of y
      case 0: o[m] = _mm256_permute2f128_ps(x, y, 0x20); break;
      case 1: o[m] = _mm256_permute2f128_ps(x, y, 0x30); break;
      case 2: o[m] = _mm256_permute2f128_ps(x, y, 0x21); break;
      default: o[m] = _mm256_permute2f128_ps(x, y, 0x31); break;
    }
  }
}

/// h[0] in lanes 0-3, h[1] in lanes 4-7, rounded to float32.
inline VF narrow(const V* h) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(h[0])), _mm256_cvtpd_ps(h[1]), 1);
}
/// Lanes [4 h, 4 h + 4) of v as doubles.
inline V widen(const VF& v, std::size_t h) {
  return _mm256_cvtps_pd(h == 0 ? _mm256_castps256_ps128(v) : _mm256_extractf128_ps(v, 1));
}

/// One aligned 64-byte line from s to d as two aligned 32-byte moves, non-temporal when NT
/// (memcpy(d, s, 64) became four 16-byte moves).
template <bool NT>
inline void copy_line(char* d, const char* s) {
  for (int h = 0; h < 64; h += 32) {
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(s + h));
    if constexpr (NT) _mm256_stream_si256(reinterpret_cast<__m256i*>(d + h), v);
    else _mm256_store_si256(reinterpret_cast<__m256i*>(d + h), v);
  }
}
/// Orders the non-temporal stores before any later store.
inline void store_fence() { _mm_sfence(); }

/// One 64-byte line in two 256-bit halves (AVX2's whole-line unit).
struct line4d {
  __m256d lo, hi;
};
struct line8f {
  __m256 lo, hi;
};
/// Store masks of the lanes of bit mask m: 4 doubles from bit b, 8 floats from bit b.
inline __m256i lane_mask64(uint32_t m, int b) {
  const __m256i bits = _mm256_setr_epi64x(1, 2, 4, 8);
  return _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(static_cast<int64_t>(m >> b)), bits), bits);
}
inline __m256i lane_mask32(uint32_t m, int b) {
  const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(m >> b)), bits), bits);
}

/// One 64-byte line of TO elements (8 doubles or 16 floats) as two 256-bit halves, and its stores.
/// Whole double vectors written in address order from dst on (the k-th put holds
/// dst[4k .. 4k + 4)), as aligned 32-byte halves of lines with non-temporal stores (two in turn
/// fill a line): where dst is not on a 32-byte boundary (b = its distance to the next one, in
/// elements), each half joins lanes b..3 of one vector with lanes 0..b-1 of the next (b = 2: one
/// 128-bit lane permute; b = 1, 3: that and one in-lane shuffle); the partial halves at both ends
/// are masked stores (the first at the first put, the last at finish()). dst must be 8-byte
/// aligned. The caller orders the stores (store_fence) before the output is read.
inline constexpr bool kVecStream = true;
struct vec_stream {
  double* d = nullptr;  // the next whole half line
  unsigned b = 0;
  bool first = true;
  __m256d prev;
  static __m256i lanes_below(unsigned c) {  // mask of lanes 0..c-1
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(c)), _mm256_set_epi64x(3, 2, 1, 0));
  }
  void begin(double* dst) {
    const unsigned a = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(dst) & 31u) / 8u;
    b = (4u - a) & 3u;
    d = dst + b;
    first = true;
    prev = _mm256_setzero_pd();
  }
  __attribute__((always_inline)) void put(const V& vv) {
    const __m256d v = vv;
    if (b == 0) {
      _mm256_stream_pd(d, v);
      d += 4;
      return;
    }
    if (__builtin_expect(first, 0)) {
      _mm256_maskstore_pd(d - b, lanes_below(b), v);
      first = false;
    } else {
      const __m256d t = _mm256_permute2f128_pd(prev, v, 0x21);  // prev 2 3, v 0 1
      __m256d o;
      if (b == 2) o = t;
      else if (b == 1) o = _mm256_shuffle_pd(prev, t, 0x5);  // prev 1 2 3, v 0
      else o = _mm256_shuffle_pd(t, v, 0x5);                 // prev 3, v 0 1 2
      _mm256_stream_pd(d, o);
      d += 4;
    }
    prev = v;
  }
  void finish() {
    if (b != 0 && !first) {
      const __m256i below = lanes_below(b);
      _mm256_maskstore_pd(d - b, _mm256_xor_si256(below, _mm256_set1_epi64x(-1)), prev);
    }
  }
};

template <class TO>
struct lines {
  using LV = typename std::conditional<std::is_same<TO, double>::value, line4d, line8f>::type;
  static constexpr int64_t unit = 64 / static_cast<int64_t>(sizeof(TO));
  static constexpr int64_t half = unit / 2;
  /// One aligned 32-byte half, non-temporal or not.
  static void store_half(double* a, const __m256d& v, bool nt) {
    if (nt) _mm256_stream_pd(a, v);
    else _mm256_store_pd(a, v);
  }
  static void store_half(float* a, const __m256& v, bool nt) {
    if (nt) _mm256_stream_ps(a, v);
    else _mm256_store_ps(a, v);
  }
  /// The whole line at a (64-byte aligned), non-temporal when nt.
  static void full(TO* a, const LV& v, bool nt) {
    store_half(a, v.lo, nt);
    store_half(a + half, v.hi, nt);
  }
  /// The lanes of bit mask m.
  static void masked(TO* a, uint32_t m, const LV& v) {
    if constexpr (unit == 8) {
      _mm256_maskstore_pd(a, lane_mask64(m, 0), v.lo);
      _mm256_maskstore_pd(a + half, lane_mask64(m, 4), v.hi);
    } else {
      _mm256_maskstore_ps(a, lane_mask32(m, 0), v.lo);
      _mm256_maskstore_ps(a + half, lane_mask32(m, 8), v.hi);
    }
  }
  /// Lanes of m from b, the others from a.
  static LV blend(uint32_t m, const LV& a, const LV& b) {
    if constexpr (unit == 8) {
      return {_mm256_blendv_pd(a.lo, b.lo, _mm256_castsi256_pd(lane_mask64(m, 0))),
              _mm256_blendv_pd(a.hi, b.hi, _mm256_castsi256_pd(lane_mask64(m, 4)))};
    } else {
      return {_mm256_blendv_ps(a.lo, b.lo, _mm256_castsi256_ps(lane_mask32(m, 0))),
              _mm256_blendv_ps(a.hi, b.hi, _mm256_castsi256_ps(lane_mask32(m, 8)))};
    }
  }
};

/// The lines of the 4 rows of a block from 8 float64 features (feature k of row p at
/// src[4 k + p]): two 4 x 4 tiles by load_transpose (four 256-bit loads and transpose().
/// Eight 128-bit loads, four inserted into the upper lanes, save half the shuffles and were
/// faster on Sapphire Rapids, whose only 256-bit shuffle port was the limit; on Zen 5 the
/// whole-vector loads are 2-7 % faster, lmax 3 to 40, float64.)
template <int R>
inline void line_rows(const double* src, line4d* v) {
  static_assert(R == 4, "AVX2 double lines come from 4-point blocks");
  V r[2][4];
  for (int t = 0; t < 2; ++t) load_transpose(src + 16 * t, r[t]);
  for (int p = 0; p < 4; ++p) v[p] = {r[0][p], r[1][p]};
}
/// The lines of the R rows of a block from 16 float features (feature k of row p at
/// src[R k + p]). R = 4 (values rounded from float64 compute): each half line (8 features) is
/// two 16-byte loads per 256-bit register, (feature j | feature j + 4), and one in-lane 4 x 4
/// transpose: 8 shuffles per half. R = 8 (float32 compute, 8-point blocks): two 8 x 8 tiles
/// (ftile_rows, below), features 0-7 and 8-15. Other R (not taken by the AVX2 paths) through
/// memory.
inline void ftile_rows(const float* src, VF* r);
template <int R>
inline void line_rows(const float* src, line8f* v) {
  if constexpr (R == 8) {
    VF a[8], b[8];
    ftile_rows(src, a);
    ftile_rows(src + 64, b);
    for (int p = 0; p < 8; ++p) v[p] = {a[p], b[p]};
  } else if constexpr (R == 4) {
    for (int h = 0; h < 2; ++h) {
      const float* s = src + 32 * h;
      __m256 a[4];
      for (int j = 0; j < 4; ++j) a[j] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + 4 * j)), _mm_loadu_ps(s + 4 * j + 16), 1);
      const __m256 t0 = _mm256_unpacklo_ps(a[0], a[1]), t1 = _mm256_unpackhi_ps(a[0], a[1]);
      const __m256 t2 = _mm256_unpacklo_ps(a[2], a[3]), t3 = _mm256_unpackhi_ps(a[2], a[3]);
      const __m256 r[4] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE), _mm256_shuffle_ps(t1, t3, 0x44),
                           _mm256_shuffle_ps(t1, t3, 0xEE)};
      for (int p = 0; p < 4; ++p) (h == 0 ? v[p].lo : v[p].hi) = r[p];
    }
  } else {
    for (int p = 0; p < R; ++p) {
      alignas(32) float b[16];
      for (int k = 0; k < 16; ++k) b[k] = src[R * k + p];
      v[p] = {_mm256_load_ps(b), _mm256_load_ps(b + 8)};
    }
  }
}

/// 8 x 8 transpose of the float feature vectors src[0..8) (16-byte aligned, 8 floats each) into
/// r[p] = (src[0][p], ..., src[7][p]). The loads put features i and i + 4 of 4 points in the two
/// 128-bit halves (inserted from memory); then a 4 x 4 transpose runs in both halves at once
/// (4 unpacks and 4 shuffles per 4 points): 16 shuffle-port operations per 64 values.
inline void ftile_rows(const float* src, VF* r) {
  for (int h = 0; h < 2; ++h) {
    __m256 a[4];
    for (int i = 0; i < 4; ++i)
      a[i] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(src + 8 * i + 4 * h)), _mm_load_ps(src + 8 * (i + 4) + 4 * h), 1);
    const __m256 t0 = _mm256_unpacklo_ps(a[0], a[1]), t1 = _mm256_unpackhi_ps(a[0], a[1]);
    const __m256 t2 = _mm256_unpacklo_ps(a[2], a[3]), t3 = _mm256_unpackhi_ps(a[2], a[3]);
    r[4 * h] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    r[4 * h + 1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    r[4 * h + 2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    r[4 * h + 3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  }
}
/// The first c (1 <= c <= 8) lanes of v at d.
inline void store_first(float* d, const VF& v, std::size_t c) {
  if (c == 8) _mm256_storeu_ps(d, v);
  else store_partial(d, v, c);
}

}  // namespace vx
}  // namespace POSENC_NS
}  // namespace posenc
