// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph.cpp — graph family: LapPE (posenc_laplacian_pe_f64) and RWSE (posenc_rwse_f64).
//
// The graph functions are plain lib code (no SIMD kernels), so most tests are ISA-independent;
// GraphIsa checks that every ISA path gives bitwise the scalar result. References are independent
// of lib/graph_*.cpp: dense Laplacians built here from the edge list, Eigen's dense
// SelfAdjointEigenSolver, the closed-form spectrum of grid graphs, dense matrix powers for RWSE.
#include "tests/test_common.hpp"
#include "tests/graph_dense_ref.hpp"

#include "posenc/posenc.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;
using posenc_graph_gen::dense_adjacency;
using posenc_graph_gen::dense_laplacian;
using posenc_graph_gen::karate;

namespace {

Eigen::SparseMatrix<double> sparse_laplacian(const EdgeList& g, posenc_laplacian kind) {
  std::vector<double> d(static_cast<size_t>(g.n), 0.0);
  for (int64_t e = 0; e < g.m(); ++e)
    if (g.src[e] != g.dst[e]) {
      d[g.src[e]] += 1.0;
      d[g.dst[e]] += 1.0;
    }
  std::vector<Eigen::Triplet<double>> t;
  for (int64_t i = 0; i < g.n; ++i) t.emplace_back(i, i, kind == POSENC_LAPLACIAN_SYM ? 1.0 : d[i]);
  for (int64_t e = 0; e < g.m(); ++e) {
    const int64_t u = g.src[e], v = g.dst[e];
    if (u == v) continue;
    const double x = kind == POSENC_LAPLACIAN_SYM ? -1.0 / std::sqrt(d[u] * d[v]) : -1.0;
    t.emplace_back(u, v, x);
    t.emplace_back(v, u, x);
  }
  Eigen::SparseMatrix<double> L(g.n, g.n);
  L.setFromTriplets(t.begin(), t.end());
  return L;
}

struct Pe {
  posenc_status status;
  std::vector<double> val, vec;
  posenc_laplacian_pe_info info;
  Eigen::MatrixXd V() const {
    const int64_t k = static_cast<int64_t>(val.size());
    return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        vec.data(), static_cast<int64_t>(vec.size()) / k, k);
  }
};

Pe lappe(const EdgeList& g, posenc_laplacian kind, int32_t k, const std::vector<double>& w = {},
         posenc_lappe_method solver = POSENC_LAPPE_AUTO) {
  Pe r;
  r.val.assign(static_cast<size_t>(k), 0.0);
  r.vec.assign(static_cast<size_t>(g.n * k), 0.0);
  poison(r.val);
  poison(r.vec);
  posenc_laplacian_pe_info_init(&r.info);
  r.info.solver = solver;
  r.status = posenc_laplacian_pe_ex_f64(g.n, g.src.data(), g.dst.data(), w.empty() ? nullptr : w.data(), g.m(), kind,
                                        k, r.val.data(), r.vec.data(), &r.info);
  EXPECT_EQ(r.status, POSENC_OK) << posenc_last_error_message();
  EXPECT_EQ(count_poison(r.val), 0u);
  EXPECT_EQ(count_poison(r.vec), 0u);
  return r;
}

/// Sign rule: the entry of largest magnitude (ties within 1e-6 relative: lowest index) is > 0.
void expect_sign_rule(const Eigen::MatrixXd& V) {
  for (Eigen::Index j = 0; j < V.cols(); ++j) {
    const double mx = V.col(j).cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < V.rows(); ++i)
      if (std::abs(V(i, j)) >= mx * (1 - 1e-6)) {
        EXPECT_GT(V(i, j), 0.0) << "column " << j;
        break;
      }
  }
}

