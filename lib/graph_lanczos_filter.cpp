// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_lanczos_filter.cpp — graph family, LapPE: Chebyshev-filtered Lanczos, the first
// attempt of the Lanczos path of lib/graph_lappe_solve.cpp (component_pairs).
//
// Restarted Lanczos on c I - L needs thousands of products when the k smallest eigenvalues sit in
// a cluster at the lower edge of a dense part of the spectrum (Barabasi-Albert graphs: lambda_2 ..
// lambda_17 of L_sym within [0.2768, 0.2787] at 10^5 nodes), and most of its time goes into the
// full reorthogonalization of every step against the ncv basis vectors. Here Lanczos runs on
// p(L) = T_d(t(L)), the Chebyshev polynomial of degree d composed with the affine map
// t(lambda) = ((c + a) - 2 lambda) / (c - a) that sends [a, c] onto [-1, 1]: |p| <= 1 on [a, c],
// and p > 1, strictly decreasing, on [0, a), growing like cosh(d acosh(t)). One operator
// application is d sparse products (the three-term recurrence, three work vectors, no
// reorthogonalization); the outer Lanczos needs about d times fewer steps than on c I - L, so the
// reorthogonalization shrinks by about that factor (bench/lappe_filter_proto.py, docs/PERFORMANCE.md).
//
// Why the result is the k smallest eigenpairs of L, as for plain Lanczos: the k largest
// eigenvalues mu_1 >= ... >= mu_k of p(L) that Lanczos returns are accepted only when mu_k > 1
// (by a margin for rounding, 1e-6 + 1e-9 mu_1).
// Every eigenvalue of L in [a, c] has |p| <= 1 < mu_k, so the k returned values all come from
// eigenvalues of L below a, where p is strictly decreasing: the k largest values of p(L) above 1
// are p of the k smallest eigenvalues of L, in reverse order. The eigenvectors of p(L) are those
// of L (same eigenspaces, possibly merged only where p takes equal values, which a strictly
// monotone p on [0, a) does not do below a). A Krylov method can still miss a copy of a repeated
// eigenvalue, exactly as on c I - L: the caller's certificate (lib/graph_lappe_solve.cpp) covers
// that. The inertia count is computed on L itself; the KRYLOV probe runs on the deflated filter
// (deflated_filtered_lanczos), where a missed eigenvalue below sigma <= lambda_k < a would be the
// largest one, as it is the largest of c I - L for the plain probe. (Test knob
// POSENC_LAPPE_TEST_FILTER_DROP, filter_drops below: the filtered solve drops pairs it found, so
// that tests/test_graph_spectrum.cpp checks that the certificate recovers them.)
//
// The k-th largest Ritz value of p(L) is at most the k-th largest eigenvalue of p(L) (Cauchy
// interlacing of Rayleigh-Ritz), so mu_k > 1 also proves that L has at least k eigenvalues below
// a whatever a was. The bound a itself only has to be good for speed: the (k+1)-th smallest Ritz
// value of a short Lanczos run on L without reorthogonalization, spurious copies removed
// (kept_ritz_values); with full reorthogonalization it would be a rigorous upper bound on
// lambda_{k+1} (interlacing), but that run costs more than the filtered solve gains. A bound below
// lambda_k (or a repeated lambda_k = lambda_{k+1} at a) leaves mu_k <= 1: the attempt is rejected
// and the caller's plain Lanczos runs instead.
//
// Deterministic: the products are Lap::shifted_apply (fixed row tiles), the vector updates and
// inner products are Eigen expressions of fixed order: the same bits for any
// thread count.
#include "lib/graph_lappe.hpp"

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

/// Degree d of the Chebyshev filter. bench/lappe_filter_proto.py on the 10^5-node Barabasi-Albert
/// graph (k = 16, tol 1e-10, SciPy eigsh on p(L)): a = 0.28 gave 2.50 / 1.96 / 1.95 CPU-s for
/// d = 8 / 16 / 32, a = 0.30 2.60 / 2.80 / 3.22 s, a = 0.279 2.33 / 2.05 s for d = 16 / 24;
/// plain eigsh on 2I - L 13.6 s.
constexpr int kFilterDegree = 16;

