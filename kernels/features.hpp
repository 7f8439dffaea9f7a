// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/features.hpp — Bochner random features, kernelized (linear) attention and exact
// streaming softmax attention. Compiled per ISA: everything lives in posenc::POSENC_NS.
//
// Building blocks, written once over vec<float> so every path runs the same algorithm:
//   exp_f       exp by Cody–Waite reduction x = n ln2 + r, |r| <= ln2/2, Cephes expf degree-6
//               polynomial, times 2^n built in the exponent bits (max rel. error ~2 ulp;
//               x < -87.33 gives 0, x is clamped to <= 88)
//   sincos_f    sin/cos reduced in turns (as kernels/phase.hpp): t = x/(2 pi), r = t - rint(t),
//               half angle a = pi r, Taylor polynomials on [-pi/2, pi/2], double-angle formulas
//   mm_block    the register-blocked micro-kernel: R rows x 2 vectors of C accumulated over k
//               with broadcast(A) * load(B) fused multiply-adds; A may be strided both ways
//               (A or A^T), B is row-major.
// features_rows fuses the projection x . Omega^T with the epilogue: TRIG applies sin/cos to the
// accumulators while they are in registers, and so do the exp kinds (a row that needs the overflow
// shift, which depends on the row maximum, is recomputed through an L1 scratch row).
#pragma once

#include "kernels/features_table.hpp"
#include "kernels/simd.hpp"
#include "kernels/simd/isa.hpp"

#include <limits>

