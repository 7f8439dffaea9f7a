// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/peak_table.hpp — the machine-peak probe's kernel table: multiply-add loops at each ISA
// path's vector width, used for the roofline of the verbose lines and `posenc profile`
// (posenc_roofline_measure in lib/verbose.cpp). Plain C++, no SIMD: lib/ includes it.
#pragma once

#include <cstdint>

namespace posenc {

struct peak_kernels_t {
  /// Runs `iters` iterations of 12 independent multiply-add chains (a = a*b + c, fused where the
  /// ISA has FMA) on vectors of doubles / floats; writes a value depending on every chain to
  /// *sink (so nothing is optimized away) and returns the floating-point operations executed
  /// (2 per lane per multiply-add).
  double (*fma_f64)(int64_t iters, double* sink);
  double (*fma_f32)(int64_t iters, float* sink);
};

}  // namespace posenc
