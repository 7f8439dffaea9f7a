// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_heat.cpp — posenc_heat_kernel_apply_f64 (y = exp(-t L) x, Chebyshev) against
// V diag(exp(-t lambda)) V^T from Eigen's dense SelfAdjointEigenSolver of a Laplacian built here.
#include "tests/test_common.hpp"
#include "tests/graph_dense_ref.hpp"

#include "posenc/posenc.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;
using posenc_graph_gen::dense_laplacian;

namespace {

/// Weighted multigraph with duplicates, a self-loop (ignored), a zero weight and isolated nodes.
void weighted_graph(EdgeList* g, std::vector<double>* w) {
  uint64_t s = 11;
  g->n = 50;
  for (int e = 0; e < 150; ++e) {
    g->src.push_back(static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 46));
    g->dst.push_back(static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 46));
    w->push_back(0.2 + 2.5 * posenc_graph_gen::uniform01(s));
  }
  g->src.push_back(4); g->dst.push_back(4); w->push_back(7.0);
  g->src.push_back(2); g->dst.push_back(9); w->push_back(0.0);
}

std::vector<double> heat(const EdgeList& g, const std::vector<double>& w, posenc_laplacian kind, double t,
                         const std::vector<double>& x, int64_t nv, double* bound) {
  std::vector<double> y(x.size());
  poison(y);
  EXPECT_EQ(posenc_heat_kernel_apply_f64(g.n, g.src.data(), g.dst.data(), w.data(), g.m(), kind, t, x.data(), nv,
                                         y.data(), bound),
            POSENC_OK)
      << posenc_last_error_message();
  EXPECT_EQ(count_poison(y), 0u);
  return y;
}

}  // namespace

class GraphHeat : public IsaTest {};

TEST_P(GraphHeat, AgainstDenseEigendecomposition) {
  EdgeList g;
  std::vector<double> w;
  weighted_graph(&g, &w);
  const int64_t nv = 3;
  std::vector<double> x(static_cast<size_t>(g.n * nv));
  uint64_t s = 5;
  for (double& v : x) v = posenc_graph_gen::uniform01(s) - 0.5;
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> X(x.data(), g.n, nv);
  for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(dense_laplacian(g, w, kind));
    ASSERT_EQ(es.info(), Eigen::Success);
    for (double t : {0.0, 1e-3, 0.3, 1.0, 4.0, 15.0}) {
      SCOPED_TRACE(testing::Message() << "kind " << kind << " t " << t);
      double bound = -1;
      const std::vector<double> y = heat(g, w, kind, t, x, nv, &bound);
      const Eigen::VectorXd e = (-t * es.eigenvalues().array()).exp();
      const Eigen::MatrixXd ref = es.eigenvectors() * e.asDiagonal() * es.eigenvectors().transpose() * X;
      for (int64_t b = 0; b < nv; ++b) {
        double err = 0;
        for (int64_t i = 0; i < g.n; ++i) err += std::pow(y[i * nv + b] - ref(i, b), 2);
        err = std::sqrt(err) / X.col(b).norm();
        EXPECT_LE(err, bound);
        // The dense reference itself is off by ~ t * lambda_max * eps: 2e-15 on x86, 2.9e-14 at
        // t = 15 (combinatorial) on aarch64, whose Eigen build contracts to FMA (t = 0: y == x).
        EXPECT_LE(err, 1e-13);
      }
      EXPECT_LT(bound, 1e-9);
      if (t == 0.0) {
        for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i]);
      }
    }
  }
  // Combinatorial: column sums are conserved; t large: the mean on each component.
  std::vector<double> one(static_cast<size_t>(g.n), 0.0);
  one[0] = 1.0;
  const std::vector<double> y = heat(g, w, POSENC_LAPLACIAN_COMBINATORIAL, 3.0, one, 1, nullptr);
  double sum = 0;
  for (double v : y) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-14);
}

