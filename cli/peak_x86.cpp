// SPDX-License-Identifier: Apache-2.0 OR MIT
// peak_x86.cpp — AVX2 and AVX-512 FMA loops (function-level target attributes, so the file
// needs no ISA flags and nothing here runs unless the CPU has the ISA).
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

namespace posenc_cli {

__attribute__((target("avx2,fma"))) double peak_loop_avx2(int64_t iters, double* sink) {
  __m256d a[12];
  for (int k = 0; k < 12; ++k) a[k] = _mm256_set1_pd(1.0 + 1e-3 * k);
  const __m256d b = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-7);
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < 12; ++k) a[k] = _mm256_fmadd_pd(a[k], b, c);
  __m256d s = a[0];
  for (int k = 1; k < 12; ++k) s = _mm256_add_pd(s, a[k]);
  alignas(32) double o[4];
  _mm256_store_pd(o, s);
  *sink = o[0] + o[1] + o[2] + o[3];
  return 2.0 * 4.0 * 12.0 * double(iters);
}

__attribute__((target("avx512f"))) double peak_loop_avx512(int64_t iters, double* sink) {
  __m512d a[12];
  for (int k = 0; k < 12; ++k) a[k] = _mm512_set1_pd(1.0 + 1e-3 * k);
  const __m512d b = _mm512_set1_pd(0.999999), c = _mm512_set1_pd(1e-7);
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < 12; ++k) a[k] = _mm512_fmadd_pd(a[k], b, c);
  __m512d s = a[0];
  for (int k = 1; k < 12; ++k) s = _mm512_add_pd(s, a[k]);
  alignas(64) double o[8];
  _mm512_store_pd(o, s);
  *sink = o[0] + o[1] + o[2] + o[3] + o[4] + o[5] + o[6] + o[7];
  return 2.0 * 8.0 * 12.0 * double(iters);
}

}  // namespace posenc_cli
#endif
