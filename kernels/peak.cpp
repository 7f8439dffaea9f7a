// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/peak.cpp — multiply-add loops that measure the FMA peak of this TU's ISA path (compiled
// once per ISA, like every kernel): posenc::POSENC_NS::peak_kernels().
#include "kernels/peak_table.hpp"
#include "kernels/simd.hpp"

namespace posenc {
namespace POSENC_NS {

namespace {

/// 12 chains hide the multiply-add latency (4-5 cycles) at two issues per cycle.
constexpr int kChains = 12;

#if defined(POSENC_ISA_SCALAR)
// The scalar path is compiled with baseline flags, and compilers vectorize baseline code to the
// baseline's 16-byte vectors (SSE2 on x86-64, Advanced SIMD on aarch64; kernels of the scalar path
// are auto-vectorized too): its peak is that of 16-byte vectors, with a separate multiply and add
// (the x86-64 baseline has no FMA; the build never contracts a*b+c).
template <class T>
double fma_chains(int64_t iters, T* sink) {
  typedef T V __attribute__((vector_size(16)));
  constexpr std::size_t L = 16 / sizeof(T);
  V a[kChains];
  for (int k = 0; k < kChains; ++k) a[k] = V{} + (T(1) + T(1e-3) * T(k));
  const V b = V{} + T(0.999999), c = V{} + T(1e-7);
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < kChains; ++k) a[k] = a[k] * b + c;
  V s = a[0];
  for (int k = 1; k < kChains; ++k) s = s + a[k];
  T r = 0;
  for (std::size_t k = 0; k < L; ++k) r += s[k];
  *sink = r;
  return 2.0 * kChains * static_cast<double>(L) * static_cast<double>(iters);
}
#else
template <class T>
double fma_chains(int64_t iters, T* sink) {
  using V = vec<T>;
  V a[kChains];
  for (int k = 0; k < kChains; ++k) a[k] = V(T(1) + T(1e-3) * T(k));
  const V b(T(0.999999)), c(T(1e-7));
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < kChains; ++k) a[k] = madd(a[k], b, c);
  V s = a[0];
  for (int k = 1; k < kChains; ++k) s = s + a[k];
  alignas(64) T lanes[width<T>];
  store_u(lanes, s);
  T r = 0;
  for (std::size_t k = 0; k < width<T>; ++k) r += lanes[k];
  *sink = r;
  return 2.0 * kChains * static_cast<double>(width<T>) * static_cast<double>(iters);
}
#endif

double fma_f64(int64_t iters, double* sink) { return fma_chains<double>(iters, sink); }
double fma_f32(int64_t iters, float* sink) { return fma_chains<float>(iters, sink); }

}  // namespace

constexpr peak_kernels_t make_peak_kernels() {
  peak_kernels_t t{};
  t.fma_f64 = &fma_f64;
  t.fma_f32 = &fma_f32;
  return t;
}

const peak_kernels_t* peak_kernels() {
  static constexpr peak_kernels_t table = make_peak_kernels();
  return &table;
}

}  // namespace POSENC_NS
}  // namespace posenc
