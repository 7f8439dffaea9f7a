// SPDX-License-Identifier: Apache-2.0 OR MIT
// features family, training path: forward + backward of FAVOR+ (positive features of q and k,
// queries ROW_MAX, keys SHARED_MAX) + linear attention, per head, and the backward passes alone
// against their forwards (causal linear attention, softmax attention). The torch autograd anchor
// of the same computation is bench/torch_features.py (ratio measured in one process). The decoding
// step (steps/s) against a memcpy of its state.
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

// Args: F, dv, unnormalized. One recurrent decoding step (state update + read-out) per iteration;
// items = steps, so items_per_second is steps/s.
void BM_linear_attention_step(benchmark::State& st) {
  const int32_t F = static_cast<int32_t>(st.range(0)), dv = static_cast<int32_t>(st.range(1));
  const bool unnorm = st.range(2) != 0;
  const int64_t rows = 64;  // cycle through 64 distinct rows
  auto q = gauss(size_t(rows) * F, 1.0f, 10), k = gauss(size_t(rows) * F, 1.0f, 11), v = gauss(size_t(rows) * dv, 1.0f, 12);
  for (auto* a : {&q, &k}) for (auto& e : *a) e = std::fabs(e) * 1e-3f;  // keep the state bounded
  std::vector<float> S(size_t(F) * dv, 0.0f), z(size_t(F), 0.0f), out(static_cast<size_t>(dv));
  int64_t i = 0;
  for (auto _ : st) {
    const int64_t r = i++ % rows;
    if (!ok(st, posenc_linear_attention_step_f32(q.data() + r * F, k.data() + r * F, v.data() + r * dv, F, dv, 1e-6f,
                                                 S.data(), unnorm ? nullptr : z.data(), out.data()))) return;
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations());
  st.SetBytesProcessed(st.iterations() * int64_t(2 * sizeof(float)) * F * dv);  // the state read and written
  label(st);
}

// Anchor of the decoding step: one pass that reads and writes the F x dv state (memcpy of its bytes).
void BM_linear_attention_step_anchor(benchmark::State& st) {
  memcpy_anchor(st, size_t(st.range(0)) * size_t(st.range(1)) * sizeof(float));
}

// Args: n, F, dv, heads, mode. 8 heads of a [1, n, H, F] tensor (torch's q.view(B, n, H, F)
// before the transpose): mode 0 = one posenc_linear_attention_mh_f32 call on the strided view
// (heads packed internally), mode 1 = the anchor: a loop of posenc_linear_attention_f32 over
// heads already stored contiguously (no packing at all).
void BM_linear_attention_heads(benchmark::State& st) {
  const int64_t n = smoke() ? 200 : st.range(0);
  const int32_t F = static_cast<int32_t>(st.range(1)), dv = static_cast<int32_t>(st.range(2));
  const int64_t H = st.range(3);
  const int mode = static_cast<int>(st.range(4));
  auto q = gauss(size_t(n * H * F), 1.0f, 13), k = gauss(size_t(n * H * F), 1.0f, 14);
  for (auto* a : {&q, &k}) for (auto& e : *a) e = std::fabs(e);
  auto v = gauss(size_t(n * H * dv), 1.0f, 15);
  std::vector<float> out(size_t(n * H * dv));
  const int64_t sq[3] = {n * H * F, F, H * F}, sv[3] = {n * H * dv, dv, H * dv};
  for (auto _ : st) {
    if (mode == 0) {
      if (!ok(st, posenc_linear_attention_mh_f32(1, H, n, F, dv, q.data(), sq, k.data(), sq, v.data(), sv, 1, 1e-6f,
                                                 out.data(), sv))) return;
    } else {
      for (int64_t h = 0; h < H; ++h)
        if (!ok(st, posenc_linear_attention_f32(q.data() + h * n * F, k.data() + h * n * F, v.data() + h * n * dv, n, F,
                                                dv, 1, 1e-6f, out.data() + h * n * dv))) return;
    }
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n * H);
  label(st);
}

}  // namespace

BENCHMARK(BM_linear_attention_heads)->ArgNames({"n", "F", "dv", "heads", "mode"})
    ->ArgsProduct({{4096}, {256}, {64}, {8}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_linear_attention_step)->ArgNames({"F", "dv", "unnormalized"})->Args({256, 64, 0})->Args({256, 64, 1});
BENCHMARK(BM_linear_attention_step_anchor)->ArgNames({"F", "dv"})->Args({256, 64});
BENCHMARK(BM_favor_train_step)->ArgNames({"n", "d", "m", "heads", "causal"})
    ->Args({8192, 64, 256, 8, 0})->Args({8192, 64, 256, 8, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_linear_attention_fb)->ArgNames({"n", "F", "dv", "causal", "backward"})
    ->ArgsProduct({{8192}, {256}, {64}, {0, 1}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();
