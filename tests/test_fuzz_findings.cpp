// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_fuzz_findings.cpp — regression tests of what the libFuzzer targets (tests/fuzz/)
// found, one test per finding, each the minimal form of the crashing input.
#include "tests/test_common.hpp"

#include <cmath>
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

// fuzz_graph: weights near the float64 limit overflowed a weighted degree (NaN in y with status
// OK), and a large t * lambda_max converted a float beyond int64's range to the term count (UB).
// Both are now INVALID_ARGUMENT before anything is written, for every heat-kernel function.
TEST(FuzzFindings, HeatKernelRejectsOverflowingScale) {
  const int64_t src[] = {0, 1, 2}, dst[] = {1, 2, 0};
  const double big[] = {1e308, 1e308, 1e308}, one[] = {1.0, 1.0, 1.0};
  std::vector<double> x = {1.0, 0.0, 0.0}, y(3);
  poison(y);
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(3, src, dst, big, 3, POSENC_LAPLACIAN_COMBINATORIAL, 1.0, x.data(),
                                                   1, y.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "weights");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(3, src, dst, one, 3, POSENC_LAPLACIAN_SYM, 1e300, x.data(), 1,
                                                   y.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "t");
  EXPECT_EQ(count_poison(y), y.size());
  std::vector<double> d(3);
  poison(d);
  const double times[] = {1.0, 1e300};
  EXPECT_POSENC_ERROR(posenc_heat_kernel_diag_f64(3, src, dst, one, 3, POSENC_LAPLACIAN_SYM, times, 2, d.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "times");
  EXPECT_EQ(count_poison(d), d.size());
  EXPECT_EQ(posenc_heat_kernel_apply_f64(3, src, dst, one, 3, POSENC_LAPLACIAN_SYM, 1.0, x.data(), 1, y.data(), nullptr),
            POSENC_OK);
  for (double v : y) EXPECT_TRUE(std::isfinite(v));
}

// fuzz_rope: with num_tokens >= 2^62 and no heads to rotate, the apply functions scanned
// positions[0 .. num_tokens) (far past any real array) before a byte-count check; the positions
// count is now checked as int64 elements (SIZE_OVERFLOW) before it is read.
TEST(FuzzFindings, RopeApplyRejectsOverflowingPositionCount) {
  posenc_rope_params p;
  ASSERT_EQ(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 8, 1e4), POSENC_OK);
  const int64_t positions[4] = {0, 1, 2, 3};
  std::vector<float> q(32);
  poison(q);
  EXPECT_POSENC_ERROR(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, positions, int64_t(1) << 62, 8, q.data(), 0, 0,
                                            nullptr, 0, 0, 0),
                      POSENC_ERR_SIZE_OVERFLOW, "positions");
  EXPECT_EQ(count_poison(q), q.size());
  EXPECT_EQ(posenc_rope_apply_f32(&p, POSENC_ROPE_NEOX, positions, 4, 8, q.data(), 1, 8, nullptr, 0, 0, 0),
            POSENC_OK);
}

// fuzz_rope: posenc_rope_decay_f64 with count >= 2^62 and n_step = 0 passed validation (the
// position range check sees n_begin only) and wrote count elements of f; the byte count of f is
// now checked (SIZE_OVERFLOW) before anything is written.
TEST(FuzzFindings, RopeDecayRejectsOverflowingCount) {
  const double inv[2] = {1.0, 0.1};
  std::vector<double> f(8), bound(8);
  poison(f);
  poison(bound);
  for (int64_t count : {(int64_t(1) << 62) + 1, std::numeric_limits<int64_t>::max(), int64_t(3) << 61}) {
    EXPECT_POSENC_ERROR(posenc_rope_decay_f64(inv, 2, 5, 0, count, f.data(), nullptr), POSENC_ERR_SIZE_OVERFLOW, "f");
    EXPECT_POSENC_ERROR(posenc_rope_decay_f64(inv, 2, 5, 0, count, f.data(), bound.data()), POSENC_ERR_SIZE_OVERFLOW,
                        "f");
  }
  EXPECT_EQ(count_poison(f), f.size());
  EXPECT_EQ(count_poison(bound), bound.size());
  EXPECT_EQ(posenc_rope_decay_f64(inv, 2, 5, 0, 8, f.data(), bound.data()), POSENC_OK);
}

