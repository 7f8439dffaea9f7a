// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/simd/avx512.hpp — the kernels/simd/ vocabulary on the AVX-512 path (8 doubles, 16
// floats a vector; FMA; masked stores; non-temporal stores; gathers). Included through
// kernels/simd/isa.hpp only.
#pragma once

#include "kernels/simd/portable.hpp"

#include <immintrin.h>

namespace posenc {
namespace POSENC_NS {
namespace vx {

inline constexpr isa_id kIsa = isa_id::avx512;
/// Non-temporal stores (vmovntpd / vmovntdq).
inline constexpr bool kHasStream = true;
/// xyz_bad_block by vfpclass (below).
inline constexpr bool kHasXyzBad = true;
/// lookup(tab, t) reads a table of 16 doubles (one two-source permute).
inline constexpr int kLookupN = 16;

/// tab[k mod 16] in each lane, k the integer in the low mantissa bits of t = k + 1.5 2^52
/// (|k| < 2^51); tab 64-byte aligned. One vpermt2pd on t's bits (its low 4 bits pick the entry).
inline V lookup(const double* tab, const V& t) {
  return V(_mm512_permutex2var_pd(_mm512_load_pd(tab), _mm512_castpd_si512(t), _mm512_load_pd(tab + 8)));
}

/// For the 3 width<T> contiguous elements at q (8 points of x, y, z as double, 16 as float):
/// nonzero if one is inf or NaN or a point is (+-0, +-0, +-0) (a subnormal is not zero). Three
/// loads and six vfpclass: the non-finite classes (QNaN, SNaN, +-inf: 0x99) of every element,
/// and the zero classes (0x06) as one bit per element, joined into one word by mask unpacks
/// (one mask-to-integer move: six were the pass's bottleneck), of which bits 3i, 3i + 1,
/// 3i + 2 all set make point i zero.
template <class T>
inline uint64_t xyz_bad_block(const T* q) {
  if constexpr (std::is_same<T, double>::value) {
    const __m512d a = _mm512_loadu_pd(q), b = _mm512_loadu_pd(q + 8), c = _mm512_loadu_pd(q + 16);
    const __mmask8 nf = _kor_mask8(_kor_mask8(_mm512_fpclass_pd_mask(a, 0x99), _mm512_fpclass_pd_mask(b, 0x99)),
                                   _mm512_fpclass_pd_mask(c, 0x99));
    const __mmask16 zab = _mm512_kunpackb(_mm512_fpclass_pd_mask(b, 0x06), _mm512_fpclass_pd_mask(a, 0x06));
    const __mmask32 zabc = _mm512_kunpackw(_mm512_fpclass_pd_mask(c, 0x06), zab);  // a | b << 8 | c << 16
    const uint64_t z = _cvtmask32_u32(zabc);
    return static_cast<uint64_t>(_cvtmask8_u32(nf)) | (z & (z >> 1) & (z >> 2) & 0x249249u);
  } else {
    const __m512 a = _mm512_loadu_ps(q), b = _mm512_loadu_ps(q + 16), c = _mm512_loadu_ps(q + 32);
    const __mmask16 nf = _mm512_kor(_mm512_kor(_mm512_fpclass_ps_mask(a, 0x99), _mm512_fpclass_ps_mask(b, 0x99)),
                                    _mm512_fpclass_ps_mask(c, 0x99));
    const __mmask32 zab = _mm512_kunpackw(_mm512_fpclass_ps_mask(b, 0x06), _mm512_fpclass_ps_mask(a, 0x06));
    const uint64_t z = static_cast<uint64_t>(_cvtmask32_u32(zab)) |
                       static_cast<uint64_t>(_cvtmask16_u32(_mm512_fpclass_ps_mask(c, 0x06))) << 32;
    return static_cast<uint64_t>(_cvtmask16_u32(nf)) | (z & (z >> 1) & (z >> 2) & 0x249249249249ull);
  }
}

/// In-place 8 x 8 transpose (r[i] lane j -> r[j] lane i): 8 unpacks, 16 128-bit lane shuffles.
/// (Always inlined: as a call it was 16 % of the low-degree kernel at lmax 1.)
__attribute__((always_inline)) inline void transpose(V* r) {
  __m512d t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    __m512d a = r[2 * i], b = r[2 * i + 1];
    t[2 * i] = _mm512_unpacklo_pd(a, b);      // a0 b0 a2 b2 a4 b4 a6 b6
    t[2 * i + 1] = _mm512_unpackhi_pd(a, b);  // a1 b1 a3 b3 a5 b5 a7 b7
  }
  // rows 0-3 from t0..t3, rows 4-7 from t4..t7
  u[0] = _mm512_shuffle_f64x2(t[0], t[2], 0x88);  // [0] and [4] of rows 0..3
  u[1] = _mm512_shuffle_f64x2(t[0], t[2], 0xDD);  // [2] and [6]
  u[2] = _mm512_shuffle_f64x2(t[1], t[3], 0x88);  // [1] and [5]
  u[3] = _mm512_shuffle_f64x2(t[1], t[3], 0xDD);  // [3] and [7]
  u[4] = _mm512_shuffle_f64x2(t[4], t[6], 0x88);
  u[5] = _mm512_shuffle_f64x2(t[4], t[6], 0xDD);
  u[6] = _mm512_shuffle_f64x2(t[5], t[7], 0x88);
  u[7] = _mm512_shuffle_f64x2(t[5], t[7], 0xDD);
  r[0] = _mm512_shuffle_f64x2(u[0], u[4], 0x88);
  r[4] = _mm512_shuffle_f64x2(u[0], u[4], 0xDD);
  r[2] = _mm512_shuffle_f64x2(u[1], u[5], 0x88);
  r[6] = _mm512_shuffle_f64x2(u[1], u[5], 0xDD);
  r[1] = _mm512_shuffle_f64x2(u[2], u[6], 0x88);
  r[5] = _mm512_shuffle_f64x2(u[2], u[6], 0xDD);
  r[3] = _mm512_shuffle_f64x2(u[3], u[7], 0x88);
  r[7] = _mm512_shuffle_f64x2(u[3], u[7], 0xDD);
}

/// 1 / sqrt(a) for normal a in [2^-900, 2^900]: the 14-bit estimate vrsqrt14pd and two Newton
/// steps y += y (1/2 - (a/2) y^2) (error <= 2 ulp, measured max 1.6 ulp over 10^7 random a; no
/// use of the divider, whose latency chain was ~20 % of a block at lmax 10).
inline V rsqrt(const V& a) {
  const V h = a * V(0.5), half(0.5);
  V y = _mm512_rsqrt14_pd(a);
  // 1/2 - (h y) y by one vfnmadd (the same bits as an FMA of -(h y): negation is exact)
  y = madd(y, V(_mm512_fnmadd_pd(h * y, y, half)), y);
  return madd(y, V(_mm512_fnmadd_pd(h * y, y, half)), y);
}

/// The coordinates q[0], q[3 pstride], ..., q[21 pstride] as doubles, by one gather (see the
/// AVX2 one: a vector load of scalar stores waits for every earlier store).
template <class TI>
inline V gather3(const TI* q, int64_t pstride) {
  const int64_t s = 3 * pstride;
  const __m512i idx = _mm512_mullo_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(s));
  if constexpr (std::is_same<TI, double>::value) return V(_mm512_i64gather_pd(idx, q, 8));
  else return V(_mm512_cvtps_pd(_mm512_i64gather_ps(idx, q, 4)));
}

/// The 16 doubles at q split into even (a) and odd (b) elements: two loads and two two-source
/// permutes (no gather).
inline void deinterleave2(const double* q, V& a, V& b) {
  const __m512d x = _mm512_loadu_pd(q), y = _mm512_loadu_pd(q + 8);
  a = V(_mm512_permutex2var_pd(x, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), y));
  b = V(_mm512_permutex2var_pd(x, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), y));
}