/// Compares with a full reference decomposition (values ascending, vectors as columns):
/// eigenvalues to tol_val; each returned vector lies in the reference eigenspace of its
/// eigenvalue (projector onto the reference cluster within cluster_tol), robust to signs and to
/// the arbitrary basis of repeated eigenvalues; columns orthonormal; sign rule.
void expect_matches(const Pe& r, const Eigen::VectorXd& ref_val, const Eigen::MatrixXd& ref_vec, double tol_val,
                    double tol_vec, double cluster_tol = 1e-8) {
  const Eigen::MatrixXd V = r.V();
  const int64_t k = V.cols();
  for (int64_t j = 0; j < k; ++j) EXPECT_NEAR(r.val[j], ref_val[j], tol_val) << "eigenvalue " << j;
  EXPECT_LT((V.transpose() * V - Eigen::MatrixXd::Identity(k, k)).cwiseAbs().maxCoeff(), tol_vec);
  for (int64_t j = 0; j < k; ++j) {
    Eigen::MatrixXd U(ref_vec.rows(), 0);
    for (Eigen::Index i = 0; i < ref_val.size(); ++i)
      if (std::abs(ref_val[i] - ref_val[j]) <= cluster_tol) {
        U.conservativeResize(Eigen::NoChange, U.cols() + 1);
        U.col(U.cols() - 1) = ref_vec.col(i);
      }
    const Eigen::VectorXd v = V.col(j);
    EXPECT_LT((v - U * (U.transpose() * v)).norm(), tol_vec) << "vector " << j << " (cluster of " << U.cols() << ")";
  }
  expect_sign_rule(V);
}

void expect_dense_match(const EdgeList& g, posenc_laplacian kind, int32_t k, const std::vector<double>& w = {},
                        posenc_lappe_method solver = POSENC_LAPPE_AUTO, double tol_vec = 1e-9) {
  const Pe r = lappe(g, kind, k, w, solver);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(dense_laplacian(g, w, kind));
  ASSERT_EQ(es.info(), Eigen::Success);
  expect_matches(r, es.eigenvalues(), es.eigenvectors(), 1e-10, tol_vec);
}

double max_residual(const Eigen::SparseMatrix<double>& L, const Pe& r) {
  const Eigen::MatrixXd V = r.V();
  double worst = 0;
  for (Eigen::Index j = 0; j < V.cols(); ++j)
    worst = std::max(worst, (L * V.col(j) - r.val[j] * V.col(j)).norm());
  return worst;
}

/// Closed form of the combinatorial Laplacian of the rows x cols grid (Cartesian product of
/// paths): eigenvalues mu_a + mu_b with mu_a = 2 - 2 cos(pi a / rows), eigenvectors
/// u_a (x) u_b with u_a[i] = cos(pi a (i + 1/2) / rows) (normalized).
void grid_closed_form(int64_t rows, int64_t cols, int64_t count, Eigen::VectorXd* val, Eigen::MatrixXd* vec) {
  const double pi = 3.14159265358979323846;
  struct E {
    double v;
    int64_t a, b;
  };
  std::vector<E> all;
  for (int64_t a = 0; a < rows; ++a)
    for (int64_t b = 0; b < cols; ++b)
      all.push_back({(2 - 2 * std::cos(pi * a / rows)) + (2 - 2 * std::cos(pi * b / cols)), a, b});
  std::sort(all.begin(), all.end(), [](const E& x, const E& y) { return x.v < y.v; });
  val->resize(count);
  vec->resize(rows * cols, count);
  for (int64_t j = 0; j < count; ++j) {
    (*val)[j] = all[j].v;
    Eigen::VectorXd ua(rows), ub(cols);
    for (int64_t i = 0; i < rows; ++i) ua[i] = std::cos(pi * all[j].a * (i + 0.5) / rows);
    for (int64_t i = 0; i < cols; ++i) ub[i] = std::cos(pi * all[j].b * (i + 0.5) / cols);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) (*vec)(r * cols + c, j) = ua[r] * ub[c];
    vec->col(j).normalize();
  }
}

/// (P^t)_vv from dense matrix powers, P = D^-1 A (zero rows for isolated nodes).
std::vector<double> rwse_dense(const EdgeList& g, const std::vector<double>& w, int32_t steps) {
  const Eigen::MatrixXd A = dense_adjacency(g, w);
  Eigen::MatrixXd P = A;
  for (int64_t i = 0; i < g.n; ++i) {
    const double d = A.row(i).sum();
    P.row(i) = d > 0 ? Eigen::VectorXd(A.row(i).transpose() / d) : Eigen::VectorXd::Zero(g.n);
  }
  std::vector<double> out(static_cast<size_t>(g.n * steps));
  Eigen::MatrixXd Pt = Eigen::MatrixXd::Identity(g.n, g.n);
  for (int32_t t = 1; t <= steps; ++t) {
    Pt = Pt * P;
    for (int64_t v = 0; v < g.n; ++v) out[v * steps + t - 1] = Pt(v, v);
  }
  return out;
}

