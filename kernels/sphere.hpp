// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere.hpp — S² kernels: associated Legendre functions (GSL's four norms, extended
// exponent range), real spherical harmonics from Cartesian input, Legendre polynomials, the
// Clenshaw sum of the addition-theorem kernel, block-diagonal rotation of SH coefficients.
// Compiled per ISA: everything lives in posenc::POSENC_NS (see kernels/simd.hpp).
//
// Layout of the work: SIMD across points. A block of width<double> points is carried through
// the recurrence degree by degree (l outer, m inner), so the state is two rows of length lmax+1
// per lane (cache resident at any degree). The outputs of a block appear in the order of their
// point-major index (l(l+1)/2+m for Legendre, l(l+1)+m for real SH), are staged in a W x W tile
// of vectors (one vector = one feature for W points) and written with an in-register transpose
// (unpack/permute on AVX2/AVX-512, zip on NEON): no scalar transpose, no gather/scatter.
//
// Real SH for lmax <= kSphFastLmax take sh_fast_block instead (orthonormal recurrence with
// closed-form coefficients, values written straight into a feature-major L1 buffer; for the
// bodies compiled per lmax <= 16 order outer, degree inner, each column in registers), and on
// AVX-512 (AVX2: from lmax kSphAvx2LineMinLmax = 10) the whole-line writer (line_sink): blocks
// of points whose rows share an alignment, each transposed row one aligned 64-byte line (AVX2:
// two 32-byte halves), non-temporal for large outputs; float32 lines from the float64 recurrence
// are rounded as the recurrence stores them (fput), so the writer transposes floats. float32 output
// with lmax <= kSphF32NativeLmax runs the recurrence in float32 on AVX-512 and AVX2 (f32_native:
// 16 / 8 points per vector, 16 x 16 / 8 x 8 transposes). Blocks too large for L1 (over 16 KB)
// prefetch their rows' lines for writing degree by degree (tile_sink) and, on AVX2 with a large
// output, stream each row through its own line_stream (row_stream_sink). L2-resident float64
// blocks over 6 KB (kSphStageMaxBytes) also go straight into the rows with that prefetch;
// smaller ones are staged through line_stream. On AVX2 the staged
// blocks of a large output leave their lines pending, copied while the next block computes
// (line_stream::end_deferred). Legendre outputs of 16 MB and more stream each row of a full
// block through its own line_stream on AVX2 (row_stream_sink, from lmax 32). Measurements and
// the history of these choices:
// docs/PERFORMANCE.md (Sphere); the float32 error budget: docs/ACCURACY.md.
#pragma once

#include "kernels/simd.hpp"
#include "kernels/sphere_table.hpp"

#include <algorithm>
#include <utility>

namespace posenc {
namespace POSENC_NS {

namespace sph {

using V = vec<double>;
constexpr std::size_t W = width<double>;

/// In-place transpose of the W x W tile r[0..W) (r[i] lane j -> r[j] lane i).
inline void transpose(V* r) {
#if defined(POSENC_ISA_SCALAR)
  (void)r;
#elif defined(POSENC_ISA_AVX2)
  __m256d r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3];
  __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
#elif defined(POSENC_ISA_AVX512)
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
#elif defined(POSENC_ISA_NEON)
  float64x2_t a = r[0], b = r[1];
  r[0] = vzip1q_f64(a, b);
  r[1] = vzip2q_f64(a, b);
#endif
}

/// Unaligned store (never xsimd::store, which ADL would pick for a batch and which is aligned).
template <class T>
inline void stu(T* p, const vec<T>& v) { v.store_unaligned(p); }

inline void store_row(double* dst, const V& v) { stu(dst, v); }
inline void store_row(float* dst, const V& v) { store_f64_as_f32(dst, v); }
inline void store_row_partial(double* dst, const V& v, std::size_t c) { store_partial(dst, v, c); }
inline void store_row_partial(float* dst, const V& v, std::size_t c) { store_f64_as_f32_partial(dst, v, c); }

/// Transposes the c (<= W) feature vectors at src (one vector = one feature of W points) and
/// stores them as c consecutive elements of the rows dst + p * stride, p < np.
template <class TO>
inline void store_tile(const double* src, std::size_t c, TO* dst, int64_t stride, std::size_t np) {
  V r[W];
  for (std::size_t i = 0; i < W; ++i) r[i] = i < c ? load(src + i * W) : V(0.0);
  transpose(r);
  if (c == W) {
    for (std::size_t p = 0; p < np; ++p) store_row(dst + static_cast<int64_t>(p) * stride, r[p]);
  } else {
    for (std::size_t p = 0; p < np; ++p) store_row_partial(dst + static_cast<int64_t>(p) * stride, r[p], c);
  }
}

/// Collects features (one vector = one feature of the W points of a block) in output order in a
/// linear stage and writes every full W x W tile transposed into the point-major output. A row
/// of features is appended with put(j, v) at positions cnt + j, then commit(count) drains the
/// full tiles (no per-feature counter in memory: the stores of a row are independent).
template <class TO>
struct emitter {
  double* st;  // stage: capacity >= max row + W vectors
  std::size_t cnt = 0;
  int64_t base = 0;
  TO* out;
  int64_t stride;
  std::size_t npts;
  emitter(double* stage, TO* o, int64_t s, std::size_t np) : st(stage), out(o), stride(s), npts(np) {}
  void put(std::size_t j, const V& v) { stu(st + (cnt + j) * W, v); }
  void tile(const double* src, std::size_t c) {
    store_tile(src, c, out + base, stride, npts);
    base += static_cast<int64_t>(c);
  }
  void commit(std::size_t count) {
    cnt += count;
    std::size_t t = 0;
    for (; t + W <= cnt; t += W) tile(st + t * W, W);
    if (t > 0) {
      for (std::size_t i = t; i < cnt; ++i) stu(st + (i - t) * W, load(st + i * W));
      cnt -= t;
    }
  }
  void finish() {
    if (cnt > 0) tile(st, cnt);
    cnt = 0;
  }
};

/// The scratch pointer rounded up to 64 bytes (sphere_scratch_doubles counts the slack): every vector
/// access to scratch is then aligned and never splits a cache line.
inline double* align64(double* p) {
  const std::uintptr_t u = reinterpret_cast<std::uintptr_t>(p);
  return reinterpret_cast<double*>((u + 63u) & ~static_cast<std::uintptr_t>(63u));
}

/// Contiguous output written through a 64-byte aligned staging buffer in whole lines: non-temporal
/// stores where the ISA has them (x86) and the output is large, else ordinary aligned line stores
/// (an L2-resident output written in whole lines from L1 rather than by the row stores of the
/// tiles, a third of which split a line: measured 5.8 -> 4.3 ms at lmax 10 float64 on the AVX2
/// path, docs/PERFORMANCE.md, session 6). Blocks whose bytes follow one another in the
/// output share a line at each boundary: the first part of that line (the previous block's last
/// bytes) is held in buf[0..held) and written whole, non-temporally, with the next block. Written
/// as two partial ordinary stores instead (a memcpy head and tail, as before), that line cost a
/// read-for-ownership from DRAM per block, and an ordinary store that misses holds up every later
/// store: measured 12.0 -> 7.6 ms at lmax 10 float64 on the AVX2 path (docs/PERFORMANCE.md,
/// session 5). Only a line shared with output written some other way (or the call's first and
/// last line) gets ordinary stores of its own bytes.
/// Per block: where = begin(dst), write nbytes at `where`, end(nbytes) (or end_deferred with a
/// second buffer). finish() writes the pending and held bytes; callers then fence().
struct line_stream {
  char* buf;             ///< 64-byte aligned; 128 bytes more than the largest block
  char* buf2 = nullptr;  ///< end_deferred's second buffer (same size), else nullptr
  char* line = nullptr;  ///< destination line of buf[0..64)
  std::size_t v0 = 0;    ///< buf[v0..held) are this line's bytes so far
  std::size_t held = 0;  ///< 0: nothing held
  std::size_t pos = 0;   ///< offset of the current block in buf
  bool nt;               ///< non-temporal line stores (else ordinary aligned ones)
  const char* psrc = nullptr;  ///< end_deferred: the previous block's lines not yet copied
  char* pdst = nullptr;
  std::size_t plines = 0;
  line_stream(void* b, bool non_temporal, void* b2 = nullptr)
      : buf(static_cast<char*>(b)), buf2(static_cast<char*>(b2)), nt(non_temporal) {}
  char* begin(void* dst) {
    char* d = static_cast<char*>(dst);
    const std::size_t o = reinterpret_cast<std::uintptr_t>(d) & 63u;
    if (held != 0 && !(d - o == line && held == o)) finish();  // not contiguous with the held bytes
    if (held == 0) {
      line = d - o;
      v0 = o;
    }
    pos = o;
    return buf + o;
  }
  void end(std::size_t nbytes) {
    std::size_t i, full;
    if (!close_block(nbytes, i, full)) return;
    copy_lines(line + i, buf + i, (full - i) / 64);
    carry_held(buf, full);
  }
  /// As end(), but the block's whole lines are left pending (copy_pending) and the next block
  /// is staged in the other buffer, so that the caller can copy the lines a few at a time while
  /// the next block computes (an NT line is then stored as DRAM drains them, instead of 60 at
  /// once filling the store buffer and stalling the next block's stores behind them). The lines
  /// still pending from the block before are copied first.
  void end_deferred(std::size_t nbytes) {
    copy_pending(plines);
    std::size_t i, full;
    if (!close_block(nbytes, i, full)) return;
    psrc = buf + i;
    pdst = line + i;
    plines = (full - i) / 64;
    carry_held(buf2, full);
    std::swap(buf, buf2);
  }
  /// Copies up to k pending lines (end_deferred).
  void copy_pending(std::size_t k) {
    k = k < plines ? k : plines;
    copy_lines(pdst, psrc, k);
    pdst += 64 * k;
    psrc += 64 * k;
    plines -= k;
  }
  void finish() {
    copy_pending(plines);
    if (held > v0) std::memcpy(line + v0, buf + v0, held - v0);
    held = 0;
  }

