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
 */
#ifndef POSENC_POSENC_H
#define POSENC_POSENC_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define POSENC_API
#elif defined(__GNUC__) || defined(__clang__)
#define POSENC_API __attribute__((visibility("default")))
#else
#define POSENC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================== */
/* Runtime                                                                                   */
/* ======================================================================================== */

/** Status returned by every posenc function. */
typedef enum {
  POSENC_OK = 0,                   /**< success */
  POSENC_ERR_NULL_POINTER = 1,     /**< a required pointer argument was NULL */
  POSENC_ERR_INVALID_ARGUMENT = 2, /**< an argument broke a documented rule (range, parity, ...) */
  POSENC_ERR_UNSUPPORTED = 3,      /**< requested ISA not available / POSENC_ISA names one that
                                        this CPU cannot run */
  POSENC_ERR_OUT_OF_MEMORY = 4,    /**< an internal allocation failed */
  POSENC_ERR_SIZE_OVERFLOW = 5,    /**< a size product (e.g. n * dim) overflows int64_t/size_t */
  POSENC_ERR_NOT_CONVERGED = 6,    /**< an iterative solver did not converge */
  POSENC_ERR_INTERNAL = 7,         /**< a bug in posenc; please report it */
  POSENC_STATUS_MAX_ENUM_ = 0x7fffffff /**< not a status: makes the enum 32-bit wide */
} posenc_status;

/** Static English name of a status, e.g. "POSENC_ERR_NULL_POINTER"; "unknown status" for values
 *  outside the enum. Never NULL. */
POSENC_API const char* posenc_status_string(posenc_status s);

/** Thread-local message of the last failed posenc call on this thread: one sentence naming the
 *  argument and the rule, e.g. "posenc_sinusoidal_f32: dim must be even and > 0 (got 7)".
 *  Every call clears it on entry, so after a successful call it is "" (never NULL). The pointer
 *  stays valid until the next posenc call on the same thread. */
POSENC_API const char* posenc_last_error_message(void);

/** Library version as MAJOR*10000 + MINOR*100 + PATCH (0.1.0 -> 100). */
POSENC_API uint32_t posenc_version(void);
/** Library version as "MAJOR.MINOR.PATCH". Never NULL. */
POSENC_API const char* posenc_version_string(void);

/** Instruction-set paths. Values are bits so that posenc_isa_available() can be a mask. */
typedef enum {
  POSENC_ISA_AUTO = 0,   /**< best available: avx512 > avx2 > scalar on x86-64, neon > scalar on aarch64 */
  POSENC_ISA_SCALAR = 1, /**< portable C++ built with baseline flags; the reference path */
  POSENC_ISA_AVX2 = 2,   /**< x86-64 AVX2 + FMA */
  POSENC_ISA_AVX512 = 4, /**< x86-64 AVX-512 F+DQ+BW+VL */
  POSENC_ISA_NEON = 8,   /**< aarch64 Advanced SIMD */
  POSENC_ISA_MAX_ENUM_ = 0x7fffffff /**< not an ISA: makes the enum 32-bit wide */
} posenc_isa;

/** Bitmask of the ISA paths that are both compiled into this library and runnable on this CPU
 *  (checked with __builtin_cpu_supports, which includes the OS's register-state support).
 *  POSENC_ISA_SCALAR is always set. */
POSENC_API uint32_t posenc_isa_available(void);

/** The ISA path the kernels use now (never POSENC_ISA_AUTO). If the environment variable
 *  POSENC_ISA named a path that cannot run here, this returns the path it named; every kernel
 *  call then fails with POSENC_ERR_UNSUPPORTED until posenc_isa_set() is called. */
POSENC_API posenc_isa posenc_isa_active(void);

/** Select the ISA path for all later calls in this process. POSENC_ISA_AUTO picks the best
 *  available one. Errors: POSENC_ERR_UNSUPPORTED if isa is not in posenc_isa_available(),
 *  POSENC_ERR_INVALID_ARGUMENT if it is not a posenc_isa value; the active ISA is then unchanged.
 *  A successful call also clears an error left by an unusable POSENC_ISA value.
 *  Thread-safe; calls already running finish on the path they started with. */
POSENC_API posenc_status posenc_isa_set(posenc_isa isa);

