// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Compiled as C99 with -Wall -Wextra -Werror -pedantic: posenc.h is a valid C header and a C
 * program links and calls the library. */
#include <posenc/posenc.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

int main(void) {
  float out[3 * 8];
  int64_t positions[3] = {0, 1, 1000};
  posenc_status s;
  int i;
  /* The header's compile-time version is the library's run-time version. */
  CHECK(posenc_version() == (uint32_t)POSENC_VERSION_NUMBER);
  CHECK(posenc_version() ==
        (uint32_t)(POSENC_VERSION_MAJOR * 10000 + POSENC_VERSION_MINOR * 100 + POSENC_VERSION_PATCH));
  CHECK(strcmp(posenc_version_string(), POSENC_VERSION_STRING) == 0);
#if POSENC_VERSION_NUMBER < 100
#error "POSENC_VERSION_NUMBER must be usable in #if"
#endif
  CHECK((posenc_isa_available() & POSENC_ISA_SCALAR) != 0);
  CHECK(posenc_isa_active() != POSENC_ISA_AUTO);
  s = posenc_sinusoidal_f32(positions, 3, 8, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, out);
  CHECK(s == POSENC_OK);
  CHECK(out[0] == 0.0f && out[1] == 1.0f);
  /* position 1000, frequency 0: sin(1000), cos(1000) */
  CHECK(fabs(out[16] - sin(1000.0)) < 1e-7);
  CHECK(fabs(out[17] - cos(1000.0)) < 1e-7);
  for (i = 0; i < 24; ++i) CHECK(out[i] >= -1.0f && out[i] <= 1.0f);
  s = posenc_sinusoidal_f32(positions, 3, 7, 10000.0, POSENC_SINUSOIDAL_INTERLEAVED, out);
  CHECK(s == POSENC_ERR_INVALID_ARGUMENT);
  CHECK(strstr(posenc_last_error_message(), "dim") != NULL);
  CHECK(strcmp(posenc_status_string(s), "POSENC_ERR_INVALID_ARGUMENT") == 0);
  if (failures == 0) printf("c_api_test: 1 passed, 0 failed\n");
  return failures == 0 ? 0 : 1;
}
