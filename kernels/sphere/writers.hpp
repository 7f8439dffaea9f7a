// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/writers.hpp — the writers of the sphere kernels: how the values a block of
// points computes reach the point-major output rows.
//
// A block carries W points (one vector = one quantity of the W points) and produces its output
// values ("features", index k in output order) feature-major: feature k of the block is one
// vector. Writers transpose them into the point-major rows (feature k of point p at
// row_p + k) with in-register transposes: no scalar transpose, no gather / scatter.
//
// The writer interface ("sink"; what sh_fast_block writes through):
//   using elem              element type of the feature buffer F (the compute type; float when
//                           float32 lines are rounded from float64 compute as they are produced)
//   static int64_t unit     features one put takes at a time (whole units but the last)
//   static int64_t first    feature index of F's first unit (0, or below 0 for line_sink, whose
//                           units start where the output's 64-byte lines start)
//   put(F, fbase, k0, k1)   writes features [k0, k1) (k0 = first + a multiple of unit), held at
//                           F + (k - fbase) R for R points a vector; F is readable a unit past
//                           k1 (fast_cap)
//   prefetch(k1)            may request ownership of the output lines of features below k1
// Implementations: tile_sink (every ISA: W x W tiles stored into the rows), ftile_sink (float32
// compute: float tiles), row_stream_sink (each row through its own line_stream), line_sink
// (kernels/sphere/line_sink.hpp: super-blocks whose rows are written in whole aligned lines).
//
// Deferral (sh_fast_block's bg): the previous block's leftover work, done a share at a time
// under this block's recurrence: hand_off (does the block leave its last units here),
// units_left(), step(units), flush(): no_defer, deferred_put (a line_sink's last units),
// deferred_lines (line_stream's pending lines).
//
// emitter: the writer of the extended-range recurrence (kernels/sphere/legendre.hpp), which
// produces rows of features degree by degree: put / commit / finish, full tiles as they complete.
#pragma once