// fuzz_rope (finding rope_strided_bf16): a strided operand whose other counts are all 1 was
// accepted with head_dim >= 2^62 (the extent check ran for dimensions of count > 1 only), a
// claim of an array larger than the address space; now SIZE_OVERFLOW before anything is read or
// written, as the packed functions do. A huge stride of a dimension of count 1 stays legitimate.
TEST(FuzzFindings, RopeStridedRejectsOverflowingHeadDim) {
  posenc_rope_params p;
  ASSERT_EQ(posenc_rope_params_init(&p, POSENC_ROPE_DEFAULT, 8, 1e4), POSENC_OK);
  std::vector<uint16_t> q(16, 0x3f80);  // bf16 1.0
  const std::vector<uint16_t> q0 = q;
  posenc_rope_operand op{q.data(), 1, 0, 0, 0};
  for (int64_t head_dim : {(int64_t(1) << 62) + 1, std::numeric_limits<int64_t>::max()}) {
    EXPECT_POSENC_ERROR(posenc_rope_apply_strided(&p, POSENC_ROPE_BF16, POSENC_ROPE_NEOX, nullptr, 1, 1, 1, head_dim,
                                                  &op, nullptr, 0),
                        POSENC_ERR_SIZE_OVERFLOW, "q");
  }
  EXPECT_EQ(q, q0);
  // Count-1 dimensions with wild strides: OK, only the 8 channels of the one head are touched.
  posenc_rope_operand wild{q.data(), 1, (int64_t(1) << 62) + 1, std::numeric_limits<int64_t>::max(), int64_t(3) << 61};
  const int64_t pos[1] = {3};
  EXPECT_EQ(posenc_rope_apply_strided(&p, POSENC_ROPE_BF16, POSENC_ROPE_NEOX, pos, 1, 1, 1, 8, &wild, nullptr, 0),
            POSENC_OK)
      << posenc_last_error_message();
  EXPECT_NE(q, q0);
  for (size_t i = 8; i < q.size(); ++i) EXPECT_EQ(q[i], q0[i]) << i;
}

// fuzz_graph (finding graph_heat_nan): a graph whose only edges are self-loops (dropped: the
// combinatorial L = 0, spectral bound 1e-300) gave NaN in y with status OK: the Chebyshev
// coefficients' recurrence overflowed for z = t lambda_max / 2 ~ 1e-301. exp(-tL) is the identity
// there: y = x, for every heat-kernel function; L_sym (1 on isolated nodes) gives exp(-t) x.
TEST(FuzzFindings, HeatKernelOfEdgelessGraphIsIdentity) {
  const int64_t src[] = {1, 1}, dst[] = {1, 1};
  const std::vector<double> x = {-1.95, 0.5, -0.65, -1.3};
  std::vector<double> y(4), eb(1);
  poison(y);
  ASSERT_EQ(posenc_heat_kernel_apply_f64(2, src, dst, nullptr, 2, POSENC_LAPLACIAN_COMBINATORIAL, 0.235, x.data(), 2,
                                         y.data(), eb.data()),
            POSENC_OK)
      << posenc_last_error_message();
  EXPECT_EQ(y, x);
  EXPECT_LE(eb[0], 1e-15);
  const double times[] = {0.5, 3.0};
  std::vector<double> d(4);
  ASSERT_EQ(posenc_heat_kernel_diag_f64(2, src, dst, nullptr, 2, POSENC_LAPLACIAN_COMBINATORIAL, times, 2, d.data(),
                                        nullptr),
            POSENC_OK);
  for (double v : d) EXPECT_EQ(v, 1.0);
  ASSERT_EQ(posenc_heat_kernel_apply_f64(2, src, dst, nullptr, 2, POSENC_LAPLACIAN_SYM, 0.235, x.data(), 2, y.data(),
                                         eb.data()),
            POSENC_OK);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], std::exp(-0.235) * x[i], 1e-14) << i;
}

// fuzz_graph: posenc_heat_kernel_rows_f64 scanned sources[0 .. num_sources) for node ids before
// checking num_sources' byte count, reading far past the array for num_sources >= 2^62; the sizes
// are now checked first (SIZE_OVERFLOW naming sources).
TEST(FuzzFindings, HeatKernelRowsRejectsOverflowingSourceCount) {
  const int64_t src[] = {0, 1}, dst[] = {1, 2}, sources[] = {0, 2};
  std::vector<double> out(6);
  poison(out);
  for (int64_t ns : {(int64_t(1) << 62) + 1, std::numeric_limits<int64_t>::max()})
    EXPECT_POSENC_ERROR(posenc_heat_kernel_rows_f64(3, src, dst, nullptr, 2, POSENC_LAPLACIAN_SYM, 1.0, sources, ns,
                                                    out.data(), nullptr),
                        POSENC_ERR_SIZE_OVERFLOW, "sources");
  EXPECT_EQ(count_poison(out), out.size());
  EXPECT_EQ(posenc_heat_kernel_rows_f64(3, src, dst, nullptr, 2, POSENC_LAPLACIAN_SYM, 1.0, sources, 2, out.data(),
                                        nullptr),
            POSENC_OK);
}

}  // namespace
