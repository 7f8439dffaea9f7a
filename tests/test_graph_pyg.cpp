// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_pyg.cpp — graph family: the PyG / GraphGPS compatibility flags (RWSE with
// self-loops, LapPE's both-directions edge lists, dropped trivial pair, NaN padding) and the
// magnetic Laplacian PE of directed graphs (posenc_maglap_pe_f64).
//
// References are independent of lib/graph_*.cpp: dense matrices built here from the edge list as
// PyG / GraphGPS build them (documented semantics written out), long-double matrix powers,
// closed-form spectra (path graph, directed cycle), Eigen's real dense eigensolver on the 2n x 2n
// real embedding of the Hermitian magnetic Laplacian. Every test runs on every ISA path (the graph
// kernels keep the scalar path's order without FMA, so results must also be bitwise the same on
// all of them).
#include "tests/test_common.hpp"
#include "tests/graph_gen.hpp"

#include "posenc/posenc.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;
using posenc_graph_gen::kKarate;

namespace {

/// Karate club as PyG's edge_index: every edge in both directions.
EdgeList karate_both() {
  EdgeList g;
  g.n = 34;
  for (const auto& e : kKarate) {
    g.src.push_back(e[0]);
    g.dst.push_back(e[1]);
    g.src.push_back(e[1]);
    g.dst.push_back(e[0]);
  }
  return g;
}

/// PyG's dense RWSE (AddRandomWalkPE's N <= 2000 path, unweighted): adj[row, col] = 1 / deg[row]
/// with deg the out-degree counting self-loops, then diag(adj^t), t = 1..steps; in long double.
std::vector<long double> pyg_rwse(const EdgeList& g, int steps) {
  const int64_t n = g.n;
  std::vector<long double> deg(static_cast<size_t>(n), 0.0L);
  for (int64_t e = 0; e < g.m(); ++e) deg[g.src[e]] += 1.0L;
  std::vector<long double> P(static_cast<size_t>(n * n), 0.0L), Q, R(static_cast<size_t>(n * steps));
  for (int64_t e = 0; e < g.m(); ++e) P[g.src[e] * n + g.dst[e]] = 1.0L / std::max(deg[g.src[e]], 1.0L);
  Q = P;
  for (int t = 1; t <= steps; ++t) {
    for (int64_t v = 0; v < n; ++v) R[v * steps + t - 1] = Q[v * n + v];
    std::vector<long double> N(static_cast<size_t>(n * n), 0.0L);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t l = 0; l < n; ++l) {
        const long double a = Q[i * n + l];
        if (a == 0.0L) continue;
        for (int64_t j = 0; j < n; ++j) N[i * n + j] += a * P[l * n + j];
      }
    Q.swap(N);
  }
  return R;
}

class GraphPyg : public IsaTest {};

TEST_P(GraphPyg, RwseSelfLoopsMatchPyG) {
  // Karate club (both directions) + a self-loop on every even node (AddSelfLoops on half).
  EdgeList g = karate_both();
  for (int64_t v = 0; v < g.n; v += 2) {
    g.src.push_back(v);
    g.dst.push_back(v);
  }
  const int steps = 6;
  std::vector<double> out(static_cast<size_t>(g.n * steps));
  poison(out);
  ASSERT_EQ(posenc_rwse_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), steps,
                               POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_GRAPH_BOTH_DIRECTIONS, out.data()),
            POSENC_OK);
  EXPECT_EQ(count_poison(out), 0u);
  // PyG's documented value: node 0 (degree 16) with a self-loop returns at t = 1 with 1/17.
  EXPECT_NEAR(out[0], 1.0 / 17.0, 1e-16);
  EXPECT_EQ(out[1 * steps], 0.0);  // node 1 has no self-loop: no return in one step
  const std::vector<long double> ref = pyg_rwse(g, steps);
  double err = 0;
  for (size_t i = 0; i < out.size(); ++i) err = std::max(err, static_cast<double>(std::fabs(out[i] - ref[i])));
  EXPECT_LE(err, 1e-14);
  // Bitwise the same for any thread count.
  std::vector<double> o1(out.size());
  {
    ThreadScope ts(1);
    ASSERT_EQ(posenc_rwse_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), steps,
                                 POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_GRAPH_BOTH_DIRECTIONS, o1.data()),
              POSENC_OK);
  }
  EXPECT_TRUE(same_bits(out, o1));
}

