// SPDX-License-Identifier: Apache-2.0 OR MIT
// features family anchors, compiled for the build machine (bench/CMakeLists.txt gives this file
// -march=native on native builds): the projection GEMM X . Omega^T by Eigen (the well-kept GEMM
// the fused feature kernel is compared with) and an FMA-peak probe (the ceiling quoted for the
// attention kernels). Eigen runs single-threaded (no OpenMP): compare with posenc --threads=1.
// posenc_bench is built for and run on the machine that builds it, so -march=native here does not
// change where the binary can run.
#include "bench/bench_common.hpp"

#include <Eigen/Dense>

#include <random>

#if defined(__AVX512F__) || defined(__FMA__)
#include <immintrin.h>
#endif

using namespace posenc_bench;

namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Eigen: out [n, m] = X [n, d] * Omega^T (Omega [m, d] row-major = a column-major [d, m] view).
void BM_rf_projection_gemm_eigen(benchmark::State& st) {
  const int64_t n = smoke() ? 96 : st.range(0);
  const int d = static_cast<int>(st.range(1)), m = static_cast<int>(st.range(2));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-0.2f, 0.2f);
  RowMat x(n, d), om(m, d), out(n, m);
  for (int64_t i = 0; i < x.size(); ++i) x.data()[i] = u(rng);
  for (int64_t i = 0; i < om.size(); ++i) om.data()[i] = u(rng);
  for (auto _ : st) {
    out.noalias() = x * om.transpose();
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n * m);
  st.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * m * d * st.iterations(), benchmark::Counter::kIsRate,
                                              benchmark::Counter::kIs1000);
  st.SetLabel(Eigen::SimdInstructionSetsInUse());
}

// One thread's fused-multiply-add peak: 12 independent accumulator chains of the widest vector.
void BM_fma_peak_one_thread(benchmark::State& st) {
#if defined(__AVX512F__)
  using V = __m512;
  constexpr int L = 16;
#define POSENC_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define POSENC_SET1(x) _mm512_set1_ps(x)
#elif defined(__FMA__)
  using V = __m256;
  constexpr int L = 8;
#define POSENC_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define POSENC_SET1(x) _mm256_set1_ps(x)
#endif
#if defined(__AVX512F__) || defined(__FMA__)
  constexpr int K = 12;
  const int64_t iters = smoke() ? 1000 : 10000000;
  V acc[K];
  for (int i = 0; i < K; ++i) acc[i] = POSENC_SET1(1.0f + i * 1e-3f);
  const V a = POSENC_SET1(0.999999f), b = POSENC_SET1(1e-7f);
  for (auto _ : st) {
    for (int64_t it = 0; it < iters; ++it)
      for (int i = 0; i < K; ++i) acc[i] = POSENC_FMA(acc[i], a, b);
    benchmark::DoNotOptimize(acc);
  }
  st.counters["GFLOP/s"] = benchmark::Counter(2.0 * K * L * iters * st.iterations(), benchmark::Counter::kIsRate,
                                              benchmark::Counter::kIs1000);
#undef POSENC_FMA
#undef POSENC_SET1
#else
  st.SkipWithError("no FMA in this build of the anchor TU");
#endif
}

}  // namespace

BENCHMARK(BM_rf_projection_gemm_eigen)->ArgNames({"n", "d", "m"})->Args({65536, 64, 256})
    ->Args({65536, 64, 512})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fma_peak_one_thread)->Unit(benchmark::kMillisecond)->UseRealTime();