std::vector<double> rwse(const EdgeList& g, int32_t steps, const std::vector<double>& w = {}) {
  std::vector<double> out(static_cast<size_t>(g.n * steps));
  poison(out);
  EXPECT_EQ(posenc_rwse_f64(g.n, g.src.data(), g.dst.data(), w.empty() ? nullptr : w.data(), g.m(), steps, out.data()),
            POSENC_OK)
      << posenc_last_error_message();
  EXPECT_EQ(count_poison(out), 0u);
  return out;
}

/// A weighted multigraph: duplicates in both directions, self-loops, a zero-weight pair, an
/// isolated node (n - 1), two components.
void messy_graph(EdgeList* g, std::vector<double>* w) {
  uint64_t s = 7;
  g->n = 60;
  for (int e = 0; e < 220; ++e) {
    int64_t u = static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 40);
    int64_t v = static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 40);
    if (e % 3 == 0) {  // second component on nodes 40..58
      u = 40 + u % 19;
      v = 40 + v % 19;
    }
    g->src.push_back(u);
    g->dst.push_back(v);
    w->push_back(0.25 + posenc_graph_gen::uniform01(s) * 3.0);
  }
  g->src.push_back(3); g->dst.push_back(5); w->push_back(2.0);  // a duplicate, reversed below
  g->src.push_back(5); g->dst.push_back(3); w->push_back(0.5);
  g->src.push_back(7); g->dst.push_back(7); w->push_back(9.0);  // self-loop: ignored
  g->src.push_back(1); g->dst.push_back(38); w->push_back(0.0); // zero weight: no edge
}

}  // namespace

// ------------------------------------------------------------------------------------ LapPE

TEST(GraphLapPE, KarateClubAgainstDenseEigen) {
  const EdgeList g = karate();
  for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
    for (int32_t k : {1, 5, 16, 34}) {
      SCOPED_TRACE(testing::Message() << "kind " << kind << " k " << k);
      expect_dense_match(g, kind, k);
    }
  }
  // Known values (networkx normalized_laplacian_matrix + numpy eigvalsh).
  const Pe r = lappe(g, POSENC_LAPLACIAN_SYM, 4);
  EXPECT_NEAR(r.val[0], 0.0, 1e-13);
  EXPECT_NEAR(r.val[1], 1.32272329e-01, 1e-9);
  EXPECT_NEAR(r.val[2], 2.87048985e-01, 1e-9);
  EXPECT_NEAR(r.val[3], 3.87313233e-01, 1e-9);
  EXPECT_EQ(r.info.method, POSENC_LAPPE_DENSE);
  EXPECT_EQ(r.info.components, 1);
  EXPECT_LT(r.info.max_residual, 1e-12);
  // L_sym's null vector is D^1/2 1 / ||.||, positive by the sign rule.
  const Eigen::MatrixXd A = dense_adjacency(g, {});
  Eigen::VectorXd z = A.rowwise().sum().cwiseSqrt();
  z.normalize();
  EXPECT_LT((r.V().col(0) - z).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(GraphLapPE, DuplicatesAreSummedSelfLoopsIgnored) {
  // PyG-style edge_index: every edge in both directions doubles every weight. L_sym is unchanged,
  // D - A doubles.
  const EdgeList g = karate();
  EdgeList g2 = g;
  for (int64_t e = 0; e < g.m(); ++e) {
    g2.src.push_back(g.dst[e]);
    g2.dst.push_back(g.src[e]);
  }
  for (int64_t v = 0; v < g.n; v += 5) {  // self-loops are ignored
    g2.src.push_back(v);
    g2.dst.push_back(v);
  }
  const Pe a = lappe(g, POSENC_LAPLACIAN_SYM, 34), b = lappe(g2, POSENC_LAPLACIAN_SYM, 34);
  const Pe c = lappe(g, POSENC_LAPLACIAN_COMBINATORIAL, 34), d = lappe(g2, POSENC_LAPLACIAN_COMBINATORIAL, 34);
  for (int j = 0; j < 34; ++j) {
    EXPECT_NEAR(a.val[j], b.val[j], 1e-12);
    EXPECT_NEAR(2 * c.val[j], d.val[j], 1e-11);
  }
  // Weighted multigraph with both-direction duplicates, self-loops, a zero weight, an isolated
  // node and two components, against the dense Laplacian built here.
  EdgeList m;
  std::vector<double> w;
  messy_graph(&m, &w);
  for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
    SCOPED_TRACE(testing::Message() << "kind " << kind);
    expect_dense_match(m, kind, 60, w);
    expect_dense_match(m, kind, 7, w);
  }
}

