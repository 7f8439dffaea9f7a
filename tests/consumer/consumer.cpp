// SPDX-License-Identifier: Apache-2.0 OR MIT
// Downstream C++ program using the installed posenc.hpp.
#include <posenc/posenc.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  std::vector<float> table(4 * 8);
  posenc::sinusoidal(nullptr, 4, 8, 10000.0, POSENC_SINUSOIDAL_HALVES, table.data());
  if (std::fabs(table[8] - std::sin(1.0)) > 1e-7) return 1;  // row 1, frequency 0
  try {
    posenc::sinusoidal(nullptr, 4, 7, 10000.0, POSENC_SINUSOIDAL_HALVES, table.data());
    return 1;
  } catch (const posenc::error& e) {
    if (e.status() != POSENC_ERR_INVALID_ARGUMENT) return 1;
  }
  std::printf("consumer_cpp: posenc %s, isa %s: 1 passed, 0 failed\n", posenc::version_string(),
              posenc_isa_name(posenc_isa_active()));
  return 0;
}
