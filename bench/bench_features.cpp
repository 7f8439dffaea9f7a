// SPDX-License-Identifier: Apache-2.0 OR MIT
// features family benchmarks: random feature maps vs the projection GEMM alone (Eigen anchor in
// bench_features_native.cpp), linear attention (causal and not) vs exact softmax attention, and
// the cost of sampling Omega.
#include "bench/bench_common.hpp"

#include <cmath>
#include <random>

using namespace posenc_bench;

namespace {

std::vector<float> rnd(size_t n, float lo, float hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// posenc_rf_features_f32. Args: kind, n, d, m. Items = n * m projections (each with its epilogue).
void BM_rf_features(benchmark::State& st) {
  const auto kind = static_cast<posenc_rf_kind>(st.range(0));
  const int64_t n = smoke() ? 96 : st.range(1);
  const int32_t d = static_cast<int32_t>(st.range(2)), m = static_cast<int32_t>(st.range(3));
  std::vector<float> om(static_cast<size_t>(m) * d);
  if (!ok(st, posenc_rf_sample_f32(POSENC_RF_ORTHOGONAL, d, m, 1.0, 1, om.data()))) return;
  auto x = rnd(static_cast<size_t>(n) * d, -0.2f, 0.2f, 2);
  const int64_t len = (kind == POSENC_RF_TRIG || kind == POSENC_RF_HYPERBOLIC) ? 2 * m : m;
  std::vector<float> out(static_cast<size_t>(n * len));
  for (auto _ : st) {
    if (!ok(st, posenc_rf_features_f32(kind, POSENC_RF_SHIFT_OVERFLOW, om.data(), m, d, nullptr, x.data(), n, out.data()))) return;
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n * m);
  st.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * m * d * st.iterations(), benchmark::Counter::kIsRate,
                                              benchmark::Counter::kIs1000);
  label(st);
}

// posenc_linear_attention_f32. Args: n, F, dv, causal. Counted flops: 4 n F dv (state and
// readout) plus, causal, 2 n 128 (F + dv) for the intra-chunk blocks.
void BM_linear_attention(benchmark::State& st) {
  const int64_t n = smoke() ? 300 : st.range(0);
  const int32_t F = static_cast<int32_t>(st.range(1)), dv = static_cast<int32_t>(st.range(2));
  const int causal = static_cast<int>(st.range(3));
  auto q = rnd(static_cast<size_t>(n) * F, 0.0f, 1.0f, 3), k = rnd(static_cast<size_t>(n) * F, 0.0f, 1.0f, 4);
  auto v = rnd(static_cast<size_t>(n) * dv, -1.0f, 1.0f, 5);
  std::vector<float> out(static_cast<size_t>(n) * dv);
  for (auto _ : st) {
    if (!ok(st, posenc_linear_attention_f32(q.data(), k.data(), v.data(), n, F, dv, causal, 1e-6f, out.data()))) return;
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 4.0 * n * F * dv + (causal ? 2.0 * n * 128 * (F + dv) : 0.0);
  st.counters["GFLOP/s"] = benchmark::Counter(flops * st.iterations(), benchmark::Counter::kIsRate,
                                              benchmark::Counter::kIs1000);
  st.SetItemsProcessed(st.iterations() * n);
  label(st);
}

// posenc_softmax_attention_f32 (exact, O(n^2)). Args: n, d, dv, causal. Flops 2 n^2 (d + dv),
// halved when causal.
void BM_softmax_attention(benchmark::State& st) {
  const int64_t n = smoke() ? 300 : st.range(0);
  const int32_t d = static_cast<int32_t>(st.range(1)), dv = static_cast<int32_t>(st.range(2));
  const int causal = static_cast<int>(st.range(3));
  auto q = rnd(static_cast<size_t>(n) * d, -1.0f, 1.0f, 6), k = rnd(static_cast<size_t>(n) * d, -1.0f, 1.0f, 7);
  auto v = rnd(static_cast<size_t>(n) * dv, -1.0f, 1.0f, 8);
  std::vector<float> out(static_cast<size_t>(n) * dv);
  for (auto _ : st) {
    if (!ok(st, posenc_softmax_attention_f32(q.data(), k.data(), v.data(), n, d, dv, causal, 0.125f, out.data()))) return;
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 2.0 * n * n * (d + dv) * (causal ? 0.5 : 1.0);
  st.counters["GFLOP/s"] = benchmark::Counter(flops * st.iterations(), benchmark::Counter::kIsRate,
                                              benchmark::Counter::kIs1000);
  st.SetItemsProcessed(st.iterations() * n);
  label(st);
}

// posenc_rf_sample_f32. Args: sampling, d, m.
void BM_rf_sample(benchmark::State& st) {
  const auto s = static_cast<posenc_rf_sampling>(st.range(0));
  const int32_t d = smoke() ? 8 : static_cast<int32_t>(st.range(1));
  const int32_t m = smoke() ? 16 : static_cast<int32_t>(st.range(2));
  std::vector<float> om(static_cast<size_t>(m) * d);
  uint64_t seed = 0;
  for (auto _ : st) {
    if (!ok(st, posenc_rf_sample_f32(s, d, m, 1.0, seed++, om.data()))) return;
    benchmark::DoNotOptimize(om.data());
  }
  st.SetItemsProcessed(st.iterations() * int64_t(m) * d);
}

}  // namespace

// kinds: 0 TRIG, 1 POSITIVE, 2 HYPERBOLIC, 3 GAUSSIAN_POSITIVE
BENCHMARK(BM_rf_features)->ArgNames({"kind", "n", "d", "m"})
    ->Args({0, 65536, 64, 256})->Args({1, 65536, 64, 256})->Args({2, 65536, 64, 256})->Args({3, 65536, 64, 256})
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_linear_attention)->ArgNames({"n", "F", "dv", "causal"})
    ->ArgsProduct({{256, 512, 1024, 4096, 16384, 65536}, {256}, {64}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_softmax_attention)->ArgNames({"n", "d", "dv", "causal"})
    ->ArgsProduct({{256, 512, 1024, 4096, 16384}, {64}, {64}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_softmax_attention)->ArgNames({"n", "d", "dv", "causal"})
    ->Args({65536, 64, 64, 0})->Args({65536, 64, 64, 1})->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
// samplings: 0 IID, 1 ORTHOGONAL, 2 QMC, 3 PFF
BENCHMARK(BM_rf_sample)->ArgNames({"sampling", "d", "m"})
    ->Args({0, 128, 1024})->Args({1, 128, 1024})->Args({2, 128, 1024})->Args({3, 128, 1024})
    ->Unit(benchmark::kMillisecond)->UseRealTime();
