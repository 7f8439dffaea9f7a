// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_rwse_mc.cpp — graph family: posenc_rwse_auto_f64, the Monte-Carlo RWSE
// estimator and the AUTO choice between it and the exact path.
//
// References: (P^t)_vv from dense matrix powers of P = D^-1 A built here from the edge list
// (self-loops and weights written out as posenc.h states them), and, for the 2000-node
// Barabasi-Albert graph where dense powers are too slow, posenc_rwse_ex_f64 (the exact path,
// itself tested against dense powers in test_graph.cpp). The statistical checks use the
// standard error posenc.h states, se = sqrt(p (1 - p) / R) with p the exact value: every entry
// within 5 se; the mean squared z-score <= 1 (the stated se is an upper bound); the per-node mean
// z averaged over nodes (independent) within 5 / sqrt(nodes) of 0; the mean over 200 seeds within
// 5 se / sqrt(200) of the exact value (unbiasedness). Every seed is fixed: the tests are
// deterministic. The code has no ISA-specific part: the ISA-parameterized tests check that every
// path gives the same bits.
#include "tests/test_common.hpp"
#include "tests/graph_gen.hpp"

#include "posenc/posenc.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;

namespace {

/// (P^t)_vv, t = 1..steps, from dense powers; A[u][v] += w for u != v (both directions), A[v][v]
/// += w for a self-loop when loops is set (ignored otherwise); isolated rows of P are zero.
std::vector<double> rwse_dense(const EdgeList& g, const std::vector<double>& w, int32_t steps, bool loops) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(g.n, g.n);
  for (int64_t e = 0; e < g.m(); ++e) {
    const double x = w.empty() ? 1.0 : w[static_cast<size_t>(e)];
    if (g.src[e] == g.dst[e]) {
      if (loops) A(g.src[e], g.src[e]) += x;
      continue;
    }
    A(g.src[e], g.dst[e]) += x;
    A(g.dst[e], g.src[e]) += x;
  }
  Eigen::MatrixXd P = A;
  for (int64_t i = 0; i < g.n; ++i) {
    const double d = A.row(i).sum();
    P.row(i) = d > 0 ? Eigen::VectorXd(A.row(i).transpose() / d) : Eigen::VectorXd::Zero(g.n);
  }
  std::vector<double> out(static_cast<size_t>(g.n * steps));
  Eigen::MatrixXd Pt = Eigen::MatrixXd::Identity(g.n, g.n);
  for (int32_t t = 1; t <= steps; ++t) {
    Pt = Pt * P;
    for (int64_t v = 0; v < g.n; ++v) out[static_cast<size_t>(v * steps + t - 1)] = Pt(v, v);
  }
  return out;
}

std::vector<double> exact_ex(const EdgeList& g, const std::vector<double>& w, int32_t steps, uint32_t flags) {
  std::vector<double> out(static_cast<size_t>(g.n * steps));
  EXPECT_EQ(posenc_rwse_ex_f64(g.n, g.src.data(), g.dst.data(), w.empty() ? nullptr : w.data(), g.m(), steps, flags,
                               out.data()),
            POSENC_OK)
      << posenc_last_error_message();
  return out;
}

struct McRun {
  std::vector<double> out;
  posenc_rwse_info info;
};

McRun run(const EdgeList& g, const std::vector<double>& w, int32_t steps, posenc_rwse_method method, int32_t walks,
        uint64_t seed, uint32_t flags = 0) {
  McRun r;
  r.out.resize(static_cast<size_t>(g.n * steps));
  poison(r.out);
  EXPECT_EQ(posenc_rwse_info_init(&r.info), POSENC_OK);
  r.info.method = method;
  r.info.walks = walks;
  r.info.seed = seed;
  r.info.flags = flags;
  EXPECT_EQ(posenc_rwse_auto_f64(g.n, g.src.data(), g.dst.data(), w.empty() ? nullptr : w.data(), g.m(), steps,
                                 r.out.data(), &r.info),
            POSENC_OK)
      << posenc_last_error_message();
  EXPECT_EQ(count_poison(r.out), 0u);
  return r;
}

