// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_batch.cpp — graph family: LapPE and RWSE of many graphs in one call (PyG's Batch
// layout: concatenated edge lists with node and edge offsets), parallel over graphs, and the
// small dense eigensolver that LapPE uses for components of up to kSmallDenseMax nodes.
//
// Small dense path (small_dense_pairs; the molecules of ZINC / PCQM4Mv2: 10-50 nodes): Householder
// tridiagonalization, all eigenvalues of the tridiagonal by root-free implicit QL (Pal-Walker-Kahan), the k smallest
// eigenvectors by inverse iteration (2 solves, all k right-hand sides in lockstep so that their
// dependent chains overlap) with full re-orthogonalization, and the Householder back-transform: about a third of the work of Eigen's SelfAdjointEigenSolver, which computes all n
// eigenvectors, and no allocation but its scratch. Every returned pair is checked (residual); a
// component that fails the check takes Eigen's solver (lib/graph_lappe_solve.cpp, component_pairs).
//
// Batch: every graph is graph g's posenc_laplacian_pe_ex_f64 call (the same internal function,
// so bitwise the same result) and its posenc_rwse_ex_f64 result (rwse_graph: the same dense
// all-sources propagation for graphs of <= kDenseRwseMax nodes, the same block propagation over
// flat scratch above: bitwise the same). Each graph is computed by one thread from
// its own data only, in fixed tiles of graphs: the result is bitwise identical for any thread count.
#include "lib/graph_lappe.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <limits>
#include <numeric>

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

constexpr double kSmallResidual = 1e-12;  // accepted residual ||L v - lambda v|| / c on that path
constexpr int64_t kGraphsPerTile = 16;
constexpr int kGraphsPerGroup = kQlLanes;  // graphs whose LapPE QL sweeps run interleaved (a tile's groups)

/// One tridiagonal of the interleaved root-free QL (ql_values): its arrays and the state of its
/// current sweep.
struct QlLane {
  SmallDense* s;
  double* d;
  double* e;
  int64_t n, l, m, i;
  int iter;
  double sigma, c, sn, gamma, p;
};

/// Lane q's next QL sweep: the deflation test from row l on (rows that split off are final), then
/// the Wilkinson shift and the sweep's start state. false when every eigenvalue has converged or
/// one took more than 60 sweeps (then q.s->ok = false).
bool ql_next_sweep(QlLane& q) {
  const double eps = std::numeric_limits<double>::epsilon(), eps2 = eps * eps;
  double* d = q.d;
  double* e = q.e;
  const int64_t n = q.n;
  while (q.l < n) {
    const int64_t l = q.l;
    int64_t m = l;
    for (; m < n - 1; ++m) {
      const double dd = std::abs(d[m]) + std::abs(d[m + 1]);
      if (!(e[m] > eps2 * dd * dd)) break;  // |e_m| <= eps (|d_m| + |d_m+1|) (EISPACK tql1's test)
    }
    if (m < n - 1) e[m] = 0.0;
    if (m == l) {
      ++q.l;
      q.iter = 0;
      continue;
    }
    if (q.iter++ == 60) {
      q.s->ok = false;
      return false;
    }
    // Wilkinson shift from the leading 2 x 2 block.
    const double p0 = d[l], rte = std::sqrt(e[l]);
    double sigma = (d[l + 1] - p0) / (2.0 * rte);
    // hypot(sigma, 1) without the library call where sigma^2 cannot overflow (the shift only
    // steers convergence; the eigenvalues' accuracy does not depend on its last bits).
    const double r0 = std::abs(sigma) < 1e150 ? std::sqrt(sigma * sigma + 1.0) : std::abs(sigma);
    sigma = p0 - rte / (sigma + std::copysign(r0, sigma));
    q.sigma = sigma;
    q.m = m;
    q.i = m - 1;
    q.c = 1.0;
    q.sn = 0.0;
    q.gamma = d[m] - sigma;
    q.p = q.gamma * q.gamma;
    return true;
  }
  return false;
}

