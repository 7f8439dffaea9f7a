// SPDX-License-Identifier: Apache-2.0 OR MIT
// learned family benchmarks.
//  - add / grad at 4096 x 768 (a batch of 4 GPT-2 sequences of 1024 positions; table 1024 x 768)
//    against memcpy_anchor moving the same number of bytes (read + write).
//  - resample of a ViT grid (BICUBIC_AA, timm's default) 14x14 -> 24x24 and 32x32 -> 64x64 at 768
//    channels against a plain separable loop (same weights, computed outside the timing loop).
#include "bench/bench_common.hpp"

#include <algorithm>
#include <cmath>
#include <random>

using namespace posenc_bench;

namespace {

constexpr int64_t kTableRows = 1024;

std::vector<float> filled(size_t count, uint64_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = d(rng);
  return v;
}

// Bytes each kernel must move: add reads x and the table row and writes x; grad reads grad_x
// and reads + writes every touched table row once.
int64_t add_bytes(int64_t n, int64_t dim) { return 3 * n * dim * 4; }
int64_t grad_bytes(int64_t n, int64_t rows, int64_t dim) { return (n + 2 * std::min(n, rows)) * dim * 4; }

void BM_learned_add(benchmark::State& st) {
  const int64_t n = smoke() ? 64 : st.range(0);
  const int32_t dim = static_cast<int32_t>(smoke() ? 17 : st.range(1));
  const int64_t rows = std::min(n, kTableRows);
  auto table = filled(static_cast<size_t>(rows * dim), 1);
  auto x = filled(static_cast<size_t>(n * dim), 2);
  std::vector<int64_t> pos(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pos[static_cast<size_t>(i)] = i % rows;
  for (auto _ : st) {
    if (!ok(st, posenc_learned_add_f32(table.data(), rows, dim, pos.data(), n, x.data()))) return;
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * add_bytes(n, dim));
  label(st);
}

void BM_learned_add_memcpy_anchor(benchmark::State& st) {
  const int64_t n = smoke() ? 64 : st.range(0), dim = smoke() ? 17 : st.range(1);
  memcpy_anchor(st, static_cast<size_t>(add_bytes(n, dim) / 2));
}

void BM_learned_grad(benchmark::State& st) {
  const int64_t n = smoke() ? 64 : st.range(0);
  const int32_t dim = static_cast<int32_t>(smoke() ? 17 : st.range(1));
  const int64_t rows = std::min(n, kTableRows);
  auto gx = filled(static_cast<size_t>(n * dim), 3);
  std::vector<float> gt(static_cast<size_t>(rows * dim), 0.0f);
  std::vector<int64_t> pos(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pos[static_cast<size_t>(i)] = i % rows;
  for (auto _ : st) {
    if (!ok(st, posenc_learned_grad_f32(gx.data(), pos.data(), n, dim, gt.data(), rows))) return;
    benchmark::DoNotOptimize(gt.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * grad_bytes(n, rows, dim));
  label(st);
}

void BM_learned_grad_memcpy_anchor(benchmark::State& st) {
  const int64_t n = smoke() ? 64 : st.range(0), dim = smoke() ? 17 : st.range(1);
  memcpy_anchor(st, static_cast<size_t>(grad_bytes(n, std::min(n, kTableRows), dim) / 2));
}

// ------------------------------------------------------------------ resample
double keys(double x, double a) {
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

/// PyTorch antialiased bicubic weights for one axis: per output, (first input, weights).
struct Taps {
  std::vector<int64_t> first;
  std::vector<std::vector<float>> w;
};
Taps aa_taps(int64_t in, int64_t out) {
  Taps t;
  const double scale = double(in) / double(out), fs = std::max(scale, 1.0), support = 2.0 * fs;
  for (int64_t j = 0; j < out; ++j) {
    const double center = scale * (j + 0.5);
    const int64_t x0 = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t x1 = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
    std::vector<double> w;
    double total = 0.0;
    for (int64_t x = x0; x < x1; ++x) total += w.emplace_back(keys((x - center + 0.5) / fs, -0.5));
    std::vector<float> wf;
    for (double v : w) wf.push_back(static_cast<float>(v / total));
    t.first.push_back(x0);
    t.w.push_back(std::move(wf));
  }
  return t;
}

// Args: old side, new side, channels.
void BM_learned_resample_bicubic_aa(benchmark::State& st) {
  const int64_t o = smoke() ? 4 : st.range(0), nw = smoke() ? 6 : st.range(1);
  const int32_t dim = static_cast<int32_t>(smoke() ? 8 : st.range(2));
  auto table = filled(static_cast<size_t>((1 + o * o) * dim), 4);
  std::vector<float> out(static_cast<size_t>((1 + nw * nw) * dim));
  for (auto _ : st) {
    if (!ok(st, posenc_learned_resample_f32(table.data(), 1, o, o, dim, nw, nw, POSENC_RESAMPLE_BICUBIC_AA, out.data())))
      return;
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * nw * nw * dim);
  label(st);
}

// Anchor: the plain separable loop (what a straightforward C++ port of F.interpolate does):
// width pass into a temporary, then height pass, tap loop outside, channel loop inside, one
// thread, baseline compiler flags (the compiler may auto-vectorize the channel loop with SSE2).
void BM_learned_resample_plain_loop(benchmark::State& st) {
  const int64_t o = smoke() ? 4 : st.range(0), nw = smoke() ? 6 : st.range(1);
  const int64_t dim = smoke() ? 8 : st.range(2);
  auto table = filled(static_cast<size_t>((1 + o * o) * dim), 4);
  std::vector<float> out(static_cast<size_t>((1 + nw * nw) * dim)), tmp(static_cast<size_t>(o * nw * dim));
  const Taps tw = aa_taps(o, nw), th = aa_taps(o, nw);
  for (auto _ : st) {
    std::copy(table.begin(), table.begin() + dim, out.begin());
    const float* grid = table.data() + dim;
    for (int64_t y = 0; y < o; ++y)
      for (int64_t xo = 0; xo < nw; ++xo) {
        float* d = tmp.data() + (y * nw + xo) * dim;
        std::fill(d, d + dim, 0.0f);
        const auto& w = tw.w[static_cast<size_t>(xo)];
        for (size_t k = 0; k < w.size(); ++k) {
          const float* s = grid + (y * o + tw.first[static_cast<size_t>(xo)] + static_cast<int64_t>(k)) * dim;
          for (int64_t c = 0; c < dim; ++c) d[c] += w[k] * s[c];
        }
      }
    for (int64_t yo = 0; yo < nw; ++yo) {
      float* d = out.data() + (1 + yo * nw) * dim;
      std::fill(d, d + nw * dim, 0.0f);
      const auto& w = th.w[static_cast<size_t>(yo)];
      for (size_t k = 0; k < w.size(); ++k) {
        const float* s = tmp.data() + (th.first[static_cast<size_t>(yo)] + static_cast<int64_t>(k)) * nw * dim;
        for (int64_t c = 0; c < nw * dim; ++c) d[c] += w[k] * s[c];
      }
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * nw * nw * dim);
}

}  // namespace

BENCHMARK(BM_learned_add)->Args({4096, 768})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_learned_add_memcpy_anchor)->Args({4096, 768})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_learned_grad)->Args({4096, 768})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_learned_grad_memcpy_anchor)->Args({4096, 768})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_learned_resample_bicubic_aa)->Args({14, 24, 768})->Args({32, 64, 768})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_learned_resample_plain_loop)->Args({14, 24, 768})->Args({32, 64, 768})->Unit(benchmark::kMicrosecond)->UseRealTime();