 private:
  /// The block ends nbytes after pos: false (held updated) while still inside the first line;
  /// else writes the first line's own bytes if it is not all ours, and sets full (the end of the
  /// block's whole lines in buf), i (the first of them not yet written) and held.
  bool close_block(std::size_t nbytes, std::size_t& i, std::size_t& full) {
    const std::size_t total = pos + nbytes;
    full = total & ~static_cast<std::size_t>(63);
    if (full == 0) {
      held = total;
      return false;
    }
    i = 0;
    if (v0 != 0) {  // the first line is not all ours: its bytes only
      std::memcpy(line + v0, buf + v0, 64 - v0);
      i = 64;
    }
    held = total - full;
    return true;
  }
  /// The partial last line (held bytes) moves to the front of `to` (buf has 64 readable bytes
  /// there; 64-byte aligned, disjoint from it as full >= 64) and becomes the current line.
  void carry_held(char* to, std::size_t full) {
    if (held == 0) return;
    std::memcpy(to, buf + full, 64);
    line += full;
    v0 = 0;
  }
  /// count aligned 64-byte lines from s to d by whole-vector aligned loads and stores,
  /// non-temporal when nt (memcpy(d, s, 64) became four 16-byte moves).
  void copy_lines(char* d, const char* s, std::size_t count) const {
    if (nt) {
      for (std::size_t j = 0; j < count; ++j) copy_line<true>(d + 64 * j, s + 64 * j);
    } else {
      for (std::size_t j = 0; j < count; ++j) copy_line<false>(d + 64 * j, s + 64 * j);
    }
  }
  template <bool NT>
  static void copy_line(char* d, const char* s) {
#if defined(POSENC_ISA_AVX512)
    const __m512i v = _mm512_load_si512(reinterpret_cast<const __m512i*>(s));
    if constexpr (NT) _mm512_stream_si512(reinterpret_cast<__m512i*>(d), v);
    else _mm512_store_si512(reinterpret_cast<__m512i*>(d), v);
#elif defined(POSENC_ISA_AVX2)
    for (int h = 0; h < 64; h += 32) {
      const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(s + h));
      if constexpr (NT) _mm256_stream_si256(reinterpret_cast<__m256i*>(d + h), v);
      else _mm256_store_si256(reinterpret_cast<__m256i*>(d + h), v);
    }
#else
    std::memcpy(d, s, 64);
#endif
  }
};

/// Orders the non-temporal stores of line_stream before any later store (x86 sfence).
inline void fence() {
#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
  _mm_sfence();
#endif
}

/// A block of points whose output exceeds this many bytes does not stay in L1 (with the
/// recurrence's own buffers): staged through line_stream only up to it when L2-resident, its rows'
/// lines prefetched for writing beyond it (tile_sink), streamed row by row beyond it
/// on AVX2 (row_stream_sink). Measurements at each use.
constexpr int64_t kSphL1BlockBytes = 16384;

/// True on the AVX-512 path.
constexpr bool kIsAvx512 =
#if defined(POSENC_ISA_AVX512)
    true;
#else
    false;
#endif

/// True where line_stream has non-temporal stores.
constexpr bool kHasStream =
#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
    true;
#else
    false;
#endif

inline V iota() {
  alignas(64) double b[W];
  for (std::size_t i = 0; i < W; ++i) b[i] = static_cast<double>(i);
  return load(b);
}

/// Coefficients a_lm, b_lm of row l (m = 0..l-2) into a[], b[] (each at least l-1+W long).
/// Same expressions as lib/sphere.cpp's table (correctly rounded +, *, /, sqrt only).
inline void coef_row(int32_t kind, int32_t l, double* a, double* b) {
  const double ld = l;
  const V io = iota(), one(1.0);
  for (int32_t m0 = 0; m0 <= l - 2; m0 += static_cast<int32_t>(W)) {
    const V mv = io + V(static_cast<double>(m0));
    const V lm = V(ld) - mv, lp = V(ld) + mv;
    V av, bv;
    if (kind == 0) {
      av = V(2.0 * ld - 1.0) / lm;
      bv = (lp - one) / lm;
    } else {
      av = V(2.0 * ld - 1.0) / sqrt(lm * lp);
      bv = sqrt(((lm - one) * (lp - one)) / (lm * lp));
    }
    stu(a + m0, av);
    stu(b + m0, bv);
  }
}

inline V scale_of(const V& s) {
  return select(s == V(0.0), V(1.0), select(s == V(-1.0), V(0x1p-600), V(0.0)));
}

/// 1 / sqrt(a) for normal a in [2^-900, 2^900]. AVX-512: the 14-bit estimate vrsqrt14pd and two
/// Newton steps y += y (1/2 - (a/2) y^2) (error <= 2 ulp, measured max 1.6 ulp over 10^7 random
/// a; no use of the divider, whose latency chain was ~20 % of a block at lmax 10). Elsewhere the
/// correctly rounded sqrt and division (<= 1 ulp).
inline V rsqrt(const V& a) {
#if defined(POSENC_ISA_AVX512)
  const V h = a * V(0.5), half(0.5);
  V y = _mm512_rsqrt14_pd(a);
  y = madd(y, madd(-(h * y), y, half), y);
  return madd(y, madd(-(h * y), y, half), y);
#else
  return V(1.0) / sqrt(a);
#endif
}

/// Doubles of an emitter stage for rows of up to 2 lmax + 1 features.
inline int64_t stage_doubles(int32_t lmax) {
  return (2 * static_cast<int64_t>(lmax) + 1 + 2 * static_cast<int64_t>(W)) * static_cast<int64_t>(W);
}

/// Scratch doubles of sph::core for lmax.
inline int64_t core_scratch(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1;
  // Every region a multiple of W doubles so that all vector slots stay 64-byte aligned.
  const int64_t Wd = static_cast<int64_t>(W), Nr = (N + Wd - 1) / Wd * Wd;
  return 5 * N * Wd + Nr + 2 * (Nr + Wd) + 8;
}

/// The recurrence of sph_plan for one block of W points (x = cos theta, u = sin theta >= 0).
/// Calls row_done(l, row) for l = 0..lmax, where row + m*W (m = 0..l) holds y_l^m of the W lanes.
template <class RowFn>
inline void core(const sph_plan& P, const V& x, const V& u, double* scr, RowFn&& row_done) {
  const int32_t L = P.lmax;
  const std::size_t N = static_cast<std::size_t>(L) + 1;
  double* bufs[2] = {scr, scr + N * W};
  double* s_ = scr + 2 * N * W;
  double* sc_ = s_ + N * W;
  double* row = sc_ + N * W;
  const std::size_t Nr = (N + W - 1) / W * W;
  double* flag = row + N * W;
  double* ca = flag + Nr;
  double* cb = ca + Nr + W;
  const V T(0x1p600), Ti(0x1p-600), zero(0.0), one(1.0);
  const bool ext = P.extended != 0;

  // Column m whose lanes carry an extended exponent: rescale the lanes that grew past 2^600.
  auto rescale = [&](V y, double* prevp, std::size_t m) -> V {
    const std::size_t o = m * W;
    V s = load(s_ + o);
    const auto mk = (abs(y) > T) & (s < zero);
    if (any(mk)) {
      y = select(mk, y * Ti, y);
      const V pv = load(prevp + o);
      stu(prevp + o, select(mk, pv * Ti, pv));
      s = select(mk, s + one, s);
      stu(s_ + o, s);
      stu(sc_ + o, scale_of(s));
      if (!any(s < zero)) flag[m] = 0.0;
    }
    return y;
  };

  const double* ls = P.lscale;
  V z(P.y00), sz(0.0);
  stu(bufs[0], z);
  stu(s_, zero);
  stu(sc_, one);
  flag[0] = 0.0;
  stu(row, ls ? z * V(ls[0]) : z);
  row_done(0, static_cast<const double*>(row));
  for (int32_t l = 1; l <= L; ++l) {
    const V fl(ls ? ls[l] : 1.0);
    double* cur = bufs[l & 1];
    double* prev = bufs[(l - 1) & 1];
    if (l >= 2) {
      const double *a, *b;
      if (P.ab) {
        a = P.ab + static_cast<std::size_t>(l) * static_cast<std::size_t>(l + 1);
        b = a + (l + 1);
      } else {
        coef_row(P.kind, l, ca, cb);
        a = ca;
        b = cb;
      }
      for (int32_t m = 0; m <= l - 2; ++m) {
        const std::size_t o = static_cast<std::size_t>(m) * W;
        V y = madd(V(a[m]) * x, load(prev + o), -(V(b[m]) * load(cur + o)));
        if (flag[m] == 0.0) {
          stu(cur + o, y);
          stu(row + o, ls ? y * fl : y);
        } else {
          y = rescale(y, prev, static_cast<std::size_t>(m));
          stu(cur + o, y);
          stu(row + o, (y * load(sc_ + o)) * fl);
        }
      }
    }
    {  // m = l - 1: second value of column l-1
      const std::size_t m = static_cast<std::size_t>(l - 1), o = m * W;
      V y = (V(P.sub[l - 1]) * x) * load(prev + o);
      if (flag[m] == 0.0) {
        stu(cur + o, y);
        stu(row + o, ls ? y * fl : y);
      } else {
        y = rescale(y, prev, m);
        stu(cur + o, y);
        stu(row + o, (y * load(sc_ + o)) * fl);
      }
    }
    {  // m = l: the sectoral seed, with its own extended exponent sz
      z = (z * V(P.diag[l])) * u;
      if (ext) {
        for (;;) {
          const auto mk = (abs(z) < Ti) & (z != zero);
          if (!any(mk)) break;
          z = select(mk, z * T, z);
          sz = select(mk, sz - one, sz);
        }
      }
      const std::size_t o = static_cast<std::size_t>(l) * W;
      stu(cur + o, z);
      stu(s_ + o, sz);
      const V scv = scale_of(sz);
      stu(sc_ + o, scv);
      const bool f = any(sz < zero);
      flag[l] = f ? 1.0 : 0.0;
      const V zr = f ? z * scv : z;
      stu(row + o, ls ? zr * fl : zr);
    }
    row_done(l, static_cast<const double*>(row));
  }
}

/// Features held by the fast path's SoA buffer (W lanes each): 128 x 64 B = 8 KB on AVX-512;
/// with the seeds, the two state rows and cos/sin(m phi) that stays in L1 to lmax ~ 60.
/// Up to kSphOrderOuterLmax the buffer holds the whole block (order-outer recurrence: the
/// features of a degree are complete only after the last order).
constexpr int kSphOrderOuterLmax = 16;
inline int64_t fast_cap(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1;
  if (lmax <= kSphOrderOuterLmax) return N * N + 32;  // every feature + the shift + a unit past the end
  const int64_t need = 2 * static_cast<int64_t>(lmax) + 1 + 32;  // a degree + a unit's leftover + shift
  return need > 128 ? need : 128;
}

/// Scratch doubles of sh_fast_block (seeds, two state rows, feature buffer).
inline int64_t fast_scratch(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1, Wd = static_cast<int64_t>(W);
  return (3 * N + 2 * (fast_cap(lmax) + 16) + 1) * Wd;  // two buffers (+ a unit of slack each)
}

#if defined(POSENC_ISA_AVX2)
/// 4 x 4 transpose of the feature vectors src[0..4) (4 doubles each, 32-byte aligned) into
/// r[p] = (src[0][p], ..., src[3][p]): four 256-bit loads and transpose() (4 unpacks, 4 128-bit
/// lane permutes). Until session 12 the first stage was done by the loads (eight 128-bit loads, four
/// of them inserted into the upper lanes: 4 shuffles instead of 8), chosen on Sapphire Rapids,
/// whose only 256-bit shuffle port was the limit. On Zen 5 (AVX2 path, 64k points, 1 thread,
/// interleaved A/B) the whole-vector loads are faster: float64 lmax 3 -2..-7 %, 10 -3..-5 %,
/// 12 -5 %, 16 -5 %, 30 -3..-4 %, 40 -4 %; each F vector is read as it was stored.
inline void transpose4_load(const double* src, __m256d* r) {
  V t[4] = {V::load_aligned(src), V::load_aligned(src + 4), V::load_aligned(src + 8), V::load_aligned(src + 12)};
  transpose(t);
  for (int p = 0; p < 4; ++p) r[p] = t[p];
}
#endif

#if defined(POSENC_ISA_AVX2)
/// Features [k0, k1) of the 4 points of a full block, held feature-major in F (feature k at
/// F + (k - fbase) 4), into the point-major rows: feature k of point p to d[p] + k. Tiles by
/// transpose4_load, rows stored straight from registers; the last k1 - k < 4 features by
/// partial stores (F is readable a unit past k1: fast_cap).
template <class TO>
inline void put_tiles4(const double* F, int64_t fbase, int64_t k0, int64_t k1, TO* const* d) {
  int64_t k = k0;
  for (; k + 4 <= k1; k += 4) {
    __m256d r[4];
    transpose4_load(F + (k - fbase) * 4, r);
    store_row(d[0] + k, V(r[0]));
    store_row(d[1] + k, V(r[1]));
    store_row(d[2] + k, V(r[2]));
    store_row(d[3] + k, V(r[3]));
  }
  if (k < k1) {
    __m256d r[4];
    transpose4_load(F + (k - fbase) * 4, r);
    for (std::size_t p = 0; p < 4; ++p) store_row_partial(d[p] + k, V(r[p]), static_cast<std::size_t>(k1 - k));
  }
}
#endif

/// Writes features [k0, k1) of the W points of a block, held feature-major in F (feature k at
/// F + (k - fbase) W), into the point-major rows dst + p * stride (p < np), tile by tile with
/// the in-register transpose; c < W features only in the last tile.
template <class TO>
inline void put_tiles(const double* F, int64_t fbase, int64_t k0, int64_t k1, TO* dst, int64_t stride, std::size_t np) {
#if defined(POSENC_ISA_AVX2)
  if (np == W) {  // full blocks: straight-line tiles, rows stored from registers
    TO* const d[4] = {dst, dst + stride, dst + 2 * stride, dst + 3 * stride};
    put_tiles4(F, fbase, k0, k1, d);
    return;
  }
#endif
  for (int64_t k = k0; k < k1; k += static_cast<int64_t>(W)) {
    const std::size_t c = static_cast<std::size_t>(k1 - k < static_cast<int64_t>(W) ? k1 - k : static_cast<int64_t>(W));
    store_tile(F + (k - fbase) * static_cast<int64_t>(W), c, dst + k, stride, np);
  }
}

/// prefetchw of the lines holding features [k0, k1) of the np rows dst + p * stride. (Inlined
/// at every column of the compiled bodies it grew them past GCC's inlining limits, so that
/// their store lambda went out of line, lmax 3 1.7 -> 2.6 ms: hence POSENC_HOT_LAMBDA there.)
template <class TO>
inline void prefetch_rows(const TO* dst, int64_t stride, std::size_t np, int64_t k0, int64_t k1) {
  for (std::size_t p = 0; p < np; ++p) {
    const char* a = reinterpret_cast<const char*>(dst + static_cast<int64_t>(p) * stride + k0);
    const char* e = reinterpret_cast<const char*>(dst + static_cast<int64_t>(p) * stride + k1);
    a = reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(a) & ~static_cast<std::uintptr_t>(63));
    for (; a < e; a += 64) __builtin_prefetch(a, 1, 3);
  }
}