/// All eigenvalues of the symmetric tridiagonals (d, e) = (s[j]->vals, s[j]->work) of the
/// problems with s[j]->ok, by the root-free implicit QL method of Pal, Walker and Kahan (LAPACK
/// dsterf's QL branch): the sweep carries the squared off-diagonals, so a rotation costs two
/// divisions and no square root. e[i] couples d[i] and d[i+1]; vals receives the eigenvalues in
/// ascending order, work is overwritten; ok = false if an eigenvalue took more than 60 sweeps or a
/// value is not finite.
///
/// A sweep is one dependent chain (one division and a few multiply-adds per rotation, ~25 cycles);
/// kQlLanes problems are advanced in the same loop, one rotation of each per pass, so that their
/// independent chains overlap; a lane that finishes takes the next problem. Each problem's
/// arithmetic is that of the problem alone, in the same order: the values are bitwise those of a
/// call with count = 1, whatever the other problems are.
void ql_values(SmallDense* const* s, int64_t count) {
  QlLane lane[kQlLanes];
  int active = 0;
  int64_t next = 0;
  auto done = [](SmallDense* p) {
    if (p->ok) std::sort(p->vals, p->vals + p->n);
  };
  auto start = [&](QlLane& q) -> bool {  // the next problem into lane q; false if none is left
    while (next < count) {
      SmallDense* p = s[next++];
      if (!p->ok) continue;
      const int64_t n = p->n;
      double* e = p->work;
      for (int64_t i = 0; i + 1 < n; ++i) e[i] = e[i] * e[i];
      if (n > 0) e[n - 1] = 0.0;
      q = QlLane{p, p->vals, e, n, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0};
      if (ql_next_sweep(q)) return true;
      done(p);
    }
    return false;
  };
  while (active < kQlLanes && start(lane[active])) ++active;
  while (active > 0) {
    for (int a = 0; a < active; ++a) {
      QlLane& q = lane[a];
      double* __restrict d = q.d;
      double* __restrict e = q.e;
      if (q.i >= q.l) {
        // One rotation. With ir = 1 / r: c = p ir, sn = bb ir, gamma = (p (alpha - sigma) - bb
        // gamma_old) ir and p_new = gamma^2 / c = gamma^2 (r / p), r / p computed alongside 1 / r:
        // the loop-carried chain p -> r -> 1 / r -> gamma -> gamma^2 -> p_new holds one division
        // (the textbook order, c = p / r then gamma^2 / c, holds two).
        const int64_t i = q.i;
        const double p = q.p, bb = e[i], r = p + bb;
        if (i != q.m - 1) e[i + 1] = q.sn * r;
        const double oldc = q.c, ir = 1.0 / r, rp = r / p;
        const double c = p * ir;
        q.c = c;
        q.sn = bb * ir;
        const double oldgam = q.gamma, alpha = d[i];
        const double gamma = (p * (alpha - q.sigma) - bb * oldgam) * ir;
        q.gamma = gamma;
        d[i + 1] = oldgam + (alpha - gamma);
        q.p = c != 0.0 ? (gamma * gamma) * rp : oldc * bb;
        q.i = i - 1;
        continue;
      }
      // End of the sweep.
      const int64_t l = q.l;
      e[l] = q.sn * q.p;
      d[l] = q.sigma + q.gamma;
      if (!std::isfinite(d[l]) || !std::isfinite(e[l])) q.s->ok = false;
      if (q.s->ok && ql_next_sweep(q)) continue;
      done(q.s);
      if (!start(q)) {
        q = lane[--active];
        --a;
      }
    }
  }
}

/// sum_i x_i^2 with four partial sums (a fixed order: the same bits on every machine).
double sum_sq(const double* x, int64_t n) {
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a0 += x[i] * x[i];
    a1 += x[i + 1] * x[i + 1];
    a2 += x[i + 2] * x[i + 2];
    a3 += x[i + 3] * x[i + 3];
  }
  for (; i < n; ++i) a0 += x[i] * x[i];
  return (a0 + a1) + (a2 + a3);
}

/// Householder reduction of the symmetric n x n matrix A (row-major, overwritten) to tridiagonal
/// form T = Q^T A Q (LAPACK dsytd2, lower): d [n], e [n-1], the reflectors H_j = I - tau_j v_j v_j^T
/// in V (row j holds v_j on entries j+1..n-1, v_j[j+1] = 1) and tau [n-1]. p, w: scratch [n].
void householder_tridiag(int64_t n, double* A, double* V, double* tau, double* d, double* e, double* p, double* w) {
  for (int64_t j = 0; j + 1 < n; ++j) {
    const int64_t m = n - j - 1, o = j + 1;  // trailing block: rows / columns o .. n-1
    double* v = V + j * n;
    const double alpha = A[o * n + j];
    double sigma = 0.0;
    for (int64_t i = 1; i < m; ++i) sigma += A[(o + i) * n + j] * A[(o + i) * n + j];
    d[j] = A[j * n + j];
    if (!(sigma > 0.0)) {  // nothing below the subdiagonal (or NaN: the residual check rejects it)
      tau[j] = 0.0;
      e[j] = alpha;
      continue;
    }
    const double beta = -std::copysign(std::sqrt(alpha * alpha + sigma), alpha);
    const double t = (beta - alpha) / beta, scale = 1.0 / (alpha - beta);
    tau[j] = t;
    e[j] = beta;
    v[o] = 1.0;
    for (int64_t i = 1; i < m; ++i) v[o + i] = A[(o + i) * n + j] * scale;
    // B = trailing block: p = t B v, w = p - (t/2)(p.v) v, B -= v w^T + w v^T.
    // B v as a sum of B's rows (B is symmetric): independent lanes instead of m dot products.
    for (int64_t r = 0; r < m; ++r) p[r] = 0.0;
    for (int64_t c = 0; c < m; ++c) {
      const double* __restrict row = A + (o + c) * n + o;
      double* __restrict pp = p;
      const double vc = v[o + c];
      for (int64_t r = 0; r < m; ++r) pp[r] += row[r] * vc;
    }
    double pv = 0.0;
    for (int64_t r = 0; r < m; ++r) {
      p[r] *= t;
      pv += p[r] * v[o + r];
    }
    const double K = -0.5 * t * pv;
    for (int64_t r = 0; r < m; ++r) w[r] = p[r] + K * v[o + r];
    for (int64_t r = 0; r < m; ++r) {
      double* row = A + (o + r) * n + o;
      const double* vv = v + o;
      const double vr = vv[r], wr = w[r];
      for (int64_t c = 0; c < m; ++c) row[c] -= vr * w[c] + wr * vv[c];
    }
  }
  d[n - 1] = A[(n - 1) * n + (n - 1)];
}