TEST_P(GraphPyg, RwseWeightedSelfLoopsVsDensePowers) {
  // Weighted grid with self-loops of various weights, each edge once (no BOTH_DIRECTIONS), plus a
  // node whose only edge is a self-loop (P_vv = 1) and an isolated node (zeros).
  EdgeList g = posenc_graph_gen::grid(3, 4);
  g.n = 14;
  std::vector<double> w;
  uint64_t seed = 7;
  for (int64_t e = 0; e < g.m(); ++e) w.push_back(0.25 + posenc_graph_gen::uniform01(seed));
  for (int64_t v : {0, 5, 5, 11, 12}) {
    g.src.push_back(v);
    g.dst.push_back(v);
    w.push_back(0.5 + posenc_graph_gen::uniform01(seed));
  }
  const int steps = 5;
  // Reference: A[u][v] += w, A[v][u] += w off the diagonal, A[v][v] += w for a loop.
  const int64_t n = g.n;
  std::vector<long double> A(static_cast<size_t>(n * n), 0.0L), d(static_cast<size_t>(n), 0.0L);
  for (int64_t e = 0; e < g.m(); ++e) {
    const int64_t u = g.src[e], v = g.dst[e];
    A[u * n + v] += w[e];
    if (u != v) A[v * n + u] += w[e];
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) d[i] += A[i * n + j];
  std::vector<long double> P(A.size()), Q;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) P[i * n + j] = d[i] > 0 ? A[i * n + j] / d[i] : 0.0L;
  Q = P;
  std::vector<double> out(static_cast<size_t>(n * steps));
  poison(out);
  ASSERT_EQ(posenc_rwse_ex_f64(n, g.src.data(), g.dst.data(), w.data(), g.m(), steps, POSENC_GRAPH_KEEP_SELF_LOOPS,
                               out.data()),
            POSENC_OK);
  double err = 0;
  for (int t = 1; t <= steps; ++t) {
    for (int64_t v = 0; v < n; ++v)
      err = std::max(err, static_cast<double>(std::fabs(out[v * steps + t - 1] - Q[v * n + v])));
    std::vector<long double> N(A.size(), 0.0L);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t l = 0; l < n; ++l)
        for (int64_t j = 0; j < n; ++j) N[i * n + j] += Q[i * n + l] * P[l * n + j];
    Q.swap(N);
  }
  EXPECT_LE(err, 1e-14);
  for (int t = 0; t < steps; ++t) {
    EXPECT_EQ(out[12 * steps + t], 1.0);  // only a self-loop
    EXPECT_EQ(out[13 * steps + t], 0.0);  // isolated
  }
}

TEST_P(GraphPyg, RwseFlagsZeroAndSymmetricListAreBitwisePosencRwse) {
  const EdgeList one = posenc_graph_gen::grid(4, 5);
  EdgeList both = one;
  for (int64_t e = 0; e < one.m(); ++e) {
    both.src.push_back(one.dst[e]);
    both.dst.push_back(one.src[e]);
  }
  const int steps = 7;
  std::vector<double> a(static_cast<size_t>(one.n * steps)), b(a.size()), c(a.size()), d(a.size());
  ASSERT_EQ(posenc_rwse_f64(one.n, one.src.data(), one.dst.data(), nullptr, one.m(), steps, a.data()), POSENC_OK);
  ASSERT_EQ(posenc_rwse_ex_f64(one.n, one.src.data(), one.dst.data(), nullptr, one.m(), steps, 0, b.data()), POSENC_OK);
  // No self-loops: KEEP_SELF_LOOPS changes nothing; halving every weight changes nothing.
  ASSERT_EQ(posenc_rwse_ex_f64(one.n, one.src.data(), one.dst.data(), nullptr, one.m(), steps,
                               POSENC_GRAPH_KEEP_SELF_LOOPS, c.data()),
            POSENC_OK);
  ASSERT_EQ(posenc_rwse_ex_f64(both.n, both.src.data(), both.dst.data(), nullptr, both.m(), steps,
                               POSENC_GRAPH_BOTH_DIRECTIONS, d.data()),
            POSENC_OK);
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_TRUE(same_bits(a, c));
  EXPECT_TRUE(same_bits(a, d));
}

