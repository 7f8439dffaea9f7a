// kernels/rope.hpp — S¹ kernels (sinusoidal tables; RoPE cos/sin, rotation, decay).
// Compiled per ISA: everything lives in posenc::POSENC_NS (see kernels/simd.hpp).
#pragma once

#include "kernels/phase.hpp"
#include "kernels/rope_table.hpp"

namespace posenc {
namespace POSENC_NS {

/// See rope_kernels_t::sinusoidal_rows. Vectorized across frequencies: each row broadcasts its
/// position and evaluates width<double> exact-phase (sin, cos) pairs per step.
inline void sinusoidal_rows(const int64_t* positions, int64_t row_begin, int64_t row_end, int32_t half,
                            const double* wh, const double* wl, int layout, float* out) {
  using V = vec<double>;
  constexpr std::size_t W = width<double>;
  const std::size_t h = static_cast<std::size_t>(half);
  const std::size_t row_len = 2 * h;
  for (int64_t i = row_begin; i < row_end; ++i) {
    const double pos = static_cast<double>(positions ? positions[i] : i);
    const V p(pos);
    float* row = out + static_cast<std::size_t>(i) * row_len;
    for (std::size_t j = 0; j < h; j += W) {
      V s, c;
      sincos_phase(p, load(wh + j), load(wl + j), s, c);
      const std::size_t cnt = h - j < W ? h - j : W;
      if (layout == 0) {  // interleaved: sin at 2j, cos at 2j+1
        if (cnt == W) store_f64_as_f32_interleaved(row + 2 * j, s, c);
        else store_f64_as_f32_interleaved_partial(row + 2 * j, s, c, cnt);
      } else {  // halves: [sin | cos]
        if (cnt == W) {
          store_f64_as_f32(row + j, s);
          store_f64_as_f32(row + h + j, c);
        } else {
          store_f64_as_f32_partial(row + j, s, cnt);
          store_f64_as_f32_partial(row + h + j, c, cnt);
        }
      }
    }
  }
}

}  // namespace POSENC_NS
}  // namespace posenc