/// LU factorizations with partial pivoting of T - lambda_j I (T = (d, e) tridiagonal, j < nev)
/// for inverse iteration; zero pivots are replaced by tiny (= eps ||T||). Stores U's three
/// diagonals (the first as reciprocals), the multipliers and the row swaps in S, entry (i, j) at
/// i * nev + j. The nev factorizations are independent: the loop over j is innermost so that
/// their divisions overlap instead of waiting for each other (each one's arithmetic is that of a
/// factorization alone).
void tridiag_factor(int64_t n, const double* d, const double* e, const double* lambda, int64_t nev, double tiny,
                    SmallDense& S) {
  double* u0 = S.lu0;
  double* u1 = S.lu1;
  double* u2 = S.lu2;
  double* mu = S.mult;
  double* pv = S.piv;  // 0 or 1: rows i and i + 1 swapped
  double* cdv = S.p;   // [nev] current diagonal and superdiagonal of each factorization
  double* csv = S.w;
  for (int64_t j = 0; j < nev; ++j) {
    cdv[j] = d[0] - lambda[j];
    csv[j] = n > 1 ? e[0] : 0.0;
  }
  for (int64_t i = 0; i + 1 < n; ++i) {
    const double sub = e[i], sup = i + 2 < n ? e[i + 1] : 0.0;
    for (int64_t j = 0; j < nev; ++j) {
      const int64_t q = i * nev + j;
      const double dg = d[i + 1] - lambda[j];
      double cd = cdv[j];
      const double cs = csv[j];
      if (std::abs(cd) >= std::abs(sub)) {
        if (cd == 0.0) cd = tiny;
        const double m = sub / cd;
        u0[q] = 1.0 / cd;
        u1[q] = cs;
        u2[q] = 0.0;
        cdv[j] = dg - m * cs;
        csv[j] = sup;
        mu[q] = m;
        pv[q] = 0.0;
      } else {
        const double m = cd / sub;
        u0[q] = 1.0 / sub;
        u1[q] = dg;
        u2[q] = sup;
        cdv[j] = cs - m * dg;
        csv[j] = -m * sup;
        mu[q] = m;
        pv[q] = 1.0;
      }
    }
  }
  for (int64_t j = 0; j < nev; ++j) u0[(n - 1) * nev + j] = 1.0 / (cdv[j] == 0.0 ? tiny : cdv[j]);
}

/// Solves (T - lambda_j I) x_j = y_j for every j < nev at once with the factorizations of
/// tridiag_factor: Z is [n][nev] row-major (column j = y_j, overwritten with x_j). One pass over
/// the rows advances all nev right-hand sides, so their dependent chains overlap; each column's
/// arithmetic is that of a solve alone (row swaps as selects, no branch).
void tridiag_solve_all(int64_t n, int64_t nev, const SmallDense& S, double* Z) {
  for (int64_t i = 0; i + 1 < n; ++i) {
    double* __restrict z0 = Z + i * nev;
    double* __restrict z1 = z0 + nev;
    const double* __restrict mu = S.mult + i * nev;
    const double* __restrict pv = S.piv + i * nev;
    for (int64_t j = 0; j < nev; ++j) {
      const bool sw = pv[j] != 0.0;
      const double a = z0[j], b = z1[j];
      const double x = sw ? b : a, y = sw ? a : b;
      z0[j] = x;
      z1[j] = y - mu[j] * x;
    }
  }
  {
    double* __restrict z = Z + (n - 1) * nev;
    const double* __restrict u0 = S.lu0 + (n - 1) * nev;
    for (int64_t j = 0; j < nev; ++j) z[j] *= u0[j];
  }
  if (n > 1) {
    double* __restrict z = Z + (n - 2) * nev;
    const double* __restrict z1 = z + nev;
    const double* __restrict u0 = S.lu0 + (n - 2) * nev;
    const double* __restrict u1 = S.lu1 + (n - 2) * nev;
    for (int64_t j = 0; j < nev; ++j) z[j] = (z[j] - u1[j] * z1[j]) * u0[j];
  }
  for (int64_t i = n - 3; i >= 0; --i) {
    double* __restrict z = Z + i * nev;
    const double* __restrict z1 = z + nev;
    const double* __restrict z2 = z + 2 * nev;
    const double* __restrict u0 = S.lu0 + i * nev;
    const double* __restrict u1 = S.lu1 + i * nev;
    const double* __restrict u2 = S.lu2 + i * nev;
    for (int64_t j = 0; j < nev; ++j) z[j] = (z[j] - u1[j] * z1[j] - u2[j] * z2[j]) * u0[j];
  }
}

/// Column c of Z [n][nev] copied to col [n].
void column(const double* Z, int64_t n, int64_t nev, int64_t c, double* col) {
  for (int64_t i = 0; i < n; ++i) col[i] = Z[i * nev + c];
}

