// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_heat_diag.cpp — posenc_heat_kernel_diag_f64's two routes (local Chebyshev
// moments over hop balls, global Chebyshev blocks; POSENC_HEAT_DIAG_ROUTE forces one) against
// independent references: V diag(exp(-t lambda)) V^T from Eigen's dense SelfAdjointEigenSolver of a
// Laplacian built here, and closed forms in long double (torus: product of two cycle diagonals,
// grid with D - A: product of two path diagonals, from their cosine eigenpairs).
#include "tests/test_common.hpp"
#include "tests/graph_dense_ref.hpp"

#include "posenc/posenc.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstdlib>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;
using posenc_graph_gen::dense_laplacian;

namespace {

/// Sets POSENC_HEAT_DIAG_ROUTE for the scope ("" = unset: the cost model decides).
struct RouteScope {
  explicit RouteScope(const char* route) {
    if (*route) setenv("POSENC_HEAT_DIAG_ROUTE", route, 1);
    else unsetenv("POSENC_HEAT_DIAG_ROUTE");
  }
  ~RouteScope() { unsetenv("POSENC_HEAT_DIAG_ROUTE"); }
};

struct Weighted {
  EdgeList g;
  std::vector<double> w;  // empty = unweighted
};

std::vector<double> diag(const Weighted& G, posenc_laplacian kind, const std::vector<double>& times, const char* route,
                         double* bound) {
  RouteScope rs(route);
  std::vector<double> out(static_cast<size_t>(G.g.n) * times.size());
  poison(out);
  *bound = -1.0;
  EXPECT_EQ(posenc_heat_kernel_diag_f64(G.g.n, G.g.src.data(), G.g.dst.data(), G.w.empty() ? nullptr : G.w.data(),
                                        G.g.m(), kind, times.data(), static_cast<int32_t>(times.size()), out.data(),
                                        bound),
            POSENC_OK)
      << posenc_last_error_message();
  EXPECT_EQ(count_poison(out), 0u);
  return out;
}

/// Weighted random geometric graph with two isolated nodes.
Weighted geometric() {
  Weighted r;
  r.g = posenc_graph_gen::random_geometric(120, 6.0, 7);
  r.g.n = 122;
  uint64_t s = 9;
  for (int64_t e = 0; e < r.g.m(); ++e) r.w.push_back(0.2 + 2.0 * posenc_graph_gen::uniform01(s));
  return r;
}

/// R x C torus (R, C >= 3), node r*C + c.
EdgeList torus(int64_t R, int64_t C) {
  EdgeList g;
  g.n = R * C;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      g.src.push_back(r * C + c); g.dst.push_back(r * C + (c + 1) % C);
      g.src.push_back(r * C + c); g.dst.push_back(((r + 1) % R) * C + c);
    }
  return g;
}

/// (exp(-t L))_vv of the n-cycle (every node alike): mean of exp(-t (2 - 2 cos(2 pi j / n))).
long double cycle_diag(int64_t n, long double t) {
  long double s = 0;
  for (int64_t j = 0; j < n; ++j) s += std::exp(-t * (2.0L - 2.0L * std::cos(2.0L * M_PIl * j / n)));
  return s / n;
}

/// (exp(-t L))_kk of the n-path: eigenvalues 2 - 2 cos(pi j / n), eigenvectors
/// cos(pi j (k + 1/2) / n) with squared norm n (j = 0) or n / 2.
long double path_diag(int64_t n, int64_t k, long double t) {
  long double s = 1.0L / n;
  for (int64_t j = 1; j < n; ++j) {
    const long double c = std::cos(M_PIl * j * (k + 0.5L) / n);
    s += std::exp(-t * (2.0L - 2.0L * std::cos(M_PIl * j / n))) * c * c * 2.0L / n;
  }
  return s;
}

}  // namespace

class GraphHeatDiag : public IsaTest {};

TEST_P(GraphHeatDiag, BothRoutesAgainstDenseEigen) {
  Weighted ba;
  ba.g = posenc_graph_gen::barabasi_albert(300, 3, 5);
  Weighted gr;
  gr.g = posenc_graph_gen::grid(12, 15);
  // t = 60 with L_sym: 130 terms, the balls are the whole graph.
  const std::vector<double> times{0.0, 1e-3, 0.5, 2.0, 10.0, 60.0};
  int which = 0;
  for (const Weighted& G : {geometric(), ba, gr}) {
    ++which;
    for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(dense_laplacian(G.g, G.w, kind));
      ASSERT_EQ(es.info(), Eigen::Success);
      double bl = 0, bg = 0;
      const std::vector<double> loc = diag(G, kind, times, "local", &bl);
      const std::vector<double> glo = diag(G, kind, times, "global", &bg);
      EXPECT_GT(bl, 0.0);
      EXPECT_LT(bl, 2.0 * bg + 1e-12);  // the local rounding term is at most about twice the global one
      double worst = 0;
      for (size_t ti = 0; ti < times.size(); ++ti) {
        const Eigen::VectorXd e = (-times[ti] * es.eigenvalues().array()).exp();
        const Eigen::MatrixXd V = es.eigenvectors();
        for (int64_t v = 0; v < G.g.n; ++v) {
          const double ref = (V.row(v).array().square() * e.transpose().array()).sum();
          const double x = loc[static_cast<size_t>(v) * times.size() + ti];
          // the dense reference itself is good to about n u
          EXPECT_LE(std::abs(x - ref), bl + 1e-13) << "graph " << which << " kind " << kind << " t " << times[ti]
                                                   << " v " << v;
          EXPECT_LE(std::abs(x - glo[static_cast<size_t>(v) * times.size() + ti]), bl + bg);
          worst = std::max(worst, std::abs(x - ref));
        }
      }
      EXPECT_LT(worst, 1e-12);
    }
  }
}