/// The 24 contiguous elements at q (8 points of x, y, z): three loads and two two-source
/// permutes a coordinate (no gather: three gathers were ~18 % of the low-degree kernel at L = 1).
template <class TI>
inline void deinterleave3(const TI* q, V& x, V& y, V& z) {
  __m512d a, b, c;
  if constexpr (std::is_same<TI, double>::value) {
    a = _mm512_loadu_pd(q);
    b = _mm512_loadu_pd(q + 8);
    c = _mm512_loadu_pd(q + 16);
  } else {
    a = _mm512_cvtps_pd(_mm256_loadu_ps(q));
    b = _mm512_cvtps_pd(_mm256_loadu_ps(q + 8));
    c = _mm512_cvtps_pd(_mm256_loadu_ps(q + 16));
  }
  // element e of the 24 is a[e], b[e - 8], c[e - 16]; index 8 + i takes lane i of the second source
  const __m512d tx = _mm512_permutex2var_pd(a, _mm512_set_epi64(0, 0, 15, 12, 9, 6, 3, 0), b);
  const __m512d ty = _mm512_permutex2var_pd(a, _mm512_set_epi64(0, 0, 0, 13, 10, 7, 4, 1), b);
  const __m512d tz = _mm512_permutex2var_pd(a, _mm512_set_epi64(0, 0, 0, 14, 11, 8, 5, 2), b);
  x = V(_mm512_permutex2var_pd(tx, _mm512_set_epi64(13, 10, 5, 4, 3, 2, 1, 0), c));  // 18 21
  y = V(_mm512_permutex2var_pd(ty, _mm512_set_epi64(14, 11, 8, 4, 3, 2, 1, 0), c));  // 16 19 22
  z = V(_mm512_permutex2var_pd(tz, _mm512_set_epi64(15, 12, 9, 4, 3, 2, 1, 0), c));  // 17 20 23
}

