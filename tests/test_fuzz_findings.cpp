// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_fuzz_findings.cpp — regression tests of what the libFuzzer targets (tests/fuzz/)
// found, one test per finding, each the minimal form of the crashing input.
#include "tests/test_common.hpp"

#include <limits>
#include <vector>

namespace {

using namespace posenc_test;

// fuzz_sphere: posenc_sph_kernel_f64 accepted n = 2^63 - 2 (no byte count check) and read
// cos_gamma past the caller's array while validating it.
TEST(FuzzFindings, SphKernelRejectsOverflowingN) {
  std::vector<double> cg(4, 0.5), out(4);
  poison(out);
  EXPECT_POSENC_ERROR(posenc_sph_kernel_f64(2, nullptr, cg.data(), std::numeric_limits<int64_t>::max() - 1, out.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "n");
  EXPECT_POSENC_ERROR(posenc_sph_kernel_f64(2, nullptr, cg.data(), (int64_t(1) << 62) + 1, out.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "n");
  EXPECT_EQ(count_poison(out), out.size());
  EXPECT_EQ(posenc_sph_kernel_f64(2, nullptr, cg.data(), 4, out.data()), POSENC_OK);
}

}  // namespace