TEST(GraphLapPE, TwoComponentsAndAnIsolatedNode) {
  // Component 1: 6-cycle on 0..5; node 6 isolated; component 2: K4 on 7..10.
  EdgeList g;
  g.n = 11;
  for (int i = 0; i < 6; ++i) { g.src.push_back(i); g.dst.push_back((i + 1) % 6); }
  for (int i = 7; i < 11; ++i)
    for (int j = i + 1; j < 11; ++j) { g.src.push_back(j); g.dst.push_back(i); }
  for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
    SCOPED_TRACE(testing::Message() << "kind " << kind);
    expect_dense_match(g, kind, 11);
    const Pe r = lappe(g, kind, 11);
    EXPECT_EQ(r.info.components, 3);
    const Eigen::MatrixXd V = r.V();
    const int zeros = kind == POSENC_LAPLACIAN_SYM ? 2 : 3;  // isolated node: L_sym diagonal 1
    for (int j = 0; j < 11; ++j) {
      if (j < zeros) EXPECT_NEAR(r.val[j], 0.0, 1e-13); else EXPECT_GT(r.val[j], 0.1);
      // every eigenvector lives on one component: exact zeros elsewhere
      int support = 0;
      for (auto comp : {std::pair<int, int>{0, 6}, {6, 7}, {7, 11}}) {
        bool any = false;
        for (int i = comp.first; i < comp.second; ++i) any |= V(i, j) != 0.0;
        support += any;
      }
      EXPECT_EQ(support, 1) << "column " << j;
    }
    // Zeros ordered by their component's lowest node: the cycle's, then the isolated node's
    // (combinatorial) / K4's.
    EXPECT_NE(V(0, 0), 0.0);
    if (kind == POSENC_LAPLACIAN_COMBINATORIAL) {
      EXPECT_EQ(V(6, 1), 1.0);
      EXPECT_NE(V(7, 2), 0.0);
    } else {
      EXPECT_NE(V(7, 1), 0.0);
      // the isolated node's eigenpair (1, e_6) is among the eigenvalues equal to 1
      bool found = false;
      for (int j = 0; j < 11; ++j) found |= (r.val[j] == 1.0 && V(6, j) == 1.0);
      EXPECT_TRUE(found);
    }
  }
  // Isolated nodes only.
  EdgeList iso;
  iso.n = 3;
  const Pe s = lappe(iso, POSENC_LAPLACIAN_SYM, 3), c = lappe(iso, POSENC_LAPLACIAN_COMBINATORIAL, 2);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(s.val[j], 1.0);
  EXPECT_EQ(c.val[0], 0.0);
  EXPECT_EQ(c.vec[0 * 2 + 0], 1.0);
  EXPECT_EQ(c.vec[1 * 2 + 1], 1.0);
}

TEST(GraphLapPE, Grid40ReferenceValuesAndClosedForm) {
  const EdgeList g = posenc_graph_gen::grid(40, 40);
  // docs/REFERENCES.md §4 (L_sym): lambda1 = lambda2 = 0.00160088, lambda3 = 0.00324269.
  const Pe r = lappe(g, POSENC_LAPLACIAN_SYM, 6);
  EXPECT_NE(r.info.method, POSENC_LAPPE_DENSE);  // 1600 nodes: the sparse path
  EXPECT_NEAR(r.val[0], 0.0, 1e-12);
  EXPECT_NEAR(r.val[1], 0.00160088, 5e-9);
  EXPECT_NEAR(r.val[2], 0.00160088, 5e-9);
  EXPECT_NEAR(r.val[1], r.val[2], 1e-12);
  EXPECT_NEAR(r.val[3], 0.00324269, 5e-9);
  EXPECT_LT(max_residual(sparse_laplacian(g, POSENC_LAPLACIAN_SYM), r), 1e-9);
  // D - A: closed form for all k, including every repeated pair (mu_a + mu_b = mu_b + mu_a).
  Eigen::VectorXd cv;
  Eigen::MatrixXd cu;
  grid_closed_form(40, 40, 48, &cv, &cu);  // beyond k, so that no cluster is cut at k
  for (posenc_lappe_method m : {POSENC_LAPPE_AUTO, POSENC_LAPPE_LANCZOS}) {
    SCOPED_TRACE(testing::Message() << "solver " << m);
    const Pe c = lappe(g, POSENC_LAPLACIAN_COMBINATORIAL, 40, {}, m);
    // cluster tolerance 1e-8: eigenvalues of the closed form that agree to 1e-8 are one cluster.
    expect_matches(c, cv, cu, 1e-10, 1e-7);
  }
}

