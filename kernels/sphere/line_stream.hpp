// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/sphere/line_stream.hpp — contiguous output staged in a 64-byte aligned buffer and
// written in whole lines (non-temporal where the ISA has them and the output is large).
#pragma once

#include "kernels/sphere/common.hpp"

namespace posenc {
namespace POSENC_NS {
namespace sph {

/// Contiguous output written through a 64-byte aligned staging buffer in whole lines: non-temporal
/// stores where the ISA has them (x86) and the output is large, else ordinary aligned line stores
/// (an L2-resident output written in whole lines from L1 rather than by the row stores of the
/// tiles, a third of which split a line: measured 5.8 -> 4.3 ms at lmax 10 float64 on the AVX2
/// path). Blocks whose bytes follow one another in the output share a line at each boundary: the
/// first part of that line (the previous block's last bytes) is held in buf[0..held) and written
/// whole, non-temporally, with the next block. Written as two partial ordinary stores instead (a
/// memcpy head and tail), that line cost a read-for-ownership from DRAM per block, and an
/// ordinary store that misses holds up every later store: measured 12.0 -> 7.6 ms at lmax 10
/// float64 on the AVX2 path. Only a line shared with output written some other way (or the
/// call's first and last line) gets ordinary stores of its own bytes.
/// Per block: where = begin(dst), write nbytes at `where`, end(nbytes) (or end_deferred with a
/// second buffer). finish() writes the pending and held bytes; callers then vx::store_fence().
struct line_stream {
  char* buf = nullptr;   ///< 64-byte aligned; 128 bytes more than the largest block
  char* buf2 = nullptr;  ///< end_deferred's second buffer (same size), else nullptr
  char* line = nullptr;  ///< destination line of buf[0..64)
  std::size_t v0 = 0;    ///< buf[v0..held) are this line's bytes so far
  std::size_t held = 0;  ///< 0: nothing held
  std::size_t pos = 0;   ///< offset of the current block in buf
  bool nt = false;       ///< non-temporal line stores (else ordinary aligned ones)
  const char* psrc = nullptr;  ///< end_deferred: the previous block's lines not yet copied
  char* pdst = nullptr;
  std::size_t plines = 0;
  line_stream() = default;
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
  /// count aligned 64-byte lines from s to d (vx::copy_line), non-temporal when nt.
  void copy_lines(char* d, const char* s, std::size_t count) const {
    if (nt) {
      for (std::size_t j = 0; j < count; ++j) vx::copy_line<true>(d + 64 * j, s + 64 * j);
    } else {
      for (std::size_t j = 0; j < count; ++j) vx::copy_line<false>(d + 64 * j, s + 64 * j);
    }
  }
};

}  // namespace sph
}  // namespace POSENC_NS
}  // namespace posenc
