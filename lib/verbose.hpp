// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/verbose.hpp — the per-call profiling record shared by lib/verbose.cpp (verbose lines, call
// records, roofline) and lib/trace.cpp (Chrome trace events). Never installed.
#pragma once

#include "lib/internal.hpp"

#include <string>

namespace posenc {
namespace detail {

/// What one public call did (thread-local; only while profiling is on).
struct call_ctx {
  const char* fn;      ///< public function name (static storage)
  const char* path;    ///< branch named by path(), or nullptr: the default (fn without "posenc_")
  uint64_t t0_ns;      ///< entry (prof_now_ns)
  uint64_t t1_ns;      ///< return
  uint64_t id;         ///< process-wide call number (links tile events to their call)
  uint32_t flags;      ///< g_prof at entry
  double bytes;        ///< work(): modelled bytes read + written
  double flops;        ///< work(): modelled flops
  bool flops_f32;
  int64_t tiles;       ///< largest parallel section's tile count
  char shape[128];     ///< POSENC_SHAPE text ("" = none)
};

/// The path name of a call: the annotated one or the function name without "posenc_".
const char* path_of(const call_ctx& c);

/// Records the call's complete event (lib/trace.cpp); no-op when no trace runs.
void trace_call(const call_ctx& c, posenc_status status, posenc_isa isa, int32_t threads);
/// Appends the decimal digits of v.
void append_int(std::string& out, long long v);
/// Writes s as the contents of a JSON string (quotes, backslashes and control characters escaped).
void json_escape_to(std::string& out, const char* s);

}  // namespace detail
}  // namespace posenc
