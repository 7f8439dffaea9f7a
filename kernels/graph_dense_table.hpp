// SPDX-License-Identifier: Apache-2.0 OR MIT
// kernels/graph_dense_table.hpp — the graph family's kernel table: the flop loops of the small dense
// eigensolver of LapPE (lib/graph_small_dense.cpp; connected components of up to kSmallDenseMax
// nodes), one table per ISA (posenc::isa_<name>::graph_dense_kernels()), filled in
// kernels/graph_dense.cpp. Plain C++, no SIMD: lib/ includes it.
//
// Every kernel vectorizes only element-wise arithmetic (a row of the Householder update, the nev
// right-hand sides / columns of the [n][ldk] blocks) and keeps every sum in the order of the
// one-lane loop, with no fused multiply-add: each ISA path returns the same bits as the scalar
// path, whatever its vector width.
//
// Layout: the n x n matrices A and V are row-major with row stride ld >= n + kDensePad; the
// [n][nev] blocks (Z, the LU factors, R) have row stride ldk >= nev rounded up to kDensePad. The
// padding lets a kernel run full vectors past the last column; it must hold zeros (A, V) or finite
// values (the blocks), and the kernels leave the padding's lanes out of every result.
#pragma once

#include <cstdint>

namespace posenc {

/// Padding of the rows (in doubles) the graph dense kernels may read and write past the last
/// column: the widest vector of any ISA path.
constexpr int64_t kDensePad = 8;

struct graph_dense_kernels_t {
  /// Householder reduction of the symmetric n x n matrix A (row stride ld, overwritten) to
  /// tridiagonal form T = Q^T A Q (LAPACK dsytd2, lower): d [n], e [n-1], the reflectors
  /// H_j = I - tau_j v_j v_j^T in V (row j holds v_j on entries j+1..n-1, v_j[j+1] = 1) and
  /// tau [n-1]. p, w: scratch [ld]. The padding columns of A and V hold zeros on entry and on exit.
  void (*householder)(int64_t n, int64_t ld, double* A, double* V, double* tau, double* d, double* e, double* p,
                      double* w);

  /// LU factorizations with partial pivoting of T - lambda[j] I, j < ldk (T = (d, e) tridiagonal
  /// of order n; lambda [ldk], the lanes past nev any finite values), for inverse iteration; a
  /// zero pivot is replaced by tiny. Entry (i, j) of the factors at i * ldk + j: u0 (the diagonal
  /// of U as reciprocals), u1, u2 (its two superdiagonals), mult (the multipliers), piv (1 where
  /// rows i and i + 1 were swapped, else 0). cd, cs: scratch [ldk].
  void (*tridiag_factor)(int64_t n, const double* d, const double* e, const double* lambda, int64_t ldk,
                         double tiny, double* u0, double* u1, double* u2, double* mult, double* piv, double* cd,
                         double* cs);

  /// Solves (T - lambda_j I) x_j = y_j in place for every column j of Z [n][ldk] with the
  /// factorizations of tridiag_factor.
  void (*tridiag_solve)(int64_t n, int64_t ldk, const double* u0, const double* u1, const double* u2,
                        const double* mult, const double* piv, double* Z);

  /// Classical Gram-Schmidt of the columns 0..nev-1 of Z [n][ldk] in order, each against the
  /// columns before it, `passes` times, then normalized; returns 0 if a column vanishes or is not
  /// finite, else 1. dots [ldk], Zt [nev][n rounded up to kDensePad]: scratch.
  int (*orthonormalize)(int64_t n, int64_t nev, int64_t ldk, int passes, double* Z, double* dots, double* Zt);

  /// Back-transform x = H_0 H_1 ... H_{n-2} y of every column of Z [n][ldk] (the reflectors of
  /// householder: V with row stride ld, tau).
  void (*back_transform)(int64_t n, int64_t ld, int64_t ldk, const double* V, const double* tau, double* Z);

  /// Rayleigh quotients and residuals of the columns of Z [n][ldk] for the CSR matrix L (ptr
  /// [n + 1], idx, val): R = L Z (sums in CSR order), lam[c] = sum_i Z[i][c] R[i][c] (i
  /// ascending), R -= Z diag(lam), res2[c] = sum_i R[i][c]^2 (four partial sums over i mod 4,
  /// combined as (a0 + a1) + (a2 + a3)). R [n][ldk]; lam, res2 [ldk].
  void (*rayleigh)(int64_t n, int64_t ldk, const int64_t* ptr, const int32_t* idx, const double* val,
                   const double* Z, double* R, double* lam, double* res2);

  /// Exact RWSE of a whole small graph, every source at once (lib/graph_rwse.cpp, rwse_dense):
  /// source v is lane v of rows of ldw = n rounded up to 8 lanes (n <= 64: ldw <= 64; a larger
  /// ldw writes nothing). buf [3 n ldw] holds r_0 = D^-1
  /// (row v: invdeg[v] in lane v where deg[v] > 0, zeros elsewhere) in its second slab on entry;
  /// the first and third are written before they are read (scratch afterwards). For s = 1 .. ceil(steps / 2): row w of r_s sums
  /// its CSR row (ptr [n + 1], idx, val; in CSR order) of r_{s-1} / d, then the meet-in-the-middle
  /// sums over u ascending give out[v][2s - 2] = d_v sum_u r_s[u] r_{s-1}[u] / d_u and
  /// out[v][2s - 1] = d_v sum_u r_s[u] r_s[u] / d_u (where 2s <= steps) for every v with
  /// deg[v] > 0; out [n][steps], other entries untouched.
  void (*rwse_dense)(int64_t n, int64_t ldw, int32_t steps, const int64_t* ptr, const int32_t* idx,
                     const double* val, const double* invdeg, const double* deg, double* buf, double* out);
};

}  // namespace posenc