/** "scalar", "avx2", "avx512", "neon" or "auto"; "unknown" for other values. Never NULL. */
POSENC_API const char* posenc_isa_name(posenc_isa isa);

/** Number of worker threads (a oneTBB task_arena) used by every later call; 0 = all hardware
 *  threads. Errors: POSENC_ERR_INVALID_ARGUMENT if n < 0 or n > 4096. Results never depend on the
 *  thread count: work is tiled by problem size only. */
POSENC_API posenc_status posenc_threads_set(int32_t n);
/** The current worker-thread count (>= 1). */
POSENC_API int32_t posenc_threads_get(void);

/* Environment, read once at first use:
 *   POSENC_ISA=scalar|avx2|avx512|neon|auto   initial ISA path (case-insensitive). An unknown
 *       name or a path this CPU cannot run never silently falls back: kernel calls return
 *       POSENC_ERR_UNSUPPORTED with a message naming POSENC_ISA until posenc_isa_set() is called.
 *   POSENC_NUM_THREADS=n                       initial thread count (0 or unset = all). */

/* ======================================================================================== */
/* rope — S¹: RoPE frequencies, cos/sin, rotation, sinusoidal tables, decay                  */
/* ======================================================================================== */

/* @@ROPE-BEGIN@@ (section owned by the rope family) */

/** Layout of a sinusoidal table row. */
typedef enum {
  POSENC_SINUSOIDAL_INTERLEAVED = 0, /**< Vaswani et al. 2017 §3.5: out[p, 2i] = sin(p w_i),
                                          out[p, 2i+1] = cos(p w_i) */
  POSENC_SINUSOIDAL_HALVES = 1,      /**< tensor2tensor / fairseq: [sin(p w_0..) | cos(p w_0..)] */
  POSENC_SINUSOIDAL_LAYOUT_MAX_ENUM_ = 0x7fffffff /**< not a layout: makes the enum 32-bit wide */
} posenc_sinusoidal_layout;

/** Sinusoidal absolute position table (Vaswani et al. 2017, §3.5).
 *
 *  out: [n, dim] float32, row i for position positions[i] (or i when positions is NULL);
 *  w_i = base^(-2i/dim) radians per position, i = 0 .. dim/2-1, evaluated in float64.
 *  The phase p*w_i is formed exactly (double-double product, reduction modulo 2*pi in turns) and
 *  sin/cos are evaluated by a polynomial on the reduced argument in float64, then rounded to
 *  float32. Accuracy: max abs error <= 2e-7 (observed <= 6e-8, i.e. float32 rounding) against
 *  float64 sin/cos of the exactly reduced phase, for |position| <= 2^24; positions up to 2^53
 *  remain exact in the phase. Unlike fp32-phase implementations (error 1e-2 at 128K, see
 *  docs/ACCURACY.md) the error does not grow with the position.
 *
 *  Errors: NULL_POINTER (out NULL while n > 0); INVALID_ARGUMENT (n < 0, dim odd or <= 0,
 *  base <= 0 or not finite, layout not a posenc_sinusoidal_layout); SIZE_OVERFLOW (n * dim
 *  overflows). n == 0 is a no-op. */
POSENC_API posenc_status posenc_sinusoidal_f32(const int64_t* positions, int64_t n, int32_t dim,
                                               double base, posenc_sinusoidal_layout layout,
                                               float* out);

/* @@ROPE-END@@ */

/* ======================================================================================== */
/* sphere — S²: associated Legendre, spherical harmonics, addition theorem, Wigner-D         */
/* ======================================================================================== */

/* @@SPHERE-BEGIN@@ (section owned by the sphere family) */
/* @@SPHERE-END@@ */

/* ======================================================================================== */
/* features — Bochner: random Fourier / positive / PFF features, linear attention            */
/* ======================================================================================== */

/* @@FEATURES-BEGIN@@ (section owned by the features family) */
/* @@FEATURES-END@@ */

/* ======================================================================================== */
/* graph — Laplacian eigenvector PE, random-walk structural encodings                        */
/* ======================================================================================== */

/* @@GRAPH-BEGIN@@ (section owned by the graph family) */
/* @@GRAPH-END@@ */

/* ======================================================================================== */
/* learned — learned position tables as parameters                                           */
/* ======================================================================================== */

/* @@LEARNED-BEGIN@@ (section owned by the learned family) */
/* @@LEARNED-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_POSENC_H */