TEST_P(GraphPyg, RwseBadFlags) {
  const EdgeList g = posenc_graph_gen::grid(2, 3);
  std::vector<double> out(static_cast<size_t>(g.n * 3));
  poison(out);
  for (uint32_t f : {POSENC_LAPPE_DROP_TRIVIAL, POSENC_LAPPE_NAN_PAD, 16u, 0x80000000u})
    EXPECT_POSENC_ERROR(posenc_rwse_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), 3, f, out.data()),
                        POSENC_ERR_INVALID_ARGUMENT, "flags");
  EXPECT_POSENC_ERROR(posenc_rwse_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), 0, 0, out.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "steps");
  EXPECT_POSENC_ERROR(posenc_rwse_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), 3, 0, nullptr),
                      POSENC_ERR_NULL_POINTER, "out");
  EXPECT_EQ(count_poison(out), out.size());
}

posenc_status lappe_flags(const EdgeList& g, posenc_laplacian lap, int32_t k, uint32_t flags, std::vector<double>& val,
                          std::vector<double>& vec) {
  posenc_laplacian_pe_info info;
  EXPECT_EQ(posenc_laplacian_pe_info_init(&info), POSENC_OK);
  EXPECT_EQ(info.flags, 0u);
  info.flags = flags;
  return posenc_laplacian_pe_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), lap, k, val.data(), vec.data(),
                                    &info);
}

TEST_P(GraphPyg, LapPeBothDirectionsIsGraphGpsSpectrum) {
  // GraphGPS / PyG: L = D - A with A the 0/1 adjacency of the (already undirected) edge_index.
  const EdgeList g = karate_both();
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(34, 34);
  for (int64_t e = 0; e < g.m(); ++e) A(g.src[e], g.dst[e]) = 1.0;
  const Eigen::MatrixXd L = Eigen::MatrixXd(A.rowwise().sum().asDiagonal()) - A;
  const Eigen::VectorXd ref = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(L).eigenvalues();
  const int k = 8;
  std::vector<double> val(k), vec(34 * k), val0(k), vec0(34 * k);
  ASSERT_EQ(lappe_flags(g, POSENC_LAPLACIAN_COMBINATORIAL, k, POSENC_GRAPH_BOTH_DIRECTIONS, val, vec), POSENC_OK);
  ASSERT_EQ(lappe_flags(g, POSENC_LAPLACIAN_COMBINATORIAL, k, 0, val0, vec0), POSENC_OK);
  for (int j = 0; j < k; ++j) {
    EXPECT_NEAR(val[j], ref[j], 1e-12) << j;
    EXPECT_NEAR(val0[j], 2 * ref[j], 2e-12) << j;  // without the flag: exactly twice GraphGPS's
  }
  // L_sym does not change with the flag (up to the rounding of 1/sqrt(d)); karate's 8 smallest
  // eigenvalues are simple, so the columns agree too (same sign rule).
  std::vector<double> s1(k), v1(34 * k), s2(k), v2(34 * k);
  ASSERT_EQ(lappe_flags(g, POSENC_LAPLACIAN_SYM, k, POSENC_GRAPH_BOTH_DIRECTIONS, s1, v1), POSENC_OK);
  ASSERT_EQ(lappe_flags(g, POSENC_LAPLACIAN_SYM, k, 0, s2, v2), POSENC_OK);
  for (int j = 0; j < k; ++j) EXPECT_NEAR(s1[j], s2[j], 1e-14);
  for (size_t i = 0; i < v1.size(); ++i) EXPECT_NEAR(v1[i], v2[i], 1e-11);
}

