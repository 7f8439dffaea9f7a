// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/simd/isa.hpp — per-ISA extensions of the vocabulary of kernels/simd.hpp: the
// intrinsics and transposes that kernels would otherwise write in #if POSENC_ISA_* blocks.
// This file is the only place that picks the ISA; algorithms include it and stay free of
// preprocessor conditionals (tuning decisions that depend on the ISA read vx::kIsa in constexpr
// code). Everything is in posenc::POSENC_NS::vx; every ISA file defines every name:
//
//   kIsa                      isa_id of this translation unit
//   kHasStream                true where non-temporal stores exist (x86)
//   kHasXyzBad, xyz_bad_block(q)  nonzero if the 3 width<T> elements at q hold inf / NaN or a
//                             point (0, 0, 0); kHasXyzBad: a vector form (AVX-512, AVX2; else
//                             element by element, and the check keeps its own vector loop)
//   V, VF, W, WF, kHalves     vec<double>, vec<float>, their widths, WF / W
//   transpose(V* r)           in-place W x W transpose
//   rsqrt(a)                  1 / sqrt(a) (<= 2 ulp)
//   kLookupN, lookup(tab, t)  tab[k mod kLookupN] lane by lane, k in the low mantissa bits of
//                             t = k + 1.5 2^52: AVX-512 16 entries, AVX2 8 (permutes); 0 on
//                             scalar and NEON (there lookup reads tab[k mod 16] from memory)
//   gather3(q, pstride)       q[0], q[3 pstride], ... as a V (TI = float or double)
//   deinterleave2(q, a, b)    a = q[0], q[2], ..., q[2W-2]; b = q[1], q[3], ..., q[2W-1]
//   deinterleave3(q, x, y, z) x = q[0], q[3], ..., y = q[1], q[4], ..., z = q[2], q[5], ... of
//                             the 3W contiguous elements at q, as doubles (TI = float or double)
//   pack4n<NG>(const V* f, V* o)  the 4 NG W values f[k] lane p (4 NG features of W points) in
//                             the order p 4 NG + k, as the 4 NG vectors o[0..4 NG)
//   pack4n_c0<NG>(f, o)       pack4n where f[4 g] is the same lane-uniform vector for every g
//   fpack4n<NG>(const VF* f, VF* o)  the same for 4 NG float features of WF points
//   narrow(const V* h)        kHalves double vectors rounded into one float vector
//   widen(vf, h)              lanes [W h, W h + W) of a float vector as doubles
//   copy_line<NT>(d, s)       one aligned 64-byte line, non-temporal when NT and kHasStream
//   vec_stream, kVecStream    whole double vectors put in address order from an 8-byte aligned
//                             start (begin, put, finish): aligned non-temporal stores, lines
//                             joined across vectors by permutes where the start is mid-line,
//                             where kVecStream (AVX-512, AVX2); ordinary stores elsewhere
//   store_fence()             orders non-temporal stores before later stores
//   lines<TO>                 one 64-byte line of TO: LV (its register type), unit (elements),
//                             full(a, v, nt), masked(a, mask, v), blend(mask, a, b)
//   line_rows<R>(src, LV* v)  the lines of R rows from `unit` features held feature-major
//                             (feature k of row p at src[R k + p]); R as each ISA file states
//   ftile_rows(src, VF* r)    WF x WF transpose of float features (src + WF i: feature i)
//   store_first(d, vf, c)     the first c lanes of a float vector
//   load_transpose(src, V* r) W aligned loads and transpose() (portable.hpp, for every ISA)
#pragma once

#include "kernels/simd.hpp"

#if defined(POSENC_ISA_SCALAR)
#include "kernels/simd/scalar.hpp"
#elif defined(POSENC_ISA_AVX2)
#include "kernels/simd/avx2.hpp"
#elif defined(POSENC_ISA_AVX512)
#include "kernels/simd/avx512.hpp"
#elif defined(POSENC_ISA_NEON)
#include "kernels/simd/neon.hpp"
#else
#error "unknown POSENC_ISA_*"
#endif
