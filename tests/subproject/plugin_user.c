/* SPDX-License-Identifier: Apache-2.0 OR MIT */
#include <stdio.h>

int plugin_table(float* out);

int main(void) {
  float t[32];
  int s = plugin_table(t);
  if (s != 0 || t[0] != 0.0f || t[1] != 1.0f) {
    printf("plugin_user: status %d, t[0..1] = %g %g\n", s, t[0], t[1]);
    return 1;
  }
  printf("plugin_user: ok\n");
  return 0;
}
