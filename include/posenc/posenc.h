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

/** Compile-time version of this header (Semantic Versioning; CHANGELOG.md, docs/VERSIONING.md).
 *  posenc_version() is the version of the library loaded at run time: a program built against
 *  this header may compare the two (POSENC_VERSION_NUMBER == posenc_version()). The build reads
 *  the version from these three lines, so they are the one place it is written. */
#define POSENC_VERSION_MAJOR 0
#define POSENC_VERSION_MINOR 1
#define POSENC_VERSION_PATCH 0
/** MAJOR*10000 + MINOR*100 + PATCH, the encoding of posenc_version(). */
#define POSENC_VERSION_NUMBER (POSENC_VERSION_MAJOR * 10000 + POSENC_VERSION_MINOR * 100 + POSENC_VERSION_PATCH)
#define POSENC_VERSION_STR_(x) #x
#define POSENC_VERSION_XSTR_(x) POSENC_VERSION_STR_(x)
/** "MAJOR.MINOR.PATCH", the string posenc_version_string() returns. */
#define POSENC_VERSION_STRING                                                    \
  POSENC_VERSION_XSTR_(POSENC_VERSION_MAJOR) "." POSENC_VERSION_XSTR_(POSENC_VERSION_MINOR) "." \
  POSENC_VERSION_XSTR_(POSENC_VERSION_PATCH)

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
 *  thread count: work is tiled by problem size only. The initial count comes from the environment
 *  variable POSENC_NUM_THREADS (a whole number in 0..4096; unset or empty = 0); any other value
 *  makes every kernel call fail with POSENC_ERR_INVALID_ARGUMENT and a message naming the
 *  variable, until a successful posenc_threads_set. */
POSENC_API posenc_status posenc_threads_set(int32_t n);
/** The current worker-thread count (>= 1). */
POSENC_API int32_t posenc_threads_get(void);

/* Environment, read once at first use:
 *   POSENC_ISA=scalar|avx2|avx512|neon|auto   initial ISA path (case-insensitive). An unknown
 *       name or a path this CPU cannot run never silently falls back: kernel calls return
 *       POSENC_ERR_UNSUPPORTED with a message naming POSENC_ISA until posenc_isa_set() is called.
 *   POSENC_NUM_THREADS=n                       initial thread count (0 or unset = all). */

/* ======================================================================================== */
/* profiling — verbose lines, Chrome/Perfetto trace, call records, machine roofline          */
/* ======================================================================================== */

/* @@PROFILING-BEGIN@@ (section owned by profiling; docs/PROFILING.md is the user guide) */

/** Verbose level for all threads (the model is oneDNN's ONEDNN_VERBOSE):
 *   0  off (default): a call costs one relaxed atomic load more than without this feature;
 *   1  errors: one line per failing call, "posenc_verbose,error,<function>,<isa>,<status>,<message>";
 *   2  also one line per successful call:
 *      "posenc_verbose,exec,<function>,<isa>,<path>,threads=<n>,<shape>,<ms>,<rate>,<roofline>"
 *      <path> names the implementation branch taken (docs/PROFILING.md lists every name),
 *      <shape> is space-separated name=value items (never a comma), <ms> the wall time of the
 *      call in milliseconds, <rate> "<x>GB/s" or "<x>GFLOP/s" (the one that bounds the call on
 *      the roofline, from the modelled bytes and flops of the path taken; "-" when the function
 *      has no model) and <roofline> "<p>%" of the attainable rate min(FMA peak, intensity x
 *      memcpy bandwidth) measured on this machine for the call's ISA and thread count ("-"
 *      without a model). The first level-2 line of an ISA / thread count measures that roofline
 *      (about 0.1 s, once; posenc_roofline_measure). Level 2 starts with "posenc_verbose,info,..."
 *      lines (version, ISAs, the column names).
 *  Lines go to stderr or to the callback of posenc_verbose_callback_set. Lines for stderr are
 *  buffered like stdio's: at once when stderr is a terminal, else in 4 KB blocks, and at once for
 *  error lines, level or sink changes and process exit.
 *  Every function that returns posenc_status is logged, except posenc_last_call_info. The
 *  environment variable POSENC_VERBOSE=0|1|2, read when the library is loaded, sets the initial
 *  level; an API call overrides it. Errors: INVALID_ARGUMENT if level is not 0, 1 or 2 (the
 *  level is then unchanged). Thread-safe. */
POSENC_API posenc_status posenc_verbose_set(int32_t level);
/** The current verbose level (0, 1 or 2). */
POSENC_API int32_t posenc_verbose_get(void);

/** Receives one verbose line (NUL-terminated, no trailing newline) and the user pointer. */
typedef void (*posenc_verbose_fn)(const char* line, void* user);
/** Sends verbose lines to fn(line, user) instead of stderr; fn NULL restores stderr. Calls of fn
 *  are serialized (never two at once); fn may run on any thread that calls posenc, must return,
 *  and must not call posenc functions (calls made from inside fn are not logged). Always
 *  succeeds (POSENC_OK). */
POSENC_API posenc_status posenc_verbose_callback_set(posenc_verbose_fn fn, void* user);

/** The record of one posenc call (see posenc_last_call_info). */
typedef struct {
  uint32_t struct_size;  /**< sizeof(posenc_call_info); set by posenc_call_info_init */
  posenc_status status;  /**< what the call returned */
  posenc_isa isa;        /**< the active ISA path when the call ended */
  int32_t threads;       /**< worker threads of the arena (posenc_threads_get) */
  int64_t tiles;         /**< tiles of the call's largest parallel section (0: no parallel section) */
  double seconds;        /**< wall time from entry to return */
  double bytes;          /**< modelled bytes read + written by the path taken (0: no model) */
  double flops;          /**< modelled floating-point operations of the path taken, FMA = 2
                              (0: no model) */
  int32_t flops_f32;     /**< 1: the flops are float32 operations, 0: float64 */
  const char* function;  /**< e.g. "posenc_rope_apply_f32" (static storage) */
  const char* path;      /**< implementation branch, e.g. "rope.apply.neox" (static storage) */
  char shape[128];       /**< the shape field of the verbose line, NUL-terminated */
} posenc_call_info;

/** Fills *info with zeros and struct_size. NULL_POINTER if info is NULL. */
POSENC_API posenc_status posenc_call_info_init(posenc_call_info* info);

/** Copies the record of the last call that ended on this thread while profiling was on (verbose
 *  level >= 1 or a trace running) into *info (whose struct_size must be set by
 *  posenc_call_info_init). This function itself is not recorded or logged.
 *  Errors: NULL_POINTER (info NULL); INVALID_ARGUMENT (struct_size wrong); UNSUPPORTED (no call
 *  has been recorded on this thread). */
POSENC_API posenc_status posenc_last_call_info(posenc_call_info* info);

/** Machine limits for the roofline of one ISA path and thread count. */
typedef struct {
  uint32_t struct_size;        /**< sizeof(posenc_roofline); set by posenc_roofline_init */
  posenc_isa isa;              /**< the path measured (never AUTO) */
  int32_t threads;             /**< threads that ran at once */
  double memcpy_bytes_per_s;   /**< bytes read + written per second by memcpy of 32 MiB
                                    buffers split over the threads (best of 5) */
  double fma_flops_per_s_f64;  /**< float64 flop/s of 12 independent multiply-add chains per
                                    thread at the ISA's vector width (best of 5; FMA = 2 flops).
                                    The scalar path, built with baseline flags that compilers
                                    vectorize to 16 bytes (SSE2, Advanced SIMD), is measured with
                                    16-byte vectors and an unfused multiply and add */
  double fma_flops_per_s_f32;  /**< the same in float32 */
  double seconds;              /**< time the measurement took */
} posenc_roofline;

/** Fills *r with zeros and struct_size. NULL_POINTER if r is NULL. */
POSENC_API posenc_status posenc_roofline_init(posenc_roofline* r);

/** Measures the roofline of `isa` (AUTO: the active path) with `threads` threads running at once
 *  (0: posenc_threads_get()); takes about 0.1 s per thread count and allocates 64 MiB for the
 *  time of the call. The multiply-add loops are posenc kernels compiled for each ISA path
 *  (kernels/peak.cpp), so the peak is that of the vector width posenc uses. A fresh measurement
 *  every call (repeat it to see the spread); verbose lines use the first one of each ISA and
 *  thread count. Errors: NULL_POINTER (out NULL); INVALID_ARGUMENT (struct_size wrong, isa not a
 *  posenc_isa, threads < 0 or > 4096); UNSUPPORTED (isa not in posenc_isa_available());
 *  OUT_OF_MEMORY. Nothing is written on error. */
POSENC_API posenc_status posenc_roofline_measure(posenc_isa isa, int32_t threads, posenc_roofline* out);

/** Starts writing a Chrome trace-event JSON file (the format Perfetto, ui.perfetto.dev, and
 *  chrome://tracing open) at path: one complete event ("ph": "X") per posenc call on the
 *  caller's thread (name = function, args: status, isa, path, threads, shape, bytes, flops,
 *  call id) and, for each tile of a parallel section, one event named "tile" on the thread that
 *  ran it (args: call id, function, tile index, tile count), inside its call's time span. Every
 *  event has ph, ts, dur (microseconds), pid and tid (the OS thread id). Events are buffered per
 *  thread and appended to the file as buffers fill; posenc_trace_stop (or the end of the
 *  process) completes the file, which is then valid JSON even when no call was made.
 *  The environment variable POSENC_TRACE=<file.json>, read when the library is loaded, starts a
 *  trace that is completed at exit. Errors: NULL_POINTER (path NULL); INVALID_ARGUMENT (a trace
 *  is already running: stop it first); UNSUPPORTED (the file cannot be created: the message
 *  names it and the OS reason). Thread-safe. */
POSENC_API posenc_status posenc_trace_start(const char* path);
/** Completes and closes the running trace file (events still being recorded by other threads at
 *  that moment are dropped). POSENC_OK, also when no trace is running. */
POSENC_API posenc_status posenc_trace_stop(void);

/* @@PROFILING-END@@ */

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
 *  float32; runs of consecutive positions (e.g. positions NULL) take float64 angle-addition steps
 *  from exact anchors re-taken at least every 16 positions (<= ~1e-14 before rounding).
 *  Accuracy: max abs error <= 2e-7 (observed <= 6e-8, i.e. float32 rounding) against
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

/** RoPE frequency scaling types (HF transformers `modeling_rope_utils.py` ROPE_INIT_FUNCTIONS,
 *  plus the vLLM forms HF lacks). Each defines inv_freq_j (radians per position, j = 0 ..
 *  rotary_dim/2-1) and an attention_factor that multiplies cos and sin. See
 *  posenc_rope_inv_freq for the formulas. */
