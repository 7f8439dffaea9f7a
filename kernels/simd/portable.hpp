// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/simd/portable.hpp — portable C++ implementations of the kernels/simd/ vocabulary
// (see kernels/simd/isa.hpp for the list), written over vec<T> and plain arrays. The scalar and
// NEON files take the ones they have no better instruction sequence for; every one is a correct
// implementation for any vector width.
#pragma once

#include "kernels/simd.hpp"

namespace posenc {
namespace POSENC_NS {
namespace vx {

using V = vec<double>;
using VF = vec<float>;
inline constexpr std::size_t W = width<double>;
inline constexpr std::size_t WF = width<float>;
/// Float vectors hold the lanes of kHalves double vectors (2 on every SIMD path, 1 on scalar).
inline constexpr std::size_t kHalves = WF / W;
static_assert(kHalves * W == WF, "a float vector holds a whole number of double vectors");

/// The ISA of this translation unit (POSENC_NS), for tuning decisions written as constexpr.
enum class isa_id { scalar, avx2, avx512, neon };

/// In-place transpose of the W x W tile r[0..W) (r[i] lane j -> r[j] lane i): defined by each
/// ISA file.
inline void transpose(V* r);

/// r[i] = the W values at src + W i (aligned to the vector), transposed: r[p] lane i = src[W i + p].
inline void load_transpose(const double* src, V* r) {
  for (std::size_t i = 0; i < W; ++i) r[i] = V::load_aligned(src + W * i);
  transpose(r);
}

namespace portable {

/// 1 / sqrt(a), correctly rounded sqrt and division (<= 1 ulp).
inline V rsqrt(const V& a) { return V(1.0) / sqrt(a); }

/// The coordinates q[0], q[3 pstride], ..., q[3 (W-1) pstride] as doubles. W scalar stores and a
/// vector load of them (a gather where the ISA has one is better: such a load cannot be
/// forwarded from the stores, so it waits for every earlier store to leave the store buffer).
template <class TI>
inline V gather3(const TI* q, int64_t pstride) {
  const int64_t s = 3 * pstride;
  alignas(64) double b[W];
  for (std::size_t i = 0; i < W; ++i) b[i] = static_cast<double>(q[static_cast<int64_t>(i) * s]);
  return V::load_aligned(b);
}

/// The 3W contiguous elements at q (W points of x, y, z) as three vectors of doubles.
template <class TI>
inline void deinterleave3(const TI* q, V& x, V& y, V& z) {
  x = gather3(q, 1);
  y = gather3(q + 1, 1);
  z = gather3(q + 2, 1);
}

/// o[j] lane i = the value at p NF + k = R j + i of f[k] lane p (NF = 4 NG features, p < R, R
/// lanes of VT), through memory.
template <int NG, class VT>
inline void pack4n_lanes(const VT* f, VT* o) {
  using E = typename VT::value_type;
  constexpr std::size_t NF = 4 * static_cast<std::size_t>(NG), R = width<E>;
  alignas(64) E a[NF * R];
  for (std::size_t k = 0; k < NF; ++k) {
    alignas(64) E b[R];
    f[k].store_aligned(b);
    for (std::size_t p = 0; p < R; ++p) a[NF * p + k] = b[p];
  }
  for (std::size_t j = 0; j < NF; ++j) o[j] = VT::load_aligned(a + R * j);
}
/// pack4n_lanes of float64 vectors (W points).
template <int NG>
inline void pack4n(const V* f, V* o) { pack4n_lanes<NG>(f, o); }
/// For the 3 width<T> contiguous elements at q (width<T> points of x, y, z): nonzero if one is
/// inf or NaN or a point is (+-0, +-0, +-0) (a subnormal is not zero). Element by element; the
/// paths with kHasXyzBad = true have a vector form.
template <class T>
inline uint64_t xyz_bad_block(const T* q) {
  uint64_t r = 0;
  for (std::size_t i = 0; i < width<T>; ++i) {
    const T x = q[3 * i], y = q[3 * i + 1], z = q[3 * i + 2];
    r |= static_cast<uint64_t>(!(x * T(0) + y * T(0) + z * T(0) == T(0))) |
         static_cast<uint64_t>(x == T(0) && y == T(0) && z == T(0));
  }
  return r;
}

/// pack4n where f[4 g] is one lane-uniform vector for every g (the same through memory).
template <int NG>
inline void pack4n_c0(const V* f, V* o) { pack4n_lanes<NG>(f, o); }
/// pack4n_lanes of float32 vectors (WF points).
template <int NG>
inline void fpack4n(const VF* f, VF* o) { pack4n_lanes<NG>(f, o); }

/// tab[k mod N] in each lane, k the integer held in the low mantissa bits of t = k + 1.5 2^52
/// (|k| < 2^51), lane by lane from memory (N a power of 2).
template <int N>
inline V lookup_lanes(const double* tab, const V& t) {
  alignas(64) double a[W];
  store_u(a, t);
  for (std::size_t i = 0; i < W; ++i) {
    uint64_t b;
    std::memcpy(&b, a + i, sizeof b);
    a[i] = tab[b & uint64_t(N - 1)];
  }
  return load(a);
}

/// The 2W doubles at q split into even (a) and odd (b) elements (pairs such as longitude /
/// latitude to one vector each).
inline void deinterleave2(const double* q, V& a, V& b) {
  alignas(64) double e[W], o[W];
  for (std::size_t i = 0; i < W; ++i) {
    e[i] = q[2 * i];
    o[i] = q[2 * i + 1];
  }
  a = V::load_aligned(e);
  b = V::load_aligned(o);
}

/// The kHalves double vectors h[0..kHalves) rounded to float32, half h in lanes [W h, W h + W).
inline VF narrow(const V* h) {
  alignas(64) double d[WF];
  alignas(64) float f[WF];
  for (std::size_t i = 0; i < kHalves; ++i) h[i].store_aligned(d + i * W);
  for (std::size_t i = 0; i < WF; ++i) f[i] = static_cast<float>(d[i]);
  return VF::load_aligned(f);
}
/// Lanes [W h, W h + W) of v as doubles (exact).
inline V widen(const VF& v, std::size_t h) {
  alignas(64) float f[WF];
  alignas(64) double d[W];
  v.store_aligned(f);
  for (std::size_t i = 0; i < W; ++i) d[i] = static_cast<double>(f[W * h + i]);
  return V::load_aligned(d);
}

/// One aligned 64-byte line from s to d (no non-temporal store here: NT is ignored).
template <bool NT>
inline void copy_line(char* d, const char* s) {
  std::memcpy(d, s, 64);
}
/// Orders earlier non-temporal stores before later stores: nothing to order without them.
inline void store_fence() {}

/// Whole double vectors written in address order from dst on (the k-th put holds
/// dst[W k .. W k + W)); finish() after the last put. Here ordinary unaligned stores; the paths
/// with kVecStream = true write the lines non-temporally.
struct vec_stream {
  double* d = nullptr;
  void begin(double* dst) { d = dst; }
  void put(const V& v) {
    v.store_unaligned(d);
    d += W;
  }
  void finish() {}
};

/// One 64-byte line of TO elements (8 doubles or 16 floats) and its stores.
template <class TO>
struct lines {
  static constexpr int64_t unit = 64 / static_cast<int64_t>(sizeof(TO));
  struct LV {
    TO v[unit];
  };
  /// The whole line at a (64-byte aligned).
  static void full(TO* a, const LV& v, bool /*nt*/) { std::memcpy(a, v.v, 64); }
  /// The lanes of bit mask m.
  static void masked(TO* a, uint32_t m, const LV& v) {
    for (int64_t i = 0; i < unit; ++i)
      if ((m >> i) & 1u) a[i] = v.v[i];
  }
  /// Lanes of m from b, the others from a.
  static LV blend(uint32_t m, const LV& a, const LV& b) {
    LV r;
    for (int64_t i = 0; i < unit; ++i) r.v[i] = ((m >> i) & 1u) ? b.v[i] : a.v[i];
    return r;
  }
};

/// The lines of R rows (points) from unit features held feature-major: feature k of row p at
/// src[R k + p]; v[p] gets features 0..unit-1 of row p.
template <int R, class TO>
inline void line_rows(const TO* src, typename lines<TO>::LV* v) {
  for (int p = 0; p < R; ++p)
    for (int64_t k = 0; k < lines<TO>::unit; ++k) v[p].v[k] = src[R * k + p];
}

/// WF x WF transpose of float features: src + WF i holds feature i of WF points (aligned);
/// r[p] = (feature 0, ..., feature WF-1) of point p.
inline void ftile_rows(const float* src, VF* r) {
  for (std::size_t p = 0; p < WF; ++p) {
    alignas(64) float b[WF];
    for (std::size_t i = 0; i < WF; ++i) b[i] = src[WF * i + p];
    r[p] = VF::load_aligned(b);
  }
}
/// The first c (1 <= c <= WF) lanes of v at d.
inline void store_first(float* d, const VF& v, std::size_t c) {
  if (c == WF) v.store_unaligned(d);
  else store_partial(d, v, c);
}

}  // namespace portable
}  // namespace vx
}  // namespace POSENC_NS
}  // namespace posenc