/// pack4n's second stage: q[g][j] = group g's 4 features of points 2j (low half) and 2j + 1
/// (high half); the 2 NG half vectors of points 2j, 2j + 1 pair up into NG outputs, one lane
/// shuffle or blend each.
template <int NG>
__attribute__((always_inline)) inline void pack4n_pairs(const __m512d (*q)[4], V* o) {
  if constexpr (NG == 1) {
    for (int j = 0; j < 4; ++j) o[j] = V(q[0][j]);
  } else {
    for (int j = 0; j < 4; ++j)
      for (int m = 0; m < NG; ++m) {
        // halves 2m and 2m + 1 of the sequence (group 0..NG-1 of point 2j, then of point 2j + 1)
        const int h0 = 2 * m, h1 = 2 * m + 1;
        const __m512d s0 = q[h0 % NG][j], s1 = q[h1 % NG][j];
        const int a0 = h0 < NG ? 0 : 2, a1 = h1 < NG ? 0 : 2;
        switch (a0 + a1 / 2) {  // 128-bit lanes a0, a0 + 1 of s0, then a1, a1 + 1 of s1
          case 0: o[j * NG + m] = V(_mm512_shuffle_f64x2(s0, s1, 0x44)); break;
          case 1: o[j * NG + m] = V(_mm512_mask_blend_pd(0xF0, s0, s1)); break;
          case 2: o[j * NG + m] = V(_mm512_shuffle_f64x2(s0, s1, 0x4E)); break;
          default: o[j * NG + m] = V(_mm512_shuffle_f64x2(s0, s1, 0xEE)); break;
        }
      }
  }
}