typedef enum {
  POSENC_ROPE_DEFAULT = 0,  /**< Su et al. 2021 (RoFormer, arXiv 2104.09864): theta^(-2j/d) */
  POSENC_ROPE_LINEAR = 1,   /**< position interpolation (Chen et al. 2023, arXiv 2306.15595) */
  POSENC_ROPE_NTK = 2,      /**< static NTK-aware base (bloc97 2023) */
  POSENC_ROPE_DYNAMIC = 3,  /**< dynamic NTK (HF "dynamic"), or vLLM's dynamic alpha */
  POSENC_ROPE_YARN = 4,     /**< YaRN (Peng et al. 2023, arXiv 2309.00071) */
  POSENC_ROPE_LONGROPE = 5, /**< LongRoPE / Phi-3 (Ding et al. 2024, arXiv 2402.13753) */
  POSENC_ROPE_LLAMA3 = 6,   /**< Llama 3.1 band-wise scaling (Meta, HF "llama3") */
  POSENC_ROPE_PROPORTIONAL = 7, /**< HF "proportional" partial rotary (Gemma 4 full-attention layers) */
  POSENC_ROPE_NTK_VLLM = 8, /**< vLLM "ntk" (NTKScalingRotaryEmbedding: fixed, or mixed with mixed_b) */
  POSENC_ROPE_TYPE_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rope_type;

/** Which channels of a head form a rotation pair. */
typedef enum {
  POSENC_ROPE_NEOX = 0,       /**< pairs (x[j], x[j + rotary_dim/2]): HF rotate_half, vLLM is_neox=True,
                                   FlashAttention interleaved=False */
  POSENC_ROPE_INTERLEAVED = 1, /**< pairs (x[2j], x[2j+1]): GPT-J, Meta's Llama reference, ggml NORMAL */
  POSENC_ROPE_LAYOUT_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rope_layout;

/** Position axes: which position of a token rotates rotary pair j (j = 0 .. rotary_dim/2-1).
 *  The frequency of pair j is inv_freq_j of the scaling type in every mode except AXIAL. */
typedef enum {
  POSENC_ROPE_AXES_1D = 0,    /**< one position per token: positions [num_tokens] */
  /** M-RoPE, chunked sections (Qwen2-VL, Qwen2.5-VL; HF apply_multimodal_rotary_pos_emb, vLLM
   *  MRotaryEmbedding with mrope_interleaved=False): positions [3, num_tokens] (temporal, height,
   *  width); pair j takes axis 0 for j < sections[0], axis 1 for j < sections[0] + sections[1],
   *  axis 2 otherwise. sections[0..2] >= 0 sum to rotary_dim/2, sections[3] == 0. */
  POSENC_ROPE_AXES_MROPE = 1,
  /** M-RoPE, interleaved sections (Qwen3-VL; HF apply_interleaved_mrope, vLLM
   *  mrope_interleaved=True): positions [3, num_tokens]; pair j takes axis 1 when j % 3 == 1 and
   *  j < 3 sections[1], axis 2 when j % 3 == 2 and j < 3 sections[2], axis 0 otherwise. Sections
   *  as for AXES_MROPE. */
  POSENC_ROPE_AXES_MROPE_INTERLEAVED = 2,
  /** Axial RoPE of vision transformers: positions [num_tokens, n] (n = number of leading
   *  non-zero sections, 1..4; for images (row, col)); pairs come in n consecutive sections of
   *  sections[a] pairs, all of section a rotated by axis a, and each section has its own
   *  frequency ladder: the scaling type's inv_freq for rotary_dim 2*sections[a], indexed from 0
   *  within the section (arrays such as freq_factors stay indexed by the global pair j).
   *  Conventions: Qwen2-VL / Qwen2.5-VL vision tower: NEOX over the whole head,
   *  sections (head_dim/4, head_dim/4), theta 10000; EVA-02: INTERLEAVED, sections
   *  (head_dim/4, head_dim/4), fine-tuned grids as LINEAR with factor ft_seq_len/pt_seq_len;
   *  FLUX: INTERLEAVED, three axes (text index, row, col) with axes_dim/2 = (8, 28, 28). */
  POSENC_ROPE_AXES_AXIAL = 3,
  POSENC_ROPE_AXES_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rope_axes;

/** RoPE parameters. Fill with posenc_rope_params_init, then set the fields of the chosen type.
 *  Lengths are in positions (tokens). Field names follow HF transformers' rope_scaling config.
 *  ABI: the struct only grows at the end. A caller compiled against posenc 0.1, whose struct
 *  ends after long_factor (struct_size == POSENC_ROPE_PARAMS_SIZE_V1, 128 bytes on LP64), keeps
 *  working: the fields it does not have take their defaults. */
typedef struct {
  uint32_t struct_size;          /**< set by _init: sizeof(posenc_rope_params), or
                                      POSENC_ROPE_PARAMS_SIZE_V1 from a 0.1 caller */
  posenc_rope_type type;         /**< scaling type */
  int32_t rotary_dim;            /**< d: rotated channels per head, even, > 0 (> 2 for NTK/DYNAMIC);
                                      for PROPORTIONAL the whole head_dim */
  double theta;                  /**< base, finite, > 0 (> 1 for YARN) */
  double factor;                 /**< s, finite, > 0 (HF accepts s < 1 with a warning); default 1
                                      (unused by DEFAULT) */
  int64_t original_max_position; /**< L: original context (YARN, LONGROPE >= 2, LLAMA3), or
                                      max_position_embeddings (DYNAMIC); > 0 where used; default 0 */
  int64_t seq_len;               /**< current length (DYNAMIC, LONGROPE); 0 = L; >= 0 */
  double low_freq_factor;        /**< LLAMA3; default 1; finite, > 0 */
  double high_freq_factor;       /**< LLAMA3; default 4; finite, >= low_freq_factor (equal: vLLM's
                                      rule, the smooth band is empty) */
  double beta_fast;              /**< YARN; default 32; finite, > beta_slow */
  double beta_slow;              /**< YARN; default 1; finite, > 0 */
  double mscale;                 /**< YARN; default 0 = unused; finite, >= 0 */
  double mscale_all_dim;         /**< YARN; default 0 = unused; finite, >= 0 */
  double attention_factor;       /**< 0 = derive from type; else (finite, > 0) used as given */
  int32_t truncate;              /**< YARN: 1 (default) floors/ceils the correction range, 0 does not */
  const double* short_factor;    /**< LONGROPE: [rotary_dim/2] finite > 0, used when seq_len <= L */
  const double* long_factor;     /**< LONGROPE: [rotary_dim/2] finite > 0, used when seq_len > L */
  /* ---- added in posenc 0.2 (absent when struct_size == POSENC_ROPE_PARAMS_SIZE_V1) ---- */
  posenc_rope_axes axes;         /**< position axes; default POSENC_ROPE_AXES_1D */
  int32_t sections[4];           /**< pairs per axis for M-RoPE / AXIAL (see posenc_rope_axes);
                                      default 0; ignored for AXES_1D */
  double partial_rotary_factor;  /**< PROPORTIONAL: fraction of the head rotated, in [0, 1]; default 1 */
  double extrapolation_factor;   /**< YARN: vLLM extrapolation_factor / ggml ext_factor, finite,
                                      >= 0; default 1 (HF: always 1) */
  double attn_factor;            /**< YARN: vLLM / ggml attn_factor, multiplies the derived
                                      attention factor; finite, > 0; default 1 */
  double mixed_b;                /**< NTK_VLLM: 0 (default) = fixed NTK, > 0 = mixed NTK exponent b */
  double alpha;                  /**< DYNAMIC: 0 (default) = HF dynamic NTK; > 0 = vLLM / Hunyuan
                                      DynamicNTKAlpha, theta' = theta alpha^(d/(d-2)); finite, >= 0 */
  const double* freq_factors;    /**< NULL (default) or [rotary_dim/2] finite > 0: ggml rope_freqs,
                                      divides theta^(-2j/d) before the type's scaling (all types) */
  int32_t seq_len_from_positions; /**< 1: each apply / cos_sin call sets seq_len = max(position) + 1
                                      over its positions (HF dynamic_rope_update, DYNAMIC and
                                      LONGROPE); 0 (default): seq_len as given */
} posenc_rope_params;

/** struct_size of a posenc 0.1 caller's posenc_rope_params (the fields up to long_factor). */
#define POSENC_ROPE_PARAMS_SIZE_V1 ((uint32_t)offsetof(posenc_rope_params, axes))

/** Fills *p with the defaults of every field (factor 1, original_max_position 0, seq_len 0,
 *  low/high_freq_factor 1/4, beta_fast/slow 32/1, mscale/mscale_all_dim/attention_factor 0,
 *  truncate 1, short/long_factor NULL, axes 1D, sections 0, partial_rotary_factor 1,
 *  extrapolation_factor 1, attn_factor 1, mixed_b 0, alpha 0, freq_factors NULL,
 *  seq_len_from_positions 0) and the given type, rotary_dim and theta.
 *  Errors: NULL_POINTER (p NULL); INVALID_ARGUMENT (type not a posenc_rope_type, rotary_dim odd
 *  or <= 0, theta not finite or <= 0). On error *p is untouched. */
POSENC_API posenc_status posenc_rope_params_init(posenc_rope_params* p, posenc_rope_type type,
                                                 int32_t rotary_dim, double theta);

/** RoPE frequencies and attention factor, in float64, as HF transformers
 *  modeling_rope_utils.py (_compute_*_parameters) and, where named, vLLM's rotary_embedding/.
 *  With d = rotary_dim, j = 0 .. d/2-1, inv_j = theta^(-2j/d) / ff_j (evaluated as
 *  1 / (theta^(2j/d) ff_j); ff = freq_factors, 1 when NULL), s = factor, L = original_max_position:
 *   - DEFAULT:  inv_j;                                   attention_factor 1
 *   - LINEAR:   inv_j / s;                               1
 *   - NTK:      theta' = theta * s^(d/(d-2));            1
 *   - DYNAMIC:  L' = max(seq_len, L), theta' = theta * (s L'/L - (s-1))^(d/(d-2));  1.
 *               With alpha > 0 (vLLM DynamicNTKAlphaRotaryEmbedding): theta' = theta
 *               alpha^(d/(d-2)) for every seq_len (factor unused)
 *   - YARN:     corr(r) = d ln(L/(2 pi r)) / (2 ln theta); low = floor(corr(beta_fast)),
 *               high = ceil(corr(beta_slow)) (no rounding when truncate = 0), clamped to
 *               [0, d-1]; high += 0.001 when low == high; ramp_j = clamp((j-low)/(high-low), 0, 1);
 *               mask_j = (1 - ramp_j) e with e = extrapolation_factor (vLLM; HF: e = 1);
 *               inv'_j = (inv_j/s)(1 - mask_j) + inv_j mask_j;
 *               attention_factor = a mscale(s, mscale)/mscale(s, mscale_all_dim) when both are
 *               set, else a mscale(s, 1), with mscale(s, m) = 0.1 m ln s + 1 (1 when s <= 1) and
 *               a = attn_factor (vLLM, ggml; HF: a = 1)
 *   - LONGROPE: inv'_j = 1 / (ext_j theta^(2j/d) ff_j), ext = long_factor if seq_len > L else
 *               short_factor; attention_factor sqrt(1 + ln s / ln L) (1 when s <= 1)
 *   - LLAMA3:   wavelen_j = 2 pi / inv_j; kept when wavelen_j < L/high_freq_factor, divided by s
 *               when wavelen_j > L/low_freq_factor, else with smooth = (L/wavelen_j - lf)/(hf - lf)
 *               (0 when lf == hf, vLLM) inv'_j = (1 - smooth) inv_j/s + smooth inv_j;
 *               attention_factor 1
 *   - PROPORTIONAL: n = floor(partial_rotary_factor d / 2) rotated pairs: inv'_j = inv_j / s for
 *               j < n, 0 (cos 1, sin 0: channels unchanged) for j >= n; attention_factor 1.
 *               d is the whole head_dim (HF _compute_proportional_rope_parameters)
 *   - NTK_VLLM: mixed_b = 0: inv'_j = (theta s)^(-2j/d) / (s^(2/d) ff_j); mixed_b = b > 0:
 *               inv'_j = inv_j / s^(((j+1)/(d/2))^b)  (vLLM NTKScalingRotaryEmbedding); 1
 *  For AXES_AXIAL the formula runs once per section a with d = 2 sections[a] (see
 *  posenc_rope_axes). A non-zero p->attention_factor replaces the derived one for every type.
 *  inv_freq: [rotary_dim/2] radians per position. attention_factor may be NULL.
 *  Accuracy: a few ulp of float64 evaluation of the formulas above.
 *  Errors: NULL_POINTER (p or inv_freq NULL); INVALID_ARGUMENT (struct_size neither
 *  sizeof(posenc_rope_params) nor POSENC_ROPE_PARAMS_SIZE_V1, any field out of the range
 *  documented in posenc_rope_params, longrope factors or freq_factors missing or not finite > 0,
 *  sections that do not sum to rotary_dim/2); the message names the field. Nothing is written
 *  on error. */
POSENC_API posenc_status posenc_rope_inv_freq(const posenc_rope_params* p, double* inv_freq,
                                              double* attention_factor);

/** cos/sin table for RoPE: cos_out[i, j] = a * cos(x_ij * inv_freq_j),
 *  sin_out[i, j] = a * sin(x_ij * inv_freq_j), a = attention_factor, both [n, rotary_dim/2]
 *  float32 row-major (the vLLM/FlashInfer cos_sin_cache layout split in two arrays; for M-RoPE
 *  the per-pair selection of HF / vLLM already applied), x_ij = the position of row i on the
 *  axis of pair j (posenc_rope_axes). positions: [n] (AXES_1D; NULL = 0 .. n-1), [3, n] (M-RoPE)
 *  or [n, axes] (AXIAL); every |position| <= 2^53. With p->seq_len_from_positions, seq_len =
 *  max(position) + 1 over this call's positions.
 *  Method: inv_freq in float64 (posenc_rope_inv_freq), phase reduced exactly in turns
 *  (double-double), float64 polynomial; for AXES_1D, runs of consecutive positions use float64
 *  angle-addition steps from exact anchors taken at least every 16 positions. Accuracy: max abs
 *  error <= 2e-7 * a for |position| <= 2^24 (observed <= 6e-8 * a, the float32 rounding),
 *  against float64 cos/sin of the exactly reduced phase; positions up to 2^53 stay exact in the
 *  phase.
 *  Errors: those of posenc_rope_inv_freq; INVALID_ARGUMENT (n < 0, |position| > 2^53);
 *  NULL_POINTER (cos_out/sin_out NULL while n > 0, positions NULL with M-RoPE / AXIAL);
 *  SIZE_OVERFLOW (n * rotary_dim/2). */
POSENC_API posenc_status posenc_rope_cos_sin_f32(const posenc_rope_params* p, const int64_t* positions,
                                                 int64_t n, float* cos_out, float* sin_out);

/** Rotary position embedding applied in place (Su et al. 2021, RoFormer eq. 34; HF
 *  apply_rotary_pos_emb; M-RoPE: HF apply_multimodal_rotary_pos_emb, vLLM MRotaryEmbedding).
 *  q: [num_tokens, num_q_heads, head_dim], k: [num_tokens, num_k_heads, head_dim] (GQA: any
 *  num_k_heads), token i of q at q + i*q_token_stride (elements; 0 = packed =
 *  num_q_heads*head_dim, else >= num_q_heads*head_dim: e.g. rows of a fused QKV buffer), same
 *  for k; heads of a token are head_dim apart (posenc_rope_apply_strided takes any head, token
 *  and batch strides). k may be NULL (then num_k_heads must be 0). positions: [num_tokens]
 *  (AXES_1D), [3, num_tokens] (M-RoPE) or [num_tokens, axes] (AXIAL), see posenc_rope_axes.
 *  Channels [0, rotary_dim) of each head are rotated in pairs given by layout (rotary_dim =
 *  p->rotary_dim <= head_dim), channels >= rotary_dim are untouched. Each pair (a, b) at angle
 *  t = x*inv_freq_j (x the pair's position) becomes (a c - b s, a s + b c) with c = A cos t,
 *  s = A sin t, A = attention_factor, both rounded to float32 first; inverse != 0 uses -s
 *  instead (the transpose: the backward pass, FlashAttention conjugate=True; with A = 1 it
 *  undoes the forward rotation, in general it multiplies by A^2; posenc_rope_plan_rerotate
 *  divides by A). cos/sin are computed once per token (as posenc_rope_cos_sin_f32) and shared by
 *  all Q and K heads; each token's Q and K are rotated in the same pass. q and k must not overlap.
 *  Accuracy: float32 arithmetic on float32 cos/sin within 6e-8*A of exact: |error| <=
 *  4e-7 (|a| + |b|) max(A, 1) per element against a float64 rotation (asserted by the tests).
 *  Errors: those of posenc_rope_inv_freq; INVALID_ARGUMENT (layout, num_tokens < 0, head_dim
 *  < rotary_dim, heads < 0, stride < 0 or 0 < stride < heads*head_dim, |position| > 2^53);
 *  NULL_POINTER (positions or q NULL while needed, k NULL with num_k_heads > 0);
 *  SIZE_OVERFLOW (buffer extents). On error q and k are untouched. */
POSENC_API posenc_status posenc_rope_apply_f32(const posenc_rope_params* p, posenc_rope_layout layout,
                                               const int64_t* positions, int64_t num_tokens,
                                               int64_t head_dim, float* q, int64_t num_q_heads,
                                               int64_t q_token_stride, float* k, int64_t num_k_heads,
                                               int64_t k_token_stride, int32_t inverse);

/** As posenc_rope_apply_f32 with cos/sin rows read from a caller's table (vLLM / FlashInfer
 *  cos_sin_cache style): cos_table, sin_table [table_rows, rotary_dim/2] float32, row r holding
 *  the (already scaled) cos/sin of position r; token i uses row positions[i]. rotary_dim: even,
 *  > 0, <= head_dim. With a table from posenc_rope_cos_sin_f32 the result equals
 *  posenc_rope_apply_f32's bit for bit whenever both computed the same cos/sin values (always
 *  for non-consecutive positions and for runs starting at multiples of 16; else within one
 *  float32 ulp of cos/sin).
 *  Errors: INVALID_ARGUMENT (a position outside [0, table_rows), table_rows < 0, rotary_dim odd,
 *  <= 0 or > head_dim, and the apply rules above); NULL_POINTER (tables NULL while num_tokens >
 *  0). Positions are all checked before anything is touched. */
POSENC_API posenc_status posenc_rope_apply_cached_f32(const float* cos_table, const float* sin_table,
                                                      int64_t table_rows, int32_t rotary_dim,
                                                      posenc_rope_layout layout, const int64_t* positions,
                                                      int64_t num_tokens, int64_t head_dim, float* q,
                                                      int64_t num_q_heads, int64_t q_token_stride, float* k,
                                                      int64_t num_k_heads, int64_t k_token_stride,
                                                      int32_t inverse);

/** As posenc_rope_apply_f32 on bfloat16 storage: q and k hold bf16 bit patterns (the upper 16
 *  bits of an IEEE float32). Each element is widened to float32 exactly, rotated in float32 with
 *  the same float32 cos/sin, and rounded back to bf16 to nearest, ties to even (NaN stays a quiet
 *  NaN). Accuracy: the float32 result rounded once (<= 2^-9 relative per element).
 *  Errors and arguments: as posenc_rope_apply_f32. */
POSENC_API posenc_status posenc_rope_apply_bf16(const posenc_rope_params* p, posenc_rope_layout layout,
                                                const int64_t* positions, int64_t num_tokens,
                                                int64_t head_dim, uint16_t* q, int64_t num_q_heads,
                                                int64_t q_token_stride, uint16_t* k, int64_t num_k_heads,
                                                int64_t k_token_stride, int32_t inverse);

/** As posenc_rope_apply_f32 on IEEE 754 binary16 storage (fp16 bit patterns: torch.float16,
 *  numpy.float16, ggml F16). Each element is widened to float32 exactly (subnormals, infinities
 *  and NaNs included), rotated in float32 with the same float32 cos/sin, and rounded back to
 *  binary16 to nearest, ties to even (overflow to +-infinity, gradual underflow; a NaN stays a
 *  quiet NaN). The conversions are the hardware ones (VCVTPH2PS / VCVTPS2PH: F16C, which the
 *  AVX2 path requires and every AVX2 CPU has, and AVX-512F; no AVX-512-FP16; FCVTL/FCVTN on NEON;
 *  integer bit operations on the scalar path) and are exact under flush-to-zero modes.
 *  Accuracy: the float32 result rounded once (<= 2^-11 relative per element in the normal range).
 *  Errors and arguments: as posenc_rope_apply_f32. */
POSENC_API posenc_status posenc_rope_apply_f16(const posenc_rope_params* p, posenc_rope_layout layout,
                                               const int64_t* positions, int64_t num_tokens,
                                               int64_t head_dim, uint16_t* q, int64_t num_q_heads,
                                               int64_t q_token_stride, uint16_t* k, int64_t num_k_heads,
                                               int64_t k_token_stride, int32_t inverse);

/** Storage type of q and k in the strided / plan functions. */
typedef enum {
  POSENC_ROPE_F32 = 0,  /**< IEEE binary32 (float) */
  POSENC_ROPE_BF16 = 1, /**< bfloat16 bit patterns (uint16_t), as posenc_rope_apply_bf16 */
  POSENC_ROPE_F16 = 2,  /**< IEEE binary16 bit patterns (uint16_t), as posenc_rope_apply_f16 */
  POSENC_ROPE_DTYPE_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rope_dtype;

/** One strided Q or K operand of [batch, seq, num_heads, head_dim] logical shape: element
 *  (b, s, h, c) is at data + b*batch_stride + s*token_stride + h*head_stride + c (elements of
 *  the dtype; channels are contiguous). A zero stride means packed: head_stride 0 = head_dim,
 *  token_stride 0 = num_heads * head_stride, batch_stride 0 = seq * token_stride (after
 *  resolving the inner ones). Examples with B, S, H, D: [B, S, H, D] contiguous: all 0;
 *  HF's [B, H, S, D] (after transpose): head_stride S*D, token_stride D, batch_stride H*S*D;
 *  a fused QKV buffer [T, (Hq + 2 Hk) D] (batch 1, seq T): q = buf, k = buf + Hq*D, both with
 *  token_stride (Hq + 2 Hk) D. Strides must be >= 0 and, sorted by size, each at least the
 *  extent of the dimensions inside it (no two elements of the operand share an address). */
typedef struct {
  void* data;           /**< element (0, 0, 0, 0); may be NULL only when num_heads == 0 */
  int64_t num_heads;    /**< >= 0 */
  int64_t head_stride;  /**< elements between heads; 0 = head_dim */
  int64_t token_stride; /**< elements between consecutive tokens of a sequence; 0 = packed */
  int64_t batch_stride; /**< elements between sequences; 0 = packed */
} posenc_rope_operand;

/** A reusable RoPE plan: the validated parameters with inv_freq, its double-double phase
 *  increments and the attention factor derived once (per regime for LONGROPE), so that an
 *  apply call only computes cos/sin and rotates. Immutable after creation: one plan may be
 *  used by many threads at once. Opaque; create with posenc_rope_plan_create. */
typedef struct posenc_rope_plan posenc_rope_plan;

/** Creates a plan from *p (copied, including the arrays short_factor, long_factor and
 *  freq_factors: *p and its arrays may be freed after the call). *plan receives the new plan;
 *  release it with posenc_rope_plan_destroy.
 *  Errors: those of posenc_rope_inv_freq; NULL_POINTER (p or plan NULL); OUT_OF_MEMORY.
 *  On error *plan is untouched. */
POSENC_API posenc_status posenc_rope_plan_create(const posenc_rope_params* p, posenc_rope_plan** plan);

/** Releases a plan. NULL is a no-op. */
POSENC_API void posenc_rope_plan_destroy(posenc_rope_plan* plan);

/** The plan's inv_freq [rotary_dim/2] and attention factor for the regime of its seq_len
 *  (as posenc_rope_inv_freq on the params it was made from). attention_factor may be NULL.
 *  Errors: NULL_POINTER (plan or inv_freq NULL). */
POSENC_API posenc_status posenc_rope_plan_inv_freq(const posenc_rope_plan* plan, double* inv_freq,
                                                   double* attention_factor);

/** RoPE in place on strided Q/K of logical shape [batch, seq, heads, head_dim] (see
 *  posenc_rope_operand), any storage dtype, with a plan. The rotation, its accuracy and the
 *  meaning of layout and inverse are those of posenc_rope_apply_f32 (_bf16, _f16 for the other
 *  dtypes): results are bit-identical to those functions on the same values.
 *  positions: AXES_1D: [batch, seq] (NULL: every sequence has positions 0 .. seq-1); M-RoPE:
 *  [3, batch, seq]; AXIAL: [batch, seq, axes]. position_axes: the number of axes the caller's
 *  positions array has, which must be 1, 3 or the plan's number of sections respectively (a
 *  guard against passing one kind of positions to a plan of another). q or k may be NULL (no
 *  operand) or have num_heads 0. With seq_len_from_positions, seq_len = max(position) + 1 over
 *  all of this call's positions.
 *  Errors: INVALID_ARGUMENT (dtype, layout, position_axes, batch < 0, seq < 0, head_dim <
 *  rotary_dim, num_heads < 0, a stride < 0, strides that make two elements of an operand share
 *  an address (the message names the stride), |position| > 2^53); NULL_POINTER (plan NULL,
 *  positions NULL for M-RoPE / AXIAL, data NULL with num_heads > 0); SIZE_OVERFLOW (extents).
 *  On error q and k are untouched. */
POSENC_API posenc_status posenc_rope_plan_apply(const posenc_rope_plan* plan, posenc_rope_dtype dtype,
                                                posenc_rope_layout layout, const int64_t* positions,
                                                int32_t position_axes, int64_t batch, int64_t seq,
                                                int64_t head_dim, const posenc_rope_operand* q,
                                                const posenc_rope_operand* k, int32_t inverse);

/** RoPE out of place: q and k are read (never written) and their rotations written to q_out and
 *  k_out, with a plan. Every operand is strided as posenc_rope_operand describes, independently
 *  (e.g. q HF's transposed view [B, H, S, D], q_out packed [B, S, H, D]); all have the dtype,
 *  batch, seq and head_dim of the call, and q_out / k_out the num_heads of q / k. The rotation,
 *  positions, position_axes, layout, inverse and accuracy are those of posenc_rope_plan_apply,
 *  and the results are bit-identical to posenc_rope_plan_apply run in place on a copy of q and k
 *  (any ISA path, any thread count); the channels [rotary_dim, head_dim) of each head are copied
 *  unchanged. q_out must be given exactly when q is (NULL with q NULL), likewise k_out with k.
 *  Aliasing: an output may be exactly its input (same data, and the same strides wherever the
 *  extent is > 1): that operand is rotated in place as posenc_rope_plan_apply does. Otherwise
 *  the address range of an output (first to last element) must not intersect that of q, k or
 *  the other output: such calls are rejected (INVALID_ARGUMENT naming both operands), including
 *  disjoint interleavings such as q_out and k_out inside one fused buffer.
 *  Cost: one read of the inputs and one write of the outputs (no copy pass): the autograd ops of
 *  posenc.torch return new tensors this way.
 *  Errors: those of posenc_rope_plan_apply for q, k, q_out and k_out (the message names the
 *  operand); NULL_POINTER (q_out NULL with q given, k_out NULL with k given); INVALID_ARGUMENT
 *  (q_out given with q NULL, k_out with k NULL, num_heads of an output differing from its
 *  input's, outputs overlapping as above). On error nothing is written. */
POSENC_API posenc_status posenc_rope_plan_apply_out(const posenc_rope_plan* plan, posenc_rope_dtype dtype,
                                                    posenc_rope_layout layout, const int64_t* positions,
                                                    int32_t position_axes, int64_t batch, int64_t seq,
                                                    int64_t head_dim, const posenc_rope_operand* q,
                                                    const posenc_rope_operand* k, const posenc_rope_operand* q_out,
                                                    const posenc_rope_operand* k_out, int32_t inverse);

/** As posenc_rope_plan_apply with the parameters given directly (a plan is made for the call).
 *  Errors: those of posenc_rope_plan_create and posenc_rope_plan_apply. */
POSENC_API posenc_status posenc_rope_apply_strided(const posenc_rope_params* p, posenc_rope_dtype dtype,
                                                   posenc_rope_layout layout, const int64_t* positions,
                                                   int32_t position_axes, int64_t batch, int64_t seq,
                                                   int64_t head_dim, const posenc_rope_operand* q,
                                                   const posenc_rope_operand* k, int32_t inverse);

/** Re-rotation in one pass: Q/K that were rotated with plan `from` become rotated with plan
 *  `to`, x <- (A_to / A_from) R(theta_to - theta_from) x, where R(theta) is the forward rotation
 *  of posenc_rope_apply_f32 and A the attention factors: the exact inverse of `from` followed by
 *  `to`, fused. The angle x*(inv_to_j - inv_from_j) is the difference of the two exactly
 *  reduced phases, rotated once in float32 (one rounding of the data instead of two). This is
 *  the LongRoPE regime switch: when a sequence grows past original_max_position, K cached with
 *  the short factors must be re-rotated with the long ones (transformers #33129, vLLM #27431,
 *  llama.cpp #24875): from = the LONGROPE params with seq_len <= L, to = with seq_len > L. Each
 *  plan uses its own seq_len (seq_len_from_positions is not applied here).
 *  Arguments as posenc_rope_plan_apply; both plans must have the same rotary_dim, axes and
 *  sections. Accuracy: as one posenc_rope_apply_f32 with A = A_to/A_from, against the float64
 *  composition of the two rotations.
 *  Errors: those of posenc_rope_plan_apply; INVALID_ARGUMENT (plans that differ in rotary_dim,
 *  axes or sections). On error q and k are untouched. */
POSENC_API posenc_status posenc_rope_plan_rerotate(const posenc_rope_plan* from, const posenc_rope_plan* to,
                                                   posenc_rope_dtype dtype, posenc_rope_layout layout,
                                                   const int64_t* positions, int32_t position_axes,
                                                   int64_t batch, int64_t seq, int64_t head_dim,
                                                   const posenc_rope_operand* q, const posenc_rope_operand* k);

/** Long-range decay of RoPE (seed theory; RoFormer arXiv 2104.09864 §3.4.3):
 *  f[i] = sum_{j<num_freqs} cos(n_i * inv_freq[j]) with n_i = n_begin + i*n_step, i < count, and,
 *  if bound is not NULL, bound[i] = (1/num_freqs) * sum_{j=1..num_freqs} |S_j(n_i)|,
 *  S_j(n) = sum_{k<j} exp(i n inv_freq[k]) (RoFormer's plotted bound (2/d) sum |S_j|).
 *  inv_freq: [num_freqs] radians per unit n (e.g. from posenc_rope_inv_freq), finite.
 *  f, bound: [count] float64.
 *  Method: n is cut into tiles of 512 values (independent of the thread count: results are
 *  bitwise identical for any thread count); per tile and frequency an exact anchor (phase
 *  reduced exactly in turns) and a SIMD rotation recurrence by the exactly computed step angle.
 *  f alone uses the Chebyshev recurrence c_{k+1} = 2 cos(n_step w) c_k - c_{k-1} across
 *  frequency lanes; with the bound, lanes are consecutive n and frequencies run in order (prefix
 *  sums), with complex rotations and one square root per term (~13x the time of f alone; f then
 *  comes from that pass and may differ from the f-only result in the last bits).
 *  Accuracy: max abs error <= 1e-9 * num_freqs (observed 2.8e-11 for num_freqs 4096).
 *  Errors: INVALID_ARGUMENT (num_freqs <= 0, count < 0, inv_freq not finite, any |n_i| > 2^53
 *  or n_begin + (count-1)*n_step overflowing); NULL_POINTER (inv_freq NULL, f NULL while
 *  count > 0); SIZE_OVERFLOW (count * 8 bytes beyond the address space). Nothing is written on
 *  error. */
POSENC_API posenc_status posenc_rope_decay_f64(const double* inv_freq, int32_t num_freqs, int64_t n_begin,
                                               int64_t n_step, int64_t count, double* f, double* bound);

/* @@ROPE-END@@ */

/* ======================================================================================== */
/* sphere — S²: associated Legendre, spherical harmonics, addition theorem, Wigner-D         */
/* ======================================================================================== */

/* @@SPHERE-BEGIN@@ (section owned by the sphere family) */

/* Conventions of this section:
 *  - theta is the polar angle (colatitude) in [0, pi], phi the azimuth, both in radians;
 *    x = cos(theta). Geographic input is in degrees with polar = 90 - latitude.
 *  - P_l^m(x) = (1 - x^2)^{m/2} d^m/dx^m P_l(x) WITHOUT the Condon-Shortley phase (-1)^m unless
 *    a function says otherwise (csphase = -1 or the complex SH, which include it).
 *  - Real orthonormal SH ("real form", as sphericart and e3nn use), index l(l+1)+m, m = -l..l:
 *      m > 0:  sqrt(2) N_lm P_l^m(cos theta) cos(m phi)
 *      m = 0:  N_l0 P_l(cos theta)
 *      m < 0:  sqrt(2) N_l|m| P_l^|m|(cos theta) sin(|m| phi),
 *    N_lm = sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!); so Y_1,-1 : Y_1,0 : Y_1,1 = y : z : x.
 *  - Every recurrence keeps the normalization inside its coefficients (Holmes & Featherstone,
 *    J. Geodesy 76, 279 (2002)); no factorial or (2l-1)!! is ever formed. Values whose
 *    magnitude leaves the double range near the poles are carried with a per-lane extended
 *    exponent (units of 2^600, as SHTns / ducc0 do), so the normalized functions stay finite and
 *    accurate far beyond GSL's limit (GSL 2.7.1 returns inf from lmax 2823).
 *  - Every function runs SIMD across points and splits the points over the thread pool in tiles
 *    fixed by the problem size: results are bitwise identical for any thread count.
 *  - lmax must be in [0, 2^20]; a larger lmax, or an output size that overflows int64_t / the
 *    address space, is POSENC_ERR_SIZE_OVERFLOW. n == 0 is a no-op (pointers may then be NULL).
 *    All inputs are validated before anything is written. */

/** Normalizations of the associated Legendre functions. The functions are GSL's (gsl_sf_legendre_t)
 *  but the enum values are not: GSL numbers them GSL_SF_LEGENDRE_SCHMIDT 0, SPHARM 1, FULL 2,
 *  NONE 3, posenc NONE 0, SCHMIDT 1, SPHARM 2, FULL 3. Map by name (posenc = (gsl + 1) % 4,
 *  gsl = (posenc + 3) % 4), never by value. */
typedef enum {
  POSENC_LEGENDRE_NONE = 0,    /**< P_l^m(x), unnormalized (overflows to inf beyond l ~ 150,
                                    exactly where GSL does) */
  POSENC_LEGENDRE_SCHMIDT = 1, /**< Schmidt semi-normalized: sqrt((2 - delta_m0)(l-m)!/(l+m)!) P_l^m */
  POSENC_LEGENDRE_SPHARM = 2,  /**< spherical-harmonic: sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!) P_l^m */
  POSENC_LEGENDRE_FULL = 3, /**< fully normalized on [-1, 1]: sqrt((l+1/2)(l-m)!/(l+m)!) P_l^m */
  POSENC_LEGENDRE_NORM_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_legendre_norm;

/** Associated Legendre functions P_l^m(x) for 0 <= m <= l <= lmax, in GSL's layout.
 *
 *  x: [n], each in [-1, 1]. out: [n, (lmax+1)(lmax+2)/2] row-major; out[i, l(l+1)/2 + m] is the
 *  function of degree l, order m at x[i] (GSL's gsl_sf_legendre_array_index order).
 *  csphase: +1 (no Condon-Shortley phase, GSL's default) or -1 (multiply by (-1)^m), exactly as
 *  GSL's csphase argument of gsl_sf_legendre_array_e.
 *
 *  Method: the three-term recurrence in l at fixed m with normalized coefficients (Holmes &
 *  Featherstone 2002; the same recurrences as GSL 2.x), the sectoral seeds by
 *  P_m^m = P_{m-1}^{m-1} c_m sqrt(1-x^2) with sqrt(1-x^2) = sqrt((1-x)(1+x)); the SCHMIDT,
 *  SPHARM and FULL norms carry a per-lane extended exponent, so no value underflows or
 *  overflows before it is representable.
 *  SPHARM and FULL run the Schmidt recurrence and scale degree l by sqrt((2l+1)/(4 pi)) resp.
 *  sqrt(l+1/2) on output, as GSL does (more accurate near the poles than orthonormal
 *  coefficients).
 *  Accuracy (tests/test_sphere.cpp, docs/ACCURACY.md; errors relative to the rms of the degree-l
 *  block): against GSL 2.7.1, <= 1e-12 for |x| <= 0.999 up to lmax 2700 (observed <= 6e-13 vs a
 *  long double evaluation). Near the poles every forward recurrence in l (GSL's too) loses
 *  accuracy like (l+1)^1.5 eps: observed vs long double at l = 2700, 1.6e-11 at x = 1 and
 *  8.7e-11 at x = 1 - 1e-15 (GSL: 2.5e-10 and 2.7e-11); the tests bound the difference to GSL
 *  there by 16 (l+1)^1.5 eps. Beyond GSL (which returns inf from lmax 2823): every value stays
 *  finite up to lmax 10000 (tested; any lmax <= 2^20 is accepted), with sum_m S_l^m(x)^2 = 1 to
 *  <= 4e-11 for all l <= 10000 and <= 1.7e-12 (x = 0.5) / 8.6e-12 (x = 1e-3) against long
 *  double. NONE is the plain recurrence and overflows to inf where GSL does (l ~ 150).
 *  posenc_legendre_f32 computes in float64 and rounds once to float32.
 *
 *  Errors: INVALID_ARGUMENT (norm not a posenc_legendre_norm, lmax < 0, csphase not +-1, n < 0,
 *  some x[i] outside [-1, 1] or NaN); NULL_POINTER (x or out NULL while n > 0); SIZE_OVERFLOW
 *  (lmax > 2^20 or n (lmax+1)(lmax+2)/2 overflows). Sources: GSL gsl_sf_legendre_array_e;
 *  Holmes & Featherstone 2002; Schaeffer, SHTns (2013) / Reinecke, ducc0 for the exponent range. */
POSENC_API posenc_status posenc_legendre_f64(posenc_legendre_norm norm, int32_t lmax, int32_t csphase,
                                             const double* x, int64_t n, double* out);
/** float32 variant of posenc_legendre_f64: x is widened, everything is computed in float64 and
 *  each value is rounded once to float32 (so the result is the float64 result rounded; values
 *  below float32's range flush towards 0). Same layout, degree range and errors. */
POSENC_API posenc_status posenc_legendre_f32(posenc_legendre_norm norm, int32_t lmax, int32_t csphase,
                                             const float* x, int64_t n, float* out);

/** Legendre polynomials: out [n, lmax+1], out[i, l] = P_l(x[i]), x[i] in [-1, 1], by Bonnet's
 *  recurrence l P_l = (2l-1) x P_{l-1} - (l-1) P_{l-2}. Accuracy: <= 1e-13 absolute for
 *  lmax <= 1000 against GSL gsl_sf_legendre_Pl_array away from x = +-1, and <= (l+1)^1.5 eps near
 *  them (the recurrence's own conditioning, shared by GSL). Errors: INVALID_ARGUMENT (lmax < 0,
 *  n < 0, x[i] outside [-1, 1]), NULL_POINTER, SIZE_OVERFLOW as posenc_legendre_f64. */
POSENC_API posenc_status posenc_legendre_poly_f64(int32_t lmax, const double* x, int64_t n, double* out);

/** Addition-theorem (zonal) kernel on S²:
 *    out[i] = sum_{l=0}^{lmax} w_l (2l+1)/(4 pi) P_l(cos_gamma[i])
 *  (= sum_l w_l sum_m Y_lm(a) Y_lm(b) for unit vectors with a.b = cos_gamma[i]).
 *  weights: [lmax+1] finite, or NULL for all 1. cos_gamma: [n] in [-1, 1]. out: [n].
 *  Method: Clenshaw's backward recurrence for the Legendre series (O(lmax) per point, stable).
 *  Accuracy: <= 1e-13 of sum_l |w_l (2l+1)/(4 pi) P_l| against the explicit long double sum of
 *  GSL's P_l for |cos_gamma| <= 0.999 (lmax 1000); near +-1 within sum_l (2l+1)/(4 pi) (l+1)^1.5
 *  eps / 8; equal to the explicit sum of real SH products (addition theorem) to 1e-10 of
 *  sum_l w_l (2l+1)/(4 pi) at lmax 200. Errors: INVALID_ARGUMENT (lmax < 0,
 *  n < 0, a weight not finite, cos_gamma[i] outside [-1, 1]), NULL_POINTER (cos_gamma or out NULL
 *  while n > 0), SIZE_OVERFLOW (lmax > 2^20, or n * 8 bytes overflowing int64). */
POSENC_API posenc_status posenc_sph_kernel_f64(int32_t lmax, const double* weights, const double* cos_gamma,
                                               int64_t n, double* out);

/** Real orthonormal spherical harmonics (the real form above) of the directions xyz.
 *
 *  xyz: [n, 3] row-major (x, y, z), any finite nonzero length (normalized inside, after scaling
 *  by the largest component, so 1e-300 or 1e300 inputs are fine). out: [n, (lmax+1)^2],
 *  out[i, l(l+1)+m] = Y_lm, m = -l..l.
 *  Method: cos(theta) = z/r, sin(theta) = sqrt(x^2+y^2)/r, and the azimuthal factors cos(m phi),
 *  sin(m phi) as the real and imaginary parts of ((x+iy)/sqrt(x^2+y^2))^m by complex
 *  multiplication (no trigonometric call; phi = 0 on the z axis, where every m != 0 term is 0).
 *  lmax <= 360: the orthonormal three-term recurrence with closed-form coefficients
 *  (Y_l^m = a_lm x Y_{l-1}^m - b_lm Y_{l-2}^m, sectoral seeds by sqrt((2m+1)/(2m)) sin(theta)),
 *  degree outer, order inner, each value written to its cos and sin feature; a block of points
 *  with sin(theta)^lmax below 2^-900 (and not on the pole), and every lmax > 360, takes the
 *  recurrence of posenc_legendre_f64 (SPHARM, extended exponent) instead. Vectorized across
 *  points (blocks of the vector width), point-major output written by in-register transposes;
 *  on AVX-512 in whole aligned 64-byte lines (non-temporal when the output is >= 16 MB, so no
 *  read-for-ownership). Bits do not depend on the thread count; they can differ by the
 *  recurrence's rounding between a call and the same points split over several calls when a
 *  block takes the extended-range path.
 *  Near the poles cos theta is carried as z/r + c, c = (s - z/r) - s sin^2(theta) / (1 + |z/r|)
 *  (s = sign z, where |z/r| > 1/2), in every step of the recurrence: the rounding of z/r alone
 *  (~1 ulp of 1) became ~l^2 ulp of the degree block (7e-13 at l = 40, z = 0.999627). For
 *  17 <= lmax <= 360 the orders m < 8 of points with |z/r| > 0.97 run the recurrence in
 *  difference form instead (each column scaled by its value at cos theta = 1, w_l = y_l / r_l,
 *  stepping d_l = w_l - w_{l-1} = -beta d_{l-1} - alpha t w_{l-1} with t = 1 - |cos theta| =
 *  sin^2(theta) / (1 + |cos theta|), alpha = (2l-1)/(l+m), alpha + beta = 1): the ordinary
 *  recurrence's rounding grows like l^2 eps as x -> 1, where its two roots meet; this form's
 *  like l eps. Decided point by point, so a point's bits do not depend on its neighbours.
 *  lmax <= 3 (also posenc_sph_harm_real_ex_* with any flags and
 *  posenc_sph_harm_real_grad_* without Hessians) takes a dedicated kernel: Y_lm as polynomials
 *  in u = x/|x| (the recurrence's coefficients in u_z, (u_x + i u_y)^m for the azimuth), each
 *  block of points in registers, rows written from in-register transposes. Its bits differ
 *  from the recurrence's (the first 16 values of an lmax 4 call are not those of an lmax 3
 *  call; both within the bounds below).
 *  Accuracy (f64): lmax <= 3: <= 1e-14 block-relative against long double (measured 2.7e-15);
 *  near the poles (sin theta from 0.25 down to 1e-8, both poles): block-relative <= 1e-13 for
 *  lmax <= 40 (measured 1.1e-14 on every ISA path, random and fixed directions incl.
 *  z = 0.999627) and, per degree above 20, <= 4e-17 l^2 for the block of degree l to lmax 360
 *  (measured 2.4e-17 l^2: 1.7e-13 to 2.4e-13 at l = 100, 2.4e-12 at l = 360, from the orders
 *  m >= 8 at sin theta 0.1 - 0.25, where the ordinary recurrence's l^2 growth remains).
 *  lmax > 360 takes the extended-range recurrence (above); its near-pole points (|z/r| > 0.97,
 *  sin theta >= 2^-60) run the orders m < 8 in the same difference form: block-relative
 *  <= 1e-13 for the blocks of degree <= 40 and <= 5e-18 l^2.5 for the block of degree l above 20
 *  (1 - |z/r| from 2e-2 down to 1e-12, both poles; measured 9.1e-15 and 2.3e-18 l^2.5 on every
 *  ISA path: 2.4e-12 at l = 400, 7.4e-12 at l = 1000 with 1 - z = 5e-9, where the ordinary
 *  recurrence gave 5.3e-10).
 *  Also <= 2e-13 absolute against Boost.Math spherical_harmonic for lmax <= 20
 *  (including poles, near-poles and 1e-300 / 1e300 lengths); sum_m Y_lm^2 = (2l+1)/(4 pi) to
 *  8e-14 relative at lmax 150 and 5.2e-13 at lmax 1000; orthonormal under Gauss-Legendre x
 *  uniform quadrature to 1e-12 (lmax 20); equivariant under posenc_wigner_d_real_f64 to 1e-12.
 *  posenc_sph_harm_real_f32 takes float32 input. For lmax > 16, and on the scalar and NEON
 *  paths, it computes in float64 and rounds the output once: observed <= 5.5e-8 relative to the float64
 *  result per degree block (rms) at lmax 150 (bound tested 1e-7; sphericart's float path fails
 *  from l ~ 19). On AVX-512 and AVX2 with lmax <= 16 the recurrence itself runs in float32 (16 / 8
 *  points per vector, the same operations per lane on both; set-up, sectoral seeds and the rounding error of cos theta kept from float64; blocks
 *  whose seeds leave the float range take the float64 path): measured worst 2.1e-6 (lmax 10),
 *  3.7e-6 (lmax 16) per degree block over 400k random directions, tested <= 1e-5 (the contract)
 *  up to lmax 33 on every ISA. Its bits therefore differ between ISAs (within those bounds).
 *  No degree above 3 is hard-coded.
 *
 *  Errors: INVALID_ARGUMENT (lmax < 0, n < 0, xyz[i] not finite or (0, 0, 0)); NULL_POINTER
 *  (xyz or out NULL while n > 0); SIZE_OVERFLOW (lmax > 2^20 or n (lmax+1)^2 overflows).
 *  Sources: Wikipedia "Spherical harmonics, real form"; Bigi et al., J. Chem. Phys. 159, 064802
 *  (2023) (sphericart) for the (x+iy)^m construction. */
POSENC_API posenc_status posenc_sph_harm_real_f64(int32_t lmax, const double* xyz, int64_t n, double* out);
/** float32 variant of posenc_sph_harm_real_f64: xyz [n, 3] float, out [n, (lmax+1)^2] float. */
POSENC_API posenc_status posenc_sph_harm_real_f32(int32_t lmax, const float* xyz, int64_t n, float* out);

/* Flags of posenc_sph_harm_real_ex_* and posenc_sph_harm_real_grad_*. */
/** Solid harmonics R_lm(x) = |x|^l Y_lm(x/|x|) (sphericart's SolidHarmonics) instead of Y_lm(x/|x|). */
#define POSENC_SPH_SOLID 1u
/** A zero vector is accepted (instead of INVALID_ARGUMENT for the whole call, e3nn's rule): its
 *  values are Y_00 = 1/sqrt(4 pi) and 0 for l >= 1. Unit-sphere derivatives there are all 0; with
 *  POSENC_SPH_SOLID they are the exact derivatives of the polynomials R_lm at 0 (the constant
 *  gradient of degree 1 and Hessian of degree 2, 0 elsewhere). */
#define POSENC_SPH_ZERO_AS_ZERO 2u

/** posenc_sph_harm_real_f64 with flags (POSENC_SPH_SOLID, POSENC_SPH_ZERO_AS_ZERO, or 0).
 *
 *  xyz: [n, 3], out: [n, (lmax+1)^2], index l(l+1)+m, the real form above. flags = 0 is
 *  posenc_sph_harm_real_f64 (the same bits). Any other flags take the recurrence of
 *  posenc_sph_harm_real_grad_f64 (values only; same functions, not the same bits: within
 *  1.5e-12 (tested) block-relative of posenc_sph_harm_real_f64 at lmax 40), or for lmax <= 3
 *  the low-degree kernel of posenc_sph_harm_real_f64 (the unit-sphere values then have the
 *  same bits for every flag), then
 *  SOLID multiplies degree l by |x|^l (which overflows to +-inf, or NaN where Y_lm = 0, once
 *  |x|^l leaves the double range). Errors: as posenc_sph_harm_real_f64, plus INVALID_ARGUMENT
 *  for flags with other bits; a zero vector is accepted with POSENC_SPH_ZERO_AS_ZERO. */
POSENC_API posenc_status posenc_sph_harm_real_ex_f64(int32_t lmax, const double* xyz, int64_t n, uint32_t flags,
                                                     double* out);
/** float32 variant of posenc_sph_harm_real_ex_f64 (flags = 0: posenc_sph_harm_real_f32; other flags:
 *  computed in float64, each value rounded once to float32). */
POSENC_API posenc_status posenc_sph_harm_real_ex_f32(int32_t lmax, const float* xyz, int64_t n, uint32_t flags,
                                                     float* out);

/** Real SH (or, with POSENC_SPH_SOLID, solid harmonics) with their Cartesian gradients and
 *  Hessians, in sphericart's layouts.
 *
 *  xyz: [n, 3] row-major, finite; any nonzero length (scaled by its largest component before it
 *  is normalized); (0, 0, 0) only with POSENC_SPH_ZERO_AS_ZERO. flags: POSENC_SPH_SOLID |
 *  POSENC_SPH_ZERO_AS_ZERO or 0.
 *  values: [n, (lmax+1)^2] or NULL, index l(l+1)+m: Y_lm(x/|x|) (the real form above), or
 *    |x|^l Y_lm with SOLID.
 *  grad: [n, 3, (lmax+1)^2], required: grad[i, a, k] = d values[i, k] / d x_a (a = x, y, z).
 *    Unit-sphere harmonics include the chain rule through x/|x|, so grad is orthogonal to x
 *    and scales like 1/|x|.
 *  hess: [n, 3, 3, (lmax+1)^2] or NULL: hess[i, a, b, k] = d^2 values[i, k] / d x_a d x_b
 *    (symmetric: both triangles are written with the same values); scales like 1/|x|^2.
 *  Derivatives that leave the double range (|x| near the smallest or largest doubles, or
 *  |x|^l with SOLID) overflow to +-inf.
 *  Method: the solid harmonics R_lm = r^l Y_lm are evaluated at u = x/|x|, degree by degree:
 *  the orthonormal three-term recurrence in l for the Legendre part and (x+iy)^m for the azimuth
 *  (as posenc_sph_harm_real_f64); d R_lm / dz = sqrt((2l+1)/(2l-1) (l+m)(l-m)) R_{l-1,m}, and
 *  d/dx, d/dy of R_lm are combinations of R_{l-1,+-(m-1)} and R_{l-1,+-(m+1)}; the Hessian
 *  applies the same relations to the gradients of degree l-1 (coefficients and derivation:
 *  kernels/sphere_table.hpp sph_grad_coef). Homogeneity gives the solid results
 *  (|x|^l R, |x|^{l-1} grad R, |x|^{l-2} hess R) and, with Euler's relations u.grad R = l R and
 *  (hess R) u = (l-1) grad R, the quotient rule of Y = R / r^l:
 *    grad Y = (grad R - l Y u) / r,
 *    hess Y = (hess R - l (u grad R^T + grad R u^T) + l (l+2) Y u u^T - l Y I) / r^2.
 *  Every quantity is a bounded orthonormal function at a unit vector: no r^l, factorial or
 *  (2l-1)!! is formed, so the results stay finite at any degree (sphericart's break from l ~ 87
 *  in float64 because its prefactors overflow). SIMD across points, blocks of the vector width;
 *  bits do not depend on the thread count.
 *  Near the poles cos theta is carried as +-1 -+ rho^2 / (r (r + |z|)), so the zonal
 *  recurrence does not turn the rounding of z / r into l^2 ulp.
 *  lmax <= 3 with hess NULL: the low-degree kernel of posenc_sph_harm_real_f64 (values and
 *  gradients as polynomials in x/|x|, the same ladder relations), so values and gradients
 *  differ in their last bits from a call with Hessians (within 1e-14 / 1e-13 block-relative
 *  of long double, measured 2.7e-15 / 3.3e-14).
 *  Accuracy (f64, tests/test_sphere_grad.cpp, docs/ACCURACY.md; errors relative to the rms of
 *  the degree-l block of the same output, worst over random directions, the poles and
 *  z = +-0.999627): against 8th-order long-double finite differences of an independent
 *  long-double evaluation, lmax 40: values 1.2e-13, gradients 1.5e-13 (tested <= 2e-13 / 1e-12),
 *  Hessians tested <= 3e-12 (the differences' own rounding: 1.5e-12 measured); against
 *  sphericart 2.0.3's compute_with_hessians (both bases, lmax 1..40): values 1.1e-13,
 *  gradients 1.4e-13, Hessians 2.2e-13 (tested <= 2e-13 / 1e-12 / 1e-12); |u . grad Y| <= 1.6e-14 of the
 *  gradient block; values within 1.5e-12 (tested) of posenc_sph_harm_real_f64. lmax 1000: finite, values and gradients within 4.5e-10 of long double (tested
 *  2e-9); Hessians finite (tested to lmax 300). float32 (computed in float64, rounded once):
 *  within 1e-6 of the float64 result per degree block (one rounding of the largest element).
 *  Errors: INVALID_ARGUMENT (lmax < 0, n < 0, flags with other bits, xyz[i] not finite, or
 *  (0, 0, 0) without POSENC_SPH_ZERO_AS_ZERO; the message names the point); NULL_POINTER (xyz or
 *  grad NULL while n > 0); SIZE_OVERFLOW (lmax > 2^20, or n 9 (lmax+1)^2 overflows with hess,
 *  n 3 (lmax+1)^2 without). Sources: Bigi et al., J. Chem. Phys. 159, 064802 (2023)
 *  (sphericart: (x+iy)^m, the Q_l^m derivative relations, these layouts); Wikipedia
 *  "Spherical harmonics, real form". */
POSENC_API posenc_status posenc_sph_harm_real_grad_f64(int32_t lmax, const double* xyz, int64_t n, uint32_t flags,
                                                       double* values, double* grad, double* hess);
/** float32 variant of posenc_sph_harm_real_grad_f64: xyz widened, computed in float64, every output
 *  rounded once to float32 (so within 1e-6 of the float64 result per degree block, tested to
 *  lmax 150). Except unit-sphere values + gradients without Hessians (flags without
 *  POSENC_SPH_SOLID, hess NULL) at lmax 4..44 on AVX-512 and 4..63 on AVX2: there the set-up, the
 *  Legendre recurrence and the d/dz bracket run in float64, the azimuth products, ladder
 *  relations, chain rule and transposes in float32 lanes (16 / 8 points a vector), within 1e-5
 *  of the float64 result per degree block (the float32 contract; measured 1.5e-6 at lmax 40,
 *  1.8e-6 at 63, near the poles and at lengths 1e-30..1e38 included); a point's bits do not
 *  depend on the other points of the call or the thread count. */
POSENC_API posenc_status posenc_sph_harm_real_grad_f32(int32_t lmax, const float* xyz, int64_t n, uint32_t flags,
                                                       float* values, float* grad, float* hess);

/** Real orthonormal SH of geographic coordinates: lonlat [n, 2] = (longitude, latitude) in
 *  DEGREES, latitude in [-90, 90], longitude any finite value; polar angle = 90 - latitude,
 *  azimuth = longitude. Same basis and output as posenc_sph_harm_real_f64 (out [n, (lmax+1)^2]),
 *  the direction formed with sin/cos reduced in degrees (exact at multiples of 90 degrees):
 *  k = round(deg / 90), deg - 90 k exact (fmod by 360 first for |deg| >= 2^50), then fdlibm's
 *  sin / cos kernel polynomials (< 1 ulp on [-pi/4, pi/4]), vectorized across points. For
 *  lmax <= 3 the low-degree kernel of posenc_sph_harm_real_f64 converts each block of points in
 *  its registers and takes the unit vectors as they are (not normalized again); above, each
 *  tile's directions take the kernels of posenc_sph_harm_real_f64 (streamed whole-line writer).
 *  SatCLIP (Russwurm et al., ICLR 2024) uses the same basis up to signs: its encoder with
 *  legendre_polys = L is lmax = L - 1 here (its "L = 10" is lmax 9), in the same order of (l, m);
 *  it evaluates at phi' = lon + 180, theta' = lat + 90 degrees, so its closed-form harmonics are
 *  (-1)^(l+m) times these, and its default "analytic" ones (-1)^l times these for m != 0 and
 *  pi (-1)^l times these for m = 0. Python: sph_harm_real_lonlat(..., convention="satclip")
 *  returns the closed-form signs; python/tests/test_satclip.py checks both for L <= 4.
 *  Accuracy: within 1e-12 of posenc_sph_harm_real_f64 at the direction formed in long double
 *  (lmax 40; 2e-14 for lmax <= 3); exactly 0 for every m != 0 at the poles. Errors:
 *  INVALID_ARGUMENT (lmax < 0, n < 0, longitude not finite, latitude outside [-90, 90] or NaN);
 *  NULL_POINTER; SIZE_OVERFLOW. */
POSENC_API posenc_status posenc_sph_harm_real_lonlat_f64(int32_t lmax, const double* lonlat, int64_t n,
                                                         double* out);

/** Complex orthonormal SH with the Condon-Shortley phase, SciPy's convention
 *  (scipy.special.sph_harm_y(l, m, theta, phi), = sph_harm(m, l, phi, theta) before 1.15):
 *    Y_l^m = (-1)^m N_lm P_l^m(cos theta) e^{i m phi},  Y_l^{-m} = (-1)^m conj(Y_l^m).
 *  theta: [n] polar angle, phi: [n] azimuth, radians, any finite values (|sin theta| is used, as
 *  SciPy does). out: [n, (lmax+1)^2, 2] as (re, im), index l(l+1)+m, m = -l..l.
 *  Computed from the real basis R: Y_l^m = (-1)^m (R_lm + i R_l,-m)/sqrt(2) and
 *  Y_l^-m = (R_lm - i R_l,-m)/sqrt(2) for m > 0, Y_l^0 = R_l0. Accuracy: <= 2e-13 absolute
 *  against Boost.Math spherical_harmonic for lmax <= 20. Errors: INVALID_ARGUMENT (lmax < 0, n < 0, theta or phi not
 *  finite); NULL_POINTER; SIZE_OVERFLOW (n 2 (lmax+1)^2 overflows). */
POSENC_API posenc_status posenc_sph_harm_complex_f64(int32_t lmax, const double* theta, const double* phi,
                                                     int64_t n, double* out);

/** Real Wigner-D matrices of a rotation, for the real basis above.
 *
 *  rotation: [3, 3] row-major, proper orthogonal (max |R^T R - I| <= 1e-9 and det R > 0).
 *  out: the blocks D^0, D^1, ..., D^lmax concatenated, block l (2l+1) x (2l+1) row-major with rows
 *  and columns in the order m = -l..l; (lmax+1)(2lmax+1)(2lmax+3)/3 values in all. They satisfy
 *  Y_l(R v) = D^l(R) Y_l(v) for every direction v (Y_l the 2l+1 real SH of degree l), and
 *  D(R1 R2) = D(R1) D(R2); D^1 is R itself in the (y, z, x) order.
 *  Method: the Ivanic & Ruedenberg recurrence from the 3x3 matrix (J. Phys. Chem. 100, 6342
 *  (1996); corrections 102, 9099 (1998)): no Euler angles, so no gimbal-lock singularity.
 *  Accuracy: orthogonality and equivariance to <= 1e-12 for lmax <= 20 (tests), error growing
 *  about linearly in l. Errors: INVALID_ARGUMENT (lmax < 0, rotation not finite, not orthogonal,
 *  or improper); NULL_POINTER (rotation or out NULL); SIZE_OVERFLOW (lmax > 65535). */
POSENC_API posenc_status posenc_wigner_d_real_f64(int32_t lmax, const double* rotation, double* out);

/** Rotates real SH coefficient vectors: out[i] = D(R) coeffs[i] block by block (degree l uses
 *  D^l of posenc_wigner_d_real_f64), so that sum_k out[i,k] Y_k(v) = sum_k coeffs[i,k] Y_k(R^T v).
 *  coeffs, out: [n, (lmax+1)^2], index l(l+1)+m; out may equal coeffs (in place; no other overlap).
 *  Accuracy as posenc_wigner_d_real_f64 (<= 1e-12 relative to |coeffs_i| for lmax <= 20).
 *  Errors: as posenc_wigner_d_real_f64, plus INVALID_ARGUMENT (n < 0), NULL_POINTER (coeffs or
 *  out NULL while n > 0), SIZE_OVERFLOW (n (lmax+1)^2 overflows). */
POSENC_API posenc_status posenc_sph_rotate_real_f64(int32_t lmax, const double* rotation, const double* coeffs,
                                                    int64_t n, double* out);

/* @@SPHERE-END@@ */

/* ======================================================================================== */
/* features — Bochner: random Fourier / positive / PFF features, linear attention            */
/* ======================================================================================== */

/* @@FEATURES-BEGIN@@ (section owned by the features family) */

/** How posenc_rf_sample_f32 draws the rows omega_i of Omega [m, d]. */
typedef enum {
  POSENC_RF_IID = 0,        /**< omega_i ~ N(0, I/sigma^2), i.i.d. (Rahimi & Recht 2007) */
  POSENC_RF_ORTHOGONAL = 1, /**< ORF (Yu et al. 2016; Performer Thm 2): blocks of d rows, each the
                                 columns of a Haar-distributed orthogonal Q, each row scaled by an
                                 independent chi_d norm; blocks stacked when m > d (the last one
                                 truncated). Q is built as the Q factor of a Householder QR of a
                                 Gaussian d x d matrix without forming the matrix (Stewart, SIAM
                                 J. Numer. Anal. 17(3), 1980): reflector k of the block is the
                                 Householder reflector (Eigen's makeHouseholder) of a fresh
                                 N(0, I_{d-k}) vector on coordinates k..d-1, Q = H_0 ... H_{r-1} for
                                 a block of r rows, column k sign-fixed by the sign of the diagonal
                                 entry of R that reflector produces; the norms are
                                 sqrt(2 Gamma(d/2)), Gamma by Marsaglia & Tsang (ACM TOMS 26(3),
                                 2000, exact rejection sampler), from a stream of their own */
  POSENC_RF_QMC = 2,        /**< randomized quasi-Monte Carlo: point i of the d-dimensional Sobol
                                 sequence (Boost.Random sobol, zero point skipped), XORed with a
                                 per-coordinate 64-bit digital shift drawn from the seed,
                                 u = ((v >> 11) + 0.5) * 2^-53, omega = Phi^{-1}(u) / sigma with
                                 Wichura's AS241 PPND16 */
  POSENC_RF_PFF = 3,        /**< DiJiang PFF (Chen et al. ICML 2024, eq. 9): directions v_i = the QMC
                                 normal vectors above normalized to the unit sphere, radii
                                 r_i = sqrt(F^{-1}_{chi^2_d}(t_i)) (Boost.Math quantile) with
                                 stratified t_i = (s_i + U_i)/m, s a seeded permutation of 0..m-1;
                                 omega_i = r_i v_i / sigma */
  POSENC_RF_SAMPLING_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rf_sampling;

/** Feature map of posenc_rf_features_f32 (p_ij = omega_j . x_i, w_j the optional weights, 1 if
 *  weights is NULL). */
typedef enum {
  POSENC_RF_TRIG = 0,      /**< out [n, 2m] = w_j [cos p_ij | sin p_ij] / sqrt(m) (cos block first):
                                phi(x).phi(y) estimates the Gaussian kernel exp(-|x-y|^2/(2 sigma^2))
                                (Rahimi & Recht 2007; [cos, sin] pairs, Sutherland & Schneider 2015) */
  POSENC_RF_POSITIVE = 1,  /**< out [n, m] = w_j exp(p_ij - |x_i|^2/2 - c_i) / sqrt(m): FAVOR+
                                (Choromanski et al. ICLR 2021, Lemma 1), estimates SM(x,y) = exp(x.y)
                                for sigma = 1 (scale x by sigma otherwise) */
  POSENC_RF_HYPERBOLIC = 2, /**< out [n, 2m] = w_j [exp(p_ij) | exp(-p_ij)] exp(-|x_i|^2/2 - c_i)
                                 / sqrt(2m): FAVOR+ hyperbolic variant, estimates SM(x,y) */
  POSENC_RF_GAUSSIAN_POSITIVE = 3, /**< out [n, m] = w_j exp(p_ij - |x_i|^2 - c_i) / sqrt(m): DiJiang
                                       PFF (eq. 9; WPFF eq. 10 with weights), estimates the Gaussian
                                       kernel K_G(x,y) = exp(-|x-y|^2/2) for sigma = 1 */
  POSENC_RF_ELU_PLUS_ONE = 4, /**< out [n, m] = w_j (elu(p_ij) + 1) = w_j (p_ij + 1) for p_ij > 0,
                                   w_j exp(p_ij) otherwise: fast-transformers' elu_feature_map
                                   (Katharopoulos et al. 2020, eq. 7) applied to x Omega^T; pass
                                   Omega = I_d (m = d) for their map of x itself. No 1/sqrt(m)
                                   factor, no shift (the map is at most linear in p) */
  POSENC_RF_RELU = 5,         /**< out [n, m] = w_j max(p_ij, 0): Performer's generalized kernel with
                                   kernel_fn = ReLU (Choromanski et al. 2021, sec. 2.4;
                                   performer-pytorch's generalized_kernel, which adds its
                                   kernel_epsilon = 1e-3 to every feature and scales x by d^-1/4 when
                                   normalize_data: do both in the caller). No 1/sqrt(m), no shift */
  POSENC_RF_KIND_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rf_kind;

/** Stabilizing shift c of the exponential kinds of posenc_rf_features_f32 (POSITIVE, HYPERBOLIC,
 *  GAUSSIAN_POSITIVE; TRIG, ELU_PLUS_ONE and RELU ignore it). e_ij is the exponent before the shift (p_ij - |x_i|^2/2,
 *  +-p_ij - |x_i|^2/2 or p_ij - |x_i|^2) and a row is computed as exp(e_ij - c_i). In FAVOR+
 *  linear attention (Choromanski et al. 2021; performer-pytorch's softmax_kernel) queries take
 *  ROW_MAX and keys SHARED_MAX: out_i = phi_q_i^T S / phi_q_i^T z is invariant under a per-query
 *  factor and under one factor common to all keys, so both shifts cancel exactly (with eps = 0),
 *  while no key is reweighted relative to another. */
typedef enum {
  POSENC_RF_SHIFT_OVERFLOW = 0,   /**< c_i = max(0, max_j e_ij - 60): the exact, unshifted map unless a
                                       row would exceed e^60 (a per-row overflow guard) */
  POSENC_RF_SHIFT_ROW_MAX = 1,    /**< c_i = max_j e_ij: every row's largest feature is scale_j * e^0
                                       (Performer's query stabilization); never underflows a whole row */
  POSENC_RF_SHIFT_SHARED_MAX = 2, /**< c = max_{i,j} e_ij over all n rows of the call, one constant for
                                       every row (Performer's key stabilization): rows keep their
                                       relative weights, the largest feature of the call is
                                       scale_j * e^0 */
  POSENC_RF_SHIFT_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rf_shift;

/** Draws the random-feature matrix Omega (omega [m, d], row i = omega_i, float32 rounded from
 *  float64).
 *
 *  sampling: see posenc_rf_sampling. d: input dimension; m: number of features; sigma: kernel
 *  length scale (omega has covariance I/sigma^2 marginally for IID, ORTHOGONAL and QMC; PFF rows
 *  have chi_d/sigma norms). seed: any 64-bit value; a splitmix64 stream (Steele et al. 2014)
 *  feeds the Gaussian draws (through PPND16), the digital shifts, the strata and permutation.
 *  Deterministic: the output depends only on (sampling, d, m, sigma, seed) — it is computed once
 *  in float64 outside the SIMD kernels, so every ISA path and thread count gives the same bits.
 *
 *  Properties (tests/test_features.cpp, docs/ACCURACY.md): every row of QMC and PFF is marginally
 *  exactly N(0, I/sigma^2) resp. isotropic with chi_d radius, so feature-kernel estimates stay
 *  unbiased; ORF blocks are orthogonal to 1e-15 before rounding; PPND16 has relative error
 *  <= 1e-14 against Boost erfc_inv over (1e-300, 1 - 1e-16). MSE tables: docs/ACCURACY.md.
 *
 *  Errors: NULL_POINTER (omega NULL); INVALID_ARGUMENT (sampling not a posenc_rf_sampling,
 *  d <= 0, m <= 0, sigma not finite or <= 0, d > 3667 for QMC and PFF — the dimension limit of
 *  Boost's Sobol tables); SIZE_OVERFLOW (m * d). omega is untouched on error. */
POSENC_API posenc_status posenc_rf_sample_f32(posenc_rf_sampling sampling, int32_t d, int32_t m, double sigma,
                                              uint64_t seed, float* omega);

/** Random-feature map phi(x) for each row of x [n, d], with Omega = omega [m, d].
 *
 *  out: [n, m] (POSITIVE, GAUSSIAN_POSITIVE, ELU_PLUS_ONE, RELU) or [n, 2m] (TRIG, HYPERBOLIC),
 *  formulas in posenc_rf_kind. weights [m]: WPFF's per-feature diagonal D (DiJiang eq. 10; each feature j —
 *  both halves for TRIG and HYPERBOLIC — is multiplied by weights[j] >= 0), or NULL for 1.
 *  Then sum_j phi_j(x) phi_j(y) estimates the kernel of the kind (unbiased for every sampling
 *  when weights is NULL; see posenc_rf_sample_f32).
 *
 *  Computation: the projection x . Omega^T is a fused, register-blocked SIMD micro-kernel
 *  (float32 FMAs over d) whose epilogue applies cos/sin (reduced in turns) or exp to the output
 *  tile while it is in registers / L1 (ELU_PLUS_ONE and RELU: elementwise, in registers).
 *
 *  Stabilization of the exponential kinds (shift, see posenc_rf_shift): a shifted row is the exact
 *  row times e^{-c_i}. OVERFLOW: c_i = max(0, max_j e_ij - 60), so c_i = 0 (the exact, unbiased
 *  map) whenever no exponent of the row exceeds 60 and every feature is <= e^60 / sqrt(m): no
 *  overflow for any input. ROW_MAX: c_i = max_j e_ij, computed as exp(p_ij - max_j p_ij) (the
 *  |x_i|^2 term cancels exactly; HYPERBOLIC uses max_j |p_ij|); use it for the QUERIES of linear
 *  attention, whose row factor cancels in out_i = phi_q_i^T S / phi_q_i^T z. SHARED_MAX: one
 *  c = max_i (max_j p_ij - h_i) over the whole call (h_i = |x_i|^2/2, |x_i|^2 for
 *  GAUSSIAN_POSITIVE), row i computed as exp(p_ij - max_j p_ij) * exp(max_j p_ij - h_i - c) (the
 *  second factor in float64); use it for the KEYS: the factor is common to all keys, so no key
 *  is reweighted relative to another (OVERFLOW would shift a key row alone once its exponent
 *  passes 60, e.g. |omega_j|^2 > 120 at d = 128) and it cancels between numerator and
 *  denominator. Queries N(0, a^2 I), a = 5, d = 64 have all e_ij < -290: unshifted, every feature
 *  underflows to 0; with ROW_MAX / SHARED_MAX the attention output matches the float64 FAVOR+
 *  estimate (tests/test_features.cpp, FavorStabilization). Exponents below -87.3 give 0.
 *
 *  Accuracy (float32, against the same formula in float64 with the same omega, tested on every
 *  ISA path): TRIG abs error <= 2e-6 * (1 + max_j |p_ij|) / sqrt(m) (the float32 rounding of p
 *  dominates; observed 3.7e-6 / sqrt(m) at |x| ~ 1.6); exponential kinds rel error
 *  <= 4e-6 * (2 + max_j |p_ij|) (observed 2.3e-6), up to float32 underflow below e^-87;
 *  ELU_PLUS_ONE and RELU abs error <= w_j * 1e-6 * (1 + |x_i| |omega_j|) + 1e-7 |out_ij| (the
 *  float32 projection; tests/test_features_kinds.cpp).
 *
 *  Errors: NULL_POINTER (omega NULL; x or out NULL while n > 0); INVALID_ARGUMENT (kind not a
 *  posenc_rf_kind, shift not a posenc_rf_shift, m <= 0, d <= 0, n < 0, a weight negative or not finite, an omega entry not
 *  finite); SIZE_OVERFLOW (n * d, n * 2m). n == 0 is a no-op. out is untouched on error. */
POSENC_API posenc_status posenc_rf_features_f32(posenc_rf_kind kind, posenc_rf_shift shift, const float* omega,
                                                int32_t m, int32_t d, const float* weights, const float* x, int64_t n,
                                                float* out);

/** The flags argument of posenc_linear_attention_f32 and posenc_linear_attention_backward_f32
 *  (bits; 0 = non-causal, normalized; the values 0 and 1 keep the meaning of the former causal
 *  argument). Any other bit is INVALID_ARGUMENT. */
typedef enum {
  POSENC_LINEAR_CAUSAL = 1,       /**< out_i sums over j <= i only */
  POSENC_LINEAR_UNNORMALIZED = 2, /**< no denominator: out_i = phi_q_i^T S (eps unused): DiJiang's
                                       released attention and retention-style models (RetNet
                                       without decay) */
  POSENC_LINEAR_FLAGS_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_linear_flags;

/** Kernelized linear attention (Katharopoulos et al. ICML 2020, eq. 4–6; causal form eq. 8–10).
 *
 *  phi_q, phi_k [n, F] (feature maps of queries and keys, e.g. from posenc_rf_features_f32),
 *  v [n, dv] -> out [n, dv]:
 *    non-causal: out_i = phi_q_i^T S / (phi_q_i^T z + eps), S = sum_j phi_k_j v_j^T [F, dv],
 *                z = sum_j phi_k_j [F];
 *    causal (flags & POSENC_LINEAR_CAUSAL): the same with S_i, z_i summed over j <= i only;
 *    unnormalized (flags & POSENC_LINEAR_UNNORMALIZED): out_i = phi_q_i^T S (or S_i), no
 *    denominator and eps unused (still validated); same accumulation as the numerator above.
 *  Non-causal: per-tile partial states (512 rows) reduced in tile order. Causal: chunks of 128
 *  rows; the state of every chunk (F x dv + F) is reduced to exclusive prefix sums, and inside a
 *  chunk the masked block (phi_Q phi_K^T) V is added — O(n F dv + n 128 (F + dv)) work, all
 *  products in our register-blocked SIMD micro-kernel, float32 accumulation. Bitwise identical
 *  for any thread count.
 *
 *  eps >= 0 is added to the denominator (fast-transformers uses 1e-6 with elu+1 features of order
 *  1); a row whose denominator is exactly 0 is written as 0 (no NaN). For FAVOR+ features use
 *  eps = 0 with queries from POSENC_RF_SHIFT_ROW_MAX and keys from POSENC_RF_SHIFT_SHARED_MAX:
 *  both shifts then cancel exactly, and the denominator is > 0 unless every product phi_q_i,f
 *  phi_k_j,f underflows. An absolute eps is not scale-free: with keys N(0, I) and queries
 *  N(0, a^2 I), d = 64, m = 256, the stabilized denominators reach 1e-9 and eps = 1e-6 would
 *  dominate them. Accuracy (float32 accumulation): for non-negative features and eps = 0, out_i is
 *  a convex combination of the v_j (weights a_ij = phi_q_i . phi_k_j / sum_j a_ij); with eps > 0
 *  it is that combination times D_i / (D_i + eps) <= 1. The abs error against a float64
 *  evaluation of the same formula is <= 2e-5 for |v| <= 4, n <= 1100 (tested on every ISA path,
 *  causal and not; observed <= 3e-7); it grows like sqrt(n) * 6e-8 * max |v| with n. Against
 *  the float64 FAVOR+ estimate on the same omega (stabilized as above, eps = 0, n = 128, keys
 *  N(0, I), queries N(0, a^2 I), a = 1, 2, 3, 5): <= 2e-4 * a (observed <= 2.7e-5 at a = 5;
 *  test FavorStabilizationMatchesFloat64ForLargeNormQueries).
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, F <= 0, dv <= 0,
 *  eps negative or not finite, flags with a bit other than posenc_linear_flags); SIZE_OVERFLOW.
 *  n == 0 is a no-op. out untouched on error. */
POSENC_API posenc_status posenc_linear_attention_f32(const float* phi_q, const float* phi_k, const float* v,
                                                     int64_t n, int32_t F, int32_t dv, int32_t flags, float eps,
                                                     float* out);

/** Exact softmax attention, the O(n^2) reference: out = softmax(scale * q k^T) v.
 *
 *  q, k [n, d], v [n, dv] -> out [n, dv]; out_i = sum_j p_ij v_j, p_ij = exp(s_ij - max_j s_ij) /
 *  sum_j exp(s_ij - max_j s_ij), s_ij = scale * q_i . k_j, over all j (causal == 0) or j <= i
 *  (causal != 0; Vaswani et al. 2017). Blocked and streaming (online softmax, Milakov & Gimelshein
 *  2018 / FlashAttention): query blocks of 64 rows, key blocks of 256, a running max and sum per
 *  row; memory O(n (d + dv)) besides the inputs (K^T is packed once), so n = 16384 and beyond fit.
 *  Accuracy: abs error <= 1e-5 * max |v| against a float64 naive evaluation (tested on every ISA
 *  path, n <= 300, causal and not; observed 5.3e-7 for N(0,1) inputs, scale 1/sqrt(d)).
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, d <= 0, dv <= 0,
 *  scale not finite); SIZE_OVERFLOW. n == 0 is a no-op. out untouched on error. */
POSENC_API posenc_status posenc_softmax_attention_f32(const float* q, const float* k, const float* v, int64_t n,
                                                      int32_t d, int32_t dv, int32_t causal, float scale,
                                                      float* out);

/** Backward of posenc_rf_features_f32: the gradients of L = sum_ij grad_out_ij out_ij.
 *
 *  Same kind, shift, omega [m, d], weights [m] (or NULL for 1), x [n, d] and n as the forward call
 *  (the map is recomputed, bitwise as the forward); grad_out [n, F] (F = 2m for TRIG and
 *  HYPERBOLIC, m otherwise). Outputs, each optional (NULL: not computed), at least one non-NULL:
 *  grad_x [n, d]; grad_weights [m] = sum_i sum_halves grad_out_ij u_ij (u the unweighted map; the
 *  gradient at weights = 1 when weights is NULL); grad_omega [m, d] = sum_i dp_ij x_i. With
 *  p_ij = omega_j . x_i and G = grad_out * out: TRIG dp_ij = w_j (g_i,m+j cos p_ij - g_ij sin p_ij)
 *  / sqrt(m); POSITIVE and GAUSSIAN_POSITIVE dp_ij = G_ij; HYPERBOLIC dp_ij = G_ij - G_i,m+j;
 *  ELU_PLUS_ONE dp_ij = w_j g_ij (1 if p_ij > 0, else exp(p_ij)); RELU dp_ij = w_j g_ij [p_ij > 0]
 *  (0 at p_ij = 0, as torch's relu); grad_x_i = sum_j dp_ij omega_j - h' (sum_j G_ij) x_i with
 *  h' = 0 (TRIG, ELU_PLUS_ONE, RELU), 1, 2 (GAUSSIAN_POSITIVE).
 *  The shift c_i (posenc_rf_shift) is a constant (not differentiated; Performer detaches it too):
 *  with OVERFLOW c_i = 0 below exponent 60, so this is the exact gradient; with ROW_MAX and
 *  SHARED_MAX the factor e^{-c} cancels in linear attention (eps = 0), so the gradient of the
 *  attention output through both calls is exact as well.
 *
 *  Accumulation: float32 products in our SIMD micro-kernel within tiles of 256 rows; grad_weights
 *  and grad_omega sum the tile partials in tile order in float64: bitwise identical for any thread
 *  count. Accuracy: against float64 central differences of the float64 formula (tested on every ISA
 *  path, all kinds, with and without weights): max abs error <= 1e-4 * max |reference| (observed
 *  in tests/test_features.cpp, FeaturesBackward).
 *
 *  Errors: as posenc_rf_features_f32 (grad_out in place of out), and NULL_POINTER when grad_x,
 *  grad_weights and grad_omega are all NULL. n == 0 zero-fills grad_weights and grad_omega. No
 *  output is written on error. */
POSENC_API posenc_status posenc_rf_features_backward_f32(posenc_rf_kind kind, posenc_rf_shift shift, const float* omega,
                                                         int32_t m, int32_t d, const float* weights, const float* x,
                                                         int64_t n, const float* grad_out, float* grad_x,
                                                         float* grad_weights, float* grad_omega);

/** Backward of posenc_linear_attention_f32: given the same phi_q, phi_k [n, F], v [n, dv], flags
 *  (posenc_linear_flags) and eps as the forward call and grad_out [n, dv], writes grad_phi_q, grad_phi_k [n, F] and
 *  grad_v [n, dv] (all required).
 *
 *  With D_i = phi_q_i . z_i + eps, out_i = phi_q_i^T S_i / D_i, a_i = grad_out_i / D_i and
 *  b_i = -(grad_out_i . out_i) / D_i: grad_phi_q_i = S_i a_i + b_i z_i; grad_phi_k_j =
 *  sum_{i: j in i's sum} (a_i . v_j + b_i) phi_q_i; grad_v_j = sum_{i: j in i's sum} (phi_q_i .
 *  phi_k_j) a_i. A row whose forward denominator is 0 (written as 0) contributes 0. With
 *  POSENC_LINEAR_UNNORMALIZED the same with D_i = 1 and b_i = 0 (a_i = grad_out_i). Non-causal:
 *  the state S, z (tile partials in tile order, as the forward), then R = sum_i phi_q_i a_i^T and
 *  r = sum_i b_i phi_q_i (tile partials summed in tile order in float64), grad_phi_k = V R^T + r,
 *  grad_v = phi_k R. Causal: 64-row chunks (the forward uses 128) and exclusive prefix states for
 *  grad_phi_q; the chunks' R, r as a REVERSE exclusive prefix scan (suffix sums over later chunks,
 *  fast-transformers' causal_dot_backward computed in chunks) for grad_phi_k and grad_v, plus the
 *  masked intra-chunk blocks, formed on a staircase of 16-row blocks (the blocks above the
 *  diagonal, all masked, are skipped). Both scans run in two levels: blocks of 8 chunks, whose
 *  totals are scanned first, then the chunks of each block in order (the reverse scan in reverse
 *  order) with the running sum in the tile's scratch (the chunk states are formed twice, for the
 *  block totals and for the running state: cheaper than storing and re-reading n/64 of them);
 *  the block size depends on n only. The forward output is not recomputed: with U = grad_out S^T and the
 *  intra-chunk P = phi_q phi_k^T, G = grad_out V^T, grad_out_i . out_i = (phi_q_i . U_i +
 *  sum_j P_ij G_ij) / D_i and grad_phi_q = U / D + b z^T + M phi_k. Float32 products in our SIMD
 *  micro-kernel, D_i and b_i in float64 (the row sums of float32 products widened exactly, in
 *  SIMD). Bitwise identical for any thread count.
 *
 *  Accuracy: against float64 central differences of the float64 forward (tested on every ISA
 *  path, causal and not, n = 300 and 1100: one and three blocks of 64-row chunks): abs error
 *  <= 2e-4 * (1 + max |reference|).
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, F <= 0, dv <= 0,
 *  eps negative or not finite, flags with a bit other than posenc_linear_flags); SIZE_OVERFLOW.
 *  n == 0 is a no-op. No output is written on error. */
POSENC_API posenc_status posenc_linear_attention_backward_f32(const float* phi_q, const float* phi_k, const float* v,
                                                              int64_t n, int32_t F, int32_t dv, int32_t flags,
                                                              float eps, const float* grad_out, float* grad_phi_q,
                                                              float* grad_phi_k, float* grad_v);

/** Backward of posenc_softmax_attention_f32 by recomputation (FlashAttention-2, Dao 2023, Alg. 2):
 *  given the same q, k [n, d], v [n, dv], causal and scale as the forward call and grad_out
 *  [n, dv], writes grad_q, grad_k [n, d] and grad_v [n, dv] (all required).
 *
 *  The forward output O (the forward kernel) and per query the log-sum-exp L_i (float64) and
 *  Dl_i = grad_out_i . O_i (float64) are computed first; then, with P_ij = exp(scale s_ij - L_i)
 *  recomputed block by block (64 queries x 256 keys, j <= i when causal) and dS = P o (grad_out
 *  V^T - Dl): grad_q = scale dS K (per query block, over key blocks), grad_v = P^T grad_out and
 *  grad_k = scale dS^T Q (per key block, over query blocks): no atomics, each output row written
 *  by one tile in a fixed order, so bitwise identical for any thread count. Memory O(n (d + dv))
 *  besides the inputs (K^T and V^T packed once, O, L, Dl) — the n x n matrix never exists.
 *  Float32 products in our SIMD micro-kernel.
 *
 *  Accuracy: against float64 central differences of the float64 forward (tested on every ISA
 *  path, causal and not, n = 300 so blocks cross): abs error <= 2e-4 * (1 + max |reference|).
 *
 *  Errors: NULL_POINTER (any array NULL while n > 0); INVALID_ARGUMENT (n < 0, d <= 0, dv <= 0,
 *  scale not finite); SIZE_OVERFLOW. n == 0 is a no-op. No output is written on error. */
POSENC_API posenc_status posenc_softmax_attention_backward_f32(const float* q, const float* k, const float* v, int64_t n,
                                                               int32_t d, int32_t dv, int32_t causal, float scale,
                                                               const float* grad_out, float* grad_q, float* grad_k,
                                                               float* grad_v);

/** One step of recurrent (decoding) linear attention (fast-transformers' RecurrentLinearAttention):
 *  consumes one row (phi_q [F], phi_k [F], v [dv]) and the state (state_s [F, dv] row-major,
 *  state_z [F]), updates the state in place, S += phi_k v^T and z += phi_k (float32, in this order
 *  per element), then writes out [dv] = phi_q^T S / (phi_q . z + eps) with the dot products in
 *  float64 (a zero denominator gives a zero row, as posenc_linear_attention_f32). Starting from
 *  S = 0, z = 0 and feeding rows 0..n-1 gives the rows of the causal posenc_linear_attention_f32
 *  (same formula, summed in another order: abs difference <= 2e-5 for |v| <= 4, n <= 300,
 *  tested on every ISA path).
 *
 *  Unnormalized form (POSENC_LINEAR_UNNORMALIZED): pass state_z = NULL; the state is S alone,
 *  out = phi_q^T S (float64 dot products, eps unused), and feeding rows 0..n-1 gives the rows of
 *  the causal unnormalized posenc_linear_attention_f32 (same bound).
 *
 *  Errors: NULL_POINTER (phi_q, phi_k, v, state_s or out NULL); INVALID_ARGUMENT (F <= 0, dv <= 0,
 *  eps negative or not finite); SIZE_OVERFLOW (F * dv). Nothing (state or out) is written on error. */
POSENC_API posenc_status posenc_linear_attention_step_f32(const float* phi_q, const float* phi_k, const float* v,
                                                          int32_t F, int32_t dv, float eps, float* state_s,
                                                          float* state_z, float* out);

/** Multi-head, batched posenc_linear_attention_f32: one call for arrays [batch, heads, n, dim]
 *  with strides (torch's [B, H, n, d] tensors, including views such as q.view(B, n, H, d)
 *  .transpose(1, 2), without copies in the caller).
 *
 *  Layout: element (b, h, i, c) of an array is at base[b * s[0] + h * s[1] + i * s[2] + c], with
 *  s its strides argument (int64_t[3], in ELEMENTS, each >= 0; torch's tensor.stride()[:3]); the
 *  last dimension is contiguous. A NULL strides pointer means the contiguous layout
 *  {heads n dim, n dim, dim}. phi_q, phi_k: dim = F; v, out: dim = dv. The rows of out must not
 *  overlap (sorted by stride, every stride of an extent > 1 is >= the span of the smaller ones);
 *  out must not alias an input.
 *
 *  flags, eps and the formula as posenc_linear_attention_f32, per (b, h) head. The batch * heads
 *  heads run TBB-parallel; each runs the single-head algorithm on its rows (read in place when a
 *  head's rows are contiguous, s[2] == dim, else packed into a per-head buffer) into a staging
 *  array of batch * heads * n * dv floats, written to out once every head is done (so that out is
 *  untouched on any error, OUT_OF_MEMORY included); every head's output is bitwise identical to
 *  posenc_linear_attention_f32 on that head, for any thread count (tests/test_features_multihead.cpp). Accuracy: as
 *  posenc_linear_attention_f32.
 *
 *  Errors: NULL_POINTER (an array NULL while batch * heads * n > 0); INVALID_ARGUMENT (batch,
 *  heads or n < 0, F <= 0, dv <= 0, eps negative or not finite, flags with another bit, a stride
 *  < 0, out's strides making rows overlap); SIZE_OVERFLOW (batch * heads * n, an array's largest
 *  offset). No element is a no-op. out untouched on error. */
POSENC_API posenc_status posenc_linear_attention_mh_f32(int64_t batch, int64_t heads, int64_t n, int32_t F, int32_t dv,
                                                        const float* phi_q, const int64_t* q_strides,
                                                        const float* phi_k, const int64_t* k_strides, const float* v,
                                                        const int64_t* v_strides, int32_t flags, float eps, float* out,
                                                        const int64_t* out_strides);

/** Multi-head, batched posenc_linear_attention_backward_f32: the inputs of
 *  posenc_linear_attention_mh_f32 plus grad_out [batch, heads, n, dv], writes grad_phi_q,
 *  grad_phi_k [batch, heads, n, F] and grad_v [batch, heads, n, dv] (all required), each array
 *  with its own strides (NULL: contiguous; layout rules as posenc_linear_attention_mh_f32, the
 *  rows of each gradient must not overlap). TBB-parallel over the heads, staged like
 *  posenc_linear_attention_mh_f32 (2 F + dv floats per row); every head bitwise
 *  identical to posenc_linear_attention_backward_f32 on that head, for any thread count.
 *  Accuracy: as posenc_linear_attention_backward_f32.
 *
 *  Errors: as posenc_linear_attention_mh_f32 for every array. No output is written on error. */
POSENC_API posenc_status posenc_linear_attention_backward_mh_f32(
    int64_t batch, int64_t heads, int64_t n, int32_t F, int32_t dv, const float* phi_q, const int64_t* q_strides,
    const float* phi_k, const int64_t* k_strides, const float* v, const int64_t* v_strides, int32_t flags, float eps,
    const float* grad_out, const int64_t* grad_out_strides, float* grad_phi_q, const int64_t* grad_q_strides,
    float* grad_phi_k, const int64_t* grad_k_strides, float* grad_v, const int64_t* grad_v_strides);

/** posenc_rf_features_f32 on bfloat16 storage: x [n, d] and out [n, F] hold bf16 bit patterns
 *  (uint16_t, the upper 16 bits of an IEEE float32); omega and weights stay float32. x is widened
 *  to float32 exactly, the float32 map is computed (float32 accumulation, the same kernels), and
 *  each output is rounded once to bf16, to nearest, ties to even (a NaN stays a quiet NaN): out is
 *  bitwise RNE(posenc_rf_features_f32 of the widened x), so the float32 bounds hold plus 2^-9
 *  relative for the rounding. Uses float32 scratch of n (d + F) floats. Arguments, kinds, shifts
 *  and errors as posenc_rf_features_f32. */
POSENC_API posenc_status posenc_rf_features_bf16(posenc_rf_kind kind, posenc_rf_shift shift, const float* omega,
                                                 int32_t m, int32_t d, const float* weights, const uint16_t* x,
                                                 int64_t n, uint16_t* out);

/** posenc_linear_attention_f32 on bfloat16 storage: phi_q, phi_k [n, F], v [n, dv] and out [n, dv]
 *  hold bf16 bit patterns (uint16_t). Inputs are widened to float32 exactly, the float32
 *  algorithm runs (float32 accumulation, flags and eps as posenc_linear_attention_f32) and out is
 *  rounded once to bf16 (nearest, ties to even): bitwise RNE(posenc_linear_attention_f32 of the
 *  widened inputs). Uses float32 scratch of n (2F + 2dv) floats. Errors as
 *  posenc_linear_attention_f32. */
POSENC_API posenc_status posenc_linear_attention_bf16(const uint16_t* phi_q, const uint16_t* phi_k, const uint16_t* v,
                                                      int64_t n, int32_t F, int32_t dv, int32_t flags, float eps,
                                                      uint16_t* out);

/* @@FEATURES-END@@ */

/* ======================================================================================== */
/* graph — Laplacian eigenvector PE, random-walk structural encodings                        */
/* ======================================================================================== */

/* @@GRAPH-BEGIN@@ (section owned by the graph family) */

/*
 * Graph construction, shared by every function of this section
 * ------------------------------------------------------------
 * A graph is num_nodes nodes 0..num_nodes-1 and an edge list src[num_edges], dst[num_edges]
 * (int64 node ids) with optional weights[num_edges] (NULL = every weight 1). It is read as an
 * UNDIRECTED weighted graph with symmetric adjacency A:
 *  - every edge e with src[e] != dst[e] adds weights[e] to A[src][dst] AND A[dst][src], whatever
 *    its direction: duplicates (the same pair, listed in either direction, any number of times)
 *    are SUMMED, as PyG's coalesce / to_undirected(reduce="add") do. An edge list that holds every
 *    edge in both directions (PyG's edge_index convention) therefore doubles every weight, which
 *    leaves L_sym and RWSE unchanged (both are invariant to scaling all weights) but doubles the
 *    eigenvalues of the combinatorial Laplacian: pass each edge once for D - A;
 *  - self-loops (src[e] == dst[e]) are ignored;
 *  - pairs whose summed weight is 0 are dropped (they are not edges);
 *  - d_v = sum_u A[v][u] is the weighted degree; a node with d_v = 0 is isolated.
 * Errors (nothing is written): num_nodes <= 0 (empty graph) -> INVALID_ARGUMENT; num_nodes >=
 * 2^31 - 1 -> SIZE_OVERFLOW; num_edges < 0 -> INVALID_ARGUMENT; src / dst NULL with num_edges > 0
 * -> NULL_POINTER; a node id outside [0, num_nodes) -> INVALID_ARGUMENT naming src[e] / dst[e];
 * a negative, NaN or infinite weight -> INVALID_ARGUMENT naming weights[e].
 *
 * PyG compatibility flags (uint32_t bits, in posenc_laplacian_pe_info.flags and the flags
 * argument of posenc_rwse_ex_f64; a function given a bit it does not list -> INVALID_ARGUMENT
 * naming flags):
 *  - POSENC_GRAPH_BOTH_DIRECTIONS: the edge list already lists every edge in both directions
 *    (PyG's edge_index): every edge with src != dst adds weights[e] / 2 (instead of weights[e])
 *    to A[src][dst] and to A[dst][src], so A = (W + W^T) / 2 with W[u][v] the summed weights
 *    listed from u to v: W itself when the list is symmetric. D - A then has the eigenvalues of
 *    PyG's get_laplacian(normalization=None) and GraphGPS (without the flag exactly 2x theirs);
 *    L_sym and RWSE without self-loops do not change (invariant to a common weight scale). The
 *    symmetry of the list is not checked: an edge listed in one direction only counts half.
 *  - POSENC_GRAPH_KEEP_SELF_LOOPS (RWSE only): a self-loop (v, v) adds weights[e] to A[v][v]
 *    (once, with or without BOTH_DIRECTIONS) and therefore to d_v, as PyG's AddRandomWalkPE and
 *    GraphGPS's RWSE do (karate club node 0 with a self-loop: (P)_00 = 1/17 at t = 1).
 */

#define POSENC_GRAPH_BOTH_DIRECTIONS 1u /**< the edge list lists both directions: A = (W + W^T) / 2 */
#define POSENC_GRAPH_KEEP_SELF_LOOPS 2u /**< RWSE: self-loops count in A and in the degree (PyG) */
#define POSENC_LAPPE_DROP_TRIVIAL 4u    /**< LapPE: drop the first eigenpair (PyG's k + 1, drop first) */
#define POSENC_LAPPE_NAN_PAD 8u         /**< LapPE: k may exceed the pairs available: NaN columns (GraphGPS) */

/** Which graph Laplacian. */
typedef enum {
  POSENC_LAPLACIAN_SYM = 0,          /**< L_sym = I - D^-1/2 A D^-1/2, isolated node: diagonal 1
                                          (PyG get_laplacian(normalization="sym")); spectrum in [0, 2] */
  POSENC_LAPLACIAN_COMBINATORIAL = 1, /**< L = D - A; spectrum in [0, 2 max_v d_v] */
  POSENC_LAPLACIAN_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_laplacian;

/** LapPE eigensolvers (see posenc_laplacian_pe_f64 for when each is chosen). */
typedef enum {
  POSENC_LAPPE_AUTO = 0,         /**< choose per component (the default) */
  POSENC_LAPPE_DENSE = 1,        /**< Eigen SelfAdjointEigenSolver on the dense Laplacian */
  POSENC_LAPPE_SHIFT_INVERT = 2, /**< Spectra SymEigsShiftSolver, sigma < 0, sparse LDL^T */
  POSENC_LAPPE_LANCZOS = 3, /**< Spectra SymEigsSolver on c I - L (largest eigenpairs) */
  POSENC_LAPPE_METHOD_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_lappe_method;

/** How the k returned eigenvalues of a component were proven to be its k smallest. */
typedef enum {
  POSENC_LAPPE_CERT_NONE = 0,    /**< not certified (never returned with POSENC_OK) */
  POSENC_LAPPE_CERT_DENSE = 1,   /**< full dense decomposition (or a 1-node component): exact */
  POSENC_LAPPE_CERT_INERTIA = 2, /**< Sylvester inertia: an LDL^T of L - sigma I with sigma just
                                      below the k-th value has as many negative pivots as values
                                      returned below sigma */
  POSENC_LAPPE_CERT_KRYLOV = 3,  /**< the LDL^T would fill in beyond its limit: a Lanczos run on
                                      the orthogonal complement of the returned vectors, from a
                                      fresh start vector, found no eigenvalue below sigma
                                      (probabilistic: fails only if that start vector is almost
                                      orthogonal to a missed eigenvector) */
  POSENC_LAPPE_CERT_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_lappe_certificate;

/** Options (in) and diagnostics (out) of one posenc_laplacian_pe_ex_f64 call. */
typedef struct {
  uint32_t struct_size;       /**< sizeof(posenc_laplacian_pe_info); set by _init */
  posenc_lappe_method solver; /**< in: AUTO (default), or force one solver for every component
                                   of more than 3k nodes (smaller ones always use DENSE); a forced
                                   solver has no fallback: NOT_CONVERGED if it fails, or, for
                                   SHIFT_INVERT, if the fill-in limit rejects the factorization */
  posenc_lappe_method method; /**< out: solver used for the largest component */
  int64_t components;         /**< number of connected components (isolated nodes included) */
  int64_t matvecs;            /**< sparse products with c I - L (Lanczos, all components) */
  int64_t shift_solves;       /**< triangular solves with (L - sigma I) (shift-invert) */
  double max_residual;        /**< max_j ||L v_j - lambda_j v_j||_2 over the k returned pairs */
  /* ---- added in posenc 0.2 (absent, and not written, when struct_size ==
     POSENC_LAPPE_INFO_SIZE_V1) ---- */
  posenc_lappe_certificate certificate; /**< out: the weakest certificate over the components
                                             (DENSE > INERTIA > KRYLOV) */
  int32_t recoveries;        /**< out: deflated re-searches that found eigenpairs the first solve
                                  had missed (all components; 0 = the first solve was right) */
  double inertia_sigma;      /**< out: the largest component's inertia shift sigma (0 if its
                                  certificate is not INERTIA) */
  int64_t inertia_count;     /**< out: the number of eigenvalues of the largest component's
                                  Laplacian below inertia_sigma (negative LDL^T pivots); -1 if its
                                  certificate is not INERTIA */
  int64_t factor_nnz;        /**< out: nonzeros of the largest LDL^T factor (shift-invert or
                                  inertia) of the largest component; 0 if none was built */
  /* ---- added in posenc 0.3 (absent, and not read, when struct_size is POSENC_LAPPE_INFO_SIZE_V1
     or POSENC_LAPPE_INFO_SIZE_V2: flags = 0) ---- */
  uint32_t flags;            /**< in: 0 (default) or an OR of POSENC_GRAPH_BOTH_DIRECTIONS,
                                  POSENC_LAPPE_DROP_TRIVIAL, POSENC_LAPPE_NAN_PAD (see
                                  posenc_laplacian_pe_ex_f64) */
} posenc_laplacian_pe_info;

/** struct_size of a posenc 0.1 caller's posenc_laplacian_pe_info (fields up to max_residual):
 *  still accepted; the fields after max_residual are then neither read nor written. */
#define POSENC_LAPPE_INFO_SIZE_V1 ((uint32_t)offsetof(posenc_laplacian_pe_info, certificate))
/** struct_size of a posenc 0.2 caller's posenc_laplacian_pe_info (fields up to factor_nnz): still
 *  accepted; flags is then neither read nor written (0). */
#define POSENC_LAPPE_INFO_SIZE_V2 ((uint32_t)offsetof(posenc_laplacian_pe_info, flags))

/** Fills *info with struct_size = sizeof, solver = POSENC_LAPPE_AUTO and zeros (inertia_count =
 *  -1). NULL_POINTER if info is NULL. */
POSENC_API posenc_status posenc_laplacian_pe_info_init(posenc_laplacian_pe_info* info);

/** Laplacian eigenvector positional encoding (LapPE): the k smallest eigenpairs of the chosen
 *  Laplacian of the graph above.
 *
 *  Outputs: eigvals [k], ascending, INCLUDING the zero eigenvalues (GraphGPS keeps them; PyG's
 *  AddLaplacianEigenvectorPE computes k+1 and drops the first: take columns 1..k of a k+1 call).
 *  eigvecs [num_nodes, k] row-major: column j (eigvecs[v*k + j], v = 0..num_nodes-1) is a
 *  unit-norm eigenvector of eigvals[j]; the columns are orthonormal.
 *
 *  Sign rule (deterministic signs): in every column the entry of largest magnitude is positive;
 *  entries within a relative 1e-6 of that magnitude count as tied and the lowest node index
 *  among them decides. Eigenvector signs carry no meaning (Dwivedi et al. flip them at random in
 *  training; SignNet/BasisNet are sign-invariant); this only makes the output reproducible.
 *
 *  Repeated eigenvalues (grids, symmetric graphs, several components) are reported as they are,
 *  each as often as its multiplicity; the basis returned for a repeated eigenspace is ARBITRARY
 *  (any orthonormal basis of the space is equally correct), so compare eigenspaces, not columns.
 *  Disconnected graphs (REFERENCES §4): the Laplacian is block diagonal and each connected
 *  component is solved on its own, so L_sym has exactly one zero per component with >= 2 nodes
 *  (eigenvector proportional to D^1/2 1 on the component) and an isolated node contributes the
 *  eigenvalue 1 with eigenvector e_v (diagonal 1); D - A has one zero per component, isolated
 *  nodes included (eigenvector 1/sqrt(m) on the component). Every eigenvector is supported on one
 *  component (exact zeros elsewhere). Equal eigenvalues from different components are ordered by
 *  their component's lowest node id.
 *
 *  Solver (chosen automatically per component): up to 1024 nodes, or when 3k >= the component's
 *  size, a dense solver: for components of up to 512 nodes (molecules) under AUTO, Householder
 *  tridiagonalization, ALL eigenvalues of the tridiagonal by root-free implicit QL
 *  (Pal-Walker-Kahan, as LAPACK dsterf: the k smallest are never missed), the k smallest
 *  eigenvectors by inverse iteration (2 solves each, re-orthogonalized against the previous ones:
 *  LAPACK dstein's scheme) and the Householder
 *  back-transform, eigenvalues the Rayleigh quotients, each pair accepted only if ||L v - lambda
 *  v||_2 <= 1e-12 c (about a third of the work of a full decomposition); otherwise, or if a pair is
 *  rejected, Eigen's SelfAdjointEigenSolver (always with solver DENSE). Larger components use Spectra 1.0:
 *  (1) shift-invert (SymEigsShiftSolver) with sigma = -1e-6 * c/2 slightly BELOW 0 (never 0, where
 *  L is singular; close to 0 so that the small eigenvalues stay well separated after inversion)
 *  and a sparse LDL^T factor with AMD ordering, attempted only when its size, counted from the
 *  ordered pattern before the symbolic factorization, is at most 40x the nonzeros of L (meshes,
 *  geometric graphs; not expanders) and
 *  at most 6000 factorization flops per nonzero of L (the measured crossover: hub-heavy graphs
 *  such as package dependency or Barabasi-Albert graphs exceed it, and Lanczos is 2-7x faster
 *  on them; grids and geometric graphs stay below 4000, where shift-invert is 3-25x faster);
 *  (2) otherwise, or if (1) fails, Lanczos on c I - L (SymEigsSolver, largest eigenvalues), with
 *  c = 2 for L_sym and the Gershgorin bound c = 2 max_v d_v for D - A, retried with a larger
 *  Krylov subspace (ncv) and more restarts; if Lanczos fails on a component where (1) was skipped
 *  for its flops only, shift-invert runs after all. info->method names the solver that succeeded. Spectra's relative tolerance is 1e-10. After
 *  convergence each pair is polished (eigenvalue = Rayleigh quotient) and accepted only if
 *  ||L v - lambda v||_2 <= 1e-9 c.
 *
 *  Certificate (iterative paths): Krylov methods can miss copies of a repeated eigenvalue and
 *  return larger eigenvalues instead, with small residuals. So, with top = the k-th value found and
 *  sigma = top - 1e-8 c, the result is accepted only when L has exactly as many eigenvalues below
 *  sigma as were returned below sigma. INERTIA (when the numeric LDL^T of L - sigma I, AMD
 *  ordering, costs <= 5e8 flops by its column counts, or when shift-invert factorized the same
 *  pattern: that analysis and storage are reused): the count is the number of negative
 *  pivots (Sylvester's law of inertia; a zero pivot moves sigma down by 0.37e-8 c, up to 4 times).
 *  KRYLOV (otherwise): a Lanczos run on the orthogonal complement of the returned vectors, from a
 *  fresh pseudo-random start vector, must find nothing below sigma (probabilistic). While the check
 *  fails, the returned vectors are deflated, the search goes on below sigma (deflated shift-invert
 *  or Lanczos from new start vectors) and every eigenpair found there replaces the largest ones;
 *  after 2k + 8 rounds, or 3 searches that find nothing while inertia says something is missing,
 *  the call returns NOT_CONVERGED. info reports the certificate, the recoveries, sigma and the
 *  count.
 *
 *  Accuracy: dense path, |lambda_j - exact| <= ~1e-13 c and residuals ~1e-14 c (checked <= 1e-12 c
 *  on the small path); iterative paths, residual <= 1e-9 c, the returned values are the k smallest to within 1e-8 c (certificate), each
 *  an eigenvalue to within its residual (Rayleigh quotient; ~residual^2 / gap when simple).
 *  Eigenvector error ~ residual / gap to the rest of the spectrum. The result is bitwise
 *  identical for any thread count and on every ISA path (no ISA-specific code).
 *
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, k <= 0 or
 *  k > num_nodes -> INVALID_ARGUMENT; eigvals or eigvecs NULL -> NULL_POINTER; num_nodes * k
 *  overflowing -> SIZE_OVERFLOW; no solver reaching the tolerance, or a certificate that cannot be
 *  established -> NOT_CONVERGED (nothing written), the message lists every attempt (method, nev,
 *  ncv, iteration limit, residual reached) or the inertia count against the values found.
 *
 *  Sources: Dwivedi et al., "Benchmarking Graph Neural Networks" (JMLR 2023) §C.2 LapPE;
 *  PyG AddLaplacianEigenvectorPE / get_laplacian; Rampasek et al., GraphGPS (NeurIPS 2022);
 *  Spectra 1.0 (Yixuan Qiu), ARPACK's implicitly restarted Lanczos. */
POSENC_API posenc_status posenc_laplacian_pe_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                 const double* weights, int64_t num_edges,
                                                 posenc_laplacian laplacian, int32_t k,
                                                 double* eigvals, double* eigvecs);

/** posenc_laplacian_pe_f64 with options and diagnostics in *info (may be NULL = AUTO, flags 0;
 *  else its struct_size must be sizeof(posenc_laplacian_pe_info), as set by
 *  posenc_laplacian_pe_info_init, or POSENC_LAPPE_INFO_SIZE_V1 / _V2; another struct_size or a
 *  solver outside the enum -> INVALID_ARGUMENT). The out fields of info are written on success
 *  only.
 *
 *  info->flags (PyG / GraphGPS compatibility; any other bit -> INVALID_ARGUMENT naming
 *  info->flags):
 *   - POSENC_GRAPH_BOTH_DIRECTIONS: graph construction with A = (W + W^T) / 2 (see "Graph
 *     construction"): D - A of PyG's edge_index has PyG's / GraphGPS's eigenvalues.
 *   - POSENC_LAPPE_DROP_TRIVIAL: the k + 1 smallest pairs are computed and the first (smallest,
 *     column 0) is dropped: eigvals [k], eigvecs [num_nodes, k] are pairs 1..k, as PyG's
 *     AddLaplacianEigenvectorPE(k) (eig_vecs[:, 1:k + 1]). Only ONE pair is dropped, also when the
 *     graph has several components (several zero eigenvalues), as in PyG. Needs k + 1 <= num_nodes
 *     unless NAN_PAD is set.
 *   - POSENC_LAPPE_NAN_PAD: k may exceed the number of pairs available, a = num_nodes (a =
 *     num_nodes - 1 with DROP_TRIVIAL): eigvals[j] and every eigvecs[v*k + j] for j >= a are NaN
 *     (GraphGPS's get_lap_decomp_stats pads both with NaN when N < max_freqs), columns < a as
 *     without the flag. Without it, k > a -> INVALID_ARGUMENT naming k.
 *  POSENC_GRAPH_KEEP_SELF_LOOPS is not accepted (PyG's get_laplacian removes self-loops too). */
POSENC_API posenc_status posenc_laplacian_pe_ex_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                    const double* weights, int64_t num_edges,
                                                    posenc_laplacian laplacian, int32_t k,
                                                    double* eigvals, double* eigvecs,
                                                    posenc_laplacian_pe_info* info);

/** Magnetic Laplacian positional encoding of a DIRECTED graph (MagLapPE: Geisler et al.,
 *  "Transformers Meet Directed Graphs", ICML 2023; the magnetic Laplacian of Zhang et al.,
 *  "MagNet", NeurIPS 2021): the k smallest eigenpairs of the complex Hermitian matrix
 *    L_q = I - D_s^-1/2 H D_s^-1/2 (laplacian = POSENC_LAPLACIAN_SYM) or L_q = D_s - H
 *    (POSENC_LAPLACIAN_COMBINATORIAL),  H_uv = A_s[u][v] exp(i Theta_uv),
 *  with W[u][v] the summed weights of the edges listed from u to v (src -> dst, self-loops
 *  ignored; weights NULL = all 1), the symmetrized adjacency A_s = (W + W^T) / 2, D_s =
 *  diag(sum_v A_s[u][v]) and the phase Theta_uv = 2 pi q (W[u][v] - W[v][u]) (potential q >= 0;
 *  an edge u -> v alone gives H_uv = exp(2 pi i q) / 2, a reciprocal pair a real entry). An
 *  isolated node has the diagonal entry 1 (SYM) or 0 (COMBINATORIAL), as in LapPE. q = 0 is the
 *  undirected Laplacian of A_s: posenc_laplacian_pe_f64's L_sym of the same edge list (eigvecs_im
 *  = 0), and for D - A its values with POSENC_GRAPH_BOTH_DIRECTIONS (A = A_s). For unweighted
 *  graphs L_q is periodic in q with period 1 and L_{1-q} = conj(L_q); q = 1/4 gives the largest
 *  phase difference between the two directions (Geisler et al. use q up to 1/4; their relative
 *  potential q' = q / max(1, m_dir) is left to the caller).
 *
 *  Outputs: eigvals [k], ascending (real: L_q is Hermitian; SYM: in [0, 2], D - A: in [0, 2 max_u
 *  d_u]); eigvecs_re, eigvecs_im [num_nodes, k] row-major: column j of eigvecs_re + i eigvecs_im
 *  is a unit-norm eigenvector of eigvals[j]; the columns are orthonormal (complex inner product).
 *  Phase rule (deterministic output; the phase of a complex eigenvector carries no meaning): in
 *  every column the entry of largest modulus is real and positive; entries within a relative 1e-6
 *  of that modulus count as tied and the lowest node index among them decides. The basis of a
 *  repeated eigenvalue is arbitrary, as in LapPE: compare eigenspaces (projectors).
 *
 *  Route: L_q is block diagonal over the connected components of A_s; the k smallest over all
 *  components are kept (ties ordered by component, lowest node id first). A component of n_c <=
 *  4096 nodes is solved densely (verbose path maglap_pe.dense): Householder tridiagonalization of
 *  the complex Hermitian matrix (Eigen; the tridiagonal is real), all eigenpairs of that real
 *  tridiagonal by implicit QR (every eigenvalue found, repeated ones included) and the wanted
 *  vectors back-transformed (q = 0: Eigen's real SelfAdjointEigenSolver, eigvecs_im exactly 0);
 *  cost O(n_c^3). A larger component takes the sparse route (maglap_pe.sparse, when any component
 *  does): Lanczos (Spectra) on the 2n_c x 2n_c real symmetric embedding M = [[Re L, -Im L],
 *  [Im L, Re L]] (every eigenvalue doubled) for its 2 min(k, n_c) + 2 smallest pairs. The
 *  cost of the sparse complex LDL^H of L (Eigen SimplicialLDLT, AMD ordering) is counted first,
 *  from the elimination tree and column counts of the ordered pattern (O(nnz log n) time at worst, near-linear
 *  in practice, before any symbolic factorization): while its factorization costs <= 1e3 n_c^1.5 and <= 1e12 flops
 *  (grids, meshes, near-planar graphs),
 *  shift-invert Lanczos with the shift-solve through the LDL^H of L - sigma I (sigma = -1e-6 c');
 *  otherwise (expander-like graphs) plain Lanczos on c'' I - M (c'' = Gershgorin bound of L).
 *  From each real Ritz pair [u; v] the complex u + i v (q = 0: u and v, so eigvecs_im is exactly
 *  0) spans a subspace, orthonormalized by a rank-revealing QR, and a complex Rayleigh-Ritz with
 *  L gives the pairs. Every returned pair of a sparse component has ||L v - lambda v||_2 <= 1e-7
 *  c' (c' = max(1, max diagonal of L)), and a certificate checks that no eigenvalue below the
 *  returned ones was missed: on the shift-invert variant and while the factorization costs
 *  <= 2e10 flops, by inertia (the
 *  number of negative pivots of the LDL^H of L - tau I, tau = lambda_k - 1e-8 c', Sylvester's
 *  law, must equal the number of Ritz values below tau: a proof); above, probabilistically (a
 *  Lanczos run on c'' I - M with the whole Ritz span projected out must find nothing below tau).
 *  A failed certificate restarts with a larger subspace (3 times), then NOT_CONVERGED.
 *  Accuracy: dense route |eigvals[j] - exact| <= ~1e-13 c (c = 2 for SYM, 2 max_u d_u for D - A),
 *  residuals ||L v - lambda v||_2 ~1e-14 c, eigenvector error ~1e-13 c / gap; sparse route
 *  residuals <= 1e-7 c' guaranteed (observed ~1e-14), eigenvalues observed within 4e-16 of the
 *  closed forms (directed cycles of 5000 and 20000 nodes, directed 64 x 65 tori), eigenvector error
 *  ~residual / gap; a sparse and a dense solve of the same component agree to ~1e-11 c in the
 *  eigenvalues and, for simple eigenvalues, to ~1e-6 in the phase-fixed columns. Bitwise identical
 *  for any thread count and on every ISA path (no ISA-specific code, sequential solvers).
 *
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, q < 0, NaN or
 *  infinite, k <= 0 or k > num_nodes -> INVALID_ARGUMENT; eigvals, eigvecs_re or eigvecs_im NULL
 *  -> NULL_POINTER; num_nodes * k overflowing -> SIZE_OVERFLOW; a component of 2^30 nodes or
 *  more -> UNSUPPORTED; the eigensolver failing,
 *  a sparse residual above the bound or the inertia certificate failing -> NOT_CONVERGED (never a
 *  spectrum with missing eigenvalues); an allocation failing -> OUT_OF_MEMORY.
 *
 *  Sources: Geisler et al. 2023 §3 (MagLapPE); Zhang et al. 2021 (A_s, Theta^(q)); Furutani et
 *  al. 2020 (the magnetic Laplacian for graph learning). */
POSENC_API posenc_status posenc_maglap_pe_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                              const double* weights, int64_t num_edges, posenc_laplacian laplacian,
                                              double q, int32_t k, double* eigvals, double* eigvecs_re,
                                              double* eigvecs_im);

/** Random-walk structural encoding (RWSE, Dwivedi et al. 2022 "Graph Neural Networks with
 *  Learnable Structural and Positional Representations"; PyG AddRandomWalkPE; GraphGPS):
 *  out [num_nodes, steps] row-major, out[v*steps + t-1] = (P^t)_vv for t = 1..steps, where
 *  P = D^-1 A is the random-walk matrix of the graph above: the probability that a walk from v
 *  is back at v after t steps. An isolated node has a zero row of P (PyG sets 1/0 to 0), so its
 *  encodings are all 0. Self-loops are ignored (graph construction above), unlike PyG, which
 *  keeps them in A: posenc_rwse_ex_f64 with POSENC_GRAPH_KEEP_SELF_LOOPS keeps them too.
 *
 *  Exact (no sampling, no truncation): for every node v the walk distribution r_s = e_v^T P^s is
 *  propagated over the sparse CSR for s <= ceil(steps/2), and (P^t)_vv = d_v sum_u
 *  (P^a)_vu (P^b)_vu / d_u with a = ceil(t/2), b = floor(t/2) (reversibility: D P^b is
 *  symmetric), so only the ceil(steps/2)-hop ball of v is visited. Sources are taken in BFS order
 *  and propagated 8 at a time (their balls overlap; each edge visit updates 8 lanes). Cost
 *  O(sum over v of the edges within ceil(steps/2) hops of v); no dense matrix. Blocks are split
 *  over threads in fixed tiles: bitwise identical for any thread count and every ISA path (plain
 *  C++, no ISA-specific code). Graphs of at most 64 nodes (molecules) propagate all sources at
 *  once instead, on the calling thread: source v in lane v of n rows of n (rounded up to 8) lanes,
 *  each row summing its CSR row, and the same meet in the middle (sum over u = 0..n-1 of
 *  (P^a)_vu ((P^b)_vu / d_u)); cost O(ceil(steps/2) (nnz + n) n).
 *
 *  Accuracy: values lie in [0, 1]; absolute error <= 1e-14 against dense matrix powers (tests).
 *  Memory: the graph's CSR, per-thread walk scratch, and one [num_nodes, steps] result buffer that
 *  is copied into out at the end (so that out is written only on success).
 *  Errors (nothing written): the graph errors above; steps <= 0 -> INVALID_ARGUMENT; out NULL ->
 *  NULL_POINTER; num_nodes * steps overflowing -> SIZE_OVERFLOW; an allocation failing ->
 *  OUT_OF_MEMORY (out untouched). */
POSENC_API posenc_status posenc_rwse_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                         const double* weights, int64_t num_edges, int32_t steps,
                                         double* out);

/** posenc_rwse_f64 with PyG compatibility flags: 0 (= posenc_rwse_f64, bitwise) or an OR of
 *  POSENC_GRAPH_KEEP_SELF_LOOPS and POSENC_GRAPH_BOTH_DIRECTIONS (see "Graph construction").
 *  With KEEP_SELF_LOOPS, A[v][v] = the summed self-loop weights of v, d_v includes it and
 *  out[v*steps + t-1] = (P^t)_vv with P = D^-1 A, self-loop steps included: PyG's
 *  AddRandomWalkPE and GraphGPS's get_rw_landing_probs on an edge_index with self-loops (node 0
 *  of the karate club plus one self-loop: (P)_00 = 1/17). Pass BOTH_DIRECTIONS too for PyG's
 *  edge_index (both directions listed): without it every off-diagonal weight counts twice
 *  against the self-loop's. A node whose only edges are self-loops has P_vv = 1. PyG matches for
 *  unweighted graphs; with edge weights PyG's AddRandomWalkPE uses 1/deg (not w/deg) as the
 *  entries of P and clamps degrees below 1, which posenc does not copy (P = D^-1 A exactly).
 *  Method, accuracy (<= 1e-14 absolute against dense matrix powers), determinism and memory as
 *  posenc_rwse_f64 (A's diagonal is one more CSR entry per looped node).
 *  Errors (nothing written): those of posenc_rwse_f64; flags with another bit ->
 *  INVALID_ARGUMENT naming flags. */
POSENC_API posenc_status posenc_rwse_ex_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                            const double* weights, int64_t num_edges, int32_t steps,
                                            uint32_t flags, double* out);

/** RWSE paths of posenc_rwse_auto_f64. */
typedef enum {
  POSENC_RWSE_AUTO = 0,        /**< exact below the cost threshold, else Monte-Carlo (the default) */
  POSENC_RWSE_EXACT = 1,       /**< posenc_rwse_ex_f64's exact meet-in-the-middle propagation */
  POSENC_RWSE_MONTE_CARLO = 2, /**< unbiased random-walk estimate with a stated standard error */
  POSENC_RWSE_METHOD_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rwse_method;

/** Options (in) and diagnostics (out) of one posenc_rwse_auto_f64 call. */
typedef struct {
  uint32_t struct_size;       /**< sizeof(posenc_rwse_info); set by _init */
  posenc_rwse_method method;  /**< in: AUTO (default), or EXACT / MONTE_CARLO forced */
  uint32_t flags;             /**< in: 0 or an OR of POSENC_GRAPH_KEEP_SELF_LOOPS and
                                   POSENC_GRAPH_BOTH_DIRECTIONS (as posenc_rwse_ex_f64) */
  int32_t walks;              /**< in: Monte-Carlo walks per node R; 0 = POSENC_RWSE_DEFAULT_WALKS */
  uint64_t seed;              /**< in: Monte-Carlo seed (any value; _init sets 0) */
  posenc_rwse_method method_used; /**< out: EXACT or MONTE_CARLO */
  int32_t walks_used;         /**< out: R of the Monte-Carlo path; 0 when the exact path ran */
  double std_error_bound;     /**< out: 0.5 / sqrt(R), the largest standard error of one entry
                                   (Monte-Carlo); 0 when the exact path ran */
  double exact_cost;          /**< out: the exact path's estimated work (lane-edge updates, see
                                   posenc_rwse_auto_f64) */
  double monte_carlo_cost;    /**< out: the Monte-Carlo path's work in the same unit
                                   (POSENC_RWSE_MC_STEP_COST x walk steps) */
} posenc_rwse_info;

/** Default Monte-Carlo walks per node: standard error <= 0.5 / sqrt(2500) = 0.01 for every entry. */
#define POSENC_RWSE_DEFAULT_WALKS 2500
/** The cost of one Monte-Carlo walk step in exact-path lane-edge updates (measured: 4-9 on x86-64,
 *  bench/rwse_auto_choice.py). */
#define POSENC_RWSE_MC_STEP_COST 6.0

/** Fills *info with struct_size = sizeof, method = POSENC_RWSE_AUTO, flags 0, walks 0 (the
 *  default), seed 0 and zero outputs. NULL_POINTER if info is NULL. */
POSENC_API posenc_status posenc_rwse_info_init(posenc_rwse_info* info);

/** RWSE (as posenc_rwse_ex_f64: out [num_nodes, steps] row-major, out[v*steps + t-1] = (P^t)_vv
 *  for t = 1..steps, P = D^-1 A, graph construction and info->flags as there) computed exactly or
 *  estimated by Monte-Carlo, chosen by cost. info may be NULL (AUTO, flags 0, default walks, seed
 *  0); else info->struct_size must be sizeof(posenc_rwse_info) (posenc_rwse_info_init). The out
 *  fields of info are written on success only.
 *
 *  EXACT: posenc_rwse_ex_f64's result, bitwise. Its work is modelled as W_exact = sum over its blocks of 8
 *  sources (BFS order) of 8 (sum_{s=0}^{H-1} vol(B_s) + steps |B_H|), H = ceil(steps/2), B_s the
 *  nodes within s hops of the block and vol the sum of their CSR row lengths: the lane-edge updates
 *  of the propagation plus the final products. It is estimated before running from up to 32
 *  evenly spaced blocks (exact when the graph has at most 32 blocks), by BFS to depth H - 1.
 *
 *  MONTE_CARLO (Dwivedi et al. 2022's RWSE as a random-walk return probability): from every node
 *  i with d_i > 0, R walks X_0 = i, X_1, ..., X_{steps-1}; each step goes from x to y with
 *  probability A[x][y] / d_x (weights and kept self-loops as in the exact path; a binary search on
 *  the row's cumulative weights, or a uniform pick where a row's weights are equal). The estimate
 *  is out[i*steps + t-1] = (1/R) sum_walks A[X_{t-1}][i] / d_{X_{t-1}}: the probability that the
 *  walk's t-th step lands on i given X_{t-1}, i.e. the fraction of walks back at i after t steps
 *  with the last step averaged exactly (Rao-Blackwell). It is UNBIASED (E = (P^t)_ii) and each
 *  entry, a mean of R independent terms in [0, 1] with mean p = (P^t)_ii, has standard error
 *  <= sqrt(p (1 - p) / R) <= 0.5 / sqrt(R) (the indicator estimator's; conditioning can only lower
 *  it; t = 1 is exact up to the rounding of the sum). One walk of steps - 1 moves gives every t.
 *  Entries of one node are correlated (the same walks), nodes are independent. Where R p is small
 *  the error is Poisson-like (rare walks with a large term), not Gaussian. Walks of a node advance
 *  8 at a time and the terms are summed in a fixed order. Random numbers: a counter-based
 *  generator (splitmix64) keyed by (seed, node, walk): the output depends on seed, the graph,
 *  steps and R only, and is bitwise identical for any thread count and on every ISA path (plain
 *  C++).
 *  Work W_mc = POSENC_RWSE_MC_STEP_COST x R x steps x (nodes with d > 0): O(n R steps),
 *  independent of the graph's hubs; memory O(nnz + n) plus n doubles per thread.
 *
 *  AUTO: EXACT when W_exact <= W_mc (estimated before running), else MONTE_CARLO: Monte-Carlo is
 *  taken only where it is cheaper than the exact result, at the requested budget R. The constant
 *  POSENC_RWSE_MC_STEP_COST = 6 is the ratio of the CPU time of one walk step to one exact
 *  lane-edge update, measured 4.1-8.7 (x86-64, bench/rwse_auto_choice.py: grids, Barabasi-Albert
 *  2000 and 10^4 nodes, the Debian dependency graph), so near the threshold the choice is within
 *  ~1.5x of the faster path. At R = 2500 and 16 steps: karate, grids and Barabasi-Albert 2000 stay
 *  exact; Barabasi-Albert 10^4 (2.7x faster), the 58 955-node Debian component (10x) and
 *  Barabasi-Albert 10^5 take Monte-Carlo. The choice depends on the graph, steps and R only.
 *  Isolated nodes get zeros on both paths.
 *
 *  Errors (nothing written, info untouched): those of posenc_rwse_ex_f64 (flags read from
 *  info->flags, named info->flags); info->struct_size other than sizeof(posenc_rwse_info),
 *  info->method not in the enum, info->walks < 0 -> INVALID_ARGUMENT naming the field; an
 *  allocation failing -> OUT_OF_MEMORY. */
POSENC_API posenc_status posenc_rwse_auto_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                              const double* weights, int64_t num_edges, int32_t steps,
                                              double* out, posenc_rwse_info* info);

/** Heat kernel of the graph above applied to a block of vectors: y = exp(-t L) x, where L is the
 *  chosen Laplacian (L_sym or D - A, as in posenc_laplacian_pe_f64), x and y are [num_nodes,
 *  num_vectors] row-major (column b is one vector), t >= 0 is the diffusion time (in units of
 *  1/eigenvalue of L). exp(-t L) is the graph's relative kernel: (exp(-t L))_uv is the heat at v
 *  at time t from a unit source at u (Kondor & Lafferty 2002; diffusion distance, Coifman & Lafon
 *  2006); for D - A every column sum is conserved, for L_sym the vector D^1/2 1 is.
 *
 *  Method: Chebyshev expansion on the spectral interval [0, c] (c = 2 for L_sym, c = 2 max_v d_v
 *  for D - A, as in LapPE): with z = t c / 2 and A = (2/c) L - I,
 *  exp(-t L) = sum_j eps_j (-1)^j e^-z I_j(z) T_j(A) (eps_0 = 1, eps_j = 2; I_j the modified Bessel
 *  functions, computed by Miller's backward recurrence normalized by e^z = I_0 + 2 sum I_j), the
 *  T_j(A) x by the three-term recurrence over the sparse CSR. The series is cut at the first m
 *  whose tail 2 sum_{j>m} e^-z I_j(z) is <= 1e-17; m ~ z + O(sqrt(z)), so the cost is about
 *  (t c / 2 + 8 sqrt(t c / 2) + 10) sparse products with the block (O(m nnz num_vectors)); t = 0
 *  returns x. No dense matrix, no eigendecomposition.
 *
 *  Error bound: for every column, ||y_b - exp(-t L) x_b||_2 <= error_bound * ||x_b||_2 with
 *  error_bound = tail + 4 (m + 1)^2 (r + 1) 2^-53 (r = the most nonzeros in a row of L): the
 *  truncation (|T_j| <= 1 on [-1, 1]) plus a conservative rounding term of the recurrence. The
 *  tests measure <= 3e-15 ||x|| (the dense reference's own rounding) against dense
 *  eigendecompositions for t c / 2 up to 60, and <= 1e-15 against scipy.linalg.expm.
 *  Rows are computed in fixed tiles: bitwise identical for any thread count and on every ISA path.
 *
 *  x and y may be the same array (y is written once at the end, only on success).
 *  error_bound may be NULL; else it receives the bound above.
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, t < 0, NaN or
 *  infinite, num_vectors <= 0, a non-finite x[i] -> INVALID_ARGUMENT (naming t / num_vectors /
 *  x[i]); x or y NULL -> NULL_POINTER; num_nodes * num_vectors overflowing -> SIZE_OVERFLOW; an
 *  allocation failing -> OUT_OF_MEMORY. */
POSENC_API posenc_status posenc_heat_kernel_apply_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                      const double* weights, int64_t num_edges,
                                                      posenc_laplacian laplacian, double t, const double* x,
                                                      int64_t num_vectors, double* y, double* error_bound);

/** LapPE and RWSE of many graphs in one call (a dataset, or PyG's Batch): num_graphs graphs in
 *  PyG's Batch layout. Graph g has the nodes node_ptr[g] .. node_ptr[g+1]-1 (GLOBAL ids, as in
 *  Batch.edge_index; node_ptr is Batch.ptr, [num_graphs + 1]) and the edges edge_ptr[g] ..
 *  edge_ptr[g+1]-1 of src / dst / weights (edge_ptr [num_graphs + 1]; the edges of a graph are
 *  contiguous, as in a Batch). Each graph is read as in "Graph construction" above (ids local to
 *  the graph: src[e] - node_ptr[g]).
 *
 *  Outputs (row-major; N = node_ptr[num_graphs]):
 *   - k > 0: eigvals [num_graphs, k], eigvecs [N, k]: row g of eigvals and rows node_ptr[g] ..
 *     node_ptr[g+1]-1 of eigvecs are graph g's posenc_laplacian_pe_f64 result (same Laplacian,
 *     zero eigenvalues, sign rule and component handling). A graph with n_g < k nodes has n_g
 *     pairs: eigvals[g, j] = NaN and eigvecs[v, j] = 0 for j >= n_g (GraphGPS pads the
 *     eigenvalues with NaN too, but its eigenvectors with NaN; no flag selects that here: set
 *     those columns to NaN after the call, or use posenc_laplacian_pe_ex_f64 with
 *     POSENC_LAPPE_NAN_PAD per graph).
 *     k = 0: no LapPE (eigvals, eigvecs may be NULL).
 *   - steps > 0: rwse [N, steps], graph g's posenc_rwse_f64 rows (bitwise equal to that call).
 *     steps = 0: no RWSE (rwse may be NULL).
 *   - graph_status [num_graphs] (may be NULL): POSENC_OK, or the status of the graph whose LapPE
 *     failed (NOT_CONVERGED; its eigvals / eigvecs entries are then NaN; the other graphs are
 *     still computed and written). The call returns the first failing graph's status and names
 *     it in the message, else POSENC_OK.
 *
 *  Method: each graph is computed by one thread, by the code of the single-graph calls: its LapPE
 *  rows are bitwise posenc_laplacian_pe_f64's (solver AUTO, so its components of up to 512 nodes
 *  take the small dense path described there), its RWSE rows bitwise posenc_rwse_f64's (the same
 *  arithmetic; for small graphs over flat per-thread scratch). Graphs are split over threads in
 *  fixed tiles of 16: bitwise identical for any thread count and on every ISA path (no
 *  ISA-specific code). Cost on ZINC-like molecules (15-37 nodes, k = 10, steps = 16, 1 thread):
 *  see docs/PERFORMANCE.md (tens of microseconds per graph, most of it the dense eigensolver).
 *
 *  Errors (nothing written): num_graphs <= 0, node_ptr[0] or edge_ptr[0] != 0, node_ptr or
 *  edge_ptr decreasing, an edge id outside its own graph's nodes (naming src[e] / dst[e] and the
 *  graph), a negative or non-finite weight, laplacian not in the enum, k < 0, steps < 0, k and
 *  steps both 0 -> INVALID_ARGUMENT; node_ptr, edge_ptr, a needed output, or src / dst (with
 *  edges) NULL -> NULL_POINTER; a graph of 2^31 - 2 or more nodes, or N * k, N * steps,
 *  num_graphs * k overflowing -> SIZE_OVERFLOW; an allocation failing -> OUT_OF_MEMORY (nothing
 *  written: the results are staged, about one more copy of the outputs, and copied at the end).
 *
 *  Sources: PyG torch_geometric.data.Batch (ptr, edge_index layout); GraphGPS's LapPE / RWSE
 *  precomputation (Rampasek et al. 2022). */
POSENC_API posenc_status posenc_graph_batch_pe_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                   const int64_t* edge_ptr, const int64_t* src, const int64_t* dst,
                                                   const double* weights, posenc_laplacian laplacian, int32_t k,
                                                   int32_t steps, double* eigvals, double* eigvecs, double* rwse,
                                                   int32_t* graph_status);

/** posenc_graph_batch_pe_f64 with the PyG compatibility flags of the single-graph functions
 *  (flags 0 = posenc_graph_batch_pe_f64, bitwise). flags: 0 or an OR of
 *   - POSENC_GRAPH_BOTH_DIRECTIONS: both LapPE and RWSE read every graph as in "Graph
 *     construction" with that flag (PyG's edge_index, both directions listed);
 *   - POSENC_GRAPH_KEEP_SELF_LOOPS: RWSE only (LapPE ignores self-loops, as PyG's get_laplacian);
 *   - POSENC_LAPPE_DROP_TRIVIAL, POSENC_LAPPE_NAN_PAD: LapPE, as in posenc_laplacian_pe_ex_f64.
 *  Results, graph by graph (bitwise; the tests check it, on every ISA path and thread count):
 *   - rwse rows of graph g = posenc_rwse_ex_f64(n_g, its edges, steps, flags &
 *     (KEEP_SELF_LOOPS | BOTH_DIRECTIONS));
 *   - with NAN_PAD: row g of eigvals and graph g's rows of eigvecs = posenc_laplacian_pe_ex_f64(n_g,
 *     its edges, k) with info->flags = flags & (BOTH_DIRECTIONS | DROP_TRIVIAL | NAN_PAD) and
 *     solver AUTO: GraphGPS's padding (NaN eigenvalues AND eigenvectors beyond the pairs available);
 *   - without NAN_PAD: with a = n_g - (1 if DROP_TRIVIAL else 0) pairs available, the columns
 *     j < min(k, a) are that call's result with k = min(k, a), and the columns j >= a have
 *     eigvals NaN and eigvecs 0 (as posenc_graph_batch_pe_f64; a 1-node graph with DROP_TRIVIAL has
 *     no pair: every column padded).
 *  Method, accuracy, determinism, graph_status and errors as posenc_graph_batch_pe_f64; flags
 *  with another bit -> INVALID_ARGUMENT naming flags. */
POSENC_API posenc_status posenc_graph_batch_pe_ex_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                      const int64_t* edge_ptr, const int64_t* src, const int64_t* dst,
                                                      const double* weights, posenc_laplacian laplacian, int32_t k,
                                                      int32_t steps, uint32_t flags, double* eigvals, double* eigvecs,
                                                      double* rwse, int32_t* graph_status);

/** posenc_graph_batch_pe_ex_f64 with the RWSE of every graph chosen as by posenc_rwse_auto_f64
 *  (exact, or the unbiased Monte-Carlo estimator for graphs where the exact path costs more).
 *  rwse_options: NULL (AUTO, POSENC_RWSE_DEFAULT_WALKS walks, seed 0) or a posenc_rwse_info set by
 *  posenc_rwse_info_init whose in fields method, walks and seed apply to every graph; its flags
 *  field must be 0 (the flags argument applies, as in posenc_graph_batch_pe_ex_f64); it is only
 *  read (no out field is written). rwse_method_used [num_graphs] (may be NULL) receives, per graph,
 *  POSENC_RWSE_MONTE_CARLO where the estimator ran, else POSENC_RWSE_EXACT (also for graphs
 *  without nodes and when steps = 0).
 *  Results, graph by graph (bitwise; tested on every ISA path and thread count): the rwse rows of
 *  graph g = posenc_rwse_auto_f64(n_g, its edges, steps, out, info) with info->method, walks and
 *  seed from rwse_options and info->flags = flags & (KEEP_SELF_LOOPS | BOTH_DIRECTIONS): the seed
 *  keys the walks of graph g by its LOCAL node ids, so equal graphs in one batch get equal
 *  estimates; give graphs different estimates by calling per shard with different seeds. With
 *  method EXACT every rwse row equals posenc_graph_batch_pe_ex_f64's. The LapPE outputs,
 *  graph_status, accuracy of the exact rows, determinism and errors are those of
 *  posenc_graph_batch_pe_ex_f64. The Monte-Carlo rows have the standard error <= 0.5 / sqrt(R)
 *  of posenc_rwse_auto_f64 (R = the walks). Cost: AUTO evaluates the exact path's cost model per
 *  graph (a BFS to depth ceil(steps/2) - 1 from up to 32 blocks of sources), a few percent of a
 *  molecule's exact RWSE; molecules always take the exact path at the default budget (W_exact ~
 *  2e4 lane-edge updates vs W_mc ~ 6e6), so the estimator matters for batches holding large
 *  hub-heavy graphs (see posenc_rwse_auto_f64).
 *  Errors (nothing written): those of posenc_graph_batch_pe_ex_f64; rwse_options->struct_size other
 *  than sizeof(posenc_rwse_info), rwse_options->method not in the enum, rwse_options->walks < 0,
 *  rwse_options->flags != 0 -> INVALID_ARGUMENT naming the field. */
POSENC_API posenc_status posenc_graph_batch_pe_auto_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                        const int64_t* edge_ptr, const int64_t* src, const int64_t* dst,
                                                        const double* weights, posenc_laplacian laplacian, int32_t k,
                                                        int32_t steps, uint32_t flags,
                                                        const posenc_rwse_info* rwse_options, double* eigvals,
                                                        double* eigvecs, double* rwse, int32_t* graph_status,
                                                        int32_t* rwse_method_used);

/** Relative random-walk probabilities (RRWP, GRIT: Ma et al., "Graph Inductive Biases in
 *  Transformers without Message Passing", ICML 2023), sparse: for every ordered node pair (i, j)
 *  at hop distance <= steps - 1 (i == j included), values[p, s] = (P^s)_ij for s = 0..steps-1,
 *  P = D^-1 A the random-walk matrix of the graph above ((P^0) = I): the probability that a walk
 *  from i is at j after s steps. Pairs farther apart have all these values 0 and are not listed.
 *  The pairs (i, i) carry the absolute part [1, (P)_ii, ..., (P^(steps-1))_ii] = [1, RWSE of
 *  posenc_rwse_f64 with steps - 1]. An isolated node has only its pair (i, i) = [1, 0, ..., 0].
 *
 *  Outputs: *num_pairs = the number of listed pairs (always written on success); pairs
 *  [num_pairs, 2] (int64 i, j) sorted by i, then j; values [num_pairs, steps] row-major. With
 *  pairs == values == NULL only *num_pairs is computed (size query); else both must hold
 *  max_pairs rows, and max_pairs < *num_pairs -> INVALID_ARGUMENT naming max_pairs (then only
 *  *num_pairs is written).
 *
 *  Method: e_i^T P^s propagated over the sparse CSR from every source (cost O(sum_i edges within
 *  steps - 1 hops of i)); sources split over threads in fixed tiles: bitwise identical for any
 *  thread count and on every ISA path. Accuracy: values in [0, 1], absolute error <= ~1e-15
 *  against dense matrix powers (tests).
 *  Errors (nothing written): the graph errors above; steps < 1 -> INVALID_ARGUMENT; num_pairs
 *  NULL, or exactly one of pairs / values NULL -> NULL_POINTER; max_pairs < 0 or too small ->
 *  INVALID_ARGUMENT; an allocation failing -> OUT_OF_MEMORY. */
POSENC_API posenc_status posenc_rrwp_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                         const double* weights, int64_t num_edges, int32_t steps,
                                         int64_t max_pairs, int64_t* num_pairs, int64_t* pairs, double* values);

/** Shortest-path distance up to a hop cap (Graphormer's spatial encoding, Ying et al. 2021),
 *  sparse: every ordered pair (i, j) with hop distance d(i, j) <= max_hops (i == j included, d =
 *  0) in the graph above, unweighted (every listed edge with src != dst is an edge; weights are
 *  not taken). Pairs farther apart or unreachable are not listed (Graphormer clips or marks them).
 *  Outputs: *num_pairs, pairs [num_pairs, 2] sorted by i then j, dist [num_pairs] (int32); size
 *  query and max_pairs as in posenc_rrwp_f64. Method: a BFS from every node, stopped at
 *  max_hops (cost O(sum_i edges within max_hops of i)); exact; sources split over threads in
 *  fixed tiles (same result for any thread count).
 *  Errors (nothing written): the graph errors above; max_hops < 1 -> INVALID_ARGUMENT; num_pairs
 *  NULL, or exactly one of pairs / dist NULL -> NULL_POINTER; max_pairs < 0 or too small ->
 *  INVALID_ARGUMENT; an allocation failing -> OUT_OF_MEMORY. */
POSENC_API posenc_status posenc_shortest_path_i32(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                  int64_t num_edges, int32_t max_hops, int64_t max_pairs,
                                                  int64_t* num_pairs, int64_t* pairs, int32_t* dist);

/** Heat-kernel diagonal (HKdiagSE of GraphGPS; Kondor & Lafferty 2002): out [num_nodes,
 *  num_times] row-major, out[v*num_times + i] = (exp(-times[i] L))_vv for the chosen Laplacian of
 *  the graph above, computed EXACTLY (to the bound below), not from truncated eigenpairs (which
 *  are off by 0.11 at k = 8 on small molecules).
 *  Method: the Chebyshev series of posenc_heat_kernel_apply_f64, exp(-tL) = sum_j eps_j (-1)^j a_j
 *  T_j(A) with A = (2/c) L - I (c the spectral bound: 2 for L_sym, twice the largest weighted
 *  degree for D - A), a_j = e^-z I_j(z), z = t c / 2, m_i terms for times[i] (truncation tail
 *  <= 1e-17; m is at most about 9 sqrt(z) + 10, e.g. 42 at z = 20). The moments mu_j(v) = (T_j(A))_vv, j <= m = max m_i,
 *  come from w_a = T_a(A) e_v, a <= H = ceil(m / 2), which lives on the a-hop ball of v:
 *  mu_{2a} = 2 <w_a, w_a> - 1, mu_{2a+1} = 2 <w_a, w_{a+1}> - mu_1 (meet in the middle, as the
 *  exact RWSE); one set of moments serves every time. Nodes go in blocks of 8 BFS-adjacent
 *  sources, each block propagated over the union of their H-hop balls B_a only: cost about
 *  sum_v sum_{a=1..H} vol(B_a(v)) multiply-adds (vol = nnz of L's rows in the ball), e.g. a
 *  1000 x 1000 grid with L_sym and times 1..20 (H = 21) in about 21 s on one core, linear in
 *  num_nodes on graphs of bounded growth; where the balls are the whole graph (hub graphs, large
 *  t c) it is about num_nodes * H * nnz(L), half the cost of ONE time of the global route
 *  (heat_apply on blocks of 32 unit vectors per time), which the environment variable
 *  POSENC_HEAT_DIAG_ROUTE=global (a test knob) still selects. Verbose path heat_kernel_diag.local
 *  (heat_kernel_diag.chebyshev for the global route).
 *  Error: |out - exact| <= error_bound for every entry (error_bound, if not NULL, receives
 *  max_i tail_i + 5 e + 2 e^2 + 2.02 N u (1 + e)^2 + (m_i + 5) u with e = 2 (H + 1)^2 (r + 4) u,
 *  u = 2^-53, r the largest row count of L (diagonal included) and N the largest ball |B_H|: the
 *  local recurrence's rounding, the inner products over the ball and the final sum; below 1e-11
 *  for t c / 2 <= 25, degree <= 8 and balls of <= 1000 nodes, growing with N on graphs whose
 *  balls are large (2e-10 at N = 10^6); docs/ACCURACY.md). Memory: per worker thread about
 *  24 N doubles of work vectors plus a copy of L restricted to the ball (about 190 MB a thread
 *  where the balls are a 10^6-node graph).
 *  Bitwise identical for any thread count and on every ISA path (plain C++ in lib/, fixed blocks).
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, num_times <= 0, a
 *  times[i] < 0, NaN or infinite -> INVALID_ARGUMENT (naming times[i]); times or out NULL ->
 *  NULL_POINTER; num_nodes * num_times overflowing -> SIZE_OVERFLOW. */
POSENC_API posenc_status posenc_heat_kernel_diag_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                     const double* weights, int64_t num_edges,
                                                     posenc_laplacian laplacian, const double* times,
                                                     int32_t num_times, double* out, double* error_bound);

/** Rows of the heat kernel for chosen source nodes: out [num_sources, num_nodes] row-major,
 *  out[s*num_nodes + v] = (exp(-t L))_{sources[s], v} (the heat at v at time t from a unit source;
 *  exp(-tL) is symmetric, so rows = columns). Method, bound (|out - exact| <= error_bound per
 *  row in the 2-norm) and determinism as posenc_heat_kernel_diag_f64, on blocks of 32 sources.
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, t < 0, NaN or
 *  infinite, num_sources <= 0, a sources[s] outside [0, num_nodes) -> INVALID_ARGUMENT; sources or
 *  out NULL -> NULL_POINTER; num_sources * num_nodes overflowing -> SIZE_OVERFLOW. */
POSENC_API posenc_status posenc_heat_kernel_rows_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                     const double* weights, int64_t num_edges,
                                                     posenc_laplacian laplacian, double t, const int64_t* sources,
                                                     int64_t num_sources, double* out, double* error_bound);

