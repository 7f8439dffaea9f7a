// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/sparse_fill.hpp — graph family: the size and cost of a sparse LDL^T / LDL^H factor, known
// before the factorization is analysed, so that LapPE (lib/graph_lappe_solve.cpp) and MagLapPE's
// sparse route (lib/graph_maglap_sparse.cpp) can decide whether it is affordable without paying
// for Eigen's symbolic factorization, whose time and memory grow with the fill.
//
// cholesky_fill: the elimination tree (Liu's algorithm, ancestors compressed on the way up) and
// the column counts of the factor by the Gilbert-Ng-Peyton method (row subtrees represented by
// their leaves: +1 at every leaf of a row subtree, -1 at the least common ancestor of two leaves
// consecutive in postorder, -1 at the parent of the row's own node; the count of a column is the
// sum over its subtree of the elimination tree). Both run in O(nnz(A) log n) time at worst (path compression
// without union by rank; near-linear in practice) and O(n) extra memory, independent of the fill; the symbolic factorization costs O(nnz(L)).
// References: J. W. H. Liu, "The role of elimination trees in sparse factorization", SIAM J.
// Matrix Anal. Appl. 11 (1990); J. R. Gilbert, E. G. Ng, B. W. Peyton, "An efficient algorithm to
// compute row and column counts for sparse Cholesky factorization", SIAM J. Matrix Anal. Appl. 15
// (1994); T. A. Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, chapter 4.
//
// OrderedLDLT: Eigen's SimplicialLDLT (AMD ordering) with its analysis split in two steps: order()
// computes the AMD permutation and the permuted matrix exactly as analyzePattern() does, fill()
// counts the factor from them, analyze() runs Eigen's symbolic factorization on the same permuted
// matrix (no second ordering). order() + analyze() leaves the object in the state analyzePattern()
// would: factorize() and solve() give the same bits.
#pragma once

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace posenc {
namespace graph_detail {

/// Size and cost of the factor L of an n x n symmetric matrix (L D L^T or L L^T, no pivoting).
struct FillCount {
  int64_t factor_nnz = 0;  ///< strictly-lower nonzeros of L (Eigen SimplicialLDLT's count)
  double flops = 0.0;      ///< sum over columns of (nonzeros of the column, diagonal included)^2
  /// Eigen's 32-bit column pointers can hold the factor (factor_nnz + n < 2^31).
  bool indexable = true;
};

/// Elimination tree and column counts of the factor of the symmetric matrix whose upper triangle
/// is given in compressed-column form: column k lists row indices ptr[k] .. ptr[k+1]-1 of idx
/// (0 <= idx < n, any order, no duplicates; entries with row >= k are ignored, so a full
/// symmetric pattern may be passed too). parent (size n, optional): parent[j] of the elimination
/// tree or -1 for a root. counts (size n, optional): nonzeros of column j of L, diagonal included.
/// Returns factor_nnz = sum(counts) - n and flops = sum(counts^2), summed in column order.
inline FillCount cholesky_fill(int n, const int* ptr, const int* idx, std::vector<int>* parent_out = nullptr,
                               std::vector<int>* counts_out = nullptr) {
  FillCount fc;
  if (n <= 0) return fc;
  const size_t N = static_cast<size_t>(n);
  // Elimination tree (Liu): row k of L reaches, from every i < k with A(i, k) != 0, the path up
  // the tree built so far; the root of i's current subtree becomes a child of k. anc[] short-cuts
  // every visited path to k.
  std::vector<int> parent(N, -1), anc(N, -1);
  for (int k = 0; k < n; ++k) {
    for (int p = ptr[k]; p < ptr[k + 1]; ++p) {
      int i = idx[p];
      while (i != -1 && i < k) {
        const int up = anc[static_cast<size_t>(i)];
        anc[static_cast<size_t>(i)] = k;
        if (up == -1) parent[static_cast<size_t>(i)] = k;
        i = up;
      }
    }
  }
  // Lower pattern by columns (row j of the upper triangle): lo[lp[j] .. lp[j+1]) = {i > j : A(i, j) != 0}.
  std::vector<int> lp(N + 1, 0);
  for (int k = 0; k < n; ++k)
    for (int p = ptr[k]; p < ptr[k + 1]; ++p)
      if (idx[p] < k) ++lp[static_cast<size_t>(idx[p]) + 1];
  for (size_t j = 0; j < N; ++j) lp[j + 1] += lp[j];
  std::vector<int> lo(static_cast<size_t>(lp[N])), fillpos(lp.begin(), lp.end() - 1);
  for (int k = 0; k < n; ++k)
    for (int p = ptr[k]; p < ptr[k + 1]; ++p)
      if (idx[p] < k) lo[static_cast<size_t>(fillpos[static_cast<size_t>(idx[p])]++)] = k;
  std::vector<int>().swap(fillpos);
  // Postorder of the forest (children in increasing order), by an explicit stack.
  std::vector<int> child(N, -1), sibling(N, -1), post;
  post.reserve(N);
  for (int j = n - 1; j >= 0; --j) {
    const int pj = parent[static_cast<size_t>(j)];
    if (pj != -1) {
      sibling[static_cast<size_t>(j)] = child[static_cast<size_t>(pj)];
      child[static_cast<size_t>(pj)] = j;
    }
  }
  std::vector<int> delta(N, 0);  // per-node weights; subtree sums give the column counts
  for (size_t j = 0; j < N; ++j) delta[j] = child[j] == -1 ? 1 : 0;  // a leaf's row subtree is itself
  {
    std::vector<int> stack;
    std::vector<int> next_child(child);
    for (int r = 0; r < n; ++r) {
      if (parent[static_cast<size_t>(r)] != -1) continue;
      stack.push_back(r);
      while (!stack.empty()) {
        const int top = stack.back();
        const int c = next_child[static_cast<size_t>(top)];
        if (c == -1) {
          post.push_back(top);
          stack.pop_back();
        } else {
          next_child[static_cast<size_t>(top)] = sibling[static_cast<size_t>(c)];
          stack.push_back(c);
        }
      }
    }
  }
  std::vector<int>().swap(child);
  std::vector<int>().swap(sibling);
  // first[j]: postorder position of the first node of j's subtree (its subtree is the postorder
  // range first[j] .. position of j).
  std::vector<int> first(N, -1);
  for (int k = 0; k < n; ++k)
    for (int j = post[static_cast<size_t>(k)]; j != -1 && first[static_cast<size_t>(j)] == -1;
         j = parent[static_cast<size_t>(j)])
      first[static_cast<size_t>(j)] = k;
  // Sweep the nodes in postorder. For row i, last_first[i] is the largest first[] of its entries
  // seen so far and last_leaf[i] the previous leaf of its row subtree; j (A(i, j) != 0, j < i) is
  // a leaf of row i's subtree iff no earlier entry of row i lies in j's subtree. The least common
  // ancestor of the previous leaf and j is found in a union-find whose sets are merged into their
  // parent once a node is done (set[] with path compression).
  std::vector<int> last_first(N, -1), last_leaf(N, -1), set(N);
  for (size_t j = 0; j < N; ++j) set[j] = static_cast<int>(j);
  for (int k = 0; k < n; ++k) {
    const int j = post[static_cast<size_t>(k)];
    const int pj = parent[static_cast<size_t>(j)];
    if (pj != -1) --delta[static_cast<size_t>(pj)];  // row j's subtree ends at j: cancel above it
    const int fj = first[static_cast<size_t>(j)];
    for (int p = lp[static_cast<size_t>(j)]; p < lp[static_cast<size_t>(j) + 1]; ++p) {
      const size_t i = static_cast<size_t>(lo[static_cast<size_t>(p)]);
      if (fj <= last_first[i]) continue;  // an earlier entry of row i lies below j: not a leaf
      last_first[i] = fj;
      ++delta[static_cast<size_t>(j)];
      const int prev = last_leaf[i];
      last_leaf[i] = j;
      if (prev == -1) continue;
      int q = prev;  // find the set root of prev: the LCA of prev and j
      while (set[static_cast<size_t>(q)] != q) q = set[static_cast<size_t>(q)];
      for (int s = prev; s != q;) {
        const int up = set[static_cast<size_t>(s)];
        set[static_cast<size_t>(s)] = q;
        s = up;
      }
      --delta[static_cast<size_t>(q)];  // the path from q up is already counted for row i
    }
    if (pj != -1) set[static_cast<size_t>(j)] = pj;
  }
  // Subtree sums (parent[j] > j: one pass in column order), then the totals in column order.
  for (size_t j = 0; j < N; ++j)
    if (parent[j] != -1) delta[static_cast<size_t>(parent[j])] += delta[j];
  for (size_t j = 0; j < N; ++j) {
    const double c = static_cast<double>(delta[j]);
    fc.factor_nnz += delta[j] - 1;
    fc.flops += c * c;
  }
  fc.indexable = fc.factor_nnz + n < static_cast<int64_t>(std::numeric_limits<int>::max());
  if (parent_out != nullptr) *parent_out = std::move(parent);
  if (counts_out != nullptr) *counts_out = std::move(delta);
  return fc;
}

/// The lower triangle of A - sigma I in compressed columns, for a symmetric A stored as CSR
/// (ptr, idx, val; rows sorted; A(i, j) and A(j, i) the same bits, as LapPE's Laplacian): column j
/// holds row j's entries of column index >= j, in order, so no triplet list or sort is needed; the
/// same matrix, bit for bit, as setFromTriplets on the lower triangle of A's rows. diag (optional):
/// position of each diagonal entry in the value array (-1 where none is stored).
template <class SpMatT>
SpMatT lower_from_symmetric_csr(int n, const int64_t* ptr, const int32_t* idx, const double* val, double sigma,
                                std::vector<int>* diag = nullptr) {
  int nnz = 0;
  for (int j = 0; j < n; ++j)
    for (int64_t p = ptr[j]; p < ptr[j + 1]; ++p) nnz += idx[p] >= j;
  SpMatT M(n, n);
  M.resizeNonZeros(nnz);
  if (diag != nullptr) diag->assign(static_cast<size_t>(n), -1);
  int q = 0;
  M.outerIndexPtr()[0] = 0;
  for (int j = 0; j < n; ++j) {
    for (int64_t p = ptr[j]; p < ptr[j + 1]; ++p) {
      const int c = idx[p];
      if (c < j) continue;
      if (c == j && diag != nullptr) (*diag)[static_cast<size_t>(j)] = q;
      M.innerIndexPtr()[q] = c;
      M.valuePtr()[q] = val[p] - (c == j ? sigma : 0.0);
      ++q;
    }
    M.outerIndexPtr()[j + 1] = q;
  }
  return M;
}

/// Eigen::SimplicialLDLT (lower triangle read, AMD ordering) whose analysis runs in two steps with
/// the fill counted in between: order(a), fill(), then analyze() only when the factor is wanted.
/// order(a) + analyze() is analyzePattern(a) (same permutation, same symbolic factor).
template <class SpMatT>
class OrderedLDLT : public Eigen::SimplicialLDLT<SpMatT, Eigen::Lower, Eigen::AMDOrdering<int>> {
  using Base = Eigen::SimplicialLDLT<SpMatT, Eigen::Lower, Eigen::AMDOrdering<int>>;
  SpMatT ap_;  // P A P^T, upper triangle: what Eigen's symbolic factorization reads

  /// m_P from the ordering in m_Pinv, and ap_ = the permuted matrix (upper triangle of P a P^T).
  void permute(const SpMatT& a) {
    if (this->m_Pinv.size() > 0)
      this->m_P = this->m_Pinv.inverse();
    else
      this->m_P.resize(0);
    ap_.resize(a.rows(), a.cols());
    ap_.template selfadjointView<Eigen::Upper>() = a.template selfadjointView<Eigen::Lower>().twistedBy(this->m_P);
    ap_.makeCompressed();
  }

 public:
  /// AMD permutation of a (lower triangle stored; Eigen's AMDOrdering on the full symmetric
  /// pattern) and the permuted matrix, computed as SimplicialLDLT::analyzePattern does.
  void order(const SpMatT& a) {
    {
      SpMatT C;
      C = a.template selfadjointView<Eigen::Lower>();
      Eigen::AMDOrdering<int> amd;
      amd(C, this->m_Pinv);
    }
    permute(a);
  }
  /// order(a) with the AMD permutation computed from the full symmetric pattern of a given
  /// directly: column j of that pattern lists rows idx[ptr[j]] .. idx[ptr[j+1]-1], ascending,
  /// diagonal included (a symmetric CSR such as LapPE's Laplacian, whose lower triangle is a's).
  /// Same permutation as order(a), whose AMDOrdering builds that pattern as A^T + A of the full
  /// matrix (sorted rows) before minimum_degree_ordering; here the ordering runs on a one-byte
  /// pattern copy instead (about 5 bytes per entry with AMD's elbow room, against the three
  /// double-valued copies of order(a): on a 10^5-node Barabasi-Albert graph 30 MB less).
  template <class PtrT, class IdxT>
  void order_pattern(const SpMatT& a, const PtrT* ptr, const IdxT* idx) {
    {
      const int n = static_cast<int>(a.rows());
      Eigen::SparseMatrix<signed char, Eigen::ColMajor, int> C(n, n);
      const int nnz = static_cast<int>(ptr[n]);
      C.resizeNonZeros(nnz);
      for (int j = 0; j <= n; ++j) C.outerIndexPtr()[j] = static_cast<int>(ptr[j]);
      for (int p = 0; p < nnz; ++p) {
        C.innerIndexPtr()[p] = static_cast<int>(idx[p]);
        C.valuePtr()[p] = 1;
      }
      Eigen::internal::minimum_degree_ordering(C, this->m_Pinv);
    }
    permute(a);
  }
  /// Factor size and cost under the ordering of order() (cholesky_fill on the permuted matrix).
  FillCount fill() const {
    return cholesky_fill(static_cast<int>(ap_.rows()), ap_.outerIndexPtr(), ap_.innerIndexPtr());
  }
  /// Eigen's symbolic factorization with the ordering of order(); frees the permuted matrix.
  /// Call only when fill().indexable (Eigen's column pointers are 32-bit).
  void analyze() {
    this->analyzePattern_preordered(ap_, true);
    ap_ = SpMatT();
  }
  /// Frees what order() keeps (the permuted matrix and the permutation) when no analysis follows;
  /// order() must run again before any other use.
  void release() {
    ap_ = SpMatT();
    this->m_P.resize(0);
    this->m_Pinv.resize(0);
  }
  /// Strictly-lower nonzeros of the analysed factor (Eigen's counts).
  int64_t factor_nnz() const {
    int64_t s = 0;
    for (Eigen::Index i = 0; i < this->m_nonZerosPerCol.size(); ++i) s += this->m_nonZerosPerCol[i];
    return s;
  }
  /// Floating-point operations of the numeric factorization: sum over columns of (column count)^2.
  double factor_flops() const {
    double s = 0.0;
    for (Eigen::Index i = 0; i < this->m_nonZerosPerCol.size(); ++i) {
      const double c = static_cast<double>(this->m_nonZerosPerCol[i]) + 1.0;
      s += c * c;
    }
    return s;
  }
  /// Eigen's elimination tree and strictly-lower column counts of the analysed factor (tests).
  const Eigen::Matrix<int, Eigen::Dynamic, 1>& etree() const { return this->m_parent; }
  const Eigen::Matrix<int, Eigen::Dynamic, 1>& column_nnz() const { return this->m_nonZerosPerCol; }
};

}  // namespace graph_detail
}  // namespace posenc