/// Classical Gram-Schmidt of the columns of Z [n][nev] in order, each against the columns before
/// it, `passes` times ("twice is enough", CGS2, for passes = 2), then normalized; false if a
/// column vanishes or is not finite. dots [nev], col [n]: scratch.
bool orthonormalize(int64_t n, int64_t nev, int passes, double* Z, double* dots, double* col) {
  for (int64_t j = 0; j < nev; ++j) {
    for (int pass = 0; pass < passes && j > 0; ++pass) {
      // dots[q] = sum over i ascending of Z[i][q] Z[i][j]: one register accumulator per q (a
      // sum in memory, updated row by row, put a store-to-load forwarding on every addition's
      // chain); the q chains are independent.
      for (int64_t q = 0; q < j; ++q) {
        double a = 0.0;
        for (int64_t i = 0; i < n; ++i) a += Z[i * nev + q] * Z[i * nev + j];
        dots[q] = a;
      }
      for (int64_t i = 0; i < n; ++i) {
        double* __restrict zi = Z + i * nev;
        double yi = zi[j];
        for (int64_t q = 0; q < j; ++q) yi -= dots[q] * zi[q];
        zi[j] = yi;
      }
    }
    column(Z, n, nev, j, col);
    const double nrm = std::sqrt(sum_sq(col, n));
    if (!(nrm > 0.0) || !std::isfinite(nrm)) return false;
    const double inv = 1.0 / nrm;
    for (int64_t i = 0; i < n; ++i) Z[i * nev + j] *= inv;
  }
  return true;
}

}  // namespace

posenc::graph_detail::SmallDense::SmallDense(int64_t n_, int64_t nev_) : n(n_), nev(nev_) {
  // One allocation for every array (allocations were a tenth of the time on molecules).
  const size_t nz = static_cast<size_t>(n), L = static_cast<size_t>(std::max(n, nev)),
               nk = nz * static_cast<size_t>(nev);
  buf.resize(2 * nz * nz + 5 * L + 3 * nz + 6 * nk);
  double* q = buf.data();
  auto take = [&](size_t c) {
    double* r = q;
    q += c;
    return r;
  };
  A = take(nz * nz);
  V = take(nz * nz);
  tau = take(L);
  d = take(L);
  e = take(L);
  p = take(L);
  w = take(L);
  vals = take(nz);
  work = take(nz);
  r = take(nz);
  lu0 = take(nk);
  lu1 = take(nk);
  lu2 = take(nk);
  mult = take(nk);
  piv = take(nk);
  Y = take(nk);
}

/// Stage 1: L into S.A, the Householder reduction to (S.d, S.e) with its reflectors, ||T||, and
/// copies of (d, e) into (vals, work) for the QL; false (S.ok = false) if ||T|| is not finite.
bool posenc::graph_detail::small_dense_reduce(const Lap& L, SmallDense& S) {
  const int64_t n = S.n;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = L.ptr[static_cast<size_t>(i)]; p < L.ptr[static_cast<size_t>(i) + 1]; ++p)
      S.A[i * n + L.idx[static_cast<size_t>(p)]] = L.val[static_cast<size_t>(p)];
  householder_tridiag(n, S.A, S.V, S.tau, S.d, S.e, S.p, S.w);
  S.e[n - 1] = 0.0;
  double tnorm = 0.0;
  for (int64_t i = 0; i < n; ++i)
    tnorm = std::max(tnorm, std::abs(S.d[i]) + (i > 0 ? std::abs(S.e[i - 1]) : 0.0) + (i + 1 < n ? std::abs(S.e[i]) : 0.0));
  S.tnorm = tnorm;
  S.ok = std::isfinite(tnorm);
  if (!S.ok) return false;
  std::copy(S.d, S.d + n, S.vals);
  std::copy(S.e, S.e + n, S.work);
  return true;
}

/// Stage 2: see graph_common.hpp.
void posenc::graph_detail::small_dense_values(SmallDense* const* s, int64_t count) { ql_values(s, count); }

/// The nev smallest eigenpairs of a connected component's Laplacian L (2 <= n <= kSmallDenseMax)
/// by the tridiagonal path; false if an eigenvalue did not converge or a residual exceeds
/// kSmallResidual c (the caller then takes Eigen's SelfAdjointEigenSolver).
bool posenc::graph_detail::small_dense_pairs(const Lap& L, int64_t nev, Pairs* out) {
  SmallDense S(L.n, nev);
  if (!small_dense_reduce(L, S)) return false;
  SmallDense* one = &S;
  ql_values(&one, 1);
  return small_dense_vectors(L, S, out);
}