/** Diffusion distance (Coifman & Lafon 2006, with the graph heat kernel) for node pairs:
 *  out[p] = D_t(i, j) = ||exp(-t L) (e_i - e_j)||_2 = sqrt(sum_l exp(-2 t lambda_l) (phi_l(i) -
 *  phi_l(j))^2) over ALL eigenpairs of L, for (i, j) = (pairs[2p], pairs[2p+1]) (int64 [num_pairs,
 *  2]). Computed from the kernel (posenc_heat_kernel_apply_f64 on blocks of 32 vectors e_i - e_j),
 *  no eigenpairs: |out[p] - exact| <= error_bound (= sqrt(2) times the apply bound).
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, t < 0, NaN or
 *  infinite, num_pairs <= 0, a node id outside [0, num_nodes) (naming pairs[q]) ->
 *  INVALID_ARGUMENT; pairs or out NULL -> NULL_POINTER. */
POSENC_API posenc_status posenc_diffusion_distance_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                       const double* weights, int64_t num_edges,
                                                       posenc_laplacian laplacian, double t, const int64_t* pairs,
                                                       int64_t num_pairs, double* out, double* error_bound);

/** Diffusion distance from k eigenpairs (e.g. posenc_laplacian_pe_f64's output): out[p] =
 *  sqrt(sum_{j<k} exp(-2 t eigvals[j]) (eigvecs[i*k+j] - eigvecs[j'*k+j])^2) for (i, j') = pairs[p].
 *  Truncation (eigvecs orthonormal eigenvectors of L for its k smallest eigenvalues, ascending):
 *  the missing terms have eigenvalues >= eigvals[k-1] and sum to at most ||e_i - e_j||^2 = 2 times
 *  exp(-2 t eigvals[k-1]), so 0 <= D_t - out[p] <= truncation_bound = sqrt(2) exp(-t
 *  eigvals[k-1]) (0 when k = num_nodes). truncation_bound may be NULL.
 *  Errors (nothing written): num_nodes <= 0, k outside [1, num_nodes], an eigvals[j] negative,
 *  non-finite or below eigvals[j-1], t < 0 or non-finite, num_pairs <= 0, a node id outside
 *  [0, num_nodes) -> INVALID_ARGUMENT; a NULL array -> NULL_POINTER. */
