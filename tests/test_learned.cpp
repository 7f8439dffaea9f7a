// SPDX-License-Identifier: Apache-2.0 OR MIT
// learned family tests: lookup-add, deterministic gradient scatter, singular spectrum and
// effective rank, truncated SVD, and PyTorch/timm-compatible resampling.
//
// References: naive sequential loops (add, grad: bitwise), Eigen::JacobiSVD (one-sided Jacobi,
// independent of the BDCSVD the library uses), the Roy & Vetterli formula, Eckart-Young, the
// 14 -> 24 weight tables of docs/REFERENCES.md §5 (checked there against torch 1.13 F.interpolate),
// and a dense, non-separable float64 resampler written here from the formulas.
#include "tests/test_common.hpp"

#include "posenc/posenc.hpp"

#include <Eigen/Dense>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <random>
#include <tuple>
#include <utility>

using namespace posenc_test;

namespace {

std::vector<float> random_floats(size_t count, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(count);
  for (auto& x : v) x = d(rng);
  return v;
}

std::vector<int64_t> random_positions(size_t n, int64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> d(0, rows - 1);
  std::vector<int64_t> p(n);
  for (auto& x : p) x = d(rng);
  return p;
}

// ================================================================== add
class LearnedAdd : public IsaTest {};

TEST_P(LearnedAdd, MatchesNaiveLoopBitwiseOddDimsUnalignedPointers) {
  for (int32_t dim : {1, 3, 7, 8, 16, 17, 31, 33, 64, 100, 771}) {
    const int64_t rows = 37, n = 53;
    // +1 float: table and x start one float past the allocation (not 16/32/64-byte aligned).
    std::vector<float> tbuf = random_floats(static_cast<size_t>(rows * dim) + 1, 100 + dim);
    const float* table = tbuf.data() + 1;
    auto pos = random_positions(static_cast<size_t>(n), rows, 7 + dim);
    pos[0] = 0;
    pos[1] = rows - 1;
    pos[2] = pos[3];  // a repeat
    std::vector<float> x0 = random_floats(static_cast<size_t>(n * dim), 200 + dim);
    std::vector<float> buf(static_cast<size_t>(n * dim) + 2);
    poison(buf);
    std::copy(x0.begin(), x0.end(), buf.begin() + 1);
    ASSERT_EQ(posenc_learned_add_f32(table, rows, dim, pos.data(), n, buf.data() + 1), POSENC_OK)
        << posenc_last_error_message();
    EXPECT_TRUE(is_poison(buf.front()));
    EXPECT_TRUE(is_poison(buf.back()));
    std::vector<float> ref = x0, got(buf.begin() + 1, buf.end() - 1);
    for (int64_t i = 0; i < n; ++i)
      for (int32_t c = 0; c < dim; ++c) ref[i * dim + c] += table[pos[i] * dim + c];
    EXPECT_TRUE(same_bits(ref, got)) << "dim " << dim;
  }
}

TEST_P(LearnedAdd, GptSizeAndThreadCounts) {
  const int64_t rows = 1024, n = 700;
  const int32_t dim = 768;
  auto table = random_floats(static_cast<size_t>(rows * dim), 1);
  auto pos = random_positions(static_cast<size_t>(n), rows, 2);
  auto x0 = random_floats(static_cast<size_t>(n * dim), 3);
  std::vector<float> ref = x0;
  for (int64_t i = 0; i < n; ++i)
    for (int32_t c = 0; c < dim; ++c) ref[i * dim + c] += table[pos[i] * dim + c];
  for (int threads : {1, 2, 3}) {
    ThreadScope ts(threads);
    std::vector<float> x = x0;
    ASSERT_EQ(posenc_learned_add_f32(table.data(), rows, dim, pos.data(), n, x.data()), POSENC_OK);
    EXPECT_TRUE(same_bits(ref, x)) << threads << " threads";
  }
}

TEST_P(LearnedAdd, BadInputLeavesXUntouched) {
  const int64_t rows = 10, n = 4;
  const int32_t dim = 5;
  auto table = random_floats(static_cast<size_t>(rows * dim), 1);
  std::vector<int64_t> pos = {0, 9, 3, 4};
  std::vector<float> x(static_cast<size_t>(n * dim));
  poison(x);
  const std::vector<float> x0 = x;
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(nullptr, rows, dim, pos.data(), n, x.data()), POSENC_ERR_NULL_POINTER, "table");
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), rows, dim, nullptr, n, x.data()), POSENC_ERR_NULL_POINTER, "positions");
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), rows, dim, pos.data(), n, nullptr), POSENC_ERR_NULL_POINTER, "x");
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), rows, dim, pos.data(), -1, x.data()), POSENC_ERR_INVALID_ARGUMENT, "n must be >= 0");
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), rows, 0, pos.data(), n, x.data()), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), rows, -3, pos.data(), n, x.data()), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), 0, dim, pos.data(), n, x.data()), POSENC_ERR_INVALID_ARGUMENT, "rows");
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), std::numeric_limits<int64_t>::max() / 2, dim, pos.data(), n, x.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "table");
  // Out of range: the last position is bad, so a partial write would show.
  std::vector<int64_t> bad = {0, 1, 2, 10};
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), rows, dim, bad.data(), n, x.data()), POSENC_ERR_INVALID_ARGUMENT,
                      "positions[3] = 10");
  bad[3] = -1;
  EXPECT_POSENC_ERROR(posenc_learned_add_f32(table.data(), rows, dim, bad.data(), n, x.data()), POSENC_ERR_INVALID_ARGUMENT,
                      "positions[3] = -1");
  EXPECT_TRUE(same_bits(x, x0));
  // n == 0 with NULL positions and x is a valid no-op.
  EXPECT_EQ(posenc_learned_add_f32(table.data(), rows, dim, nullptr, 0, nullptr), POSENC_OK);
}

POSENC_INSTANTIATE_ISA(LearnedAdd);

// ================================================================== grad
class LearnedGrad : public IsaTest {};

std::vector<float> naive_grad(const std::vector<float>& gx, const std::vector<int64_t>& pos, int32_t dim,
                              std::vector<float> gt) {
  for (size_t i = 0; i < pos.size(); ++i)
    for (int32_t c = 0; c < dim; ++c) gt[static_cast<size_t>(pos[i] * dim + c)] += gx[i * dim + c];
  return gt;
}