/// Stage 3: inverse iteration from the sorted eigenvalues, back-transform, Rayleigh quotients,
/// residual check.
bool posenc::graph_detail::small_dense_vectors(const Lap& L, SmallDense& S, Pairs* out) {
  if (!S.ok) return false;
  const int64_t n = S.n, nev = S.nev;
  const double tiny = std::numeric_limits<double>::epsilon() * std::max(S.tnorm, 1e-300);
  tridiag_factor(n, S.d, S.e, S.vals, nev, tiny, S);
  // Inverse iteration, all nev vectors in lockstep (Z = S.Y, [n][nev]): deterministic start
  // vectors (splitmix64 of the column index), a solve, Gram-Schmidt against the columns before
  // (one pass) and normalization, a second solve, CGS2 and normalization.
  double* Z = S.Y;
  for (int64_t j = 0; j < nev; ++j) {
    uint64_t z = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(j + 1);
    for (int64_t i = 0; i < n; ++i) {
      z += 0x9e3779b97f4a7c15ULL;
      uint64_t w = z;
      w = (w ^ (w >> 30)) * 0xbf58476d1ce4e5b9ULL;
      w = (w ^ (w >> 27)) * 0x94d049bb133111ebULL;
      w ^= w >> 31;
      Z[i * nev + j] = static_cast<double>(w >> 11) * 0x1.0p-53 - 0.5;
    }
  }
  double* dots = S.w;  // [nev]
  double* col = S.r;   // [n]
  for (int it = 0; it < 2; ++it) {
    tridiag_solve_all(n, nev, S, Z);
    if (!orthonormalize(n, nev, 1 + it, Z, dots, col)) return false;
  }
  // Back-transform: x = H_0 H_1 ... H_{n-2} y (the last reflector first), all columns at once.
  for (int64_t j = n - 2; j >= 0; --j) {
    const double t = S.tau[j];
    if (t == 0.0) continue;
    const double* __restrict v = S.V + j * n;
    for (int64_t c = 0; c < nev; ++c) {  // register accumulators, as in orthonormalize
      double a = 0.0;
      for (int64_t i = j + 1; i < n; ++i) a += v[i] * Z[i * nev + c];
      dots[c] = a * t;
    }
    for (int64_t i = j + 1; i < n; ++i) {
      double* __restrict zi = Z + i * nev;
      const double vi = v[i];
      for (int64_t c = 0; c < nev; ++c) zi[c] -= dots[c] * vi;
    }
  }
  // Eigenvalues: the Rayleigh quotients of the back-transformed vectors, all at once (R = L Z,
  // sums in CSR order); every residual ||L v - lambda v|| is checked.
  double* R = S.mult;  // [n][nev], free after the solves
  double* lam = S.p;   // [nev]
  for (int64_t i = 0; i < n; ++i) {
    double* __restrict ri = R + i * nev;
    for (int64_t c = 0; c < nev; ++c) ri[c] = 0.0;
    for (int64_t p = L.ptr[static_cast<size_t>(i)]; p < L.ptr[static_cast<size_t>(i) + 1]; ++p) {
      const double a = L.val[static_cast<size_t>(p)];
      const double* __restrict zk = Z + static_cast<int64_t>(L.idx[static_cast<size_t>(p)]) * nev;
      for (int64_t c = 0; c < nev; ++c) ri[c] += a * zk[c];
    }
  }
  for (int64_t c = 0; c < nev; ++c) {
    double a = 0.0;
    for (int64_t i = 0; i < n; ++i) a += Z[i * nev + c] * R[i * nev + c];
    lam[c] = a;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < nev; ++c) R[i * nev + c] -= lam[c] * Z[i * nev + c];
  out->vec.resize(n, nev);
  out->val.resize(nev);
  for (int64_t c = 0; c < nev; ++c) {
    column(R, n, nev, c, col);
    if (!(std::sqrt(sum_sq(col, n)) <= kSmallResidual * L.bound)) return false;
    out->val[c] = lam[c];
    for (int64_t i = 0; i < n; ++i) out->vec(i, c) = Z[i * nev + c];
  }
  return true;
}

namespace {

/// Scratch of one tile of graphs (a local of the tile: a tbb::enumerable_thread_specific here
/// double-freed its storage when an allocation inside it failed, found by tests/test_oom.cpp).
struct BatchScratch {
  std::vector<int64_t> src, dst;
  RwseScratch rw;
  FlatRwse flat;
  // the group's started LapPE calls: their outputs [kk] and [n, kk], graph index, kk, status
  LappeCall calls[kGraphsPerGroup];
  std::vector<double> vals[kGraphsPerGroup], vecs[kGraphsPerGroup];
  int64_t graph[kGraphsPerGroup] = {}, kk[kGraphsPerGroup] = {};
  posenc_status status[kGraphsPerGroup] = {};
};

/// A staging array of the batch's outputs: every element is written before it is read, so it is
/// not zeroed, and, on Linux, a large one asks for transparent huge pages (a fresh 4 KiB page costs
/// a page fault on first touch, which dominated the staging of small graphs' results).
class Staging {
 public:
  explicit Staging(int64_t count) : n_(static_cast<size_t>(count)) {
    if (n_ == 0) return;
    const size_t bytes = n_ * sizeof(double);
#if defined(__linux__)
    constexpr size_t kHuge = size_t{2} << 20;
    if (bytes >= kHuge) {
      const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
      p_ = static_cast<double*>(std::aligned_alloc(kHuge, rounded));
      if (p_ == nullptr) throw std::bad_alloc();
      (void)madvise(p_, rounded, MADV_HUGEPAGE);
      return;
    }
#endif
    p_ = static_cast<double*>(std::malloc(bytes));
    if (p_ == nullptr) throw std::bad_alloc();
  }
  ~Staging() { std::free(p_); }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  double* data() { return p_; }
  void copy_to(double* out) const {
    if (n_ > 0) std::memcpy(out, p_, n_ * sizeof(double));
  }

