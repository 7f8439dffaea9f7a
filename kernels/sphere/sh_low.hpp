// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/sh_low.hpp — real spherical harmonics of low degree (lmax <= kSphLowLmax) and
// their Cartesian gradients, as polynomials in the unit vector u = x / |x|, W points a vector,
// with everything of a block in registers and the rows written straight from in-register
// transposes (no scratch, no per-block set-up in memory, no writer state): at lmax 1..3 the
// general paths' fixed cost per block (cos / sin (m phi) rows, sectoral seeds, writer staging)
// was several times the arithmetic (sphericart hard-codes l <= 6 the same way).
//
// With z = u_z and c_m + i s_m = (u_x + i u_y)^m (= sin^m theta e^{i m phi}):
//   Y_l,+m = q_l^m(z) c_m,  Y_l,-m = q_l^m(z) s_m,  Y_l,0 = q_l^0(z),
//   q_m^m = 1/sqrt(4 pi) prod_{k=1..m} a_kk,  q_l^m = (a_lm z) q_{l-1}^m + nb_lm q_{l-2}^m,
// (a, nb the sph_grad_coef coefficients: the orthonormal recurrence of the fast path with the
// sin^m theta factor moved into c_m, s_m). Gradients: the ladder relations of sph_grad_coef on
// the row of degree l-1 give G = grad R_l at u (R_l = r^l Y_l), then
//   unit sphere:  grad Y = (G - l Y u) / r,   solid:  R = r^l Y,  grad R = r^(l-1) G
// as in kernels/sphere/sh_grad.hpp. The values differ from the general paths' in the last bits
// (no sin theta, no cos / sin (m phi) rows); docs/ACCURACY.md states the bound of each.
#pragma once

#include "kernels/sphere/common.hpp"
#include "kernels/sphere/complex.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// Writes the NF feature vectors F[0..NF) of a block (feature k of point p = lane p of F[k]) as
/// np rows of NF consecutive elements at dst + p NF. kC0: F[4 g] is one lane-uniform vector for
/// every g (Y_00, or the zero derivatives of degree 0). A full block with NF a multiple of 4 but
/// not of W: vx::pack4n (vx::pack4n_c0 where kC0) and NF whole-vector stores. Otherwise groups of
/// W features are transposed in registers; row p's group g is one full vector store at
/// dst + p NF + g W where it stays inside the block's np NF elements (a store that runs into row
/// p + 1 is overwritten by that row's own stores, which come later), a partial store of the
/// group's features otherwise.
template <int NF, bool kC0, class TO>
__attribute__((always_inline)) inline void low_put_rows(V* F, TO* dst, std::size_t np) {
  constexpr int Wi = static_cast<int>(W);
  if constexpr (NF % 4 == 0 && NF % Wi != 0) {
    // Rows of 4 or 12 features (lmax 1 values, gradients) with 8 points a vector: a full
    // block's rows are NF contiguous vectors.
    if (np == W) {
      V o[NF];
      if constexpr (kC0) vx::pack4n_c0<NF / 4>(F, o);
      else vx::pack4n<NF / 4>(F, o);
#pragma GCC unroll 16
      for (int j = 0; j < NF; ++j) store_row(dst + j * Wi, o[j]);
      return;
    }
  }
  constexpr int G = (NF + Wi - 1) / Wi;
  if (G * Wi <= 32 && np == W) {
    // A full block: every index below is a constant of the unrolled loops, so t stays in
    // registers (indexed by a run-time p it lived on the stack, one reload per row store; t is
    // this branch's own: one array shared with the partial block's loop below was written to
    // the stack and reloaded in every block).
    V t[G * Wi];
#pragma GCC unroll 64
    for (int k = 0; k < G * Wi; ++k) t[k] = k < NF ? F[k] : V(0.0);
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) vx::transpose(t + g * Wi);
#pragma GCC unroll 8
    for (int p = 0; p < Wi; ++p) {
#pragma GCC unroll 8
      for (int g = 0; g < G; ++g) {
        const int o = p * NF + g * Wi;
        if (o + Wi <= Wi * NF) store_row(dst + o, t[g * Wi + p]);
        else store_row_partial(dst + o, t[g * Wi + p], static_cast<std::size_t>(NF - g * Wi));
      }
      // the rows in address order: scheduled freely, the stores of a 3 KB block (lmax 3 with
      // gradients) came in a scattered order, 2x the time of the block when the output
      // streams to memory
      __asm__ volatile("" ::: "memory");
    }
    return;
  }
  V t[G * Wi];