/// The statistical checks of the file header against the exact values ref.
void expect_within_std_errors(const std::vector<double>& got, const std::vector<double>& ref, int64_t n,
                              int32_t steps, int32_t R) {
  double sum_z2 = 0.0, sum_node_mean = 0.0;
  int64_t cnt = 0, nodes = 0;
  for (int64_t v = 0; v < n; ++v) {
    double zs = 0.0;
    int zc = 0;
    for (int32_t t = 0; t < steps; ++t) {
      const size_t k = static_cast<size_t>(v * steps + t);
      const double p = ref[k];
      const double se = std::sqrt(std::max(0.0, p * (1.0 - p)) / R);
      ASSERT_GE(got[k], 0.0);
      ASSERT_LE(got[k], 1.0);
      if (se < 1e-12) {  // p = 0 or 1: every walk term equals p
        EXPECT_NEAR(got[k], p, 1e-12) << "node " << v << " t " << t + 1;
        continue;
      }
      const double z = (got[k] - p) / se;
      EXPECT_LE(std::abs(z), 5.0) << "node " << v << " t " << t + 1 << " got " << got[k] << " exact " << p;
      sum_z2 += z * z;
      zs += z;
      ++zc;
      ++cnt;
    }
    if (zc > 0) {
      sum_node_mean += zs / zc;
      ++nodes;
    }
  }
  ASSERT_GT(cnt, 0);
  const double msz = sum_z2 / static_cast<double>(cnt);
  EXPECT_LE(msz, 1.0) << "mean squared z-score above the stated standard error";
  EXPECT_GT(msz, 1e-3) << "no sampling noise at all: not a Monte-Carlo estimate?";
  EXPECT_LE(std::abs(sum_node_mean / static_cast<double>(nodes)), 5.0 / std::sqrt(static_cast<double>(nodes)))
      << "mean z-score over nodes: biased";
}

/// POSENC_TEST_REDUCED (asan and aarch64 presets): the code has no ISA-specific part, so the
/// statistical tests run on the scalar path only there (the native release run runs them all).
bool skip_reduced(posenc_isa isa) { return std::getenv("POSENC_TEST_REDUCED") != nullptr && isa != POSENC_ISA_SCALAR; }

class RwseMc : public IsaTest {};

TEST_P(RwseMc, KarateWithinStatedStdErrors) {
  if (skip_reduced(GetParam())) GTEST_SKIP() << "POSENC_TEST_REDUCED: scalar path only";
  const EdgeList g = posenc_graph_gen::karate();
  const int32_t steps = 16, R = 4000;
  const std::vector<double> ref = rwse_dense(g, {}, steps, false);
  const McRun r = run(g, {}, steps, POSENC_RWSE_MONTE_CARLO, R, 7);
  EXPECT_EQ(r.info.method_used, POSENC_RWSE_MONTE_CARLO);
  EXPECT_EQ(r.info.walks_used, R);
  EXPECT_DOUBLE_EQ(r.info.std_error_bound, 0.5 / std::sqrt(static_cast<double>(R)));
  expect_within_std_errors(r.out, ref, g.n, steps, R);
  // t = 1 is exact: no self-loops, so (P)_vv = 0.
  for (int64_t v = 0; v < g.n; ++v) EXPECT_EQ(r.out[static_cast<size_t>(v * steps)], 0.0);
}

TEST_P(RwseMc, GridWithinStatedStdErrorsAndOddStepsExactlyZero) {
  if (skip_reduced(GetParam())) GTEST_SKIP() << "POSENC_TEST_REDUCED: scalar path only";
  const EdgeList g = posenc_graph_gen::grid(9, 13);
  const int32_t steps = 12, R = 2000;
  const std::vector<double> ref = rwse_dense(g, {}, steps, false);
  const McRun r = run(g, {}, steps, POSENC_RWSE_MONTE_CARLO, R, 11);
  expect_within_std_errors(r.out, ref, g.n, steps, R);
  // Bipartite: no walk returns after an odd number of steps.
  for (int64_t v = 0; v < g.n; ++v)
    for (int32_t t = 1; t <= steps; t += 2) EXPECT_EQ(r.out[static_cast<size_t>(v * steps + t - 1)], 0.0);
}

TEST_P(RwseMc, BarabasiAlbertWithinStatedStdErrors) {
  if (skip_reduced(GetParam())) GTEST_SKIP() << "POSENC_TEST_REDUCED: scalar path only";
  const EdgeList g = posenc_graph_gen::barabasi_albert(2000, 3, 5);
  const int32_t steps = 16, R = 300;
  const std::vector<double> ref = exact_ex(g, {}, steps, 0);
  const McRun r = run(g, {}, steps, POSENC_RWSE_MONTE_CARLO, R, 3);
  expect_within_std_errors(r.out, ref, g.n, steps, R);
}