/// L2-resident blocks of float64 real SH staged through line_stream up to this many bytes
/// (lmax 12: 5.4 KB); larger ones, and L2-resident float32 blocks from float64, are stored
/// straight into the output rows with their lines prefetched for writing from
/// kSphPrefetchMinBytes on (tile_sink pfw). Measured (AVX2, 64k points, 1 thread, the two builds
/// interleaved in one process, docs/PERFORMANCE.md session 8), direct + prefetch against
/// staged: float64 lmax 5 +15 %, 8 +12 %, 10 +2..8 %, 12 -4..+4 %, 14 -10..16 %, 16 -14..19 %,
/// 20 -23 %; the float32-native blocks (8 points) stay staged (lmax 14 +8..12 %).
constexpr int64_t kSphStageMaxBytes = 6144;
/// Below this many bytes an L2-resident block's prefetches cost more than they save (lmax 3
/// float64, 512-byte blocks: 1.6 -> 2.6 ms).
constexpr int64_t kSphPrefetchMinBytes = 1024;

/// Output of sh_fast_block on every ISA: transposed W x W tiles stored unaligned into the rows.
template <class TO>
struct tile_sink {
  using elem = double;                                      ///< F's element type
  static constexpr int64_t unit = static_cast<int64_t>(W);  ///< features per put (but the last)
  static constexpr int64_t first = 0;                       ///< feature of the first unit
  TO* dst;
  int64_t stride;
  std::size_t np;
  bool pfw = false;  ///< prefetch the rows' lines for writing (prefetch())
  int64_t pf = 0;    ///< features below pf already prefetched
  void put(const double* F, int64_t fbase, int64_t k0, int64_t k1) { put_tiles(F, fbase, k0, k1, dst, stride, np); }
  /// With pfw: requests ownership (prefetchw) of the rows' lines holding features [pf, k1),
  /// called as sh_fast_block starts a degree (or a column), so that the read-for-ownership of
  /// the lines its drain will store into runs in parallel instead of one missed store at a time.
  /// Set for blocks over 16 KB (lmax >= 32 for float64, which do not stay in L1) and for the
  /// L2-resident blocks of kSphPrefetchMinBytes and more that are not staged (kSphStageMaxBytes).
  /// Measured (AVX2, 64k points, 1 thread): lmax 40 float64 96 -> 50 ms with the output in L2,
  /// 125 -> 100 ms with the staged block (54 KB, in L2) beyond L2; lmax 100 507 -> 380 /
  /// 732 -> 460 ms (session 7); for resident 1-16 KB blocks, instead of staging them through
  /// line_stream: see sh_real_impl.
  void prefetch(int64_t k1) {
    if (!pfw || k1 <= pf) return;
    prefetch_rows(dst, stride, np, pf, k1);
    pf = k1;
  }
};

#if defined(POSENC_ISA_AVX2)
/// Output of sh_fast_block for a full block (W = 4 points, adjacent rows) of a large output
/// (non-temporal) whose block does not fit L1 (more than 16 KB: lmax >= 32 for float64): each
/// row is its own line_stream. The tiles of a drain go to the rows' L1 buffers, and their whole
/// lines to the output with non-temporal stores, as the recurrence goes (instead of staging the
/// whole block, which at lmax 40 is 54 KB in L2, and copying it afterwards). The line a row
/// shares with the next row (or block) gets ordinary stores of its bytes from both sides; those
/// lines (one per row) are requested for ownership (prefetchw) when the block starts, so their
/// read-for-ownership runs under the block's arithmetic.
template <class TO>
struct row_stream_sink {
  using elem = double;
  static constexpr int64_t unit = static_cast<int64_t>(W);
  static constexpr int64_t first = 0;
  /// Bytes of one row's buffer: a drain (at most fast_cap features) + line_stream's 128 bytes.
  static std::size_t buf_bytes(int32_t lmax) {
    return (static_cast<std::size_t>(fast_cap(lmax) + 2 * unit) * sizeof(TO) + 191) / 64 * 64;
  }
  TO* row0;        ///< the block's first row
  int64_t stride;  ///< K, elements between rows
  line_stream ls[W];  ///< one per row (nothing held between blocks: finish() ends each)
  /// bufs: 64-byte aligned, W buf_bytes(lmax) bytes.
  row_stream_sink(TO* r0, int64_t K, char* bufs, int32_t lmax)
      : row0(r0), stride(K),
        ls{line_stream(bufs, true), line_stream(bufs + buf_bytes(lmax), true), line_stream(bufs + 2 * buf_bytes(lmax), true),
           line_stream(bufs + 3 * buf_bytes(lmax), true)} {
    static_assert(W == 4, "AVX2 blocks of 4 points");
    __builtin_prefetch(row0, 1, 3);  // row 0's first line, then the last line of each row
    for (std::size_t p = 1; p <= W; ++p)
      __builtin_prefetch(reinterpret_cast<const char*>(row0 + static_cast<int64_t>(p) * stride) - 1, 1, 3);
  }
  void put(const double* F, int64_t fbase, int64_t k0, int64_t k1) {
    if (k1 <= k0) return;
    TO* d[W];
    for (std::size_t p = 0; p < W; ++p)
      d[p] = reinterpret_cast<TO*>(ls[p].begin(row0 + static_cast<int64_t>(p) * stride + k0)) - k0;
    put_tiles4(F, fbase, k0, k1, d);
    for (std::size_t p = 0; p < W; ++p) ls[p].end(static_cast<std::size_t>(k1 - k0) * sizeof(TO));
  }
  void prefetch(int64_t) {}
  /// The rows' last partial lines (ordinary stores), after the block's last put.
  void finish() {
    for (std::size_t p = 0; p < W; ++p) ls[p].finish();
  }
};
#endif

#if defined(POSENC_ISA_AVX512)
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
/// r[p] = (f_0[p], ..., f_15[p]), p < 8: 24 shuffle-port operations (loads, unpack, shuffle, a two-source permute of 128-bit lanes).
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

#endif

#if defined(POSENC_ISA_AVX2)
/// One 64-byte line in two 256-bit halves (AVX2's whole-line unit).
struct line4d {
  __m256d lo, hi;
};
struct line8f {
  __m256 lo, hi;
};
/// AVX2 store masks of the lanes of bit mask m: 4 doubles from bit b, 8 floats from bit b.
inline __m256i lane_mask64(uint32_t m, int b) {
  const __m256i bits = _mm256_setr_epi64x(1, 2, 4, 8);
  return _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(static_cast<int64_t>(m >> b)), bits), bits);
}
inline __m256i lane_mask32(uint32_t m, int b) {
  const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(m >> b)), bits), bits);
}
#endif

#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
/// Whole-line stores of TO elements (one 64-byte line: 8 doubles or 16 floats): one 512-bit
/// vector on AVX-512, two 256-bit halves on AVX2.
template <class TO>
struct line_vec;
template <>
struct line_vec<double> {
#if defined(POSENC_ISA_AVX512)
  using type = __m512d;
#else
  using type = line4d;
#endif
};
template <>
struct line_vec<float> {
#if defined(POSENC_ISA_AVX512)
  using type = __m512;
#else
  using type = line8f;
#endif
};

template <class TO>
struct lines {
  using LV = typename line_vec<TO>::type;
  static constexpr int64_t unit = 64 / static_cast<int64_t>(sizeof(TO));
#if defined(POSENC_ISA_AVX512)
  static void full(TO* a, const LV& v, bool nt) {
    if constexpr (unit == 8) {
      if (nt) _mm512_stream_pd(a, v);
      else _mm512_store_pd(a, v);
    } else {
      if (nt) _mm512_stream_ps(a, v);
      else _mm512_store_ps(a, v);
    }
  }
  static void masked(TO* a, uint32_t m, const LV& v) {
    if constexpr (unit == 8) _mm512_mask_storeu_pd(a, static_cast<__mmask8>(m), v);
    else _mm512_mask_storeu_ps(a, static_cast<__mmask16>(m), v);
  }
  /// Lanes of m from b, the others from a.
  static LV blend(uint32_t m, const LV& a, const LV& b) {
    if constexpr (unit == 8) return _mm512_mask_mov_pd(a, static_cast<__mmask8>(m), b);
    else return _mm512_mask_mov_ps(a, static_cast<__mmask16>(m), b);
  }
#else
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
  static void full(TO* a, const LV& v, bool nt) {
    store_half(a, v.lo, nt);
    store_half(a + half, v.hi, nt);
  }
  static void masked(TO* a, uint32_t m, const LV& v) {
    if constexpr (unit == 8) {
      _mm256_maskstore_pd(a, lane_mask64(m, 0), v.lo);
      _mm256_maskstore_pd(a + half, lane_mask64(m, 4), v.hi);
    } else {
      _mm256_maskstore_ps(a, lane_mask32(m, 0), v.lo);
      _mm256_maskstore_ps(a + half, lane_mask32(m, 8), v.hi);
    }
  }
  static LV blend(uint32_t m, const LV& a, const LV& b) {
    if constexpr (unit == 8) {
      return {_mm256_blendv_pd(a.lo, b.lo, _mm256_castsi256_pd(lane_mask64(m, 0))),
              _mm256_blendv_pd(a.hi, b.hi, _mm256_castsi256_pd(lane_mask64(m, 4)))};
    } else {
      return {_mm256_blendv_ps(a.lo, b.lo, _mm256_castsi256_ps(lane_mask32(m, 0))),
              _mm256_blendv_ps(a.hi, b.hi, _mm256_castsi256_ps(lane_mask32(m, 8)))};
    }
  }
#endif
};

/// The lines that two rows of a super-block share (the last line of row p and the first of row
/// p + 1), held until both halves are known and then written as one whole line. Block c of a
/// super-block owns rows c + U j: the tail of (c, j) meets the head of (c + 1, j), and the tail
/// of (U - 1, j) the head of (0, j + 1). A half whose partner never comes (a block that took the
/// extended-range path, the super-block's first and last row) is written masked by flush().
/// R: rows per block (line_sink::R, the compute vector width: 8 / 16 on AVX-512, 4 on AVX2).
template <class TO, int R>
struct line_pending {
  using LV = typename lines<TO>::LV;
  LV head[R], tail[R];
  TO* hptr[R];
  TO* tptr[R];
  uint32_t hmask[R], tmask[R];
  bool hv[R] = {}, tv[R] = {};
  void flush_tails() {
    for (int j = 0; j < R; ++j)
      if (tv[j]) {
        lines<TO>::masked(tptr[j], tmask[j], tail[j]);
        tv[j] = false;
      }
  }
  void flush() {
    flush_tails();
    for (int j = 0; j < R; ++j)
      if (hv[j]) {
        lines<TO>::masked(hptr[j], hmask[j], head[j]);
        hv[j] = false;
      }
  }
};

/// Output of sh_fast_block for block c of a super-block (AVX-512, and AVX2 from lmax
/// kSphAvx2LineMinLmax; points p, p + U, ..., p + (R-1) U, R = W rows (8 on AVX-512, 4 on
/// AVX2), U = 64 / sizeof(TO), so the row stride U K elements is a whole number of lines and the
/// R rows start at the same offset within a line). Features are taken in line-aligned units
/// (8 doubles = one transposed 8 x 8 tile or two 4 x 4 ones; 16 floats = an 8 x 16 float
/// transpose on AVX-512, two in-lane 4 x 4 ones on AVX2: F holds floats, elem)
/// starting at feature -shift, so
/// every row is written in whole, aligned 64-byte lines: non-temporal when `nt` (large outputs:
/// no read-for-ownership), else aligned stores. The partial first and last line of a row go
/// through line_pending (merged with the neighbour row's half when K >= 2 units, else masked).
template <class TO, class TC = double>
struct line_sink {
  using LO = lines<TO>;
  /// F's element type: the compute type, but float for float32 lines from float64 compute (the
  /// recurrence's values are rounded as they are produced, fput; a line is then transposed from
  /// floats: no conversions or lane inserts here).
  using elem = typename std::conditional<std::is_same<TO, float>::value, float, TC>::type;
  static constexpr int R = static_cast<int>(width<TC>);  ///< points per block = rows (a vector)
  static constexpr int64_t unit = LO::unit;  ///< features per line
  TO* row0;
  int64_t rstride, K, first;
  bool nt;
  line_pending<TO, R>* pend;  ///< nullptr: masked stores for the shared lines
  int c;                   ///< block of the super-block, 0..U-1

