// lib/rope.cpp — rope family (S¹): argument validation, frequency preparation, tiling.
#include "kernels/rope_table.hpp"
#include "lib/internal.hpp"
#include "lib/phase_prep.hpp"

#include <vector>

POSENC_USE_KERNELS(rope_kernels_t, rope_kernels)

using namespace posenc;
using namespace posenc::detail;

namespace {

/// Rows per tile: about 16K output elements, independent of the thread count.
int64_t rows_per_tile(int64_t row_len) {
  int64_t r = 16384 / (row_len > 0 ? row_len : 1);
  return r < 1 ? 1 : r;
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
  if (layout != POSENC_SINUSOIDAL_INTERLEAVED && layout != POSENC_SINUSOIDAL_HALVES)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "layout must be POSENC_SINUSOIDAL_INTERLEAVED (0) or POSENC_SINUSOIDAL_HALVES (1) (got %d)",
                     static_cast<int>(layout));
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
      phase_turns(w, &wh[static_cast<size_t>(i)], &wl[static_cast<size_t>(i)]);
    }
    const int64_t grain = rows_per_tile(dim);
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      k->sinusoidal_rows(positions, r0, r1, half, wh.data(), wl.data(), static_cast<int>(layout), out);
    });
    return POSENC_OK;
  });
}
