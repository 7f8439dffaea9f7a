// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/rope.cpp — rope family (S¹): sinusoidal tables, RoPE cos/sin tables, the decay curve.
// Parameters and frequencies: lib/rope_freqs.cpp; rotation of Q/K: lib/rope_apply.cpp.
#include "lib/rope_common.hpp"

#include <vector>

POSENC_USE_KERNELS(rope_kernels_t, rope_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace {

/// Rows per tile: about 16K output elements, a multiple of kRopeAnchorEvery (16) rows,
/// independent of the thread count.
int64_t rows_per_tile(int64_t row_len) {
  int64_t r = 16384 / (row_len > 0 ? row_len : 1);
  r = r / kRopeAnchorEvery * kRopeAnchorEvery;
  return r < kRopeAnchorEvery ? kRopeAnchorEvery : r;
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_sinusoidal_f32(const int64_t* positions, int64_t n, int32_t dim,
                                                         double base, posenc_sinusoidal_layout layout,
                                                         float* out) {
  api_guard g("posenc_sinusoidal_f32");
  POSENC_CHECK(check_nonneg(n, "n"));
  if (dim <= 0 || dim % 2 != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "dim must be even and > 0 (got %d)", dim);
  POSENC_CHECK(check_finite_positive(base, "base"));
  const int layout_i = enum_bits(layout);
  if (layout_i != POSENC_SINUSOIDAL_INTERLEAVED && layout_i != POSENC_SINUSOIDAL_HALVES)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "layout must be POSENC_SINUSOIDAL_INTERLEAVED (0) or POSENC_SINUSOIDAL_HALVES (1) (got %d)",
                     layout_i);
  int64_t total = 0;
  POSENC_CHECK(checked_mul(n, dim, &total, "out [n, dim]", sizeof(float)));
  POSENC_CHECK(check_not_null_if(out, total, "out"));
  if (n == 0) return POSENC_OK;
  const rope_kernels_t* k = nullptr;
  POSENC_CHECK(rope_kernels_active(&k));
  return guarded([&] {
    const int32_t half = dim / 2;
    std::vector<double> wh(pad_lanes(static_cast<size_t>(half)), 0.0), wl(wh.size(), 0.0);
    for (int32_t i = 0; i < half; ++i) {
      const double w = std::pow(base, -2.0 * i / dim);  // Vaswani et al. §3.5, in float64
      freq_turns(w, &wh[static_cast<size_t>(i)], &wl[static_cast<size_t>(i)]);
    }
    path(positions ? "sinusoidal.positions" : "sinusoidal.consecutive");
    work(4.0 * double(total) + (positions ? 8.0 * double(n) : 0.0), 3.0 * double(total));
    POSENC_SHAPE("n=%lld dim=%d layout=%s", (long long)n, dim, layout_i ? "halves" : "interleaved");
    const int64_t grain = rows_per_tile(dim);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      k->sinusoidal_rows(positions, r0, r1, half, wh.data(), wl.data(), layout_i, out);
    });
    return POSENC_OK;
  });
}