/// 4 NG features of 8 points in the order p 4 NG + k. Per group of 4 features, 4 unpacks and 8
/// 128-bit lane shuffles give q[j] = its features of points 2j (low half) and 2j + 1 (high
/// half); then pack4n_pairs. (The 8 x 8 transpose with rows of 4 or 12 written by overlapping
/// 8-wide stores, many across a line, was the other way: 2x the time of the whole lmax-1 kernel.)
template <int NG>
__attribute__((always_inline)) inline void pack4n(const V* f, V* o) {
  __m512d q[NG][4];
  for (int g = 0; g < NG; ++g) {
    const V* h = f + 4 * g;
    const __m512d a = _mm512_unpacklo_pd(h[0], h[1]);  // (f0 f1) of points 0 2 4 6
    const __m512d b = _mm512_unpackhi_pd(h[0], h[1]);  // (f0 f1) of points 1 3 5 7
    const __m512d c = _mm512_unpacklo_pd(h[2], h[3]);
    const __m512d d = _mm512_unpackhi_pd(h[2], h[3]);
    const __m512d e = _mm512_shuffle_f64x2(a, c, 0x44);  // a0 a1 c0 c1 (128-bit lanes)
    const __m512d u = _mm512_shuffle_f64x2(b, d, 0x44);  // b0 b1 d0 d1
    const __m512d v = _mm512_shuffle_f64x2(a, c, 0xEE);  // a2 a3 c2 c3
    const __m512d w = _mm512_shuffle_f64x2(b, d, 0xEE);  // b2 b3 d2 d3
    q[g][0] = _mm512_shuffle_f64x2(e, u, 0x88);  // a0 c0 b0 d0: point 0, point 1
    q[g][1] = _mm512_shuffle_f64x2(e, u, 0xDD);  // a1 c1 b1 d1: points 2, 3
    q[g][2] = _mm512_shuffle_f64x2(v, w, 0x88);
    q[g][3] = _mm512_shuffle_f64x2(v, w, 0xDD);
  }
  pack4n_pairs<NG>(q, o);
}

/// pack4n where the first feature of every group, f[4 g], is one lane-uniform vector (f[0], a
/// constant such as Y_00, or the zero derivatives of degree 0): per group two two-source
/// permutes pair features 1 and 3 of points 0-3 and of points 4-7, and one vpermi2pd per pair of
/// points adds feature 2 and takes f[0] from the lanes of its index vector that the mask leaves
/// alone: 6 permutes a group instead of 12 shuffles.
template <int NG>
__attribute__((always_inline)) inline void pack4n_c0(const V* f, V* o) {
  const __m512i c = _mm512_castpd_si512(f[0]);
  // lanes of the pair (2j, 2j + 1): c, f1, f2, f3 of point 2j, then of 2j + 1; in a = A_lo / A_hi
  // point 2j sits at 2r (f1) and 2r + 1 (f3), r = 2j mod 4; f2 (second source) at 8 + 2j
  const __m512i i0 = _mm512_mask_blend_epi64(0x11, _mm512_set_epi64(3, 9, 2, 0, 1, 8, 0, 0), c);
  const __m512i i1 = _mm512_mask_blend_epi64(0x11, _mm512_set_epi64(7, 11, 6, 0, 5, 10, 4, 0), c);
  const __m512i i2 = _mm512_mask_blend_epi64(0x11, _mm512_set_epi64(3, 13, 2, 0, 1, 12, 0, 0), c);
  const __m512i i3 = _mm512_mask_blend_epi64(0x11, _mm512_set_epi64(7, 15, 6, 0, 5, 14, 4, 0), c);
  const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);   // f1 f3 of points 0 1 2 3
  const __m512i hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);  // of points 4 5 6 7
  __m512d q[NG][4];
  for (int g = 0; g < NG; ++g) {
    const V* h = f + 4 * g;
    const __m512d al = _mm512_permutex2var_pd(h[1], lo, h[3]);
    const __m512d ah = _mm512_permutex2var_pd(h[1], hi, h[3]);
    q[g][0] = _mm512_mask2_permutex2var_pd(al, i0, 0xEE, h[2]);
    q[g][1] = _mm512_mask2_permutex2var_pd(al, i1, 0xEE, h[2]);
    q[g][2] = _mm512_mask2_permutex2var_pd(ah, i2, 0xEE, h[2]);
    q[g][3] = _mm512_mask2_permutex2var_pd(ah, i3, 0xEE, h[2]);
  }
  pack4n_pairs<NG>(q, o);
}