TEST_P(GraphHeatDiag, TorusIsAProductOfCycles) {
  // Kronecker sum: L = L_R (x) I + I (x) L_C, so exp(-tL)_vv = cycle_R(t) * cycle_C(t); the torus is
  // 4-regular, so L_sym = L / 4.
  const int64_t R = 40, C = 50;
  Weighted G;
  G.g = torus(R, C);
  const std::vector<double> times{0.0, 0.5, 3.0, 20.0};
  for (const char* route : {"", "local"})
    for (posenc_laplacian kind : {POSENC_LAPLACIAN_COMBINATORIAL, POSENC_LAPLACIAN_SYM}) {
      double bound = 0;
      const std::vector<double> out = diag(G, kind, times, route, &bound);
      EXPECT_LT(bound, 1e-9);
      for (size_t ti = 0; ti < times.size(); ++ti) {
        const long double t = kind == POSENC_LAPLACIAN_SYM ? times[ti] / 4.0L : times[ti];
        const double ref = static_cast<double>(cycle_diag(R, t) * cycle_diag(C, t));
        for (int64_t v = 0; v < G.g.n; ++v)
          ASSERT_LE(std::abs(out[static_cast<size_t>(v) * times.size() + ti] - ref), bound)
              << "route '" << route << "' kind " << kind << " t " << times[ti] << " v " << v;
      }
    }
}

TEST_P(GraphHeatDiag, GridIsAProductOfPaths) {
  // D - A of the R x C grid = L_path(R) (x) I + I (x) L_path(C).
  const int64_t R = 30, C = 45;
  Weighted G;
  G.g = posenc_graph_gen::grid(R, C);
  const std::vector<double> times{0.2, 2.0, 9.0};
  std::vector<long double> pr(static_cast<size_t>(R * 3)), pc(static_cast<size_t>(C * 3));
  for (size_t ti = 0; ti < times.size(); ++ti) {
    for (int64_t k = 0; k < R; ++k) pr[static_cast<size_t>(k) * 3 + ti] = path_diag(R, k, times[ti]);
    for (int64_t k = 0; k < C; ++k) pc[static_cast<size_t>(k) * 3 + ti] = path_diag(C, k, times[ti]);
  }
  for (const char* route : {"", "local"}) {
    double bound = 0;
    const std::vector<double> out = diag(G, POSENC_LAPLACIAN_COMBINATORIAL, times, route, &bound);
    EXPECT_LT(bound, 1e-9);
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c)
        for (size_t ti = 0; ti < times.size(); ++ti) {
          const double ref = static_cast<double>(pr[static_cast<size_t>(r) * 3 + ti] * pc[static_cast<size_t>(c) * 3 + ti]);
          ASSERT_LE(std::abs(out[static_cast<size_t>(r * C + c) * times.size() + ti] - ref), bound)
              << "route '" << route << "' r " << r << " c " << c << " t " << times[ti];
        }
  }
}

TEST_P(GraphHeatDiag, SameBitsForAnyThreadCountAndDefaultRoute) {
  Weighted G;
  G.g = posenc_graph_gen::grid(70, 80);  // 5600 nodes
  const std::vector<double> times{1.0, 4.0};
  std::vector<double> one, two, forced;
  double b1 = 0, b2 = 0, bf = 0;
  {
    ThreadScope ts(1);
    one = diag(G, POSENC_LAPLACIAN_SYM, times, "", &b1);
  }
  {
    ThreadScope ts(2);
    two = diag(G, POSENC_LAPLACIAN_SYM, times, "", &b2);
    forced = diag(G, POSENC_LAPLACIAN_SYM, times, "local", &bf);
  }
  EXPECT_TRUE(same_bits(one, two));
  EXPECT_EQ(b1, b2);
  EXPECT_TRUE(same_bits(one, forced));  // the default route is the local one
}

TEST_P(GraphHeatDiag, BadInputLeavesOutputUnchanged) {
  Weighted G;
  G.g = posenc_graph_gen::grid(20, 20);
  std::vector<double> out(400 * 2);
  poison(out);
  const std::vector<double> before = out;
  const std::vector<double> bad{1.0, -2.0};
  double bound = 7.0;
  RouteScope rs("local");
  EXPECT_POSENC_ERROR(posenc_heat_kernel_diag_f64(G.g.n, G.g.src.data(), G.g.dst.data(), nullptr, G.g.m(),
                                                  POSENC_LAPLACIAN_SYM, bad.data(), 2, out.data(), &bound),
                      POSENC_ERR_INVALID_ARGUMENT, "times[1]");
  const std::vector<double> huge{1.0, 1e9};  // z above kHeatMaxZ
  EXPECT_POSENC_ERROR(posenc_heat_kernel_diag_f64(G.g.n, G.g.src.data(), G.g.dst.data(), nullptr, G.g.m(),
                                                  POSENC_LAPLACIAN_COMBINATORIAL, huge.data(), 2, out.data(), &bound),
                      POSENC_ERR_INVALID_ARGUMENT, "times");
  EXPECT_TRUE(same_bits(out, before));
  EXPECT_EQ(bound, 7.0);
}

POSENC_INSTANTIATE_ISA(GraphHeatDiag);