// ============================================================================================
// RoPE
// ============================================================================================
namespace {

/// Turns per position (double-double) padded with zeros to a multiple of `pad`.
void prep_turns(const std::vector<double>& inv, size_t pad, std::vector<double>& wh, std::vector<double>& wl) {
  const size_t n = (inv.size() + pad - 1) / pad * pad;
  wh.assign(n, 0.0);
  wl.assign(n, 0.0);
  for (size_t j = 0; j < inv.size(); ++j) freq_turns(inv[j], &wh[j], &wl[j]);
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_rope_cos_sin_f32(const posenc_rope_params* p, const int64_t* positions,
                                                           int64_t n, float* cos_out, float* sin_out) {
  api_guard g("posenc_rope_cos_sin_f32");
  posenc_rope_plan pl;
  POSENC_CHECK(guarded([&] { return pl.init(p); }));
  POSENC_CHECK(check_nonneg(n, "n"));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(n, pl.half, &total, "cos_out [n, rotary_dim/2]", sizeof(float)));
  POSENC_CHECK(check_not_null_if(cos_out, total, "cos_out"));
  POSENC_CHECK(check_not_null_if(sin_out, total, "sin_out"));
  if (pl.naxes > 1 && n > 0) POSENC_CHECK(check_not_null(positions, "positions (M-RoPE / AXIAL)"));
  int64_t count = 0, seq_len = 0;
  POSENC_CHECK(checked_mul(n, pl.naxes, &count, "positions", sizeof(int64_t)));
  POSENC_CHECK(rope_check_positions(positions, count, &seq_len));
  if (n == 0) return POSENC_OK;
  const rope_kernels_t* k = nullptr;
  POSENC_CHECK(rope_kernels_active(&k));
  return guarded([&] {
    rope_freqset tmp;
    const rope_freqset& fs = pl.select(seq_len, &tmp);
    const rope_freqs_t f{pl.half, fs.wh.data(), fs.wl.data(), fs.af, nullptr, nullptr};
    const bool mrope = enum_bits(pl.p.axes) != POSENC_ROPE_AXES_AXIAL;
    const rope_pos_t pos{positions, pl.naxes, pl.naxes > 1 && mrope ? n : 1, pl.naxes > 1 && !mrope ? pl.naxes : 1,
                         pl.naxes > 1 ? pl.axis_of.data() : nullptr};
    path(positions ? "rope.cos_sin.positions" : "rope.cos_sin.consecutive");
    work(8.0 * double(total) + (positions ? 8.0 * double(count) : 0.0), 8.0 * double(total));  // step + scale
    POSENC_SHAPE("n=%lld rotary=%d", (long long)n, pl.p.rotary_dim);
    const int64_t grain = rows_per_tile(pl.p.rotary_dim);
    const size_t scratch = pad_lanes(static_cast<size_t>(pl.half));
    ScratchPool<double> pool(scratch);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      k->cos_sin_rows(&pos, r0, r1, &f, cos_out, sin_out, pool.get());
    });
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_rope_decay_f64(const double* inv_freq, int32_t num_freqs, int64_t n_begin,
                                                         int64_t n_step, int64_t count, double* f, double* bound) {
  api_guard g("posenc_rope_decay_f64");
  if (num_freqs <= 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "num_freqs must be > 0 (got %d)", num_freqs);
  POSENC_CHECK(check_not_null(inv_freq, "inv_freq"));
  for (int32_t j = 0; j < num_freqs; ++j)
    if (!std::isfinite(inv_freq[j]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "inv_freq[%d] must be finite (got %g)", j, inv_freq[j]);
  POSENC_CHECK(check_nonneg(count, "count"));
  int64_t f_elems = 0;  // f and bound hold count doubles: the byte count must fit the address space
  POSENC_CHECK(checked_mul(count, 1, &f_elems, "f [count]", sizeof(double)));
  POSENC_CHECK(check_not_null_if(f, count, "f"));
  if (count > 0) {
    int64_t span = 0, last = 0;
    if (__builtin_mul_overflow(count - 1, n_step, &span) || __builtin_add_overflow(n_begin, span, &last))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "n_begin + (count-1)*n_step overflows (n_begin %lld, n_step %lld)",
                       static_cast<long long>(n_begin), static_cast<long long>(n_step));
    for (int64_t v : {n_begin, last, n_step})
      if (v > kRopeMaxPos || v < -kRopeMaxPos)
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "n_begin, n_step and the last n must satisfy |n| <= 2^53 (got %lld)", static_cast<long long>(v));
  }
  if (count == 0) return POSENC_OK;
  const rope_kernels_t* k = nullptr;
  POSENC_CHECK(rope_kernels_active(&k));
  return guarded([&] {
    std::vector<double> inv(inv_freq, inv_freq + num_freqs), wh, wl;
    prep_turns(inv, 64, wh, wl);
    path(bound ? "rope.decay.f_bound" : "rope.decay.f");
    work(8.0 * double(count) * (bound ? 2 : 1), (bound ? 14.0 : 3.0) * double(count) * num_freqs);
    POSENC_SHAPE("freqs=%d count=%lld", num_freqs, (long long)count);
    parallel_tiles(tiles_of(count, kRopeDecayTile), [&](int64_t t) {
      const int64_t r0 = t * kRopeDecayTile, r1 = std::min(count, r0 + kRopeDecayTile);
      k->decay_rows(wh.data(), wl.data(), num_freqs, n_begin, n_step, r0, r1, f, bound);
    });
    return POSENC_OK;
  });
}
