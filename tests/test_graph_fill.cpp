// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_fill.cpp — the factor-size count of lib/sparse_fill.hpp (elimination tree and
// column counts of a sparse LDL^T before its symbolic analysis), used by LapPE and MagLapPE to
// decide whether a factorization is affordable.
//
// References, independent of lib/sparse_fill.hpp: a dense boolean symbolic elimination (small
// patterns) and Eigen's own symbolic factorization (SimplicialLDLT::analyzePattern: its
// elimination tree and per-column counts), compared for exact equality; OrderedLDLT's split
// analysis must leave a factorization bitwise equal to Eigen's analyzePattern + factorize.
#include "lib/sparse_fill.hpp"

#include <gtest/gtest.h>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <complex>
#include <cstring>
#include <random>
#include <vector>

namespace {

using posenc::graph_detail::cholesky_fill;
using posenc::graph_detail::FillCount;
using posenc::graph_detail::OrderedLDLT;
using SpMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
using CSp = Eigen::SparseMatrix<std::complex<double>, Eigen::ColMajor, int>;

/// Eigen's SimplicialLDLT with its symbolic results exposed.
template <class M, class Ord>
struct EigenProbe : Eigen::SimplicialLDLT<M, Eigen::Lower, Ord> {
  std::vector<int> parent() const { return {this->m_parent.data(), this->m_parent.data() + this->m_parent.size()}; }
  std::vector<int> nnz() const {
    return {this->m_nonZerosPerCol.data(), this->m_nonZerosPerCol.data() + this->m_nonZerosPerCol.size()};
  }
};

/// Random symmetric pattern, diagonally dominant values (positive definite), lower triangle stored.
/// kind 0: uniform random entries; 1: a few hubs joined to many nodes; 2: a band plus random
/// long-range entries; 3: disjoint blocks (a forest of elimination trees).
template <class M>
M random_lower(int n, int per_col, int kind, std::mt19937_64& rng) {
  using S = typename M::Scalar;
  std::uniform_int_distribution<int> node(0, n - 1);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<Eigen::Triplet<S, int>> tr;
  auto add = [&](int i, int j) {
    if (i == j) return;
    if (i < j) std::swap(i, j);
    S v = S(val(rng));
    if constexpr (!std::is_same<S, double>::value) v = S(val(rng), val(rng));
    tr.emplace_back(i, j, v);
  };
  for (int j = 0; j < n; ++j) {
    for (int t = 0; t < per_col; ++t) {
      if (kind == 0) add(node(rng), j);
      if (kind == 1) add(node(rng) % std::max(1, n / 50), j);
      if (kind == 2) add(std::min(n - 1, j + 1 + node(rng) % 3), j), add(t == 0 ? node(rng) : j, j);
      if (kind == 3) {
        const int i = (j / 17) * 17 + node(rng) % 17;
        add(i < n ? i : j, j);
      }
    }
  }
  M A(n, n);
  A.setFromTriplets(tr.begin(), tr.end());
  // Diagonal: 1 + sum |row| (Gershgorin: positive definite).
  std::vector<double> rs(static_cast<size_t>(n), 1.0);
  for (int k = 0; k < A.outerSize(); ++k)
    for (typename M::InnerIterator it(A, k); it; ++it) {
      rs[static_cast<size_t>(it.row())] += std::abs(it.value());
      rs[static_cast<size_t>(it.col())] += std::abs(it.value());
    }
  for (int j = 0; j < n; ++j) tr.emplace_back(j, j, S(rs[static_cast<size_t>(j)]));
  A.setFromTriplets(tr.begin(), tr.end());
  return A;
}

/// Dense boolean elimination: parent and column counts (diagonal included) of the factor.
void dense_symbolic(const SpMat& A, std::vector<int>* parent, std::vector<int>* counts) {
  const int n = static_cast<int>(A.rows());
  std::vector<char> B(static_cast<size_t>(n) * n, 0);
  for (int k = 0; k < n; ++k)
    for (SpMat::InnerIterator it(A, k); it; ++it) {
      B[static_cast<size_t>(it.row()) * n + k] = 1;
      B[static_cast<size_t>(k) * n + it.row()] = 1;
    }
  parent->assign(static_cast<size_t>(n), -1);
  counts->assign(static_cast<size_t>(n), 1);
  for (int k = 0; k < n; ++k) {
    std::vector<int> below;
    for (int i = k + 1; i < n; ++i)
      if (B[static_cast<size_t>(i) * n + k]) below.push_back(i);
    (*counts)[static_cast<size_t>(k)] += static_cast<int>(below.size());
    if (!below.empty()) (*parent)[static_cast<size_t>(k)] = below.front();
    for (int i : below)
      for (int j : below) B[static_cast<size_t>(i) * n + j] = 1;
  }
}

/// cholesky_fill on the upper triangle of the symmetric matrix whose lower triangle is A.
FillCount fill_of_lower(const SpMat& A, std::vector<int>* parent, std::vector<int>* counts) {
  SpMat U = SpMat(A.transpose());
  U.makeCompressed();
  return cholesky_fill(static_cast<int>(U.rows()), U.outerIndexPtr(), U.innerIndexPtr(), parent, counts);
}

TEST(GraphFill, MatchesDenseSymbolicElimination) {
  std::mt19937_64 rng(11);
  int cases = 0;
  for (int n : {1, 2, 3, 7, 20, 45, 80})
    for (int kind = 0; kind < 4; ++kind)
      for (int per : {0, 1, 2, 4}) {
        const SpMat A = random_lower<SpMat>(n, per, kind, rng);
        std::vector<int> p, c, rp, rc;
        const FillCount fc = fill_of_lower(A, &p, &c);
        dense_symbolic(A, &rp, &rc);
        ASSERT_EQ(p, rp) << "n=" << n << " kind=" << kind << " per=" << per;
        ASSERT_EQ(c, rc) << "n=" << n << " kind=" << kind << " per=" << per;
        int64_t nnz = 0;
        double flops = 0.0;
        for (int v : rc) nnz += v - 1, flops += double(v) * v;
        EXPECT_EQ(fc.factor_nnz, nnz);
        EXPECT_EQ(fc.flops, flops);
        EXPECT_TRUE(fc.indexable);
        ++cases;
      }
  EXPECT_EQ(cases, 7 * 4 * 4);
}

TEST(GraphFill, MatchesEigenSymbolicAnalysis) {
  std::mt19937_64 rng(12);
  for (int n : {500, 3000})
    for (int kind = 0; kind < 4; ++kind)
      for (int per : {1, 3}) {
        const SpMat A = random_lower<SpMat>(n, per, kind, rng);
        // Natural ordering: tree and every column count against Eigen's.
        EigenProbe<SpMat, Eigen::NaturalOrdering<int>> nat;
        nat.analyzePattern(A);
        std::vector<int> p, c;
        fill_of_lower(A, &p, &c);
        ASSERT_EQ(p, nat.parent()) << "n=" << n << " kind=" << kind << " per=" << per;
        std::vector<int> e = nat.nnz();
        for (int& v : e) ++v;
        ASSERT_EQ(c, e) << "n=" << n << " kind=" << kind << " per=" << per;
        // AMD: the split analysis counts what Eigen's analyzePattern then builds.
        EigenProbe<SpMat, Eigen::AMDOrdering<int>> ref;
        ref.analyzePattern(A);
        OrderedLDLT<SpMat> f;
        f.order(A);
        const FillCount fc = f.fill();
        f.analyze();
        ASSERT_EQ(f.etree().size(), n);
        EXPECT_EQ(std::vector<int>(f.etree().data(), f.etree().data() + n), ref.parent());
        EXPECT_EQ(std::vector<int>(f.column_nnz().data(), f.column_nnz().data() + n), ref.nnz());
        EXPECT_EQ(fc.factor_nnz, f.factor_nnz());
        EXPECT_EQ(fc.flops, f.factor_flops());
        EXPECT_GT(fc.factor_nnz, 0);
      }
}

/// order() + analyze() + factorize() is bit for bit analyzePattern() + factorize() (same
/// permutation, same factor, same solves); real and complex.
template <class M>
void check_same_factor(int seed) {
  std::mt19937_64 rng(static_cast<uint64_t>(seed));
  for (int kind = 0; kind < 4; ++kind) {
    const M A = random_lower<M>(2000, 2, kind, rng);
    Eigen::SimplicialLDLT<M, Eigen::Lower, Eigen::AMDOrdering<int>> ref;
    ref.analyzePattern(A);
    ref.factorize(A);
    OrderedLDLT<M> f;
    f.order(A);
    f.analyze();
    f.factorize(A);
    ASSERT_EQ(ref.info(), Eigen::Success);
    ASSERT_EQ(f.info(), Eigen::Success);
    ASSERT_EQ(ref.permutationP().indices(), f.permutationP().indices());
    const auto d0 = ref.vectorD(), d1 = f.vectorD();
    ASSERT_EQ(d0.size(), d1.size());
    EXPECT_EQ(0, std::memcmp(d0.data(), d1.data(), sizeof(d0[0]) * static_cast<size_t>(d0.size())));
    Eigen::Matrix<typename M::Scalar, Eigen::Dynamic, 1> b(A.rows());
    for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = typename M::Scalar(std::sin(0.37 * double(i)));
    const auto x0 = (ref.solve(b)).eval(), x1 = (f.solve(b)).eval();
    EXPECT_EQ(0, std::memcmp(x0.data(), x1.data(), sizeof(x0[0]) * static_cast<size_t>(x0.size())));
  }
}

TEST(GraphFill, SplitAnalysisGivesTheSameFactorReal) { check_same_factor<SpMat>(13); }
TEST(GraphFill, SplitAnalysisGivesTheSameFactorComplex) { check_same_factor<CSp>(14); }

/// order_pattern (AMD on a one-byte copy of the full symmetric pattern) gives analyzePattern's
/// AMD permutation and the same factor count: the pattern is built here from the lower triangle
/// as a symmetric CSR with sorted rows and the diagonal, as LapPE's Laplacian is stored.
TEST(GraphFill, OrderFromPatternGivesEigensPermutation) {
  std::mt19937_64 rng(15);
  for (int n : {1, 2, 40, 2000})
    for (int kind = 0; kind < 4; ++kind)
      for (int per : {0, 1, 3}) {
        const SpMat A = random_lower<SpMat>(n, per, kind, rng);
        SpMat F = A.selfadjointView<Eigen::Lower>();
        SpMat full = SpMat(SpMat(F.transpose()).transpose());  // rows sorted in every column
        full.makeCompressed();
        Eigen::SimplicialLDLT<SpMat, Eigen::Lower, Eigen::AMDOrdering<int>> ref;
        ref.analyzePattern(A);
        OrderedLDLT<SpMat> f, g;
        f.order_pattern(A, full.outerIndexPtr(), full.innerIndexPtr());
        g.order(A);
        const FillCount ff = f.fill(), fg = g.fill();
        f.analyze();
        ASSERT_EQ(ref.permutationP().indices(), f.permutationP().indices()) << "n=" << n << " kind=" << kind << " per=" << per;
        EXPECT_EQ(ff.factor_nnz, fg.factor_nnz);
        EXPECT_EQ(ff.flops, fg.flops);
      }
}

/// lower_from_symmetric_csr is setFromTriplets on the lower triangle (values minus sigma on the
/// diagonal) bit for bit, with the diagonal positions.
TEST(GraphFill, LowerFromSymmetricCsr) {
  using posenc::graph_detail::lower_from_symmetric_csr;
  std::mt19937_64 rng(16);
  for (int n : {1, 3, 40, 500})
    for (int kind = 0; kind < 4; ++kind) {
      const SpMat A = random_lower<SpMat>(n, 2, kind, rng);
      const SpMat F = A.selfadjointView<Eigen::Lower>();
      const Eigen::SparseMatrix<double, Eigen::RowMajor, int> R(F);  // symmetric CSR, sorted rows
      std::vector<int64_t> ptr(R.outerIndexPtr(), R.outerIndexPtr() + n + 1);
      const double sigma = -0.25;
      std::vector<int> diag;
      const SpMat M = lower_from_symmetric_csr<SpMat>(n, ptr.data(), R.innerIndexPtr(), R.valuePtr(), sigma, &diag);
      std::vector<Eigen::Triplet<double, int>> tr;
      for (int k = 0; k < A.outerSize(); ++k)
        for (SpMat::InnerIterator it(A, k); it; ++it)
          tr.emplace_back(int(it.row()), int(it.col()), it.value() - (it.row() == it.col() ? sigma : 0.0));
      SpMat ref(n, n);
      ref.setFromTriplets(tr.begin(), tr.end());
      ASSERT_EQ(M.nonZeros(), ref.nonZeros());
      for (int j = 0; j <= n; ++j) ASSERT_EQ(M.outerIndexPtr()[j], ref.outerIndexPtr()[j]);
      for (Eigen::Index p = 0; p < M.nonZeros(); ++p) {
        ASSERT_EQ(M.innerIndexPtr()[p], ref.innerIndexPtr()[p]);
        ASSERT_EQ(0, std::memcmp(&M.valuePtr()[p], &ref.valuePtr()[p], sizeof(double)));
      }
      for (int j = 0; j < n; ++j) {
        ASSERT_GE(diag[static_cast<size_t>(j)], 0);
        EXPECT_EQ(M.innerIndexPtr()[diag[static_cast<size_t>(j)]], j);
      }
    }
}

TEST(GraphFill, EmptyAndDiagonal) {
  EXPECT_EQ(cholesky_fill(0, nullptr, nullptr).factor_nnz, 0);
  const int ptr[4] = {0, 1, 2, 3}, idx[3] = {0, 1, 2};  // diagonal only
  std::vector<int> p, c;
  const FillCount fc = cholesky_fill(3, ptr, idx, &p, &c);
  EXPECT_EQ(fc.factor_nnz, 0);
  EXPECT_EQ(fc.flops, 3.0);
  EXPECT_EQ(p, std::vector<int>({-1, -1, -1}));
  EXPECT_EQ(c, std::vector<int>({1, 1, 1}));
  // Arrow matrix with the hub first: the factor is full.
  const int aptr[5] = {0, 1, 3, 5, 7}, aidx[7] = {0, 0, 1, 0, 2, 0, 3};
  const FillCount full = cholesky_fill(4, aptr, aidx, &p, &c);
  EXPECT_EQ(full.factor_nnz, 6);
  EXPECT_EQ(full.flops, 16.0 + 9.0 + 4.0 + 1.0);
  EXPECT_EQ(p, std::vector<int>({1, 2, 3, -1}));
}

}  // namespace