/// POSENC_LAPPE_TEST_FILTER_BOUND=S (a test knob, read per call): the filter bound a is multiplied
/// by S, so tests can show that a bound below lambda_k is caught (mu_k <= 1: the plain Lanczos
/// fallback runs) and that the result never depends on it.
double filter_bound_scale() {
  if (const char* e = std::getenv("POSENC_LAPPE_TEST_FILTER_BOUND")) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && v > 0.0) return v;
  }
  return 1.0;
}

/// POSENC_LAPPE_TEST_FILTER_DROP=j1,j2,... (a test knob, read per call): the filtered solve asks
/// for nev + r pairs (r = the number of distinct valid indices given) and drops those at the given
/// 0-based positions of the ascending order before the Rayleigh-Ritz step, so that the returned
/// set misses eigenvalues of L below its top one; the caller's certificate (the KRYLOV probe on
/// the filter, or the inertia count) must find them. Indices >= nev + r are ignored (so r can
/// shrink); empty or unparsable: no drop.
std::vector<int64_t> filter_drops(int64_t nev) {
  std::vector<int64_t> idx;
  const char* e = std::getenv("POSENC_LAPPE_TEST_FILTER_DROP");
  if (e == nullptr) return idx;
  for (const char* p = e; *p != '\0';) {
    char* end = nullptr;
    const long long v = std::strtoll(p, &end, 10);
    if (end == p) break;
    if (v >= 0) idx.push_back(static_cast<int64_t>(v));
    p = end;
    while (*p == ',' || *p == ' ') ++p;
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  // keep the indices that fall inside nev + r (r = their count), largest first removed
  while (!idx.empty() && idx.back() >= nev + static_cast<int64_t>(idx.size())) idx.pop_back();
  return idx;
}

/// The operator y = P T_d(t(L)) P x, t(L) = alpha (h I - L), h = (c + a) / 2,
/// alpha = 2 / (c - a), P = I - Q Q^T (Q may be empty).
struct ChebyshevOp {
  using Scalar = double;
  const Lap* L;
  double h, alpha;
  int degree;
  const Eigen::MatrixXd* Q;
  mutable Eigen::VectorXd u0, u1, w;
  Eigen::Index rows() const { return L->n; }
  Eigen::Index cols() const { return L->n; }
  void perform_op(const double* x_in, double* y_out) const {
    const Eigen::Index n = L->n;
    Eigen::Map<const Eigen::VectorXd> x(x_in, n);
    Eigen::Map<Eigen::VectorXd> y(y_out, n);
    w.resize(n);
    if (Q->cols() == 0) u0 = x; else u0 = x - (*Q) * (Q->transpose() * x);  // T_0 x
    L->shifted_apply(h, u0.data(), w.data());  // (h I - L) x
    u1 = alpha * w;                            // T_1 x
    for (int j = 2; j <= degree; ++j) {        // T_j = 2 t T_{j-1} - T_{j-2}
      L->shifted_apply(h, u1.data(), w.data());
      u0 = (2.0 * alpha) * w - u0;
      u0.swap(u1);
    }
    if (Q->cols() == 0) y = u1; else y = u1 - (*Q) * (Q->transpose() * u1);
  }
};

/// V[:, 0:k] = V[:, 0:m] Y[0:m, 0:k] in place (k <= m <= V.cols()), in fixed tiles of rows: each
/// tile's rows are read into a small product before they are overwritten, so no second n x k
/// matrix is held. Same bits for any thread count (the tiles depend on n only).
void rotate_in_place(Eigen::MatrixXd& V, Eigen::Index m, const Eigen::MatrixXd& Y, Eigen::Index k) {
  const int64_t n = V.rows(), grain = 512;
  parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
    const Eigen::Index r0 = t * grain, b = std::min<int64_t>(grain, n - r0);
    Eigen::MatrixXd tmp(b, k);
    tmp.noalias() = V.block(r0, 0, b, m) * Y.topLeftCorner(m, k);
    V.block(r0, 0, b, k) = tmp;
  });
}

