// SPDX-License-Identifier: Apache-2.0 OR MIT
// rope family benchmarks. Sinusoidal table: posenc vs the common fp32-phase scalar loop.
#include "bench/bench_common.hpp"

#include <cmath>
#include <vector>

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

// ============================================================================================
// RoPE
// ============================================================================================
namespace {

constexpr int64_t kQ = 32, kK = 8, kHd = 128;  // Llama-3.1-8B

posenc_rope_params llama31() {
  posenc_rope_params p;
  posenc_rope_params_init(&p, POSENC_ROPE_LLAMA3, 128, 500000.0);
  p.factor = 8;
  p.original_max_position = 8192;
  return p;
}

/// Positions: contiguous 0..n-1 (prefill) or scattered in [0, 131072) (a decode batch; in
/// [0, 256) in smoke mode, the smoke table size).
std::vector<int64_t> bench_positions(int64_t n, bool scattered) {
  const uint64_t range = smoke() ? 256 : 131072;
  std::vector<int64_t> pos(static_cast<size_t>(n));
  uint64_t x = 88172645463325252ull;
  for (int64_t i = 0; i < n; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    pos[i] = scattered ? static_cast<int64_t>(x % range) : i;
  }
  return pos;
}

int64_t tokens_arg(benchmark::State& st) { return smoke() ? 16 : st.range(0); }

// posenc_rope_apply_f32 / _bf16 on q [T, 32, 128] and k [T, 8, 128]. Args: tokens, layout, scattered.
template <class E>
void rope_apply_bench(benchmark::State& st) {
  const int64_t T = tokens_arg(st);
  const auto layout = static_cast<posenc_rope_layout>(st.range(1));
  const auto pos = bench_positions(T, st.range(2) != 0);
  const auto p = llama31();
  const E one = sizeof(E) == 4 ? E(1) : E(0x3f80);  // 1.0f, or bf16 1.0 (not a denormal)
  std::vector<E> q(static_cast<size_t>(T * kQ * kHd), one), k(static_cast<size_t>(T * kK * kHd), one);
  int inverse = 0;
  for (auto _ : st) {
    posenc_status s;
    if constexpr (sizeof(E) == 4)
      s = posenc_rope_apply_f32(&p, layout, pos.data(), T, kHd, q.data(), kQ, 0, k.data(), kK, 0, inverse);
    else
      s = posenc_rope_apply_bf16(&p, layout, pos.data(), T, kHd, q.data(), kQ, 0, k.data(), kK, 0, inverse);
    if (!ok(st, s)) return;
    inverse ^= 1;  // keeps values bounded
    benchmark::ClobberMemory();
  }
  const int64_t bytes = T * (kQ + kK) * kHd * static_cast<int64_t>(sizeof(E));
  st.SetBytesProcessed(st.iterations() * 2 * bytes);  // read + write, as memcpy_anchor
  st.SetItemsProcessed(st.iterations() * T);
  label(st);
}
void BM_rope_apply_f32(benchmark::State& st) { rope_apply_bench<float>(st); }
void BM_rope_apply_bf16(benchmark::State& st) { rope_apply_bench<uint16_t>(st); }

// posenc_rope_apply_cached_f32 from a [131072, 64] table.
void BM_rope_apply_cached_f32(benchmark::State& st) {
  const int64_t T = tokens_arg(st);
  const auto layout = static_cast<posenc_rope_layout>(st.range(1));
  const auto pos = bench_positions(T, st.range(2) != 0);
  const auto p = llama31();
  const int64_t rows = smoke() ? 256 : 131072;
  std::vector<float> ct(static_cast<size_t>(rows * 64)), stb(ct.size());
  if (!ok(st, posenc_rope_cos_sin_f32(&p, nullptr, rows, ct.data(), stb.data()))) return;
  std::vector<float> q(static_cast<size_t>(T * kQ * kHd), 1.0f), k(static_cast<size_t>(T * kK * kHd), 1.0f);
  for (auto _ : st) {
    if (!ok(st, posenc_rope_apply_cached_f32(ct.data(), stb.data(), rows, 128, layout, pos.data(), T, kHd, q.data(), kQ,
                                             0, k.data(), kK, 0, 0)))
      return;
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * 2 * T * (kQ + kK) * kHd * 4);
  st.SetItemsProcessed(st.iterations() * T);
  label(st);
}

// Anchor: memcpy of the same bytes (q and k). Args: tokens, element size.
void BM_rope_apply_memcpy(benchmark::State& st) {
  const int64_t T = tokens_arg(st);
  memcpy_anchor(st, static_cast<size_t>(T * (kQ + kK) * kHd * st.range(1)));
}

// Anchor: the vLLM CPU / HF pattern, a plain scalar loop applying from a cos/sin cache
// [max_pos, 64] (one thread). GCC -O3 auto-vectorizes it (SSE2, baseline flags);
// scalar_cache_loop_novec is the same loop with vectorization disabled.
void scalar_cache_loop(int layout, const int64_t* pos, int64_t T, const float* ct, const float* stb, float* q,
                       float* k) {
  const int half = 64;
  for (int64_t t = 0; t < T; ++t) {
    const float* c = ct + pos[t] * half;
    const float* s = stb + pos[t] * half;
    for (int64_t h = 0; h < kQ + kK; ++h) {
      float* x = h < kQ ? q + (t * kQ + h) * kHd : k + (t * kK + h - kQ) * kHd;
      for (int j = 0; j < half; ++j) {
        const int ia = layout == 0 ? j : 2 * j, ib = layout == 0 ? j + half : 2 * j + 1;
        const float a = x[ia], b = x[ib];
        x[ia] = a * c[j] - b * s[j];
        x[ib] = b * c[j] + a * s[j];
      }
    }
  }
}
__attribute__((optimize("no-tree-vectorize"))) void scalar_cache_loop_novec(int layout, const int64_t* pos, int64_t T,
                                                                            const float* ct, const float* stb,
                                                                            float* q, float* k) {
  const int half = 64;
  for (int64_t t = 0; t < T; ++t) {
    const float* c = ct + pos[t] * half;
    const float* s = stb + pos[t] * half;
    for (int64_t h = 0; h < kQ + kK; ++h) {
      float* x = h < kQ ? q + (t * kQ + h) * kHd : k + (t * kK + h - kQ) * kHd;
      for (int j = 0; j < half; ++j) {
        const int ia = layout == 0 ? j : 2 * j, ib = layout == 0 ? j + half : 2 * j + 1;
        const float a = x[ia], b = x[ib];
        x[ia] = a * c[j] - b * s[j];
        x[ib] = b * c[j] + a * s[j];
      }
    }
  }
}
template <bool kVectorized>
void scalar_cache_bench(benchmark::State& st) {
  const int64_t T = tokens_arg(st);
  const int layout = static_cast<int>(st.range(1));
  const auto pos = bench_positions(T, st.range(2) != 0);
  const auto p = llama31();
  const int64_t rows = smoke() ? 256 : 131072;
  std::vector<float> ct(static_cast<size_t>(rows * 64)), stb(ct.size());
  if (!ok(st, posenc_rope_cos_sin_f32(&p, nullptr, rows, ct.data(), stb.data()))) return;
  std::vector<float> q(static_cast<size_t>(T * kQ * kHd), 1.0f), k(static_cast<size_t>(T * kK * kHd), 1.0f);
  for (auto _ : st) {
    if (kVectorized) scalar_cache_loop(layout, pos.data(), T, ct.data(), stb.data(), q.data(), k.data());
    else scalar_cache_loop_novec(layout, pos.data(), T, ct.data(), stb.data(), q.data(), k.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * 2 * T * (kQ + kK) * kHd * 4);
  st.SetItemsProcessed(st.iterations() * T);
}
void BM_rope_apply_scalar_cache(benchmark::State& st) { scalar_cache_bench<true>(st); }
void BM_rope_apply_scalar_cache_novec(benchmark::State& st) { scalar_cache_bench<false>(st); }

// cos/sin table 131072 x 64 (theta 5e5): posenc (exact phase) vs glibc sincosf on fp32 phases.
// Counter max_err: max abs error over every 64th row against long-double cosl/sinl.
template <class Fill>
void cos_sin_bench(benchmark::State& st, Fill fill) {
  const int64_t n = smoke() ? 256 : 131072;
  std::vector<double> inv(64);
  for (int j = 0; j < 64; ++j) inv[j] = 1.0 / std::pow(500000.0, 2.0 * j / 128.0);
  std::vector<float> c(static_cast<size_t>(n * 64)), s(c.size());
  for (auto _ : st) {
    if (!fill(st, n, inv, c.data(), s.data())) return;
    benchmark::DoNotOptimize(c.data());
    benchmark::DoNotOptimize(s.data());
  }
  double err = 0;
  for (int64_t i = 0; i < n; i += 64)
    for (int j = 0; j < 64; ++j) {
      const long double ph = static_cast<long double>(i) * inv[j];
      err = std::max(err, std::fabs(static_cast<double>(c[i * 64 + j] - cosl(ph))));
      err = std::max(err, std::fabs(static_cast<double>(s[i * 64 + j] - sinl(ph))));
    }
  st.counters["max_err"] = err;
  st.SetItemsProcessed(st.iterations() * n * 64);
  st.SetBytesProcessed(st.iterations() * n * 64 * 8);
}
void BM_rope_cos_sin_posenc(benchmark::State& st) {
  posenc_rope_params p;
  posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 128, 500000.0);
  cos_sin_bench(st, [&](benchmark::State& s, int64_t n, const std::vector<double>&, float* c, float* sn) {
    return ok(s, posenc_rope_cos_sin_f32(&p, nullptr, n, c, sn));
  });
  label(st);
}
void BM_rope_cos_sin_sincosf_fp32_phase(benchmark::State& st) {
  cos_sin_bench(st, [&](benchmark::State&, int64_t n, const std::vector<double>& inv, float* c, float* s) {
    float w[64];
    for (int j = 0; j < 64; ++j) w[j] = static_cast<float>(inv[j]);
    for (int64_t i = 0; i < n; ++i) {
      const float fp = static_cast<float>(i);
      for (int j = 0; j < 64; ++j) sincosf(fp * w[j], &s[i * 64 + j], &c[i * 64 + j]);
    }
    return true;
  });
}

// Decay curve d = 8192, b = 1e4: f_n for n < 200000 (8.2e8 terms).
std::vector<double> decay_freqs() {
  std::vector<double> w(4096);
  for (int t = 0; t < 4096; ++t) w[t] = std::pow(1e4, -2.0 * t / 8192);
  return w;
}
void BM_rope_decay_posenc(benchmark::State& st) {
  const auto w = decay_freqs();
  const int64_t count = smoke() ? 512 : 200000;
  std::vector<double> f(static_cast<size_t>(count));
  for (auto _ : st) {
    if (!ok(st, posenc_rope_decay_f64(w.data(), 4096, 0, 1, count, f.data(), nullptr))) return;
    benchmark::DoNotOptimize(f.data());
  }
  st.SetItemsProcessed(st.iterations() * count * 4096);
  label(st);
}
// Anchor: the direct double cos loop, on the first 20000 n (1/10 of the range: 1.3 s per
// iteration); compare items (terms) per second.
void BM_rope_decay_direct_cos(benchmark::State& st) {
  const auto w = decay_freqs();
  const int64_t count = smoke() ? 64 : 20000;
  std::vector<double> f(static_cast<size_t>(count));
  for (auto _ : st) {
    for (int64_t n = 0; n < count; ++n) {
      double s = 0;
      for (int t = 0; t < 4096; ++t) s += std::cos(static_cast<double>(n) * w[t]);
      f[n] = s;
    }
    benchmark::DoNotOptimize(f.data());
  }
  st.SetItemsProcessed(st.iterations() * count * 4096);
}

}  // namespace

BENCHMARK(BM_rope_apply_f32)->Args({4096, 0, 0})->Args({4096, 1, 0})->Args({64, 0, 1})->Args({64, 1, 1})->Args({64, 0, 0})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_apply_bf16)->Args({4096, 0, 0})->Args({4096, 1, 0})->Args({64, 0, 1})->Args({64, 1, 1})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_apply_cached_f32)->Args({4096, 0, 0})->Args({64, 0, 1})->Args({64, 1, 1})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_apply_memcpy)->Args({4096, 4})->Args({4096, 2})->Args({64, 4})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_apply_scalar_cache)->Args({4096, 0, 0})->Args({64, 0, 1})->Args({64, 1, 1})->Args({64, 0, 0})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_apply_scalar_cache_novec)->Args({64, 0, 1})->Args({64, 1, 1})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_rope_cos_sin_posenc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rope_cos_sin_sincosf_fp32_phase)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rope_decay_posenc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rope_decay_direct_cos)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