 private:
  size_t n_;
  double* p_ = nullptr;
};

posenc_status check_offsets(const int64_t* ptr, int64_t num_graphs, const char* name, int64_t limit_each) {
  if (ptr[0] != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s[0] must be 0 (got %lld)", name, static_cast<long long>(ptr[0]));
  for (int64_t g = 0; g < num_graphs; ++g) {
    const int64_t a = ptr[g], b = ptr[g + 1];
    if (b < a)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be non-decreasing (%s[%lld] = %lld > %s[%lld] = %lld)",
                       name, name, static_cast<long long>(g), static_cast<long long>(a), name,
                       static_cast<long long>(g + 1), static_cast<long long>(b));
    if (b - a > limit_each)
      return set_error(POSENC_ERR_SIZE_OVERFLOW, "%s: graph %lld has %lld entries (at most %lld)", name,
                       static_cast<long long>(g), static_cast<long long>(b - a), static_cast<long long>(limit_each));
  }
  return POSENC_OK;
}


/// The RWSE options of posenc_graph_batch_pe_auto_f64 (auto = false: the exact path of
/// posenc_rwse_ex_f64 without the cost estimate, as posenc_graph_batch_pe(_ex)_f64).
struct RwseOptions {
  bool automatic = false;
  int32_t method = POSENC_RWSE_EXACT;
  int32_t walks = POSENC_RWSE_DEFAULT_WALKS;
  uint64_t seed = 0;
};

/// Reads posenc_graph_batch_pe_auto_f64's rwse_options (NULL: AUTO, default walks, seed 0).
posenc_status read_rwse_options(const posenc_rwse_info* info, RwseOptions* o) {
  o->automatic = true;
  o->method = POSENC_RWSE_AUTO;
  if (info == nullptr) return POSENC_OK;
  if (info->struct_size != sizeof(posenc_rwse_info))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "rwse_options->struct_size must be %u (got %u); call posenc_rwse_info_init",
                     static_cast<unsigned>(sizeof(posenc_rwse_info)), info->struct_size);
  const long long method = enum_bits(info->method);
  if (method < POSENC_RWSE_AUTO || method > POSENC_RWSE_MONTE_CARLO)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "rwse_options->method must be a posenc_rwse_method in [0, 2] (got %lld)", method);
  if (info->walks < 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "rwse_options->walks must be >= 0 (0 = the default) (got %d)",
                     info->walks);
  if (info->flags != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "rwse_options->flags must be 0 (the flags argument applies to every graph) (got 0x%x)",
                     static_cast<unsigned>(info->flags));
  o->method = static_cast<int32_t>(method);
  o->walks = info->walks == 0 ? POSENC_RWSE_DEFAULT_WALKS : info->walks;
  o->seed = info->seed;
  return POSENC_OK;
}

