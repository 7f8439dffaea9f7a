// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/simd.hpp — the per-ISA SIMD vocabulary every kernel header is written in.
//
// Every file in kernels/ is compiled once per ISA (cmake/PosencIsa.cmake) with
//   POSENC_NS = isa_scalar | isa_avx2 | isa_avx512 | isa_neon   and   POSENC_ISA_<NAME> = 1.
// Everything a kernel header defines lives in namespace posenc::POSENC_NS, so code built with
// different ISA flags never shares a symbol (the ODR rule of docs/DESIGN.md is structural, as in
// Highway; tests/check_symbols.py audits it). Do not put non-template code for kernels anywhere
// else, and do not use std containers in kernels (their out-of-line members are weak symbols that
// the linker would merge across ISAs): lib/ allocates scratch and passes pointers.
//
// Inside the namespace:
//   arch            xsimd architecture of this TU (scalar_arch for the scalar path)
//   vec<T>          xsimd::batch<T, arch>, or sbatch<T> (one lane) on the scalar path
//   vbool<T>        the matching mask type
//   width<T>        lanes of vec<T>
//   kHasFma         true where fma() is one hardware instruction
// and free functions that work on both (found by ADL, so write them unqualified):
//   load / store_u (unaligned; never call `store` unqualified: ADL picks xsimd's aligned one), madd(a, b, c) = a*b + c (fused where kHasFma), two_prod_err,
//   store_f64_as_f32, store_f64_as_f32_interleaved, ... see below.
#pragma once

#ifndef POSENC_NS
#error "kernels/ headers are compiled per ISA: POSENC_NS must be defined (cmake/PosencIsa.cmake)"
#endif

#include <xsimd/xsimd.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(POSENC_ISA_AVX2) || defined(POSENC_ISA_AVX512)
#include <immintrin.h>
#endif

/// Forces a small lambda of a hot loop inline (written after its parameter list): GCC's
/// inlining limits otherwise drop it out of line once the enclosing unrolled body grows.
#define POSENC_HOT_LAMBDA __attribute__((always_inline))
#if defined(POSENC_ISA_NEON)
#include <arm_neon.h>
#endif

