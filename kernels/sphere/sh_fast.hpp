// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/sh_fast.hpp — the real-SH recurrence of one block of points (lmax <=
// kSphFastLmax): the orthonormal three-term recurrence with closed-form coefficients
// (sph_plan::fab), each value written straight to its two output features through a sink
// (kernels/sphere/writers.hpp). The set-up of a block (cos / sin theta, cos / sin (m phi)) and
// the choice of sink are the caller's (kernels/sphere/sh_real.hpp).
#pragma once

#include "kernels/sphere/writers.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// Scratch doubles of sh_fast_block (seeds, two state rows, feature buffer).
inline int64_t fast_scratch(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1, Wd = static_cast<int64_t>(W);
  return (3 * N + 2 * (fast_cap(lmax) + 16) + 1) * Wd;  // two buffers (+ a unit of slack each)
}

/// One feature vector (W values of the compute type T) into sh_fast_block's buffer F, whose
/// elements are the sink's `elem`: as they are, or rounded to float32 (line_sink<float, double>).
template <class T, class TF, class VV>
inline void fput(TF* p, const VV& y) {
  if constexpr (std::is_same<TF, T>::value) {
    stu(p, y);
  } else {
    static_assert(std::is_same<TF, float>::value && std::is_same<T, double>::value, "float64 rounded to float32");
    store_f64_as_f32(p, vec<double>(y));
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
template <int LC = 0, class T = double, class Sink, class Hook = no_hook, class Bg = no_defer, bool kPole = false>
inline bool sh_fast_block(const sph_plan& P, const vec<T>& x, const vec<T>& u, const T* cm, const T* sm, T* scr,
                          Sink& sink, Hook&& early = Hook{}, Bg* bg = nullptr, int fsel = 0,
                          const T* seeds = nullptr, const vec<T>* xlo = nullptr) {
  using V = vec<T>;  // float: the float32-native path (16 lanes on AVX-512, 8 on AVX2), table fab32, seeds given
  constexpr std::size_t W = width<T>;
  constexpr bool kF = std::is_same<T, float>::value;
  constexpr bool kDefer = !std::is_same<Bg, no_defer>::value;
  constexpr bool kHandOff = Bg::hand_off;  // deferred_put: the block's last units are left in bg
  // Near the poles (float64; P.fpole set): a block with a point where |cos theta| > kSphPoleCos
  // runs the degree-outer body with kPole, in which those lanes carry their columns in the
  // difference form of sph_plan::fpole and the other lanes take the ordinary steps, the same
  // operations as in every other block: a point's bits never depend on its neighbours.
  if constexpr (!kF && !kPole) {
    if (P.fpole != nullptr && any(abs(x) > V(T(kSphPoleCos))))
      return sh_fast_block<0, T, Sink, Hook, Bg, true>(P, x, u, cm, sm, scr, sink, std::forward<Hook>(early), bg, fsel, seeds, xlo);
  }
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
  // Near-pole lanes are exempt: their columns hold sin^m theta times at most r_l^m (< 1e108 to
  // kSphFastLmax) and stay far below the block's norm (y_0^0) where a seed underflows.
  const auto pm = abs(x) > V(T(kSphPoleCos));  // near-pole lanes (kPole)
  auto tiny = (u != V(T(0))) & (abs(z) < V(kF ? T(0x1p-100) : T(0x1p-900)));
  if constexpr (kPole) tiny = tiny & !pm;
  if (any(tiny)) return false;
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
  // Float64: cos theta = x + xc, xc from row 0 of sm (prep in kernels/sphere/sh_real.hpp; sin 0 phi
  // is never read). Near the poles the columns depend on x to ~l^2 ulp (the zonal column) and
  // ~l^2 sin theta ulp (m = 1; measured 2.8e-13 of the block at l = 40, 1 - |z| = 4e-4 with x
  // alone there), so every step carries xc.
  V xc0(T(0));
  if constexpr (!kF) xc0 = load(sm);
  auto step0 = [&](const T* ab2, const V& p, const V& q) POSENC_HOT_LAMBDA -> V {
    if constexpr (kF) {
      return step(ab2, p, q);
    } else {
      const V a(ab2[0]);
      return madd(a * xr, p, madd(a * xc0, p, V(ab2[1]) * q));
    }
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
  // The difference form (kPole): t = 1 - |cos theta| = sin^2 theta / (1 + |cos theta|) to a few
  // ulp of itself, s = sign(cos theta); lane by lane v_l = s^{l-m} w_l and e_l = s^{l-m} d_l
  // (sph_plan::fpole), so e_l = s (-beta e_{l-1} - alpha t v_{l-1}), v_l = s v_{l-1} + e_l and
  // y_l = r_l v_l: the state rows hold (v_{l-1}, e_{l-1}) in those lanes instead of
  // (y_{l-1}, y_{l-2}).
  [[maybe_unused]] V sv(T(1)), tv(T(0));
  if constexpr (kPole) {
    sv = select(x < zero, V(T(-1)), V(T(1)));
    tv = (u * u) / (V(T(1)) + abs(x));
  }
  if constexpr (!kPole && LC > 0 && LC <= kSphOrderOuterLmax) {
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
        const T* ab2 = fab + static_cast<int64_t>(l) * (l - 1) + 2 * m;
        const V y = step0(ab2, y1, y2);
        out(l, y);
        y2 = y1;
        y1 = y;
      }
    }
  } else {
    stu(bufs[0], load(Z));  // the state rows: y_0 and y_{-1} = 0 (kPole: e_0 = y_0)
    if constexpr (kPole) stu(bufs[1], select(pm, load(Z), zero));
    else stu(bufs[1], zero);
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
      [[maybe_unused]] const double* pe = nullptr;  // kPole: (-alpha, -beta, r) of (l, 0)
      if constexpr (kPole) pe = P.fpole + 3 * lw * kSphPoleOrders;
      TF* f = F + (lw * (lw + 1) - fbase) * Wd;
      // Column m's step at degree l: the new state into the rows, the value returned.
      // dual: the near-pole lanes take the difference form (kPole, orders m < kSphPoleOrders).
      auto adv = [&](int32_t m, auto dual) POSENC_HOT_LAMBDA -> V {
        const std::size_t o = static_cast<std::size_t>(m) * W;
        const V p = load(prv + o), q = load(cur + o);
        const V y = step0(ab + 2 * m, p, q);
        if constexpr (decltype(dual)::value) {
          const double* c = pe + 3 * m;
          const V e = sv * madd(V(c[1]), q, (V(c[0]) * tv) * p);
          const V v = madd(sv, p, e);
          stu(cur + o, select(pm, v, y));
          stu(prv + o, select(pm, e, p));
          return select(pm, v * V(c[2]), y);
        } else {
          stu(cur + o, y);
          return y;
        }
      };
      using dual_t = std::integral_constant<bool, kPole>;
      fput<T>(f, adv(0, dual_t{}));
      const int32_t md = kPole ? std::min(l, kSphPoleOrders) : 1;  // the dual columns: m < md
      for (int32_t m = 1; m < md; ++m) {
        const std::size_t o = static_cast<std::size_t>(m) * W;
        const V y = adv(m, dual_t{});
        fput<T>(f + o, y * load(cm + o));
        fput<T>(f - o, y * load(sm + o));
      }
#pragma GCC unroll 16
      for (int32_t m = md; m < l; ++m) {
        const std::size_t o = static_cast<std::size_t>(m) * W;
        const V y = adv(m, std::false_type{});
        fput<T>(f + o, y * load(cm + o));
        fput<T>(f - o, y * load(sm + o));
      }
      {
        const std::size_t o = static_cast<std::size_t>(l) * W;
        const V y = load(Z + o);
        stu(cur + o, y);
        if (kPole && l < kSphPoleOrders) stu(prv + o, select(pm, y, zero));  // e_l^l = y_l^l
        else stu(prv + o, zero);  // y_{l-1}^l = 0 for degree l + 1
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

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