/// Thick-restart Lanczos (K. Wu, H. Simon, "Thick-restart Lanczos method for large symmetric
/// eigenvalue problems", SIAM J. Matrix Anal. Appl. 22 (2000)) for the nev largest eigenpairs of
/// the symmetric operator op (op.perform_op(x, y): y = A x), with full reorthogonalization (two
/// classical Gram-Schmidt passes per step). The ncv basis vectors are the only n x ncv storage:
/// a restart keeps the kr leading Ritz vectors by rotating the basis in place (rotate_in_place),
/// and the converged Ritz vectors are the first nev columns of the rotated basis, which is then
/// shrunk to them (realloc, no copy). Restart rule, start (v_1 = A x0 / ||A x0||), convergence
/// test (|beta_m y_m,i| <= tol max(eps^(2/3), |theta_i|) for the nev largest) and maxit (restarts)
/// as Spectra's SymEigsSolver, which held its basis, a restart copy of kr + 1 vectors and the nev
/// Ritz vectors at once (on the 10^5-node Barabasi-Albert graph 26 + 20 + 13 MB for k = 16).
/// x0: start (nullptr: start_vector(n, 0x7a11)). Returns converged; *val = the nev Ritz values,
/// descending, *vec = their vectors (n x nev); *ops counts the applications of op.
template <class Op>
bool thick_restart_lanczos(const Op& op, Eigen::Index n, int64_t nev, int64_t ncv, int64_t maxit, const double* x0,
                           Eigen::VectorXd* val, Eigen::MatrixXd* vec, int64_t* ops) {
  const Eigen::Index m = static_cast<Eigen::Index>(ncv);
  if (nev < 1 || m <= nev || m > n) return false;
  Eigen::MatrixXd& V = *vec;
  V.resize(n, m);
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(m, m);
  // h, h2 sized once: Eigen's resize frees the old block before allocating the new one, so a
  // failed allocation there would leave a dangling pointer behind (a double free on unwinding).
  Eigen::VectorXd w(n), h(m), h2(m);
  {
    const Eigen::VectorXd x = x0 != nullptr ? Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(x0, n))
                                            : start_vector(n, 0x7a11ull);
    op.perform_op(x.data(), w.data());
    ++*ops;
    const double nw = w.norm();
    if (!(nw > 0.0) || !std::isfinite(nw)) return false;
    V.col(0) = w / nw;
  }
  const double eps23 = std::pow(std::numeric_limits<double>::epsilon(), 2.0 / 3.0);
  uint64_t seed = 0x7a12ull;
  Eigen::Index k = 0;  // kept Ritz vectors at the start of this cycle
  double beta = 0.0;   // ||f|| after the last step
  for (int64_t it = 0;; ++it) {
    for (Eigen::Index j = k; j < m; ++j) {
      op.perform_op(V.col(j).data(), w.data());
      ++*ops;
      const auto Vj = V.leftCols(j + 1);
      auto hj = h.head(j + 1), h2j = h2.head(j + 1);
      hj.noalias() = Vj.transpose() * w;
      w.noalias() -= Vj * hj;
      h2j.noalias() = Vj.transpose() * w;
      w.noalias() -= Vj * h2j;
      T(j, j) = h[j] + h2[j];
      beta = w.norm();
      if (!std::isfinite(beta)) return false;
      if (j + 1 == m) break;
      if (beta > 1e-12 * std::max(1.0, std::abs(T(j, j)))) {
        V.col(j + 1) = w / beta;
        T(j, j + 1) = T(j + 1, j) = beta;
      } else {  // invariant subspace: continue from a random vector orthogonal to the basis
        Eigen::VectorXd r = start_vector(n, seed++);
        for (int pass = 0; pass < 2; ++pass) r -= Vj * (Vj.transpose() * r).eval();
        const double nr = r.norm();
        if (!(nr > 1e-8)) return false;
        V.col(j + 1) = r / nr;
      }
    }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(T);
    if (es.info() != Eigen::Success) return false;
    // descending Ritz values and their vectors in the basis
    Eigen::VectorXd theta(m);
    Eigen::MatrixXd Y(m, m);
    for (Eigen::Index i = 0; i < m; ++i) {
      theta[i] = es.eigenvalues()[m - 1 - i];
      Y.col(i) = es.eigenvectors().col(m - 1 - i);
    }
    int64_t nconv = 0;
    for (int64_t i = 0; i < nev; ++i)
      nconv += std::abs(beta * Y(m - 1, i)) <= kSpectraTol * std::max(eps23, std::abs(theta[i]));
    if (nconv >= nev) {
      rotate_in_place(V, m, Y, nev);
      V.conservativeResize(n, nev);
      *val = theta.head(nev);
      return true;
    }
    if (it >= maxit) return false;
    Eigen::Index kr = nev + std::min<int64_t>(nconv, (m - nev) / 2);
    if (nev == 1 && m >= 6) kr = m / 2;
    else if (nev == 1 && m > 2) kr = 2;
    kr = std::min<Eigen::Index>(kr, m - 1);
    rotate_in_place(V, m, Y, kr);
    T.setZero();
    for (Eigen::Index i = 0; i < kr; ++i) {
      T(i, i) = theta[i];
      T(i, kr) = T(kr, i) = beta * Y(m - 1, i);
    }
    if (beta > 0.0) {
      V.col(kr) = w / beta;
    } else {
      Eigen::VectorXd r = start_vector(n, seed++);
      const auto Vk = V.leftCols(kr);
      for (int pass = 0; pass < 2; ++pass) r -= Vk * (Vk.transpose() * r).eval();
      V.col(kr) = r / r.norm();
    }
    k = kr;
  }
}