  line_sink(TO* r0, int64_t rs, int64_t k, bool nt_, line_pending<TO, R>* pd, int c_)
      : row0(r0), rstride(rs), K(k), nt(nt_), pend(k >= 2 * unit ? pd : nullptr), c(c_) {
    first = -static_cast<int64_t>((reinterpret_cast<std::uintptr_t>(r0) / sizeof(TO)) % unit);
  }
  /// Nothing: the rows' lines are not prefetched for writing. Until session 12 a cached output
  /// (not nt) of a block <= 16 KB requested ownership (prefetchw) of the lines ahead of the
  /// recurrence (measured on Sapphire Rapids: AVX-512 -5 % at lmax 10; AVX2 12-18 % faster or
  /// 4-14 % slower without it, with the machine's load). On Zen 5 (64k points, 1 thread,
  /// interleaved A/B, without / with) it only cost: AVX2 float64 lmax 10 0.97-0.98 in chunks of
  /// 128-1024 points (0.89-0.91 in a loaded phase), 0.90 in chunks of 2048 (2 MB, beyond L2),
  /// lmax 12 0.94, 20 0.96, 31 1.01; float32 lmax 20 and 30 0.95; AVX-512 float64 lmax 10 0.95,
  /// 15 1.00, float32 0.95-0.96 (docs/PERFORMANCE.md, session 12).
  void prefetch(int64_t) {}
  void partial(int j, TO* a, int64_t k, uint32_t mask, const typename LO::LV& v) {
    if (!pend) {
      LO::masked(a, mask, v);
    } else if (k < 0) {  // head: lanes [-k, unit) of the line
      if (c > 0 && pend->tv[j]) {
        LO::full(a, LO::blend(mask, pend->tail[j], v), nt);
        pend->tv[j] = false;
      } else if (c == 0 && j > 0) {
        pend->head[j] = v;
        pend->hptr[j] = a;
        pend->hmask[j] = mask;
        pend->hv[j] = true;
      } else {
        LO::masked(a, mask, v);
      }
    } else {  // tail: lanes [0, K - k)
      if (c < static_cast<int>(unit) - 1) {
        pend->tail[j] = v;
        pend->tptr[j] = a;
        pend->tmask[j] = mask;
        pend->tv[j] = true;
      } else if (j < R - 1 && pend->hv[j + 1]) {
        LO::full(a, LO::blend(mask, pend->head[j + 1], v), nt);
        pend->hv[j + 1] = false;
      } else {
        LO::masked(a, mask, v);
      }
    }
  }
  /// The R rows' lines of features [k, k + unit) (transposed from F at src).
#if defined(POSENC_ISA_AVX512)
  /// float32 lines: 16 rows (float32 compute, feature k at src + 16 k) or 8 (float64 compute,
  /// values rounded by fput, feature k at src + 8 k).
  static void rows_of(const float* src, __m512* v) {
    if constexpr (R == 16) transpose16_load(src, v);
    else transpose8x16_load<8>(src, v);
  }
  /// float64 lines: one 8 x 8 tile.
  static void rows_of(const double* src, __m512d* v) { transpose8_load(src, v); }
#else
  /// AVX2 float64 lines (4 rows): two 4 x 4 tiles.
  static void rows_of(const double* src, line4d* v) {
    __m256d r[2][4];
    for (int t = 0; t < 2; ++t) transpose4_load(src + 16 * t, r[t]);
    for (int p = 0; p < 4; ++p) v[p] = {r[0][p], r[1][p]};
  }
  /// AVX2 float32 lines from float64 compute (elem = float: feature k's 4 rounded values at
  /// src + 4 k). Each half line (8 features) is two 16-byte loads per 256-bit register,
  /// (feature j | feature j + 4), and one in-lane 4 x 4 transpose: 8 shuffles per half.
  static void rows_of(const float* src, line8f* v) {
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
  }
#endif
  TO* line_at(int64_t k) const {
    return reinterpret_cast<TO*>(reinterpret_cast<std::uintptr_t>(row0) + static_cast<std::uintptr_t>(k * static_cast<int64_t>(sizeof(TO))));
  }
  /// A unit that holds the start or the end of the rows: masked / merged lines.
  void put_partial(const elem* src, int64_t k) {
    typename LO::LV v[R];
    rows_of(src, v);
    const std::uintptr_t rs = static_cast<std::uintptr_t>(rstride * static_cast<int64_t>(sizeof(TO)));
    const int64_t lo = k < 0 ? -k : 0, hi = K - k < unit ? K - k : unit;
    const uint32_t mask = ((hi >= 32 ? 0u : (1u << hi)) - 1u) & ~((1u << lo) - 1u);
    TO* a = line_at(k);
    for (int p = 0; p < R; ++p, a = reinterpret_cast<TO*>(reinterpret_cast<std::uintptr_t>(a) + rs)) partial(p, a, k, mask, v[p]);
  }
  /// Features [k0, k1) (k0 = first + a multiple of unit) from F (feature k at F + (k - fbase) R;
  /// F readable to a unit past k1). Whole units inside the rows take the branch-free loop.
  void put(const elem* F, int64_t fbase, int64_t k0, int64_t k1) {
    const bool ntl = nt;  // a local: the stores below could alias *this
    const std::uintptr_t rs = static_cast<std::uintptr_t>(rstride * static_cast<int64_t>(sizeof(TO)));
    int64_t k = k0;
    if (k < 0 && k < k1) {
      put_partial(F + (k - fbase) * R, k);
      k += unit;
    }
    const int64_t kfull = k1 < K ? k1 : K;
    for (; k + unit <= kfull; k += unit) {
      typename LO::LV v[R];
      rows_of(F + (k - fbase) * R, v);
      TO* a = line_at(k);
      for (int p = 0; p < R; ++p, a = reinterpret_cast<TO*>(reinterpret_cast<std::uintptr_t>(a) + rs)) LO::full(a, v[p], ntl);
    }
    for (; k < k1; k += unit) put_partial(F + (k - fbase) * R, k);
  }
};
#endif

/// sh_fast_block's default `early`: nothing to prepare.
struct no_hook {
  void operator()() const {}
};

/// The last output units of the previous block, put a few at a time while the next block runs
/// its recurrence: the transposes (shuffle port) then overlap the recurrence (loads, stores,
/// FMA) instead of following it.
template <class Sink>
struct deferred_put {
  static constexpr bool hand_off = true;  ///< each block leaves its last units here
  Sink sink;
  const typename Sink::elem* F = nullptr;
  int64_t fbase = 0, k = 0, kend = 0;
  bool active = false;
  int64_t units_left() const { return active ? (kend - k + Sink::unit - 1) / Sink::unit : 0; }
  void step(int64_t units) {
    if (!active) return;
    const int64_t k1 = kend - k <= units * Sink::unit ? kend : k + units * Sink::unit;
    sink.put(F, fbase, k, k1);
    k = k1;
    active = k < kend;
  }
  void flush() { step(kend); }
};

/// The previous block's staged lines (line_stream::end_deferred), copied a share at a time
/// while the next block runs its recurrence (sh_fast_block's bg; nothing handed off).
struct deferred_lines {
  static constexpr bool hand_off = false;
  line_stream* ls;
  int64_t units_left() const { return static_cast<int64_t>(ls->plines); }
  void step(int64_t units) { ls->copy_pending(static_cast<std::size_t>(units)); }
  void flush() { ls->copy_pending(ls->plines); }
};

/// Lowest lmax at which the AVX2 path writes full blocks through the whole-line super-blocks
/// (line_sink, 4 rows of 4-point blocks, two 4 x 4 tiles per line) instead of staging them
/// (line_stream) or storing tiles straight into the rows (tile_sink, row_stream_sink). Measured
/// (64k points, 1 thread, the two paths alternated call by call in one process, median ratio
/// line / old): output beyond L2 lmax 2 1.56, 3 1.47, 5 1.24, 8 1.03, 10 0.97-1.0, 14 0.92,
/// 20 0.86, 40 0.78; L2-resident chunks lmax 5 1.20, 8 1.00, 9 0.96, 10 0.87-0.92, 12 0.84,
/// 20 0.91, 40 0.97, 100 0.88 (docs/PERFORMANCE.md, session 10).
constexpr int32_t kSphAvx2LineMinLmax = 10;

/// Highest lmax for which the whole-line path runs sh_fast_block compiled for that lmax (every
/// loop unrolled: measured 4-7 % faster at lmax 10 than the same code with a run-time lmax).
/// Sanitizer builds keep the run-time lmax only: instrumenting the unrolled bodies took GCC 12
/// more than 10 minutes for this file.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kSphUnrolledLmax = 0;
#else
constexpr int kSphUnrolledLmax = 16;
#endif

/// f(std::integral_constant<int, lmax>) for 1 <= lmax <= kSphUnrolledLmax, else
/// f(std::integral_constant<int, 0>) (run-time lmax).
template <class Fn, int... Ls>
inline bool with_const_lmax_impl(int32_t lmax, Fn&& f, std::integer_sequence<int, Ls...>) {
  bool r = false;
  const bool hit = ((lmax == Ls + 1 ? (r = f(std::integral_constant<int, Ls + 1>{}), true) : false) || ... || false);
  return hit ? r : f(std::integral_constant<int, 0>{});
}
template <class Fn>
inline bool with_const_lmax(int32_t lmax, Fn&& f);

/// run(std::integral_constant<int, LC>) for one block outside the AVX-512 whole-line
/// super-blocks: full blocks with lmax compiled (with_const_lmax), tails with run-time lmax
/// (LC = 0). Not on AVX-512, where these blocks are only the tail and the fallback of the
/// super-blocks: the 16 more bodies there made the super-block loop slower (lmax 10 float64,
/// resident: 2.9 -> 3.4 ms).
template <class Fn>
inline bool run_block_body(int32_t lmax, bool full, Fn&& run) {
  if constexpr (kIsAvx512) {
    (void)lmax;
    (void)full;
    return run(std::integral_constant<int, 0>{});
  } else {
    return full ? with_const_lmax(lmax, run) : run(std::integral_constant<int, 0>{});
  }
}

template <class Fn>
inline bool with_const_lmax(int32_t lmax, Fn&& f) {
  return with_const_lmax_impl(lmax, f, std::make_integer_sequence<int, kSphUnrolledLmax>{});
}

struct no_defer {
  static constexpr bool hand_off = false;
  int64_t units_left() const { return 0; }
  void step(int64_t) {}
  void flush() {}
};

/// One feature vector (W values of the compute type T) into sh_fast_block's buffer F, whose
/// elements are the sink's `elem`: as they are, or rounded to float32 (line_sink<float, double>).
template <class T, class TF, class VV>
inline void fput(TF* p, const VV& y) {
  if constexpr (std::is_same<TF, T>::value) {
    stu(p, y);
  } else {
    static_assert(std::is_same<TF, float>::value && std::is_same<T, double>::value, "float64 rounded to float32");
#if defined(POSENC_ISA_AVX2)
    _mm_storeu_ps(p, _mm256_cvtpd_ps(vec<double>(y)));
#elif defined(POSENC_ISA_AVX512)
    _mm256_storeu_ps(p, _mm512_cvtpd_ps(vec<double>(y)));
#else
    static_assert(std::is_same<TF, T>::value, "F holds the compute type outside AVX2 and AVX-512");
#endif
  }
}

