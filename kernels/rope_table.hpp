// kernels/rope_table.hpp — the rope family's kernel table: plain function pointers, one table
// per ISA (posenc::isa_<name>::rope_kernels()), filled in kernels/rope.cpp. No SIMD here:
// lib/rope.cpp includes this header with baseline flags.
#pragma once

#include <cstdint>

namespace posenc {

struct rope_kernels_t {
  /// Rows [row_begin, row_end) of a sinusoidal table out [n, 2*half] (row stride 2*half).
  /// Position of row i = positions ? positions[i] : i. wh/wl: turns per position (double-double,
  /// lib/phase_prep.hpp), padded with zeros to a multiple of 16. layout: posenc_sinusoidal_layout.
  void (*sinusoidal_rows)(const int64_t* positions, int64_t row_begin, int64_t row_end, int32_t half,
                          const double* wh, const double* wl, int layout, float* out);
};

}  // namespace posenc