/// The bound a: Ritz values of an m-step Lanczos run on L from v0 without reorthogonalization (m
/// products, three vectors), ascending, with the spurious values removed by the Cullum-Willoughby
/// test: numerically equal values of T_m (a converged value and the copies that the loss of
/// orthogonality makes) count once, and a simple value of T_m that is also a value of T_m with its
/// first row and column deleted (to within tol) is dropped. Stops early at an invariant subspace.
Eigen::VectorXd kept_ritz_values(const Lap& L, const Eigen::VectorXd& v0, int64_t m, int64_t* products) {
  const Eigen::Index n = L.n;
  Eigen::VectorXd q = v0 / v0.norm(), qprev = Eigen::VectorXd::Zero(n), w(n);
  std::vector<double> alpha, beta;
  double b = 0.0;
  for (int64_t j = 0; j < m; ++j) {
    L.shifted_apply(0.0, q.data(), w.data());  // w = -L q
    w = -w - b * qprev;
    ++*products;
    const double a = q.dot(w);
    w -= a * q;
    alpha.push_back(a);
    b = w.norm();
    if (j + 1 == m || !(b > 1e-12 * L.bound)) break;
    beta.push_back(b);
    qprev.swap(q);
    q = w / b;
  }
  const Eigen::Index s = static_cast<Eigen::Index>(alpha.size());
  if (s < 2) return Eigen::VectorXd();
  Eigen::VectorXd d = Eigen::Map<Eigen::VectorXd>(alpha.data(), s);
  Eigen::VectorXd e = Eigen::Map<Eigen::VectorXd>(beta.data(), s - 1);
  // (Eigen's computeFromTridiagonal hit its iteration limit on some hub graphs: dense solves of
  // the small tridiagonal matrices instead)
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(s, s);
  for (Eigen::Index i = 0; i < s; ++i) {
    T(i, i) = alpha[static_cast<size_t>(i)];
    if (i + 1 < s) T(i, i + 1) = T(i + 1, i) = beta[static_cast<size_t>(i)];
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> full(T, Eigen::EigenvaluesOnly);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> cut(T.bottomRightCorner(s - 1, s - 1), Eigen::EigenvaluesOnly);
  const double tol = 1e-10 * L.bound * static_cast<double>(s);
  std::vector<double> kept;
  for (Eigen::Index i = 0; i < s;) {
    // a group of numerically equal values of T_m: one genuine value and its copies, kept once
    Eigen::Index j = i + 1;
    while (j < s && full.eigenvalues()[j] - full.eigenvalues()[j - 1] <= tol) ++j;
    const double x = full.eigenvalues()[i];
    bool spurious = false;
    if (j == i + 1)  // a simple value that T_m without its first row and column also has
      for (Eigen::Index t = 0; t < s - 1 && !spurious; ++t) spurious = std::abs(cut.eigenvalues()[t] - x) <= tol;
    if (!spurious) kept.push_back(x);
    i = j;
  }
  return Eigen::Map<Eigen::VectorXd>(kept.data(), static_cast<Eigen::Index>(kept.size()));
}

}  // namespace

