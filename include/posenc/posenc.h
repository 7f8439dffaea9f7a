// SPDX-License-Identifier: Apache-2.0 OR MIT
/*
 * posenc.h — the C ABI of posenc, a library of positional-encoding kernels.
 *
 * This is the one header a C (C99), C++, Rust or Python (ctypes) caller needs.
 *
 * Conventions (see docs/CONVENTIONS.md):
 *  - Every enum ends with a *_MAX_ENUM_ = 0x7fffffff member (as Vulkan does) so that any int32
 *    value is a valid value of the enum type in C and C++; out-of-range values are rejected
 *    with POSENC_ERR_INVALID_ARGUMENT.
 *  - Every function returns posenc_status; nothing throws or aborts across the boundary. On any
 *    status other than POSENC_OK, posenc_last_error_message() gives a thread-local sentence that
 *    names the offending argument and the rule it broke.
 *  - All arguments are validated before any output is written: on error every output buffer,
 *    including in-place buffers, is exactly as it was.
 *  - Arrays are row-major, element counts and strides are int64_t (strides in elements); shapes
 *    are written as [n, k]. Pointers need only the natural alignment of their element type.
 *  - Parameter structs start with uint32_t struct_size and have an _init function.
 *  - Results are bitwise identical for any thread count; different ISA paths agree within the
 *    documented accuracy bound of each function.
 *  - Every function may be called concurrently from many threads on different outputs.
 *
 * The declarations are in one header per section, each of which compiles alone (C99 and C++);
 * this header includes all of them, in this order:
 *   posenc/runtime.h    status codes, error message, version, ISA dispatch, threads; POSENC_API
 *   posenc/profiling.h  verbose lines, Chrome/Perfetto trace, call records, machine roofline
 *   posenc/rope.h       S¹: RoPE frequencies, cos/sin, rotation, sinusoidal tables, decay
 *   posenc/sphere.h     S²: associated Legendre, spherical harmonics, addition theorem, Wigner-D
 *   posenc/features.h   Bochner: random Fourier / positive / PFF features, linear attention
 *   posenc/graph.h      Laplacian eigenvector PE, random-walk structural encodings
 *   posenc/learned.h    learned position tables as parameters
 */
#ifndef POSENC_POSENC_H
#define POSENC_POSENC_H

#include "posenc/runtime.h"
#include "posenc/profiling.h"
#include "posenc/rope.h"
#include "posenc/sphere.h"
#include "posenc/features.h"
#include "posenc/graph.h"
#include "posenc/learned.h"

#endif /* POSENC_POSENC_H */
