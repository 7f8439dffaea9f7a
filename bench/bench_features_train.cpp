// SPDX-License-Identifier: Apache-2.0 OR MIT
// features family, training path: forward + backward of FAVOR+ (positive features of q and k,
// queries ROW_MAX, keys SHARED_MAX) + linear attention, per head, and the backward passes alone
// against their forwards (causal linear attention, softmax attention). The torch autograd anchor
// of the same computation is bench/torch_features.py (ratio measured in one process).
#include "bench/bench_common.hpp"

#include <cmath>
#include <random>

using namespace posenc_bench;

namespace {

std::vector<float> gauss(size_t n, float sd, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = g(rng);
  return v;
}

// Args: n, d, m, heads, causal. One iteration: for each head, features of q and k, linear
// attention, its backward, and the backward of both feature maps (grad_x).
void BM_favor_train_step(benchmark::State& st) {
  const int64_t n = smoke() ? 200 : st.range(0);
  const int32_t d = static_cast<int32_t>(st.range(1)), m = static_cast<int32_t>(st.range(2));
  const int heads = smoke() ? 1 : static_cast<int>(st.range(3));
  const int causal = static_cast<int>(st.range(4));
  const int32_t dv = d;
  std::vector<float> om(static_cast<size_t>(m) * d);
  if (!ok(st, posenc_rf_sample_f32(POSENC_RF_ORTHOGONAL, d, m, 1.0, 1, om.data()))) return;
  const float s = 1.0f / std::pow(float(d), 0.25f);  // Performer's q, k scaling
  const size_t nd = size_t(n) * d, nm = size_t(n) * m;
  auto q = gauss(nd * heads, s, 2), k = gauss(nd * heads, s, 3), v = gauss(nd * heads, 1.0f, 4);
  auto go = gauss(nd * heads, 1.0f, 5);
  std::vector<float> pq(nm), pk(nm), out(nd), gpq(nm), gpk(nm), gv(nd), gq(nd), gk(nd);
  for (auto _ : st) {
    for (int h = 0; h < heads; ++h) {
      const float* qh = q.data() + h * nd;
      const float* kh = k.data() + h * nd;
      const float* vh = v.data() + h * nd;
      if (!ok(st, posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_ROW_MAX, om.data(), m, d, nullptr, qh, n, pq.data()))) return;
      if (!ok(st, posenc_rf_features_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_SHARED_MAX, om.data(), m, d, nullptr, kh, n, pk.data()))) return;
      if (!ok(st, posenc_linear_attention_f32(pq.data(), pk.data(), vh, n, m, dv, causal, 0.0f, out.data()))) return;
      if (!ok(st, posenc_linear_attention_backward_f32(pq.data(), pk.data(), vh, n, m, dv, causal, 0.0f, go.data() + h * nd,
                                                       gpq.data(), gpk.data(), gv.data()))) return;
      if (!ok(st, posenc_rf_features_backward_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_ROW_MAX, om.data(), m, d, nullptr, qh, n,
                                                  gpq.data(), gq.data(), nullptr, nullptr))) return;
      if (!ok(st, posenc_rf_features_backward_f32(POSENC_RF_POSITIVE, POSENC_RF_SHIFT_SHARED_MAX, om.data(), m, d, nullptr, kh, n,
                                                  gpk.data(), gk.data(), nullptr, nullptr))) return;
      benchmark::DoNotOptimize(gq.data());
      benchmark::DoNotOptimize(gk.data());
    }
  }
  st.SetItemsProcessed(st.iterations() * n * heads);
  label(st);
}

// Args: n, F, dv, causal, backward. The forward alone (backward = 0) or the backward alone.
void BM_linear_attention_fb(benchmark::State& st) {
  const int64_t n = smoke() ? 300 : st.range(0);
  const int32_t F = static_cast<int32_t>(st.range(1)), dv = static_cast<int32_t>(st.range(2));
  const int causal = static_cast<int>(st.range(3)), bwd = static_cast<int>(st.range(4));
  auto q = gauss(size_t(n) * F, 1.0f, 6), k = gauss(size_t(n) * F, 1.0f, 7);
  for (auto* a : {&q, &k}) for (auto& e : *a) e = std::fabs(e);
  auto v = gauss(size_t(n) * dv, 1.0f, 8), go = gauss(size_t(n) * dv, 1.0f, 9);
  std::vector<float> out(size_t(n) * dv), gq(size_t(n) * F), gk(size_t(n) * F), gv(size_t(n) * dv);
  for (auto _ : st) {
    if (bwd) {
      if (!ok(st, posenc_linear_attention_backward_f32(q.data(), k.data(), v.data(), n, F, dv, causal, 1e-6f, go.data(),
                                                       gq.data(), gk.data(), gv.data()))) return;
    } else if (!ok(st, posenc_linear_attention_f32(q.data(), k.data(), v.data(), n, F, dv, causal, 1e-6f, out.data()))) {
      return;
    }
    benchmark::DoNotOptimize(gv.data());
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n);
  label(st);
}

}  // namespace

BENCHMARK(BM_favor_train_step)->ArgNames({"n", "d", "m", "heads", "causal"})
    ->Args({8192, 64, 256, 8, 0})->Args({8192, 64, 256, 8, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_linear_attention_fb)->ArgNames({"n", "F", "dv", "causal", "backward"})
    ->ArgsProduct({{8192}, {256}, {64}, {0, 1}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();