#pragma GCC unroll 64
  for (int k = 0; k < G * Wi; ++k) t[k] = k < NF ? F[k] : V(0.0);
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) vx::transpose(t + g * Wi);
  const int64_t end = static_cast<int64_t>(np) * NF;
  for (std::size_t p = 0; p < np; ++p) {
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      const int64_t o = static_cast<int64_t>(p) * NF + static_cast<int64_t>(g) * Wi;
      const V& v = t[g * Wi + static_cast<int>(p)];
      if (o + Wi <= end) store_row(dst + o, v);
      else store_row_partial(dst + o, v, static_cast<std::size_t>(std::min(NF - g * Wi, Wi)));
    }
  }
}

/// low_put_rows of a full block whose rows are whole vectors in address order (NF a multiple of
/// 4 with 8 points a vector, or of W), put into the vector stream s (vx::vec_stream: aligned
/// non-temporal lines where vx::kVecStream). F is transposed in place.
template <int NF, bool kC0>
__attribute__((always_inline)) inline void low_put_rows_stream(V* F, vx::vec_stream& s) {
  constexpr int Wi = static_cast<int>(W);
  static_assert(NF % Wi == 0 || (NF % 4 == 0 && Wi == 8), "rows of whole vectors");
  if constexpr (NF % Wi != 0) {
    V o[NF];
    if constexpr (kC0) vx::pack4n_c0<NF / 4>(F, o);
    else vx::pack4n<NF / 4>(F, o);
#pragma GCC unroll 16
    for (int j = 0; j < NF; ++j) s.put(o[j]);
  } else {
    constexpr int G = NF / Wi;
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) vx::transpose(F + g * Wi);
    // unrolled to 64 vectors (lmax 3 gradients: 48), unlike low_put_rows: in address order into
    // the stream, 0.98x the loop on AVX-512, the same on AVX2
    if constexpr (NF <= 64) {
#pragma GCC unroll 8
      for (int p = 0; p < Wi; ++p) {
#pragma GCC unroll 16
        for (int g = 0; g < G; ++g) s.put(F[g * Wi + p]);
      }
    } else {
      for (int p = 0; p < Wi; ++p) {
#pragma GCC unroll 8
        for (int g = 0; g < G; ++g) s.put(F[g * Wi + p]);
      }
    }
  }
}

/// Points of xyz [n, 3] (sh_low_body's input; lonlat_source in kernels/sphere/lonlat.hpp reads
/// geographic coordinates instead).
template <class TI>
struct xyz_source {
  static constexpr bool kUnit = false;  // any length: normalized by the kernel
  const TI* xyz;
  void prefetch(int64_t p0) const {
    // AVX-512: none (the three contiguous loads of a block train the hardware prefetcher; A/B
    // at lmax 1 without the three prefetches a block: AVX-512 0.93-0.96, AVX2 0.97-1.04)
    if constexpr (vx::kIsa != vx::isa_id::avx512) {
      const TI* q = xyz + 3 * p0;
      __builtin_prefetch(q + 24 * W, 0, 3);  // the input 8 blocks ahead
      __builtin_prefetch(q + 24 * W + 64 / sizeof(TI), 0, 3);
      __builtin_prefetch(q + 24 * W + 128 / sizeof(TI), 0, 3);
    }
  }
  void get(int64_t p0, std::size_t np, V& X, V& Y, V& Z) const {
    const TI* q = xyz + 3 * p0;
    if (np == W) {
      vx::deinterleave3(q, X, Y, Z);
    } else {
      alignas(64) double xb[W], yb[W], zb[W];
      for (std::size_t i = 0; i < W; ++i) {
        xb[i] = i < np ? static_cast<double>(q[3 * i]) : 0.0;
        yb[i] = i < np ? static_cast<double>(q[3 * i + 1]) : 0.0;
        zb[i] = i < np ? static_cast<double>(q[3 * i + 2]) : 1.0;
      }
      X = load(xb);
      Y = load(yb);
      Z = load(zb);
    }
  }
};