TEST_P(RwseMc, UnbiasedOverSeeds) {
  if (skip_reduced(GetParam())) GTEST_SKIP() << "POSENC_TEST_REDUCED: scalar path only";
  const EdgeList g = posenc_graph_gen::karate();
  const int32_t steps = 10, R = 32, seeds = 200;
  const std::vector<double> ref = rwse_dense(g, {}, steps, false);
  std::vector<double> mean(ref.size(), 0.0), sq(ref.size(), 0.0);
  for (int s = 0; s < seeds; ++s) {
    const McRun r = run(g, {}, steps, POSENC_RWSE_MONTE_CARLO, R, 1000 + static_cast<uint64_t>(s));
    for (size_t k = 0; k < ref.size(); ++k) {
      mean[k] += r.out[k] / seeds;
      sq[k] += (r.out[k] - ref[k]) * (r.out[k] - ref[k]) / seeds;
    }
  }
  for (size_t k = 0; k < ref.size(); ++k) {
    const double se = std::sqrt(ref[k] * (1.0 - ref[k]) / R);
    EXPECT_NEAR(mean[k], ref[k], 5.0 * se / std::sqrt(static_cast<double>(seeds)) + 1e-15) << "entry " << k;
    // The spread over seeds is at most the stated standard error (with sampling slack).
    EXPECT_LE(std::sqrt(sq[k]), 1.3 * se + 1e-15) << "entry " << k;
  }
}

TEST_P(RwseMc, BitwiseIdenticalForAnyThreadCountAndSeedDependent) {
  if (skip_reduced(GetParam())) GTEST_SKIP() << "POSENC_TEST_REDUCED: scalar path only";
  const EdgeList g = posenc_graph_gen::barabasi_albert(2000, 3, 5);
  std::vector<std::vector<double>> runs;
  for (int th : {1, 2, 3}) {
    ThreadScope ts(th);
    runs.push_back(run(g, {}, 16, POSENC_RWSE_MONTE_CARLO, 40, 99).out);
  }
  EXPECT_TRUE(same_bits(runs[0], runs[1]));
  EXPECT_TRUE(same_bits(runs[0], runs[2]));
  EXPECT_TRUE(same_bits(runs[0], run(g, {}, 16, POSENC_RWSE_MONTE_CARLO, 40, 99).out));
  EXPECT_FALSE(same_bits(runs[0], run(g, {}, 16, POSENC_RWSE_MONTE_CARLO, 40, 100).out));
}

TEST_P(RwseMc, SameBitsOnEveryIsaPath) {
  // Computed once on the scalar path, compared on the path under test.
  const EdgeList g = posenc_graph_gen::karate();
  std::vector<double> scalar;
  {
    ASSERT_EQ(posenc_isa_set(POSENC_ISA_SCALAR), POSENC_OK);
    scalar = run(g, {}, 8, POSENC_RWSE_MONTE_CARLO, 50, 5).out;
    ASSERT_EQ(posenc_isa_set(GetParam()), POSENC_OK);
  }
  EXPECT_TRUE(same_bits(scalar, run(g, {}, 8, POSENC_RWSE_MONTE_CARLO, 50, 5).out));
}