TEST_P(GraphPyg, LapPeDropTrivialAndNanPad) {
  // Path graph P_5, D - A: eigenvalues 2 - 2 cos(pi j / 5), j = 0..4 (closed form).
  EdgeList g;
  g.n = 5;
  for (int i = 0; i + 1 < 5; ++i) {
    g.src.push_back(i);
    g.dst.push_back(i + 1);
  }
  const double pi = 3.14159265358979323846;
  std::vector<double> full(5), fvec(25);
  ASSERT_EQ(lappe_flags(g, POSENC_LAPLACIAN_COMBINATORIAL, 5, 0, full, fvec), POSENC_OK);
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(full[j], 2 - 2 * std::cos(pi * j / 5), 1e-13);
  // DROP_TRIVIAL, k = 3: columns 1..3 of the full result (PyG's k + 1, drop the first).
  {
    std::vector<double> v(3), e(15);
    poison(v);
    poison(e);
    ASSERT_EQ(lappe_flags(g, POSENC_LAPLACIAN_COMBINATORIAL, 3, POSENC_LAPPE_DROP_TRIVIAL, v, e), POSENC_OK);
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(v[j], full[j + 1]);
      for (int r = 0; r < 5; ++r) EXPECT_EQ(e[r * 3 + j], fvec[r * 5 + j + 1]) << r << "," << j;
    }
  }
  // NAN_PAD, k = 7 > 5: five pairs then NaN columns (GraphGPS).
  {
    std::vector<double> v(7), e(35);
    poison(v);
    poison(e);
    ASSERT_EQ(lappe_flags(g, POSENC_LAPLACIAN_COMBINATORIAL, 7, POSENC_LAPPE_NAN_PAD, v, e), POSENC_OK);
    for (int j = 0; j < 7; ++j) {
      if (j < 5) EXPECT_EQ(v[j], full[j]);
      else EXPECT_TRUE(std::isnan(v[j]) && !is_poison(v[j]));
      for (int r = 0; r < 5; ++r) {
        if (j < 5) EXPECT_EQ(e[r * 7 + j], fvec[r * 5 + j]);
        else EXPECT_TRUE(std::isnan(e[r * 7 + j]) && !is_poison(e[r * 7 + j]));
      }
    }
  }
  // Both: k = 6, four pairs (1..4) then two NaN columns; k = num_nodes = 5 within NaN_PAD only.
  {
    std::vector<double> v(6), e(30);
    ASSERT_EQ(lappe_flags(g, POSENC_LAPLACIAN_COMBINATORIAL, 6, POSENC_LAPPE_DROP_TRIVIAL | POSENC_LAPPE_NAN_PAD, v, e),
              POSENC_OK);
    for (int j = 0; j < 6; ++j) {
      if (j < 4) EXPECT_EQ(v[j], full[j + 1]);
      else EXPECT_TRUE(std::isnan(v[j]));
    }
  }
  // Disconnected (two components): DROP_TRIVIAL drops only the first zero, as PyG does.
  {
    EdgeList h = g;
    h.n = 7;
    h.src.push_back(5);
    h.dst.push_back(6);
    std::vector<double> v(2), e(14);
    ASSERT_EQ(lappe_flags(h, POSENC_LAPLACIAN_COMBINATORIAL, 2, POSENC_LAPPE_DROP_TRIVIAL, v, e), POSENC_OK);
    EXPECT_EQ(v[0], 0.0);
    EXPECT_NEAR(v[1], 2 - 2 * std::cos(pi / 5), 1e-13);
  }
}

TEST_P(GraphPyg, LapPeFlagErrors) {
  const EdgeList g = posenc_graph_gen::grid(2, 3);
  std::vector<double> v(6), e(36);
  poison(v);
  poison(e);
  EXPECT_POSENC_ERROR(lappe_flags(g, POSENC_LAPLACIAN_SYM, 2, POSENC_GRAPH_KEEP_SELF_LOOPS, v, e),
                      POSENC_ERR_INVALID_ARGUMENT, "info->flags");
  EXPECT_POSENC_ERROR(lappe_flags(g, POSENC_LAPLACIAN_SYM, 2, 64u, v, e), POSENC_ERR_INVALID_ARGUMENT, "info->flags");
  EXPECT_POSENC_ERROR(lappe_flags(g, POSENC_LAPLACIAN_SYM, 6, POSENC_LAPPE_DROP_TRIVIAL, v, e),
                      POSENC_ERR_INVALID_ARGUMENT, "k");
  EXPECT_POSENC_ERROR(lappe_flags(g, POSENC_LAPLACIAN_SYM, 0, POSENC_LAPPE_NAN_PAD, v, e),
                      POSENC_ERR_INVALID_ARGUMENT, "k");
  EXPECT_EQ(count_poison(v), v.size());
  EXPECT_EQ(count_poison(e), e.size());
  // A posenc 0.2 caller's struct (no flags field) is accepted; its diagnostics are written.
  posenc_laplacian_pe_info info;
  posenc_laplacian_pe_info_init(&info);
  info.struct_size = POSENC_LAPPE_INFO_SIZE_V2;
  info.flags = 0xffffffffu;  // beyond the 0.2 struct: not read
  ASSERT_EQ(posenc_laplacian_pe_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), POSENC_LAPLACIAN_SYM, 2,
                                       v.data(), e.data(), &info),
            POSENC_OK);
  EXPECT_EQ(info.certificate, POSENC_LAPPE_CERT_DENSE);
}

