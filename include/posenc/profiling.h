// SPDX-License-Identifier: Apache-2.0 OR MIT
/*
 * posenc/profiling.h — the C ABI of posenc, profiling section:
 * verbose lines, Chrome/Perfetto trace, call records, machine roofline.
 *
 * posenc/posenc.h includes this header with the others; its opening comment states the
 * conventions every section follows. This header compiles alone, as C99 and as C++.
 */
#ifndef POSENC_PROFILING_H
#define POSENC_PROFILING_H

#include "posenc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_PROFILING_H */
