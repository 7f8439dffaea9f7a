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
// alone), small_dense_vectors. The flop loops of the reduction and of the vectors are the kernels
// of kernels/graph_dense.cpp (per ISA path, bitwise the same result on every path).
#include "lib/graph_common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

POSENC_USE_KERNELS(graph_dense_kernels_t, graph_dense_kernels)

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

}  // namespace

posenc::graph_detail::SmallDense::SmallDense(int64_t n_, int64_t nev_)
    : n(n_), nev(nev_), ld(n_ + kDensePad), ldk((nev_ + kDensePad - 1) / kDensePad * kDensePad) {
  dk = graph_dense_table();
  // One allocation for every array (allocations were a tenth of the time on molecules), zeroed:
  // the padding of A and V must hold zeros (kernels/graph_dense_table.hpp).
  const size_t nz = static_cast<size_t>(n), lz = static_cast<size_t>(ld), kz = static_cast<size_t>(ldk),
               L = std::max(lz, kz), nk = nz * kz;
  const size_t tz = kz * ((nz + kDensePad - 1) / kDensePad * kDensePad);
  buf.resize(2 * nz * lz + 3 * nz + 2 * L + 2 * nz + 6 * nk + 2 * kz + tz);
  double* q = buf.data();
  auto take = [&](size_t c) {
    double* r = q;
    q += c;
    return r;
  };
  A = take(nz * lz);
  V = take(nz * lz);
  tau = take(nz);
  d = take(nz);
  e = take(nz);
  p = take(L);
  w = take(L);
  vals = take(nz);
  work = take(nz);
  lu0 = take(nk);
  lu1 = take(nk);
  lu2 = take(nk);
  mult = take(nk);
  piv = take(nk);
  Y = take(nk);
  lamp = take(kz);
  res2 = take(kz);
  Zt = take(tz);
}

posenc_status posenc::graph_detail::graph_dense_check_kernels() {
  const graph_dense_kernels_t* k = nullptr;
  return posenc::detail::graph_dense_kernels_active(&k);
}

const posenc::graph_dense_kernels_t* posenc::graph_detail::graph_dense_table() {
  // Every path returns the same bits; a path this CPU cannot run (POSENC_ISA named one: the entry
  // points' graph_dense_check_kernels refused the call already) is never executed.
  const posenc_isa isa = posenc_isa_active();
  return posenc::detail::graph_dense_kernels_for((posenc_isa_available() & static_cast<uint32_t>(isa)) != 0 ? isa
                                                                                                    : POSENC_ISA_SCALAR);
}

/// Stage 1: L into S.A, the Householder reduction to (S.d, S.e) with its reflectors, ||T||, and
/// copies of (d, e) into (vals, work) for the QL; false (S.ok = false) if ||T|| is not finite.
bool posenc::graph_detail::small_dense_reduce(const Lap& L, SmallDense& S) {
  const int64_t n = S.n, ld = S.ld;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = L.ptr[static_cast<size_t>(i)]; p < L.ptr[static_cast<size_t>(i) + 1]; ++p)
      S.A[i * ld + L.idx[static_cast<size_t>(p)]] = L.val[static_cast<size_t>(p)];
  S.dk->householder(n, ld, S.A, S.V, S.tau, S.d, S.e, S.p, S.w);
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
  const int64_t ldk = S.ldk;
  const graph_dense_kernels_t& K = *S.dk;
  // The lanes past nev repeat the last eigenvalue (finite values in the padding).
  for (int64_t j = 0; j < ldk; ++j) S.lamp[j] = S.vals[std::min(j, nev - 1)];
  K.tridiag_factor(n, S.d, S.e, S.lamp, ldk, tiny, S.lu0, S.lu1, S.lu2, S.mult, S.piv, S.p, S.w);
  // Inverse iteration, all nev vectors in lockstep (Z = S.Y, [n][ldk], the padding lanes zero):
  // deterministic start vectors (splitmix64 of the column index), a solve, Gram-Schmidt against
  // the columns before (one pass) and normalization, a second solve, CGS2 and normalization.
  double* Z = S.Y;
  for (int64_t j = 0; j < nev; ++j) {
    uint64_t z = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(j + 1);
    for (int64_t i = 0; i < n; ++i) {
      z += 0x9e3779b97f4a7c15ULL;
      uint64_t w = z;
      w = (w ^ (w >> 30)) * 0xbf58476d1ce4e5b9ULL;
      w = (w ^ (w >> 27)) * 0x94d049bb133111ebULL;
      w ^= w >> 31;
      Z[i * ldk + j] = static_cast<double>(w >> 11) * 0x1.0p-53 - 0.5;
    }
  }
  double* dots = S.w;  // [ldk]
  for (int it = 0; it < 2; ++it) {
    K.tridiag_solve(n, ldk, S.lu0, S.lu1, S.lu2, S.mult, S.piv, Z);
    if (!K.orthonormalize(n, nev, ldk, 1 + it, Z, dots, S.Zt)) return false;
  }
  // Back-transform: x = H_0 H_1 ... H_{n-2} y (the last reflector first), all columns at once.
  K.back_transform(n, S.ld, ldk, S.V, S.tau, Z);
  // Eigenvalues: the Rayleigh quotients of the back-transformed vectors, all at once (R = L Z,
  // sums in CSR order); every residual ||L v - lambda v|| is checked.
  double* R = S.mult;  // [n][ldk], free after the solves
  double* lam = S.p;   // [ldk]
  K.rayleigh(n, ldk, L.ptr.data(), L.idx.data(), L.val.data(), Z, R, lam, S.res2);
  out->vec.resize(n, nev);
  out->val.resize(nev);
  for (int64_t c = 0; c < nev; ++c) {
    if (!(std::sqrt(S.res2[c]) <= kSmallResidual * L.bound)) return false;
    out->val[c] = lam[c];
    for (int64_t i = 0; i < n; ++i) out->vec(i, c) = Z[i * ldk + c];
  }
  return true;
}
