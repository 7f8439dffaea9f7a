// SPDX-License-Identifier: Apache-2.0 OR MIT
/* usage: env_probe [VARIABLE [STATUS]]   (default: POSENC_ISA POSENC_ERR_UNSUPPORTED)
 * Run by ctest with VARIABLE (POSENC_ISA or POSENC_NUM_THREADS) set to a value the library cannot
 * use: an ISA this CPU cannot run, garbage, a negative or non-numeric thread count. Every kernel
 * call must fail with STATUS and a message naming the variable and its value, never silently run
 * with another setting; posenc_isa_set() / posenc_threads_set() then recovers. */
#include <posenc/posenc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  const char* var = argc > 1 ? argv[1] : "POSENC_ISA";
  const char* want = argc > 2 ? argv[2] : "POSENC_ERR_UNSUPPORTED";
  const char* value = getenv(var);
  float out[8];
  char named[256];
  posenc_status s;
  int k;
  if (value == NULL) {
    fprintf(stderr, "env_probe: %s is not set\n", var);
    return 1;
  }
  snprintf(named, sizeof named, "%s='%s'", var, value);
  for (k = 0; k < 2; ++k) { /* the error persists: every call fails, not only the first */
    s = posenc_sinusoidal_f32(NULL, 1, 8, 10000.0, POSENC_SINUSOIDAL_HALVES, out);
    if (strcmp(posenc_status_string(s), want) != 0) {
      fprintf(stderr, "expected %s, got %s\n", want, posenc_status_string(s));
      return 1;
    }
    if (strstr(posenc_last_error_message(), named) == NULL) {
      fprintf(stderr, "message does not name %s: %s\n", named, posenc_last_error_message());
      return 1;
    }
  }
  if (strcmp(var, "POSENC_ISA") == 0) {
    if (posenc_isa_set(POSENC_ISA_AUTO) != POSENC_OK) return 1;
  } else {
    if (posenc_threads_set(0) != POSENC_OK) return 1;
  }
  s = posenc_sinusoidal_f32(NULL, 1, 8, 10000.0, POSENC_SINUSOIDAL_HALVES, out);
  if (s != POSENC_OK || out[0] != 0.0f || out[4] != 1.0f) {
    fprintf(stderr, "recovery after setting %s by its function failed\n", var);
    return 1;
  }
  printf("env_probe: %s rejected with %s, recovered\n", named, want);
  return 0;
}