TEST_P(LearnedGrad, MatchesSequentialLoopBitwiseForOneTwoThreeThreads) {
  struct Case { int64_t rows, n; int32_t dim; };
  // Many repeats (n >> rows), odd dims for the SIMD tails, and a sparse huge table (sort path).
  for (const Case& cs : {Case{7, 5000, 67}, Case{512, 4096, 768}, Case{3, 900, 1}, Case{100, 50, 33},
                         Case{200000, 40, 5}}) {
    std::vector<float> gx = random_floats(static_cast<size_t>(cs.n * cs.dim), 11 + cs.dim, -3.0f, 3.0f);
    auto pos = random_positions(static_cast<size_t>(cs.n), cs.rows, 12 + cs.dim);
    std::vector<float> gt0 = random_floats(static_cast<size_t>(cs.rows * cs.dim), 13);
    const std::vector<float> ref = naive_grad(gx, pos, cs.dim, gt0);
    std::vector<float> first;
    for (int threads : {1, 2, 3}) {
      ThreadScope ts(threads);
      std::vector<float> gt = gt0;
      ASSERT_EQ(posenc_learned_grad_f32(gx.data(), pos.data(), cs.n, cs.dim, gt.data(), cs.rows), POSENC_OK)
          << posenc_last_error_message();
      EXPECT_TRUE(same_bits(gt, ref)) << "rows " << cs.rows << " dim " << cs.dim << " threads " << threads;
      if (first.empty()) first = gt;
      EXPECT_TRUE(same_bits(gt, first));
    }
  }
}

TEST_P(LearnedGrad, UnalignedPointersAndUntouchedRows) {
  const int64_t rows = 50, n = 300;
  const int32_t dim = 19;
  std::vector<float> gxb = random_floats(static_cast<size_t>(n * dim) + 1, 5);
  std::vector<int64_t> pos = random_positions(static_cast<size_t>(n), 25, 6);  // rows 25..49 never named
  std::vector<float> gtb(static_cast<size_t>(rows * dim) + 2);
  poison(gtb);
  for (size_t e = 1; e < gtb.size() - 1; ++e) gtb[e] = 0.0f;
  for (int64_t r = 25; r < rows; ++r)
    for (int32_t c = 0; c < dim; ++c) gtb[static_cast<size_t>(1 + r * dim + c)] = poison_f32();
  ASSERT_EQ(posenc_learned_grad_f32(gxb.data() + 1, pos.data(), n, dim, gtb.data() + 1, rows), POSENC_OK);
  std::vector<float> gx(gxb.begin() + 1, gxb.end());
  std::vector<float> zero(static_cast<size_t>(rows * dim), 0.0f);
  const auto ref = naive_grad(gx, pos, dim, zero);
  EXPECT_TRUE(is_poison(gtb.front()));
  EXPECT_TRUE(is_poison(gtb.back()));
  for (int64_t r = 0; r < rows; ++r)
    for (int32_t c = 0; c < dim; ++c) {
      const float v = gtb[static_cast<size_t>(1 + r * dim + c)];
      if (r >= 25) {
        EXPECT_TRUE(is_poison(v)) << "untouched row " << r << " was written";
      } else {
        EXPECT_EQ(v, ref[static_cast<size_t>(r * dim + c)]);
      }
    }
}

