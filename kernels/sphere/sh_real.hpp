// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/sh_real.hpp — real spherical harmonics of Cartesian directions: the set-up of
// a block (cos / sin theta, cos / sin (m phi) by complex multiplication), the choice of path
// (fast recurrence of sh_fast.hpp, extended-range recurrence of legendre.hpp, float32-native
// recurrence of sh_f32_native.hpp) and of writer (kernels/sphere/writers.hpp, line_sink.hpp).
//
// Real SH for lmax <= kSphFastLmax take sh_fast_block (orthonormal recurrence with closed-form
// coefficients, values written straight into a feature-major L1 buffer; for the bodies compiled
// per lmax <= 16 order outer, degree inner, each column in registers), and on the kLineWriter
// paths (AVX-512 at every lmax, AVX2 from kSphAvx2LineMinLmax) the whole-line writer
// (line_sink): blocks of points whose rows share an alignment, each transposed row one aligned
// 64-byte line (AVX2: two 32-byte halves), non-temporal for large outputs; float32 lines from
// the float64 recurrence are rounded as the recurrence stores them (fput), so the writer
// transposes floats. float32 output with lmax <= kSphF32NativeLmax runs the recurrence in
// float32 on the kF32Native paths (f32_native: 16 / 8 points per vector). Blocks too large for
// L1 (over 16 KB) prefetch their rows' lines for writing degree by degree (tile_sink) and, on
// kRowStreams paths with a large output, stream each row through its own line_stream
// (row_stream_sink). L2-resident float64 blocks over kSphStageMaxBytes also go straight into the
// rows with that prefetch; smaller ones are staged through line_stream. On AVX2 the staged blocks
// of a large output leave their lines pending, copied while the next block computes
// (deferred_copy). Measurements: kernels/sphere/policy.hpp and docs/PERFORMANCE.md (Sphere); the
// float32 error budget: docs/ACCURACY.md.
#pragma once

