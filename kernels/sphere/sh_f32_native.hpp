// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/sh_f32_native.hpp — float32 real SH with the recurrence itself in float32
// (kF32Native paths, lmax <= kSphF32NativeLmax): twice the points per vector of the float64
// recurrence, the set-up kept in float64.
#pragma once

#include "kernels/sphere/line_sink.hpp"
#include "kernels/sphere/sh_fast.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

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

/// Float32 real SH with the recurrence itself in float32 (lmax <= kSphF32NativeLmax): blocks of
/// WF = kHalves W points (one float vector: 16 on AVX-512, 8 on AVX2), set up in float64 as
/// kHalves blocks of W (sh_real_impl's prep) and narrowed, so that the only float32 error is the
/// recurrence's own (docs/ACCURACY.md); per lane the same operations on every ISA. AVX-512:
/// super-blocks of 16 x 16 points go through the whole-line writer (line_sink<float, float>).
/// The other blocks (all of them on AVX2, whose full blocks run the bodies compiled per lmax) go
/// through ftile_sink, staged through line_stream ls when `staged`. A block whose smallest seed
/// leaves the float range (sh_fast_block returns false) is computed by sh_real_impl's float64
/// `block` in kHalves parts.
/// scr: fast-path scratch; cms: 6 (lmax+1) W doubles for two float buffers of cos / sin (m phi)
/// and the seeds; dtmp: 2 kHalves (lmax+1) W doubles for the float64 set-up of the parts.
template <class Prep, class Block>
inline void f32_native(const sph_plan* P, int64_t n, float* out, double* scr, double* cms, double* dtmp, Prep& prep,
                       Block& block, line_stream& ls, bool staged) {
  using VF = vec<float>;
  constexpr std::size_t WF = width<float>, H = vx::kHalves;
  const int32_t L = P->lmax;
  const std::size_t N = static_cast<std::size_t>(L) + 1;
  const int64_t K = (static_cast<int64_t>(L) + 1) * (static_cast<int64_t>(L) + 1);
  float* const fscr = reinterpret_cast<float*>(scr);
  float* const fcms = reinterpret_cast<float*>(cms);
  auto fcs = [&](int64_t b, float*& c, float*& s_) {  // cos, sin (m phi), then the seeds y_m^m
    c = fcms + static_cast<std::size_t>(b & 1) * 3 * N * WF;
    s_ = c + N * WF;
  };
  double* hc[H];  // cos / sin (m phi) of the parts
  for (std::size_t h = 0; h < H; ++h) hc[h] = dtmp + 2 * N * W * h;
  struct set_up {
    V ct[H], st[H];
    VF ct16, st16, xlo16;  // cos theta = ct16 + xlo16 (the float rounding error kept)
  };
  constexpr int64_t Wi = static_cast<int64_t>(W);
  // Points first + j pstride, j < np <= WF, into q and the float buffers cmo / smo.
  auto prep16 = [&](int64_t first, int64_t pstride, std::size_t np, set_up& q, float* cmo, float* smo) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t nh = np > W * h ? std::min<std::size_t>(np - W * h, W) : 0;
      prep(first + Wi * static_cast<int64_t>(h) * pstride, pstride, nh, q.ct[h], q.st[h], hc[h], hc[h] + N * W);
    }
    q.ct16 = vx::narrow(q.ct);
    q.st16 = vx::narrow(q.st);
    V d[H];
    for (std::size_t h = 0; h < H; ++h) d[h] = q.ct[h] - vx::widen(q.ct16, h);  // exact differences
    q.xlo16 = vx::narrow(d);
    // The sectoral seeds in float64, rounded once: the float32 product chain would carry ~3 L
    // roundings into every value of the block (measured 6.9e-6 against 4.4e-6 at lmax 31).
    V z[H];
    for (std::size_t h = 0; h < H; ++h) z[h] = V(P->fy00);
    float* const zo = smo + N * WF;
    stu(zo, vx::narrow(z));
    for (std::size_t m = 1; m < N; ++m) {
      for (std::size_t h = 0; h < H; ++h) z[h] = z[h] * (V(P->fdiag[m]) * q.st[h]);
      stu(zo + m * WF, vx::narrow(z));
    }
    for (std::size_t m = 0; m < N; ++m) {
      V c[H], s[H];
      for (std::size_t h = 0; h < H; ++h) {
        c[h] = load(hc[h] + m * W);
        s[h] = load(hc[h] + N * W + m * W);
      }
      stu(cmo + m * WF, vx::narrow(c));
      stu(smo + m * WF, vx::narrow(s));
    }
  };
  // A block the float range cannot hold: every part by the float64 path (hc still holds them).
  auto fallback = [&](int64_t first, int64_t pstride, std::size_t np, const set_up& q) {
    for (std::size_t h = 0; h < H && np > W * h; ++h)
      block(first + Wi * static_cast<int64_t>(h) * pstride, pstride, std::min<std::size_t>(np - W * h, W), int64_t(-1),
            q.ct[h], q.st[h], hc[h], hc[h] + N * W, no_hook{});
  };
  float *fcm = nullptr, *fsm = nullptr;
  int64_t p0 = 0;
  if constexpr (kIsAvx512) {
    constexpr int64_t U = 64 / static_cast<int64_t>(sizeof(float)), SB = U * static_cast<int64_t>(WF);
    if (reinterpret_cast<std::uintptr_t>(out) % sizeof(float) == 0 && n >= SB) {
      line_pending<float, static_cast<int>(WF)> pend;
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
  }
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

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