// ------------------------------------------------------------------ MagLapPE

/// Dense Hermitian magnetic Laplacian as documented (A_s = (W + W^T)/2, Theta = 2 pi q (W - W^T)).
Eigen::MatrixXcd dense_maglap(const EdgeList& g, const std::vector<double>& w, double q, bool sym) {
  const int64_t n = g.n;
  Eigen::MatrixXd W = Eigen::MatrixXd::Zero(n, n);
  for (int64_t e = 0; e < g.m(); ++e)
    if (g.src[e] != g.dst[e]) W(g.src[e], g.dst[e]) += w.empty() ? 1.0 : w[e];
  const Eigen::MatrixXd As = 0.5 * (W + W.transpose());
  const Eigen::MatrixXd Th = 2 * 3.14159265358979323846 * q * (W - W.transpose());
  const Eigen::VectorXd d = As.rowwise().sum();
  Eigen::MatrixXcd H(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) H(i, j) = As(i, j) * std::exp(std::complex<double>(0, Th(i, j)));
  if (!sym) return Eigen::MatrixXcd(d.cast<std::complex<double>>().asDiagonal()) - H;
  Eigen::VectorXd isq(n);
  for (int64_t i = 0; i < n; ++i) isq[i] = d[i] > 0 ? 1 / std::sqrt(d[i]) : 0;
  Eigen::MatrixXcd L = Eigen::MatrixXcd::Identity(n, n) - isq.cast<std::complex<double>>().asDiagonal() * H *
                                                               isq.cast<std::complex<double>>().asDiagonal();
  return L;
}

/// A small directed graph: a random DAG-ish digraph with some reciprocal edges, weights, a
/// second component and an isolated node.
EdgeList random_digraph(int64_t n, uint64_t seed, std::vector<double>* w) {
  EdgeList g;
  g.n = n + 3;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (i != j && posenc_graph_gen::uniform01(seed) < 0.15) {
        g.src.push_back(i);
        g.dst.push_back(j);
        if (w) w->push_back(0.5 + posenc_graph_gen::uniform01(seed));
      }
  for (int64_t i = 0; i + 1 < n; ++i) {  // a directed path keeps it connected
    g.src.push_back(i);
    g.dst.push_back(i + 1);
    if (w) w->push_back(1.0);
  }
  g.src.push_back(n);  // second component: n -> n + 1
  g.dst.push_back(n + 1);
  if (w) w->push_back(2.0);
  return g;  // node n + 2 isolated
}

struct Mag {
  std::vector<double> val, re, im;
};
Mag maglap(const EdgeList& g, const std::vector<double>& w, posenc_laplacian lap, double q, int32_t k) {
  Mag m{std::vector<double>(k), std::vector<double>(g.n * k), std::vector<double>(g.n * k)};
  poison(m.val);
  poison(m.re);
  poison(m.im);
  EXPECT_EQ(posenc_maglap_pe_f64(g.n, g.src.data(), g.dst.data(), w.empty() ? nullptr : w.data(), g.m(), lap, q, k,
                                 m.val.data(), m.re.data(), m.im.data()),
            POSENC_OK)
      << posenc_last_error_message();
  return m;
}

Eigen::MatrixXcd columns(const Mag& m, int64_t n, int32_t k) {
  Eigen::MatrixXcd V(n, k);
  for (int64_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < k; ++j) V(i, j) = {m.re[i * k + j], m.im[i * k + j]};
  return V;
}

