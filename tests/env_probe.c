// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Run by ctest with POSENC_ISA set to a name this CPU cannot run (argv[1] = "unsupported") or a
 * garbage name: every kernel call must fail with POSENC_ERR_UNSUPPORTED and name the variable,
 * never silently run another path; posenc_isa_set() then recovers. */
#include <posenc/posenc.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  float out[8];
  posenc_status s = posenc_sinusoidal_f32(NULL, 1, 8, 10000.0, POSENC_SINUSOIDAL_HALVES, out);
  if (s != POSENC_ERR_UNSUPPORTED) {
    fprintf(stderr, "expected POSENC_ERR_UNSUPPORTED, got %s\n", posenc_status_string(s));
    return 1;
  }
  if (strstr(posenc_last_error_message(), "POSENC_ISA") == NULL) {
    fprintf(stderr, "message does not name POSENC_ISA: %s\n", posenc_last_error_message());
    return 1;
  }
  if (posenc_isa_set(POSENC_ISA_AUTO) != POSENC_OK) return 1;
  s = posenc_sinusoidal_f32(NULL, 1, 8, 10000.0, POSENC_SINUSOIDAL_HALVES, out);
  if (s != POSENC_OK || out[0] != 0.0f || out[4] != 1.0f) {
    fprintf(stderr, "recovery after posenc_isa_set failed\n");
    return 1;
  }
  printf("env_probe: 1 passed, 0 failed\n");
  return 0;
}