POSENC_API posenc_status posenc_diffusion_distance_eig_f64(int64_t num_nodes, int32_t k, const double* eigvals,
                                                           const double* eigvecs, double t, const int64_t* pairs,
                                                           int64_t num_pairs, double* out, double* truncation_bound);

/* @@GRAPH-END@@ */

/* ======================================================================================== */
/* learned — learned position tables as parameters                                           */
/* ======================================================================================== */

/* @@LEARNED-BEGIN@@ (section owned by the learned family) */

/* Learned absolute position tables (GPT-2 wpe 1024x768, BERT 512x768, ViT/DeiT patch grids) as
 * parameters: a table [rows, dim] of float32, row-major, one row per position. Lookup is
 * x + P[pos]; a position outside the table is an error (a learned table cannot extrapolate).
 * Tables and outputs must not overlap unless stated. */

/** Lookup-add: x[i, :] += table[positions[i], :] for i < n.
 *
 *  table: [rows, dim]; positions: [n], each in [0, rows); x: [n, dim], updated in place.
 *  Exact: each element is one float32 addition (identical on every ISA and thread count).
 *  All positions are checked before x is touched.
 *
 *  Errors: NULL_POINTER (table NULL; positions or x NULL while n > 0); INVALID_ARGUMENT
 *  (rows <= 0, dim <= 0, n < 0, a position outside [0, rows): the message names the first such
 *  index and its value); SIZE_OVERFLOW (rows * dim or n * dim overflows). n == 0 is a no-op. */