/// Real SH of one block of W points by the fast path (plan.fab set): x = cos theta, u = sin theta,
/// cm / sm = cos / sin (m phi) per m. Each value is written straight to its two output features
/// (Y_l^m cos m phi at l(l+1)+m, Y_l^m sin m phi at l(l+1)-m) in the SoA buffer F. Run-time lmax
/// and lmax > kSphOrderOuterLmax: degree l outer, order m inner (every step of the inner loop
/// independent: no latency chain), two state rows in L1, and whole units of features go to the
/// sink whenever F is about to fill, so the output stores are spread over the block's
/// arithmetic. Compiled lmax <= kSphOrderOuterLmax: order outer, degree inner (see the body).
/// Returns false, having written nothing, when a lane off the pole has a sectoral seed below
/// 2^-900 (float: 2^-100; sin theta^lmax tiny): such a block needs the extended-exponent path.
/// `early` runs once the block is known to take this path, before the recurrence: the caller
/// prepares the next block there (into the other cm / sm buffer), so that the latency chain of
/// that set-up (square roots, the e^{i m phi} powers) hides under this block's arithmetic: the
/// out-of-order window covers it (measured: ~15 % of a block at lmax 10 when it ran after the
/// recurrence instead).
/// LC > 0: lmax known at compile time (= P.lmax), so that every loop over degrees and orders has
/// a constant trip count and is unrolled (no loop-exit mispredictions; see kSphUnrolledLmax).
/// bg (deferred_put or no_defer): the previous block's last units, put interleaved with this
/// block's degrees (or columns, in the order-outer bodies), all of them before this block's
/// first own put; with a deferred_put, this block's last units are left in bg in turn, read
/// from feature buffer `fsel` (0 / 1), which the caller alternates.
/// seeds: the sectoral values y_m^m, precomputed by the caller; required for float (the float
/// path takes them from float64), ignored for double (computed here from u).
/// xlo: the rounding error of x (cos theta = x + xlo), for the float32 path; every step then
/// uses x + xlo. The zonal column (m = 0) is the one that needs it: near the poles
/// dP_l/dx ~ l^2 / 2, so the float rounding of x alone cost 3e-6 of the block at lmax 10 (l^2
/// growth); the columns m >= 1 carry sin(theta)^m and are insensitive to it.
template <int LC = 0, class T = double, class Sink, class Hook = no_hook, class Bg = no_defer>
inline bool sh_fast_block(const sph_plan& P, const vec<T>& x, const vec<T>& u, const T* cm, const T* sm, T* scr,
                          Sink& sink, Hook&& early = Hook{}, Bg* bg = nullptr, int fsel = 0,
                          const T* seeds = nullptr, const vec<T>* xlo = nullptr) {
  using V = vec<T>;  // float: the float32-native path (16 lanes on AVX-512, 8 on AVX2), table fab32, seeds given
  constexpr std::size_t W = width<T>;
  constexpr bool kF = std::is_same<T, float>::value;
  constexpr bool kDefer = !std::is_same<Bg, no_defer>::value;
  constexpr bool kHandOff = Bg::hand_off;  // deferred_put: the block's last units are left in bg
  const int32_t L = LC > 0 ? LC : P.lmax;
  const std::size_t N = static_cast<std::size_t>(L) + 1;
  const int64_t cap = fast_cap(L), Wd = static_cast<int64_t>(W);
  const T* fab = nullptr;  // the coefficient table in the compute type
  if constexpr (kF) fab = P.fab32;
  else fab = P.fab;
  T* Z = scr;  // the sectoral seeds y_m^m
  T* bufs[2] = {scr + N * W, scr + 2 * N * W};  // bufs[l & 1] holds y_l (and y_{l-2} before)
  using TF = typename Sink::elem;  // F's element type: T, or float (float32 lines from float64 compute)
  TF* F = reinterpret_cast<TF*>(scr + 3 * N * W) + (kHandOff && fsel ? (cap + 16) * Wd : 0);
  V z(static_cast<T>(P.fy00));
  if constexpr (kF) {  // the caller's sectoral seeds, from float64 (f32_native)
    Z = const_cast<T*>(seeds);  // read only from here on
    z = load(seeds + L * W);
  } else {
    stu(Z, z);
    for (std::size_t m = 1; m < N; ++m) {
      z = z * (V(P.fdiag[m]) * u);
      stu(Z + m * W, z);
    }
  }
  // The smallest seed: below it the recurrence would leave the format's normal range (float:
  // every value then stays a normal float; see kSphF32NativeLmax).
  if (any((u != V(T(0))) & (abs(z) < V(kF ? T(0x1p-100) : T(0x1p-900))))) return false;
  early();
  const V zero(T(0));
  int64_t fbase = sink.first, kdone = sink.first;  // F starts at the sink's first unit (>= -unit)
  static_assert(Sink::unit <= 16, "F's leading zero units");
#pragma GCC unroll 16
  for (int64_t k = 0; k < Sink::unit; ++k) fput<T>(F + k * Wd, zero);  // features < 0 (no memset call)
  // One recurrence step y_l = a x y_{l-1} + b y_{l-2} (with xlo: x + xlo); the same operations
  // in both loop orders, so both give the same bits.
  // A register copy of x: x is a reference the output stores could alias, so each step reloaded
  // it. Zen 5, 64k points, 1 thread, A/B: float64 lmax 40 -3..-5 % (AVX2), -2 % (AVX-512),
  // lmax 64 -7 %; float32 lmax 40 -4 %; lmax 10 (order-outer body) neutral.
  const V xr = x;
  auto step = [&](const T* ab2, const V& p, const V& q) POSENC_HOT_LAMBDA -> V {
    const V a(ab2[0]);
    if (xlo != nullptr) return madd(a * xr, p, madd(a * *xlo, p, V(ab2[1]) * q));
    return madd(a * xr, p, V(ab2[1]) * q);
  };
  // The previous block's units, an even share in each of the `slices` (degrees or columns) left.
  auto spread = [&](int32_t slices) POSENC_HOT_LAMBDA {
    if constexpr (kDefer) {
      const int64_t left = bg->units_left();
      if (left > 0) bg->step((left + slices - 1) / slices);
    } else {
      (void)slices;
    }
  };
  if constexpr (LC > 0 && LC <= kSphOrderOuterLmax) {
    // Order m outer, degree l inner (lmax known at compile time, every loop unrolled): the
    // column y_m^m, y_{m+1}^m, ... lives in two registers, with cos / sin (m phi), so a step is
    // the recurrence and its two output stores: none of the state-row loads and stores of the
    // degree-outer loop below. Each column is a latency chain of one FMA per step (b y_{l-2} is
    // ready a step early); the L + 1 independent columns of the straight-line body overlap in
    // the out-of-order window. F holds the whole block (fast_cap).
    TF* const f0 = F - fbase * Wd;  // feature 0
    const int64_t KK = static_cast<int64_t>(N) * static_cast<int64_t>(N);
#pragma GCC unroll 17
    for (int32_t m = 0; m <= L; ++m) {
      if constexpr (!kDefer) sink.prefetch(KK * (m + 1) / (L + 1));
      spread(L + 1 - m);  // even per column (measured better than in proportion to its work)
      const std::size_t o = static_cast<std::size_t>(m) * W;
      const V c = m > 0 ? load(cm + o) : zero, s = m > 0 ? load(sm + o) : zero;
      V y2 = zero, y1 = load(Z + o);
      auto out = [&](int64_t l, const V& y) POSENC_HOT_LAMBDA {
        const int64_t k = l * (l + 1);
        if (m == 0) {
          fput<T>(f0 + k * Wd, y);
        } else {
          fput<T>(f0 + (k + m) * Wd, y * c);
          fput<T>(f0 + (k - m) * Wd, y * s);
        }
      };
      out(m, y1);
#pragma GCC unroll 16
      for (int32_t l = m + 1; l <= L; ++l) {
        const V y = step(fab + static_cast<int64_t>(l) * (l - 1) + 2 * m, y1, y2);
        out(l, y);
        y2 = y1;
        y1 = y;
      }
    }
  } else {
  stu(bufs[0], load(Z));  // the state rows: y_0 and y_{-1} = 0
  stu(bufs[1], zero);
  fput<T>(F - fbase * Wd, load(Z));
#pragma GCC unroll 16
  for (int32_t l = 1; l <= L; ++l) {
    const int64_t lw = static_cast<int64_t>(l);
    if constexpr (!kDefer) sink.prefetch((lw + 1) * (lw + 1));  // degree l's output lines
    spread(L + 1 - l);
    if ((lw + 1) * (lw + 1) - fbase > cap) {  // degree l would not fit: drain whole units
      if constexpr (kHandOff) bg->flush();
      const int64_t kout = kdone + (lw * lw - kdone) / Sink::unit * Sink::unit;
      sink.put(F, fbase, kdone, kout);
      if (kout > fbase)  // the leftover features to the front (slots a whole unit or more apart)
        for (int64_t k = kout; k < lw * lw; ++k) std::memcpy(F + (k - kout) * Wd, F + (k - fbase) * Wd, W * sizeof(TF));
      kdone = fbase = kout;
    }
    T* cur = bufs[l & 1];  // y_{l-2} in, y_l out
    T* prv = bufs[(l - 1) & 1];
    const T* ab = fab + lw * (lw - 1);  // (a, -b) for m = 0..l-1
    TF* f = F + (lw * (lw + 1) - fbase) * Wd;
    {
      const V y = step(ab, load(prv), load(cur));
      stu(cur, y);
      fput<T>(f, y);
    }
#pragma GCC unroll 16
    for (int32_t m = 1; m < l; ++m) {
      const std::size_t o = static_cast<std::size_t>(m) * W;
      const V y = step(ab + 2 * m, load(prv + o), load(cur + o));
      stu(cur + o, y);
      fput<T>(f + o, y * load(cm + o));
      fput<T>(f - o, y * load(sm + o));
    }
    {
      const std::size_t o = static_cast<std::size_t>(l) * W;
      const V y = load(Z + o);
      stu(cur + o, y);
      stu(prv + o, zero);  // y_{l-1}^l = 0 for degree l + 1
      fput<T>(f + o, y * load(cm + o));
      fput<T>(f - o, y * load(sm + o));
    }
  }
  }
  if constexpr (kHandOff) {
    bg->flush();
    bg->sink = sink;
    bg->F = F;
    bg->fbase = fbase;
    bg->k = kdone;
    bg->kend = static_cast<int64_t>(N) * static_cast<int64_t>(N);
    bg->active = true;
  } else {
    sink.put(F, fbase, kdone, static_cast<int64_t>(N) * static_cast<int64_t>(N));
  }
  return true;
}

template <class TI>
inline void load_block(const TI* src, int64_t p0, std::size_t np, double* dst, double pad) {
  for (std::size_t i = 0; i < W; ++i) dst[i] = i < np ? static_cast<double>(src[p0 + static_cast<int64_t>(i)]) : pad;
}

template <class TI, class TO>
inline void legendre_impl(const sph_plan* P, const TI* x, int64_t n, TO* out, double* scr_in) {
  double* scr = align64(scr_in);
  const int32_t L = P->lmax;
  const int64_t K = (static_cast<int64_t>(L) + 1) * (static_cast<int64_t>(L) + 2) / 2;
  const V one(1.0);
  double* stage = scr + core_scratch(L);
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = static_cast<std::size_t>(n - p0 < static_cast<int64_t>(W) ? n - p0 : static_cast<int64_t>(W));
    alignas(64) double xb[W];
    load_block(x, p0, np, xb, 0.0);
    const V xv = load(xb);
    const V uv = sqrt((one - xv) * (one + xv));
#if defined(POSENC_ISA_AVX2)
    // Large outputs (P->stream, >= 16 MB) of full blocks: each row is its own line_stream
    // (row_stream_sink, as sh_real's large blocks), fed a degree at a time straight from the
    // recurrence's row (feature-major already; put_tiles4 reads up to 3 features past it, inside
    // the scratch), so the output goes out in whole non-temporal lines instead of tile stores
    // that read every line for ownership first. The row buffers sit after the emitter stage, in
    // the space sh_real's cos / sin buffers take (10 (lmax+1) W doubles, enough for the W
    // buffers of row_stream_sink::buf_bytes from lmax 32; smaller degrees keep the tiles).
    // Measured (Zen 5, 16 points, lmax 1000, SCHMIDT, 1 thread): docs/PERFORMANCE.md, session 12.
    if (P->stream != 0 && np == W && L >= 32) {
      row_stream_sink<TO> rs(out + p0 * K, K, reinterpret_cast<char*>(align64(stage + stage_doubles(L))), L);
      int64_t k0 = 0;
      core(*P, xv, uv, scr, [&](int32_t l, const double* row) {
        rs.put(row, k0, k0, k0 + l + 1);
        k0 += l + 1;
      });
      rs.finish();
      continue;
    }
#endif
    emitter<TO> em(stage, out + p0 * K, K, np);
    core(*P, xv, uv, scr, [&](int32_t l, const double* row) {
      for (int32_t m = 0; m <= l; ++m) em.put(static_cast<std::size_t>(m), load(row + static_cast<std::size_t>(m) * W));
      em.commit(static_cast<std::size_t>(l) + 1);
    });
    em.finish();
  }
  if (kHasStream && P->stream != 0) fence();
}

/// True where sh_real's large outputs copy a staged block's lines while the next block computes
/// (line_stream::end_deferred, deferred_lines): AVX2 blocks of at most 16 KB (AVX-512 defers the
/// whole-line puts of its super-blocks instead, deferred_put; NEON has no non-temporal stores).
/// Measured (64k points, 1 thread, interleaved A/B against copying each block at its end):
/// float64 lmax 3 -2..-11 %, 10 -4..-11 %, 16 -11 %, 20 -1..-9 %; float32 (from float64) lmax 20
/// -8 %. Not for the float32-native blocks (lmax 5 to 16: +4..7 %), whose fallback halves
/// still take it (mixing end and end_deferred on one line_stream is safe).
inline bool deferred_copy(int32_t lmax) {
#if defined(POSENC_ISA_AVX2)
  // From lmax 3 (512-byte blocks; lmax 1: 9-15 % slower, two lines a block).
  const int64_t N = static_cast<int64_t>(lmax) + 1;
  return lmax >= 3 && lmax <= kSphStreamLmax && static_cast<int64_t>(W) * N * N * 8 <= kSphL1BlockBytes;
#else
  (void)lmax;
  return false;
#endif
}