TEST_P(LearnedGrad, BadInputLeavesGradTableUntouched) {
  const int64_t rows = 6, n = 3;
  const int32_t dim = 4;
  auto gx = random_floats(static_cast<size_t>(n * dim), 1);
  std::vector<int64_t> pos = {0, 5, 2};
  std::vector<float> gt(static_cast<size_t>(rows * dim));
  poison(gt);
  const auto gt0 = gt;
  EXPECT_POSENC_ERROR(posenc_learned_grad_f32(nullptr, pos.data(), n, dim, gt.data(), rows), POSENC_ERR_NULL_POINTER, "grad_x");
  EXPECT_POSENC_ERROR(posenc_learned_grad_f32(gx.data(), nullptr, n, dim, gt.data(), rows), POSENC_ERR_NULL_POINTER, "positions");
  EXPECT_POSENC_ERROR(posenc_learned_grad_f32(gx.data(), pos.data(), n, dim, nullptr, rows), POSENC_ERR_NULL_POINTER, "grad_table");
  EXPECT_POSENC_ERROR(posenc_learned_grad_f32(gx.data(), pos.data(), -2, dim, gt.data(), rows), POSENC_ERR_INVALID_ARGUMENT, "n must");
  EXPECT_POSENC_ERROR(posenc_learned_grad_f32(gx.data(), pos.data(), n, 0, gt.data(), rows), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(posenc_learned_grad_f32(gx.data(), pos.data(), n, dim, gt.data(), -1), POSENC_ERR_INVALID_ARGUMENT, "rows");
  EXPECT_POSENC_ERROR(posenc_learned_grad_f32(gx.data(), pos.data(), std::numeric_limits<int64_t>::max() / 3, dim, gt.data(), rows),
                      POSENC_ERR_SIZE_OVERFLOW, "grad_x");
  std::vector<int64_t> bad = {0, 1, 6};
  EXPECT_POSENC_ERROR(posenc_learned_grad_f32(gx.data(), bad.data(), n, dim, gt.data(), rows), POSENC_ERR_INVALID_ARGUMENT,
                      "positions[2] = 6");
  EXPECT_TRUE(same_bits(gt, gt0));
}

POSENC_INSTANTIATE_ISA(LearnedGrad);

// ================================================================== spectrum and low rank
/// A [rows, dim] table with prescribed singular values s_k = decay^k (random orthogonal factors).
std::vector<float> table_with_spectrum(int64_t rows, int32_t dim, double decay, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  const int64_t m = std::min<int64_t>(rows, dim);
  Eigen::MatrixXd g1(rows, m), g2(dim, m);
  for (int64_t i = 0; i < g1.size(); ++i) g1.data()[i] = nd(rng);
  for (int64_t i = 0; i < g2.size(); ++i) g2.data()[i] = nd(rng);
  Eigen::MatrixXd u = Eigen::HouseholderQR<Eigen::MatrixXd>(g1).householderQ() * Eigen::MatrixXd::Identity(rows, m);
  Eigen::MatrixXd v = Eigen::HouseholderQR<Eigen::MatrixXd>(g2).householderQ() * Eigen::MatrixXd::Identity(dim, m);
  Eigen::VectorXd s(m);
  for (int64_t k = 0; k < m; ++k) s[k] = std::pow(decay, static_cast<double>(k));
  Eigen::MatrixXd a = u * s.asDiagonal() * v.transpose();
  std::vector<float> t(static_cast<size_t>(rows * dim));
  for (int64_t i = 0; i < rows; ++i)
    for (int32_t j = 0; j < dim; ++j) t[static_cast<size_t>(i * dim + j)] = static_cast<float>(a(i, j));
  return t;
}

Eigen::MatrixXd as_matrix(const std::vector<float>& t, int64_t rows, int32_t dim) {
  Eigen::MatrixXd a(rows, dim);
  for (int64_t i = 0; i < rows; ++i)
    for (int32_t j = 0; j < dim; ++j) a(i, j) = t[static_cast<size_t>(i * dim + j)];
  return a;
}

double erank_formula(const Eigen::VectorXd& s) {
  const double total = s.sum();
  double h = 0.0;
  for (Eigen::Index k = 0; k < s.size(); ++k) {
    const double p = s[k] / total;
    if (p > 0.0) h -= p * std::log(p);
  }
  return std::exp(h);
}

TEST(LearnedSpectrum, MatchesJacobiSvdAndRoyVetterliFormula) {
  struct Case { int64_t rows; int32_t dim; double decay; };
  double worst_s = 0.0, worst_er = 0.0;
  for (const Case& cs : {Case{40, 23, 0.8}, Case{23, 40, 0.9}, Case{64, 64, 0.97}, Case{1, 9, 1.0}, Case{9, 1, 1.0},
                         Case{120, 48, 0.5}}) {
    auto t = table_with_spectrum(cs.rows, cs.dim, cs.decay, 17 + cs.rows);
    const Eigen::MatrixXd a = as_matrix(t, cs.rows, cs.dim);
    Eigen::JacobiSVD<Eigen::MatrixXd> ref(a);
    const Eigen::VectorXd& s_ref = ref.singularValues();
    const int64_t m = std::min<int64_t>(cs.rows, cs.dim);
    std::vector<double> s(static_cast<size_t>(m) + 1);
    poison(s);
    double er = poison_f64();
    ASSERT_EQ(posenc_learned_spectrum_f32(t.data(), cs.rows, cs.dim, s.data(), &er), POSENC_OK)
        << posenc_last_error_message();
    EXPECT_TRUE(is_poison(s.back())) << "wrote past min(rows, dim)";
    for (int64_t k = 0; k < m; ++k) {
      EXPECT_NEAR(s[k], s_ref[k], 1e-13 * s_ref[0]) << "k " << k;
      worst_s = std::max(worst_s, std::fabs(s[k] - s_ref[k]) / s_ref[0]);
      if (k > 0) {
        EXPECT_LE(s[k], s[k - 1]);
      }
    }
    EXPECT_NEAR(er, erank_formula(s_ref), 1e-12 * erank_formula(s_ref));
    worst_er = std::max(worst_er, std::fabs(er - erank_formula(s_ref)) / erank_formula(s_ref));
    EXPECT_GE(er, 1.0 - 1e-12);
    EXPECT_LE(er, static_cast<double>(m) + 1e-12);
    // Either output may be NULL.
    double er2 = 0.0;
    ASSERT_EQ(posenc_learned_spectrum_f32(t.data(), cs.rows, cs.dim, nullptr, &er2), POSENC_OK);
    EXPECT_EQ(er2, er);
    std::vector<double> s2(static_cast<size_t>(m));
    ASSERT_EQ(posenc_learned_spectrum_f32(t.data(), cs.rows, cs.dim, s2.data(), nullptr), POSENC_OK);
    EXPECT_TRUE(std::equal(s2.begin(), s2.end(), s.begin()));
  }
  std::printf("[ spectrum ] max |s - s_jacobi| / s_max = %.3g, max rel. erank error = %.3g\n", worst_s, worst_er);
}

TEST(LearnedSpectrum, ClosedFormCases) {
  // Orthogonal rows of equal norm: all singular values equal -> erank = rank exactly (up to rounding).
  const int64_t rows = 6;
  const int32_t dim = 10;
  std::vector<float> t(static_cast<size_t>(rows * dim), 0.0f);
  for (int64_t i = 0; i < rows; ++i) t[static_cast<size_t>(i * dim + i)] = 3.0f;
  std::vector<double> s(6);
  double er = 0.0;
  ASSERT_EQ(posenc_learned_spectrum_f32(t.data(), rows, dim, s.data(), &er), POSENC_OK);
  for (double v : s) EXPECT_NEAR(v, 3.0, 1e-14);
  EXPECT_NEAR(er, 6.0, 1e-12);
  // Rank one: erank 1.
  std::vector<float> r1(static_cast<size_t>(rows * dim));
  for (int64_t i = 0; i < rows; ++i)
    for (int32_t j = 0; j < dim; ++j) r1[static_cast<size_t>(i * dim + j)] = static_cast<float>((i + 1) * (j - 4.5));
  ASSERT_EQ(posenc_learned_spectrum_f32(r1.data(), rows, dim, s.data(), &er), POSENC_OK);
  EXPECT_NEAR(er, 1.0, 1e-12);
  EXPECT_LT(s[1], 1e-13 * s[0]);
  // All zero: documented erank = 0, singular values 0.
  std::vector<float> z(static_cast<size_t>(rows * dim), 0.0f);
  ASSERT_EQ(posenc_learned_spectrum_f32(z.data(), rows, dim, s.data(), &er), POSENC_OK);
  EXPECT_EQ(er, 0.0);
  for (double v : s) EXPECT_EQ(v, 0.0);
}

TEST(LearnedSpectrum, BadInput) {
  std::vector<float> t(12, 1.0f);
  std::vector<double> s(3);
  poison(s);
  double er = poison_f64();
  EXPECT_POSENC_ERROR(posenc_learned_spectrum_f32(nullptr, 3, 4, s.data(), &er), POSENC_ERR_NULL_POINTER, "table");
  EXPECT_POSENC_ERROR(posenc_learned_spectrum_f32(t.data(), 0, 4, s.data(), &er), POSENC_ERR_INVALID_ARGUMENT, "rows");
  EXPECT_POSENC_ERROR(posenc_learned_spectrum_f32(t.data(), 3, 0, s.data(), &er), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(posenc_learned_spectrum_f32(t.data(), std::numeric_limits<int64_t>::max() / 2, 4, s.data(), &er),
                      POSENC_ERR_SIZE_OVERFLOW, "table");
  t[7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_POSENC_ERROR(posenc_learned_spectrum_f32(t.data(), 3, 4, s.data(), &er), POSENC_ERR_INVALID_ARGUMENT, "table[1, 3]");
  t[7] = std::numeric_limits<float>::infinity();
  EXPECT_POSENC_ERROR(posenc_learned_spectrum_f32(t.data(), 3, 4, s.data(), &er), POSENC_ERR_INVALID_ARGUMENT, "not finite");
  EXPECT_EQ(count_poison(s), 3u);
  EXPECT_TRUE(is_poison(er));
}

TEST(LearnedLowrank, EckartYoungErrorEqualsSpectralTail) {
  struct Case { int64_t rows; int32_t dim; double decay; };
  for (const Case& cs : {Case{60, 30, 0.85}, Case{30, 60, 0.9}, Case{77, 41, 0.7}}) {
    auto t = table_with_spectrum(cs.rows, cs.dim, cs.decay, 99 + cs.dim);
    const Eigen::MatrixXd a = as_matrix(t, cs.rows, cs.dim);
    Eigen::JacobiSVD<Eigen::MatrixXd> ref(a);
    const Eigen::VectorXd& s = ref.singularValues();
    const int32_t m = static_cast<int32_t>(std::min<int64_t>(cs.rows, cs.dim));
    const double norm = a.norm();
    double worst = 0.0;
    for (int32_t r : {1, 2, 5, m / 2, m - 1, m}) {
      std::vector<float> left(static_cast<size_t>(cs.rows * r)), right(static_cast<size_t>(r * cs.dim));
      poison(left);
      poison(right);
      ASSERT_EQ(posenc_learned_lowrank_f32(t.data(), cs.rows, cs.dim, r, left.data(), right.data()), POSENC_OK)
          << posenc_last_error_message();
      ASSERT_EQ(count_poison(left) + count_poison(right), 0u);
      Eigen::MatrixXd l(cs.rows, r), rt(r, cs.dim);
      for (int64_t i = 0; i < cs.rows; ++i)
        for (int32_t c = 0; c < r; ++c) l(i, c) = left[static_cast<size_t>(i * r + c)];
      for (int32_t c = 0; c < r; ++c)
        for (int32_t j = 0; j < cs.dim; ++j) rt(c, j) = right[static_cast<size_t>(c * cs.dim + j)];
      const double err = (a - l * rt).norm();
      double tail = 0.0;
      for (int32_t k = r; k < m; ++k) tail += s[k] * s[k];
      tail = std::sqrt(tail);
      EXPECT_NEAR(err, tail, 1e-6 * norm) << "r " << r;
      worst = std::max(worst, std::fabs(err - tail) / norm);
      for (int32_t c = 0; c < r; ++c) {
        EXPECT_NEAR(l.col(c).norm(), s[c], 1e-6 * s[0]);   // left = U Sigma
        EXPECT_NEAR(rt.row(c).norm(), 1.0, 1e-6);          // right = V^T, unit rows
        Eigen::Index jmax;
        rt.row(c).cwiseAbs().maxCoeff(&jmax);
        EXPECT_GT(rt(c, jmax), 0.0) << "sign rule";
      }
    }
    std::printf("[ lowrank ] %lldx%d: max | ||A - LR||_F - tail | / ||A||_F = %.3g\n", static_cast<long long>(cs.rows),
                cs.dim, worst);
  }
}

TEST(LearnedLowrank, BadInputLeavesFactorsUntouched) {
  auto t = random_floats(20, 3);
  std::vector<float> left(20), right(20);
  poison(left);
  poison(right);
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(t.data(), 4, 5, 0, left.data(), right.data()), POSENC_ERR_INVALID_ARGUMENT, "r must");
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(t.data(), 4, 5, 5, left.data(), right.data()), POSENC_ERR_INVALID_ARGUMENT, "r must");
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(t.data(), 4, 5, -1, left.data(), right.data()), POSENC_ERR_INVALID_ARGUMENT, "r must");
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(nullptr, 4, 5, 2, left.data(), right.data()), POSENC_ERR_NULL_POINTER, "table");
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(t.data(), 4, 5, 2, nullptr, right.data()), POSENC_ERR_NULL_POINTER, "left");
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(t.data(), 4, 5, 2, left.data(), nullptr), POSENC_ERR_NULL_POINTER, "right");
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(t.data(), -4, 5, 2, left.data(), right.data()), POSENC_ERR_INVALID_ARGUMENT, "rows");
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(t.data(), 4, 0, 2, left.data(), right.data()), POSENC_ERR_INVALID_ARGUMENT, "dim");
  t[19] = -std::numeric_limits<float>::infinity();
  EXPECT_POSENC_ERROR(posenc_learned_lowrank_f32(t.data(), 4, 5, 2, left.data(), right.data()), POSENC_ERR_INVALID_ARGUMENT, "table[3, 4]");
  EXPECT_EQ(count_poison(left) + count_poison(right), 40u);
}