/// The unit vector (ux, uy, uz) of the block's points (X, Y, Z), 1 / |x| of the scaled point
/// (ir; 0 for a zero vector), the scale sc (1 but in lanes whose largest magnitude is outside
/// [2^-400, 2^400]: that magnitude), r2 = |x / sc|^2, zl = the zero-vector lanes, scaled = some
/// lane has sc != 1. kUnitSrc: the points are unit vectors already (taken as they are).
/// Every output starts as sh_low_body's initial values (sc = r2 = ir = 1, u = x, zl false).
template <bool kUnitSrc, class B>
__attribute__((always_inline)) inline void low_normalize(V X, V Y, V Z, V& ux, V& uy, V& uz, V& ir, V& sc, V& r2,
                                                        B& zl, bool& scaled) {
  const V one(1.0), zero(0.0);
  // kUnitSrc (lon / lat): unit vectors to a few ulp already (the sin / cos products), taken
  // as they are: no norm (a square root and a division on AVX2 and scalar); the values then
  // differ from the xyz path's on the same points by a few ulp.
  if constexpr (!kUnitSrc) {
    r2 = madd(X, X, madd(Y, Y, Z * Z));
  }
  // Ordinary data: every lane's r^2 in [2^-798, 2^800], so its largest magnitude is inside
  // [2^-400, 2^400] and not zero: the checks below would scale no lane and find no zero
  // vector, and this branch gives their bits with a third of the operations of a block at
  // lmax 1 fewer (no magnitudes, maxima, selects).
  if (!kUnitSrc && all((r2 >= V(0x1p-798)) & (r2 <= V(0x1p800)))) {
    ir = vx::rsqrt(r2);
    ux = X * ir;
    uy = Y * ir;
    uz = Z * ir;
  } else if constexpr (!kUnitSrc) {
    // r^2 without overflow or loss of precision: the lanes whose largest magnitude is outside
    // [2^-400, 2^400] (never for ordinary data) are scaled by it; the other lanes divide by 1
    // (exact), so that a point's bits never depend on the block it shares.
    const V mx = max(max(abs(X), abs(Y)), abs(Z));
    zl = mx == zero;
    const auto ext = !((mx >= V(0x1p-400)) & (mx <= V(0x1p400))) & !zl;
    if (any(ext)) {
      scaled = true;
      sc = select(ext, mx, one);  // divided, not multiplied by 1 / sc (inf for a subnormal sc)
      X = X / sc;
      Y = Y / sc;
      Z = Z / sc;
    }
    r2 = madd(X, X, madd(Y, Y, Z * Z));
    ir = select(zl, zero, vx::rsqrt(select(zl, one, r2)));  // 1 / |x| of the scaled point
    ux = X * ir;
    uy = Y * ir;
    uz = Z * ir;
  }
}

/// Y_l,m (at y[l (l+1) + m], m = -L..L) from q_l^m(z) (at qv[l (l+1) / 2 + m]) and
/// c_m + i s_m = (u_x + i u_y)^m (complex multiplication); VT: V, or vec<float> (the float32
/// lanes of kernels/sphere/sh_low_f32.hpp).
template <int L, class VT>
__attribute__((always_inline)) inline void low_values(const VT* qv, const VT& ux, const VT& uy, VT* y) {
  VT cm[L + 1], sm[L + 1];
  cm[0] = VT(1);
  sm[0] = VT(0);
#pragma GCC unroll 8
  for (int m = 1; m <= L; ++m) {
    if (m == 1) {
      cm[1] = ux;
      sm[1] = uy;
    } else {
      cm[m] = cm[m - 1] * ux - sm[m - 1] * uy;
      sm[m] = cm[m - 1] * uy + sm[m - 1] * ux;
    }
  }
#pragma GCC unroll 8
  for (int l = 0; l <= L; ++l) {
    const int c = l * (l + 1), b = l * (l + 1) / 2;
    y[c] = qv[b];
#pragma GCC unroll 8
    for (int m = 1; m <= l; ++m) {
      y[c + m] = qv[b + m] * cm[m];
      y[c - m] = qv[b + m] * sm[m];
    }
  }
}

/// The ladder terms of degree 1 (G_a of Y_1,m, m = 0, 1, -1: d1[3 i + a]), which depend on
/// Y_00 = y00 only: constants of a call, computed once by the ladder_step of low_ladder.
template <class VT>
inline void low_ladder_d1(const VT& y00, const double* coef, VT* d1) {
  using E = typename VT::value_type;
  auto cf = [&](int m, int i) { return VT(static_cast<E>(coef[5 * (1 + m) + i])); };
  const VT zero(0);
  auto at = [&](int qq) { return qq == 0 ? y00 : zero; };
  VT dn[3];
  ladder_step(at, 0, cf(0, 2), cf(0, 3), cf(0, 4), d1, dn);
  ladder_step(at, 1, cf(1, 2), cf(1, 3), cf(1, 4), d1 + 3, d1 + 6);
}

