// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/line_sink.hpp — the whole-line writer (kLineWriter paths): super-blocks of
// U W points whose rows start at the same offset within a 64-byte line, so that every row is
// written in whole aligned lines (non-temporal for large outputs), the lines two rows share
// merged before they are stored. A sink of the interface in kernels/sphere/writers.hpp.
#pragma once

#include "kernels/sphere/writers.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// The lines that two rows of a super-block share (the last line of row p and the first of row
/// p + 1), held until both halves are known and then written as one whole line. Block c of a
/// super-block owns rows c + U j: the tail of (c, j) meets the head of (c + 1, j), and the tail
/// of (U - 1, j) the head of (0, j + 1). A half whose partner never comes (a block that took the
/// extended-range path, the super-block's first and last row) is written masked by flush().
/// R: rows per block (line_sink::R, the compute vector width: 8 / 16 on AVX-512, 4 on AVX2).
template <class TO, int R>
struct line_pending {
  using LV = typename vx::lines<TO>::LV;
  LV head[R], tail[R];
  TO* hptr[R];
  TO* tptr[R];
  uint32_t hmask[R], tmask[R];
  bool hv[R] = {}, tv[R] = {};
  void flush_tails() {
    for (int j = 0; j < R; ++j)
      if (tv[j]) {
        vx::lines<TO>::masked(tptr[j], tmask[j], tail[j]);
        tv[j] = false;
      }
  }
  void flush() {
    flush_tails();
    for (int j = 0; j < R; ++j)
      if (hv[j]) {
        vx::lines<TO>::masked(hptr[j], hmask[j], head[j]);
        hv[j] = false;
      }
  }
};

/// Sink for block c of a super-block (kLineWriter: AVX-512, and AVX2 from lmax
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
  using LO = vx::lines<TO>;
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
  /// Nothing: the rows' lines are not prefetched for writing. Requesting ownership (prefetchw)
  /// of the lines of a cached output ahead of the recurrence helped on Sapphire Rapids (AVX-512
  /// -5 % at lmax 10) but only cost on Zen 5 (without / with: AVX2 float64 lmax 10 0.97-0.98 in
  /// chunks of 128-1024 points, 0.90 in chunks of 2048 (2 MB, beyond L2), lmax 12 0.94, 20 0.96,
  /// 31 1.01; float32 lmax 20 and 30 0.95; AVX-512 float64 lmax 10 0.95, 15 1.00, float32
  /// 0.95-0.96).
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
  static void rows_of(const elem* src, typename LO::LV* v) { vx::line_rows<R>(src, v); }
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

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