posenc_status graph_batch_pe(int64_t num_graphs, const int64_t* node_ptr, const int64_t* edge_ptr,
                             const int64_t* src, const int64_t* dst, const double* weights,
                             const posenc_laplacian& laplacian, int32_t k, int32_t steps, uint32_t flags,
                             double* eigvals, double* eigvecs, double* rwse, int32_t* graph_status,
                             const RwseOptions& ro = RwseOptions{}, int32_t* rwse_method_used = nullptr) {
  POSENC_CHECK(check_positive(num_graphs, "num_graphs"));
  POSENC_CHECK(check_not_null(node_ptr, "node_ptr"));
  POSENC_CHECK(check_not_null(edge_ptr, "edge_ptr"));
  const long long lap_raw = enum_bits(laplacian);
  POSENC_CHECK(check_laplacian(lap_raw));
  if (k < 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "k must be >= 0 (got %d)", k);
  if (steps < 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "steps must be >= 0 (got %d)", steps);
  if (k == 0 && steps == 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "k and steps must not both be 0 (nothing to compute)");
  constexpr uint32_t kKnown = POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_LAPPE_DROP_TRIVIAL |
                              POSENC_LAPPE_NAN_PAD;
  if ((flags & ~kKnown) != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "flags may hold only POSENC_GRAPH_BOTH_DIRECTIONS, POSENC_GRAPH_KEEP_SELF_LOOPS, "
                     "POSENC_LAPPE_DROP_TRIVIAL and POSENC_LAPPE_NAN_PAD (got 0x%x)",
                     static_cast<unsigned>(flags));
  int64_t ng1 = 0;
  POSENC_CHECK(checked_mul(num_graphs, 1, &ng1, "num_graphs", sizeof(int64_t)));
  POSENC_CHECK(check_offsets(node_ptr, num_graphs, "node_ptr", static_cast<int64_t>(std::numeric_limits<int32_t>::max()) - 2));
  POSENC_CHECK(check_offsets(edge_ptr, num_graphs, "edge_ptr", std::numeric_limits<int64_t>::max() / 16));
  const int64_t total_nodes = node_ptr[num_graphs], num_edges = edge_ptr[num_graphs];
  POSENC_CHECK(check_not_null_if(src, num_edges, "src"));
  POSENC_CHECK(check_not_null_if(dst, num_edges, "dst"));
  int64_t nvec = 0, nval = 0, nrw = 0;
  POSENC_CHECK(checked_mul(total_nodes, k, &nvec, "eigvecs [node_ptr[num_graphs], k]", sizeof(double)));
  POSENC_CHECK(checked_mul(num_graphs, k, &nval, "eigvals [num_graphs, k]", sizeof(double)));
  POSENC_CHECK(checked_mul(total_nodes, steps, &nrw, "rwse [node_ptr[num_graphs], steps]", sizeof(double)));
  if (k > 0) {
    POSENC_CHECK(check_not_null(eigvals, "eigvals"));
    POSENC_CHECK(check_not_null(eigvecs, "eigvecs"));
  }
  if (steps > 0) POSENC_CHECK(check_not_null(rwse, "rwse"));
  for (int64_t gi = 0; gi < num_graphs; ++gi) {
    const int64_t lo = node_ptr[gi], hi = node_ptr[gi + 1];
    for (int64_t e = edge_ptr[gi]; e < edge_ptr[gi + 1]; ++e) {
      if (src[e] < lo || src[e] >= hi)
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "src[%lld] = %lld is outside its graph %lld's nodes [node_ptr[%lld] = %lld, %lld)",
                         static_cast<long long>(e), static_cast<long long>(src[e]), static_cast<long long>(gi),
                         static_cast<long long>(gi), static_cast<long long>(lo), static_cast<long long>(hi));
      if (dst[e] < lo || dst[e] >= hi)
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "dst[%lld] = %lld is outside its graph %lld's nodes [node_ptr[%lld] = %lld, %lld)",
                         static_cast<long long>(e), static_cast<long long>(dst[e]), static_cast<long long>(gi),
                         static_cast<long long>(gi), static_cast<long long>(lo), static_cast<long long>(hi));
      if (weights != nullptr && !(std::isfinite(weights[e]) && weights[e] >= 0.0))
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "weights[%lld] must be finite and >= 0 (got %g)",
                         static_cast<long long>(e), weights[e]);
    }
  }
  const posenc_laplacian kind = static_cast<posenc_laplacian>(lap_raw);
  const uint32_t lap_flags = flags & (POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_LAPPE_DROP_TRIVIAL | POSENC_LAPPE_NAN_PAD);
  const uint32_t rw_flags = flags & (POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_GRAPH_KEEP_SELF_LOOPS);
  const int64_t drop = (flags & POSENC_LAPPE_DROP_TRIVIAL) != 0 ? 1 : 0;
  const bool pad = (flags & POSENC_LAPPE_NAN_PAD) != 0;
  return guarded([&]() -> posenc_status {
    // The results are computed into staging arrays and copied to the caller's at the end: an
    // allocation failing in any graph (OUT_OF_MEMORY for the whole call) then leaves every output
    // untouched. A graph whose eigensolver does not converge is reported in graph_status.
    std::vector<int32_t> st(static_cast<size_t>(num_graphs), POSENC_OK);
    std::vector<int32_t> used(rwse_method_used != nullptr ? static_cast<size_t>(num_graphs) : 0, POSENC_RWSE_EXACT);
    std::atomic<bool> any_mc{false};  // some graph's RWSE took the Monte-Carlo path (the verbose path)
    Staging eigvals_s(k > 0 ? num_graphs * k : 0), eigvecs_s(k > 0 ? total_nodes * k : 0),
        rwse_s(steps > 0 ? total_nodes * steps : 0);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    parallel_tiles(tiles_of(num_graphs, kGraphsPerTile), [&](int64_t tile) {
      BatchScratch S;
      const int64_t t0 = tile * kGraphsPerTile, t1 = std::min(num_graphs, t0 + kGraphsPerTile);
      // Groups of kGraphsPerGroup graphs: every graph's LapPE call is started (graph, components,
      // Householder reductions), then the QL sweeps of all of them run interleaved
      // (lappe_values), then each call completes; RWSE runs before.
      for (int64_t g0 = t0; g0 < t1; g0 += kGraphsPerGroup) {
        const int64_t g1 = std::min(t1, g0 + kGraphsPerGroup);
        int64_t started = 0;
        for (int64_t gi = g0; gi < g1; ++gi) {
          const int64_t off = node_ptr[gi], n = node_ptr[gi + 1] - off;
          const int64_t e0 = edge_ptr[gi], m = edge_ptr[gi + 1] - e0;
          double* vals = k > 0 ? eigvals_s.data() + gi * k : nullptr;
          for (int32_t j = 0; j < k; ++j) vals[j] = nan;
          if (n == 0) continue;
          S.src.resize(static_cast<size_t>(m));
          S.dst.resize(static_cast<size_t>(m));
          for (int64_t e = 0; e < m; ++e) {
            S.src[static_cast<size_t>(e)] = src[e0 + e] - off;
            S.dst[static_cast<size_t>(e)] = dst[e0 + e] - off;
          }
          const double* w = weights != nullptr ? weights + e0 : nullptr;
          // RWSE's graph is LapPE's when the flags build the same one (no KEEP_SELF_LOOPS).
          Graph gr;
          const bool same_graph = rw_flags == (lap_flags & POSENC_GRAPH_BOTH_DIRECTIONS);
          if (steps > 0) {
            gr = build_graph(n, S.src.data(), S.dst.data(), w, m, rw_flags);
            double* rw = rwse_s.data() + off * steps;
            if (!ro.automatic) {
              rwse_graph(gr, steps, S.flat, S.rw, rw);
            } else if (!rwse_graph_auto(gr, steps, ro.method, ro.walks, ro.seed, S.flat, S.rw, rw)) {
              any_mc.store(true, std::memory_order_relaxed);
              if (!used.empty()) used[static_cast<size_t>(gi)] = POSENC_RWSE_MONTE_CARLO;
            }
          }
          if (k == 0) continue;
          // Graph g's posenc_laplacian_pe_ex_f64 call with the same flags: kk columns (all k with
          // NAN_PAD; else the pairs available, the rest padded here: NaN eigenvalues, 0 vectors).
          const int64_t kk = pad ? k : std::min<int64_t>(k, n - drop);
          double* vecs = eigvecs_s.data() + off * k;
          for (int64_t r = 0; r < n; ++r)
            for (int64_t j = std::max<int64_t>(kk, 0); j < k; ++j) vecs[r * k + j] = 0.0;
          if (kk < 1) continue;
          const size_t q = static_cast<size_t>(started);
          S.vals[q].resize(static_cast<size_t>(kk));
          S.vecs[q].resize(static_cast<size_t>(n * kk));
          S.calls[q] = LappeCall{};
          S.graph[q] = gi;
          S.kk[q] = kk;
          const posenc_status s = lappe_start(&S.calls[q], n, S.src.data(), S.dst.data(), w, m, kind,
                                              static_cast<int32_t>(kk), lap_flags, S.vals[q].data(), S.vecs[q].data(),
                                              steps > 0 && same_graph ? &gr : nullptr);
          S.status[q] = s;
          ++started;
        }
        lappe_values(S.calls, started);
        for (int64_t q = 0; q < started; ++q) {
          const int64_t gi = S.graph[q], kk = S.kk[q];
          const int64_t off = node_ptr[gi], n = node_ptr[gi + 1] - off;
          double* vals = eigvals_s.data() + gi * k;
          double* vecs = eigvecs_s.data() + off * k;
          posenc_status s = S.status[q];
          if (s == POSENC_OK) s = lappe_complete(S.calls[q]);
          S.calls[q] = LappeCall{};  // frees the graph's scratch
          if (s == POSENC_ERR_OUT_OF_MEMORY) throw std::bad_alloc();
          if (s != POSENC_OK) {
            st[static_cast<size_t>(gi)] = s;
            for (int64_t r = 0; r < n; ++r)
              for (int32_t j = 0; j < k; ++j) vecs[r * k + j] = nan;
            continue;
          }
          const std::vector<double>& sv = S.vals[static_cast<size_t>(q)];
          const std::vector<double>& se = S.vecs[static_cast<size_t>(q)];
          for (int64_t j = 0; j < kk; ++j) vals[j] = sv[static_cast<size_t>(j)];
          for (int64_t r = 0; r < n; ++r)
            for (int64_t j = 0; j < kk; ++j) vecs[r * k + j] = se[static_cast<size_t>(r * kk + j)];
        }
      }
    });
    path(any_mc.load() ? "graph_batch_pe.per_graph_monte_carlo" : "graph_batch_pe.per_graph");
    POSENC_SHAPE("graphs=%lld nodes=%lld edges=%lld k=%d steps=%d flags=0x%x", (long long)num_graphs,
                 (long long)total_nodes, (long long)num_edges, k, steps, static_cast<unsigned>(flags));
    eigvals_s.copy_to(eigvals);
    eigvecs_s.copy_to(eigvecs);
    rwse_s.copy_to(rwse);
    if (graph_status != nullptr) std::copy(st.begin(), st.end(), graph_status);
    if (rwse_method_used != nullptr) std::copy(used.begin(), used.end(), rwse_method_used);
    for (int64_t gi = 0; gi < num_graphs; ++gi)
      if (st[static_cast<size_t>(gi)] != POSENC_OK)
        return set_error(static_cast<posenc_status>(st[static_cast<size_t>(gi)]),
                         "graph %lld (and possibly others, see graph_status) failed: its eigvals / eigvecs rows are NaN",
                         static_cast<long long>(gi));
    return POSENC_OK;
  });
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_graph_batch_pe_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                             const int64_t* edge_ptr, const int64_t* src,
                                                             const int64_t* dst, const double* weights,
                                                             posenc_laplacian laplacian, int32_t k, int32_t steps,
                                                             double* eigvals, double* eigvecs, double* rwse,
                                                             int32_t* graph_status) {
  api_guard g("posenc_graph_batch_pe_f64");
  return graph_batch_pe(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, 0u, eigvals, eigvecs,
                        rwse, graph_status);
}