/// The gradients of degrees 1..L from the values y (Y_l,m at l (l+1) + m): for feature k =
/// l (l+1) + m and axis a, g[a K + k] = fin(l, k, a, G_a), G_a = d/dx_a of the solid harmonic at
/// u by the ladder relations (sph_grad_coef's cz, al, be at coef, as VT); degree 0's g[a K] = 0.
/// d1: degree 1's G_a from low_ladder_d1 of y[0] (a call's constants: the block loop need not
/// recompute them), or nullptr.
template <int L, class VT, class Fin>
__attribute__((always_inline)) inline void low_ladder(const VT* y, const double* coef, VT* g, Fin&& fin,
                                                      const VT* d1 = nullptr) {
  using E = typename VT::value_type;
  constexpr int K = (L + 1) * (L + 1);
  auto cf = [&](int l, int m, int i) { return VT(static_cast<E>(coef[5 * (l * (l + 1) / 2 + m) + i])); };
  const VT zero(0);
  g[0] = zero;
  g[K] = zero;
  g[2 * K] = zero;
#pragma GCC unroll 8
  for (int l = 1; l <= L; ++l) {
    const int c = l * (l + 1), cp = (l - 1) * l;
    auto at = [&](int qq) POSENC_HOT_LAMBDA { return (qq < -(l - 1) || qq > l - 1) ? zero : y[cp + qq]; };
#pragma GCC unroll 8
    for (int m = 0; m <= l; ++m) {
      VT dp[3], dn[3];
      if (l == 1 && d1 != nullptr) {
        for (int a = 0; a < 3; ++a) {
          dp[a] = d1[3 * m + a];
          dn[a] = d1[6 + a];
        }
      } else {
        ladder_step(at, m, cf(l, m, 2), cf(l, m, 3), cf(l, m, 4), dp, dn);
      }
      for (int sg = 0; sg < (m == 0 ? 1 : 2); ++sg) {
        const int k = sg ? c - m : c + m;
        const VT* d = sg ? dn : dp;
#pragma GCC unroll 3
        for (int a = 0; a < 3; ++a) g[a * K + k] = fin(l, k, a, d[a]);
      }
    }
  }
}

/// Rows of NF features are whole vectors in address order (low_put_rows_stream): streamed
/// where vx::kVecStream.
template <int NF>
constexpr bool low_stream_rows() {
  return vx::kVecStream && NF % 4 == 0 && (NF % static_cast<int>(W) == 0 || W == 8);
}

