// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_small_dense.cpp — graph family: the small dense eigensolver that LapPE uses for
// connected components of up to kSmallDenseMax nodes (the molecules of ZINC / PCQM4Mv2: 10-50
// nodes). Householder tridiagonalization, all eigenvalues of the tridiagonal by root-free implicit
// QL (Pal-Walker-Kahan), the k smallest eigenvectors by inverse iteration (2 solves, all k
// right-hand sides in lockstep so that their dependent chains overlap) with full
// re-orthogonalization, and the Householder back-transform: about a third of the work of Eigen's
// SelfAdjointEigenSolver, which computes all n eigenvectors, and no allocation but its scratch.
// Every returned pair is checked (residual); a component that fails the check takes Eigen's solver
// (lib/graph_lappe_solve.cpp, component_pairs).
//
// Stages (SmallDense, lib/graph_common.hpp): small_dense_reduce, small_dense_values (the QL sweeps
// of several components, of one graph or of several graphs of a batch, advanced in one loop so
// that their latency-bound chains overlap; each component's arithmetic is that of the component
// alone), small_dense_vectors.
#include "lib/graph_common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

constexpr double kSmallResidual = 1e-12;  // accepted residual ||L v - lambda v|| / c on that path

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

/// One rotation at row i of a QL sweep from row m (state p, c, sn, gamma; shift sigma). With
/// ir = 1 / r: c = p ir, sn = bb ir, gamma = (p (alpha - sigma) - bb gamma_old) ir and
/// p_new = gamma^2 / c = gamma^2 (r / p), r / p computed alongside 1 / r: the loop-carried chain
/// p -> r -> 1 / r -> gamma -> gamma^2 -> p_new holds one division (the textbook order, c = p / r
/// then gamma^2 / c, holds two).
inline void ql_rotation(double* __restrict d, double* __restrict e, int64_t i, int64_t m, double sigma, double& p,
                        double& c, double& sn, double& gamma) {
  const double p0 = p, bb = e[i], r = p0 + bb;
  if (i != m - 1) e[i + 1] = sn * r;
  const double oldc = c, ir = 1.0 / r, rp = r / p0;
  c = p0 * ir;
  sn = bb * ir;
  const double oldgam = gamma, alpha = d[i];
  gamma = (p0 * (alpha - sigma) - bb * oldgam) * ir;
  d[i + 1] = oldgam + (alpha - gamma);
  p = c != 0.0 ? (gamma * gamma) * rp : oldc * bb;
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
  auto end_sweep = [&](QlLane& q) {  // false when q's problem is done (converged or failed)
    const int64_t l = q.l;
    q.e[l] = q.sn * q.p;
    q.d[l] = q.sigma + q.gamma;
    if (!std::isfinite(q.d[l]) || !std::isfinite(q.e[l])) q.s->ok = false;
    return q.s->ok && ql_next_sweep(q);
  };
  while (active > 0) {
    if (active == 1) {
      // One problem left: its sweeps with the state in locals (the same rotation).
      QlLane& q = lane[0];
      do {
        double p = q.p, c = q.c, sn = q.sn, gamma = q.gamma;
        for (int64_t i = q.i; i >= q.l; --i) ql_rotation(q.d, q.e, i, q.m, q.sigma, p, c, sn, gamma);
        q.p = p;
        q.c = c;
        q.sn = sn;
        q.gamma = gamma;
        q.i = q.l - 1;
      } while (end_sweep(q));
      done(q.s);
      if (!start(q)) active = 0;
      continue;
    }
    for (int a = 0; a < active; ++a) {
      QlLane& q = lane[a];
      if (q.i >= q.l) {
        ql_rotation(q.d, q.e, q.i, q.m, q.sigma, q.p, q.c, q.sn, q.gamma);
        --q.i;
        continue;
      }
      if (end_sweep(q)) continue;
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