#include "kernels/sphere/line_stream.hpp"
#include "kernels/sphere/policy.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// Transposes the c (<= W) feature vectors at src (one vector = one feature of W points) and
/// stores them as c consecutive elements of the rows dst + p * stride, p < np.
template <class TO>
inline void store_tile(const double* src, std::size_t c, TO* dst, int64_t stride, std::size_t np) {
  V r[W];
  for (std::size_t i = 0; i < W; ++i) r[i] = i < c ? load(src + i * W) : V(0.0);
  vx::transpose(r);
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

/// The staged outputs of the derivative kernels (sh_grad_body, sh_grad_f32_body): output a's
/// block of rows goes to line_stream ls[a] (outs[a] null: no such output), ostride[a] elements a
/// point. share[a]: lines of a's previous block copied after each degree where deferred, so that
/// a block's lines are all copied within lmax degrees (lmax >= 1; lmax 0 has no degree).
inline int64_t grad_stage_share(int64_t block_bytes, int32_t lmax) {
  return (block_bytes / 64) / (lmax > 0 ? lmax : 1) + 1;
}

/// The end of a degree of the derivative kernels: each emitter of an output drains its full
/// tiles of the degree's `count` features; where deferred, a share of each staged output's
/// previous block of lines is copied.
template <class Em, class TO>
__attribute__((always_inline)) inline void grad_degree_done(Em* em, int ne, std::size_t count, TO* const* outs, int no,
                                                           line_stream* ls, const int64_t* share, bool deferred) {
  for (int e = 0; e < ne; ++e)
    if (em[e].out) em[e].commit(count);
  if (deferred)
    for (int a = 0; a < no; ++a)
      if (outs[a]) ls[a].copy_pending(static_cast<std::size_t>(share[a]));
}

/// The end of a block of np points of the derivative kernels: the emitters' last partial tiles,
/// then each staged output's block of rows handed to its line_stream (end_deferred: copied
/// under the next block's degrees; end: copied now).
template <class Em, class TO>
inline void grad_block_done(Em* em, int ne, TO* const* outs, const int64_t* ostride, int no, line_stream* ls,
                            bool staged, bool deferred, std::size_t np) {
  for (int e = 0; e < ne; ++e)
    if (em[e].out) em[e].finish();
  if (!staged) return;
  for (int a = 0; a < no; ++a) {
    if (!outs[a]) continue;
    const std::size_t nb = np * static_cast<std::size_t>(ostride[a]) * sizeof(TO);
    if (deferred) ls[a].end_deferred(nb);
    else ls[a].end(nb);
  }
}

/// After the last block of the derivative kernels: the staged outputs' remaining lines, then
/// the fence that orders the non-temporal stores before any later store.
template <class TO>
inline void grad_streams_done(TO* const* outs, int no, line_stream* ls, bool staged) {
  if (!staged) return;
  for (int a = 0; a < no; ++a)
    if (outs[a]) ls[a].finish();
  vx::store_fence();
}

/// Doubles of an emitter stage for rows of up to 2 lmax + 1 features.
inline int64_t stage_doubles(int32_t lmax) {
  return (2 * static_cast<int64_t>(lmax) + 1 + 2 * static_cast<int64_t>(W)) * static_cast<int64_t>(W);
}

/// Features [k0, k1) of the W points of a full block, held feature-major in F (feature k at
/// F + (k - fbase) W, aligned), into the point-major rows: feature k of point p to d[p] + k.
/// Tiles by vx::load_transpose, rows stored straight from registers; the last k1 - k < W
/// features by partial stores (F is readable a unit past k1: fast_cap).
template <class TO>
inline void put_full_tiles(const double* F, int64_t fbase, int64_t k0, int64_t k1, TO* const* d) {
  constexpr int64_t Wi = static_cast<int64_t>(W);
  int64_t k = k0;
  for (; k + Wi <= k1; k += Wi) {
    V r[W];
    vx::load_transpose(F + (k - fbase) * Wi, r);
    for (std::size_t p = 0; p < W; ++p) store_row(d[p] + k, r[p]);
  }
  if (k < k1) {
    V r[W];
    vx::load_transpose(F + (k - fbase) * Wi, r);
    for (std::size_t p = 0; p < W; ++p) store_row_partial(d[p] + k, r[p], static_cast<std::size_t>(k1 - k));
  }
}

/// Writes features [k0, k1) of the W points of a block, held feature-major in F (feature k at
/// F + (k - fbase) W), into the point-major rows dst + p * stride (p < np), tile by tile with
/// the in-register transpose; c < W features only in the last tile.
template <class TO>
inline void put_tiles(const double* F, int64_t fbase, int64_t k0, int64_t k1, TO* dst, int64_t stride, std::size_t np) {
  if constexpr (kRowsFromRegisters) {
    if (np == W) {  // full blocks: straight-line tiles, rows stored from registers
      TO* d[W];
      for (std::size_t p = 0; p < W; ++p) d[p] = dst + static_cast<int64_t>(p) * stride;
      put_full_tiles(F, fbase, k0, k1, d);
      return;
    }
  }
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

/// Sink of every ISA: transposed W x W tiles stored unaligned into the rows dst + p * stride.
template <class TO>
struct tile_sink {
  using elem = double;
  static constexpr int64_t unit = static_cast<int64_t>(W);
  static constexpr int64_t first = 0;
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
  /// Measured (AVX2): lmax 40 float64 96 -> 50 ms with the output in L2, 125 -> 100 ms with the
  /// staged block (54 KB, in L2) beyond L2; lmax 100 507 -> 380 / 732 -> 460 ms.
  void prefetch(int64_t k1) {
    if (!pfw || k1 <= pf) return;
    prefetch_rows(dst, stride, np, pf, k1);
    pf = k1;
  }
};

/// Sink for a full block (W points, adjacent rows) of a large output (non-temporal) whose block
/// does not fit L1 (more than 16 KB: lmax >= 32 for float64), on the paths with kRowStreams:
/// each row is its own line_stream. The tiles of a drain go to the rows' L1 buffers, and their
/// whole lines to the output with non-temporal stores, as the recurrence goes (instead of
/// staging the whole block, which at lmax 40 is 54 KB in L2, and copying it afterwards). The
/// line a row shares with the next row (or block) gets ordinary stores of its bytes from both
/// sides; those lines (one per row) are requested for ownership (prefetchw) when the block
/// starts, so their read-for-ownership runs under the block's arithmetic.
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
  row_stream_sink(TO* r0, int64_t K, char* bufs, int32_t lmax) : row0(r0), stride(K) {
    for (std::size_t p = 0; p < W; ++p) ls[p] = line_stream(bufs + p * buf_bytes(lmax), true);
    __builtin_prefetch(row0, 1, 3);  // row 0's first line, then the last line of each row
    for (std::size_t p = 1; p <= W; ++p)
      __builtin_prefetch(reinterpret_cast<const char*>(row0 + static_cast<int64_t>(p) * stride) - 1, 1, 3);
  }
  void put(const double* F, int64_t fbase, int64_t k0, int64_t k1) {
    if (k1 <= k0) return;
    TO* d[W];
    for (std::size_t p = 0; p < W; ++p)
      d[p] = reinterpret_cast<TO*>(ls[p].begin(row0 + static_cast<int64_t>(p) * stride + k0)) - k0;
    put_full_tiles(F, fbase, k0, k1, d);
    for (std::size_t p = 0; p < W; ++p) ls[p].end(static_cast<std::size_t>(k1 - k0) * sizeof(TO));
  }
  void prefetch(int64_t) {}
  /// The rows' last partial lines (ordinary stores), after the block's last put.
  void finish() {
    for (std::size_t p = 0; p < W; ++p) ls[p].finish();
  }
};

/// Sink of the float32-native fast block outside the AVX-512 whole-line super-blocks: tiles of
/// width<float> features x points (vx::ftile_rows) stored into the rows dst + p * stride,
/// p < np; the last c < unit features of each row by vx::store_first.
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
      vec<float> r[width<float>];
      vx::ftile_rows(F + (k - fbase) * unit, r);
      for (std::size_t p = 0; p < np; ++p) vx::store_first(d + static_cast<int64_t>(p) * stride, r[p], c);
    }
  }
  void prefetch(int64_t) {}
};

/// sh_fast_block's default `early`: nothing to prepare.
struct no_hook {
  void operator()() const {}
};

/// No deferred work (sh_fast_block's default bg).
struct no_defer {
  static constexpr bool hand_off = false;
  int64_t units_left() const { return 0; }
  void step(int64_t) {}
  void flush() {}
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
/// while the next block runs its recurrence (nothing handed off).
struct deferred_lines {
  static constexpr bool hand_off = false;
  line_stream* ls;
  int64_t units_left() const { return static_cast<int64_t>(ls->plines); }
  void step(int64_t units) { ls->copy_pending(static_cast<std::size_t>(units)); }
  void flush() { ls->copy_pending(ls->plines); }
};

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