bool posenc::graph_detail::filtered_lanczos(const Lap& L, int64_t nev, int64_t ncv, int64_t maxit, Pairs* out,
                                            SolveStats* st, std::string* why, double* bound) {
  char buf[240];
  // The bound: the (nev+1)-th kept Ritz value of a Lanczos run of m = 20 nev products (at least
  // 100, at most 600). On the 10^5-node Barabasi-Albert graph (k = 16, lambda_17 = 0.2787, prototype
  // bench/lappe_filter_proto.py) m = 100 / 160 / 250 / 400 kept 0.402 / 0.326 / 0.295 / 0.285 at
  // 0.1 - 0.4 CPU-s; a full-reorthogonalization run of m = 160 (a rigorous bound, 0.3125) took 1 s
  // there and 4 s here (Eigen's baseline-SSE2 GEMV); the filtered solve took 3.1 s at a = 0.3125 and
  // 2.0 s at a = 0.28. A kept value below lambda_k cannot give a wrong spectrum: the attempt then
  // does not converge within maxit restarts, or mu_k <= 1 rejects it.
  // Test knob: solve for nsolve = nev + r pairs, drop r of them (filter_drops).
  std::vector<int64_t> drops = filter_drops(nev);
  if (nev + static_cast<int64_t>(drops.size()) + 1 > L.n) drops.clear();
  const int64_t nsolve = nev + static_cast<int64_t>(drops.size());
  if (!drops.empty()) ncv = std::min<int64_t>(L.n, std::max<int64_t>(ncv, 2 * nsolve + 1));
  const int64_t m = std::min<int64_t>(L.n - 1, std::max<int64_t>(100, std::min<int64_t>(600, 20 * nsolve)));
  int64_t products = 0;
  const Eigen::VectorXd theta = kept_ritz_values(L, start_vector(L.n, 0xf1172ull), m, &products);
  st->matvecs += products;
  if (theta.size() < nsolve + 1) {
    GDBG("filter bound: m=%lld products=%lld: %lld kept Ritz values < k + 1", (long long)m, (long long)products,
         (long long)theta.size());
    *why += "filtered Lanczos skipped (fewer than k + 1 Ritz values for the bound); ";
    return false;
  }
  const double a = theta[nsolve] * filter_bound_scale();
  const double c = L.bound;
  GDBG("filter bound: m=%lld products=%lld theta_{k+1}=%.6g a=%.6g c=%g drops=%lld", (long long)m, (long long)products,
       theta[nsolve], a, c, (long long)drops.size());
  // With a near c the filter separates little and costs d products per step: plain Lanczos then.
  if (!(a > 0.0 && a < 0.5 * c)) {
    std::snprintf(buf, sizeof buf, "filtered Lanczos skipped (bound a = %g not below c/2 = %g); ", a, 0.5 * c);
    *why += buf;
    return false;
  }
  const Eigen::MatrixXd none(L.n, 0);
  // Memory: the thick-restart Lanczos holds its ncv basis vectors and hands back the first nsolve
  // of them rotated into the Ritz vectors (the rest freed); the Rayleigh-Ritz step below rotates
  // those nev vectors in place again, with one product vector.
  Eigen::MatrixXd Q;
  Eigen::VectorXd mu;
  {
    ChebyshevOp op{&L, 0.5 * (c + a), 2.0 / (c - a), kFilterDegree, &none, {}, {}, {}};
    int64_t ops = 0;
    const bool conv = thick_restart_lanczos(op, L.n, nsolve, ncv, maxit, nullptr, &mu, &Q, &ops);
    st->matvecs += ops * kFilterDegree;
    GDBG("filtered lanczos done: nev=%lld ncv=%lld d=%d ops=%lld converged=%d", (long long)nev, (long long)ncv,
         kFilterDegree, (long long)ops, (int)conv);
    if (!conv) {
      std::snprintf(buf, sizeof buf, "filtered Lanczos (degree %d, a = %g, nev=%lld, ncv=%lld, maxit=%lld) did not converge; ",
                    kFilterDegree, a, static_cast<long long>(nev), static_cast<long long>(ncv),
                    static_cast<long long>(maxit));
      *why += buf;
      return false;
    }
    // mu descending; Q the basis rotated in place into the nsolve Ritz vectors
    GDBG("filtered lanczos: mu_1=%.6g mu_k=%.17g", mu[0], mu[nev - 1]);
    // mu_k must exceed 1 by more than rounding (about eps mu_1 in the Ritz values; p(c) = T_d(-1) =
    // 1 exactly when c is an eigenvalue, as for bipartite graphs under L_sym): else fewer than nev
    // eigenvalues of L may lie below a, and the values are not provably the smallest.
    const double mu_min = 1.0 + 1e-6 + 1e-9 * std::abs(mu[0]);
    if (!(mu[nsolve - 1] > mu_min)) {
      std::snprintf(buf, sizeof buf,
                    "filtered Lanczos rejected (mu_k = %.17g <= %.17g: fewer than k eigenvalues below a = %g?); ",
                    mu[nsolve - 1], mu_min, a);
      *why += buf;
      return false;
    }
    if (!drops.empty()) {  // test knob: keep the nev columns not listed (columns in descending mu)
      Eigen::Index t = 0;
      for (int64_t j = 0; j < nsolve; ++j)
        if (!std::binary_search(drops.begin(), drops.end(), j)) {
          if (t != j) Q.col(t) = Q.col(j);
          ++t;
        }
      Q.conservativeResize(Eigen::NoChange, nev);
    }
  }
  // Rayleigh-Ritz with L on the returned (orthonormal) vectors: eigenvalues of L and vectors
  // that the caller's residual test checks against L itself.
  Eigen::MatrixXd H(nev, nev);
  Eigen::VectorXd y(L.n);
  for (int64_t j = 0; j < nev; ++j) {
    L.shifted_apply(0.0, Q.col(j).data(), y.data());  // -L q_j
    H.col(j) = -(Q.transpose() * y);
  }
  st->matvecs += nev;
  H = 0.5 * (H + H.transpose()).eval();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(H);
  if (es.info() != Eigen::Success) {
    *why += "filtered Lanczos: Rayleigh-Ritz eigensolver failed; ";
    return false;
  }
  out->val = es.eigenvalues();
  out->vec = std::move(Q);
  rotate_in_place(out->vec, nev, es.eigenvectors(), nev);
  GDBG("filtered lanczos: Rayleigh-Ritz done");
  *bound = a;
  return true;
}