/// One body per (lmax, solid, gradients): every loop over degrees and orders has a constant
/// trip count and unrolls into straight-line code. src: the points (xyz_source, lonlat_source).
/// kCplx (unit sphere, values only): val is the complex output [n, K, 2] of
/// posenc_sph_harm_complex_f64, written straight from the block's real values by
/// low_complex_features (kernels/sphere/complex.hpp).
template <int L, bool kSolid, bool kGrad, bool kNT = false, bool kCplx = false, class Src, class TO>
inline void sh_low_body(const sph_grad_plan* P, const Src& src, int64_t n, TO* val, TO* grad) {
  static_assert(!kCplx || (!kSolid && !kGrad), "complex: unit-sphere values only");
  constexpr int K = (L + 1) * (L + 1);
  constexpr int KV = kCplx ? 2 * K : K;  // output values a point
  constexpr int NQ = (L + 1) * (L + 2) / 2;
  // sph_grad_coef of (l, m) at coef + 5 (l (l+1) / 2 + m), copied: the output stores cannot
  // alias a local array, so the products of constants (the ladder terms of the rows' zero
  // neighbours) leave the loop instead of being reloaded and recomputed per block.
  // At lmax 3 the ladder reads P->coef: there the hoisted products spilled (1.18x by A/B).
  double coef[5 * NQ];
  for (int i = 0; i < 5 * NQ; ++i) coef[i] = P->coef[i];
  const double* const coef_ladder = L >= 3 ? P->coef : coef;
  auto cf = [&](int l, int m, int i) { return coef[5 * (l * (l + 1) / 2 + m) + i]; };
  // The sectoral seeds q_m^m: constants of the call.
  double seed[L + 1];
  seed[0] = 0.28209479177387814347;  // 1 / sqrt(4 pi)
  for (int m = 1; m <= L; ++m) seed[m] = seed[m - 1] * cf(m, m, 0);
  const V one(1.0), zero(0.0);
  V d1[9];  // degree 1's ladder terms: y[0] = seed[0] in every block
  if constexpr (L >= 1) low_ladder_d1(V(seed[0]), coef, d1);
  // Large outputs: kNT (vx::vec_stream straight from the registers; rows staged through
  // line_stream and copied out in whole non-temporal lines were slower than ordinary stores on
  // the EPYC (Zen 4) VM of docs/PERFORMANCE.md, lmax 3 with gradients, 100k points: 4.4-5.0 ms
  // against 2.9-3.3 ms). Ordinary stores otherwise.
  // Software-pipelined by one block: an iteration normalizes the next block's points (loads,
  // norm, 1 / |x|: a chain of an estimated ~60 cycles on Zen 4) before it computes and writes the
  // current one, whose inputs are ready, so that the two overlap (one block a step, the
  // out-of-order window held about one block and the chain was not hidden).
  using mask_t = decltype(one != one);
  struct front_t {
    V ux, uy, uz, ir, sc, r2;
    mask_t zl;
    bool scaled;
  };
  // The loads of a block (fetch) run one iteration before its norm (front), so that the norm's
  // chain starts from registers: with the loads in the chain, in-cache 1.08-1.16x the time at
  // lmax 1 (AVX2, AVX-512), 1.1x at lmax 3 on AVX-512.
  struct raw_t {
    V X, Y, Z;
  };
  auto fetch = [&](int64_t q0, raw_t& r) POSENC_HOT_LAMBDA {
    src.prefetch(q0);
    src.get(q0, block_points(n, q0), r.X, r.Y, r.Z);
  };
  auto front = [&](const raw_t& r, front_t& f) POSENC_HOT_LAMBDA {
    const V X = r.X, Y = r.Y, Z = r.Z;
    f.zl = one != one;  // (0, 0, 0): validated to occur only with kSphZeroAsZero
    f.sc = one;
    f.r2 = one;
    f.ir = one;
    f.ux = X;
    f.uy = Y;
    f.uz = Z;
    f.scaled = false;
    low_normalize<Src::kUnit>(X, Y, Z, f.ux, f.uy, f.uz, f.ir, f.sc, f.r2, f.zl, f.scaled);
  };
  front_t nx{one, one, one, one, one, one, one != one, false};
  raw_t rw{one, one, one};
  if (n > 0) {
    fetch(0, rw);
    front(rw, nx);
  }
  // kAhead1: lon / lat (unit vectors, no norm) at lmax <= 2 fetches, i.e. converts, one block
  // ahead only, in the same iteration as that block's front: the sines and cosines of a block
  // held across a whole iteration spilled (AVX2 in-cache A/B, 4000 points: 0.95 of the time
  // at lmax 1 and 2, 0.99 / 0.97 on AVX-512; lmax 3 1.03: kept two ahead; converted in the
  // iteration of its own rows instead: 1.05-1.22).
  constexpr bool kAhead1 = Src::kUnit && L <= 2;
  if (!kAhead1 && n > static_cast<int64_t>(W)) fetch(static_cast<int64_t>(W), rw);
  // kNT (sh_low_l): full blocks go through vx::vec_stream, the partial last block takes
  // low_put_rows after the stream's finish. A body of its own: the stream's branches in the
  // ordinary body cost 5-10 % with the output in cache.
  constexpr bool kStreamVal = kNT && low_stream_rows<KV>();
  constexpr bool kStreamGrad = kNT && low_stream_rows<3 * K>();
  constexpr bool nt = kNT;
  vx::vec_stream sv, sg;
  if constexpr (kStreamVal || kStreamGrad) {
    if (nt) {
      if (val) sv.begin(val);
      if (grad) sg.begin(grad);
    }
  }
  for (int64_t p0 = 0; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    const front_t cur = nx;
    if (p0 + static_cast<int64_t>(W) < n) {
      if (kAhead1) fetch(p0 + static_cast<int64_t>(W), rw);
      front(rw, nx);
      if (!kAhead1 && p0 + 2 * static_cast<int64_t>(W) < n) fetch(p0 + 2 * static_cast<int64_t>(W), rw);
    }
    const V &ux = cur.ux, &uy = cur.uy, &uz = cur.uz, &ir = cur.ir, &sc = cur.sc, &r2 = cur.r2;
    const auto& zl = cur.zl;
    const bool scaled = cur.scaled;
    // q_l^m(z), index l (l+1) / 2 + m.
    V qv[NQ];
#pragma GCC unroll 8
    for (int m = 0; m <= L; ++m) {
      const int im = m * (m + 1) / 2 + m;
      qv[im] = V(seed[m]);
#pragma GCC unroll 8
      for (int l = m + 1; l <= L; ++l) {
        const int i = l * (l + 1) / 2 + m, i1 = (l - 1) * l / 2 + m;
        const V az = V(cf(l, m, 0)) * uz;
        if (l == m + 1) qv[i] = az * qv[i1];
        else qv[i] = madd(az, qv[i1], V(cf(l, m, 1)) * qv[(l - 2) * (l - 1) / 2 + m]);
      }
    }
    V y[K];  // Y_l,m at l (l+1) + m
    low_values<L>(qv, ux, uy, y);
    if constexpr (!kSolid) {
      if (any(zl))  // a zero vector: Y_00 and 0 above (the polynomials at u = 0 are not)
        for (int k = 1; k < K; ++k) y[k] = select(zl, zero, y[k]);
    }
    V rl[L + 2];  // solid: r^l (rl[l + 1]: r^l; rl[0] unused)
    if constexpr (kSolid) {
      const V r = sc * (r2 * ir);  // |x|; 0 for a zero vector
      rl[1] = one;
#pragma GCC unroll 8
      for (int l = 1; l <= L; ++l) rl[l + 1] = rl[l] * r;
    }
    if (val) {
      V o[K];
#pragma GCC unroll 64
      for (int k = 0; k < K; ++k) {
        if constexpr (kSolid) {
          int l = 0;
          while ((l + 1) * (l + 1) <= k) ++l;
          o[k] = l == 0 ? y[k] : rl[l + 1] * y[k];
        } else {
          o[k] = y[k];
        }
      }
      if constexpr (kCplx) {
        V co[KV];
        low_complex_features<L>(o, co);
        if constexpr (kStreamVal) {
          if (nt && np == W) low_put_rows_stream<KV, false>(co, sv);
          else low_put_rows<KV, false>(co, val + p0 * KV, np);
        } else {
          low_put_rows<KV, false>(co, val + p0 * KV, np);
        }
      } else if constexpr (kStreamVal) {
        if (nt && np == W) low_put_rows_stream<K, true>(o, sv);
        else low_put_rows<K, true>(o, val + p0 * K, np);  // o[0] = Y_00 in every lane
      } else {
        low_put_rows<K, true>(o, val + p0 * K, np);
      }
    }
    if constexpr (kGrad) {
      // g[a K + k]: d/dx_a of feature k.
      V g[3 * K];
      // 1 / |x| (0 for a zero vector); a scaled lane divides by sc instead (1 / |x| may
      // overflow where the gradient does not), the others then divide by 1: the same bits.
      const bool divide = scaled;
      const V irt = kSolid ? zero : ir;  // = ir / sc: sc = 1 where no lane is scaled
      const V u[3] = {ux, uy, uz};
      low_ladder<L>(
          y, coef_ladder, g,
          [&](int l, int k, int a, const V& d) POSENC_HOT_LAMBDA {
            if constexpr (kSolid) return V(rl[l] * d);
            else if (divide) return V(((d - (V(double(l)) * y[k]) * u[a]) * ir) / sc);
            else return V((d - (V(double(l)) * y[k]) * u[a]) * irt);
          },
          d1);
      if constexpr (kStreamGrad) {
        if (nt && np == W) low_put_rows_stream<3 * K, true>(g, sg);
        else low_put_rows<3 * K, true>(g, grad + p0 * 3 * K, np);  // g[0] = g[K] = g[2 K] = 0
      } else {
        low_put_rows<3 * K, true>(g, grad + p0 * 3 * K, np);
      }
    }
    if (nt && np == W && p0 + 2 * static_cast<int64_t>(W) > n) {
      // the last full block: the partial lines at the ends of the streamed rows
      if (val) sv.finish();
      if (grad) sg.finish();
    }
  }
  if (nt) vx::store_fence();
}

