// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_dense.cpp — graph family: the per-ISA kernels of the small dense LapPE solver
// and of the dense all-sources RWSE (kernels/graph_dense.cpp). They vectorize element-wise
// arithmetic only and keep every sum in the one-lane order without FMA, so every ISA path must
// return the scalar path's bits; the graphs' sizes cover every remainder of the vector widths
// (Householder rows of 1 .. 4 vectors past the 4-vector blocks, 1 .. 24 right-hand sides, RWSE
// lane blocks), where a padding or tail error shows as a difference.
//
// References, independent of lib/ and kernels/: Eigen's dense SelfAdjointEigenSolver of the
// Laplacian built here from the edge list (eigenvalues; the returned vectors must be orthonormal
// eigenvectors), dense powers of D^-1 A (RWSE).
#include "tests/test_common.hpp"
#include "tests/graph_dense_ref.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;
using posenc_graph_gen::dense_adjacency;
using posenc_graph_gen::dense_laplacian;

namespace {

/// A connected graph: a random tree (node i attached to one of the 4 before it) plus `extra`
/// random edges (some duplicates: weights add up).
EdgeList tree_plus(int64_t n, int64_t extra, uint64_t& s) {
  EdgeList g;
  g.n = n;
  for (int64_t i = 1; i < n; ++i) {
    g.src.push_back(std::max<int64_t>(0, i - 1 - static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 4)));
    g.dst.push_back(i);
  }
  for (int64_t r = 0; r < extra; ++r) {
    const int64_t a = static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % n);
    const int64_t b = static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % n);
    if (a != b) {
      g.src.push_back(a);
      g.dst.push_back(b);
    }
  }
  return g;
}

struct Out {
  std::vector<double> val, vec, rw15, rw16;
};

Out run(const EdgeList& g, const std::vector<double>& w, int32_t k) {
  Out o;
  o.val.assign(static_cast<size_t>(k), 0.0);
  o.vec.assign(static_cast<size_t>(g.n * k), 0.0);
  o.rw15.assign(static_cast<size_t>(g.n * 15), 0.0);
  o.rw16.assign(static_cast<size_t>(g.n * 16), 0.0);
  EXPECT_EQ(posenc_laplacian_pe_f64(g.n, g.src.data(), g.dst.data(), w.data(), g.m(), POSENC_LAPLACIAN_SYM, k,
                                    o.val.data(), o.vec.data()),
            POSENC_OK)
      << posenc_last_error_message();
  EXPECT_EQ(posenc_rwse_f64(g.n, g.src.data(), g.dst.data(), w.data(), g.m(), 15, o.rw15.data()), POSENC_OK);
  EXPECT_EQ(posenc_rwse_f64(g.n, g.src.data(), g.dst.data(), w.data(), g.m(), 16, o.rw16.data()), POSENC_OK);
  return o;
}

/// The references: eigenvalues, eigenvector residuals and orthonormality, RWSE by dense powers.
void check_reference(const EdgeList& g, const std::vector<double>& w, int32_t k, const Out& o) {
  const Eigen::MatrixXd L = dense_laplacian(g, w, POSENC_LAPLACIAN_SYM);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(L);
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> V(o.vec.data(), g.n, k);
  for (int32_t j = 0; j < k; ++j) {
    EXPECT_NEAR(o.val[static_cast<size_t>(j)], es.eigenvalues()[j], 1e-13) << "n " << g.n << " k " << k << " j " << j;
    EXPECT_LE((L * V.col(j) - o.val[static_cast<size_t>(j)] * V.col(j)).norm(), 1e-12) << "n " << g.n << " j " << j;
  }
  EXPECT_LE((V.transpose() * V - Eigen::MatrixXd::Identity(k, k)).cwiseAbs().maxCoeff(), 1e-13) << "n " << g.n;
  const Eigen::MatrixXd A = dense_adjacency(g, w);
  const Eigen::VectorXd d = A.rowwise().sum();
  Eigen::MatrixXd P = A;
  for (int64_t i = 0; i < g.n; ++i) P.row(i) /= d[i];
  Eigen::MatrixXd Pt = Eigen::MatrixXd::Identity(g.n, g.n);
  for (int t = 1; t <= 16; ++t) {
    Pt = Pt * P;
    for (int64_t v = 0; v < g.n; ++v) {
      EXPECT_NEAR(o.rw16[static_cast<size_t>(v * 16 + t - 1)], Pt(v, v), 1e-13) << "n " << g.n << " t " << t;
      if (t <= 15) {
        EXPECT_NEAR(o.rw15[static_cast<size_t>(v * 15 + t - 1)], Pt(v, v), 1e-13);
      }
    }
  }
}

}  // namespace

TEST(GraphDense, EveryPathGivesTheScalarBitsAndTheReference) {
  const std::vector<posenc_isa> isas = test_isas();
  uint64_t s = 2027;
  int graphs = 0;
  // n 2..72 (small dense RWSE up to 64 nodes), then sizes past 4 vectors of Householder rows.
  std::vector<int64_t> sizes;
  for (int64_t n = 2; n <= 72; ++n) sizes.push_back(n);
  for (int64_t n : {80, 97, 104, 131}) sizes.push_back(n);
  for (int64_t n : sizes) {
    const EdgeList g = tree_plus(n, n / 3 + static_cast<int64_t>(n % 5), s);
    std::vector<double> w(static_cast<size_t>(g.m()));
    for (double& x : w) x = 0.25 + posenc_graph_gen::uniform01(s);
    // k: 1 .. 24 right-hand sides across the graphs (ldk 8, 16, 24), at most n.
    const int32_t k = static_cast<int32_t>(std::min<int64_t>(n, 1 + (n * 7) % 24));
    Out ref;
    for (size_t i = 0; i < isas.size(); ++i) {
      ASSERT_EQ(posenc_isa_set(isas[i]), POSENC_OK);
      const Out o = run(g, w, k);
      if (i == 0) {
        ref = o;
        check_reference(g, w, k, o);
        continue;
      }
      EXPECT_TRUE(same_bits(o.val, ref.val)) << posenc_isa_name(isas[i]) << " n " << n << " k " << k;
      EXPECT_TRUE(same_bits(o.vec, ref.vec)) << posenc_isa_name(isas[i]) << " n " << n << " k " << k;
      EXPECT_TRUE(same_bits(o.rw15, ref.rw15)) << posenc_isa_name(isas[i]) << " n " << n;
      EXPECT_TRUE(same_bits(o.rw16, ref.rw16)) << posenc_isa_name(isas[i]) << " n " << n;
    }
    ++graphs;
  }
  posenc_isa_set(POSENC_ISA_AUTO);
  EXPECT_EQ(graphs, 75);
}
