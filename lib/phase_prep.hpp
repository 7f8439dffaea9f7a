// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/phase_prep.hpp — preparation of frequencies for kernels/phase.hpp (baseline code).
#pragma once

#include <cmath>
#include <cstddef>

namespace posenc {
namespace detail {

/// Splits w (radians per position) into turns per position w/(2*pi) = hi + lo as a
/// double-double, exact to ~2^-104 relative. 2*pi = TWO_PI_HI + TWO_PI_LO to ~2^-107.
inline void freq_turns(double w, double* hi, double* lo) {
  constexpr double kTwoPiHi = 6.283185307179586232e+00;
  constexpr double kTwoPiLo = 2.449293598294706414e-16;
  const double h = w / kTwoPiHi;
  // w - h*(kTwoPiHi + kTwoPiLo): the fused product keeps h*kTwoPiHi exact.
  const double e = std::fma(-h, kTwoPiHi, w) - h * kTwoPiLo;
  *hi = h;
  *lo = e / kTwoPiHi;
}

/// Rounds n up to a multiple of 16 (the widest register holds 8 doubles or 16 floats), so that
/// kernels may load whole vectors of either type from padded frequency arrays.
inline std::size_t pad_lanes(std::size_t n) { return (n + 15) / 16 * 16; }

}  // namespace detail
}  // namespace posenc