namespace posenc {
namespace POSENC_NS {

// ------------------------------------------------------------------------------------------
// The scalar path: a one-lane "batch" with the subset of the xsimd API kernels use.
// ------------------------------------------------------------------------------------------
struct scalar_arch {
  static constexpr const char* name() { return "scalar"; }
};

template <class T>
struct sbool {
  bool v;
  sbool() = default;
  constexpr sbool(bool b) : v(b) {}
  friend sbool operator&(sbool a, sbool b) { return a.v && b.v; }
  friend sbool operator|(sbool a, sbool b) { return a.v || b.v; }
  friend sbool operator^(sbool a, sbool b) { return a.v != b.v; }
  friend sbool operator!(sbool a) { return !a.v; }
  friend sbool operator~(sbool a) { return !a.v; }
};

template <class T>
struct sbatch {
  using value_type = T;
  using batch_bool_type = sbool<T>;
  static constexpr std::size_t size = 1;
  T v;
  sbatch() = default;
  constexpr sbatch(T x) : v(x) {}
  static sbatch load_unaligned(const T* p) { return sbatch(*p); }
  static sbatch load_aligned(const T* p) { return sbatch(*p); }
  static sbatch broadcast(T x) { return sbatch(x); }
  void store_unaligned(T* p) const { *p = v; }
  void store_aligned(T* p) const { *p = v; }
  T get(std::size_t) const { return v; }
  sbatch& operator+=(sbatch o) { v += o.v; return *this; }
  sbatch& operator-=(sbatch o) { v -= o.v; return *this; }
  sbatch& operator*=(sbatch o) { v *= o.v; return *this; }
  sbatch& operator/=(sbatch o) { v /= o.v; return *this; }
  friend sbatch operator+(sbatch a, sbatch b) { return a.v + b.v; }
  friend sbatch operator-(sbatch a, sbatch b) { return a.v - b.v; }
  friend sbatch operator*(sbatch a, sbatch b) { return a.v * b.v; }
  friend sbatch operator/(sbatch a, sbatch b) { return a.v / b.v; }
  friend sbatch operator-(sbatch a) { return -a.v; }
  friend sbool<T> operator==(sbatch a, sbatch b) { return a.v == b.v; }
  friend sbool<T> operator!=(sbatch a, sbatch b) { return a.v != b.v; }
  friend sbool<T> operator<(sbatch a, sbatch b) { return a.v < b.v; }
  friend sbool<T> operator<=(sbatch a, sbatch b) { return a.v <= b.v; }
  friend sbool<T> operator>(sbatch a, sbatch b) { return a.v > b.v; }
  friend sbool<T> operator>=(sbatch a, sbatch b) { return a.v >= b.v; }
};

template <class T> inline sbatch<T> select(sbool<T> m, sbatch<T> a, sbatch<T> b) { return m.v ? a : b; }
template <class T> inline sbatch<T> abs(sbatch<T> a) { return std::fabs(a.v); }
template <class T> inline sbatch<T> sqrt(sbatch<T> a) { return std::sqrt(a.v); }
template <class T> inline sbatch<T> floor(sbatch<T> a) { return std::floor(a.v); }
template <class T> inline sbatch<T> ceil(sbatch<T> a) { return std::ceil(a.v); }
template <class T> inline sbatch<T> nearbyint(sbatch<T> a) { return std::nearbyint(a.v); }
template <class T> inline sbatch<T> trunc(sbatch<T> a) { return std::trunc(a.v); }
template <class T> inline sbatch<T> exp(sbatch<T> a) { return std::exp(a.v); }
template <class T> inline sbatch<T> log(sbatch<T> a) { return std::log(a.v); }
template <class T> inline sbatch<T> min(sbatch<T> a, sbatch<T> b) { return a.v < b.v ? a : b; }
template <class T> inline sbatch<T> max(sbatch<T> a, sbatch<T> b) { return a.v > b.v ? a : b; }
template <class T> inline sbatch<T> fma(sbatch<T> a, sbatch<T> b, sbatch<T> c) { return std::fma(a.v, b.v, c.v); }
template <class T> inline T reduce_add(sbatch<T> a) { return a.v; }
template <class T> inline T reduce_max(sbatch<T> a) { return a.v; }
template <class T> inline T reduce_min(sbatch<T> a) { return a.v; }
template <class T> inline bool any(sbool<T> m) { return m.v; }
template <class T> inline bool all(sbool<T> m) { return m.v; }

// ------------------------------------------------------------------------------------------
// This TU's architecture
// ------------------------------------------------------------------------------------------
#if defined(POSENC_ISA_SCALAR)
using arch = scalar_arch;
inline constexpr bool kHasFma = false;
#elif defined(POSENC_ISA_AVX2)
using arch = xsimd::fma3<xsimd::avx2>;
inline constexpr bool kHasFma = true;
#elif defined(POSENC_ISA_AVX512)
using arch = xsimd::avx512bw;
inline constexpr bool kHasFma = true;
#elif defined(POSENC_ISA_NEON)
using arch = xsimd::neon64;
inline constexpr bool kHasFma = true;
#else
#error "unknown POSENC_ISA_*"
#endif

template <class T, class A>
struct vec_type { using type = xsimd::batch<T, A>; };
template <class T>
struct vec_type<T, scalar_arch> { using type = sbatch<T>; };

template <class T> using vec = typename vec_type<T, arch>::type;
template <class T> using vbool = typename vec<T>::batch_bool_type;
template <class T> inline constexpr std::size_t width = vec<T>::size;

/// Largest number of double / float lanes of any ISA (for padding of scratch arrays in lib/).
inline constexpr std::size_t kMaxLanesF64 = 8;
inline constexpr std::size_t kMaxLanesF32 = 16;

// ------------------------------------------------------------------------------------------
// Loads, stores, arithmetic helpers valid for every path
// ------------------------------------------------------------------------------------------
template <class T> inline vec<T> load(const T* p) { return vec<T>::load_unaligned(p); }
/// Unaligned store. Deliberately not named `store`: an unqualified store(p, batch) finds
/// xsimd::store by ADL, which in xsimd 8.1 is the ALIGNED store and wins overload resolution.
template <class T> inline void store_u(T* p, const vec<T>& v) { v.store_unaligned(p); }

/// Loads the first `count` (< width) elements of p, zero-filling the other lanes; never reads
/// past p[count-1].
template <class T>
inline vec<T> load_partial(const T* p, std::size_t count) {
  alignas(64) T buf[width<T>] = {};
  std::memcpy(buf, p, count * sizeof(T));
  return vec<T>::load_unaligned(buf);
}
/// Stores the first `count` (< width) lanes of v; never writes past p[count-1].
template <class T>
inline void store_partial(T* p, const vec<T>& v, std::size_t count) {
  alignas(64) T buf[width<T>];
  v.store_unaligned(buf);
  std::memcpy(p, buf, count * sizeof(T));
}

#if defined(POSENC_ISA_AVX512)
// xsimd 8.1 has no AVX-512 fma kernel: xsimd::fma on avx512bw batches falls back to the generic
// x*y + z (two roundings, and with -ffp-contract=off never fused), which silently breaks
// two_prod_err. These exact overloads win over the xsimd template (found by ADL).
inline xsimd::batch<double, arch> fma(const xsimd::batch<double, arch>& a, const xsimd::batch<double, arch>& b,
                                      const xsimd::batch<double, arch>& c) {
  return _mm512_fmadd_pd(a, b, c);
}
inline xsimd::batch<float, arch> fma(const xsimd::batch<float, arch>& a, const xsimd::batch<float, arch>& b,
                                     const xsimd::batch<float, arch>& c) {
  return _mm512_fmadd_ps(a, b, c);
}
#endif

/// -v with the sign bit flipped on every path, so that negate(+0) = -0. Unary minus on an
/// AVX-512 batch in xsimd 8.1 is 0 - v, which maps +0 to +0 (and differs from the other paths).
template <class V> inline V negate(const V& v) { return -v; }
#if defined(POSENC_ISA_AVX512)
inline xsimd::batch<float, arch> negate(const xsimd::batch<float, arch>& v) {
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), _mm512_set1_epi32(static_cast<int>(0x80000000u))));
}
inline xsimd::batch<double, arch> negate(const xsimd::batch<double, arch>& v) {
  return _mm512_castsi512_pd(
      _mm512_xor_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ull))));
}
#endif