TEST_P(GraphHeat, SameBitsAnyThreadsAnyIsaInPlace) {
  const EdgeList g = posenc_graph_gen::random_geometric(3000, 8.0, 21);
  const std::vector<double> w(static_cast<size_t>(g.m()), 1.0);
  const int64_t nv = 2;
  std::vector<double> x(static_cast<size_t>(g.n * nv));
  uint64_t s = 9;
  for (double& v : x) v = posenc_graph_gen::uniform01(s);
  std::vector<std::vector<double>> runs;
  for (int32_t th : {1, 3}) {
    ThreadScope ts(th);
    runs.push_back(heat(g, w, POSENC_LAPLACIAN_SYM, 2.5, x, nv, nullptr));
  }
  EXPECT_TRUE(same_bits(runs[0], runs[1]));
  // in place: y == x
  std::vector<double> xy = x;
  ASSERT_EQ(posenc_heat_kernel_apply_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), POSENC_LAPLACIAN_SYM, 2.5,
                                         xy.data(), nv, xy.data(), nullptr),
            POSENC_OK);
  EXPECT_TRUE(same_bits(xy, runs[0]));
  ASSERT_EQ(posenc_isa_set(POSENC_ISA_SCALAR), POSENC_OK);
  EXPECT_TRUE(same_bits(heat(g, w, POSENC_LAPLACIAN_SYM, 2.5, x, nv, nullptr), runs[0]));
}

TEST_P(GraphHeat, BadInputWritesNothing) {
  EdgeList g;
  std::vector<double> w;
  weighted_graph(&g, &w);
  std::vector<double> x(static_cast<size_t>(g.n), 1.0), y(static_cast<size_t>(g.n));
  poison(y);
  double bound = 12345;
  const auto* s = g.src.data();
  const auto* d = g.dst.data();
  const int64_t m = g.m();
  const auto SYM = POSENC_LAPLACIAN_SYM;
  for (double t : {-1e-300, -1.0, std::nan(""), static_cast<double>(INFINITY)})
    EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(g.n, s, d, w.data(), m, SYM, t, x.data(), 1, y.data(), &bound),
                        POSENC_ERR_INVALID_ARGUMENT, "t must be");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(g.n, s, d, w.data(), m, SYM, 1.0, x.data(), 0, y.data(), &bound),
                      POSENC_ERR_INVALID_ARGUMENT, "num_vectors");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(g.n, s, d, w.data(), m, SYM, 1.0, nullptr, 1, y.data(), &bound),
                      POSENC_ERR_NULL_POINTER, "x");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(g.n, s, d, w.data(), m, SYM, 1.0, x.data(), 1, nullptr, &bound),
                      POSENC_ERR_NULL_POINTER, "y");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(g.n, s, d, w.data(), m, static_cast<posenc_laplacian>(5), 1.0,
                                                   x.data(), 1, y.data(), &bound),
                      POSENC_ERR_INVALID_ARGUMENT, "laplacian");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(0, s, d, w.data(), m, SYM, 1.0, x.data(), 1, y.data(), &bound),
                      POSENC_ERR_INVALID_ARGUMENT, "num_nodes");
  std::vector<double> bw(w);
  bw[3] = -2.0;
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(g.n, s, d, bw.data(), m, SYM, 1.0, x.data(), 1, y.data(), &bound),
                      POSENC_ERR_INVALID_ARGUMENT, "weights[3]");
  std::vector<double> bx(x);
  bx[7] = std::nan("");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_apply_f64(g.n, s, d, w.data(), m, SYM, 1.0, bx.data(), 1, y.data(), &bound),
                      POSENC_ERR_INVALID_ARGUMENT, "x[7]");
  EXPECT_EQ(count_poison(y), y.size());
  EXPECT_EQ(bound, 12345);
  // C++ wrapper
  std::vector<double> y2(x.size());
  const double b2 = posenc::heat_kernel_apply(g.n, s, d, w.data(), m, SYM, 0.5, x.data(), 1, y2.data());
  EXPECT_GT(b2, 0.0);
  EXPECT_LT(b2, 1e-10);
}

POSENC_INSTANTIATE_ISA(GraphHeat);