/// fpack4n's permutation indices: output m's 128-bit lane h is lane c of a[4 g + k] (point
/// p = 4c + k, group g of the sequence s = 4m + h = NG p + g); lo fills lanes 0-1 from two
/// sources, hi lanes 2-3.
template <int NG>
struct fpack4n_plan {
  alignas(64) int32_t lo[4 * NG][16];
  alignas(64) int32_t hi[4 * NG][16];
  int src[4 * NG][4];
  constexpr fpack4n_plan() : lo(), hi(), src() {
    for (int m = 0; m < 4 * NG; ++m)
      for (int h = 0; h < 4; ++h) {
        const int s = 4 * m + h, p = s / NG, g = s % NG, c = p / 4, k = p % 4;
        src[m][h] = 4 * g + k;
        for (int j = 0; j < 4; ++j) {
          if (h < 2) lo[m][4 * h + j] = 16 * h + 4 * c + j;
          else hi[m][4 * h + j] = 16 * (h - 2) + 4 * c + j;
        }
      }
  }
};

/// 4 NG float features of 16 points in the order p 4 NG + k. Per group of 4 features, 4
/// unpacks give a[k] whose 128-bit lane c holds the group's features of point 4c + k; each
/// output then takes its four 128-bit lanes from those by two two-source permutes and a blend.
template <int NG>
__attribute__((always_inline)) inline void fpack4n(const VF* f, VF* o) {
  static constexpr fpack4n_plan<NG> P{};
  __m512 a[4 * NG];
  for (int g = 0; g < NG; ++g) {
    const VF* h = f + 4 * g;
    const __m512 u0 = _mm512_unpacklo_ps(h[0], h[1]), u1 = _mm512_unpackhi_ps(h[0], h[1]);
    const __m512 u2 = _mm512_unpacklo_ps(h[2], h[3]), u3 = _mm512_unpackhi_ps(h[2], h[3]);
    a[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(u0), _mm512_castps_pd(u2)));
    a[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(u0), _mm512_castps_pd(u2)));
    a[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(u1), _mm512_castps_pd(u3)));
    a[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(u1), _mm512_castps_pd(u3)));
  }
#pragma GCC unroll 48
  for (int m = 0; m < 4 * NG; ++m) {
    const __m512 t01 = _mm512_permutex2var_ps(a[P.src[m][0]], _mm512_load_si512(P.lo[m]), a[P.src[m][1]]);
    const __m512 t23 = _mm512_permutex2var_ps(a[P.src[m][2]], _mm512_load_si512(P.hi[m]), a[P.src[m][3]]);
    o[m] = _mm512_mask_blend_ps(0xFF00, t01, t23);
  }
}

/// h[0] in lanes 0-7, h[1] in lanes 8-15, rounded to float32.
inline VF narrow(const V* h) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(h[0])), _mm512_cvtpd_ps(h[1]), 1);
}
/// Lanes [8 h, 8 h + 8) of v as doubles.
inline V widen(const VF& v, std::size_t h) {
  return _mm512_cvtps_pd(h == 0 ? _mm512_castps512_ps256(v) : _mm512_extractf32x8_ps(v, 1));
}

/// One aligned 64-byte line from s to d by one 512-bit move, non-temporal when NT.
template <bool NT>
inline void copy_line(char* d, const char* s) {
  const __m512i v = _mm512_load_si512(reinterpret_cast<const __m512i*>(s));
  if constexpr (NT) _mm512_stream_si512(reinterpret_cast<__m512i*>(d), v);
  else _mm512_store_si512(reinterpret_cast<__m512i*>(d), v);
}
/// Orders the non-temporal stores before any later store.
inline void store_fence() { _mm_sfence(); }