bool posenc::graph_detail::deflated_filtered_lanczos(const Lap& L, double a, const Eigen::MatrixXd& Q, int64_t nev,
                                                     int64_t ncv, int64_t maxit, const double* start, Pairs* out,
                                                     SolveStats* st) {
  const double c = L.bound;
  ChebyshevOp op{&L, 0.5 * (c + a), 2.0 / (c - a), kFilterDegree, &Q, {}, {}, {}};
  int64_t ops = 0;
  Eigen::VectorXd mu;
  GDBG("deflated filtered lanczos: start");
  const bool conv = thick_restart_lanczos(op, L.n, nev, ncv, maxit, start, &mu, &out->vec, &ops);
  st->matvecs += ops * kFilterDegree;
  GDBG("deflated filtered lanczos done: nev=%lld ncv=%lld deflate=%lld d=%d ops=%lld converged=%d", (long long)nev,
       (long long)ncv, (long long)Q.cols(), kFilterDegree, (long long)ops, (int)conv);
  if (!conv) return false;
  out->val.resize(out->vec.cols());
  Eigen::VectorXd y(L.n);
  for (Eigen::Index j = 0; j < out->vec.cols(); ++j) {  // Rayleigh quotients with L
    L.shifted_apply(0.0, out->vec.col(j).data(), y.data());
    out->val[j] = -out->vec.col(j).dot(y) / out->vec.col(j).squaredNorm();
  }
  st->matvecs += out->vec.cols();
  return true;
}
