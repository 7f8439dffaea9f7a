// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/policy.hpp — which writer and which recurrence body each ISA path takes, and
// the measured sizes behind those choices. Every choice is a constexpr of vx::kIsa, so the
// algorithms stay free of preprocessor conditionals. Measurements: 64k points, 1 thread, A/B of two
// builds in one process (bench/ab_compare.cpp, docs/PERFORMANCE.md "Re-tuning") unless stated.
#pragma once

#include "kernels/sphere/common.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

constexpr bool kIsAvx512 = vx::kIsa == vx::isa_id::avx512;
constexpr bool kIsAvx2 = vx::kIsa == vx::isa_id::avx2;
/// Non-temporal stores exist (line_stream, line_sink): x86.
constexpr bool kHasStream = vx::kHasStream;
/// The whole-line super-blocks (line_sink) and the float32-native recurrence for float32
/// output (f32_native): AVX-512 and AVX2, whose masked stores and transposes they are built on.
constexpr bool kLineWriter = kIsAvx512 || kIsAvx2;
constexpr bool kF32Native = kIsAvx512 || kIsAvx2;
/// AVX2: full blocks store their transposed tiles straight from registers (put_full_tiles), and
/// large outputs stream each row of a block through its own line_stream (row_stream_sink).
constexpr bool kRowsFromRegisters = kIsAvx2;
constexpr bool kRowStreams = kIsAvx2;

/// Real-SH tiles of lib/ are a multiple of this many points: the largest super-block of any ISA
/// (AVX-512 float32-native: 16 blocks of 16 points; float64 64, float32 from float64 128). Every
/// ISA's table reports it, so that all paths tile alike and a tile boundary never splits a
/// super-block.
constexpr int64_t kSphTilePoints = 256;

/// Outputs of at least this many bytes are written with non-temporal stores (sph_plan::stream):
/// far beyond the caches, they skip the read-for-ownership of every output line (~2x the write
/// bandwidth measured on the dev VM); smaller outputs stay cached for the caller.
constexpr int64_t kSphStreamMinBytes = int64_t(16) << 20;

/// A block of points whose output exceeds this many bytes does not stay in L1 (with the
/// recurrence's own buffers): staged through line_stream only up to it when L2-resident, its rows'
/// lines prefetched for writing beyond it (tile_sink), streamed row by row beyond it on AVX2
/// (row_stream_sink).
constexpr int64_t kSphL1BlockBytes = 16384;

/// L2-resident blocks of float64 real SH are staged through line_stream up to this many bytes
/// (lmax 12: 5.4 KB); larger ones, and L2-resident float32 blocks from float64, are stored
/// straight into the output rows with their lines prefetched for writing from
/// kSphPrefetchMinBytes on (tile_sink pfw). Measured (AVX2, direct + prefetch against staged):
/// float64 lmax 5 +15 %, 8 +12 %, 10 +2..8 %, 12 -4..+4 %, 14 -10..16 %, 16 -14..19 %,
/// 20 -23 %; the float32-native blocks (8 points) stay staged (lmax 14 +8..12 %).
constexpr int64_t kSphStageMaxBytes = 6144;
/// Below this many bytes an L2-resident block's prefetches cost more than they save (lmax 3
/// float64, 512-byte blocks: 1.6 -> 2.6 ms).
constexpr int64_t kSphPrefetchMinBytes = 1024;

/// The derivative kernel (kernels/sphere/sh_grad.hpp) stages a block's rows of a large output
/// (sph_grad_plan::stream) in point-major lines written non-temporally, up to this many bytes a
/// block (L2): values + gradients to lmax 44, + Hessians to lmax 24 on AVX-512 (8 points).
constexpr int64_t kSphGradStageMaxBytes = int64_t(512) << 10;