POSENC_API posenc_status posenc_learned_add_f32(const float* table, int64_t rows, int32_t dim,
                                                const int64_t* positions, int64_t n, float* x);

/** Gradient of the lookup with respect to the table (a scatter-add, as PyTorch's embedding
 *  backward): grad_table[positions[i], :] += grad_x[i, :] for i < n.
 *
 *  grad_x: [n, dim]; positions: [n], each in [0, rows) (repeats allowed); grad_table:
 *  [rows, dim], accumulated in place (rows no position names are left untouched).
 *  Deterministic: the contributions to one table row are added in increasing i, in float32, so
 *  the result equals the sequential loop `for i in 0..n-1: grad_table[pos[i]] += grad_x[i]`
 *  bit for bit, for any thread count and on every ISA (the rows of grad_x are bucketed by
 *  position first; threads split the touched table rows, never one row's sum).
 *
 *  Errors: NULL_POINTER (grad_table NULL; grad_x or positions NULL while n > 0);
 *  INVALID_ARGUMENT (n < 0, dim <= 0, rows <= 0, a position outside [0, rows): the message names
 *  the first such index and its value); SIZE_OVERFLOW. n == 0 is a no-op. */
POSENC_API posenc_status posenc_learned_grad_f32(const float* grad_x, const int64_t* positions, int64_t n,
                                                 int32_t dim, float* grad_table, int64_t rows);