TEST_P(RwseMc, WeightsAndSelfLoops) {
  if (skip_reduced(GetParam())) GTEST_SKIP() << "POSENC_TEST_REDUCED: scalar path only";
  // Karate with random weights (the binary-search row path), self-loops on nodes 0 and 5, an
  // isolated node 34, a node 35 whose only edge is a self-loop and a pair listed twice (summed).
  EdgeList g = posenc_graph_gen::karate();
  g.n = 36;
  std::vector<double> w;
  uint64_t s = 17;
  for (int64_t e = 0; e < g.m(); ++e) w.push_back(0.25 + posenc_graph_gen::uniform01(s));
  const int64_t extra[4][2] = {{0, 0}, {5, 5}, {35, 35}, {1, 2}};
  for (const auto& e : extra) {
    g.src.push_back(e[0]);
    g.dst.push_back(e[1]);
    w.push_back(1.5);
  }
  const int32_t steps = 8, R = 3000;
  const std::vector<double> ref = rwse_dense(g, w, steps, true);
  const McRun r = run(g, w, steps, POSENC_RWSE_MONTE_CARLO, R, 23, POSENC_GRAPH_KEEP_SELF_LOOPS);
  expect_within_std_errors(r.out, ref, g.n, steps, R);
  for (int32_t t = 0; t < steps; ++t) {
    EXPECT_EQ(r.out[static_cast<size_t>(34 * steps + t)], 0.0);  // isolated
    EXPECT_EQ(r.out[static_cast<size_t>(35 * steps + t)], 1.0);  // only a self-loop: P_vv = 1
  }
  // t = 1 is exact: the self-loop's share of the degree.
  EXPECT_NEAR(r.out[0], ref[0], 1e-12);  // R equal terms summed: rounding only
  EXPECT_GT(ref[0], 0.0);
  // Without KEEP_SELF_LOOPS the loops are ignored, as on the exact path.
  const std::vector<double> ref_noloop = rwse_dense(g, w, steps, false);
  const McRun r2 = run(g, w, steps, POSENC_RWSE_MONTE_CARLO, R, 23);
  expect_within_std_errors(r2.out, ref_noloop, g.n, steps, R);
  // Forced EXACT is posenc_rwse_ex_f64, bitwise, with either flag set.
  for (uint32_t f : {0u, unsigned{POSENC_GRAPH_KEEP_SELF_LOOPS},
                     unsigned{POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_GRAPH_BOTH_DIRECTIONS}}) {
    const McRun e = run(g, w, steps, POSENC_RWSE_EXACT, 0, 0, f);
    EXPECT_TRUE(same_bits(e.out, exact_ex(g, w, steps, f))) << "flags " << f;
    EXPECT_EQ(e.info.method_used, POSENC_RWSE_EXACT);
    EXPECT_EQ(e.info.walks_used, 0);
    EXPECT_EQ(e.info.std_error_bound, 0.0);
  }
}

TEST_P(RwseMc, AutoChoosesByCost) {
  // Karate: exact is far cheaper than 2500 walks per node: AUTO runs it (bitwise posenc_rwse_f64).
  const EdgeList k = posenc_graph_gen::karate();
  const McRun a = run(k, {}, 16, POSENC_RWSE_AUTO, 0, 0);
  EXPECT_EQ(a.info.method_used, POSENC_RWSE_EXACT);
  EXPECT_EQ(a.info.walks_used, 0);
  EXPECT_TRUE(same_bits(a.out, exact_ex(k, {}, 16, 0)));
  EXPECT_LE(a.info.exact_cost, a.info.monte_carlo_cost);
  EXPECT_DOUBLE_EQ(a.info.monte_carlo_cost, POSENC_RWSE_MC_STEP_COST * POSENC_RWSE_DEFAULT_WALKS * 16 * 34);
  // Karate has 5 blocks of 8 sources: the model is evaluated on all of them. Its value, written
  // out: blocks of BFS order; per block 8 (sum_{s<8} vol(B_s) + 16 |B_8|). Karate's diameter is 5:
  // every B_s with s >= 5 is the whole graph (vol 156, 34 nodes), so the value lies between
  // 5 * 8 * (3 * 156 + 16 * 34) and 5 * 8 * (8 * 156 + 16 * 34).
  EXPECT_GE(a.info.exact_cost, 5.0 * 8 * (3 * 156 + 16 * 34));
  EXPECT_LE(a.info.exact_cost, 5.0 * 8 * (8 * 156 + 16 * 34));
  // Forced Monte-Carlo with the default budget.
  const McRun m = run(k, {}, 16, POSENC_RWSE_MONTE_CARLO, 0, 0);
  EXPECT_EQ(m.info.method_used, POSENC_RWSE_MONTE_CARLO);
  EXPECT_EQ(m.info.walks_used, POSENC_RWSE_DEFAULT_WALKS);
  EXPECT_DOUBLE_EQ(m.info.std_error_bound, 0.01);
  // Barabasi-Albert 2000 with 16 walks per node: the hubs make exact dearer: AUTO takes MC, and
  // its output is the forced MC output bitwise.
  const EdgeList b = posenc_graph_gen::barabasi_albert(2000, 3, 5);
  const McRun ab = run(b, {}, 16, POSENC_RWSE_AUTO, 16, 4);
  EXPECT_GT(ab.info.exact_cost, ab.info.monte_carlo_cost);
  EXPECT_EQ(ab.info.method_used, POSENC_RWSE_MONTE_CARLO);
  EXPECT_EQ(ab.info.walks_used, 16);
  EXPECT_TRUE(same_bits(ab.out, run(b, {}, 16, POSENC_RWSE_MONTE_CARLO, 16, 4).out));
  // NULL info: AUTO with the defaults (karate: exact).
  std::vector<double> o(static_cast<size_t>(34 * 16));
  ASSERT_EQ(posenc_rwse_auto_f64(34, k.src.data(), k.dst.data(), nullptr, k.m(), 16, o.data(), nullptr), POSENC_OK);
  EXPECT_TRUE(same_bits(o, a.out));
}

