// SPDX-License-Identifier: Apache-2.0 OR MIT
// Real SH with Cartesian gradients and Hessians (posenc_sph_harm_real_grad_*) against
// sphericart 2.0.3 in the same binary (the vendored CPU core, compiled with sphericart's own
// Release flags -O3 -march=native, without OpenMP: one thread). Both write point-major
// [n, K] / [n, 3, K] / [n, 3, 3, K] outputs; 100000 points, written in chunks of at most 64 MB
// of output into one reused buffer per output (so the output traffic is that of a caller
// consuming the features chunk by chunk). Also values only (posenc_sph_harm_real_* against
// sphericart's compute_array), the comparison behind the L = 1..3 goal of the sphere family.
// Compiled only where the sphericart sources are found (POSENC_HAVE_SPHERICART).
#include "bench/bench_common.hpp"

#if defined(POSENC_HAVE_SPHERICART)
#include "sphericart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace posenc_bench;

namespace {

template <class T>
std::vector<T> random_xyz(int64_t n) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> N(0, 1);
  std::vector<T> v(static_cast<size_t>(3 * n));
  for (auto& x : v) x = T(N(rng));
  return v;
}

int64_t npts() { return smoke() ? 64 : 100000; }

/// mode 0: values, 1: values + gradients, 2: values + gradients + Hessians.
template <class T>
struct grad_case {
  int L, mode;
  int64_t n, K, ch;
  std::vector<T> xyz, v, g, h;
  explicit grad_case(benchmark::State& st) : L(int(st.range(0))), mode(int(st.range(1))) {
    n = npts();
    K = int64_t(L + 1) * (L + 1);
    const int64_t per = K * int64_t(sizeof(T)) * (1 + (mode >= 1 ? 3 : 0) + (mode >= 2 ? 9 : 0));
    ch = std::max<int64_t>(64, std::min<int64_t>(n, (int64_t(64) << 20) / per) / 64 * 64);
    xyz = random_xyz<T>(n);
    v.resize(size_t(ch * K));
    if (mode >= 1) g.resize(size_t(3 * ch * K));
    if (mode >= 2) h.resize(size_t(9 * ch * K));
  }
  void done(benchmark::State& st) {
    st.SetItemsProcessed(st.iterations() * n);
    st.SetBytesProcessed(st.iterations() * n * K * int64_t(sizeof(T)) * (1 + (mode >= 1 ? 3 : 0) + (mode >= 2 ? 9 : 0)));
    label(st);
  }
};

posenc_status values_posenc(int L, const double* x, int64_t n, double* o) { return posenc_sph_harm_real_f64(L, x, n, o); }
posenc_status values_posenc(int L, const float* x, int64_t n, float* o) { return posenc_sph_harm_real_f32(L, x, n, o); }
posenc_status grad_posenc(int L, const double* x, int64_t n, double* v, double* g, double* h) {
  return posenc_sph_harm_real_grad_f64(L, x, n, 0u, v, g, h);
}
posenc_status grad_posenc(int L, const float* x, int64_t n, float* v, float* g, float* h) {
  return posenc_sph_harm_real_grad_f32(L, x, n, 0u, v, g, h);
}

template <class T>
void BM_sph_grad_posenc(benchmark::State& st) {
  grad_case<T> c(st);
  for (auto _ : st) {
    for (int64_t p = 0; p < c.n; p += c.ch) {
      const int64_t m = std::min(c.ch, c.n - p);
      const T* x = c.xyz.data() + 3 * p;
      const posenc_status s = c.mode == 0 ? values_posenc(c.L, x, m, c.v.data())
                                          : grad_posenc(c.L, x, m, c.v.data(), c.g.data(), c.mode >= 2 ? c.h.data() : nullptr);
      if (!ok(st, s)) return;
    }
    benchmark::DoNotOptimize(c.v.data());
  }
  c.done(st);
}