/** Singular spectrum and effective rank of a table [rows, dim].
 *
 *  singular_values: [min(rows, dim)] float64, descending, >= 0; effective_rank: one float64,
 *  erank = exp(H(p)), H(p) = -sum_k p_k ln p_k, p_k = s_k / sum_j s_j (Roy & Vetterli, "The
 *  effective rank: a measure of effective dimensionality", EUSIPCO 2007), 0 ln 0 = 0; it lies in
 *  [1, rank(table)] for a nonzero table. For the all-zero table, sum s = 0 and p is undefined:
 *  posenc defines erank = 0 (= its rank). Either output may be NULL (then it is not written).
 *  Method: the table is converted exactly to float64 and decomposed with Eigen's divide-and-
 *  conquer SVD (Eigen::BDCSVD) in one thread. Accuracy: singular values within ~1e-13 * s_max of
 *  the exact ones of the float32 table (backward-stable SVD in float64); rank(P) <= min(rows, dim).
 *
 *  Errors: NULL_POINTER (table NULL); INVALID_ARGUMENT (rows <= 0, dim <= 0, a non-finite
 *  entry: the message names it); SIZE_OVERFLOW; NOT_CONVERGED if BDCSVD reports no convergence. */
POSENC_API posenc_status posenc_learned_spectrum_f32(const float* table, int64_t rows, int32_t dim,
                                                     double* singular_values, double* effective_rank);

