// rope family benchmarks. Sinusoidal table: posenc vs the common fp32-phase scalar loop.
#include "bench/bench_common.hpp"

#include <cmath>

using namespace posenc_bench;

namespace {

// posenc_sinusoidal_f32: exact phases, SIMD polynomial, threads. Args: n positions, dim.
void BM_sinusoidal_posenc(benchmark::State& st) {
  const int64_t n = smoke() ? 64 : st.range(0);
  const int32_t dim = static_cast<int32_t>(st.range(1));
  std::vector<float> out(static_cast<size_t>(n * dim));
  for (auto _ : st) {
    if (!ok(st, posenc_sinusoidal_f32(nullptr, n, dim, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, out.data()))) return;
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n * dim);
  st.SetBytesProcessed(st.iterations() * n * dim * 4);
  label(st);
}

// Anchor: the usual implementation (fairseq / tensor2tensor / HF): fp32 phase pos * w_i and
// libm sinf / cosf per element, one thread, scalar loop.
void BM_sinusoidal_libm_fp32_phase(benchmark::State& st) {
  const int64_t n = smoke() ? 64 : st.range(0);
  const int32_t dim = static_cast<int32_t>(st.range(1));
  const int32_t half = dim / 2;
  std::vector<float> w(static_cast<size_t>(half));
  for (int32_t i = 0; i < half; ++i) w[i] = static_cast<float>(std::pow(10000.0, -2.0 * i / dim));
  std::vector<float> out(static_cast<size_t>(n * dim));
  for (auto _ : st) {
    for (int64_t p = 0; p < n; ++p) {
      float* row = out.data() + p * dim;
      const float fp = static_cast<float>(p);
      for (int32_t i = 0; i < half; ++i) {
        const float ph = fp * w[i];
        row[2 * i] = sinf(ph);
        row[2 * i + 1] = cosf(ph);
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n * dim);
  st.SetBytesProcessed(st.iterations() * n * dim * 4);
}

}  // namespace

BENCHMARK(BM_sinusoidal_posenc)->Args({4096, 128})->Args({131072, 128})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_sinusoidal_libm_fp32_phase)->Args({4096, 128})->Args({131072, 128})->Unit(benchmark::kMicrosecond)->UseRealTime();