TEST(GraphLapPE, Grid100ReferenceValuesAndClosedForm) {
  const EdgeList g = posenc_graph_gen::grid(100, 100);
  const Pe r = lappe(g, POSENC_LAPLACIAN_SYM, 3);
  // docs/REFERENCES.md §4 (L_sym): lambda1 = lambda2 = 0.000250465.
  EXPECT_NEAR(r.val[1], 0.000250465, 5e-10);
  EXPECT_NEAR(r.val[2], 0.000250465, 5e-10);
  EXPECT_LT(max_residual(sparse_laplacian(g, POSENC_LAPLACIAN_SYM), r), 1e-9);
  Eigen::VectorXd cv;
  Eigen::MatrixXd cu;
  grid_closed_form(100, 100, 24, &cv, &cu);
  const Pe c = lappe(g, POSENC_LAPLACIAN_COMBINATORIAL, 16);
  expect_matches(c, cv, cu, 1e-10, 1e-7);
}

TEST(GraphLapPE, EverySolverAgainstDenseEigen) {
  // A random geometric graph (may hold several components); each solver forced on the
  // components of more than 3k nodes, against the dense decomposition built here.
  const EdgeList g = posenc_graph_gen::random_geometric(400, 12.0, 3);
  for (posenc_lappe_method m : {POSENC_LAPPE_AUTO, POSENC_LAPPE_DENSE, POSENC_LAPPE_SHIFT_INVERT, POSENC_LAPPE_LANCZOS})
    for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL}) {
      SCOPED_TRACE(testing::Message() << "solver " << m << " kind " << kind);
      expect_dense_match(g, kind, 12, {}, m, 1e-7);
      const Pe r = lappe(g, kind, 12, {}, m);
      EXPECT_EQ(r.info.method, m == POSENC_LAPPE_AUTO ? POSENC_LAPPE_DENSE : m);
    }
}

TEST(GraphLapPE, LargeSparseGraphConverges) {
  // 100k-node random geometric graph: residuals ||L v - lambda v|| < 1e-8, checked here with an
  // independently built sparse Laplacian.
  const EdgeList g = posenc_graph_gen::random_geometric(100000, 10.0, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const Pe r = lappe(g, POSENC_LAPLACIAN_SYM, 8);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Eigen::SparseMatrix<double> L = sparse_laplacian(g, POSENC_LAPLACIAN_SYM);
  EXPECT_LT(max_residual(L, r), 1e-8);
  EXPECT_LT(r.info.max_residual, 1e-8);
  const Eigen::MatrixXd V = r.V();
  EXPECT_LT((V.transpose() * V - Eigen::MatrixXd::Identity(8, 8)).cwiseAbs().maxCoeff(), 1e-9);
  for (int j = 1; j < 8; ++j) EXPECT_LE(r.val[j - 1], r.val[j]);
  EXPECT_GE(r.val[0], -1e-12);
  EXPECT_GT(r.info.components, 1);
  std::printf("[ info     ] 100k-node RGG, k = 8: %.2f s, method %d, %lld components, %lld solves, %lld matvecs\n",
              sec, static_cast<int>(r.info.method), static_cast<long long>(r.info.components),
              static_cast<long long>(r.info.shift_solves), static_cast<long long>(r.info.matvecs));
}

TEST(GraphLapPE, NotConvergedSaysWhatWasTried) {
  // A random (expander) graph: the sparse LDL^T of L - sigma I would fill in far beyond the limit,
  // so a forced shift-invert solver refuses and reports NOT_CONVERGED; nothing is written.
  EdgeList g;
  g.n = 6000;
  uint64_t seed = 99;
  for (int64_t e = 0; e < 5 * g.n; ++e) {
    g.src.push_back(static_cast<int64_t>(posenc_graph_gen::splitmix64(seed) % 6000));
    g.dst.push_back(static_cast<int64_t>(posenc_graph_gen::splitmix64(seed) % 6000));
  }
  std::vector<double> val(4), vec(static_cast<size_t>(g.n * 4));
  poison(val);
  poison(vec);
  posenc_laplacian_pe_info info;
  posenc_laplacian_pe_info_init(&info);
  info.solver = POSENC_LAPPE_SHIFT_INVERT;
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), POSENC_LAPLACIAN_SYM,
                                                 4, val.data(), vec.data(), &info),
                      POSENC_ERR_NOT_CONVERGED, "shift-invert skipped (LDL^T factor would hold");
  EXPECT_EQ(count_poison(val), val.size());
  EXPECT_EQ(count_poison(vec), vec.size());
  EXPECT_EQ(info.solver, POSENC_LAPPE_SHIFT_INVERT);
  EXPECT_EQ(info.matvecs, 0);
}

