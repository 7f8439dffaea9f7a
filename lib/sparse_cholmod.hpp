// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/sparse_cholmod.hpp — supernodal sparse Cholesky factorization of a symmetric positive
// definite matrix through CHOLMOD (SuiteSparse; Debian libsuitesparse-dev), for LapPE's
// shift-invert solves (lib/graph_lappe_solve.cpp).
//
// Determinism: the ordering is AMD only (CHOLMOD's nmethods = 1, no METIS trial), so the
// permutation and the supernodes depend on the pattern alone. The supernodal numeric factorization
// and the solves call the system BLAS/LAPACK (dsyrk, dgemm, dpotrf, dtrsm, dtrsv, dgemv); when that
// BLAS is OpenBLAS, its thread count is pinned to 1 for the duration of every factorization and
// solve (and restored afterwards: the count is process-wide, shared with NumPy and others), so
// the bits do not depend on OpenBLAS's thread count nor on posenc's. CHOLMOD's own OpenMP loops
// (assembly of supernode updates) write each entry from one thread.
#pragma once

#include <cstdint>
#include <memory>

namespace posenc {
namespace graph_detail {

/// L L^T = P A P^T of a symmetric positive definite n x n matrix A (lower triangle in compressed
/// columns, 32-bit indices, sorted, no duplicates), supernodal, AMD ordering.
/// CHOLMOD's allocation failures are thrown as std::bad_alloc.
class SupernodalCholesky {
 public:
  SupernodalCholesky();
  ~SupernodalCholesky();
  SupernodalCholesky(const SupernodalCholesky&) = delete;
  SupernodalCholesky& operator=(const SupernodalCholesky&) = delete;

  /// Symbolic analysis (AMD ordering, supernodes) of the lower-triangular pattern; the matrix
  /// arrays are referenced until factorize() returns. false if CHOLMOD rejects the problem
  /// (too large for its 32-bit indices).
  bool analyze(int n, const int* colptr, const int* rowidx, const double* val);
  /// Nonzeros of the factor L (diagonal included, CHOLMOD's count) and flops of the numeric
  /// factorization, from the analysis.
  double factor_nnz() const;
  double factor_flops() const;
  /// Numeric factorization of the analysed matrix; false when it is not positive definite.
  bool factorize();
  /// y = A^{-1} x (x and y of length n; they may alias).
  void solve(const double* x, double* y) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> p_;
};

}  // namespace graph_detail
}  // namespace posenc