/** Best rank-r approximation (truncated SVD): table ~= left [rows, r] * right [r, dim], with
 *  left = U_r Sigma_r and right = V_r^T (the r leading singular triplets). By Eckart-Young-Mirsky
 *  the Frobenius error of the float64 factors is sqrt(sum_{k > r} s_k^2), the smallest of any
 *  rank-r matrix; the float32 outputs add a rounding error of ~6e-8 * ||table||_F.
 *  Sign rule: each row of right has its largest-magnitude entry positive (first on ties), so the
 *  factors are deterministic. Method: Eigen::BDCSVD in float64 (thin U, V), one thread.
 *  With repeated singular values at the cut, the choice among equally good factors is Eigen's.
 *
 *  Errors: NULL_POINTER (table, left or right NULL); INVALID_ARGUMENT (rows <= 0, dim <= 0,
 *  r < 1 or r > min(rows, dim), a non-finite entry); SIZE_OVERFLOW; NOT_CONVERGED. */
POSENC_API posenc_status posenc_learned_lowrank_f32(const float* table, int64_t rows, int32_t dim, int32_t r,
                                                    float* left, float* right);

/** Interpolation for posenc_learned_resample_f32 (PyTorch F.interpolate on CPU, align_corners=False,
 *  sizes given, no scale_factor: scale = in_size / out_size per axis). */