extern "C" POSENC_API posenc_status posenc_graph_batch_pe_ex_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                                const int64_t* edge_ptr, const int64_t* src,
                                                                const int64_t* dst, const double* weights,
                                                                posenc_laplacian laplacian, int32_t k, int32_t steps,
                                                                uint32_t flags, double* eigvals, double* eigvecs,
                                                                double* rwse, int32_t* graph_status) {
  api_guard g("posenc_graph_batch_pe_ex_f64");
  return graph_batch_pe(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, flags, eigvals,
                        eigvecs, rwse, graph_status);
}

extern "C" POSENC_API posenc_status posenc_graph_batch_pe_auto_f64(
    int64_t num_graphs, const int64_t* node_ptr, const int64_t* edge_ptr, const int64_t* src, const int64_t* dst,
    const double* weights, posenc_laplacian laplacian, int32_t k, int32_t steps, uint32_t flags,
    const posenc_rwse_info* rwse_options, double* eigvals, double* eigvecs, double* rwse, int32_t* graph_status,
    int32_t* rwse_method_used) {
  api_guard g("posenc_graph_batch_pe_auto_f64");
  RwseOptions ro;
  POSENC_CHECK(read_rwse_options(rwse_options, &ro));
  return graph_batch_pe(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, flags, eigvals,
                        eigvecs, rwse, graph_status, ro, rwse_method_used);
}