TEST(GraphLapPE, BitwiseIdenticalForAnyThreadCount) {
  const EdgeList grid = posenc_graph_gen::grid(60, 60);
  std::vector<Pe> runs;
  for (int32_t t : {1, 2, 3}) {
    ThreadScope ts(t);
    runs.push_back(lappe(grid, POSENC_LAPLACIAN_SYM, 6, {}, POSENC_LAPPE_LANCZOS));
    runs.push_back(lappe(grid, POSENC_LAPLACIAN_COMBINATORIAL, 6));
  }
  for (size_t i = 2; i < runs.size(); ++i) {
    EXPECT_TRUE(same_bits(runs[i].val, runs[i % 2].val));
    EXPECT_TRUE(same_bits(runs[i].vec, runs[i % 2].vec));
  }
}

TEST(GraphLapPE, BadInputWritesNothing) {
  const EdgeList g = karate();
  std::vector<double> val(4), vec(34 * 4);
  poison(val);
  poison(vec);
  const auto* s = g.src.data();
  const auto* d = g.dst.data();
  const auto SYM = POSENC_LAPLACIAN_SYM;
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(0, s, d, nullptr, 78, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "num_nodes");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(-3, s, d, nullptr, 78, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "num_nodes");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, d, nullptr, -1, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "num_edges");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, nullptr, d, nullptr, 78, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_NULL_POINTER, "src");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, nullptr, nullptr, 78, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_NULL_POINTER, "dst");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, d, nullptr, 78, SYM, 4, nullptr, vec.data()),
                      POSENC_ERR_NULL_POINTER, "eigvals");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, d, nullptr, 78, SYM, 4, val.data(), nullptr),
                      POSENC_ERR_NULL_POINTER, "eigvecs");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, d, nullptr, 78, SYM, 0, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "k must be");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, d, nullptr, 78, SYM, -2, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "k must be");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(3, s, d, nullptr, 0, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "k must be");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, d, nullptr, 78, static_cast<posenc_laplacian>(7), 4, val.data(),
                                              vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "laplacian");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(33, s, d, nullptr, 78, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "is out of range");
  std::vector<int64_t> bad(g.src);
  bad[40] = -1;
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, bad.data(), d, nullptr, 78, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "src[40]");
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, bad.data(), nullptr, 78, SYM, 4, val.data(), vec.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "dst[40]");
  for (double x : {-1.0, std::nan(""), static_cast<double>(INFINITY)}) {
    std::vector<double> w(78, 1.0);
    w[11] = x;
    EXPECT_POSENC_ERROR(posenc_laplacian_pe_f64(34, s, d, w.data(), 78, SYM, 4, val.data(), vec.data()),
                        POSENC_ERR_INVALID_ARGUMENT, "weights[11]");
  }
  posenc_laplacian_pe_info info;
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_info_init(nullptr), POSENC_ERR_NULL_POINTER, "info");
  ASSERT_EQ(posenc_laplacian_pe_info_init(&info), POSENC_OK);
  info.struct_size = 4;
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_ex_f64(34, s, d, nullptr, 78, SYM, 4, val.data(), vec.data(), &info),
                      POSENC_ERR_INVALID_ARGUMENT, "struct_size");
  posenc_laplacian_pe_info_init(&info);
  info.solver = static_cast<posenc_lappe_method>(9);
  EXPECT_POSENC_ERROR(posenc_laplacian_pe_ex_f64(34, s, d, nullptr, 78, SYM, 4, val.data(), vec.data(), &info),
                      POSENC_ERR_INVALID_ARGUMENT, "solver");
  EXPECT_EQ(count_poison(val), val.size());
  EXPECT_EQ(count_poison(vec), vec.size());
  // The C++ layer throws with the status.
  try {
    posenc::laplacian_pe(34, g.src, g.dst, 35);
    ADD_FAILURE() << "no exception";
  } catch (const posenc::error& e) {
    EXPECT_EQ(e.status(), POSENC_ERR_INVALID_ARGUMENT);
  }
  const auto ok = posenc::laplacian_pe(34, g.src, g.dst, 3);
  EXPECT_EQ(ok.eigvals.size(), 3u);
  EXPECT_EQ(ok.eigvecs.size(), 34u * 3u);
}

// ------------------------------------------------------------------------------------ RWSE