/// Whole double vectors written in address order from dst on (the k-th put holds
/// dst[8k .. 8k + 8)), as aligned 64-byte lines with non-temporal stores: where dst is not on a
/// line boundary (h = its distance to the next one, in elements), each line joins the last h..7
/// lanes of one vector with the first 0..h-1 of the next by one two-source permute, and the
/// partial lines at both ends are ordinary masked stores (the first at the first put, the last
/// at finish()). dst must be 8-byte aligned. The caller orders the stores (store_fence) before
/// the output is read.
inline constexpr bool kVecStream = true;
struct vec_stream {
  double* d = nullptr;  // the next whole line (h > 0), or the next vector (h == 0)
  unsigned h = 0;
  bool first = true;
  __m512i idx;
  __m512d prev;
  void begin(double* dst) {
    const unsigned a = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(dst) & 63u) / 8u;
    h = (8u - a) & 7u;
    d = dst + h;
    first = true;
    idx = _mm512_add_epi64(_mm512_set1_epi64(h), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
    prev = _mm512_setzero_pd();
  }
  __attribute__((always_inline)) void put(const V& v) {
    if (h == 0) {
      _mm512_stream_pd(d, v);
      d += 8;
      return;
    }
    if (__builtin_expect(first, 0)) {
      _mm512_mask_storeu_pd(d - h, static_cast<__mmask8>((1u << h) - 1u), v);
      first = false;
    } else {
      _mm512_stream_pd(d, _mm512_permutex2var_pd(prev, idx, v));
      d += 8;
    }
    prev = v;
  }
  void finish() {
    if (h != 0 && !first) _mm512_mask_storeu_pd(d - h, static_cast<__mmask8>(~((1u << h) - 1u) & 0xFFu), prev);
  }
};

/// The register type of a line of TO (std::conditional would drop the vector types' attributes).
template <class TO>
struct line_reg;
template <>
struct line_reg<double> {
  using type = __m512d;
};
template <>
struct line_reg<float> {
  using type = __m512;
};

/// One 64-byte line of TO elements (8 doubles or 16 floats): one 512-bit vector.
template <class TO>
struct lines {
  using LV = typename line_reg<TO>::type;
  static constexpr int64_t unit = 64 / static_cast<int64_t>(sizeof(TO));
  /// The whole line at a (64-byte aligned), non-temporal when nt.
  static void full(TO* a, const LV& v, bool nt) {
    if constexpr (unit == 8) {
      if (nt) _mm512_stream_pd(a, v);
      else _mm512_store_pd(a, v);
    } else {
      if (nt) _mm512_stream_ps(a, v);
      else _mm512_store_ps(a, v);
    }
  }
  /// The lanes of bit mask m.
  static void masked(TO* a, uint32_t m, const LV& v) {
    if constexpr (unit == 8) _mm512_mask_storeu_pd(a, static_cast<__mmask8>(m), v);
    else _mm512_mask_storeu_ps(a, static_cast<__mmask16>(m), v);
  }
  /// Lanes of m from b, the others from a.
  static LV blend(uint32_t m, const LV& a, const LV& b) {
    if constexpr (unit == 8) return _mm512_mask_mov_pd(a, static_cast<__mmask8>(m), b);
    else return _mm512_mask_mov_ps(a, static_cast<__mmask16>(m), b);
  }
};

/// 8 x 8 transpose of the feature vectors src[0..8) (64-byte aligned, 8 doubles each) into
/// r[p] = (src[0][p], ..., src[7][p]). The first stage is done by the loads (256-bit halves
/// inserted from memory), the rest by 8 unpacks and 8 two-source permutes: 16 shuffle-port
/// operations instead of the 24 of an all-register transpose.
inline void transpose8_load(const double* src, __m512d* r) {
  const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  for (int h = 0; h < 2; ++h) {  // points 4h..4h+3
    __m512d a[4];
    for (int i = 0; i < 4; ++i)  // a[i] = (f_i | f_{i+4}) of those points
      a[i] = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_load_pd(src + 8 * i + 4 * h)),
                                _mm256_load_pd(src + 8 * (i + 4) + 4 * h), 1);
    const __m512d t0 = _mm512_unpacklo_pd(a[0], a[1]), t1 = _mm512_unpackhi_pd(a[0], a[1]);
    const __m512d t2 = _mm512_unpacklo_pd(a[2], a[3]), t3 = _mm512_unpackhi_pd(a[2], a[3]);
    r[4 * h + 0] = _mm512_permutex2var_pd(t0, lo, t2);
    r[4 * h + 1] = _mm512_permutex2var_pd(t1, lo, t3);
    r[4 * h + 2] = _mm512_permutex2var_pd(t0, hi, t2);
    r[4 * h + 3] = _mm512_permutex2var_pd(t1, hi, t3);
  }
}