template <int L, bool kNT, class Src, class TO>
inline void sh_low_l2(const sph_grad_plan* P, const Src& xyz, int64_t n, TO* val, TO* grad) {
  const bool solid = (P->flags & kSphSolid) != 0;
  if (solid) {
    if (grad) sh_low_body<L, true, true, kNT>(P, xyz, n, val, grad);
    else sh_low_body<L, true, false, kNT>(P, xyz, n, val, grad);
  } else {
    if (grad) sh_low_body<L, false, true, kNT>(P, xyz, n, val, grad);
    else sh_low_body<L, false, false, kNT>(P, xyz, n, val, grad);
  }
}

/// Large outputs (P->stream) of float64 rows of whole vectors (lmax 1 and 3) go through
/// vx::vec_stream: on AVX-512 and AVX2 aligned lines written non-temporally (no read for
/// ownership of the output lines: lmax 3 with gradients, 51 MB at 100000 points, 0.65-0.85x the
/// time with ordinary stores on the Zen 4 VM of docs/PERFORMANCE.md, "Low degree, large outputs
/// streamed"). Needs a full block and outputs aligned to their elements.
template <int L, class Src, class TO>
inline void sh_low_l(const sph_grad_plan* P, const Src& xyz, int64_t n, TO* val, TO* grad) {
  constexpr int K = (L + 1) * (L + 1);
  if constexpr (std::is_same<TO, double>::value && low_stream_rows<K>() && low_stream_rows<3 * K>()) {
    auto el_aligned = [](const TO* q) { return q == nullptr || reinterpret_cast<std::uintptr_t>(q) % sizeof(TO) == 0; };
    if (P->stream != 0 && n >= static_cast<int64_t>(W) && el_aligned(val) && el_aligned(grad)) {
      sh_low_l2<L, true>(P, xyz, n, val, grad);
      return;
    }
  }
  sh_low_l2<L, false>(P, xyz, n, val, grad);
}

