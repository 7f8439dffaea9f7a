// SPDX-License-Identifier: Apache-2.0 OR MIT
// Links posenc built as a subproject (static): the C++ wrappers and the C ABI work.
#include <posenc/posenc.hpp>

#include <cmath>
#include <cstdio>

int main() {
  if (posenc_version() != POSENC_VERSION_NUMBER) return std::puts("version mismatch"), 1;
  std::vector<float> t = posenc::sinusoidal(16, 8);
  if (t.size() != 16 * 8) return std::puts("wrong size"), 1;
  for (float v : t)
    if (!(std::fabs(v) <= 1.0f)) return std::puts("value out of range"), 1;
  std::printf("app: posenc %s, %s path\n", posenc_version_string(), posenc_isa_name(posenc_isa_active()));
  return 0;
}