TEST(GraphRwse, AgainstDenseMatrixPowers) {
  const EdgeList g = karate();
  for (int32_t steps : {1, 2, 7, 16, 21}) {
    const std::vector<double> got = rwse(g, steps), ref = rwse_dense(g, {}, steps);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], ref[i], 1e-14) << i;
  }
  EdgeList m;
  std::vector<double> w;
  messy_graph(&m, &w);
  const std::vector<double> got = rwse(m, 12, w), ref = rwse_dense(m, w, 12);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], ref[i], 1e-14) << i;
  // isolated node (59): all zeros; t = 1 is always 0 (no self-loops)
  for (int t = 0; t < 12; ++t) EXPECT_EQ(got[59 * 12 + t], 0.0);
  for (int64_t v = 0; v < m.n; ++v) EXPECT_EQ(got[v * 12], 0.0);
  // Closed form: on the cycle C_n, (P^t)_vv = C(t, t/2) / 2^t for even t < n, 0 for odd t.
  EdgeList cyc;
  cyc.n = 40;
  for (int i = 0; i < 40; ++i) { cyc.src.push_back(i); cyc.dst.push_back((i + 1) % 40); }
  const std::vector<double> c = rwse(cyc, 20);
  for (int t = 1; t <= 20; ++t) {
    double ref_t = 0;
    if (t % 2 == 0) {
      ref_t = 1;
      for (int i = 1; i <= t / 2; ++i) ref_t *= static_cast<double>(t / 2 + i) / i;
      ref_t = std::ldexp(ref_t, -t);
    }
    for (int v = 0; v < 40; ++v) EXPECT_NEAR(c[v * 20 + t - 1], ref_t, 1e-15) << "t " << t;
  }
  // C++ layer
  const std::vector<double> viahpp = posenc::rwse(34, karate().src, karate().dst, 16);
  EXPECT_TRUE(same_bits(viahpp, rwse(g, 16)));
}

// Graphs of <= 64 nodes take the all-sources dense propagation, larger ones the block propagation
// (lib/graph_rwse.cpp): both against matrix powers on either side of the switch, and the same
// graph padded with isolated nodes past 64 (block path) against itself unpadded (dense path).
TEST(GraphRwse, DenseAndBlockPathsAgree) {
  for (int64_t n : {2, 9, 31, 63, 64, 65, 90}) {
    EdgeList g;
    std::vector<double> w;
    g.n = n;
    uint64_t s = 1000 + static_cast<uint64_t>(n);
    for (int64_t e = 0; e < 2 * n; ++e) {
      g.src.push_back(static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % static_cast<uint64_t>(n - n / 8)));
      g.dst.push_back(static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % static_cast<uint64_t>(n - n / 8)));
      w.push_back(e % 5 == 0 ? 1.0 : 0.5 + posenc_graph_gen::uniform01(s));
    }
    for (int32_t steps : {1, 2, 5, 16}) {
      const std::vector<double> got = rwse(g, steps, w), ref = rwse_dense(g, w, steps);
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-14) << "n " << n << " i " << i;
      for (uint32_t flags : {0u, static_cast<uint32_t>(POSENC_GRAPH_KEEP_SELF_LOOPS)}) {
        EdgeList pad = g;
        pad.n = n + 70;  // isolated nodes: the other path
        std::vector<double> a(static_cast<size_t>(n * steps)), b(static_cast<size_t>(pad.n * steps));
        poison(b);
        ASSERT_EQ(posenc_rwse_ex_f64(n, g.src.data(), g.dst.data(), w.data(), g.m(), steps, flags, a.data()), POSENC_OK);
        ASSERT_EQ(posenc_rwse_ex_f64(pad.n, pad.src.data(), pad.dst.data(), w.data(), pad.m(), steps, flags, b.data()),
                  POSENC_OK);
        for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-15) << "n " << n << " i " << i;
        for (size_t i = a.size(); i < b.size(); ++i) ASSERT_EQ(b[i], 0.0) << i;
      }
    }
  }
}