/// Doubles of sh_real's streaming block (W (lmax+1)^2 outputs, 64-byte aligned) where it applies.
/// On AVX2, blocks of at most 16 KB get two (line_stream::end_deferred); the second follows the
/// first at stream_blk_doubles(lmax) / 2.
inline int64_t stream_blk_doubles(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1;
  // + line_stream's 128 bytes, rounded to whole lines (the second buffer stays 64-byte aligned)
  const int64_t one = kHasStream && lmax <= kSphStreamLmax ? (static_cast<int64_t>(W) * N * N + 16 + 7) / 8 * 8 : 0;
  return one * (deferred_copy(lmax) ? 2 : 1);
}

/// The driver of the whole-line super-blocks: blocks b = 0 .. nb-1, block c = b % U of
/// super-block b / U. set_up(b) prepares block b into the set-up buffers of parity b & 1;
/// run(b, next) computes block b and calls next() (the set-up of block b + 1) once its own path
/// is certain, so that the set-up overlaps the block (sh_fast_block's `early`); when it does
/// not, next() runs after it. end_super_block() follows every U-th block: the lines a
/// super-block's rows share are complete only then.
template <class SetUp, class Run, class End>
inline void superblock_loop(int64_t nb, int64_t U, SetUp&& set_up, Run&& run, End&& end_super_block) {
  if (nb > 0) set_up(0);
  for (int64_t b = 0; b < nb; ++b) {
    bool prepped = false;
    auto next = [&] {
      if (b + 1 < nb) set_up(b + 1);
      prepped = true;
    };
    run(b, next);
    if (!prepped) next();
    if (b % U == U - 1) end_super_block();
  }
}

#if defined(POSENC_ISA_AVX2)
/// 8 x 8 transpose of the float feature vectors src[0..8) (16-byte aligned, 8 floats each) into
/// r[p] = (src[0][p], ..., src[7][p]). The loads put features i and i + 4 of 4 points in the two
/// 128-bit halves (inserted from memory); then a 4 x 4 transpose runs in both halves at once
/// (4 unpacks and 4 shuffles per 4 points): 16 shuffle-port operations per 64 values.
inline void transpose8f_load(const float* src, __m256* r) {
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

#endif

#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
/// Output of the float32-native fast block outside the AVX-512 whole-line super-blocks: tiles of
/// width<float> features x points (16 x 16 by transpose16_load, 8 x 8 by transpose8f_load)
/// stored into the rows dst + p * stride, p < np; the last c < unit features of each row by a
/// masked (AVX-512) or partial (AVX2) store. F is readable a unit past k1 (fast_cap).
struct ftile_sink {
  using elem = float;
  static constexpr int64_t unit = static_cast<int64_t>(width<float>);
  static constexpr int64_t first = 0;
  float* dst;
  int64_t stride;
  std::size_t np;
  void put(const float* F, int64_t fbase, int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; k += unit) {
      const std::size_t c = static_cast<std::size_t>(k1 - k < unit ? k1 - k : unit);
      float* const d = dst + k;
#if defined(POSENC_ISA_AVX512)
      __m512 r[16];
      transpose16_load(F + (k - fbase) * unit, r);
      const __mmask16 m = static_cast<__mmask16>(c >= 16 ? 0xFFFFu : (1u << c) - 1u);
      for (std::size_t p = 0; p < np; ++p) _mm512_mask_storeu_ps(d + static_cast<int64_t>(p) * stride, m, r[p]);
#else
      __m256 r[8];
      transpose8f_load(F + (k - fbase) * unit, r);
      for (std::size_t p = 0; p < np; ++p) {
        float* const row = d + static_cast<int64_t>(p) * stride;
        if (c == 8) _mm256_storeu_ps(row, r[p]);
        else store_partial(row, vec<float>(r[p]), c);
      }
#endif
    }
  }
  void prefetch(int64_t) {}
};
#endif

#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
/// Float32 real SH with the recurrence itself in float32 (lmax <= kSphF32NativeLmax): blocks of
/// 2W points (one float vector: 16 on AVX-512, 8 on AVX2), set up in float64 as two halves of W
/// (sh_real_impl's prep) and narrowed, so that the only float32 error is the recurrence's own
/// (docs/ACCURACY.md); per lane the same operations on both ISAs. AVX-512: super-blocks of
/// 16 x 16 points go through the whole-line writer (line_sink<float, float>). The other blocks
/// (all of them on AVX2, whose full blocks run the bodies compiled per lmax) go through
/// ftile_sink, staged through line_stream ls when `staged`. A block whose smallest seed leaves
/// the float range (sh_fast_block returns false) is computed by sh_real_impl's float64 `block`
/// in two halves.
/// scr: fast-path scratch; cms: 6 (lmax+1) W doubles for two float buffers of cos / sin (m phi)
/// and the seeds;
/// dtmp: 4 (lmax+1) W doubles for the float64 set-up of the two halves.
template <class Prep, class Block>
inline void f32_native(const sph_plan* P, int64_t n, float* out, double* scr, double* cms, double* dtmp, Prep& prep,
                       Block& block, line_stream& ls, bool staged) {
  using VF = vec<float>;
  constexpr std::size_t WF = width<float>;
  static_assert(WF == 2 * W, "two float64 halves per float block");
  const int32_t L = P->lmax;
  const std::size_t N = static_cast<std::size_t>(L) + 1;
  const int64_t K = (static_cast<int64_t>(L) + 1) * (static_cast<int64_t>(L) + 1);
  float* const fscr = reinterpret_cast<float*>(scr);
  float* const fcms = reinterpret_cast<float*>(cms);
  auto fcs = [&](int64_t b, float*& c, float*& s_) {  // cos, sin (m phi), then the seeds y_m^m
    c = fcms + static_cast<std::size_t>(b & 1) * 3 * N * WF;
    s_ = c + N * WF;
  };
  double* const hc[2] = {dtmp, dtmp + 2 * N * W};  // cos / sin (m phi) of the two halves
  struct set_up {
    V ct[2], st[2];
    VF ct16, st16, xlo16;  // cos theta = ct16 + xlo16 (the float rounding error kept)
  };
  auto narrow = [](const V& a, const V& b) -> VF {
#if defined(POSENC_ISA_AVX512)
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(a)), _mm512_cvtpd_ps(b), 1);
#else
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(a)), _mm256_cvtpd_ps(b), 1);
#endif
  };
  auto widen = [](const VF& v, int h) -> V {  // lanes [W h, W h + W) as float64
#if defined(POSENC_ISA_AVX512)
    return _mm512_cvtps_pd(h == 0 ? _mm512_castps512_ps256(v) : _mm512_extractf32x8_ps(v, 1));
#else
    return _mm256_cvtps_pd(h == 0 ? _mm256_castps256_ps128(v) : _mm256_extractf128_ps(v, 1));
#endif
  };
  constexpr int64_t Wi = static_cast<int64_t>(W);
  // Points first + j pstride, j < np <= 2 W, into q and the float buffers cmo / smo.
  auto prep16 = [&](int64_t first, int64_t pstride, std::size_t np, set_up& q, float* cmo, float* smo) {
    for (int h = 0; h < 2; ++h) {
      const std::size_t nh = np > W * static_cast<std::size_t>(h) ? std::min<std::size_t>(np - W * static_cast<std::size_t>(h), W) : 0;
      prep(first + Wi * h * pstride, pstride, nh, q.ct[h], q.st[h], hc[h], hc[h] + N * W);
    }
    q.ct16 = narrow(q.ct[0], q.ct[1]);
    q.st16 = narrow(q.st[0], q.st[1]);
    q.xlo16 = narrow(q.ct[0] - widen(q.ct16, 0), q.ct[1] - widen(q.ct16, 1));  // exact differences
    // The sectoral seeds in float64, rounded once: the float32 product chain would carry ~3 L
    // roundings into every value of the block (measured 6.9e-6 against 4.4e-6 at lmax 31).
    V z[2] = {V(P->fy00), V(P->fy00)};
    float* const zo = smo + N * WF;
    stu(zo, narrow(z[0], z[1]));
    for (std::size_t m = 1; m < N; ++m) {
      for (int h = 0; h < 2; ++h) z[h] = z[h] * (V(P->fdiag[m]) * q.st[h]);
      stu(zo + m * WF, narrow(z[0], z[1]));
    }
    for (std::size_t m = 0; m < N; ++m) {
      stu(cmo + m * WF, narrow(load(hc[0] + m * W), load(hc[1] + m * W)));
      stu(smo + m * WF, narrow(load(hc[0] + N * W + m * W), load(hc[1] + N * W + m * W)));
    }
  };
  // A block the float range cannot hold: both halves by the float64 path (hc still holds them).
  auto fallback = [&](int64_t first, int64_t pstride, std::size_t np, const set_up& q) {
    for (int h = 0; h < 2 && np > W * static_cast<std::size_t>(h); ++h)
      block(first + Wi * h * pstride, pstride, std::min<std::size_t>(np - W * static_cast<std::size_t>(h), W), int64_t(-1),
            q.ct[h], q.st[h], hc[h], hc[h] + N * W, no_hook{});
  };
  float *fcm = nullptr, *fsm = nullptr;
  int64_t p0 = 0;
#if defined(POSENC_ISA_AVX512)
  constexpr int64_t U = 16, SB = U * static_cast<int64_t>(WF);
  if (reinterpret_cast<std::uintptr_t>(out) % sizeof(float) == 0 && n >= SB) {
    line_pending<float, 16> pend;
    deferred_put<line_sink<float, float>> bg{line_sink<float, float>(out, 0, 0, false, nullptr, 0)};
    auto first_of = [&](int64_t b) { return b / U * SB + b % U; };
    set_up q[2];  // by block parity, like the float buffers
    superblock_loop(
        n / SB * U, U,
        [&](int64_t b) {
          fcs(b, fcm, fsm);
          prep16(first_of(b), U, WF, q[b & 1], fcm, fsm);
        },
        [&](int64_t b, auto& next) {
          const set_up& qb = q[b & 1];
          fcs(b, fcm, fsm);
          line_sink<float, float> ls(out + first_of(b) * K, U * K, K, P->stream != 0, &pend, static_cast<int>(b % U));
          const int fsel = static_cast<int>(b & 1);
          const bool ok = with_const_lmax(L, [&](auto lc) {
            constexpr int LC = decltype(lc)::value;
            if (P->stream != 0) return sh_fast_block<LC, float>(*P, qb.ct16, qb.st16, fcm, fsm, fscr, ls, next, &bg, fsel, fsm + N * WF, &qb.xlo16);
            return sh_fast_block<LC, float>(*P, qb.ct16, qb.st16, fcm, fsm, fscr, ls, next, static_cast<no_defer*>(nullptr), 0, fsm + N * WF, &qb.xlo16);
          });
          if (!ok) {
            bg.flush();          // the previous block's last lines first (F is about to be reused)
            pend.flush_tails();  // this block's rows go out by the float64 path
            fallback(first_of(b), U, WF, qb);
          }
        },
        [&] {
          bg.flush();
          pend.flush();
        });
    p0 = n / SB * SB;
  }
#endif
  for (; p0 < n; p0 += static_cast<int64_t>(WF)) {
    const std::size_t np = static_cast<std::size_t>(std::min<int64_t>(n - p0, static_cast<int64_t>(WF)));
    set_up q;
    fcs(0, fcm, fsm);
    prep16(p0, 1, np, q, fcm, fsm);
    // Staged through ls when `staged` (begin() twice for the same rows is harmless: a failed
    // block stages nothing and its fallback writes the rows itself); on AVX2 full blocks run
    // the bodies compiled per lmax.
    float* const dst = staged ? reinterpret_cast<float*>(ls.begin(out + p0 * K)) : out + p0 * K;
    ftile_sink ts{dst, K, np};
    auto run = [&](auto lc) {
      constexpr int LC = decltype(lc)::value;
      return sh_fast_block<LC, float>(*P, q.ct16, q.st16, fcm, fsm, fscr, ts, no_hook{}, static_cast<no_defer*>(nullptr), 0, fsm + N * WF, &q.xlo16);
    };
    const bool ok = run_block_body(L, np == WF, run);
    if (!ok) fallback(p0, 1, np, q);
    else if (staged) ls.end(np * static_cast<std::size_t>(K) * sizeof(float));
  }
}
#endif

