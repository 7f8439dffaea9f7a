// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_maglap.cpp — graph family: the sparse route of the magnetic Laplacian PE
// (posenc_maglap_pe_f64 on connected components above the dense limit, verbose path
// maglap_pe.sparse).
//
// References are independent of lib/graph_maglap*.cpp: closed-form spectra (directed cycle:
// lambda_j = 1 - cos(2 pi (j/n + q)); directed torus R x C with edges to the right and down:
// lambda = 1 - (cos(2 pi (a/R + q)) + cos(2 pi (b/C + q))) / 2 for L_sym, twice that for D - H),
// a sparse Hermitian L built here from the edge list as documented (A_s = (W + W^T)/2,
// Theta = 2 pi q (W - W^T)) for residuals, and the dense route of the library itself on the same
// graph (lowered size limit through POSENC_MAGLAP_DENSE_MAX) for the dense/sparse agreement.
// Every test runs on every ISA path; the solver has no ISA-specific part, so results are bitwise
// the same on all of them.
#include "tests/test_common.hpp"
#include "tests/graph_gen.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;

namespace {

class GraphMaglap : public IsaTest {};

constexpr double kPi = 3.14159265358979323846;
using cplx = std::complex<double>;

/// Sparse Hermitian magnetic Laplacian as documented (self-loops ignored).
Eigen::SparseMatrix<cplx> sparse_maglap(const EdgeList& g, const std::vector<double>& w, double q, bool sym) {
  Eigen::SparseMatrix<double> W(g.n, g.n);
  std::vector<Eigen::Triplet<double>> tr;
  for (int64_t e = 0; e < g.m(); ++e)
    if (g.src[e] != g.dst[e]) tr.emplace_back(g.src[e], g.dst[e], w.empty() ? 1.0 : w[e]);
  W.setFromTriplets(tr.begin(), tr.end());
  const Eigen::SparseMatrix<double> Wt = W.transpose();
  const Eigen::SparseMatrix<double> As = 0.5 * (W + Wt), Df = W - Wt;
  Eigen::VectorXd d = Eigen::VectorXd::Zero(g.n);
  for (int j = 0; j < As.outerSize(); ++j)
    for (Eigen::SparseMatrix<double>::InnerIterator it(As, j); it; ++it) d[it.row()] += it.value();
  std::vector<Eigen::Triplet<cplx>> lt;
  for (int64_t i = 0; i < g.n; ++i) lt.emplace_back(i, i, sym ? 1.0 : d[i]);
  for (int j = 0; j < As.outerSize(); ++j)
    for (Eigen::SparseMatrix<double>::InnerIterator it(As, j); it; ++it) {
      const int64_t i = it.row();
      const cplx h = it.value() * std::exp(cplx(0, 2 * kPi * q * Df.coeff(i, j)));
      lt.emplace_back(i, j, sym ? -h / std::sqrt(d[i] * d[j]) : -h);
    }
  Eigen::SparseMatrix<cplx> L(g.n, g.n);
  L.setFromTriplets(lt.begin(), lt.end());
  return L;
}

struct Mag {
  std::vector<double> val, re, im;
  posenc_status st = POSENC_OK;
};
Mag run(const EdgeList& g, const std::vector<double>& w, posenc_laplacian lap, double q, int32_t k) {
  Mag m{std::vector<double>(k), std::vector<double>(g.n * k), std::vector<double>(g.n * k)};
  poison(m.val);
  poison(m.re);
  poison(m.im);
  m.st = posenc_maglap_pe_f64(g.n, g.src.data(), g.dst.data(), w.empty() ? nullptr : w.data(), g.m(), lap, q, k,
                              m.val.data(), m.re.data(), m.im.data());
  EXPECT_EQ(m.st, POSENC_OK) << posenc_last_error_message();
  EXPECT_EQ(count_poison(m.val) + count_poison(m.re) + count_poison(m.im), 0u);
  return m;
}
Eigen::MatrixXcd columns(const Mag& m, int64_t n, int32_t k) {
  Eigen::MatrixXcd V(n, k);
  for (int64_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < k; ++j) V(i, j) = {m.re[i * k + j], m.im[i * k + j]};
  return V;
}
/// Residuals, orthonormality and the phase rule (first entry of largest modulus real positive).
void check_pairs(const Mag& m, const EdgeList& g, const std::vector<double>& w, double q, bool sym, int32_t k,
                 double tol) {
  const Eigen::SparseMatrix<cplx> L = sparse_maglap(g, w, q, sym);
  const Eigen::MatrixXcd V = columns(m, g.n, k);
  EXPECT_LE((V.adjoint() * V - Eigen::MatrixXcd::Identity(k, k)).norm(), 1e-10);
  const Eigen::MatrixXcd LV = L * V;
  for (int32_t j = 0; j < k; ++j) {
    EXPECT_LE((LV.col(j) - m.val[j] * V.col(j)).norm(), tol) << "residual j " << j;
    const double mx = V.col(j).cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < g.n; ++i)
      if (std::abs(V(i, j)) >= mx * (1 - 1e-6)) {
        EXPECT_EQ(V(i, j).imag(), 0.0);
        EXPECT_GT(V(i, j).real(), 0.0);
        break;
      }
  }
}