// ================================================================== resample
/// Independent float64 reference: dense per-axis weight matrices W [out, in] built from the
/// formulas (every input index visited, nothing precomputed per tap), then the non-separable
/// double sum out[yo, xo] = sum_{y, x} Wy[yo, y] Wx[xo, x] in[y, x].
double keys(double x, double a) {
  x = std::fabs(x);
  if (x < 1.0) return (a + 2.0) * x * x * x - (a + 3.0) * x * x + 1.0;
  if (x < 2.0) return a * x * x * x - 5.0 * a * x * x + 8.0 * a * x - 4.0 * a;
  return 0.0;
}

std::vector<double> dense_weights(posenc_resample mode, int64_t in, int64_t out) {
  std::vector<double> w(static_cast<size_t>(in * out), 0.0);
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  for (int64_t j = 0; j < out; ++j) {
    double* row = w.data() + j * in;
    if (in == out) {  // PyTorch: identity (exact copy)
      row[j] = 1.0;
      continue;
    }
    if (mode == POSENC_RESAMPLE_BICUBIC_AA) {
      // Filter centered at scale*(j + 0.5) in pixel-center coordinates x + 0.5, stretched by
      // max(scale, 1); taps beyond the edge simply do not exist; weights renormalized.
      const double fs = std::max(scale, 1.0), center = scale * (j + 0.5);
      double total = 0.0;
      for (int64_t x = 0; x < in; ++x) total += (row[x] = keys((x + 0.5 - center) / fs, -0.5));
      for (int64_t x = 0; x < in; ++x) row[x] /= total;
    } else if (mode == POSENC_RESAMPLE_BICUBIC) {
      const double src = scale * (j + 0.5) - 0.5;
      const double fl = std::floor(src);
      for (int64_t k = -1; k <= 2; ++k) {
        const int64_t x = std::clamp<int64_t>(static_cast<int64_t>(fl) + k, 0, in - 1);
        row[x] += keys(src - (fl + k), -0.75);
      }
    } else {
      const double src = std::max(scale * (j + 0.5) - 0.5, 0.0);
      const double fl = std::min(std::floor(src), static_cast<double>(in - 1));
      const double l = src - fl;
      row[static_cast<int64_t>(fl)] += 1.0 - l;
      row[std::min<int64_t>(static_cast<int64_t>(fl) + 1, in - 1)] += l;
    }
  }
  return w;
}

