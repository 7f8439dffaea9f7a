// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/simd/neon.hpp — the kernels/simd/ vocabulary on the NEON path (2 doubles, 4 floats a
// vector): the 2 x 2 transpose by zips and the float32 <-> float64 halves by the conversion
// instructions; no non-temporal stores; the rest is the portable implementation. Included
// through kernels/simd/isa.hpp only.
#pragma once

#include "kernels/simd/portable.hpp"

#include <arm_neon.h>

namespace posenc {
namespace POSENC_NS {
namespace vx {

inline constexpr isa_id kIsa = isa_id::neon;
/// No non-temporal stores (the whole-line writers are x86 only).
inline constexpr bool kHasStream = false;
/// xyz_bad_block: the element-by-element form of portable.hpp (the sphere argument check keeps
/// its own vector loop).
inline constexpr bool kHasXyzBad = false;
/// No lane permute of doubles that pays for itself: kernels/sphere/lonlat.hpp keeps its
/// quadrant arithmetic; lookup reads tab[k mod 16] lane by lane from memory (portable.hpp).
inline constexpr int kLookupN = 0;
inline V lookup(const double* tab, const V& t) { return portable::lookup_lanes<16>(tab, t); }
using portable::xyz_bad_block;

/// In-place 2 x 2 transpose (r[i] lane j -> r[j] lane i).
inline void transpose(V* r) {
  float64x2_t a = r[0], b = r[1];
  r[0] = vzip1q_f64(a, b);
  r[1] = vzip2q_f64(a, b);
}

/// h[0] in lanes 0-1, h[1] in lanes 2-3, rounded to float32.
inline VF narrow(const V* h) { return vcombine_f32(vcvt_f32_f64(h[0]), vcvt_f32_f64(h[1])); }
/// Lanes [2 h, 2 h + 2) of v as doubles.
inline V widen(const VF& v, std::size_t h) { return vcvt_f64_f32(h == 0 ? vget_low_f32(v) : vget_high_f32(v)); }

using portable::copy_line;
using portable::ftile_rows;
using portable::deinterleave2;
using portable::deinterleave3;
using portable::gather3;
using portable::line_rows;
using portable::pack4n;
using portable::pack4n_c0;
using portable::fpack4n;
using portable::lines;
using portable::rsqrt;
/// vec_stream: ordinary stores (portable.hpp).
inline constexpr bool kVecStream = false;
using portable::vec_stream;
using portable::store_fence;
using portable::store_first;

}  // namespace vx
}  // namespace POSENC_NS
}  // namespace posenc