namespace posenc {
namespace POSENC_NS {

// ------------------------------------------------------------------------------------------
// 2^n, exp, sin/cos
// ------------------------------------------------------------------------------------------
/// 2^n for a float holding an integer in [-126, 127].
inline sbatch<float> pow2n(sbatch<float> n) {
  const uint32_t u = static_cast<uint32_t>(static_cast<int32_t>(n.v) + 127) << 23;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
template <class A>
inline xsimd::batch<float, A> pow2n(const xsimd::batch<float, A>& n) {
  auto i = xsimd::to_int(n);
  i = (i + 127) << 23;
  return xsimd::bitwise_cast<xsimd::batch<float, A>>(i);
}

/// exp(x) in float: Cody–Waite reduction, Cephes expf polynomial (rel. error <= ~2 ulp).
/// Returns 0 for x < -87.33 (no subnormal results below that), clamps x to 88.
template <class V>
inline V exp_f(const V& x0) {
  const V x = min(max(x0, V(-87.33f)), V(88.0f));
  const V n = nearbyint(x * V(1.44269504088896341f));
  V r = madd(n, V(-0.693359375f), x);  // exact: n has <= 8 bits, the constant 9
  r = madd(n, V(2.12194440e-4f), r);
  V p = madd(V(1.9875691500e-4f), r, V(1.3981999507e-3f));
  p = madd(p, r, V(8.3334519073e-3f));
  p = madd(p, r, V(4.1665795894e-2f));
  p = madd(p, r, V(1.6666665459e-1f));
  p = madd(p, r, V(5.0000001201e-1f));
  const V y = madd(p, r * r, r + V(1.0f));
  return select(x0 < V(-87.33f), V(0.0f), y * pow2n(n));
}

/// sin and cos of x (radians), reduced in turns: t = x/(2 pi), r = t - rint(t) in [-1/2, 1/2],
/// a = pi r in [-pi/2, pi/2]; sin a and cos a by their Taylor polynomials to degree 11 / 12
/// (truncation <= 5.7e-8 / 6.3e-9 at |a| = pi/2), then the double-angle formulas
/// sin x = 2 sin a cos a, cos x = 1 - 2 sin^2 a. No quadrant logic, no selects.
/// Absolute error <= ~3e-7 + |x| * 6e-8 (the rounding of x/(2 pi) in float32).
template <class V>
inline void sincos_f(const V& x, V& s, V& c) {
  const V t = x * V(0.15915494309189533577f);
  const V a = (t - nearbyint(t)) * V(3.14159265358979323846f);
  const V z = a * a;
  V ps = madd(z, V(-2.5052108385441718775e-8f), V(2.7557319223985890653e-6f));  // -1/11!, 1/9!
  ps = madd(ps, z, V(-1.9841269841269841270e-4f));                               // -1/7!
  ps = madd(ps, z, V(8.3333333333333333333e-3f));                                // 1/5!
  ps = madd(ps, z, V(-1.6666666666666666667e-1f));                               // -1/3!
  const V sa = madd(a * z, ps, a);
  V pc = madd(z, V(2.0876756987868098979e-9f), V(-2.7557319223985890653e-7f));   // 1/12!, -1/10!
  pc = madd(pc, z, V(2.4801587301587301587e-5f));                                // 1/8!
  pc = madd(pc, z, V(-1.3888888888888888889e-3f));                               // -1/6!
  pc = madd(pc, z, V(4.1666666666666666667e-2f));                                // 1/4!
  pc = madd(pc, z, V(-0.5f));
  const V ca = madd(pc, z, V(1.0f));
  const V s2 = sa + sa;
  s = s2 * ca;
  c = madd(-s2, sa, V(1.0f));
}

/// Unaligned store. (An unqualified store(p, batch) would find xsimd::store by ADL, which is
/// the ALIGNED store in xsimd 8.1.)
template <class V>
inline void storeu(float* p, const V& v) {
  v.store_unaligned(p);
}

template <class V>
inline float hsum(const V& v) {
  alignas(64) float b[width<float>];
  v.store_unaligned(b);
  float m = b[0];
  for (std::size_t i = 1; i < width<float>; ++i) m += b[i];
  return m;
}

template <class V>
inline float hmax(const V& v) {
  alignas(64) float b[width<float>];
  v.store_unaligned(b);
  float m = b[0];
  for (std::size_t i = 1; i < width<float>; ++i) m = b[i] > m ? b[i] : m;
  return m;
}

// ------------------------------------------------------------------------------------------
// The register-blocked micro-kernel
// ------------------------------------------------------------------------------------------
#if defined(POSENC_ISA_SCALAR)
inline constexpr int kMmRows = 4;
#else
inline constexpr int kMmRows = 6;
#endif

/// acc[r][c] = sum_k A(r, k) * B(k, c*W .. c*W+W) for r < R, over the first ncols (<= 2W)
/// columns (columns >= ncols are 0). A(r, k) = a[r*sai + k*sak].
template <int R, bool Full>
inline void mm_block(const float* a, int64_t sai, int64_t sak, const float* b, int64_t ldb, int64_t k,
                     std::size_t ncols, vec<float> (&acc)[R][2]) {
  using V = vec<float>;
  constexpr std::size_t W = width<float>;
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = V(0.0f);
  for (int64_t kk = 0; kk < k; ++kk) {
    const float* bp = b + kk * ldb;
    V b0, b1;
    if (Full) {
      b0 = load(bp);
      b1 = load(bp + W);
    } else {
      b0 = ncols >= W ? load(bp) : load_partial(bp, ncols);
      b1 = ncols > W ? (ncols >= 2 * W ? load(bp + W) : load_partial(bp + W, ncols - W)) : V(0.0f);
    }
    const float* ap = a + kk * sak;
    for (int r = 0; r < R; ++r) {
      const V av(ap[r * sai]);
      acc[r][0] = madd(av, b0, acc[r][0]);
      acc[r][1] = madd(av, b1, acc[r][1]);
    }
  }
}

/// Stores lanes [0, cnt) of v (cnt may be >= W: all) at p, adding to p if accumulate.
inline void store_cols(float* p, const vec<float>& v, std::ptrdiff_t cnt, bool accumulate) {
  constexpr std::ptrdiff_t W = static_cast<std::ptrdiff_t>(width<float>);
  if (cnt <= 0) return;
  if (cnt >= W) {
    storeu(p, accumulate ? load(p) + v : v);
  } else {
    const auto n = static_cast<std::size_t>(cnt);
    store_partial(p, accumulate ? load_partial(p, n) + v : v, n);
  }
}

template <int R>
inline void mm_rows(const float* a, int64_t sai, int64_t sak, const float* b, int64_t ldb, int64_t ncols,
                    int64_t k, float* c, int64_t ldc, bool accumulate) {
  constexpr int64_t W = static_cast<int64_t>(width<float>);
  for (int64_t j = 0; j < ncols; j += 2 * W) {
    vec<float> acc[R][2];
    const int64_t nc = ncols - j;
    if (nc >= 2 * W) mm_block<R, true>(a, sai, sak, b + j, ldb, k, 2 * W, acc);
    else mm_block<R, false>(a, sai, sak, b + j, ldb, k, static_cast<std::size_t>(nc), acc);
    for (int r = 0; r < R; ++r) {
      store_cols(c + r * ldc + j, acc[r][0], nc, accumulate);
      store_cols(c + r * ldc + j + W, acc[r][1], nc - W, accumulate);
    }
  }
}

/// See features_kernels_t::matmul.
inline void matmul(const float* a, int64_t sai, int64_t sak, const float* b, int64_t ldb, int64_t rows,
                   int64_t ncols, int64_t k, float* c, int64_t ldc, int accumulate) {
  const bool acc = accumulate != 0;
  int64_t i = 0;
  for (; i + kMmRows <= rows; i += kMmRows) mm_rows<kMmRows>(a + i * sai, sai, sak, b, ldb, ncols, k, c + i * ldc, ldc, acc);
  switch (rows - i) {
    case 1: mm_rows<1>(a + i * sai, sai, sak, b, ldb, ncols, k, c + i * ldc, ldc, acc); break;
    case 2: mm_rows<2>(a + i * sai, sai, sak, b, ldb, ncols, k, c + i * ldc, ldc, acc); break;
    case 3: mm_rows<3>(a + i * sai, sai, sak, b, ldb, ncols, k, c + i * ldc, ldc, acc); break;
    case 4: mm_rows<4>(a + i * sai, sai, sak, b, ldb, ncols, k, c + i * ldc, ldc, acc); break;
    case 5: mm_rows<5>(a + i * sai, sai, sak, b, ldb, ncols, k, c + i * ldc, ldc, acc); break;
    default: break;
  }
}

/// See features_kernels_t::transpose. Full WF x WF tiles: WF unaligned row loads into an aligned
/// L1 tile, vx::ftile_rows (the ISA's register transpose), WF unaligned stores; edges scalar.
inline void transpose(const float* a, int64_t rows, int64_t cols, int64_t lda, float* b) {
  constexpr int64_t T = static_cast<int64_t>(vx::WF);
  alignas(64) float tile[T * T];
  int64_t i0 = 0;
  for (; i0 + T <= rows; i0 += T) {
    int64_t c0 = 0;
    for (; c0 + T <= cols; c0 += T) {
      for (int64_t i = 0; i < T; ++i) storeu(tile + i * T, load(a + (i0 + i) * lda + c0));
      vx::VF r[T];
      vx::ftile_rows(tile, r);
      for (int64_t c = 0; c < T; ++c) storeu(b + (c0 + c) * rows + i0, r[c]);
    }
    for (int64_t c = c0; c < cols; ++c)
      for (int64_t i = i0; i < i0 + T; ++i) b[c * rows + i] = a[i * lda + c];
  }
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t i = i0; i < rows; ++i) b[c * rows + i] = a[i * lda + c];
}

/// acc[h] += widen(a, h) * widen(b, h) (exact float32 products in float64) for both halves.
inline void madd_wide(const vx::VF& a, const vx::VF& b, vx::V (&acc)[vx::kHalves]) {
  for (std::size_t h = 0; h < vx::kHalves; ++h) acc[h] = madd(vx::widen(a, h), vx::widen(b, h), acc[h]);
}
/// Sum of the lanes of the kHalves accumulators, in lane order.
inline double sum_wide(const vx::V (&acc)[vx::kHalves]) {
  alignas(64) double d[vx::WF];
  for (std::size_t h = 0; h < vx::kHalves; ++h) acc[h].store_aligned(d + h * vx::W);
  double s = 0.0;
  for (std::size_t i = 0; i < vx::WF; ++i) s += d[i];
  return s;
}

/// See features_kernels_t::linear_bwd_dots.
inline void linear_bwd_dots(const float* q, const float* u, int64_t rows, int32_t f, const float* z, const float* p,
                            const float* g, int64_t ldp, double* out) {
  using VF = vx::VF;
  constexpr int64_t WF = static_cast<int64_t>(vx::WF);
  const VF one(1.0f);
  for (int64_t i = 0; i < rows; ++i) {
    const float* qi = q + i * f;
    const float* ui = u + i * f;
    vx::V dz[vx::kHalves], gd[vx::kHalves];
    for (std::size_t h = 0; h < vx::kHalves; ++h) dz[h] = gd[h] = vx::V(0.0);
    int64_t c = 0;
    for (; c + WF <= f; c += WF) {
      const VF qv = load(qi + c);
      madd_wide(qv, load(z + c), dz);
      madd_wide(qv, load(ui + c), gd);
    }
    if (c < f) {
      const auto cnt = static_cast<std::size_t>(f - c);
      const VF qv = load_partial(qi + c, cnt);
      madd_wide(qv, load_partial(z + c, cnt), dz);
      madd_wide(qv, load_partial(ui + c, cnt), gd);
    }
    if (p) {
      const float* pi = p + i * ldp;
      const float* gi = g + i * ldp;
      int64_t j = 0;
      for (; j + WF <= i + 1; j += WF) {
        const VF pv = load(pi + j);
        madd_wide(pv, one, dz);
        madd_wide(pv, load(gi + j), gd);
      }
      if (j <= i) {
        const auto cnt = static_cast<std::size_t>(i + 1 - j);
        const VF pv = load_partial(pi + j, cnt);
        madd_wide(pv, one, dz);
        madd_wide(pv, load_partial(gi + j, cnt), gd);
      }
    }
    out[2 * i] = sum_wide(dz);
    out[2 * i + 1] = sum_wide(gd);
  }
}

// ------------------------------------------------------------------------------------------
// Random features
// ------------------------------------------------------------------------------------------
/// Largest exponent a positive feature may reach before the per-row shift applies:
/// features are <= e^60 / sqrt(m) ~ 1.1e26 / sqrt(m), far from FLT_MAX.
inline constexpr float kFeaturesMaxExponent = 60.0f;

/// Columns of one output row: 2m for TRIG (0) and HYPERBOLIC (2), m for the other kinds.
inline int64_t features_out_len(int kind, int32_t m) {
  return (kind == 0 || kind == 2) ? 2 * static_cast<int64_t>(m) : static_cast<int64_t>(m);
}

/// Sum of squares of x[0..d) (vectorized, fixed order per ISA).
inline float sumsq(const float* x, int32_t d) {
  using V = vec<float>;
  constexpr int32_t W = static_cast<int32_t>(width<float>);
  V acc(0.0f);
  int32_t k = 0;
  for (; k + W <= d; k += W) {
    const V v = load(x + k);
    acc = madd(v, v, acc);
  }
  if (k < d) {
    const V v = load_partial(x + k, static_cast<std::size_t>(d - k));
    acc = madd(v, v, acc);
  }
  return hsum(acc);
}

/// One row of an exponential kind with the overflow shift: the projection goes to the L1 scratch
/// row, the row maximum gives c = max(0, max_j e_j - kFeaturesMaxExponent), then
/// out_j = exp(e_j - c) * scale_j.
inline void features_block_shifted(int kind, const float* x, int32_t d, const float* wt, int32_t m, int32_t m_pad,
                                   const float* scale, float* scratch, float* out) {
  using V = vec<float>;
  constexpr int32_t W = static_cast<int32_t>(width<float>);
  V vmax(-std::numeric_limits<float>::infinity());
  for (int32_t j = 0; j < m_pad && j < m; j += 2 * W) {
    V acc[1][2];
    mm_block<1, true>(x, d, 1, wt + j, m_pad, d, 2 * W, acc);
    storeu(scratch + j, acc[0][0]);
    storeu(scratch + j + W, acc[0][1]);
    if (kind == 2) vmax = max(vmax, max(max(acc[0][0], -acc[0][0]), max(acc[0][1], -acc[0][1])));
    else vmax = max(vmax, max(acc[0][0], acc[0][1]));
  }
  const float ss = sumsq(x, d);
  const float h = kind == 3 ? ss : 0.5f * ss;
  // (zero-padded columns give p = 0, which never changes c since h >= 0)
  const float top = hmax(vmax) - h - kFeaturesMaxExponent;
  const V off(h + (top > 0.0f ? top : 0.0f));
  for (int32_t j = 0; j < m; j += W) {
    const V pj = load(scratch + j);
    const V sc = load(scale + j);
    store_cols(out + j, exp_f(pj - off) * sc, m - j, false);
    if (kind == 2) store_cols(out + m + j, exp_f(-pj - off) * sc, m - j, false);
  }
}

/// ROW_MAX shift for R rows: the projections go to the L1 scratch rows [R, m_pad], each row's
/// maximum P_r (of p, or of |p| for HYPERBOLIC) is tracked, then out_j = exp(+-p_j - P_r) * scale_j.
/// stats (if not NULL): [R, 2] = (P_r, h_r) with h_r = |x_r|^2/2 (|x_r|^2 for GAUSSIAN_POSITIVE).
template <int R>
inline void features_block_rowmax(int kind, const float* x, int32_t d, const float* wt, int32_t m, int32_t m_pad,
                                  const float* scale, float* scratch, float* out, float* stats) {
  using V = vec<float>;
  constexpr int32_t W = static_cast<int32_t>(width<float>);
  const int64_t out_len = features_out_len(kind, m);
  V vmax[R];
  for (int r = 0; r < R; ++r) vmax[r] = V(-std::numeric_limits<float>::infinity());
  for (int32_t j = 0; j < m_pad && j < m; j += 2 * W) {
    V acc[R][2];
    mm_block<R, true>(x, d, 1, wt + j, m_pad, d, 2 * W, acc);
    for (int r = 0; r < R; ++r) {
      storeu(scratch + r * m_pad + j, acc[r][0]);
      storeu(scratch + r * m_pad + j + W, acc[r][1]);
      // lanes past m must not count: mask them with -inf through a partial load of the scratch
      for (int cc = 0; cc < 2; ++cc) {
        const int32_t j0 = j + cc * W;
        if (j0 >= m) break;
        const std::size_t cnt = static_cast<std::size_t>(m - j0 < W ? m - j0 : W);
        V a = acc[r][cc];
        if (kind == 2) a = max(a, -a);
        if (cnt < static_cast<std::size_t>(W)) {
          alignas(64) float b[width<float>];
          a.store_unaligned(b);
          for (std::size_t l = cnt; l < static_cast<std::size_t>(W); ++l) b[l] = -std::numeric_limits<float>::infinity();
          a = load(b);
        }
        vmax[r] = max(vmax[r], a);
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    const float pm = hmax(vmax[r]);
    if (stats) {
      const float ss = sumsq(x + r * d, d);
      stats[2 * r] = pm;
      stats[2 * r + 1] = kind == 3 ? ss : 0.5f * ss;
    }
    const V off(pm);
    const float* pr = scratch + r * m_pad;
    float* row = out + r * out_len;
    for (int32_t j = 0; j < m; j += W) {
      const V pj = load(pr + j);
      const V sc = load(scale + j);
      store_cols(row + j, exp_f(pj - off) * sc, m - j, false);
      if (kind == 2) store_cols(row + m + j, exp_f(-pj - off) * sc, m - j, false);
    }
  }
}

template <int R>
inline void features_block(int kind, int shift, const float* x, int32_t d, const float* wt, int32_t m,
                           int32_t m_pad, const float* scale, float* scratch, float* out, float* stats) {
  using V = vec<float>;
  constexpr int32_t W = static_cast<int32_t>(width<float>);
  const int64_t out_len = features_out_len(kind, m);
  if (kind == 4 || kind == 5) {  // ELU_PLUS_ONE, RELU: elementwise epilogue in registers, no shift
    for (int32_t j = 0; j < m_pad && j < m; j += 2 * W) {
      V acc[R][2];
      mm_block<R, true>(x, d, 1, wt + j, m_pad, d, 2 * W, acc);
      for (int cc = 0; cc < 2; ++cc) {
        const int32_t j0 = j + cc * W;
        if (j0 >= m) break;
        const V sc = load(scale + j0);
        for (int r = 0; r < R; ++r) {
          const V p = acc[r][cc];
          // elu(p) + 1 = p + 1 for p > 0, exp(p) for p <= 0 (fast-transformers' elu_feature_map)
          const V f = kind == 4 ? select(p > V(0.0f), p + V(1.0f), exp_f(p)) : max(p, V(0.0f));
          store_cols(out + r * out_len + j0, f * sc, m - j0, false);
        }
      }
    }
    return;
  }
  if (kind != 0 && shift != 0) {
    features_block_rowmax<R>(kind, x, d, wt, m, m_pad, scale, scratch, out, stats);
    return;
  }
  if (kind == 0) {  // TRIG: [cos | sin], epilogue in registers
    for (int32_t j = 0; j < m_pad && j < m; j += 2 * W) {
      V acc[R][2];
      mm_block<R, true>(x, d, 1, wt + j, m_pad, d, 2 * W, acc);
      for (int cc = 0; cc < 2; ++cc) {
        const int32_t j0 = j + cc * W;
        const V sc = load(scale + j0);
        for (int r = 0; r < R; ++r) {
          V s, c;
          sincos_f(acc[r][cc], s, c);
          float* row = out + r * out_len;
          store_cols(row + j0, c * sc, m - j0, false);
          store_cols(row + m + j0, s * sc, m - j0, false);
        }
      }
    }
    return;
  }
  // exp kinds, fast path: exponentiate the accumulators in registers with the unshifted offset
  // (c = 0) and track each row's largest exponent; a row whose largest exponent exceeds
  // kFeaturesMaxExponent (rare) is recomputed by the shifted path. The accumulation order over k
  // does not depend on the block height, so both paths produce the same p bits.
  float h[R];
  V vmax[R];
  for (int r = 0; r < R; ++r) {
    const float ss = sumsq(x + r * d, d);
    h[r] = kind == 3 ? ss : 0.5f * ss;  // GAUSSIAN_POSITIVE: |x|^2, else |x|^2 / 2
    vmax[r] = V(-std::numeric_limits<float>::infinity());
  }
  for (int32_t j = 0; j < m_pad && j < m; j += 2 * W) {
    V acc[R][2];
    mm_block<R, true>(x, d, 1, wt + j, m_pad, d, 2 * W, acc);
    for (int cc = 0; cc < 2; ++cc) {
      const int32_t j0 = j + cc * W;
      if (j0 >= m) break;
      const V sc = load(scale + j0);
      for (int r = 0; r < R; ++r) {
        const V hv(h[r]);
        const V e = acc[r][cc] - hv;
        float* row = out + r * out_len;
        store_cols(row + j0, exp_f(e) * sc, m - j0, false);
        if (kind == 2) {
          const V e2 = -acc[r][cc] - hv;
          store_cols(row + m + j0, exp_f(e2) * sc, m - j0, false);
          vmax[r] = max(vmax[r], max(e, e2));
        } else {
          vmax[r] = max(vmax[r], e);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r)
    if (hmax(vmax[r]) > kFeaturesMaxExponent)
      features_block_shifted(kind, x + r * d, d, wt, m, m_pad, scale, scratch, out + r * out_len);
}

/// See features_kernels_t::features_rows.
inline void features_rows(int kind, int shift, const float* x, int64_t r0, int64_t r1, int32_t d, const float* wt,
                          int32_t m, int32_t m_pad, const float* scale, float* scratch, float* out, float* stats) {
  constexpr int RB = kFeaturesRowBlock;
  const int64_t out_len = features_out_len(kind, m);
  int64_t i = r0;
#define POSENC_FB(R) \
  features_block<R>(kind, shift, x + i * d, d, wt, m, m_pad, scale, scratch, out + i * out_len, stats ? stats + 2 * i : nullptr)
  for (; i + RB <= r1; i += RB) POSENC_FB(RB);
  switch (r1 - i) {
    case 1: POSENC_FB(1); break;
    case 2: POSENC_FB(2); break;
    case 3: POSENC_FB(3); break;
    case 4: POSENC_FB(4); break;
    case 5: POSENC_FB(5); break;
    default: break;
  }
#undef POSENC_FB
}

// ------------------------------------------------------------------------------------------
// Linear attention
// ------------------------------------------------------------------------------------------
/// See features_kernels_t::colsum_acc.
inline void colsum_acc(const float* a, int64_t rows, int32_t f, float* z) {
  using V = vec<float>;
  constexpr int32_t W = static_cast<int32_t>(width<float>);
  int32_t j = 0;
  for (; j + W <= f; j += W) {
    V acc = load(z + j);
    for (int64_t i = 0; i < rows; ++i) acc += load(a + i * f + j);
    storeu(z + j, acc);
  }
  for (; j < f; ++j) {
    float acc = z[j];
    for (int64_t i = 0; i < rows; ++i) acc += a[i * f + j];
    z[j] = acc;
  }
}

inline float dot_f(const float* a, const float* b, int32_t n) {
  using V = vec<float>;
  constexpr int32_t W = static_cast<int32_t>(width<float>);
  V acc(0.0f);
  int32_t k = 0;
  for (; k + W <= n; k += W) acc = madd(load(a + k), load(b + k), acc);
  if (k < n) {
    const auto c = static_cast<std::size_t>(n - k);
    acc = madd(load_partial(a + k, c), load_partial(b + k, c), acc);
  }
  return hsum(acc);
}

/// See features_kernels_t::linear_rows.
inline void linear_rows(const float* phi, int64_t rows, int32_t f, const float* s, int64_t lds, const float* z,
                        int32_t dv, const float* extra_num, const float* extra_den, float eps, float* out) {
  using V = vec<float>;
  constexpr int32_t W = static_cast<int32_t>(width<float>);
  matmul(phi, f, 1, s, lds, rows, dv, f, out, dv, 0);
  if (!z) {  // unnormalized: out_i = phi_i^T S + extra_num_i
    if (extra_num)
      for (int64_t i = 0; i < rows; ++i)
        for (int32_t j = 0; j < dv; j += W) {
          const std::ptrdiff_t cnt = dv - j;
          float* o = out + i * dv + j;
          const float* e = extra_num + i * dv + j;
          const V num = cnt >= W ? load(o) + load(e)
                                 : load_partial(o, static_cast<std::size_t>(cnt)) + load_partial(e, static_cast<std::size_t>(cnt));
          store_cols(o, num, cnt, false);
        }
    return;
  }
  for (int64_t i = 0; i < rows; ++i) {
    const float den = dot_f(phi + i * f, z, f) + (extra_den ? extra_den[i] : 0.0f) + eps;
    const V dn(den);
    float* o = out + i * dv;
    if (den == 0.0f) {  // documented: a zero denominator gives a zero row
      for (int32_t j = 0; j < dv; ++j) o[j] = 0.0f;
      continue;
    }
    const float* e = extra_num ? extra_num + i * dv : nullptr;
    for (int32_t j = 0; j < dv; j += W) {
      const std::ptrdiff_t cnt = dv - j;
      V num = cnt >= W ? load(o + j) : load_partial(o + j, static_cast<std::size_t>(cnt));
      if (e) num += cnt >= W ? load(e + j) : load_partial(e + j, static_cast<std::size_t>(cnt));
      store_cols(o + j, num / dn, cnt, false);
    }
  }
}

/// See features_kernels_t::causal_chunk.
inline void causal_chunk(const float* q, const float* k, const float* v, int64_t len, int32_t f, int32_t dv,
                         float* scratch, float* num, float* den) {
  const int64_t l32 = (len + 31) / 32 * 32;
  float* kt = scratch;                 // [f, l32]
  float* a = scratch + f * l32;        // [len, l32]
  for (int32_t c = 0; c < f; ++c) {
    float* row = kt + c * l32;
    for (int64_t j = 0; j < len; ++j) row[j] = k[j * f + c];
    for (int64_t j = len; j < l32; ++j) row[j] = 0.0f;
  }
  matmul(q, f, 1, kt, l32, len, len, f, a, l32, 0);
  for (int64_t i = 0; i < len; ++i) {
    float* row = a + i * l32;
    float acc = 0.0f;
    for (int64_t j = 0; j <= i; ++j) acc += row[j];
    for (int64_t j = i + 1; j < len; ++j) row[j] = 0.0f;
    den[i] = acc;
  }
  matmul(a, l32, 1, v, dv, len, dv, len, num, dv, 0);
}

// ------------------------------------------------------------------------------------------
// Exact softmax attention (streaming, online max)
// ------------------------------------------------------------------------------------------
inline constexpr int64_t kSoftmaxKeyBlock = 256;
inline constexpr int64_t kSoftmaxQueryBlock = 64;

/// See features_kernels_t::softmax_rows.
inline void softmax_rows(const float* q, const float* kt, int64_t n_pad, const float* v, int64_t n, int32_t d,
                         int32_t dv, int64_t q0, int64_t q1, int causal, float scale, float* scratch,
                         float* out) {
  using V = vec<float>;
  using S1 = sbatch<float>;
  constexpr int64_t W = static_cast<int64_t>(width<float>);
  constexpr int64_t KB = kSoftmaxKeyBlock;
  const int64_t nq = q1 - q0;
  float* s = scratch;                       // [64, KB]
  float* o = s + kSoftmaxQueryBlock * KB;   // [64, dv]
  float* mrow = o + kSoftmaxQueryBlock * dv;
  float* lrow = mrow + kSoftmaxQueryBlock;
  for (int64_t i = 0; i < nq; ++i) {
    mrow[i] = -std::numeric_limits<float>::infinity();
    lrow[i] = 0.0f;
    for (int32_t c = 0; c < dv; ++c) o[i * dv + c] = 0.0f;
  }
  const int64_t kend = causal ? q1 : n;
  const V vscale(scale);
  for (int64_t kb = 0; kb < kend; kb += KB) {
    const int64_t bl = kend - kb < KB ? kend - kb : KB;
    matmul(q + q0 * d, d, 1, kt + kb, n_pad, nq, bl, d, s, KB, 0);
    for (int64_t i = 0; i < nq; ++i) {
      float* row = s + i * KB;
      int64_t jmax = bl;
      if (causal) {
        const int64_t lim = q0 + i - kb + 1;
        jmax = lim < bl ? lim : bl;
      }
      if (jmax <= 0) {
        for (int64_t j = 0; j < bl; ++j) row[j] = 0.0f;
        continue;
      }
      // scale and row max
      V vm(-std::numeric_limits<float>::infinity());
      int64_t j = 0;
      for (; j + W <= jmax; j += W) {
        const V t = load(row + j) * vscale;
        storeu(row + j, t);
        vm = max(vm, t);
      }
      float mx = hmax(vm);
      for (; j < jmax; ++j) {
        row[j] = (S1(row[j]) * S1(scale)).v;
        mx = row[j] > mx ? row[j] : mx;
      }
      const float mold = mrow[i];
      const float mnew = mold > mx ? mold : mx;
      const float corr = exp_f(S1(mold) - S1(mnew)).v;
      const V vmn(mnew);
      V vs(0.0f);
      j = 0;
      for (; j + W <= jmax; j += W) {
        const V p = exp_f(load(row + j) - vmn);
        storeu(row + j, p);
        vs += p;
      }
      float sum = hsum(vs);
      for (; j < jmax; ++j) {
        row[j] = exp_f(S1(row[j]) - S1(mnew)).v;
        sum += row[j];
      }
      for (; j < bl; ++j) row[j] = 0.0f;
      lrow[i] = lrow[i] * corr + sum;
      mrow[i] = mnew;
      if (corr != 1.0f) {
        float* orow = o + i * dv;
        for (int32_t c = 0; c < dv; ++c) orow[c] *= corr;
      }
    }
    matmul(s, KB, 1, v + kb * dv, dv, nq, dv, bl, o, dv, 1);
  }
  for (int64_t i = 0; i < nq; ++i) {
    const float l = lrow[i];
    const float* orow = o + i * dv;
    float* dst = out + (q0 + i) * dv;
    for (int32_t c = 0; c < dv; ++c) dst[c] = orow[c] / l;
  }
}

}  // namespace POSENC_NS
}  // namespace posenc