std::vector<double> resample_ref(const std::vector<float>& t, int32_t prefix, int64_t oh, int64_t ow, int32_t dim,
                                 int64_t nh, int64_t nw, posenc_resample mode) {
  const auto wy = dense_weights(mode, oh, nh), wx = dense_weights(mode, ow, nw);
  std::vector<double> out(static_cast<size_t>((prefix + nh * nw) * dim), 0.0);
  for (int64_t e = 0; e < prefix * dim; ++e) out[e] = t[e];
  for (int64_t yo = 0; yo < nh; ++yo)
    for (int64_t xo = 0; xo < nw; ++xo) {
      double* o = out.data() + (prefix + yo * nw + xo) * dim;
      for (int64_t y = 0; y < oh; ++y) {
        const double a = wy[yo * oh + y];
        if (a == 0.0) continue;
        for (int64_t x = 0; x < ow; ++x) {
          const double b = wx[xo * ow + x];
          if (b == 0.0) continue;
          const float* s = t.data() + (prefix + y * ow + x) * dim;
          for (int32_t c = 0; c < dim; ++c) o[c] += a * b * s[c];
        }
      }
    }
  return out;
}

const posenc_resample kModes[] = {POSENC_RESAMPLE_BICUBIC_AA, POSENC_RESAMPLE_BICUBIC, POSENC_RESAMPLE_LINEAR};

class LearnedResample : public IsaTest {};

/// Weights of output j of a 1-D resample in -> out: resample the identity table (row x = e_x).
std::vector<float> impulse_weights(posenc_resample mode, int64_t in, int64_t out) {
  std::vector<float> eye(static_cast<size_t>(in * in), 0.0f);
  for (int64_t x = 0; x < in; ++x) eye[static_cast<size_t>(x * in + x)] = 1.0f;
  std::vector<float> w(static_cast<size_t>(out * in));
  poison(w);
  EXPECT_EQ(posenc_learned_resample_f32(eye.data(), 0, 1, in, static_cast<int32_t>(in), 1, out, mode, w.data()), POSENC_OK)
      << posenc_last_error_message();
  return w;
}

TEST_P(LearnedResample, WeightTablesOfReferences14To24) {
  // docs/REFERENCES.md §5 (torch 1.13 F.interpolate), 14 -> 24.
  struct Expect { posenc_resample mode; int64_t j; int64_t first; std::vector<double> w; };
  const std::vector<Expect> table = {
      {POSENC_RESAMPLE_BICUBIC_AA, 0, 0, {1.077742, -0.077742}},
      {POSENC_RESAMPLE_BICUBIC, 0, 0, {1.097928, -0.097928}},
      {POSENC_RESAMPLE_BICUBIC_AA, 12, 5, {-0.017180, 0.177409, 0.905056, -0.065285}},
      {POSENC_RESAMPLE_BICUBIC, 12, 5, {-0.025770, 0.210052, 0.913646, -0.097928}},
      // Linear, from the formula: output 0 -> src clamped to 0; output 12 -> src = 14/24*12.5 - 0.5.
      {POSENC_RESAMPLE_LINEAR, 0, 0, {1.0, 0.0}},
      {POSENC_RESAMPLE_LINEAR, 12, 6, {1.0 - (14.0 / 24.0 * 12.5 - 0.5 - 6.0), 14.0 / 24.0 * 12.5 - 0.5 - 6.0}},
  };
  for (const Expect& e : table) {
    const auto w = impulse_weights(e.mode, 14, 24);
    for (int64_t x = 0; x < 14; ++x) {
      const int64_t k = x - e.first;
      const double want = (k >= 0 && k < static_cast<int64_t>(e.w.size())) ? e.w[static_cast<size_t>(k)] : 0.0;
      EXPECT_NEAR(w[static_cast<size_t>(e.j * 14 + x)], want, 1.5e-6) << "mode " << e.mode << " output " << e.j << " input " << x;
    }
  }
  // Every output's weights sum to 1 (a constant table stays constant).
  for (posenc_resample mode : kModes) {
    for (auto [in, out] : std::vector<std::pair<int64_t, int64_t>>{{14, 24}, {32, 16}, {24, 14}, {5, 17}, {17, 5}}) {
      const auto w = impulse_weights(mode, in, out);
      for (int64_t j = 0; j < out; ++j) {
        double sum = 0.0;
        for (int64_t x = 0; x < in; ++x) sum += w[static_cast<size_t>(j * in + x)];
        EXPECT_NEAR(sum, 1.0, 1e-6) << "mode " << mode << " " << in << " -> " << out << " output " << j;
      }
    }
  }
}