#include "kernels/sphere/legendre.hpp"
#include "kernels/sphere/sh_f32_native.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// Doubles of sh_real's streaming block (W (lmax+1)^2 outputs, 64-byte aligned) where it applies.
/// On AVX2, blocks of at most 16 KB get two (line_stream::end_deferred); the second follows the
/// first at stream_blk_doubles(lmax) / 2.
inline int64_t stream_blk_doubles(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1;
  // + line_stream's 128 bytes, rounded to whole lines (the second buffer stays 64-byte aligned)
  const int64_t one = kHasStream && lmax <= kSphStreamLmax ? (static_cast<int64_t>(W) * N * N + 16 + 7) / 8 * 8 : 0;
  return one * (deferred_copy(lmax) ? 2 : 1);
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
  // 5.8 -> 4.3 ms, float32 native 4.0 -> 3.6). Below 1 KB the staging costs more than
  // the split row stores (lmax 3: 1.0 -> 1.3 ms). Larger L2-resident float64 blocks are stored
  // straight into the rows with their lines prefetched for writing (tile_sink pfw).
  auto staged_for = [&](int64_t blk_bytes, int64_t max_bytes) { return staging && (P->stream != 0 || (blk_bytes >= 1024 && blk_bytes <= max_bytes)); };
  auto pf_for = [&](int64_t blk_bytes, bool staged) { return blk_bytes > kSphL1BlockBytes || (P->stream == 0 && !staged && blk_bytes >= kSphPrefetchMinBytes); };
  const V one(1.0), zero(0.0);
  // kRowStreams: large outputs whose blocks exceed L1 (so lmax >= 32: run-time lmax): one
  // line_stream per row (row_stream_sink), its buffers (W buf_bytes: at most 6 KB for
  // lmax <= kSphStreamLmax) in the staging space (stream_blk_doubles: 34 KB and more where they
  // apply). lmax 40, 64k points, 1 thread: float64 104 -> 79 ms, float32 73 -> 61 ms. (Also
  // tried for L2-resident outputs, with ordinary line stores: lmax 40 float64 50 -> 73 ms.) The
  // full super-blocks take line_sink instead (lmax 40: 70 -> 55 ms); this remains for the
  // blocks outside them (the last n mod 32 / 64 points, outputs not aligned to their element).
  const bool rows_nt = kRowStreams && staging && P->fab && P->stream != 0 &&
                       static_cast<int64_t>(W) * K * static_cast<int64_t>(sizeof(TO)) > kSphL1BlockBytes;
  // The whole-line super-blocks' shared lines, and the previous block's deferred lines (AVX-512
  // non-temporal super-blocks; never filled on AVX2, whose flush() calls are then no-ops).
  line_pending<TO, static_cast<int>(W)> pend;
  deferred_put<line_sink<TO>> bgput{line_sink<TO>(out, 0, 0, false, nullptr, 0)};
  // Set-up of one block: points first + j pstride (j < np): cos / sin theta into ct / st,
  // cos / sin (m phi) into cm / sm.
  auto prep = [&](int64_t first, int64_t pstride, std::size_t np, V& ct, V& st, double* cmo, double* smo) {
    V X, Y, Z;
    if (np == W) {
      const TI* q = xyz + 3 * first;
      X = vx::gather3(q, pstride);
      Y = vx::gather3(q + 1, pstride);
      Z = vx::gather3(q + 2, pstride);
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
    // No square can overflow or lose precision: two reciprocal square roots (no division on
    // AVX-512; see vx::rsqrt), each product one more rounding (<= 4 ulp in all, inside the
    // documented bound).
    V ir = vx::rsqrt(rxy2 + Z * Z);
    V irs = vx::rsqrt(select(pos, rxy2, one));  // 1 / r and 1 / r_xy (1 on the pole)
    const auto ext = !((mx >= V(0x1p-400)) & (mx <= V(0x1p400)) & (!pos | (rxy2 >= V(0x1p-900))));
    if (any(ext)) {
      // Extreme magnitudes (never for ordinary data): those lanes are scaled by their largest
      // component first, then divided. Decided lane by lane, so that a point's bits never
      // depend on the points that share its block (the other lanes keep the values above).
      const V imx = one / mx;
      const V Xs = X * imx, Ys = Y * imx, Zs = Z * imx;
      const V rxy2s = Xs * Xs + Ys * Ys;
      const auto poss = rxy2s > zero;
      ir = select(ext, one / sqrt(rxy2s + Zs * Zs), ir);
      irs = select(ext, one / sqrt(select(poss, rxy2s, one)), irs);
      X = select(ext, Xs, X);
      Y = select(ext, Ys, Y);
      Z = select(ext, Zs, Z);
      rxy2 = select(ext, rxy2s, rxy2);
      pos = rxy2 > zero;
    }
    ct = min(max(Z * ir, V(-1.0)), one);
    st = (rxy2 * irs) * ir;
    // cos theta = ct + xc: ct carries a few ulp of 1, which the low orders turn into ~l^2 ulp
    // of the block near the poles (7e-13 at l = 40, z = 0.999627). Within 60 degrees of a pole
    // cos theta = sgn (1 - st^2 / (1 + |ct|)), st accurate to a few ulp of itself, so
    // xc = (sgn - ct) - sgn st^2 / (1 + |ct|) (sgn - ct exact) restores it; elsewhere xc = 0.
    // xc travels in row 0 of sin (m phi) (sin 0 = 0, which no path reads).
    const V sgn = select(Z < zero, V(-1.0), one);
    const V xc = select(abs(ct) > V(0.5), (sgn - ct) - sgn * ((st * st) / (one + abs(ct))), zero);
    const V c1 = select(pos, X * irs, one), s1 = select(pos, Y * irs, zero);
    // e^{i m phi} by complex multiplication; xc in the unread slot sin (0 phi).
    cos_sin_m_phi(c1, s1, static_cast<int64_t>(N), static_cast<int64_t>(W), cmo, smo, xc);
  };
  // One block (prepared; cos / sin (m phi) in cm / sm): rows out + (first + j pstride) K.
  // b >= 0: block b of the whole-line super-blocks (line_sink), else plain tiles. hook: see
  // sh_fast_block.
  auto block = [&](int64_t first, int64_t pstride, std::size_t np, int64_t b, const V& ct, const V& st, const double* cm,
                   const double* sm, auto&& hook) {
    TO* const row0 = out + first * K;
    const int64_t rstride = pstride * K;
    if constexpr (kLineWriter) {
      if (b >= 0) {
        constexpr int64_t U = 64 / static_cast<int64_t>(sizeof(TO));
        line_sink<TO> ls(row0, rstride, K, P->stream != 0, &pend, static_cast<int>(b % U));
        // AVX-512, non-temporal output: the last units of each block are put during the next
        // block's recurrence (measured 5.2 -> 4.6 ms at lmax 10, 64k points; on Zen 5 still 0.95);
        // an L2-resident output is faster put at once (3.3 vs 4.2 ms). AVX2 puts at once always:
        // on Zen 5 (at once / deferred, float64) lmax 10 0.81-0.82, 12 0.88, 16 1.00, 20 0.87,
        // 30 0.94, 40 0.93, 64 1.02, 100 1.01; float32 lmax 20 0.89, 40 0.97.
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
    } else {
      (void)b;
      (void)hook;
    }
    if (rows_nt && np == W && pstride == 1) {
      lstream.finish();  // a fallback block's held line: the row buffers share its space
      row_stream_sink<TO> rs(row0, K, reinterpret_cast<char*>(align64(stage + stage_doubles(L))), L);
      if (sh_fast_block(*P, ct, st, cm, sm, scr, rs)) {
        rs.finish();
        return;
      }
    }
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
      const V xc = load(sm);  // cos theta = ct + xc (prep)
      // Near-pole lanes whose seeds stay in range take the difference form in the low orders.
      core_pole cp{(st * st) / (V(1.0) + abs(ct)), select(ct < V(0.0), V(-1.0), V(1.0)),
                   select((abs(ct) > V(kSphPoleCos)) & (st >= V(0x1p-60)), V(1.0), V(0.0))};
      const bool usep = any(cp.on != V(0.0));
      core(*P, ct, st, scr, [&](int32_t l, const double* row) {
        const std::size_t lu = static_cast<std::size_t>(l);
        em.put(lu, load(row));
        for (std::size_t m = 1; m <= lu; ++m) {
          const V y = load(row + m * W);
          em.put(lu - m, y * load(sm + m * W));
          em.put(lu + m, y * load(cm + m * W));
        }
        em.commit(2 * lu + 1);
      }, &xc, usep ? &cp : nullptr);
      em.finish();
    }
    if (via_blk) {
      if (defer_copy) lstream.end_deferred(static_cast<std::size_t>(blk_bytes));
      else lstream.end(static_cast<std::size_t>(blk_bytes));
    }
  };
  if constexpr (kF32Native && std::is_same<TO, float>::value) {
    if (P->fab32 != nullptr) {
      f32_native(P, n, out, scr, cms, dtmp, prep, block, lstream, staged_for(2 * static_cast<int64_t>(W) * K * static_cast<int64_t>(sizeof(float)), kSphL1BlockBytes));
      lstream.finish();
      if (P->stream != 0) vx::store_fence();
      return;
    }
  }
  int64_t p0 = 0;
  if constexpr (kLineWriter) {
    // Super-blocks of U W points (U = 64 / sizeof(TO)): block c takes points p0 + c + U j, whose
    // rows all start at the same offset within a 64-byte line (line_sink). Needs the fast path and
    // outputs aligned to their element size; the tail takes the ordinary blocks below. On AVX2
    // from lmax kSphAvx2LineMinLmax only (below it the staged / direct blocks are faster).
    const bool sb_on = L >= kSphLineMinLmax;
    constexpr int64_t U = 64 / static_cast<int64_t>(sizeof(TO)), SB = U * static_cast<int64_t>(W);
    if (sb_on && P->fab && reinterpret_cast<std::uintptr_t>(out) % sizeof(TO) == 0 && n >= SB) {
      auto first_of = [&](int64_t b) { return b / U * SB + b % U; };
      V ct[2], st[2];  // by block parity, like the cos / sin (m phi) buffers
      superblock_loop(
          n / SB * U, U,
          [&](int64_t b) {
            // The input of the super-block after next, prefetched as each super-block starts
            // (a prefetch past the array's end does not fault). With a non-temporal output the
            // hardware prefetcher left the gathers waiting: Zen 5, AVX2, float64 lmax 10,
            // 0.94-0.95 (40: 0.985; resident chunks 0.99).
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
  }
  for (; p0 < n; p0 += static_cast<int64_t>(W)) {
    const std::size_t np = block_points(n, p0);
    V ct, st;
    prep(p0, 1, np, ct, st, cm_of(0), cm_of(0) + N * W);
    block(p0, 1, np, int64_t(-1), ct, st, cm_of(0), cm_of(0) + N * W, no_hook{});
  }
  lstream.finish();
  if (kHasStream && P->stream != 0) vx::store_fence();
}


/// Scratch doubles of the sphere block kernels for lmax (legendre_impl, sh_real_impl): fast-path /
/// extended-range scratch, two cos / sin (m phi) buffers, the float64 set-up of the
/// float32-native path's parts, the emitter stage, the streaming block of sh_real, and 16
/// doubles for the two 64-byte alignments (the scratch pointer and the streaming block).
inline int64_t scratch_doubles(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1, Wd = static_cast<int64_t>(W);
  return std::max(core_scratch(lmax), fast_scratch(lmax)) + 10 * N * Wd + stage_doubles(lmax) + 16 + stream_blk_doubles(lmax);
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