/// The coordinate at q + 3 pstride j of the W points j < W, as doubles. A gather where the ISA
/// has one: W scalar stores and a vector load of them (the fallback) cannot be forwarded, so the
/// load waits until every earlier store (the previous block's output) has left the store buffer,
/// which serialized consecutive blocks (44 % of the AVX2 time at lmax 10, resident output).
template <class TI>
inline V gather_coord(const TI* q, int64_t pstride) {
  const int64_t s = 3 * pstride;
#if defined(POSENC_ISA_AVX2)
  const __m256i idx = _mm256_set_epi64x(3 * s, 2 * s, s, 0);
  if constexpr (std::is_same<TI, double>::value) return V(_mm256_i64gather_pd(q, idx, 8));
  else return V(_mm256_cvtps_pd(_mm256_i64gather_ps(q, idx, 4)));
#elif defined(POSENC_ISA_AVX512)
  const __m512i idx = _mm512_mullo_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(s));
  if constexpr (std::is_same<TI, double>::value) return V(_mm512_i64gather_pd(idx, q, 8));
  else return V(_mm512_cvtps_pd(_mm512_i64gather_ps(idx, q, 4)));
#else
  alignas(64) double b[W];
  for (std::size_t i = 0; i < W; ++i) b[i] = static_cast<double>(q[static_cast<int64_t>(i) * s]);
  return load(b);
#endif
}

template <class TI, class TO>
inline void sh_real_impl(const sph_plan* P, const TI* xyz, int64_t n, TO* out, double* scr_in) {
  double* scr = align64(scr_in);
  const int32_t L = P->lmax;
  const std::size_t N = static_cast<std::size_t>(L) + 1;
  const int64_t K = (static_cast<int64_t>(L) + 1) * (static_cast<int64_t>(L) + 1);
  // cos / sin (m phi) of a block, two buffers: block b reads buffer b & 1 while the next block
  // is prepared into the other (sh_fast_block's `early`).
  double* const cms = scr + std::max(core_scratch(L), fast_scratch(L));
  auto cm_of = [&](int64_t b) { return cms + static_cast<std::size_t>(b & 1) * 2 * N * W; };  // sin: + N W
  // f32_native: its float buffers take 6 (lmax+1) W doubles here, then the float64 set-up of two half blocks
  [[maybe_unused]] double* const dtmp = cms + 6 * N * W;
  double* stage = cms + 10 * N * W;
  // Staging: a block's outputs are written point-major into line_stream's buffer (L1/L2) and
  // then copied to out in whole lines, non-temporal for large outputs (contiguous: the W points
  // of a block are adjacent rows, and consecutive blocks adjacent too).
  const bool staging = kHasStream && L <= kSphStreamLmax;
  double* const sblk = staging ? align64(stage + stage_doubles(L)) : nullptr;  // stream_blk_doubles
  const bool defer_copy = staging && P->stream != 0 && deferred_copy(L);
  line_stream lstream(sblk, P->stream != 0, defer_copy ? sblk + stream_blk_doubles(L) / 2 : nullptr);
  // Blocks staged through line_stream: large outputs (non-temporal lines), and L2-resident
  // blocks of 1 KB to kSphStageMaxBytes (ordinary whole lines; AVX2, lmax 10: float64
  // 5.8 -> 4.3 ms, float32 native 4.0 -> 3.6, session 6). Below 1 KB the staging costs more than
  // the split row stores (lmax 3: 1.0 -> 1.3 ms). Larger L2-resident float64 blocks are stored
  // straight into the rows with their lines prefetched for writing (tile_sink pfw).
  auto staged_for = [&](int64_t blk_bytes, int64_t max_bytes) { return staging && (P->stream != 0 || (blk_bytes >= 1024 && blk_bytes <= max_bytes)); };
  auto pf_for = [&](int64_t blk_bytes, bool staged) { return blk_bytes > kSphL1BlockBytes || (P->stream == 0 && !staged && blk_bytes >= kSphPrefetchMinBytes); };
  const V one(1.0), zero(0.0);
#if defined(POSENC_ISA_AVX2)
  // Large outputs whose blocks exceed L1 (so lmax >= 32: run-time lmax): one line_stream per
  // row (row_stream_sink), its buffers (W buf_bytes: at most 6 KB for lmax <= kSphStreamLmax)
  // in the staging space (stream_blk_doubles: 34 KB and more where they apply). lmax 40, 64k
  // points, 1 thread: float64 104 -> 79 ms, float32 73 -> 61 ms. (Also tried for L2-resident
  // outputs, with ordinary line stores: lmax 40 float64 50 -> 73 ms.) Since session 10 the
  // full super-blocks take line_sink instead (lmax 40: 70 -> 55 ms); this remains for the
  // blocks outside them (the last n mod 32 / 64 points, outputs not aligned to their element).
  const bool rows_nt = staging && P->fab && P->stream != 0 && static_cast<int64_t>(W) * K * static_cast<int64_t>(sizeof(TO)) > kSphL1BlockBytes;
#endif
#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
  line_pending<TO, static_cast<int>(W)> pend;
  // The previous block's deferred lines (AVX-512 non-temporal super-blocks; never filled on AVX2,
  // whose flush() calls below are then no-ops).
  deferred_put<line_sink<TO>> bgput{line_sink<TO>(out, 0, 0, false, nullptr, 0)};
#endif
  // Set-up of one block: points first + j pstride (j < np): cos / sin theta into ct / st,
  // cos / sin (m phi) into cm / sm.
  auto prep = [&](int64_t first, int64_t pstride, std::size_t np, V& ct, V& st, double* cmo, double* smo) {
    V X, Y, Z;
    if (np == W) {
      const TI* q = xyz + 3 * first;
      X = gather_coord(q, pstride);
      Y = gather_coord(q + 1, pstride);
      Z = gather_coord(q + 2, pstride);
    } else {
      alignas(64) double xb[W], yb[W], zb[W];
      for (std::size_t i = 0; i < W; ++i) {
        if (i < np) {
          const TI* q = xyz + 3 * (first + static_cast<int64_t>(i) * pstride);
          xb[i] = static_cast<double>(q[0]);
          yb[i] = static_cast<double>(q[1]);
          zb[i] = static_cast<double>(q[2]);
        } else {
          xb[i] = 0.0;
          yb[i] = 0.0;
          zb[i] = 1.0;
        }
      }
      X = load(xb);
      Y = load(yb);
      Z = load(zb);
    }
    V rxy2 = X * X + Y * Y;
    const V mx = max(max(abs(X), abs(Y)), abs(Z));  // > 0 (validated)
    auto pos = rxy2 > zero;
    V ir, irs;  // 1 / r and 1 / r_xy (1 on the pole)
    if (all((mx >= V(0x1p-400)) & (mx <= V(0x1p400)) & (!pos | (rxy2 >= V(0x1p-900))))) {
      // No square can overflow or lose precision: two reciprocal square roots (no division;
      // see rsqrt), each product one more rounding (<= 4 ulp in all, inside the documented bound).
      ir = rsqrt(rxy2 + Z * Z);
      irs = rsqrt(select(pos, rxy2, one));
    } else {  // extreme magnitudes: scale by the largest component first, then divide
      const V imx = one / mx;
      X = X * imx;
      Y = Y * imx;
      Z = Z * imx;
      rxy2 = X * X + Y * Y;
      pos = rxy2 > zero;
      ir = one / sqrt(rxy2 + Z * Z);
      irs = one / sqrt(select(pos, rxy2, one));
    }
    ct = min(max(Z * ir, V(-1.0)), one);
    st = (rxy2 * irs) * ir;
    const V c1 = select(pos, X * irs, one), s1 = select(pos, Y * irs, zero);
    // e^{i m phi} = (cos phi + i sin phi)^m by complex multiplication: no trig. Two chains
    // (even and odd m, each stepping by e^{2 i phi}) halve the latency of the recurrence.
    const V c2 = c1 * c1 - s1 * s1, s2 = (c1 * s1) * V(2.0);
    V ce = one, se = zero, co = c1, so = s1;
    stu(cmo, ce);
    stu(smo, se);
    if (N > 1) {
      stu(cmo + W, co);
      stu(smo + W, so);
    }
    for (std::size_t m = 2; m < N; m += 2) {
      const V cn = ce * c2 - se * s2, sn = ce * s2 + se * c2;
      ce = cn;
      se = sn;
      stu(cmo + m * W, ce);
      stu(smo + m * W, se);
      if (m + 1 < N) {
        const V cn2 = co * c2 - so * s2, sn2 = co * s2 + so * c2;
        co = cn2;
        so = sn2;
        stu(cmo + (m + 1) * W, co);
        stu(smo + (m + 1) * W, so);
      }
    }
  };
  // One block (prepared; cos / sin (m phi) in cm / sm): rows out + (first + j pstride) K.
  // b >= 0: block b of the whole-line super-blocks (line_sink), else plain tiles. hook: see
  // sh_fast_block.
  auto block = [&](int64_t first, int64_t pstride, std::size_t np, int64_t b, const V& ct, const V& st, const double* cm,
                   const double* sm, auto&& hook) {
    TO* const row0 = out + first * K;
    const int64_t rstride = pstride * K;
#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
    if (b >= 0) {
      constexpr int64_t U = 64 / static_cast<int64_t>(sizeof(TO));
      line_sink<TO> ls(row0, rstride, K, P->stream != 0, &pend, static_cast<int>(b % U));
      // AVX-512, non-temporal output (>= 16 MB): the last units of each block are put during
      // the next block's recurrence (measured 5.2 -> 4.6 ms at lmax 10, 64k points; on Zen 5
      // still 0.95); an L2-resident output is faster put at once (3.3 vs 4.2 ms). AVX2 puts at
      // once always: on Zen 5 (A/B, at once / deferred, 64k points, 1 thread, float64) lmax 10
      // 0.81-0.82, 12 0.88, 16 1.00, 20 0.87, 30 0.94, 40 0.93, 64 1.02, 100 1.01; float32
      // lmax 20 0.89, 40 0.97 (docs/PERFORMANCE.md, session 12).
      const int fsel = static_cast<int>(b & 1);
      const bool ok = with_const_lmax(P->lmax, [&](auto lc) {
        constexpr int LC = decltype(lc)::value;
        if constexpr (kIsAvx512)
          if (P->stream != 0) return sh_fast_block<LC>(*P, ct, st, cm, sm, scr, ls, hook, &bgput, fsel);
        return sh_fast_block<LC>(*P, ct, st, cm, sm, scr, ls, hook);
      });
      if (ok) return;
      bgput.flush();       // the previous block's last lines first
      pend.flush_tails();  // this block's heads go out with the extended-range path below
    }
#else
    (void)b;
    (void)hook;
#endif
#if defined(POSENC_ISA_AVX2)
    if (rows_nt && np == W && pstride == 1) {
      lstream.finish();  // a fallback block's held line: the row buffers share its space
      row_stream_sink<TO> rs(row0, K, reinterpret_cast<char*>(align64(stage + stage_doubles(L))), L);
      if (sh_fast_block(*P, ct, st, cm, sm, scr, rs)) {
        rs.finish();
        return;
      }
    }
#endif
    // float32 rows of 4 points written from float64 split fewer lines: staging them was neutral.
    const int64_t blk_bytes = static_cast<int64_t>(np) * K * static_cast<int64_t>(sizeof(TO));
    const bool via_blk = pstride == 1 && staged_for(blk_bytes, sizeof(TO) == 8 ? kSphStageMaxBytes : 0);
    TO* const dst = via_blk ? reinterpret_cast<TO*>(lstream.begin(row0)) : row0;
    bool done = false;
    if (P->fab) {
      tile_sink<TO> ts{dst, rstride, np, pf_for(blk_bytes, via_blk)};
      deferred_lines dl{&lstream};
      auto run = [&](auto lc) {
        constexpr int LC = decltype(lc)::value;
        if (via_blk && defer_copy) return sh_fast_block<LC>(*P, ct, st, cm, sm, scr, ts, no_hook{}, &dl);
        return sh_fast_block<LC>(*P, ct, st, cm, sm, scr, ts);
      };
      // Full blocks: lmax known at compile time (unrolled; order outer to kSphOrderOuterLmax).
      done = run_block_body(P->lmax, np == W, run);
    }
    if (!done) {
      emitter<TO> em(stage, dst, rstride, np);
      core(*P, ct, st, scr, [&](int32_t l, const double* row) {
        const std::size_t lu = static_cast<std::size_t>(l);
        em.put(lu, load(row));
        for (std::size_t m = 1; m <= lu; ++m) {
          const V y = load(row + m * W);
          em.put(lu - m, y * load(sm + m * W));
          em.put(lu + m, y * load(cm + m * W));
        }
        em.commit(2 * lu + 1);
      });
      em.finish();
    }
    if (via_blk) {
      if (defer_copy) lstream.end_deferred(static_cast<std::size_t>(blk_bytes));
      else lstream.end(static_cast<std::size_t>(blk_bytes));
    }
  };
#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
  if constexpr (std::is_same<TO, float>::value) {
    if (P->fab32 != nullptr) {
      f32_native(P, n, out, scr, cms, dtmp, prep, block, lstream, staged_for(2 * static_cast<int64_t>(W) * K * static_cast<int64_t>(sizeof(float)), kSphL1BlockBytes));
      lstream.finish();
      if (P->stream != 0) fence();
      return;
    }
  }
#endif
  int64_t p0 = 0;
#if defined(POSENC_ISA_AVX512) || defined(POSENC_ISA_AVX2)
  // Super-blocks of U W points (U = 64 / sizeof(TO)): block c takes points p0 + c + U j, whose
  // rows all start at the same offset within a 64-byte line (line_sink). Needs the fast path and
  // outputs aligned to their element size; the tail takes the ordinary blocks below. On AVX2
  // from lmax kSphAvx2LineMinLmax only (below it the staged / direct blocks are faster).
  const bool sb_on = kIsAvx512 || L >= kSphAvx2LineMinLmax;
  constexpr int64_t U = 64 / static_cast<int64_t>(sizeof(TO)), SB = U * static_cast<int64_t>(W);
  if (sb_on && P->fab && reinterpret_cast<std::uintptr_t>(out) % sizeof(TO) == 0 && n >= SB) {
    auto first_of = [&](int64_t b) { return b / U * SB + b % U; };
    V ct[2], st[2];  // by block parity, like the cos / sin (m phi) buffers
    superblock_loop(
        n / SB * U, U,
        [&](int64_t b) {
          // The input of the super-block after next, prefetched as each super-block starts
          // (a prefetch past the array's end does not fault). With a non-temporal output the
          // hardware prefetcher left the gathers waiting: Zen 5, AVX2, float64 lmax 10, 64k
          // points, A/B 0.94-0.95 (40: 0.985; resident chunks 0.99).
          if (b % U == 0) {
            const std::uintptr_t q = reinterpret_cast<std::uintptr_t>(xyz) + static_cast<std::uintptr_t>(3 * (first_of(b) + 2 * SB)) * sizeof(TI);
            for (std::uintptr_t o = 0; o < 3 * SB * sizeof(TI); o += 64) __builtin_prefetch(reinterpret_cast<const void*>(q + o), 0, 3);
          }
          prep(first_of(b), U, W, ct[b & 1], st[b & 1], cm_of(b), cm_of(b) + N * W);
        },
        [&](int64_t b, auto& next) { block(first_of(b), U, W, b, ct[b & 1], st[b & 1], cm_of(b), cm_of(b) + N * W, next); },
        [&] {
          bgput.flush();
          pend.flush();
        });
    p0 = n / SB * SB;
  }
#endif
  for (; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = static_cast<std::size_t>(n - p0 < static_cast<int64_t>(W) ? n - p0 : static_cast<int64_t>(W));
    V ct, st;
    prep(p0, 1, np, ct, st, cm_of(0), cm_of(0) + N * W);
    block(p0, 1, np, int64_t(-1), ct, st, cm_of(0), cm_of(0) + N * W, no_hook{});
  }
  lstream.finish();
  if (kHasStream && P->stream != 0) fence();
}

}  // namespace sph