EdgeList directed_cycle(int64_t n) {
  EdgeList g;
  g.n = n;
  for (int64_t i = 0; i < n; ++i) {
    g.src.push_back(i);
    g.dst.push_back((i + 1) % n);
  }
  return g;
}

/// Sets POSENC_MAGLAP_DENSE_MAX for the scope (the size above which a component takes the sparse route).
struct DenseMax {
  explicit DenseMax(const char* v) { setenv("POSENC_MAGLAP_DENSE_MAX", v, 1); }
  ~DenseMax() { unsetenv("POSENC_MAGLAP_DENSE_MAX"); }
};

TEST_P(GraphMaglap, SparseDirectedCycleClosedForm) {
  const int64_t n = 5000;  // above the dense limit: the sparse route
  const EdgeList g = directed_cycle(n);
  for (double q : {0.1, 0.123}) {
    std::vector<double> ref;
    for (int64_t j = 0; j < n; ++j) ref.push_back(1 - std::cos(2 * kPi * (static_cast<double>(j) / n + q)));
    std::sort(ref.begin(), ref.end());
    const int32_t k = 7;
    const Mag m = run(g, {}, POSENC_LAPLACIAN_SYM, q, k);
    for (int32_t j = 0; j < k; ++j) EXPECT_NEAR(m.val[j], ref[j], 1e-11) << "q " << q << " j " << j;
    check_pairs(m, g, {}, q, true, k, 1e-7);
    if (q == 0.1) {  // bitwise the same with one thread
      Mag m1;
      {
        ThreadScope ts(1);
        m1 = run(g, {}, POSENC_LAPLACIAN_SYM, q, k);
      }
      EXPECT_TRUE(same_bits(m.val, m1.val) && same_bits(m.re, m1.re) && same_bits(m.im, m1.im));
    }
  }
}

TEST_P(GraphMaglap, SparseDirectedTorusClosedForm) {
  const int64_t R = 64, C = 65;  // 4160 nodes, above the dense limit
  EdgeList g;
  g.n = R * C;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      g.src.push_back(r * C + c);
      g.dst.push_back(r * C + (c + 1) % C);
      g.src.push_back(r * C + c);
      g.dst.push_back(((r + 1) % R) * C + c);
    }
  for (double q : {0.0, 0.25})
    for (posenc_laplacian lap : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
      const bool sym = lap == POSENC_LAPLACIAN_SYM;
      std::vector<double> ref;
      for (int64_t a = 0; a < R; ++a)
        for (int64_t b = 0; b < C; ++b) {
          const double s = std::cos(2 * kPi * (static_cast<double>(a) / R + q)) +
                           std::cos(2 * kPi * (static_cast<double>(b) / C + q));
          ref.push_back(sym ? 1 - s / 2 : 2 - s);
        }
      std::sort(ref.begin(), ref.end());
      const int32_t k = 8;
      const Mag m = run(g, {}, lap, q, k);
      for (int32_t j = 0; j < k; ++j) EXPECT_NEAR(m.val[j], ref[j], 1e-10) << "q " << q << " sym " << sym << " j " << j;
      check_pairs(m, g, {}, q, sym, k, 1e-7 * (sym ? 1 : 2));
      if (q == 0.0) {
        for (double x : m.im) EXPECT_EQ(x, 0.0);  // q = 0: real eigenvectors, as on the dense route
      }
    }
}

