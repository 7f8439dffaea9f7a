// SPDX-License-Identifier: Apache-2.0 OR MIT
/* requires: posenc_sinusoidal_f32 posenc_rope_params_init posenc_rope_apply_f32 posenc_sph_harm_real_lonlat_f64 */
/* posenc from C: a sinusoidal table, RoPE applied in place to Q/K, and the spherical-harmonic
 * encoding of three cities. Build: cc quickstart.c $(pkg-config --cflags --libs posenc) -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <posenc/posenc.h>

/* M_PI is POSIX, not ISO C: strict -std=c99 does not define it. */
static const double kPi = 3.14159265358979323846;

#define CHECK(call)                                                                         \
  do {                                                                                      \
    posenc_status s_ = (call);                                                              \
    if (s_ != POSENC_OK) {                                                                  \
      fprintf(stderr, "%s failed: %s (%s)\n", #call, posenc_last_error_message(),           \
              posenc_status_string(s_));                                                    \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)

int main(void) {
  printf("posenc %s, ISA %s, %d threads\n", posenc_version_string(), posenc_isa_name(posenc_isa_active()),
         (int)posenc_threads_get());

  /* 1. Sinusoidal table [1024, 128] (Vaswani et al.), positions 0..1023. */
  enum { N = 1024, DIM = 128 };
  float* table = malloc(sizeof(float) * N * DIM);
  if (!table) return 1;
  CHECK(posenc_sinusoidal_f32(NULL, N, DIM, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, table));
  printf("sinusoidal[5][0..1] = %.6f %.6f (sin 5, cos 5 = %.6f %.6f)\n", table[5 * DIM], table[5 * DIM + 1], sin(5.0),
         cos(5.0));

  /* 2. RoPE (Llama-3.1 scaling) on q [4 tokens, 2 heads, 64] and k [4, 1, 64], in place; the
   *    inverse rotation restores the input. */
  posenc_rope_params p;
  CHECK(posenc_rope_params_init(&p, POSENC_ROPE_LLAMA3, 64, 500000.0));
  p.factor = 8.0;
  p.original_max_position = 8192;
  int64_t pos[4] = {0, 1, 100000, 131071};
  float q[4 * 2 * 64], k[4 * 1 * 64], q0[4 * 2 * 64];
  for (int i = 0; i < 4 * 2 * 64; ++i) q[i] = q0[i] = (float)((i % 7) - 3);
  for (int i = 0; i < 4 * 64; ++i) k[i] = 1.0f;
  CHECK(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, pos, 4, 64, q, 2, 0, k, 1, 0, 0));
  CHECK(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, pos, 4, 64, q, 2, 0, k, 1, 0, 1));
  float maxdiff = 0;
  for (int i = 0; i < 4 * 2 * 64; ++i) maxdiff = fmaxf(maxdiff, fabsf(q[i] - q0[i]));
  printf("rope forward + inverse: max |q - q0| = %.2g\n", maxdiff);
  if (maxdiff > 1e-5f) return 1;

  /* 3. Real spherical harmonics (L = 3, 16 channels) of Paris, Tokyo, Sydney (lon, lat degrees). */
  const double lonlat[3 * 2] = {2.35, 48.86, 139.69, 35.69, 151.21, -33.87};
  double sh[3 * 16];
  CHECK(posenc_sph_harm_real_lonlat_f64(3, lonlat, 3, sh));
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int c = 0; c < 16; ++c) s += sh[i * 16 + c] * sh[i * 16 + c];
    printf("city %d: |Y|^2 = %.15f (addition theorem: 16/(4 pi) = %.15f)\n", i, s, 16.0 / (4 * kPi));
    if (fabs(s - 16.0 / (4 * kPi)) > 1e-12) return 1;
  }

  /* 4. Errors: a bad argument leaves the output untouched and names the rule. */
  posenc_status st = posenc_sinusoidal_f32(NULL, 4, 7, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, table);
  printf("dim = 7 -> %s: %s\n", posenc_status_string(st), posenc_last_error_message());
  free(table);
  return st == POSENC_ERR_INVALID_ARGUMENT ? 0 : 1;
}