template <class T>
void BM_sph_grad_sphericart(benchmark::State& st) {
  grad_case<T> c(st);
  sphericart::SphericalHarmonics<T> sc{static_cast<size_t>(c.L)};
  for (auto _ : st) {
    for (int64_t p = 0; p < c.n; p += c.ch) {
      const size_t m = size_t(std::min(c.ch, c.n - p));
      const T* x = c.xyz.data() + 3 * p;
      const size_t k = size_t(c.K);
      if (c.mode == 0) sc.compute_array(x, 3 * m, c.v.data(), m * k);
      else if (c.mode == 1) sc.compute_array_with_gradients(x, 3 * m, c.v.data(), m * k, c.g.data(), 3 * m * k);
      else sc.compute_array_with_hessians(x, 3 * m, c.v.data(), m * k, c.g.data(), 3 * m * k, c.h.data(), 9 * m * k);
    }
    benchmark::DoNotOptimize(c.v.data());
  }
  c.done(st);
}

// mode 0 values (L 1, 2, 3, 10, 20, 40, 100), 1 values + gradients (L 1, 3, 10, 40), 2 + Hessians (L 3, 10)
#define SPH_GRAD_ARGS                                                                                     \
  ->Args({1, 0})->Args({2, 0})->Args({3, 0})->Args({10, 0})->Args({20, 0})->Args({40, 0})->Args({100, 0})    \
      ->Args({1, 1})->Args({3, 1})   \
      ->Args({10, 1})->Args({40, 1})->Args({3, 2})->Args({10, 2})->ArgNames({"L", "mode"})                \
      ->Unit(benchmark::kMillisecond)->UseRealTime()
BENCHMARK_TEMPLATE(BM_sph_grad_posenc, double) SPH_GRAD_ARGS;
BENCHMARK_TEMPLATE(BM_sph_grad_sphericart, double) SPH_GRAD_ARGS;
BENCHMARK_TEMPLATE(BM_sph_grad_posenc, float) SPH_GRAD_ARGS;
BENCHMARK_TEMPLATE(BM_sph_grad_sphericart, float) SPH_GRAD_ARGS;

/// The memory floor of the same outputs: memcpy of as many bytes as one float64 call of
/// BM_sph_grad_* writes (100000 points; mode 0 values, 1 values + gradients), into a reused
/// buffer like theirs (it reads as many bytes as it writes; a kernel reads 24 bytes a point).
void BM_sph_grad_memcpy(benchmark::State& st) {
  const int L = int(st.range(0)), mode = int(st.range(1));
  const int64_t K = int64_t(L + 1) * (L + 1);
  memcpy_anchor(st, size_t(npts() * K * 8 * (mode == 1 ? 4 : 1)));
}
BENCHMARK(BM_sph_grad_memcpy)->Args({1, 0})->Args({2, 0})->Args({3, 0})->Args({1, 1})->Args({3, 1})
    ->ArgNames({"L", "mode"})->Unit(benchmark::kMillisecond)->UseRealTime();

/// The store-only floor of the same outputs: memset of as many bytes as BM_sph_grad_memcpy
/// moves, into one reused buffer of the whole size (nothing is read by the program; glibc's large
/// memset writes with rep stosb, and whether the lines are also read for ownership is the
/// processor's choice). mode 0 values, 1 values + gradients, 2 values + gradients + Hessians;
/// float64 bytes (the Hessian case is one 166 MB buffer, not 64 MB chunks; L = 10 values: 96.8 MB,
/// half the bytes of float32 L = 10 values + gradients).
void BM_sph_grad_memset(benchmark::State& st) {
  const int L = int(st.range(0)), mode = int(st.range(1));
  const int64_t K = int64_t(L + 1) * (L + 1);
  const size_t bytes = size_t(npts() * K * 8 * (mode == 0 ? 1 : mode == 1 ? 4 : 13));
  std::vector<char> buf(bytes, 1);
  int c = 0;
  for (auto _ : st) {
    std::memset(buf.data(), ++c & 0xff, bytes);
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * int64_t(bytes));
  label(st);
}
BENCHMARK(BM_sph_grad_memset)->Args({1, 0})->Args({3, 0})->Args({10, 0})->Args({1, 1})->Args({3, 1})->Args({3, 2})
    ->ArgNames({"L", "mode"})->Unit(benchmark::kMillisecond)->UseRealTime();