TEST_P(GraphPyg, MagLapVsRealEmbedding) {
  for (posenc_laplacian lap : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL})
    for (double q : {0.0, 0.1, 0.25, 0.4}) {
      std::vector<double> w;
      const EdgeList g = random_digraph(24, 11, &w);
      const int32_t k = 9;
      const Mag m = maglap(g, w, lap, q, k);
      ASSERT_EQ(count_poison(m.val) + count_poison(m.re) + count_poison(m.im), 0u);
      const Eigen::MatrixXcd L = dense_maglap(g, w, q, lap == POSENC_LAPLACIAN_SYM);
      // Independent reference: the real symmetric 2n x 2n embedding, every eigenvalue doubled.
      const int64_t n = g.n;
      Eigen::MatrixXd E(2 * n, 2 * n);
      E << L.real(), -L.imag(), L.imag(), L.real();
      const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(E).eigenvalues();
      for (int32_t j = 0; j < k; ++j) {
        EXPECT_NEAR(m.val[j], ev[2 * j], 1e-12) << "q " << q << " j " << j;
        EXPECT_NEAR(m.val[j], ev[2 * j + 1], 1e-12) << "q " << q << " j " << j;
      }
      const Eigen::MatrixXcd V = columns(m, n, k);
      EXPECT_LE((V.adjoint() * V - Eigen::MatrixXcd::Identity(k, k)).norm(), 1e-12);
      for (int32_t j = 0; j < k; ++j) {
        EXPECT_LE((L * V.col(j) - m.val[j] * V.col(j)).norm(), 1e-12) << "residual q " << q << " j " << j;
        // Phase rule: the first entry of largest modulus is real positive.
        Eigen::Index at = 0;
        V.col(j).cwiseAbs().maxCoeff(&at);
        double mx = V.col(j).cwiseAbs().maxCoeff();
        for (Eigen::Index i = 0; i < n; ++i)
          if (std::abs(V(i, j)) >= mx * (1 - 1e-6)) { at = i; break; }
        EXPECT_EQ(V(at, j).imag(), 0.0);
        EXPECT_GT(V(at, j).real(), 0.0);
      }
      if (q == 0.0) {  // q = 0: LapPE's L_sym / D - A of A_s (BOTH_DIRECTIONS halves the weights)
        std::vector<double> lv(k), le(n * k);
        posenc_laplacian_pe_info info;
        posenc_laplacian_pe_info_init(&info);
        info.flags = POSENC_GRAPH_BOTH_DIRECTIONS;
        ASSERT_EQ(posenc_laplacian_pe_ex_f64(n, g.src.data(), g.dst.data(), w.data(), g.m(), lap, k, lv.data(),
                                             le.data(), &info),
                  POSENC_OK);
        for (int32_t j = 0; j < k; ++j) EXPECT_NEAR(m.val[j], lv[j], 1e-12);
        for (double x : m.im) EXPECT_EQ(x, 0.0);
      }
    }
}

TEST_P(GraphPyg, MagLapDirectedCycleClosedForm) {
  // Directed cycle 0 -> 1 -> ... -> n-1 -> 0, L_sym: lambda_j = 1 - cos(2 pi (j / n + q)).
  const int64_t n = 12;
  EdgeList g;
  g.n = n;
  for (int64_t i = 0; i < n; ++i) {
    g.src.push_back(i);
    g.dst.push_back((i + 1) % n);
  }
  const double q = 0.15, pi = 3.14159265358979323846;
  std::vector<double> ref;
  for (int64_t j = 0; j < n; ++j) ref.push_back(1 - std::cos(2 * pi * (static_cast<double>(j) / n + q)));
  std::sort(ref.begin(), ref.end());
  const Mag m = maglap(g, {}, POSENC_LAPLACIAN_SYM, q, static_cast<int32_t>(n));
  for (int64_t j = 0; j < n; ++j) EXPECT_NEAR(m.val[j], ref[j], 1e-14);
  // Bitwise the same for any thread count.
  Mag m1;
  {
    ThreadScope ts(1);
    m1 = maglap(g, {}, POSENC_LAPLACIAN_SYM, q, static_cast<int32_t>(n));
  }
  EXPECT_TRUE(same_bits(m.val, m1.val) && same_bits(m.re, m1.re) && same_bits(m.im, m1.im));
  // The C++ wrapper gives the same.
  const posenc::maglap_pe_result r = posenc::maglap_pe(n, g.src, g.dst, static_cast<int32_t>(n), q);
  EXPECT_TRUE(same_bits(r.eigvals, m.val) && same_bits(r.eigvecs_re, m.re) && same_bits(r.eigvecs_im, m.im));
}