TEST_P(GraphMaglap, SparseMatchesDenseOnRandomDigraph) {
  // A weighted random digraph (3 random out-edges per node, plus a directed path), one component of
  // 1200 nodes: the dense route, and the sparse route with the limit lowered to 1000.
  const int64_t n = 1200;
  uint64_t seed = 7;
  EdgeList g;
  g.n = n;
  std::vector<double> w;
  for (int64_t i = 0; i < n; ++i) {
    for (int t = 0; t < 3; ++t) {
      g.src.push_back(i);
      g.dst.push_back(static_cast<int64_t>(posenc_graph_gen::uniform01(seed) * n));
      w.push_back(0.5 + posenc_graph_gen::uniform01(seed));
    }
    if (i + 1 < n) {
      g.src.push_back(i);
      g.dst.push_back(i + 1);
      w.push_back(1.0);
    }
  }
  // POSENC_TEST_REDUCED (asan, aarch64 presets): the dense reference is the slow part and the
  // solver is ISA-independent, so it runs on the scalar path only.
  if (std::getenv("POSENC_TEST_REDUCED") != nullptr && GetParam() != POSENC_ISA_SCALAR)
    GTEST_SKIP() << "POSENC_TEST_REDUCED: scalar path only";
  const int32_t k = 6;
  for (posenc_laplacian lap : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
    const double q = 0.2;
    const Mag dense = run(g, w, lap, q, k);
    Mag sparse;
    {
      DenseMax dm("1000");
      sparse = run(g, w, lap, q, k);
    }
    const double scale = lap == POSENC_LAPLACIAN_SYM ? 1.0 : 10.0;
    for (int32_t j = 0; j < k; ++j) EXPECT_NEAR(sparse.val[j], dense.val[j], 1e-11 * scale) << "j " << j;
    // Same phase rule: the columns agree entrywise (the eigenvalues are simple).
    const Eigen::MatrixXcd Vd = columns(dense, n, k), Vs = columns(sparse, n, k);
    for (int32_t j = 0; j < k; ++j) EXPECT_LE((Vd.col(j) - Vs.col(j)).norm(), 1e-6) << "column " << j;
    check_pairs(sparse, g, w, q, lap == POSENC_LAPLACIAN_SYM, k, 1e-7 * scale);
  }
}

TEST_P(GraphMaglap, SparseWithSmallComponentsAndIsolatedNodes) {
  // A 5000-node directed cycle (sparse), a 3-node directed cycle (dense) and an isolated node:
  // eigenvalues interleave across components; the isolated node gives L_sym eigenvalue 1.
  EdgeList g = directed_cycle(5000);
  for (int64_t i = 0; i < 3; ++i) {
    g.src.push_back(5000 + i);
    g.dst.push_back(5000 + (i + 1) % 3);
  }
  g.n = 5004;
  const double q = 0.3;
  std::vector<double> ref;
  for (int64_t j = 0; j < 5000; ++j) ref.push_back(1 - std::cos(2 * kPi * (static_cast<double>(j) / 5000 + q)));
  for (int64_t j = 0; j < 3; ++j) ref.push_back(1 - std::cos(2 * kPi * (static_cast<double>(j) / 3 + q)));
  ref.push_back(1.0);
  std::sort(ref.begin(), ref.end());
  const int32_t k = 5;
  const Mag m = run(g, {}, POSENC_LAPLACIAN_SYM, q, k);
  for (int32_t j = 0; j < k; ++j) EXPECT_NEAR(m.val[j], ref[j], 1e-11) << "j " << j;
}

TEST_P(GraphMaglap, SparseMatchesDenseOnSmallRandomGraphs) {
  // 150 small random multigraphs (2..40 nodes, arcs with repeats, zero and mixed weights, several
  // components, k up to num_nodes): every component above 2 nodes on the sparse route vs the dense
  // route. Eigenvalues to 1e-11 relative, orthonormal columns, q = 0 columns exactly real.
  uint64_t seed = 21;
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(posenc_graph_gen::uniform01(seed) * static_cast<double>(hi - lo + 1));
  };
  const double ws[6] = {0.0, 1.0, 0.5, 2.0, 1e-3, 1e3}, qs[5] = {0.0, 0.1, 0.25, 0.5, 0.37};
  for (int it = 0; it < 150; ++it) {
    EdgeList g;
    g.n = pick(2, 40);
    const int64_t m = pick(0, 4 * g.n - 1);
    std::vector<double> w;
    const bool weighted = pick(0, 1) == 1;
    for (int64_t e = 0; e < m; ++e) {
      g.src.push_back(pick(0, g.n - 1));
      g.dst.push_back(pick(0, g.n - 1));
      if (weighted) w.push_back(ws[pick(0, 5)]);
    }
    const int32_t k = static_cast<int32_t>(pick(1, g.n));
    const double q = qs[pick(0, 4)];
    const posenc_laplacian lap = pick(0, 1) ? POSENC_LAPLACIAN_SYM : POSENC_LAPLACIAN_COMBINATORIAL;
    const Mag dense = run(g, w, lap, q, k);
    Mag sparse;
    {
      DenseMax dm("2");
      sparse = run(g, w, lap, q, k);
    }
    double sc = 1.0;
    for (double v : dense.val) sc = std::max(sc, std::abs(v));
    for (int32_t j = 0; j < k; ++j) EXPECT_NEAR(sparse.val[j], dense.val[j], 1e-11 * sc) << "graph " << it << " j " << j;
    const Eigen::MatrixXcd V = columns(sparse, g.n, k);
    EXPECT_LE((V.adjoint() * V - Eigen::MatrixXcd::Identity(k, k)).norm(), 1e-10) << "graph " << it;
    if (q == 0.0) {
      for (double x : sparse.im) EXPECT_EQ(x, 0.0) << "graph " << it;
    }
  }
}

POSENC_INSTANTIATE_ISA(GraphMaglap);

}  // namespace
