// SPDX-License-Identifier: Apache-2.0 OR MIT
// peak.cpp — baseline (no ISA flags) and NEON multiply-add loops for the FMA peak estimate.
#include <cstdint>
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace posenc_cli {

double peak_loop_baseline(int64_t iters, double* sink) {
  double a[12];
  for (int k = 0; k < 12; ++k) a[k] = 1.0 + 1e-3 * k;
  const double b = 0.999999, c = 1e-7;
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < 12; ++k) a[k] = a[k] * b + c;
  double s = 0;
  for (int k = 0; k < 12; ++k) s += a[k];
  *sink = s;
  return 2.0 * 12.0 * double(iters);
}

#if defined(__aarch64__)
double peak_loop_neon(int64_t iters, double* sink) {
  float64x2_t a[12];
  for (int k = 0; k < 12; ++k) a[k] = vdupq_n_f64(1.0 + 1e-3 * k);
  const float64x2_t b = vdupq_n_f64(0.999999), c = vdupq_n_f64(1e-7);
  for (int64_t i = 0; i < iters; ++i)
    for (int k = 0; k < 12; ++k) a[k] = vfmaq_f64(c, a[k], b);
  double s = 0;
  for (int k = 0; k < 12; ++k) s += vgetq_lane_f64(a[k], 0) + vgetq_lane_f64(a[k], 1);
  *sink = s;
  return 2.0 * 2.0 * 12.0 * double(iters);
}
#endif

}  // namespace posenc_cli
