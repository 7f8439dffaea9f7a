// SPDX-License-Identifier: Apache-2.0 OR MIT
// bench/bench_common.hpp — shared helpers for posenc_bench.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "posenc/posenc.h"

namespace posenc_bench {

/// True when run with --smoke (CI): benchmarks should use their smallest sizes.
bool smoke();

/// Aborts the benchmark with the posenc message if a call failed.
inline bool ok(benchmark::State& st, posenc_status s) {
  if (s != POSENC_OK) {
    st.SkipWithError(posenc_last_error_message());
    return false;
  }
  return true;
}

/// Records the active ISA and thread count as labels, and bytes/items per iteration.
void label(benchmark::State& st);

/// A plain copy of `bytes` bytes: the bandwidth anchor for memory-bound kernels.
void memcpy_anchor(benchmark::State& st, size_t bytes);

}  // namespace posenc_bench