#if defined(__SSE2__)
/// The non-temporal floor of the same outputs: BM_sph_grad_memset's bytes (one reused buffer of
/// the whole size, 16-byte aligned) written by a loop of SSE2 non-temporal 16-byte stores (no
/// read for ownership), then a store fence; the baseline x86-64 instruction set, as
/// bench_sphere.cpp's BM_sh_real_ntstore. glibc's memset streams large sizes too: the two
/// agree beyond the L3, and memset is the lower floor where the output fits in it.
void BM_sph_grad_ntstore(benchmark::State& st) {
  const int L = int(st.range(0)), mode = int(st.range(1));
  const int64_t K = int64_t(L + 1) * (L + 1);
  const size_t bytes = size_t(npts() * K * 8 * (mode == 0 ? 1 : mode == 1 ? 4 : 13));
  std::vector<double> buf(bytes / 8 + 2, 1.0);
  __m128i* const out = reinterpret_cast<__m128i*>((reinterpret_cast<uintptr_t>(buf.data()) + 15) & ~uintptr_t(15));
  const size_t nv = bytes / 16;
  int c = 0;
  for (auto _ : st) {
    const __m128i x = _mm_set1_epi8(static_cast<char>(++c & 0x7f));
    for (size_t i = 0; i < nv; ++i) _mm_stream_si128(out + i, x);
    _mm_sfence();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(st.iterations() * int64_t(bytes));
  label(st);
}
BENCHMARK(BM_sph_grad_ntstore)->Args({1, 1})->Args({3, 1})->ArgNames({"L", "mode"})->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

/// The front ends against the Cartesian entry point for the same directions, float64, 100000
/// points (at most 64 MB of real output: fewer at L = 40): front 0 posenc_sph_harm_real_f64 of
/// xyz, 1 posenc_sph_harm_real_lonlat_f64 of (lon, lat) in degrees, 2 posenc_sph_harm_complex_f64
/// of (theta, phi) in radians (twice the output: [n, K, 2]).
void BM_sph_front(benchmark::State& st) {
  const int L = int(st.range(0)), mode = int(st.range(1));
  const int64_t K = int64_t(L + 1) * (L + 1);
  const int64_t n = std::min<int64_t>(npts(), std::max<int64_t>(64, (int64_t(64) << 20) / (8 * K)));
  std::vector<double> xyz = random_xyz<double>(n), ll(size_t(2 * n)), th(static_cast<size_t>(n)), ph(th.size());
  std::vector<double> out(size_t(n * K * (mode == 2 ? 2 : 1)));
  for (int64_t i = 0; i < n; ++i) {
    const double* q = xyz.data() + 3 * i;
    const double r = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    ll[size_t(2 * i)] = std::atan2(q[1], q[0]) * (180.0 / 3.14159265358979323846);
    ll[size_t(2 * i + 1)] = std::asin(q[2] / r) * (180.0 / 3.14159265358979323846);
    ph[size_t(i)] = std::atan2(q[1], q[0]);
    th[size_t(i)] = std::acos(q[2] / r);
  }
  for (auto _ : st) {
    const posenc_status s = mode == 1   ? posenc_sph_harm_real_lonlat_f64(L, ll.data(), n, out.data())
                            : mode == 2 ? posenc_sph_harm_complex_f64(L, th.data(), ph.data(), n, out.data())
                                        : posenc_sph_harm_real_f64(L, xyz.data(), n, out.data());
    if (!ok(st, s)) return;
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * n);
  label(st);
}
BENCHMARK(BM_sph_front)->ArgsProduct({{1, 2, 3, 10, 40}, {0, 1, 2}})->ArgNames({"L", "front"})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
#endif
