/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* A shared library built on a static libposenc.a. */
#include <posenc/posenc.h>

__attribute__((visibility("default"))) int plugin_table(float* out) {
  return (int)posenc_sinusoidal_f32(NULL, 4, 8, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, out);
}