/// Real SH (P->flags: kSphSolid, kSphZeroAsZero) of lmax = P->lmax <= kSphLowLmax and, where
/// grad is not null, their gradients; val may be null. P->coef is required.
template <class Src, class TO>
inline void sh_low_src(const sph_grad_plan* P, const Src& xyz, int64_t n, TO* val, TO* grad) {
  static_assert(kSphLowLmax == 3, "one case per degree below");
  switch (P->lmax) {
    case 0: sh_low_l<0>(P, xyz, n, val, grad); break;
    case 1: sh_low_l<1>(P, xyz, n, val, grad); break;
    case 2: sh_low_l<2>(P, xyz, n, val, grad); break;
    default: sh_low_l<3>(P, xyz, n, val, grad); break;
  }
}

/// The complex SH [n, K, 2] of lmax = P->lmax <= kSphLowLmax (posenc_sph_harm_complex_f64; unit
/// sphere, P->coef required) of the points of src, in one pass (sh_low_body with kCplx); large
/// outputs (P->stream) of rows of whole vectors (lmax 1 and 3) through vx::vec_stream.
template <int L, class Src>
inline void sh_low_complex_l(const sph_grad_plan* P, const Src& src, int64_t n, double* out) {
  double* const none = nullptr;
  if constexpr (low_stream_rows<2 * (L + 1) * (L + 1)>()) {
    if (P->stream != 0 && n >= static_cast<int64_t>(W) && reinterpret_cast<std::uintptr_t>(out) % sizeof(double) == 0) {
      sh_low_body<L, false, false, true, true>(P, src, n, out, none);
      return;
    }
  }
  sh_low_body<L, false, false, false, true>(P, src, n, out, none);
}

template <class Src>
inline void sh_low_complex_src(const sph_grad_plan* P, const Src& src, int64_t n, double* out) {
  static_assert(kSphLowLmax == 3, "one case per degree below");
  switch (P->lmax) {
    case 0: sh_low_complex_l<0>(P, src, n, out); break;
    case 1: sh_low_complex_l<1>(P, src, n, out); break;
    case 2: sh_low_complex_l<2>(P, src, n, out); break;
    default: sh_low_complex_l<3>(P, src, n, out); break;
  }
}

template <class TI, class TO>
inline void sh_low_impl(const sph_grad_plan* P, const TI* xyz, int64_t n, TO* val, TO* grad) {
  sh_low_src(P, xyz_source<TI>{xyz}, n, val, grad);
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