/// 1 if some point of xyz [n, 3] has a non-finite coordinate or is (0, 0, 0), else 0. Branch-free
/// over the flat array of 3n values, W_T values a vector:
/// - non-finite: v * 0 is NaN exactly for inf and NaN, so one FMA a vector accumulates
///   acc = v * 0 + acc, NaN at the end iff some value was non-finite (NaN is absorbing);
/// - zero point: the point starting at element e (e % 3 == 0) is zero iff the bits of v_e, v_e+1,
///   v_e+2 OR to +0 or -0, i.e. to a value that compares equal to 0 (a NaN or denormal pattern
///   does not; unaligned loads at +1 and +2 supply the neighbours); the lanes that start no
///   point are ORed with the bits of 1.0 as well, so one compare with 0 a vector finds them.
///   (No bitwise_andnot: its operand order differs between xsimd 8.1's x86 and NEON kernels.)
/// About 7 operations a vector (session 12; the abs / add / compare-and-mask form before it took
/// about 16, 2.5-4 % of an AVX2 float64 lmax 10 call). Only says whether there is a bad point:
/// lib/sphere.cpp then names the first one with a scalar loop.
template <class T>
inline int xyz_any_bad(const T* p, int64_t n) {
  int r = 0;
  int64_t e = 0;
  if constexpr (width<T> > 1) {
    using VT = vec<T>;
    constexpr int64_t WT = static_cast<int64_t>(width<T>);
    const int64_t m = 3 * n;
    alignas(64) T pat[3 * WT];
    for (int64_t k = 0; k < 3 * WT; ++k) pat[k] = k % 3 == 0 ? T(0) : T(1);
    const VT zero(T(0));
    const VT ns[3] = {load(pat), load(pat + WT), load(pat + 2 * WT)};  // lanes that start no point: 1.0
    VT acc[3] = {zero, zero, zero};
    auto bad = zero != zero;
    for (; e + 3 * WT + 2 <= m; e += 3 * WT) {
      const T* q = p + e;
      for (int j = 0; j < 3; ++j) {
        const VT a = load(q + j * WT);
        acc[j] = fma(a, zero, acc[j]);
        const VT o = a | load(q + j * WT + 1) | load(q + j * WT + 2) | ns[j];  // +-0 compares equal to 0
        bad = bad | (o == zero);
      }
    }
    const VT s = acc[0] + acc[1] + acc[2];
    r = any(bad | !(s == zero)) ? 1 : 0;  // !(s == 0): NaN (xsimd's != is ordered on x86)
  }
  for (int64_t i = e / 3; i < n; ++i) {
    const T x = p[3 * i], y = p[3 * i + 1], z = p[3 * i + 2];
    r |= static_cast<int>(!(x * T(0) + y * T(0) + z * T(0) == T(0))) | static_cast<int>(x == T(0) && y == T(0) && z == T(0));
  }
  return r;
}

inline int sphere_xyz_bad_f64(const double* xyz, int64_t n) { return xyz_any_bad(xyz, n); }
inline int sphere_xyz_bad_f32(const float* xyz, int64_t n) { return xyz_any_bad(xyz, n); }

inline int64_t sphere_scratch_doubles(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1, W = static_cast<int64_t>(sph::W);
  // Fast-path / extended-range scratch, two cos / sin (m phi) buffers, the float64 set-up of
  // the float32-native path's half blocks, the emitter stage, the streaming block of sh_real,
  // and 16 doubles for the two 64-byte alignments (the scratch pointer and the streaming block).
  return std::max(sph::core_scratch(lmax), sph::fast_scratch(lmax)) + 10 * N * W + sph::stage_doubles(lmax) + 16 +
         sph::stream_blk_doubles(lmax);
}

inline void sphere_legendre_f64(const sph_plan* P, const double* x, int64_t n, double* out, double* scr) {
  sph::legendre_impl(P, x, n, out, scr);
}
inline void sphere_legendre_f32(const sph_plan* P, const float* x, int64_t n, float* out, double* scr) {
  sph::legendre_impl(P, x, n, out, scr);
}
inline void sphere_sh_real_f64(const sph_plan* P, const double* xyz, int64_t n, double* out, double* scr) {
  sph::sh_real_impl(P, xyz, n, out, scr);
}
inline void sphere_sh_real_f32(const sph_plan* P, const float* xyz, int64_t n, float* out, double* scr) {
  sph::sh_real_impl(P, xyz, n, out, scr);
}

/// P_l(x) by (l) P_l = (2l-1) x P_{l-1} - (l-1) P_{l-2}; out [n, lmax+1].
inline void sphere_legendre_poly_f64(int32_t lmax, const double* x, int64_t n, double* out, double* scr_in) {
  double* scr = sph::align64(scr_in);
  using sph::V;
  using sph::W;
  using sph::stu;
  const int64_t K = static_cast<int64_t>(lmax) + 1;
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = static_cast<std::size_t>(n - p0 < static_cast<int64_t>(W) ? n - p0 : static_cast<int64_t>(W));
    alignas(64) double xb[W];
    sph::load_block(x, p0, np, xb, 0.0);
    const V xv = load(xb);
    sph::emitter<double> em(scr, out + p0 * K, K, np);
    V p2(1.0), p1 = xv;
    em.put(0, p2);
    em.commit(1);
    if (lmax >= 1) {
      em.put(0, p1);
      em.commit(1);
    }
    for (int32_t l = 2; l <= lmax; ++l) {
      const double ld = l;
      const V y = madd(V((2.0 * ld - 1.0) / ld) * xv, p1, -(V((ld - 1.0) / ld) * p2));
      em.put(0, y);
      em.commit(1);
      p2 = p1;
      p1 = y;
    }
    em.finish();
  }
}

/// Clenshaw: out[i] = sum_{l<=lmax} c[l] P_l(x[i]); alpha[k] = (2k+1)/(k+1), beta[k] = -k/(k+1)
/// (beta has lmax+2 entries).
inline void sphere_legendre_sum_f64(int32_t lmax, const double* c, const double* alpha, const double* beta,
                                    const double* x, int64_t n, double* out) {
  using sph::V;
  using sph::W;
  using sph::stu;
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = static_cast<std::size_t>(n - p0 < static_cast<int64_t>(W) ? n - p0 : static_cast<int64_t>(W));
    alignas(64) double xb[W];
    sph::load_block(x, p0, np, xb, 0.0);
    const V xv = load(xb);
    V y1(0.0), y2(0.0);
    for (int32_t k = lmax; k >= 1; --k) {
      const V y = madd(V(alpha[k]) * xv, y1, madd(V(beta[k + 1]), y2, V(c[k])));
      y2 = y1;
      y1 = y;
    }
    const V r = madd(xv, y1, madd(V(beta[1]), y2, V(c[0])));
    if (np == W) stu(out + p0, r);
    else store_partial(out + p0, r, np);
  }
}

/// out[i, block l] = D_l coeffs[i, block l], vectorized over the output index of a block;
/// dt = D_l^T blocks concatenated.
inline void sphere_rotate_f64(int32_t lmax, const double* dt, const double* coeffs, int64_t n, double* out) {
  using sph::V;
  using sph::W;
  using sph::stu;
  const int64_t K = (static_cast<int64_t>(lmax) + 1) * (static_cast<int64_t>(lmax) + 1);
  for (int64_t i = 0; i < n; ++i) {
    const double* c = coeffs + i * K;
    double* o = out + i * K;
    const double* d = dt;
    int64_t off = 0;
    for (int32_t l = 0; l <= lmax; ++l) {
      const int64_t dl = 2 * static_cast<int64_t>(l) + 1;
      for (int64_t a0 = 0; a0 < dl; a0 += static_cast<int64_t>(2 * W)) {
        const int64_t rem = dl - a0;
        if (rem >= static_cast<int64_t>(2 * W)) {
          V acc0(0.0), acc1(0.0);
          for (int64_t b = 0; b < dl; ++b) {
            const V cb(c[off + b]);
            acc0 = madd(cb, load(d + b * dl + a0), acc0);
            acc1 = madd(cb, load(d + b * dl + a0 + static_cast<int64_t>(W)), acc1);
          }
          stu(o + off + a0, acc0);
          stu(o + off + a0 + static_cast<int64_t>(W), acc1);
        } else {
          for (int64_t a1 = a0; a1 < dl; a1 += static_cast<int64_t>(W)) {
            const std::size_t cnt = static_cast<std::size_t>(dl - a1 < static_cast<int64_t>(W) ? dl - a1 : static_cast<int64_t>(W));
            V acc(0.0);
            for (int64_t b = 0; b < dl; ++b) {
              const V cb(c[off + b]);
              const V dv = (W == 1 || cnt == W) ? load(d + b * dl + a1) : load_partial(d + b * dl + a1, cnt);
              acc = madd(cb, dv, acc);
            }
            if (W == 1 || cnt == W) stu(o + off + a1, acc);
            else store_partial(o + off + a1, acc, cnt);
          }
        }
      }
      d += dl * dl;
      off += dl;
    }
  }
}

}  // namespace POSENC_NS
}  // namespace posenc