/// Highest lmax for which the sh_real kernels keep a whole block of points' outputs in scratch
/// (W (lmax+1)^2 values: <= 40 KB, L1, to lmax 24 on AVX-512; <= 136 KB, L2, at 64 on AVX2) and
/// stream it out in whole lines (line_stream) for large outputs, outside the AVX-512 whole-line
/// super-blocks. Measured (AVX2): lmax 40 f64 150 -> 119 ms, f32 71 -> 67 ms with the lines a
/// block shares held by line_stream (with a partial ordinary store at each block boundary it was
/// neutral to slower, and the limit 24); at lmax 100 f64 equal, f32 slower (368 -> 428 ms).
constexpr int32_t kSphStreamLmax = 64;

/// Up to this lmax the fast real-SH block holds all its features at once and runs order outer,
/// degree inner (each column in registers; compiled per lmax only, see kSphUnrolledLmax).
constexpr int kSphOrderOuterLmax = 16;

/// Features held by the fast path's SoA buffer (W lanes each): 128 x 64 B = 8 KB on AVX-512;
/// with the seeds, the two state rows and cos/sin(m phi) that stays in L1 to lmax ~ 60.
/// Up to kSphOrderOuterLmax the buffer holds the whole block (order-outer recurrence: the
/// features of a degree are complete only after the last order).
inline int64_t fast_cap(int32_t lmax) {
  const int64_t N = static_cast<int64_t>(lmax) + 1;
  if (lmax <= kSphOrderOuterLmax) return N * N + 32;  // every feature + the shift + a unit past the end
  const int64_t need = 2 * static_cast<int64_t>(lmax) + 1 + 32;  // a degree + a unit's leftover + shift
  return need > 128 ? need : 128;
}

/// Lowest lmax at which the AVX2 path writes full blocks through the whole-line super-blocks
/// (line_sink, 4 rows of 4-point blocks, two 4 x 4 tiles per line) instead of staging them
/// (line_stream) or storing tiles straight into the rows (tile_sink, row_stream_sink). Measured
/// (the two paths alternated call by call, median ratio line / old): output beyond L2 lmax 2
/// 1.56, 3 1.47, 5 1.24, 8 1.03, 10 0.97-1.0, 14 0.92, 20 0.86, 40 0.78; L2-resident chunks
/// lmax 5 1.20, 8 1.00, 9 0.96, 10 0.87-0.92, 12 0.84, 20 0.91, 40 0.97, 100 0.88. AVX-512 takes
/// them at every lmax.
constexpr int32_t kSphAvx2LineMinLmax = 10;
constexpr int32_t kSphLineMinLmax = kIsAvx512 ? 0 : kSphAvx2LineMinLmax;

/// Highest lmax for which full blocks run sh_fast_block compiled for that lmax (every loop
/// unrolled: measured 4-7 % faster at lmax 10 than the same code with a run-time lmax).
/// Sanitizer builds keep the run-time lmax only: instrumenting the unrolled bodies took GCC 12
/// more than 10 minutes for one file.
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
inline bool with_const_lmax(int32_t lmax, Fn&& f) {
  return with_const_lmax_impl(lmax, f, std::make_integer_sequence<int, kSphUnrolledLmax>{});
}

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

/// True where sh_real's large outputs copy a staged block's lines while the next block computes
/// (line_stream::end_deferred, deferred_lines): AVX2 blocks of 512 bytes to 16 KB (AVX-512 defers
/// the whole-line puts of its super-blocks instead, deferred_put; NEON has no non-temporal
/// stores). Measured against copying each block at its end: float64 lmax 3 -2..-11 %,
/// 10 -4..-11 %, 16 -11 %, 20 -1..-9 %; float32 (from float64) lmax 20 -8 %; lmax 1 (two lines a
/// block) 9-15 % slower. Not for the float32-native blocks (lmax 5 to 16: +4..7 %), whose
/// fallback halves still take it (mixing end and end_deferred on one line_stream is safe).
inline bool deferred_copy(int32_t lmax) {
  if constexpr (kIsAvx2) {
    const int64_t N = static_cast<int64_t>(lmax) + 1;
    return lmax >= 3 && lmax <= kSphStreamLmax && static_cast<int64_t>(W) * N * N * 8 <= kSphL1BlockBytes;
  } else {
    (void)lmax;
    return false;
  }
}

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