TEST(GraphRwse, LargeGraphAndThreads) {
  const EdgeList g = posenc_graph_gen::random_geometric(8000, 10.0, 5);
  std::vector<std::vector<double>> runs;
  for (int32_t t : {1, 2, 3}) {
    ThreadScope ts(t);
    runs.push_back(rwse(g, 16));
  }
  EXPECT_TRUE(same_bits(runs[0], runs[1]));
  EXPECT_TRUE(same_bits(runs[0], runs[2]));
  // Spot check a few nodes against propagation of e_v over all nodes, step by step (the direct
  // definition, no meet-in-the-middle).
  std::vector<std::vector<std::pair<int64_t, double>>> adj(static_cast<size_t>(g.n));
  for (int64_t e = 0; e < g.m(); ++e) {
    adj[g.src[e]].push_back({g.dst[e], 1.0});
    adj[g.dst[e]].push_back({g.src[e], 1.0});
  }
  for (int64_t v : {0, 1234, 7999}) {
    std::vector<double> x(static_cast<size_t>(g.n), 0.0), y;
    x[v] = 1.0;
    for (int t = 1; t <= 16; ++t) {
      y.assign(static_cast<size_t>(g.n), 0.0);
      for (int64_t u = 0; u < g.n; ++u)
        if (x[u] != 0.0)
          for (auto& nb : adj[u]) y[nb.first] += x[u] / static_cast<double>(adj[u].size());
      x.swap(y);
      EXPECT_NEAR(runs[0][v * 16 + t - 1], x[v], 1e-15) << "node " << v << " t " << t;
    }
  }
}

TEST(GraphRwse, BadInputWritesNothing) {
  const EdgeList g = karate();
  std::vector<double> out(34 * 4);
  poison(out);
  const auto* s = g.src.data();
  const auto* d = g.dst.data();
  EXPECT_POSENC_ERROR(posenc_rwse_f64(0, s, d, nullptr, 78, 4, out.data()), POSENC_ERR_INVALID_ARGUMENT, "num_nodes");
  EXPECT_POSENC_ERROR(posenc_rwse_f64(34, s, d, nullptr, 78, 0, out.data()), POSENC_ERR_INVALID_ARGUMENT, "steps");
  EXPECT_POSENC_ERROR(posenc_rwse_f64(34, s, d, nullptr, 78, -5, out.data()), POSENC_ERR_INVALID_ARGUMENT, "steps");
  EXPECT_POSENC_ERROR(posenc_rwse_f64(34, s, d, nullptr, 78, 4, nullptr), POSENC_ERR_NULL_POINTER, "out");
  EXPECT_POSENC_ERROR(posenc_rwse_f64(34, nullptr, d, nullptr, 78, 4, out.data()), POSENC_ERR_NULL_POINTER, "src");
  EXPECT_POSENC_ERROR(posenc_rwse_f64(34, s, nullptr, nullptr, 78, 4, out.data()), POSENC_ERR_NULL_POINTER, "dst");
  EXPECT_POSENC_ERROR(posenc_rwse_f64(34, s, d, nullptr, -1, 4, out.data()), POSENC_ERR_INVALID_ARGUMENT, "num_edges");
  EXPECT_POSENC_ERROR(posenc_rwse_f64(20, s, d, nullptr, 78, 4, out.data()), POSENC_ERR_INVALID_ARGUMENT,
                      "is out of range");
  std::vector<double> w(78, 1.0);
  w[77] = -0.5;
  EXPECT_POSENC_ERROR(posenc_rwse_f64(34, s, d, w.data(), 78, 4, out.data()), POSENC_ERR_INVALID_ARGUMENT,
                      "weights[77]");
  EXPECT_POSENC_ERROR(posenc_rwse_f64(INT64_MAX / 2, s, d, nullptr, 78, 4, out.data()), POSENC_ERR_SIZE_OVERFLOW,
                      "num_nodes");
  EXPECT_EQ(count_poison(out), out.size());
}

// ------------------------------------------------------------------------------------ ISA paths

class GraphIsa : public IsaTest {};

TEST_P(GraphIsa, SameBitsAsScalar) {
  // The graph kernels (kernels/graph_dense.cpp) keep the scalar order: every path gives its bits.
  const EdgeList g = posenc_graph_gen::random_geometric(1500, 10.0, 11);
  const Pe a = lappe(g, POSENC_LAPLACIAN_SYM, 5);
  const std::vector<double> b = rwse(g, 9);
  ASSERT_EQ(posenc_isa_set(POSENC_ISA_SCALAR), POSENC_OK);
  const Pe a0 = lappe(g, POSENC_LAPLACIAN_SYM, 5);
  const std::vector<double> b0 = rwse(g, 9);
  EXPECT_TRUE(same_bits(a.val, a0.val));
  EXPECT_TRUE(same_bits(a.vec, a0.vec));
  EXPECT_TRUE(same_bits(b, b0));
}

POSENC_INSTANTIATE_ISA(GraphIsa);