TEST_P(LearnedResample, MatchesDenseFloat64ReferenceOnGrids) {
  struct Case { int32_t prefix; int64_t oh, ow; int32_t dim; int64_t nh, nw; };
  double worst = 0.0;
  for (const Case& cs : {Case{1, 14, 14, 37, 24, 24}, Case{0, 32, 32, 19, 16, 16}, Case{2, 7, 5, 40, 3, 11},
                         Case{1, 1, 50, 33, 1, 20}, Case{0, 1, 9, 8, 1, 31}, Case{4, 6, 6, 5, 6, 13},
                         Case{1, 6, 9, 3, 2, 9}}) {
    const int64_t in_rows = cs.prefix + cs.oh * cs.ow, out_rows = cs.prefix + cs.nh * cs.nw;
    auto t = random_floats(static_cast<size_t>(in_rows * cs.dim), 31 + cs.dim);
    for (posenc_resample mode : kModes) {
      const auto ref = resample_ref(t, cs.prefix, cs.oh, cs.ow, cs.dim, cs.nh, cs.nw, mode);
      // out one float past the allocation, poison around it.
      std::vector<float> buf(static_cast<size_t>(out_rows * cs.dim) + 2);
      poison(buf);
      ASSERT_EQ(posenc_learned_resample_f32(t.data(), cs.prefix, cs.oh, cs.ow, cs.dim, cs.nh, cs.nw, mode, buf.data() + 1),
                POSENC_OK)
          << posenc_last_error_message();
      EXPECT_TRUE(is_poison(buf.front()));
      EXPECT_TRUE(is_poison(buf.back()));
      double err = 0.0;
      for (size_t e = 0; e < ref.size(); ++e) err = std::max(err, std::fabs(buf[e + 1] - ref[e]));
      EXPECT_LE(err, 2e-6) << "mode " << mode << " " << cs.oh << "x" << cs.ow << " -> " << cs.nh << "x" << cs.nw;
      worst = std::max(worst, err);
      for (int64_t e = 0; e < cs.prefix * cs.dim; ++e) EXPECT_EQ(buf[static_cast<size_t>(e + 1)], t[static_cast<size_t>(e)]);
    }
  }
  RecordProperty("max_abs_error", std::to_string(worst));
  std::printf("[ resample ] max abs error vs float64 dense reference: %.3g\n", worst);
}

TEST_P(LearnedResample, IdentityAtEqualSizeIsBitExact) {
  for (posenc_resample mode : kModes) {
    for (auto [prefix, h, w, dim] :
         std::vector<std::tuple<int32_t, int64_t, int64_t, int32_t>>{{1, 14, 14, 24}, {0, 1, 33, 7}, {3, 5, 2, 65}}) {
      auto t = random_floats(static_cast<size_t>((prefix + h * w) * dim), 77);
      std::vector<float> out(t.size());
      poison(out);
      ASSERT_EQ(posenc_learned_resample_f32(t.data(), prefix, h, w, dim, h, w, mode, out.data()), POSENC_OK);
      EXPECT_TRUE(same_bits(out, t));
    }
  }
}

TEST_P(LearnedResample, PrefixTokensCopiedAndGridIndependentOfThem) {
  const int32_t dim = 21, prefix = 3;
  const int64_t oh = 8, ow = 6, nh = 12, nw = 4;
  auto t = random_floats(static_cast<size_t>((prefix + oh * ow) * dim), 5);
  for (posenc_resample mode : kModes) {
    std::vector<float> with((prefix + nh * nw) * dim), without(nh * nw * dim);
    ASSERT_EQ(posenc_learned_resample_f32(t.data(), prefix, oh, ow, dim, nh, nw, mode, with.data()), POSENC_OK);
    ASSERT_EQ(posenc_learned_resample_f32(t.data() + prefix * dim, 0, oh, ow, dim, nh, nw, mode, without.data()), POSENC_OK);
    EXPECT_TRUE(std::equal(t.begin(), t.begin() + prefix * dim, with.begin()));
    EXPECT_TRUE(same_bits(std::vector<float>(with.begin() + prefix * dim, with.end()), without));
  }
}

TEST_P(LearnedResample, BitwiseIdenticalForOneTwoThreeThreads) {
  const int32_t dim = 768;
  const int64_t oh = 14, ow = 14, nh = 24, nw = 24;
  auto t = random_floats(static_cast<size_t>((1 + oh * ow) * dim), 8);
  for (posenc_resample mode : kModes) {
    std::vector<float> first;
    for (int threads : {1, 2, 3}) {
      ThreadScope ts(threads);
      std::vector<float> out((1 + nh * nw) * dim);
      ASSERT_EQ(posenc_learned_resample_f32(t.data(), 1, oh, ow, dim, nh, nw, mode, out.data()), POSENC_OK);
      if (first.empty()) first = out;
      EXPECT_TRUE(same_bits(first, out)) << threads << " threads";
    }
  }
}