/// 8 rows of 16 features: feature i of 8 points at src + FS i (8 floats, 32-byte aligned) into
/// r[p] = (f_0[p], ..., f_15[p]), p < 8: 24 shuffle-port operations (loads, unpack, shuffle, a
/// two-source permute of 128-bit lanes).
template <int FS>
inline void transpose8x16_load(const float* src, __m512* r) {
  const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
  const __m512i hi = _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
  __m512 a[8], t[8], u[8];
  for (int i = 0; i < 8; ++i)  // a[i] = (f_i | f_{i+8}) of those points
    a[i] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_load_ps(src + FS * i)),
                              _mm256_load_ps(src + FS * (i + 8)), 1);
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(a[2 * i], a[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(a[2 * i], a[2 * i + 1]);
  }
  for (int h = 0; h < 2; ++h) {  // features 4h..4h+3 of each half
    u[4 * h + 0] = _mm512_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);      // points 0 | 4
    u[4 * h + 1] = _mm512_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);      // points 1 | 5
    u[4 * h + 2] = _mm512_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);  // points 2 | 6
    u[4 * h + 3] = _mm512_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);  // points 3 | 7
  }
  for (int p = 0; p < 4; ++p) {
    r[p] = _mm512_permutex2var_ps(u[p], lo, u[p + 4]);
    r[p + 4] = _mm512_permutex2var_ps(u[p], hi, u[p + 4]);
  }
}

/// 16 x 16 transpose of the float feature vectors src[0..16) (64-byte aligned, 16 floats each)
/// into r[p] = (src[0][p], ..., src[15][p]). The loads put features i and i + 8 of 8 points in
/// the two 256-bit halves (inserted from memory); then the classic 8 x 8 transpose runs in both
/// halves at once (unpack, shuffle, a two-source permute of 128-bit lanes): 48 shuffle-port
/// operations per 256 values, against 64 + 16 conversions for the same floats from float64.
/// Each 8-point half is transpose8x16_load.
inline void transpose16_load(const float* src, __m512* r) {
  for (int g = 0; g < 2; ++g) transpose8x16_load<16>(src + 8 * g, r + 8 * g);  // points 8g..8g+7
}

/// The lines of the 8 rows of a block from 8 float64 features (feature k of row p at
/// src[8 k + p]): one 8 x 8 tile.
template <int R>
inline void line_rows(const double* src, __m512d* v) {
  static_assert(R == 8, "AVX-512 double lines come from 8-point blocks");
  transpose8_load(src, v);
}
/// The lines of the R rows of a block from 16 float features (feature k of row p at
/// src[R k + p]): R = 16 (float32 compute, a 16 x 16 tile) or 8 (float64 compute, values
/// rounded as they were produced).
template <int R>
inline void line_rows(const float* src, __m512* v) {
  static_assert(R == 16 || R == 8, "AVX-512 float lines come from 16- or 8-point blocks");
  if constexpr (R == 16) transpose16_load(src, v);
  else transpose8x16_load<8>(src, v);
}

/// 16 x 16 float tile: see transpose16_load.
inline void ftile_rows(const float* src, VF* r) {
  __m512 t[16];
  transpose16_load(src, t);
  for (int p = 0; p < 16; ++p) r[p] = t[p];
}
/// The first c (1 <= c <= 16) lanes of v at d (one masked store).
inline void store_first(float* d, const VF& v, std::size_t c) {
  const __mmask16 m = static_cast<__mmask16>(c >= 16 ? 0xFFFFu : (1u << c) - 1u);
  _mm512_mask_storeu_ps(d, m, v);
}

}  // namespace vx
}  // namespace POSENC_NS
}  // namespace posenc
