// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/simd/scalar.hpp — the kernels/simd/ vocabulary on the scalar path (one lane: a
// "transpose" is the identity, a float vector holds one double's lane); everything else is the
// portable implementation. Included through kernels/simd/isa.hpp only.
#pragma once

#include "kernels/simd/portable.hpp"

namespace posenc {
namespace POSENC_NS {
namespace vx {

inline constexpr isa_id kIsa = isa_id::scalar;
/// No non-temporal stores.
inline constexpr bool kHasStream = false;
/// xyz_bad_block: the element-by-element form of portable.hpp (the sphere argument check keeps
/// its own vector loop).
inline constexpr bool kHasXyzBad = false;
/// One lane, no lane permute: kernels/sphere/lonlat.hpp reads its 16-angle table from memory
/// itself (sincos_table16_d2); lookup reads tab[k mod 16] from memory (portable.hpp).
inline constexpr int kLookupN = 0;
inline V lookup(const double* tab, const V& t) { return portable::lookup_lanes<16>(tab, t); }
using portable::xyz_bad_block;

/// One lane: nothing to transpose.
inline void transpose(V*) {}
using portable::copy_line;
using portable::ftile_rows;
using portable::deinterleave2;
using portable::deinterleave3;
using portable::gather3;
using portable::line_rows;
using portable::lines;
using portable::narrow;
using portable::pack4n;
using portable::pack4n_c0;
using portable::fpack4n;
using portable::rsqrt;
/// vec_stream: ordinary stores (portable.hpp).
inline constexpr bool kVecStream = false;
using portable::vec_stream;
using portable::store_fence;
using portable::store_first;
using portable::widen;

}  // namespace vx
}  // namespace POSENC_NS
}  // namespace posenc