TEST_P(LearnedResample, BadInputLeavesOutUntouched) {
  auto t = random_floats(4 * 4 * 3 + 3, 1);
  std::vector<float> out(100);
  poison(out);
  auto call = [&](const float* tab, int32_t prefix, int64_t oh, int64_t ow, int32_t dim, int64_t nh, int64_t nw, int mode, float* o) {
    return posenc_learned_resample_f32(tab, prefix, oh, ow, dim, nh, nw, static_cast<posenc_resample>(mode), o);
  };
  EXPECT_POSENC_ERROR(call(nullptr, 1, 4, 4, 3, 5, 5, 0, out.data()), POSENC_ERR_NULL_POINTER, "table");
  EXPECT_POSENC_ERROR(call(t.data(), 1, 4, 4, 3, 5, 5, 0, nullptr), POSENC_ERR_NULL_POINTER, "out");
  EXPECT_POSENC_ERROR(call(t.data(), -1, 4, 4, 3, 5, 5, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "prefix");
  EXPECT_POSENC_ERROR(call(t.data(), 1, 0, 4, 3, 5, 5, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "old_h");
  EXPECT_POSENC_ERROR(call(t.data(), 1, 4, -4, 3, 5, 5, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "old_w");
  EXPECT_POSENC_ERROR(call(t.data(), 1, 4, 4, 0, 5, 5, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(call(t.data(), 1, 4, 4, 3, 0, 5, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "new_h");
  EXPECT_POSENC_ERROR(call(t.data(), 1, 4, 4, 3, 5, -2, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "new_w");
  EXPECT_POSENC_ERROR(call(t.data(), 1, 4, 4, 3, 5, 5, 3, out.data()), POSENC_ERR_INVALID_ARGUMENT, "mode");
  EXPECT_POSENC_ERROR(call(t.data(), 1, int64_t(1) << 40, int64_t(1) << 40, 3, 5, 5, 0, out.data()), POSENC_ERR_SIZE_OVERFLOW,
                      "old grid");
  EXPECT_POSENC_ERROR(call(t.data(), 1, 4, 4, 3, int64_t(1) << 31, int64_t(1) << 31, 0, out.data()), POSENC_ERR_SIZE_OVERFLOW,
                      "out");
  EXPECT_EQ(count_poison(out), out.size());
}

POSENC_INSTANTIATE_ISA(LearnedResample);

// ================================================================== resample backward (adjoint)
/// float64 A^T y from the dense per-axis matrices of the reference above, and |A|^T |y| (for the
/// error bound): grad[y, x] = sum_{yo, xo} Wy[yo, y] Wx[xo, x] g[yo, xo]; the prefix rows copied.
std::pair<std::vector<double>, std::vector<double>> resample_adjoint_ref(const std::vector<float>& g, int32_t prefix,
                                                                         int64_t oh, int64_t ow, int32_t dim,
                                                                         int64_t nh, int64_t nw, posenc_resample mode) {
  const auto wy = dense_weights(mode, oh, nh), wx = dense_weights(mode, ow, nw);
  std::vector<double> out(static_cast<size_t>((prefix + oh * ow) * dim), 0.0), mag(out.size(), 0.0);
  for (int64_t e = 0; e < prefix * dim; ++e) out[e] = g[e], mag[e] = std::fabs(g[e]);
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      double* o = out.data() + (prefix + y * ow + x) * dim;
      double* m = mag.data() + (prefix + y * ow + x) * dim;
      for (int64_t yo = 0; yo < nh; ++yo) {
        const double a = wy[yo * oh + y];
        if (a == 0.0) continue;
        for (int64_t xo = 0; xo < nw; ++xo) {
          const double b = wx[xo * ow + x];
          if (b == 0.0) continue;
          const float* s = g.data() + (prefix + yo * nw + xo) * dim;
          for (int32_t c = 0; c < dim; ++c) o[c] += a * b * s[c], m[c] += std::fabs(a * b * s[c]);
        }
      }
    }
  return {out, mag};
}

class LearnedResampleBackward : public IsaTest {};

struct ResampleCase { int32_t prefix; int64_t oh, ow; int32_t dim; int64_t nh, nw; };
const ResampleCase kResampleCases[] = {{1, 14, 14, 37, 24, 24}, {0, 32, 32, 19, 16, 16}, {2, 7, 5, 40, 3, 11},
                                       {1, 1, 50, 33, 1, 20},   {0, 1, 9, 8, 1, 31},    {4, 6, 6, 5, 6, 13},
                                       {1, 6, 9, 3, 2, 9},      {0, 2, 3, 17, 40, 1},   {1, 5, 5, 9, 5, 5}};

TEST_P(LearnedResampleBackward, MatchesDenseFloat64Transpose) {
  double worst = 0.0;
  for (const ResampleCase& cs : kResampleCases) {
    const int64_t in_rows = cs.prefix + cs.oh * cs.ow, out_rows = cs.prefix + cs.nh * cs.nw;
    auto gout = random_floats(static_cast<size_t>(out_rows * cs.dim), 41 + cs.dim);
    for (posenc_resample mode : kModes) {
      const auto [ref, mag] = resample_adjoint_ref(gout, cs.prefix, cs.oh, cs.ow, cs.dim, cs.nh, cs.nw, mode);
      std::vector<float> buf(static_cast<size_t>(in_rows * cs.dim) + 2);
      poison(buf);
      ASSERT_EQ(posenc_learned_resample_backward_f32(gout.data(), cs.prefix, cs.oh, cs.ow, cs.dim, cs.nh, cs.nw, mode,
                                                     buf.data() + 1),
                POSENC_OK)
          << posenc_last_error_message();
      EXPECT_TRUE(is_poison(buf.front()));
      EXPECT_TRUE(is_poison(buf.back()));
      size_t bad = 0;
      for (size_t e = 0; e < ref.size(); ++e) {
        const double err = std::fabs(buf[e + 1] - ref[e]);
        worst = std::max(worst, err / std::max(mag[e], 1e-30));
        if (!(err <= 4e-6 * mag[e])) ++bad;  // also catches NaN (poison left behind)
      }
      EXPECT_EQ(bad, 0u) << "mode " << mode << " " << cs.oh << "x" << cs.ow << " -> " << cs.nh << "x" << cs.nw;
      for (int64_t e = 0; e < cs.prefix * cs.dim; ++e)
        EXPECT_EQ(buf[static_cast<size_t>(e + 1)], gout[static_cast<size_t>(e)]);
    }
  }
  std::printf("[ resample backward ] max error / (|A|^T |y|) vs float64 dense transpose: %.3g\n", worst);
}

TEST_P(LearnedResampleBackward, AdjointIdentityAndFiniteDifferences) {
  for (const ResampleCase& cs : kResampleCases) {
    const int64_t in_rows = cs.prefix + cs.oh * cs.ow, out_rows = cs.prefix + cs.nh * cs.nw;
    const size_t nin = static_cast<size_t>(in_rows * cs.dim), nout = static_cast<size_t>(out_rows * cs.dim);
    auto x = random_floats(nin, 7 + cs.dim);
    auto y = random_floats(nout, 9 + cs.dim);
    for (posenc_resample mode : kModes) {
      std::vector<float> ax(nout), aty(nin);
      ASSERT_EQ(posenc_learned_resample_f32(x.data(), cs.prefix, cs.oh, cs.ow, cs.dim, cs.nh, cs.nw, mode, ax.data()),
                POSENC_OK);
      ASSERT_EQ(posenc_learned_resample_backward_f32(y.data(), cs.prefix, cs.oh, cs.ow, cs.dim, cs.nh, cs.nw, mode,
                                                     aty.data()),
                POSENC_OK);
      // <A x, y> = <x, A^T y> in float64 over the float32 results: equal to their rounding.
      double lhs = 0.0, rhs = 0.0, scale = 0.0;
      for (size_t e = 0; e < nout; ++e) lhs += double(ax[e]) * y[e], scale += std::fabs(double(ax[e]) * y[e]);
      for (size_t e = 0; e < nin; ++e) rhs += double(x[e]) * aty[e], scale += std::fabs(double(x[e]) * aty[e]);
      EXPECT_LE(std::fabs(lhs - rhs), 2e-6 * scale) << "mode " << mode << " " << cs.oh << "x" << cs.ow;
      // Finite differences of L(t) = <A t, y> (A is linear: central differences with step h are
      // exact up to the rounding of the few outputs that change).
      std::mt19937_64 rng(cs.dim);
      for (int probe = 0; probe < 6; ++probe) {
        const size_t i = static_cast<size_t>(rng() % nin);
        const float h = 0.5f;
        auto loss = [&](float delta) {
          std::vector<float> t = x, out(nout);
          t[i] += delta;
          EXPECT_EQ(posenc_learned_resample_f32(t.data(), cs.prefix, cs.oh, cs.ow, cs.dim, cs.nh, cs.nw, mode, out.data()),
                    POSENC_OK);
          double l = 0.0;
          for (size_t e = 0; e < nout; ++e) l += double(out[e]) * y[e];
          return l;
        };
        const double fd = (loss(h) - loss(-h)) / (2.0 * h);
        EXPECT_NEAR(fd, aty[i], 2e-5 * (1.0 + std::fabs(aty[i]))) << "element " << i << " mode " << mode;
      }
    }
  }
}

TEST_P(LearnedResampleBackward, EqualSizesCopyAndThreadsAreBitwise) {
  for (posenc_resample mode : kModes) {
    auto g = random_floats(static_cast<size_t>((2 + 5 * 7) * 11), 3);
    std::vector<float> out(g.size());
    poison(out);
    ASSERT_EQ(posenc_learned_resample_backward_f32(g.data(), 2, 5, 7, 11, 5, 7, mode, out.data()), POSENC_OK);
    EXPECT_TRUE(same_bits(out, g));
  }
  const int32_t dim = 768;
  const int64_t oh = 14, ow = 14, nh = 24, nw = 24;
  auto g = random_floats(static_cast<size_t>((1 + nh * nw) * dim), 8);
  for (posenc_resample mode : kModes) {
    std::vector<float> first;
    for (int threads : {1, 2, 3}) {
      ThreadScope ts(threads);
      std::vector<float> out((1 + oh * ow) * dim);
      ASSERT_EQ(posenc_learned_resample_backward_f32(g.data(), 1, oh, ow, dim, nh, nw, mode, out.data()), POSENC_OK);
      if (first.empty()) first = out;
      EXPECT_TRUE(same_bits(first, out)) << threads << " threads";
    }
  }
}

TEST_P(LearnedResampleBackward, BadInputLeavesGradTableUntouched) {
  auto g = random_floats(5 * 5 * 3 + 3, 1);
  std::vector<float> out(100);
  poison(out);
  auto call = [&](const float* go, int32_t prefix, int64_t oh, int64_t ow, int32_t dim, int64_t nh, int64_t nw, int mode,
                  float* o) {
    return posenc_learned_resample_backward_f32(go, prefix, oh, ow, dim, nh, nw, static_cast<posenc_resample>(mode), o);
  };
  EXPECT_POSENC_ERROR(call(nullptr, 1, 4, 4, 3, 5, 5, 0, out.data()), POSENC_ERR_NULL_POINTER, "grad_out");
  EXPECT_POSENC_ERROR(call(g.data(), 1, 4, 4, 3, 5, 5, 0, nullptr), POSENC_ERR_NULL_POINTER, "grad_table");
  EXPECT_POSENC_ERROR(call(g.data(), -1, 4, 4, 3, 5, 5, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "prefix");
  EXPECT_POSENC_ERROR(call(g.data(), 1, 0, 4, 3, 5, 5, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "old_h");
  EXPECT_POSENC_ERROR(call(g.data(), 1, 4, 4, 0, 5, 5, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "dim");
  EXPECT_POSENC_ERROR(call(g.data(), 1, 4, 4, 3, 5, -2, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "new_w");
  EXPECT_POSENC_ERROR(call(g.data(), 1, 4, 4, 3, 5, 5, 7, out.data()), POSENC_ERR_INVALID_ARGUMENT, "mode");
  EXPECT_POSENC_ERROR(call(g.data(), 1, 4, 4, 3, int64_t(1) << 31, int64_t(1) << 31, 0, out.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "grad_out");
  EXPECT_POSENC_ERROR(call(g.data(), 1, int64_t(1) << 31, int64_t(1) << 31, 3, 5, 5, 0, out.data()),
                      POSENC_ERR_SIZE_OVERFLOW, "grad_table");
  EXPECT_EQ(count_poison(out), out.size());
}

POSENC_INSTANTIATE_ISA(LearnedResampleBackward);

}  // namespace

// ================================================================== C++ layer

namespace {

TEST(LearnedCpp, WrappersCallTheCAbiAndThrowOnError) {
  auto t = random_floats(static_cast<size_t>((1 + 4 * 4) * 6), 3);
  const auto out = posenc::learned_resample(t, 1, 4, 4, 6, 7, 7);
  std::vector<float> ref((1 + 7 * 7) * 6);
  ASSERT_EQ(posenc_learned_resample_f32(t.data(), 1, 4, 4, 6, 7, 7, POSENC_RESAMPLE_BICUBIC_AA, ref.data()), POSENC_OK);
  EXPECT_TRUE(same_bits(out, ref));
  const auto sp = posenc::learned_spectrum(t.data(), 17, 6);
  EXPECT_EQ(sp.singular_values.size(), 6u);
  EXPECT_GT(sp.effective_rank, 1.0);
  try {
    posenc::learned_resample(t, 1, 4, 4, 6, 0, 7);
    FAIL() << "no exception";
  } catch (const posenc::error& e) {
    EXPECT_EQ(e.status(), POSENC_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("new_h"), std::string::npos) << e.what();
  }
  EXPECT_THROW(posenc::learned_resample(t, 1, 4, 5, 6, 7, 7), posenc::error);  // table size mismatch
  std::vector<int64_t> bad = {3};
  std::vector<float> x(6);
  EXPECT_THROW(posenc::learned_add(t.data(), 2, 6, bad.data(), 1, x.data()), posenc::error);
}

}  // namespace