TEST_P(RwseMc, CppWrapperMatchesTheCCall) {
  const EdgeList k = posenc_graph_gen::karate();
  const posenc::rwse_auto_result r = posenc::rwse_auto(34, k.src, k.dst, 6, {}, POSENC_RWSE_MONTE_CARLO, 64, 3);
  EXPECT_TRUE(same_bits(r.out, run(k, {}, 6, POSENC_RWSE_MONTE_CARLO, 64, 3).out));
  EXPECT_EQ(r.info.walks_used, 64);
  EXPECT_THROW(posenc::rwse_auto(34, k.src, k.dst, 0), posenc::error);
}

TEST_P(RwseMc, BadInputWritesNothing) {
  const EdgeList k = posenc_graph_gen::karate();
  const int64_t* s = k.src.data();
  const int64_t* d = k.dst.data();
  std::vector<double> out(34 * 4);
  poison(out);
  posenc_rwse_info info;
  ASSERT_EQ(posenc_rwse_info_init(&info), POSENC_OK);
  posenc_rwse_info before;
  auto reset = [&] {
    ASSERT_EQ(posenc_rwse_info_init(&info), POSENC_OK);
    info.method_used = POSENC_RWSE_MONTE_CARLO;  // an out field that a failing call must not write
    info.exact_cost = -7.0;
    before = info;
  };
  auto untouched = [&] {
    EXPECT_EQ(count_poison(out), out.size());
    EXPECT_EQ(std::memcmp(&info, &before, sizeof info), 0);
  };
  reset();
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(0, s, d, nullptr, 78, 4, out.data(), &info), POSENC_ERR_INVALID_ARGUMENT,
                      "num_nodes");
  untouched();
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(20, s, d, nullptr, 78, 4, out.data(), &info), POSENC_ERR_INVALID_ARGUMENT,
                      "[0, num_nodes = 20)");
  untouched();
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(34, s, d, nullptr, 78, 0, out.data(), &info), POSENC_ERR_INVALID_ARGUMENT,
                      "steps");
  untouched();
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(34, s, d, nullptr, 78, 4, nullptr, &info), POSENC_ERR_NULL_POINTER, "out");
  untouched();
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(34, nullptr, d, nullptr, 78, 4, out.data(), &info), POSENC_ERR_NULL_POINTER,
                      "src");
  untouched();
  std::vector<double> w(78, 1.0);
  w[40] = -1.0;
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(34, s, d, w.data(), 78, 4, out.data(), &info), POSENC_ERR_INVALID_ARGUMENT,
                      "weights[40]");
  untouched();
  info.struct_size = 8;
  before = info;
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(34, s, d, nullptr, 78, 4, out.data(), &info), POSENC_ERR_INVALID_ARGUMENT,
                      "info->struct_size");
  untouched();
  for (int bad : {-1, 3, 0x7fffffff}) {
    reset();
    std::memcpy(&info.method, &bad, sizeof bad);
    before = info;
    EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(34, s, d, nullptr, 78, 4, out.data(), &info),
                        POSENC_ERR_INVALID_ARGUMENT, "info->method");
    untouched();
  }
  reset();
  info.walks = -3;
  before = info;
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(34, s, d, nullptr, 78, 4, out.data(), &info), POSENC_ERR_INVALID_ARGUMENT,
                      "info->walks");
  untouched();
  reset();
  info.flags = 4u;
  before = info;
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(34, s, d, nullptr, 78, 4, out.data(), &info), POSENC_ERR_INVALID_ARGUMENT,
                      "info->flags");
  untouched();
  EXPECT_POSENC_ERROR(posenc_rwse_auto_f64(INT64_MAX / 2, s, d, nullptr, 78, 4, out.data(), nullptr),
                      POSENC_ERR_SIZE_OVERFLOW, "num_nodes");
  EXPECT_EQ(count_poison(out), out.size());
  EXPECT_POSENC_ERROR(posenc_rwse_info_init(nullptr), POSENC_ERR_NULL_POINTER, "info");
}

POSENC_INSTANTIATE_ISA(RwseMc);

}  // namespace