/// a*b + c: one fused instruction where the ISA has FMA, else a rounded multiply and add.
template <class V> inline V madd(const V& a, const V& b, const V& c) {
  if constexpr (kHasFma) {
    return fma(a, b, c);
  } else {
    return a * b + c;
  }
}

/// Exact error of a floating product: with p = fl(a*b), returns e such that a*b = p + e exactly
/// (barring overflow/underflow). FMA where available, Dekker/Veltkamp splitting otherwise.
template <class V> inline V two_prod_err(const V& a, const V& b, const V& p) {
  if constexpr (kHasFma) {
    return fma(a, b, -p);
  } else {
    using T = typename V::value_type;
    const V split(std::is_same<T, double>::value ? T(134217729.0) : T(4097.0));  // 2^27+1, 2^12+1
    V ca = split * a, cb = split * b;
    V ah = ca - (ca - a), bh = cb - (cb - b);
    V al = a - ah, bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  }
}

// ------------------------------------------------------------------------------------------
// float64 -> float32 narrowing stores (round to nearest even), per ISA
// ------------------------------------------------------------------------------------------
/// Stores the width<double> lanes of v as float32 at dst (dst need not be aligned).
inline void store_f64_as_f32(float* dst, const vec<double>& v) {
#if defined(POSENC_ISA_SCALAR)
  *dst = static_cast<float>(v.v);
#elif defined(POSENC_ISA_AVX2)
  _mm_storeu_ps(dst, _mm256_cvtpd_ps(v));
#elif defined(POSENC_ISA_AVX512)
  _mm256_storeu_ps(dst, _mm512_cvtpd_ps(v));
#elif defined(POSENC_ISA_NEON)
  vst1_f32(dst, vcvt_f32_f64(v));
#endif
}
/// Stores a[0] b[0] a[1] b[1] ... (2 * width<double> floats) at dst.
inline void store_f64_as_f32_interleaved(float* dst, const vec<double>& a, const vec<double>& b) {
#if defined(POSENC_ISA_SCALAR)
  dst[0] = static_cast<float>(a.v);
  dst[1] = static_cast<float>(b.v);
#elif defined(POSENC_ISA_AVX2)
  __m128 fa = _mm256_cvtpd_ps(a), fb = _mm256_cvtpd_ps(b);
  _mm_storeu_ps(dst, _mm_unpacklo_ps(fa, fb));
  _mm_storeu_ps(dst + 4, _mm_unpackhi_ps(fa, fb));
#elif defined(POSENC_ISA_AVX512)
  __m256 fa = _mm512_cvtpd_ps(a), fb = _mm512_cvtpd_ps(b);
  __m256 lo = _mm256_unpacklo_ps(fa, fb);  // a0 b0 a1 b1 | a4 b4 a5 b5
  __m256 hi = _mm256_unpackhi_ps(fa, fb);  // a2 b2 a3 b3 | a6 b6 a7 b7
  _mm256_storeu_ps(dst, _mm256_permute2f128_ps(lo, hi, 0x20));
  _mm256_storeu_ps(dst + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
#elif defined(POSENC_ISA_NEON)
  float32x2x2_t z = vzip_f32(vcvt_f32_f64(a), vcvt_f32_f64(b));
  vst1_f32(dst, z.val[0]);
  vst1_f32(dst + 2, z.val[1]);
#endif
}
/// As store_f64_as_f32 for the first `count` (< width) lanes only.
inline void store_f64_as_f32_partial(float* dst, const vec<double>& v, std::size_t count) {
  alignas(64) double buf[width<double>];
  v.store_unaligned(buf);
  for (std::size_t i = 0; i < count; ++i) dst[i] = static_cast<float>(buf[i]);
}
/// As store_f64_as_f32_interleaved for the first `count` (< width) lane pairs only.
inline void store_f64_as_f32_interleaved_partial(float* dst, const vec<double>& a, const vec<double>& b,
                                                 std::size_t count) {
  alignas(64) double ba[width<double>], bb[width<double>];
  a.store_unaligned(ba);
  b.store_unaligned(bb);
  for (std::size_t i = 0; i < count; ++i) {
    dst[2 * i] = static_cast<float>(ba[i]);
    dst[2 * i + 1] = static_cast<float>(bb[i]);
  }
}

}  // namespace POSENC_NS
}  // namespace posenc