typedef enum {
  POSENC_RESAMPLE_BICUBIC_AA = 0, /**< timm's default: mode='bicubic', antialias=True. Keys cubic
                                       a = -0.5, support 2*max(scale, 1), center = scale*(i + 0.5),
                                       taps outside the input dropped, weights renormalized to 1
                                       (ATen _compute_indices_min_size_weights_aa) */
  POSENC_RESAMPLE_BICUBIC = 1,    /**< mode='bicubic', antialias=False (DeiT): Keys a = -0.75, 4 taps
                                       around src = scale*(i + 0.5) - 0.5, indices clamped to the edge */
  POSENC_RESAMPLE_LINEAR = 2,     /**< mode='bilinear' ('linear' in 1-D), antialias=False:
                                       src = max(scale*(i + 0.5) - 0.5, 0), 2 taps, the upper one
                                       clamped to the edge. Like PyTorch, no antialiasing when
                                       downsampling */
  POSENC_RESAMPLE_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_resample;

/** Resample a learned 2-D (or 1-D) position grid to a new size, as timm
 *  resample_abs_pos_embed(posemb, new_size, old_size, num_prefix_tokens=prefix, interpolation,
 *  antialias) and PyTorch F.interpolate(..., align_corners=False) on CPU.
 *
 *  table: [prefix + old_h*old_w, dim]: the first `prefix` rows are class/register/distillation
 *  tokens, copied to out unchanged; grid row y*old_w + x holds position (y, x) (channels last).
 *  out: [prefix + new_h*new_w, dim], same layout. A 1-D table is old_h = new_h = 1.
 *  Separable: the per-axis weights are computed once in float64 (stored as float32), then a
 *  width pass and a height pass, each a weighted sum of whole rows vectorized over the channels;
 *  an axis whose size does not change is copied exactly (PyTorch's weights are exactly the
 *  identity there), so equal sizes give a bit-exact copy.
 *  Accuracy: max abs error <= 1e-6 * sum_k |w_k| * max|table| per pass against float64; measured
 *  against torch 1.13 F.interpolate run in float64: <= 1.1e-7 * max|table| (1-D, 512..32768 rows,
 *  all modes). torch in float32 errs up to 2.9e-4 * max|table| there. table, out must not overlap.
 *
 *  Errors: NULL_POINTER (table or out NULL); INVALID_ARGUMENT (prefix < 0, dim <= 0, any of
 *  old_h, old_w, new_h, new_w <= 0, mode not a posenc_resample); SIZE_OVERFLOW (any size product
 *  overflows). */
POSENC_API posenc_status posenc_learned_resample_f32(const float* table, int32_t prefix, int64_t old_h,
                                                     int64_t old_w, int32_t dim, int64_t new_h, int64_t new_w,
                                                     posenc_resample mode, float* out);

/** Adjoint (transpose) of posenc_learned_resample_f32: the gradient of a loss with respect to the
 *  table given its gradient with respect to the resampled table, for fine-tuning through a
 *  resize (timm resample_abs_pos_embed inside a model; PyTorch's F.interpolate backward).
 *
 *  The forward is out = A table with A = [I_prefix, 0; 0, Wh (x) Ww] (Ww, Wh the per-axis weight
 *  matrices of posenc_learned_resample_f32, as the same float32 weights); this computes
 *  grad_table = A^T grad_out: the prefix rows copied, then a height pass with Wh^T (new_h ->
 *  old_h rows) and a width pass with Ww^T (new_w -> old_w columns), an axis whose size does not
 *  change copied exactly. Each output element is one ordered sum of its column of A (the
 *  forward's taps transposed into a gather, increasing output index), so the result is bitwise
 *  identical for any thread count; the sums use fused multiply-add where the ISA has FMA.
 *
 *  grad_out: [prefix + new_h*new_w, dim]; grad_table: [prefix + old_h*old_w, dim], overwritten
 *  (not accumulated); layouts and arguments as posenc_learned_resample_f32 (old_* the sizes of
 *  the forward's input). grad_out and grad_table must not overlap.
 *  Accuracy: max abs error <= 1e-6 * sum_k |w_k| * max|grad_out| per pass against float64
 *  evaluation of A^T with the same weights; <A x, y> = <x, A^T y> to float32 rounding (tests).
 *
 *  Errors: NULL_POINTER (grad_out or grad_table NULL); INVALID_ARGUMENT (prefix < 0, dim <= 0,
 *  any size <= 0, mode not a posenc_resample); SIZE_OVERFLOW. Nothing is written on error. */
POSENC_API posenc_status posenc_learned_resample_backward_f32(const float* grad_out, int32_t prefix, int64_t old_h,
                                                              int64_t old_w, int32_t dim, int64_t new_h,
                                                              int64_t new_w, posenc_resample mode,
                                                              float* grad_table);

/* @@LEARNED-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_POSENC_H */