TEST_P(GraphPyg, MagLapErrors) {
  const EdgeList g = posenc_graph_gen::grid(2, 3);
  std::vector<double> v(3), re(18), im(18);
  poison(v);
  poison(re);
  poison(im);
  auto call = [&](posenc_laplacian lap, double q, int32_t k, double* a, double* b, double* c) {
    return posenc_maglap_pe_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), lap, q, k, a, b, c);
  };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (double q : {-0.1, -inf, inf, nan})
    EXPECT_POSENC_ERROR(call(POSENC_LAPLACIAN_SYM, q, 3, v.data(), re.data(), im.data()),
                        POSENC_ERR_INVALID_ARGUMENT, "q");
  EXPECT_POSENC_ERROR(call(POSENC_LAPLACIAN_SYM, 0.1, 0, v.data(), re.data(), im.data()), POSENC_ERR_INVALID_ARGUMENT,
                      "k");
  EXPECT_POSENC_ERROR(call(POSENC_LAPLACIAN_SYM, 0.1, 7, v.data(), re.data(), im.data()), POSENC_ERR_INVALID_ARGUMENT,
                      "k");
  EXPECT_POSENC_ERROR(call(static_cast<posenc_laplacian>(5), 0.1, 3, v.data(), re.data(), im.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "laplacian");
  EXPECT_POSENC_ERROR(call(POSENC_LAPLACIAN_SYM, 0.1, 3, nullptr, re.data(), im.data()), POSENC_ERR_NULL_POINTER,
                      "eigvals");
  EXPECT_POSENC_ERROR(call(POSENC_LAPLACIAN_SYM, 0.1, 3, v.data(), nullptr, im.data()), POSENC_ERR_NULL_POINTER,
                      "eigvecs_re");
  EXPECT_POSENC_ERROR(call(POSENC_LAPLACIAN_SYM, 0.1, 3, v.data(), re.data(), nullptr), POSENC_ERR_NULL_POINTER,
                      "eigvecs_im");
  const int64_t bad_src[1] = {0}, bad_dst[1] = {9};
  EXPECT_POSENC_ERROR(posenc_maglap_pe_f64(6, bad_src, bad_dst, nullptr, 1, POSENC_LAPLACIAN_SYM, 0.1, 3, v.data(),
                                           re.data(), im.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "dst[0]");
  EXPECT_EQ(count_poison(v), v.size());
  EXPECT_EQ(count_poison(re), re.size());
  EXPECT_EQ(count_poison(im), im.size());
}

TEST_P(GraphPyg, MagLapZeroWeightEdgeBetweenComponents) {
  // 0 -> 1 (weight 1), 2 -> 3 (weight 1), 1 -> 2 (weight 0: no edge) and 3 -> 0 (subnormal: halved
  // to 0 in A_s): two components {0, 1}, {2, 3}, each with L_sym eigenvalues 0 and 2.
  const int64_t s[4] = {0, 2, 1, 3}, d[4] = {1, 3, 2, 0};
  const double w[4] = {1.0, 1.0, 0.0, std::numeric_limits<double>::denorm_min()};
  std::vector<double> v(4), re(16), im(16);
  ASSERT_EQ(posenc_maglap_pe_f64(4, s, d, w, 4, POSENC_LAPLACIAN_SYM, 0.3, 4, v.data(), re.data(), im.data()),
            POSENC_OK)
      << posenc_last_error_message();
  EXPECT_NEAR(v[0], 0.0, 1e-15);
  EXPECT_NEAR(v[1], 0.0, 1e-15);
  EXPECT_NEAR(v[2], 2.0, 1e-15);
  EXPECT_NEAR(v[3], 2.0, 1e-15);
}

POSENC_INSTANTIATE_ISA(GraphPyg);

}  // namespace
