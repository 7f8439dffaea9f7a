// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_diffusion.cpp — graph family: heat-kernel diagonal and rows, diffusion distance
// (from the kernel and from eigenpairs).
//
// Reference, independent of lib/graph_*.cpp: exp(-tL) = V diag(exp(-t lambda)) V^T from Eigen's
// dense SelfAdjointEigenSolver of a Laplacian built here from the edge list. Every test runs on
// every ISA path (plain C++ in lib/: same bits everywhere).
#include "tests/test_common.hpp"
#include "tests/graph_gen.hpp"

#include "posenc/posenc.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;

namespace {

struct Weighted {
  EdgeList g;
  std::vector<double> w;
};

Weighted test_graph() {
  Weighted r;
  r.g = posenc_graph_gen::random_geometric(60, 5.0, 3);
  r.g.n = 62;  // nodes 60, 61 isolated
  uint64_t s = 4;
  for (int64_t e = 0; e < r.g.m(); ++e) r.w.push_back(0.2 + 2.0 * posenc_graph_gen::uniform01(s));
  return r;
}

Eigen::MatrixXd heat_dense(const Weighted& G, posenc_laplacian kind, double t, Eigen::VectorXd* lam = nullptr,
                           Eigen::MatrixXd* vec = nullptr) {
  const EdgeList& g = G.g;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(g.n, g.n);
  for (int64_t e = 0; e < g.m(); ++e)
    if (g.src[e] != g.dst[e]) {
      A(g.src[e], g.dst[e]) += G.w[e];
      A(g.dst[e], g.src[e]) += G.w[e];
    }
  const Eigen::VectorXd d = A.rowwise().sum();
  Eigen::MatrixXd L;
  if (kind == POSENC_LAPLACIAN_COMBINATORIAL) {
    L = Eigen::MatrixXd(d.asDiagonal()) - A;
  } else {
    Eigen::VectorXd isq(g.n);
    for (int64_t i = 0; i < g.n; ++i) isq[i] = d[i] > 0 ? 1.0 / std::sqrt(d[i]) : 0.0;
    L = Eigen::MatrixXd::Identity(g.n, g.n) - isq.asDiagonal() * A * isq.asDiagonal();
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(L);
  if (lam) *lam = es.eigenvalues();
  if (vec) *vec = es.eigenvectors();
  const Eigen::VectorXd e = (-t * es.eigenvalues().array()).exp();
  return es.eigenvectors() * e.asDiagonal() * es.eigenvectors().transpose();
}

class GraphDiffusion : public IsaTest {};

TEST_P(GraphDiffusion, DiagonalAndRowsAgainstDenseEigen) {
  const Weighted G = test_graph();
  const int64_t n = G.g.n;
  const std::vector<double> times{0.0, 0.1, 1.0, 4.0};
  for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
    std::vector<double> diag(static_cast<size_t>(n * times.size()));
    poison(diag);
    const double bound = posenc::heat_kernel_diag(n, G.g.src.data(), G.g.dst.data(), G.w.data(), G.g.m(), kind,
                                                  times.data(), static_cast<int32_t>(times.size()), diag.data());
    EXPECT_LT(bound, 1e-10);  // the stated (conservative) bound
    const std::vector<int64_t> sources{5, 0, 61, 17};
    std::vector<double> rows(sources.size() * static_cast<size_t>(n));
    for (size_t ti = 0; ti < times.size(); ++ti) {
      const Eigen::MatrixXd H = heat_dense(G, kind, times[ti]);
      for (int64_t v = 0; v < n; ++v) EXPECT_NEAR(diag[v * times.size() + ti], H(v, v), 1e-13) << v;
      posenc::heat_kernel_rows(n, G.g.src.data(), G.g.dst.data(), G.w.data(), G.g.m(), kind, times[ti],
                               sources.data(), static_cast<int64_t>(sources.size()), rows.data());
      for (size_t s = 0; s < sources.size(); ++s)
        for (int64_t v = 0; v < n; ++v) EXPECT_NEAR(rows[s * n + v], H(sources[s], v), 1e-13);
    }
  }
}

TEST_P(GraphDiffusion, DiffusionDistanceExactAndFromEigenpairs) {
  const Weighted G = test_graph();
  const int64_t n = G.g.n;
  const std::vector<int64_t> pairs{0, 1, 3, 40, 7, 7, 59, 60, 12, 33};
  const int64_t np = 5;
  for (double t : {0.3, 2.0}) {
    Eigen::VectorXd lam;
    Eigen::MatrixXd V;
    const Eigen::MatrixXd H = heat_dense(G, POSENC_LAPLACIAN_SYM, t, &lam, &V);
    std::vector<double> out(static_cast<size_t>(np));
    const double bound = posenc::diffusion_distance(n, G.g.src.data(), G.g.dst.data(), G.w.data(), G.g.m(),
                                                    POSENC_LAPLACIAN_SYM, t, pairs.data(), np, out.data());
    EXPECT_LT(bound, 1e-10);  // the stated (conservative) bound
    for (int64_t p = 0; p < np; ++p) {
      const double ref = (H.col(pairs[2 * p]) - H.col(pairs[2 * p + 1])).norm();
      EXPECT_NEAR(out[p], ref, 1e-13);
    }
    // From the k smallest eigenpairs: below the exact value, within the stated truncation bound.
    for (int32_t k : {8, 30, static_cast<int32_t>(n)}) {
      std::vector<double> ev(static_cast<size_t>(k)), vec(static_cast<size_t>(n * k)), d2(static_cast<size_t>(np));
      posenc::laplacian_pe(n, G.g.src.data(), G.g.dst.data(), G.w.data(), G.g.m(), POSENC_LAPLACIAN_SYM, k, ev.data(),
                           vec.data());
      const double tb =
          posenc::diffusion_distance_eig(n, k, ev.data(), vec.data(), t, pairs.data(), np, d2.data());
      for (int64_t p = 0; p < np; ++p) {
        EXPECT_LE(d2[p], out[p] + 1e-12);
        EXPECT_LE(out[p] - d2[p], tb + 1e-12);
      }
      if (k == n) {
        EXPECT_EQ(tb, 0.0);
      }
    }
  }
}

TEST_P(GraphDiffusion, BadInputWritesNothing) {
  const Weighted G = test_graph();
  const int64_t n = G.g.n;
  const auto* s = G.g.src.data();
  const auto* d = G.g.dst.data();
  const int64_t m = G.g.m();
  std::vector<double> out(static_cast<size_t>(n * 4));
  poison(out);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> bad_t{0.5, -1.0}, nan_t{nan};
  EXPECT_POSENC_ERROR(posenc_heat_kernel_diag_f64(n, s, d, nullptr, m, POSENC_LAPLACIAN_SYM, bad_t.data(), 2, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "times[1]");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_diag_f64(n, s, d, nullptr, m, POSENC_LAPLACIAN_SYM, nan_t.data(), 1, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "times[0]");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_diag_f64(n, s, d, nullptr, m, POSENC_LAPLACIAN_SYM, bad_t.data(), 0, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "num_times");
  const std::vector<int64_t> src_bad{0, n};
  EXPECT_POSENC_ERROR(posenc_heat_kernel_rows_f64(n, s, d, nullptr, m, POSENC_LAPLACIAN_SYM, 1.0, src_bad.data(), 2, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "sources[1]");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_rows_f64(n, s, d, nullptr, m, POSENC_LAPLACIAN_SYM, INFINITY, src_bad.data(), 1, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "t");
  EXPECT_POSENC_ERROR(posenc_diffusion_distance_f64(n, s, d, nullptr, m, POSENC_LAPLACIAN_SYM, -0.1, src_bad.data(), 1, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "t");
  EXPECT_POSENC_ERROR(posenc_diffusion_distance_f64(n, s, d, nullptr, m, POSENC_LAPLACIAN_SYM, 0.1, src_bad.data(), 1, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "pairs[1]");
  const std::vector<double> ev{0.0, 0.5, 0.2};
  const std::vector<double> vec(static_cast<size_t>(n * 3), 0.1);
  const std::vector<int64_t> pr{0, 1};
  EXPECT_POSENC_ERROR(posenc_diffusion_distance_eig_f64(n, 3, ev.data(), vec.data(), 1.0, pr.data(), 1, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "eigvals[2]");
  EXPECT_POSENC_ERROR(posenc_diffusion_distance_eig_f64(n, 0, ev.data(), vec.data(), 1.0, pr.data(), 1, out.data(), nullptr),
                      POSENC_ERR_INVALID_ARGUMENT, "k");
  EXPECT_EQ(count_poison(out), out.size());
}

POSENC_INSTANTIATE_ISA(GraphDiffusion);

}  // namespace
