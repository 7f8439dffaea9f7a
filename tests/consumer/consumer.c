// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Downstream C program built with `pkg-config --cflags --libs posenc`. */
#include <posenc/posenc.h>
#include <stdio.h>

int main(void) {
  float row[8];
  if (posenc_sinusoidal_f32(NULL, 1, 8, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, row) != POSENC_OK) return 1;
  if (row[0] != 0.0f || row[1] != 1.0f) return 1;
  printf("consumer_c: posenc %s: 1 passed, 0 failed\n", posenc_version_string());
  return 0;
}
