// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph.cpp — graph family: Laplacian eigenvector PE (LapPE) and random-walk structural
// encodings (RWSE).
//
// Plain lib code (baseline flags, no SIMD kernel table): LapPE is dominated by sparse
// matrix-vector products and Lanczos bookkeeping (Eigen / Spectra), RWSE by irregular sparse
// propagation whose gathers do not vectorize profitably. Both are split over the posenc arena with
// parallel_tiles, whose tiles depend on the problem only, so results are bitwise identical for any
// thread count, and identical on every ISA path (no ISA-specific code here).
//
// Graph construction (both functions): every listed edge (src[e], dst[e]) with src != dst adds
// weights[e] (1 when weights is NULL) to the undirected pair {src, dst}, whatever its direction
// (duplicates are summed, as PyG's coalesce / to_undirected(reduce="add") do); self-loops are
// ignored; pairs whose summed weight is 0 are dropped. The result is a symmetric CSR adjacency.
//
// POSENC_GRAPH_DEBUG=1 in the environment prints the LapPE solver's progress (factorization fill,
// operator applications per attempt, timestamps) to stderr; it changes no result.
#include "lib/internal.hpp"

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Spectra/SymEigsShiftSolver.h>
#include <Spectra/SymEigsSolver.h>
#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <utility>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace posenc;
using namespace posenc::detail;

namespace {

bool graph_debug() {
  static const bool on = std::getenv("POSENC_GRAPH_DEBUG") != nullptr;
  return on;
}
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
#define GDBG(...) do { if (graph_debug()) { std::fprintf(stderr, "[graph %.3f] ", now_s()); std::fprintf(stderr, __VA_ARGS__); std::fputc('\n', stderr); } } while (0)

// ------------------------------------------------------------------------------ validation

posenc_status check_graph(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                          int64_t num_edges) {
  if (num_nodes <= 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "num_nodes must be > 0 (got %lld): the graph is empty",
                     static_cast<long long>(num_nodes));
  if (num_nodes > static_cast<int64_t>(std::numeric_limits<int32_t>::max()) - 1)
    return set_error(POSENC_ERR_SIZE_OVERFLOW, "num_nodes must be < 2^31 - 1 (got %lld)",
                     static_cast<long long>(num_nodes));
  POSENC_CHECK(check_nonneg(num_edges, "num_edges"));
  POSENC_CHECK(check_not_null_if(src, num_edges, "src"));
  POSENC_CHECK(check_not_null_if(dst, num_edges, "dst"));
  int64_t twice = 0;
  POSENC_CHECK(checked_mul(num_edges, 2, &twice, "adjacency entries (2 * num_edges)", 16));
  for (int64_t e = 0; e < num_edges; ++e) {
    if (src[e] < 0 || src[e] >= num_nodes)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "src[%lld] = %lld is out of range [0, num_nodes = %lld)",
                       static_cast<long long>(e), static_cast<long long>(src[e]), static_cast<long long>(num_nodes));
    if (dst[e] < 0 || dst[e] >= num_nodes)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "dst[%lld] = %lld is out of range [0, num_nodes = %lld)",
                       static_cast<long long>(e), static_cast<long long>(dst[e]), static_cast<long long>(num_nodes));
    if (weights != nullptr && !(std::isfinite(weights[e]) && weights[e] >= 0.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "weights[%lld] must be finite and >= 0 (got %g)",
                       static_cast<long long>(e), weights[e]);
  }
  return POSENC_OK;
}

// ------------------------------------------------------------------------------ CSR

/// Symmetric weighted adjacency in CSR, neighbours sorted, no self-loops, no zero weights.
struct Graph {
  int64_t n = 0;
  std::vector<int64_t> ptr;  // [n + 1]
  std::vector<int32_t> idx;  // [nnz]
  std::vector<double> val;   // [nnz]
  std::vector<double> deg;   // [n] weighted degree (sum of the row, in column order)
};

Graph build_graph(int64_t n, const int64_t* src, const int64_t* dst, const double* weights, int64_t m) {
  Graph g;
  g.n = n;
  std::vector<int64_t> cnt(static_cast<size_t>(n) + 1, 0);
  for (int64_t e = 0; e < m; ++e)
    if (src[e] != dst[e]) {
      ++cnt[static_cast<size_t>(src[e]) + 1];
      ++cnt[static_cast<size_t>(dst[e]) + 1];
    }
  for (int64_t i = 0; i < n; ++i) cnt[static_cast<size_t>(i) + 1] += cnt[static_cast<size_t>(i)];
  std::vector<std::pair<int32_t, double>> ent(static_cast<size_t>(cnt[static_cast<size_t>(n)]));
  {
    std::vector<int64_t> pos(cnt.begin(), cnt.end() - 1);
    for (int64_t e = 0; e < m; ++e) {
      const int64_t u = src[e], v = dst[e];
      if (u == v) continue;
      const double w = weights ? weights[e] : 1.0;
      ent[static_cast<size_t>(pos[static_cast<size_t>(u)]++)] = {static_cast<int32_t>(v), w};
      ent[static_cast<size_t>(pos[static_cast<size_t>(v)]++)] = {static_cast<int32_t>(u), w};
    }
  }
  // Per row: sort by (column, weight) and sum duplicates in that order. Rows u and v hold the same
  // multiset of weights for the pair {u, v}, so A stays exactly symmetric.
  g.ptr.assign(static_cast<size_t>(n) + 1, 0);
  g.idx.reserve(ent.size());
  g.val.reserve(ent.size());
  g.deg.assign(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    auto b = ent.begin() + cnt[static_cast<size_t>(i)], e = ent.begin() + cnt[static_cast<size_t>(i) + 1];
    std::sort(b, e);
    double d = 0.0;
    for (auto it = b; it != e;) {
      const int32_t c = it->first;
      double w = 0.0;
      for (; it != e && it->first == c; ++it) w += it->second;
      if (w > 0.0) {
        g.idx.push_back(c);
        g.val.push_back(w);
        d += w;
      }
    }
    g.deg[static_cast<size_t>(i)] = d;
    g.ptr[static_cast<size_t>(i) + 1] = static_cast<int64_t>(g.idx.size());
  }
  return g;
}

// ------------------------------------------------------------------------------ LapPE

/// Laplacian of one connected component in local numbering (CSR including the diagonal).
struct Lap {
  int64_t n = 0;
  std::vector<int64_t> ptr;
  std::vector<int32_t> idx;
  std::vector<double> val;
  double bound = 2.0;  // >= lambda_max
  int64_t nnz() const { return static_cast<int64_t>(idx.size()); }
  /// y = c x - L x, parallel over fixed row tiles.
  void shifted_apply(double c, const double* x, double* y) const {
    const int64_t grain = 2048;
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      for (int64_t i = r0; i < r1; ++i) {
        double s = 0.0;
        for (int64_t p = ptr[static_cast<size_t>(i)]; p < ptr[static_cast<size_t>(i) + 1]; ++p)
          s += val[static_cast<size_t>(p)] * x[idx[static_cast<size_t>(p)]];
        y[i] = c * x[i] - s;
      }
    });
  }
};

Lap component_laplacian(const Graph& g, const std::vector<int32_t>& nodes, const std::vector<int32_t>& local,
                        posenc_laplacian kind) {
  Lap L;
  L.n = static_cast<int64_t>(nodes.size());
  L.ptr.assign(static_cast<size_t>(L.n) + 1, 0);
  std::vector<double> isq;
  if (kind == POSENC_LAPLACIAN_SYM) {
    isq.resize(nodes.size());
    for (size_t j = 0; j < nodes.size(); ++j) {
      const double d = g.deg[static_cast<size_t>(nodes[j])];
      isq[j] = d > 0.0 ? 1.0 / std::sqrt(d) : 0.0;
    }
  }
  double maxdeg = 0.0;
  for (int64_t j = 0; j < L.n; ++j) {
    const int32_t u = nodes[static_cast<size_t>(j)];
    const double d = g.deg[static_cast<size_t>(u)];
    maxdeg = std::max(maxdeg, d);
    bool diag_done = false;
    auto put_diag = [&] {
      L.idx.push_back(static_cast<int32_t>(j));
      L.val.push_back(kind == POSENC_LAPLACIAN_SYM ? 1.0 : d);
      diag_done = true;
    };
    for (int64_t p = g.ptr[static_cast<size_t>(u)]; p < g.ptr[static_cast<size_t>(u) + 1]; ++p) {
      const int32_t c = local[static_cast<size_t>(g.idx[static_cast<size_t>(p)])];
      if (!diag_done && c > j) put_diag();
      L.idx.push_back(c);
      const double w = g.val[static_cast<size_t>(p)];
      L.val.push_back(kind == POSENC_LAPLACIAN_SYM ? -((isq[static_cast<size_t>(j)] * isq[static_cast<size_t>(c)]) * w) : -w);
    }
    if (!diag_done) put_diag();
    L.ptr[static_cast<size_t>(j) + 1] = L.nnz();
  }
  // Spectrum bound: 2 for L_sym; Gershgorin (2 * max weighted degree) for D - A.
  L.bound = kind == POSENC_LAPLACIAN_SYM ? 2.0 : std::max(2.0 * maxdeg, 1e-300);
  return L;
}

/// Eigenpairs of one component: values ascending, vectors as columns (local numbering).
struct Pairs {
  Eigen::VectorXd val;
  Eigen::MatrixXd vec;
};

constexpr int64_t kDenseMax = 1024;   // components up to this size: dense solver
constexpr double kSpectraTol = 1e-10; // Spectra's relative Ritz tolerance

bool dense_pairs(const Lap& L, int64_t nev, Pairs* out) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(L.n, L.n);
  for (int64_t i = 0; i < L.n; ++i)
    for (int64_t p = L.ptr[static_cast<size_t>(i)]; p < L.ptr[static_cast<size_t>(i) + 1]; ++p)
      A(i, L.idx[static_cast<size_t>(p)]) = L.val[static_cast<size_t>(p)];
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A);
  if (es.info() != Eigen::Success) return false;
  out->val = es.eigenvalues().head(nev);
  out->vec = es.eigenvectors().leftCols(nev);
  return true;
}

/// Spectra operator y = c x - L x restricted to the orthogonal complement of the columns of Q
/// (Q may be empty): y = P (c I - L) P x with P = I - Q Q^T.
struct ShiftedOp {
  using Scalar = double;
  const Lap* L;
  double c;
  const Eigen::MatrixXd* Q;
  mutable Eigen::VectorXd tmp;
  Eigen::Index rows() const { return L->n; }
  Eigen::Index cols() const { return L->n; }
  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<const Eigen::VectorXd> x(x_in, L->n);
    Eigen::Map<Eigen::VectorXd> y(y_out, L->n);
    if (Q->cols() == 0) {
      L->shifted_apply(c, x_in, y_out);
      return;
    }
    tmp = x - (*Q) * (Q->transpose() * x);
    L->shifted_apply(c, tmp.data(), y_out);
    y -= (*Q) * (Q->transpose() * y);
  }
};

using SpMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
/// SimplicialLDLT that reports the size of its factor after the symbolic analysis, so that the
/// shift-invert path is taken only when the fill-in is affordable.
struct ProbedLDLT : Eigen::SimplicialLDLT<SpMat, Eigen::Lower, Eigen::AMDOrdering<int>> {
  int64_t factor_nnz() const {
    int64_t s = 0;
    for (Eigen::Index i = 0; i < m_nonZerosPerCol.size(); ++i) s += m_nonZerosPerCol[i];
    return s;
  }
  /// Floating-point operations of the numeric factorization: sum over columns of (column count)^2.
  double factor_flops() const {
    double s = 0.0;
    for (Eigen::Index i = 0; i < m_nonZerosPerCol.size(); ++i) {
      const double c = static_cast<double>(m_nonZerosPerCol[i]) + 1.0;
      s += c * c;
    }
    return s;
  }
};

/// Spectra shift-solve operator: y = P (L - sigma I)^{-1} P x with a prefactored LDL^T and
/// P = I - Q Q^T (Q may be empty).
struct ShiftSolveOp {
  using Scalar = double;
  const ProbedLDLT* ldlt;
  Eigen::Index n;
  const Eigen::MatrixXd* Q;
  mutable Eigen::VectorXd tmp;
  Eigen::Index rows() const { return n; }
  Eigen::Index cols() const { return n; }
  void set_shift(double) {}  // the factorization already holds L - sigma I
  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<const Eigen::VectorXd> x(x_in, n);
    Eigen::Map<Eigen::VectorXd> y(y_out, n);
    if (Q->cols() == 0) {
      y = ldlt->solve(x);
      return;
    }
    tmp = x - (*Q) * (Q->transpose() * x);
    y = ldlt->solve(tmp);
    y -= (*Q) * (Q->transpose() * y);
  }
};

/// A factorization of L - sigma I kept for the deflation rounds.
struct ShiftInvert {
  ProbedLDLT ldlt;
  double sigma = 0.0;
  bool ready = false;
};

/// Rayleigh quotients, residuals; returns the largest residual ||L v - lambda v||.
double polish(const Lap& L, Pairs* p) {
  Eigen::VectorXd y(L.n);
  double worst = 0.0;
  for (Eigen::Index j = 0; j < p->vec.cols(); ++j) {
    Eigen::VectorXd v = p->vec.col(j);
    v /= v.norm();
    L.shifted_apply(0.0, v.data(), y.data());  // y = -L v
    const double lam = -v.dot(y);
    worst = std::max(worst, (y + lam * v).norm());
    p->vec.col(j) = v;
    p->val[j] = lam;
  }
  return worst;
}

void sort_pairs(Pairs* p) {
  const Eigen::Index m = p->val.size();
  std::vector<Eigen::Index> ord(static_cast<size_t>(m));
  std::iota(ord.begin(), ord.end(), 0);
  std::stable_sort(ord.begin(), ord.end(), [&](Eigen::Index a, Eigen::Index b) { return p->val[a] < p->val[b]; });
  Pairs q;
  q.val.resize(m);
  q.vec.resize(p->vec.rows(), m);
  for (Eigen::Index j = 0; j < m; ++j) {
    q.val[j] = p->val[ord[static_cast<size_t>(j)]];
    q.vec.col(j) = p->vec.col(ord[static_cast<size_t>(j)]);
  }
  *p = std::move(q);
}

struct SolveStats {
  int64_t matvecs = 0;
  int64_t solves = 0;  // shift-invert triangular solves
  std::string method;
};

/// Largest eigenpairs of P (cI - L) P by Spectra; returns converged or not (message in *why).
bool lanczos(const Lap& L, const Eigen::MatrixXd& Q, int64_t nev, int64_t ncv, int64_t maxit, Pairs* out,
             SolveStats* st, std::string* why) {
  ShiftedOp op{&L, L.bound, &Q, {}};
  Spectra::SymEigsSolver<ShiftedOp> eig(op, nev, ncv);
  eig.init();
  eig.compute(Spectra::SortRule::LargestAlge, maxit, kSpectraTol, Spectra::SortRule::LargestAlge);
  st->matvecs += eig.num_operations();
  GDBG("lanczos done: nev=%lld ncv=%lld deflate=%lld ops=%lld info=%d", (long long)nev, (long long)ncv, (long long)Q.cols(), (long long)eig.num_operations(), (int)eig.info());
  if (eig.info() != Spectra::CompInfo::Successful) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "Lanczos on %g*I - L (Spectra SymEigsSolver, nev=%lld, ncv=%lld, maxit=%lld): %s",
                  L.bound, static_cast<long long>(nev), static_cast<long long>(ncv), static_cast<long long>(maxit),
                  "did not converge");
    *why += buf;
    return false;
  }
  out->val = L.bound - eig.eigenvalues().array();
  out->vec = eig.eigenvectors();
  return true;
}

bool shift_invert(const Lap& L, int64_t nev, int64_t ncv, ShiftInvert* si, Pairs* out, SolveStats* st,
                  std::string* why) {
  if (L.n >= std::numeric_limits<int>::max() / 2 || L.nnz() >= std::numeric_limits<int>::max()) {
    *why += "shift-invert skipped (matrix too large for 32-bit sparse indices); ";
    return false;
  }
  // sigma slightly below 0: L - sigma I is positive definite (sigma = 0 would be singular).
  const double sigma = -1e-3 * L.bound / 2.0;
  std::vector<Eigen::Triplet<double, int>> tr;
  tr.reserve(static_cast<size_t>(L.nnz()));
  for (int64_t i = 0; i < L.n; ++i)
    for (int64_t p = L.ptr[static_cast<size_t>(i)]; p < L.ptr[static_cast<size_t>(i) + 1]; ++p) {
      const int32_t c = L.idx[static_cast<size_t>(p)];
      if (c <= i) tr.emplace_back(static_cast<int>(i), c, L.val[static_cast<size_t>(p)] - (c == i ? sigma : 0.0));
    }
  SpMat M(static_cast<int>(L.n), static_cast<int>(L.n));
  M.setFromTriplets(tr.begin(), tr.end());
  GDBG("M built");
  ProbedLDLT& ldlt = si->ldlt;
  si->sigma = sigma;
  ldlt.analyzePattern(M);
  const int64_t fill = ldlt.factor_nnz();
  const int64_t fill_max = 40 * L.nnz() + 100000;
  char buf[240];
  if (fill > fill_max) {
    std::snprintf(buf, sizeof buf,
                  "shift-invert skipped (LDL^T factor would hold %lld nonzeros > %lld, 40x those of L); ",
                  static_cast<long long>(fill), static_cast<long long>(fill_max));
    *why += buf;
    return false;
  }
  GDBG("analyze done: n=%lld nnz=%lld fill=%lld", (long long)L.n, (long long)L.nnz(), (long long)fill);
  ldlt.factorize(M);
  GDBG("factorize done");
  if (ldlt.info() != Eigen::Success) {
    *why += "shift-invert: LDL^T factorization of L - sigma*I failed; ";
    return false;
  }
  si->ready = true;
  const Eigen::MatrixXd none(L.n, 0);
  ShiftSolveOp op{&ldlt, static_cast<Eigen::Index>(L.n), &none, {}};
  Spectra::SymEigsShiftSolver<ShiftSolveOp> eig(op, nev, ncv, sigma);
  eig.init();
  eig.compute(Spectra::SortRule::LargestMagn, 300, kSpectraTol, Spectra::SortRule::SmallestAlge);
  st->solves += eig.num_operations();
  GDBG("SI done: ops=%lld info=%d", (long long)eig.num_operations(), (int)eig.info());
  if (eig.info() != Spectra::CompInfo::Successful) {
    std::snprintf(buf, sizeof buf, "shift-invert (sigma=%g, nev=%lld, ncv=%lld, maxit=300) did not converge; ", sigma,
                  static_cast<long long>(nev), static_cast<long long>(ncv));
    *why += buf;
    return false;
  }
  out->val = eig.eigenvalues();
  out->vec = eig.eigenvectors();
  return true;
}

/// Smallest eigenpairs of L on the orthogonal complement of Q, by Lanczos on
/// P (L - sigma I)^{-1} P (largest magnitude).
bool deflated_shift_invert(const Lap& L, const ShiftInvert& si, const Eigen::MatrixXd& Q, int64_t nev, int64_t ncv,
                           const double* start, Pairs* out, SolveStats* st) {
  ShiftSolveOp op{&si.ldlt, static_cast<Eigen::Index>(L.n), &Q, {}};
  Spectra::SymEigsSolver<ShiftSolveOp> eig(op, nev, ncv);
  if (start != nullptr) eig.init(start); else eig.init();
  eig.compute(Spectra::SortRule::LargestMagn, 300, kSpectraTol, Spectra::SortRule::LargestMagn);
  st->solves += eig.num_operations();
  GDBG("deflated SI done: nev=%lld ops=%lld info=%d", (long long)nev, (long long)eig.num_operations(), (int)eig.info());
  if (eig.info() != Spectra::CompInfo::Successful) return false;
  out->val = si.sigma + 1.0 / eig.eigenvalues().array();
  out->vec = eig.eigenvectors();
  return true;
}

/// Deflated Lanczos: the nev largest eigenpairs of P (cI - L) P, P = I - Q Q^T, from the start
/// vector start (nullptr: Spectra's default).
bool deflated_lanczos(const Lap& L, const Eigen::MatrixXd& Q, int64_t nev, int64_t ncv, int64_t maxit,
                      const double* start, Pairs* out, SolveStats* st) {
  ShiftedOp op{&L, L.bound, &Q, {}};
  Spectra::SymEigsSolver<ShiftedOp> eig(op, nev, ncv);
  if (start != nullptr) eig.init(start); else eig.init();
  eig.compute(Spectra::SortRule::LargestAlge, maxit, kSpectraTol, Spectra::SortRule::LargestAlge);
  st->matvecs += eig.num_operations();
  GDBG("deflated lanczos done: nev=%lld ncv=%lld deflate=%lld ops=%lld info=%d", (long long)nev, (long long)ncv,
       (long long)Q.cols(), (long long)eig.num_operations(), (int)eig.info());
  if (eig.info() != Spectra::CompInfo::Successful) return false;
  out->val = L.bound - eig.eigenvalues().array();
  out->vec = eig.eigenvectors();
  return true;
}

/// Sylvester's law of inertia: the number of eigenvalues of L below sigma equals the number of
/// negative pivots D of any LDL^T factorization of L - sigma I (a congruence). The sparsity pattern
/// (L's, diagonal included) is analysed once (AMD ordering); each count is one numeric
/// factorization.
struct Inertia {
  const Lap* L = nullptr;
  SpMat M;
  std::vector<int> diag;  // position of M(i, i) in M's value array
  ProbedLDLT ldlt;
  int state = 0;          // 0: not analysed, 1: affordable, -1: fill beyond the limit
  int64_t fill = 0;

  double flops = 0.0;
  /// Analyses the pattern once; false when the numeric factorization would cost more than
  /// flops_max floating-point operations.
  bool affordable(double flops_max) {
    if (state == 0) {
      if (L->n >= std::numeric_limits<int>::max() / 2 || L->nnz() >= std::numeric_limits<int>::max()) {
        state = -1;
        return false;
      }
      std::vector<Eigen::Triplet<double, int>> tr;
      tr.reserve(static_cast<size_t>(L->nnz()));
      for (int64_t i = 0; i < L->n; ++i)
        for (int64_t p = L->ptr[static_cast<size_t>(i)]; p < L->ptr[static_cast<size_t>(i) + 1]; ++p) {
          const int32_t c = L->idx[static_cast<size_t>(p)];
          if (c <= i) tr.emplace_back(static_cast<int>(i), c, L->val[static_cast<size_t>(p)]);
        }
      M.resize(static_cast<int>(L->n), static_cast<int>(L->n));
      M.setFromTriplets(tr.begin(), tr.end());
      diag.assign(static_cast<size_t>(L->n), -1);
      for (int j = 0; j < M.outerSize(); ++j)
        for (int p = M.outerIndexPtr()[j]; p < M.outerIndexPtr()[j + 1]; ++p)
          if (M.innerIndexPtr()[p] == j) diag[static_cast<size_t>(j)] = p;
      ldlt.analyzePattern(M);
      fill = ldlt.factor_nnz();
      flops = ldlt.factor_flops();
      state = flops <= flops_max ? 1 : -1;
      GDBG("inertia analyse: n=%lld nnz=%lld fill=%lld flops=%.3g (limit %.3g)", (long long)L->n, (long long)L->nnz(),
           (long long)fill, flops, flops_max);
    }
    return state == 1;
  }
  /// Number of eigenvalues below sigma, or -1 if the factorization broke down (a zero or
  /// non-finite pivot: sigma is then moved by the caller).
  int64_t below(double sigma) {
    for (int64_t i = 0; i < L->n; ++i) {
      const double lii = L->val[static_cast<size_t>(diag_in_L(i))];
      M.valuePtr()[diag[static_cast<size_t>(i)]] = lii - sigma;
    }
    ldlt.factorize(M);
    if (ldlt.info() != Eigen::Success) return -1;
    const Eigen::VectorXd& d = ldlt.vectorD();
    int64_t neg = 0;
    for (Eigen::Index i = 0; i < d.size(); ++i) {
      if (!std::isfinite(d[i]) || d[i] == 0.0) return -1;
      neg += d[i] < 0.0;
    }
    GDBG("inertia at sigma=%.17g: %lld below", sigma, (long long)neg);
    return neg;
  }
  int64_t diag_in_L(int64_t i) const {
    for (int64_t p = L->ptr[static_cast<size_t>(i)]; p < L->ptr[static_cast<size_t>(i) + 1]; ++p)
      if (L->idx[static_cast<size_t>(p)] == i) return p;
    return -1;  // not reached: component_laplacian stores every diagonal entry
  }
};

/// Strength of a certificate (larger = stronger).
int cert_rank(posenc_lappe_certificate c) {
  return c == POSENC_LAPPE_CERT_DENSE ? 3 : c == POSENC_LAPPE_CERT_INERTIA ? 2 : c == POSENC_LAPPE_CERT_KRYLOV ? 1 : 0;
}

/// How one component's result was certified.
struct CompCert {
  posenc_lappe_certificate kind = POSENC_LAPPE_CERT_DENSE;
  double sigma = 0.0;
  int64_t below = -1;
  int64_t recoveries = 0;
  int64_t factor_nnz = 0;
};

/// A deterministic pseudo-random start vector (splitmix64 of seed), unit norm.
Eigen::VectorXd start_vector(int64_t n, uint64_t seed) {
  Eigen::VectorXd v(n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    v[i] = static_cast<double>(z >> 11) * 0x1.0p-53 - 0.5;
  }
  return v / v.norm();
}

constexpr double kCertDelta = 1e-8;     // certificate margin, relative to c: sigma = top - 1e-8 c
constexpr double kInertiaFlops = 5e8;   // inertia attempted when its LDL^T costs <= 5e8 flops (~0.5 s)

/// nev smallest eigenpairs of a connected component's Laplacian (nev <= L.n), certified.
posenc_status component_pairs(const Lap& L, int64_t nev, posenc_lappe_method solver, Pairs* out, SolveStats* st,
                              CompCert* cert) {
  *cert = CompCert{};
  if (3 * nev >= L.n || solver == POSENC_LAPPE_DENSE || (solver == POSENC_LAPPE_AUTO && L.n <= kDenseMax)) {
    st->method = "dense";
    if (!dense_pairs(L, nev, out))
      return set_error(POSENC_ERR_NOT_CONVERGED,
                       "dense symmetric eigensolver (Eigen SelfAdjointEigenSolver, %lld nodes) did not converge",
                       static_cast<long long>(L.n));
    return POSENC_OK;
  }
  std::string why;
  const double res_max = 1e-9 * L.bound;
  const Eigen::MatrixXd none(L.n, 0);
  auto accept = [&](Pairs* p, const char* what) {
    const double r = polish(L, p);
    if (r <= res_max) return true;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s: residual %g > %g; ", what, r, res_max);
    why += buf;
    return false;
  };
  bool ok = false;
  const int64_t ncv0 = std::min<int64_t>(L.n, std::max<int64_t>(2 * nev + 1, nev + 24));
  ShiftInvert si;
  if (solver != POSENC_LAPPE_LANCZOS && shift_invert(L, nev, ncv0, &si, out, st, &why) && accept(out, "shift-invert")) {
    ok = true;
    st->method = "shift-invert";
  }
  if (si.ready) cert->factor_nnz = si.ldlt.factor_nnz();
  const int64_t ncvs[2] = {ncv0, std::min<int64_t>(L.n, 2 * ncv0 + 16)};
  const int64_t maxits[2] = {300, 10000};  // restarts: a cluster cut at nev stalls a small ncv
  for (int a = 0; a < 2 && !ok && solver != POSENC_LAPPE_SHIFT_INVERT; ++a) {
    if (lanczos(L, none, nev, ncvs[a], maxits[a], out, st, &why) && accept(out, "Lanczos")) {
      ok = true;
      st->method = "lanczos";
    } else {
      why += "; ";
    }
  }
  if (!ok)
    return set_error(POSENC_ERR_NOT_CONVERGED, "no eigensolver converged for a component of %lld nodes: %s",
                     static_cast<long long>(L.n), why.c_str());
  sort_pairs(out);
  // Certificate. Krylov methods can miss copies of a repeated eigenvalue (they see one direction
  // per eigenspace of the start vector) and then return larger values with small residuals. With
  // top = the nev-th value and sigma = top - delta, the result is the nev smallest (to within
  // delta) iff L has exactly as many eigenvalues below sigma as were returned below sigma.
  // Inertia counts them exactly; while the count disagrees, the returned vectors are deflated and
  // the search goes on below sigma. Without an affordable factorization, a deflated Lanczos run
  // from a fresh start vector that finds nothing below sigma is the (probabilistic) certificate.
  const double delta = kCertDelta * L.bound;
  Inertia inert;
  inert.L = &L;
  const bool use_inertia = inert.affordable(kInertiaFlops);
  cert->factor_nnz = std::max(cert->factor_nnz, inert.state == 1 ? inert.fill : int64_t{0});
  const int64_t max_rounds = 2 * nev + 8;
  uint64_t seed = 0x5eed;
  int failed_searches = 0;
  for (int64_t round = 0;; ++round) {
    const double top = out->val[nev - 1];
    double sigma = top - delta;
    int64_t truth = -1;
    if (use_inertia) {
      for (int t = 0; t < 4 && truth < 0; ++t) {
        truth = inert.below(sigma);
        if (truth < 0) sigma -= 0.37 * delta;  // zero pivot: move into the gap
      }
    }
    int64_t have = 0;
    for (int64_t j = 0; j < nev; ++j) have += out->val[j] < sigma;
    if (use_inertia && truth < 0)
      return set_error(POSENC_ERR_NOT_CONVERGED,
                       "certificate: the LDL^T of L - sigma*I (sigma = %.17g) broke down at 4 shifts for a component "
                       "of %lld nodes (%s solver)",
                       sigma, static_cast<long long>(L.n), st->method.c_str());
    if (use_inertia && truth == have) {
      cert->kind = POSENC_LAPPE_CERT_INERTIA;
      cert->sigma = sigma;
      cert->below = truth;
      return POSENC_OK;
    }
    if (use_inertia && truth < have)
      return set_error(POSENC_ERR_NOT_CONVERGED,
                       "certificate: L has %lld eigenvalues below sigma = %.17g by inertia but %lld returned pairs "
                       "(residual <= %g) lie below it (component of %lld nodes): the factorization is unreliable",
                       static_cast<long long>(truth), sigma, static_cast<long long>(have), res_max,
                       static_cast<long long>(L.n));
    if (round >= max_rounds) {
      if (use_inertia)
        return set_error(POSENC_ERR_NOT_CONVERGED,
                         "certificate: L has %lld eigenvalues below sigma = %.17g (inertia) but %lld were found after "
                         "%lld deflated re-searches (component of %lld nodes, %s solver)",
                         static_cast<long long>(truth), sigma, static_cast<long long>(have),
                         static_cast<long long>(round), static_cast<long long>(L.n), st->method.c_str());
      return set_error(POSENC_ERR_NOT_CONVERGED,
                       "certificate: deflated Lanczos still found eigenvalues below the %lld-th after %lld re-searches "
                       "(component of %lld nodes, %s solver)",
                       static_cast<long long>(nev), static_cast<long long>(round), static_cast<long long>(L.n),
                       st->method.c_str());
    }
    // Deflated search below sigma, from a fresh start vector.
    const int64_t missing = truth >= 0 ? truth - have : 0;
    const int64_t room = L.n - nev - 1;
    const int64_t more = std::min<int64_t>(room, std::max<int64_t>(std::max<int64_t>(4, nev / 4), std::min<int64_t>(missing, nev) + 2));
    if (more <= 0)
      return set_error(POSENC_ERR_NOT_CONVERGED, "certificate: no room for a deflated search (component of %lld nodes)",
                       static_cast<long long>(L.n));
    const int64_t ncv = std::min<int64_t>(L.n - nev, std::max<int64_t>(2 * more + 1, more + 16) << failed_searches);
    const Eigen::VectorXd v0 = start_vector(L.n, seed++);
    Pairs extra;
    const bool got = si.ready ? deflated_shift_invert(L, si, out->vec, more, ncv, v0.data(), &extra, st)
                              : deflated_lanczos(L, out->vec, more, ncv, 3000, v0.data(), &extra, st);
    bool found = false;
    if (got) {
      polish(L, &extra);
      Pairs merged = *out;
      for (Eigen::Index j = 0; j < extra.val.size(); ++j) {
        // accept only true eigenpairs below sigma, orthogonal to what is kept
        Eigen::VectorXd v = extra.vec.col(j);
        Eigen::VectorXd y(L.n);
        L.shifted_apply(0.0, v.data(), y.data());
        if (!(extra.val[j] < sigma) || (y + extra.val[j] * v).norm() > res_max) continue;
        v -= merged.vec * (merged.vec.transpose() * v);
        const double nv = v.norm();
        if (!(nv > 0.5)) continue;
        v /= nv;
        L.shifted_apply(0.0, v.data(), y.data());
        const double lam = -v.dot(y);
        if ((y + lam * v).norm() > res_max) continue;
        found = true;
        merged.val.conservativeResize(merged.val.size() + 1);
        merged.val[merged.val.size() - 1] = lam;
        merged.vec.conservativeResize(Eigen::NoChange, merged.vec.cols() + 1);
        merged.vec.col(merged.vec.cols() - 1) = v;
      }
      if (found) {
        ++cert->recoveries;
        sort_pairs(&merged);
        out->val = merged.val.head(nev);
        out->vec = merged.vec.leftCols(nev);
      }
    }
    if (!found) {
      if (!use_inertia && got) {
        cert->kind = POSENC_LAPPE_CERT_KRYLOV;
        cert->sigma = sigma;
        return POSENC_OK;
      }
      if (++failed_searches > 2)
        return set_error(POSENC_ERR_NOT_CONVERGED,
                         "certificate: %s (component of %lld nodes, %s solver); deflated searches found none of them",
                         use_inertia ? "inertia counts eigenvalues below the k-th that were not found"
                                     : "the deflated Lanczos check did not converge",
                         static_cast<long long>(L.n), st->method.c_str());
    }
  }
}

/// Sign rule: the entry of largest magnitude is positive; entries within a relative 1e-6 of the
/// largest magnitude count as ties, and the lowest index among them decides.
void fix_sign(double* col, int64_t n, int64_t stride) {
  double mx = 0.0;
  for (int64_t i = 0; i < n; ++i) mx = std::max(mx, std::abs(col[i * stride]));
  const double thr = mx * (1.0 - 1e-6);
  for (int64_t i = 0; i < n; ++i) {
    const double x = col[i * stride];
    if (std::abs(x) >= thr) {
      if (x < 0.0)
        for (int64_t r = 0; r < n; ++r) col[r * stride] = -col[r * stride];
      return;
    }
  }
}


/// ||L v_j - lambda_j v_j||_2 for every pair.
std::vector<double> residuals(const Lap& L, const Pairs& p) {
  std::vector<double> r(static_cast<size_t>(p.val.size()));
  Eigen::VectorXd y(L.n);
  for (Eigen::Index j = 0; j < p.val.size(); ++j) {
    L.shifted_apply(0.0, p.vec.col(j).data(), y.data());  // y = -L v
    r[static_cast<size_t>(j)] = (y + p.val[j] * p.vec.col(j)).norm();
  }
  return r;
}

posenc_status laplacian_pe(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                           int64_t num_edges, const posenc_laplacian& laplacian_arg, int32_t k, double* eigvals,
                           double* eigvecs, posenc_laplacian_pe_info* info) {
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  // Enums are read as raw integers: a caller may pass any int, and loading an out-of-range value
  // as the enum type is undefined behaviour in C++ (UBSan's -fsanitize=enum).
  const long long lap_raw = enum_bits(laplacian_arg);
  if (lap_raw != POSENC_LAPLACIAN_SYM && lap_raw != POSENC_LAPLACIAN_COMBINATORIAL)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "laplacian must be POSENC_LAPLACIAN_SYM (0) or POSENC_LAPLACIAN_COMBINATORIAL (1) (got %lld)",
                     lap_raw);
  if (k <= 0 || k > num_nodes)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "k must be in [1, num_nodes = %lld] (got %d)",
                     static_cast<long long>(num_nodes), k);
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, k, &total, "eigvecs [num_nodes, k]", sizeof(double)));
  POSENC_CHECK(check_not_null(eigvals, "eigvals"));
  POSENC_CHECK(check_not_null(eigvecs, "eigvecs"));
  if (info != nullptr && info->struct_size != sizeof(posenc_laplacian_pe_info) &&
      info->struct_size != POSENC_LAPPE_INFO_SIZE_V1)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "info->struct_size must be %u (or %u, the 0.1 layout) (got %u); call posenc_laplacian_pe_info_init",
                     static_cast<unsigned>(sizeof(posenc_laplacian_pe_info)),
                     static_cast<unsigned>(POSENC_LAPPE_INFO_SIZE_V1), info->struct_size);
  const long long solver_raw = info != nullptr ? enum_bits(info->solver) : 0;
  if (solver_raw < POSENC_LAPPE_AUTO || solver_raw > POSENC_LAPPE_LANCZOS)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "info->solver must be a posenc_lappe_method in [0, 3] (got %lld)",
                     solver_raw);
  const posenc_laplacian laplacian = static_cast<posenc_laplacian>(lap_raw);
  return guarded([&]() -> posenc_status {
    GDBG("lappe start");
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges);
    GDBG("graph built");
    const int64_t n = num_nodes;
    // Connected components (BFS from the lowest unvisited node): the Laplacian is block diagonal,
    // so each component is solved alone and every zero eigenvalue is found.
    std::vector<int32_t> comp(static_cast<size_t>(n), -1), local(static_cast<size_t>(n), -1);
    std::vector<std::vector<int32_t>> comps;
    for (int64_t s = 0; s < n; ++s) {
      if (comp[static_cast<size_t>(s)] >= 0) continue;
      const int32_t c = static_cast<int32_t>(comps.size());
      comps.emplace_back();
      std::vector<int32_t>& nodes = comps.back();
      nodes.push_back(static_cast<int32_t>(s));
      comp[static_cast<size_t>(s)] = c;
      for (size_t h = 0; h < nodes.size(); ++h) {
        const int32_t u = nodes[h];
        for (int64_t p = gr.ptr[static_cast<size_t>(u)]; p < gr.ptr[static_cast<size_t>(u) + 1]; ++p) {
          const int32_t w = gr.idx[static_cast<size_t>(p)];
          if (comp[static_cast<size_t>(w)] < 0) {
            comp[static_cast<size_t>(w)] = c;
            nodes.push_back(w);
          }
        }
      }
      std::sort(nodes.begin(), nodes.end());
      for (size_t j = 0; j < nodes.size(); ++j) local[static_cast<size_t>(nodes[j])] = static_cast<int32_t>(j);
    }
    GDBG("components found");
    // Candidates: min(k, size) smallest pairs of every component; keep the k smallest overall.
    struct Cand {
      double val;
      int32_t comp;
      int32_t col;
    };
    std::vector<Cand> cand;
    std::vector<Pairs> pairs(comps.size());
    std::vector<std::vector<double>> res(comps.size());
    SolveStats st;
    posenc_lappe_method method = POSENC_LAPPE_DENSE;
    size_t biggest = 0;
    CompCert big;  // the largest solved component's certificate
    posenc_lappe_certificate weakest = POSENC_LAPPE_CERT_DENSE;
    int64_t recoveries = 0;
    for (size_t c = 0; c < comps.size(); ++c) {
      const std::vector<int32_t>& nodes = comps[c];
      const int64_t nev = std::min<int64_t>(k, static_cast<int64_t>(nodes.size()));
      if (nodes.size() == 1) {
        pairs[c].val = Eigen::VectorXd::Constant(1, laplacian == POSENC_LAPLACIAN_SYM ? 1.0 : 0.0);
        pairs[c].vec = Eigen::MatrixXd::Constant(1, 1, 1.0);
        res[c].assign(1, 0.0);
      } else {
        const Lap L = component_laplacian(gr, nodes, local, laplacian);
        st.method.clear();
        CompCert cc;
        POSENC_CHECK(component_pairs(L, nev, static_cast<posenc_lappe_method>(solver_raw), &pairs[c], &st, &cc));
        recoveries += cc.recoveries;
        if (cert_rank(cc.kind) < cert_rank(weakest)) weakest = cc.kind;
        // A connected component's smallest eigenvalue is exactly 0 with a known null vector
        // (D^1/2 1 for L_sym, 1 for D - A): store them exactly, so that zeros of different
        // components compare equal and order by component.
        Pairs& P = pairs[c];
        if (std::abs(P.val[0]) <= 1e-8 * L.bound) {
          Eigen::VectorXd z(L.n);
          for (int64_t j = 0; j < L.n; ++j)
            z[j] = laplacian == POSENC_LAPLACIAN_SYM ? std::sqrt(gr.deg[static_cast<size_t>(nodes[static_cast<size_t>(j)])]) : 1.0;
          z /= z.norm();
          P.val[0] = 0.0;
          P.vec.col(0) = z;
        }
        res[c] = residuals(L, P);
        if (nodes.size() > biggest) {
          biggest = nodes.size();
          method = st.method == "shift-invert" ? POSENC_LAPPE_SHIFT_INVERT
                   : st.method == "lanczos"    ? POSENC_LAPPE_LANCZOS
                                               : POSENC_LAPPE_DENSE;
          big = cc;
        }
      }
      for (Eigen::Index j = 0; j < pairs[c].val.size(); ++j)
        cand.push_back({pairs[c].val[j], static_cast<int32_t>(c), static_cast<int32_t>(j)});
    }
    // Ascending value; ties by component (lowest node first), then by order within it.
    std::stable_sort(cand.begin(), cand.end(), [](const Cand& a, const Cand& b) { return a.val < b.val; });
    // All solved: write the outputs.
    double maxres = 0.0;
    std::fill(eigvecs, eigvecs + total, 0.0);
    for (int32_t j = 0; j < k; ++j) {
      const Cand& cd = cand[static_cast<size_t>(j)];
      eigvals[j] = cd.val;
      const std::vector<int32_t>& nodes = comps[static_cast<size_t>(cd.comp)];
      const Eigen::MatrixXd& V = pairs[static_cast<size_t>(cd.comp)].vec;
      for (size_t r = 0; r < nodes.size(); ++r)
        eigvecs[static_cast<int64_t>(nodes[r]) * k + j] = V(static_cast<Eigen::Index>(r), cd.col);
      fix_sign(eigvecs + j, n, k);
      maxres = std::max(maxres, res[static_cast<size_t>(cd.comp)][static_cast<size_t>(cd.col)]);
    }
    path(method == POSENC_LAPPE_SHIFT_INVERT ? "laplacian_pe.shift_invert"
         : method == POSENC_LAPPE_LANCZOS    ? "laplacian_pe.lanczos"
                                             : "laplacian_pe.dense");
    POSENC_SHAPE("nodes=%lld edges=%lld k=%d components=%zu", (long long)n, (long long)num_edges, k, comps.size());
    if (info != nullptr) {
      info->method = method;
      info->components = static_cast<int64_t>(comps.size());
      info->matvecs = st.matvecs;
      info->shift_solves = st.solves;
      info->max_residual = maxres;
      if (info->struct_size >= sizeof(posenc_laplacian_pe_info)) {
        info->certificate = weakest;
        info->recoveries = static_cast<int32_t>(std::min<int64_t>(recoveries, std::numeric_limits<int32_t>::max()));
        info->inertia_sigma = big.kind == POSENC_LAPPE_CERT_INERTIA ? big.sigma : 0.0;
        info->inertia_count = big.kind == POSENC_LAPPE_CERT_INERTIA ? big.below : -1;
        info->factor_nnz = big.factor_nnz;
      }
    }
    return POSENC_OK;
  });
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_laplacian_pe_info_init(posenc_laplacian_pe_info* info) {
  api_guard g("posenc_laplacian_pe_info_init");
  POSENC_CHECK(check_not_null(info, "info"));
  *info = posenc_laplacian_pe_info{};
  info->struct_size = sizeof(posenc_laplacian_pe_info);
  info->certificate = POSENC_LAPPE_CERT_NONE;
  info->inertia_count = -1;
  info->solver = POSENC_LAPPE_AUTO;
  info->method = POSENC_LAPPE_DENSE;
  return POSENC_OK;
}

extern "C" POSENC_API posenc_status posenc_laplacian_pe_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                           const double* weights, int64_t num_edges,
                                                           posenc_laplacian laplacian, int32_t k, double* eigvals,
                                                           double* eigvecs) {
  api_guard g("posenc_laplacian_pe_f64");
  return laplacian_pe(num_nodes, src, dst, weights, num_edges, laplacian, k, eigvals, eigvecs, nullptr);
}

extern "C" POSENC_API posenc_status posenc_laplacian_pe_ex_f64(int64_t num_nodes, const int64_t* src,
                                                              const int64_t* dst, const double* weights,
                                                              int64_t num_edges, posenc_laplacian laplacian, int32_t k,
                                                              double* eigvals, double* eigvecs,
                                                              posenc_laplacian_pe_info* info) {
  api_guard g("posenc_laplacian_pe_ex_f64");
  return laplacian_pe(num_nodes, src, dst, weights, num_edges, laplacian, k, eigvals, eigvecs, info);
}

// ------------------------------------------------------------------------------ RWSE

namespace {

/// Sources propagated together: their walk distributions are stored as rows of kBlock values, so
/// every edge visit updates kBlock lanes (a loop the compiler vectorizes) and the index work of
/// the sparse gather is shared by kBlock sources whose neighbourhoods mostly overlap (sources are
/// taken in BFS order, so a block is a few adjacent nodes).
constexpr int kBlock = 8;

/// Per-thread scratch for the local propagation.
struct RwseScratch {
  std::vector<int32_t> local;          // [n], -1 = not reached
  std::vector<int32_t> nodes;          // reached nodes in discovery order
  std::vector<std::vector<double>> r;  // r[s][j*kBlock + b] = (P^s)_{source b, nodes[j]}
};

/// Nodes in BFS order (from the lowest unvisited id, neighbours in CSR order): consecutive
/// nodes are close in the graph. Depends on the graph only.
std::vector<int32_t> bfs_order(const Graph& g) {
  std::vector<int32_t> order;
  order.reserve(static_cast<size_t>(g.n));
  std::vector<char> seen(static_cast<size_t>(g.n), 0);
  for (int64_t s = 0; s < g.n; ++s) {
    if (seen[static_cast<size_t>(s)]) continue;
    seen[static_cast<size_t>(s)] = 1;
    order.push_back(static_cast<int32_t>(s));
    for (size_t h = order.size() - 1; h < order.size(); ++h) {
      const int32_t u = order[h];
      for (int64_t p = g.ptr[static_cast<size_t>(u)]; p < g.ptr[static_cast<size_t>(u) + 1]; ++p) {
        const int32_t w = g.idx[static_cast<size_t>(p)];
        if (!seen[static_cast<size_t>(w)]) {
          seen[static_cast<size_t>(w)] = 1;
          order.push_back(w);
        }
      }
    }
  }
  return order;
}

/// RWSE of the sources src_nodes[0..nb) (nb <= kBlock), written to out rows.
void rwse_block(const Graph& g, const double* invdeg, const int32_t* src_nodes, int nb, int32_t steps,
                RwseScratch& S, double* out) {
  const int32_t H = (steps + 1) / 2;
  S.nodes.clear();
  std::vector<double>& r0 = S.r[0];
  r0.assign(static_cast<size_t>(nb) * kBlock, 0.0);
  for (int b = 0; b < nb; ++b) {
    const int32_t v = src_nodes[b];
    int32_t l = S.local[static_cast<size_t>(v)];
    if (l < 0) {
      l = static_cast<int32_t>(S.nodes.size());
      S.local[static_cast<size_t>(v)] = l;
      S.nodes.push_back(v);
    }
    r0[static_cast<size_t>(l) * kBlock + static_cast<size_t>(b)] = 1.0;
  }
  r0.resize(S.nodes.size() * kBlock);
  const int64_t* ptr = g.ptr.data();
  const int32_t* idx = g.idx.data();
  const double* val = g.val.data();
  for (int32_t s = 1; s <= H; ++s) {
    const std::vector<double>& prev = S.r[static_cast<size_t>(s) - 1];
    std::vector<double>& cur = S.r[static_cast<size_t>(s)];
    cur.assign(S.nodes.size() * kBlock, 0.0);
    const size_t rows = prev.size() / kBlock;
    for (size_t j = 0; j < rows; ++j) {
      const double* x = prev.data() + j * kBlock;
      bool any = false;
      for (int b = 0; b < kBlock; ++b) any |= x[b] != 0.0;
      if (!any) continue;
      const int32_t u = S.nodes[j];
      double xs[kBlock];
      for (int b = 0; b < kBlock; ++b) xs[b] = x[b] * invdeg[u];
      for (int64_t p = ptr[u]; p < ptr[u + 1]; ++p) {
        const int32_t w = idx[p];
        int32_t l = S.local[static_cast<size_t>(w)];
        if (l < 0) {
          l = static_cast<int32_t>(S.nodes.size());
          S.local[static_cast<size_t>(w)] = l;
          S.nodes.push_back(w);
          cur.resize(cur.size() + kBlock, 0.0);
        }
        double* y = cur.data() + static_cast<size_t>(l) * kBlock;
        const double a = val[p];
        for (int b = 0; b < kBlock; ++b) y[b] += xs[b] * a;
      }
    }
  }
  double acc[kBlock];
  for (int32_t t = 1; t <= steps; ++t) {
    const std::vector<double>& ra = S.r[static_cast<size_t>((t + 1) / 2)];
    const std::vector<double>& rb = S.r[static_cast<size_t>(t / 2)];
    for (int b = 0; b < kBlock; ++b) acc[b] = 0.0;
    const size_t rows = rb.size() / kBlock;
    for (size_t j = 0; j < rows; ++j) {
      const double id = invdeg[S.nodes[j]];
      const double* xa = ra.data() + j * kBlock;
      const double* xb = rb.data() + j * kBlock;
      for (int b = 0; b < kBlock; ++b) acc[b] += (xa[b] * xb[b]) * id;
    }
    for (int b = 0; b < nb; ++b) {
      const int32_t v = src_nodes[b];
      out[static_cast<int64_t>(v) * steps + t - 1] = g.deg[static_cast<size_t>(v)] * acc[b];
    }
  }
  for (int32_t w : S.nodes) S.local[static_cast<size_t>(w)] = -1;
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_rwse_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                   const double* weights, int64_t num_edges, int32_t steps,
                                                   double* out) {
  api_guard g("posenc_rwse_f64");
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  if (steps <= 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "steps must be > 0 (got %d)", steps);
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, steps, &total, "out [num_nodes, steps]", sizeof(double)));
  POSENC_CHECK(check_not_null(out, "out"));
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges);
    const int64_t n = num_nodes;
    std::vector<double> invdeg(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      invdeg[static_cast<size_t>(i)] = gr.deg[static_cast<size_t>(i)] > 0.0 ? 1.0 / gr.deg[static_cast<size_t>(i)] : 0.0;
    // Meet in the middle: with r_s = e_v^T P^s (the walk's distribution after s steps) and the
    // reversibility D P^b = (P^b)^T D, (P^t)_vv = d_v * sum_u r_a[u] r_b[u] / d_u for a + b = t.
    // So only H = ceil(steps / 2) steps are propagated, over the H-hop ball of v.
    // Isolated nodes (d_v = 0) have a zero row of P: all zeros (PyG, GraphGPS).
    // Allocation failure must leave out untouched: every value is computed into res (zeros for
    // isolated nodes), and out is written only by the final copy, after the last allocation.
    std::vector<double> res(static_cast<size_t>(total), 0.0);
    std::vector<int32_t> order;
    for (int32_t v : bfs_order(gr))
      if (gr.deg[static_cast<size_t>(v)] > 0.0) order.push_back(v);
    const int32_t H = (steps + 1) / 2;
    tbb::enumerable_thread_specific<RwseScratch> scratch([&] {
      RwseScratch s;
      s.local.assign(static_cast<size_t>(n), -1);
      s.r.resize(static_cast<size_t>(H) + 1);
      return s;
    });
    const int64_t m = static_cast<int64_t>(order.size());
    const int64_t grain = 32 * kBlock;  // sources per tile
    POSENC_SHAPE("nodes=%lld edges=%lld steps=%d", (long long)n, (long long)num_edges, steps);
    parallel_tiles(tiles_of(m, grain), [&](int64_t t) {
      RwseScratch& S = scratch.local();
      const int64_t i0 = t * grain, i1 = std::min(m, i0 + grain);
      for (int64_t i = i0; i < i1; i += kBlock) {
        const int nb = static_cast<int>(std::min<int64_t>(kBlock, i1 - i));
        rwse_block(gr, invdeg.data(), order.data() + i, nb, steps, S, res.data());
      }
    });
    std::copy(res.begin(), res.end(), out);
    return POSENC_OK;
  });
}

// ------------------------------------------------------------------------------ heat kernel

namespace {

/// Chebyshev coefficients of exp(-z (1 + s)) on s in [-1, 1]: exp(-z (1 + s)) = sum_j eps_j a_j
/// (-1)^j T_j(s), a_j = e^-z I_j(z) (eps_0 = 1, eps_j = 2). Miller's backward recurrence
/// I_{j-1} = I_{j+1} + (2j / z) I_j from N = z + 12 sqrt(z) + 60, normalized by the identity
/// e^z = I_0(z) + 2 sum_{j>=1} I_j(z). Returns a_0..a_m with m the first index whose tail
/// 2 sum_{j>m} a_j <= tol; *tail receives that tail.
std::vector<double> heat_chebyshev(double z, double tol, double* tail) {
  if (z == 0.0) {
    *tail = 0.0;
    return {1.0};
  }
  const int64_t N = static_cast<int64_t>(std::ceil(z + 12.0 * std::sqrt(z) + 60.0));
  std::vector<double> b(static_cast<size_t>(N) + 2, 0.0);
  b[static_cast<size_t>(N)] = 1e-300;
  for (int64_t j = N; j >= 1; --j) {
    b[static_cast<size_t>(j) - 1] = b[static_cast<size_t>(j) + 1] + (2.0 * static_cast<double>(j) / z) * b[static_cast<size_t>(j)];
    if (b[static_cast<size_t>(j) - 1] > 1e250)  // rescale everything computed so far
      for (int64_t i = j - 1; i <= N; ++i) b[static_cast<size_t>(i)] *= 1e-250;
  }
  double norm = b[0];
  for (int64_t j = 1; j <= N; ++j) norm += 2.0 * b[static_cast<size_t>(j)];
  for (double& x : b) x /= norm;
  // tails from the end: tail_m = 2 sum_{j>m} a_j
  int64_t m = N;
  double acc = 0.0;
  for (int64_t j = N; j >= 1; --j) {
    const double next = acc + 2.0 * b[static_cast<size_t>(j)];
    if (next > tol) break;
    acc = next;
    m = j - 1;
  }
  *tail = acc;
  b.resize(static_cast<size_t>(m) + 1);
  return b;
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_heat_kernel_apply_f64(int64_t num_nodes, const int64_t* src,
                                                                const int64_t* dst, const double* weights,
                                                                int64_t num_edges, posenc_laplacian laplacian,
                                                                double t, const double* x, int64_t num_vectors,
                                                                double* y, double* error_bound) {
  api_guard g("posenc_heat_kernel_apply_f64");
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  const long long lap_raw = enum_bits(laplacian);
  if (lap_raw != POSENC_LAPLACIAN_SYM && lap_raw != POSENC_LAPLACIAN_COMBINATORIAL)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "laplacian must be POSENC_LAPLACIAN_SYM (0) or POSENC_LAPLACIAN_COMBINATORIAL (1) (got %lld)",
                     lap_raw);
  if (!(std::isfinite(t) && t >= 0.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "t must be finite and >= 0 (got %g)", t);
  if (num_vectors <= 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "num_vectors must be > 0 (got %lld)",
                     static_cast<long long>(num_vectors));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, num_vectors, &total, "x [num_nodes, num_vectors]", sizeof(double)));
  POSENC_CHECK(check_not_null(x, "x"));
  POSENC_CHECK(check_not_null(y, "y"));
  for (int64_t i = 0; i < total; ++i)
    if (!std::isfinite(x[i]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "x[%lld] must be finite (got %g)", static_cast<long long>(i), x[i]);
  const posenc_laplacian kind = static_cast<posenc_laplacian>(lap_raw);
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges);
    const int64_t n = num_nodes, nv = num_vectors;
    std::vector<int32_t> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    const Lap L = component_laplacian(gr, all, all, kind);
    const double c = L.bound;  // spectrum of L in [0, c]
    const double z = 0.5 * t * c;
    double tail = 0.0;
    const std::vector<double> a = heat_chebyshev(z, 1e-17, &tail);
    const int64_t m = static_cast<int64_t>(a.size()) - 1;
    // A = (2/c) L - I has its spectrum in [-1, 1]; exp(-tL) = sum_j eps_j a_j (-1)^j T_j(A).
    // Three blocks rotate: U = T_{j-1}(A) X, V = T_j(A) X, W = T_{j+1}(A) X = 2 A V - U.
    std::vector<double> res(x, x + total), U, V, W;
    for (double& r : res) r *= a[0];
    path("heat_kernel.chebyshev");
    work(8.0 * double(m) * (double(L.nnz()) * (1.5 + double(nv)) + 4.0 * double(total)),
         double(m) * (2.0 * double(L.nnz()) * double(nv) + 6.0 * double(total)));
    POSENC_SHAPE("nodes=%lld edges=%lld vectors=%lld terms=%lld", (long long)n, (long long)num_edges,
                 (long long)nv, (long long)m);
    if (m >= 1) {
      U.assign(x, x + total);
      V.assign(static_cast<size_t>(total), 0.0);
      W.assign(static_cast<size_t>(total), 0.0);
      const double s2c = 2.0 / c;
      const int64_t grain = std::max<int64_t>(1, 4096 / nv);
      // T_1 X = A X, and res += 2 a_1 (-1) T_1 X; then T_{j+1} = 2 A T_j - T_{j-1}.
      for (int64_t j = 1; j <= m; ++j) {
        const double coef = (j % 2 == 0 ? 2.0 : -2.0) * a[static_cast<size_t>(j)];
        const bool first = j == 1;
        const double* Vp = first ? U.data() : V.data();  // T_{j-1} for the product
        const double* Up = U.data();
        double* Wp = W.data();
        double* Rp = res.data();
        parallel_tiles(tiles_of(n, grain), [&](int64_t tt) {
          const int64_t r0 = tt * grain, r1 = std::min(n, r0 + grain);
          std::vector<double> s(static_cast<size_t>(nv));
          for (int64_t i = r0; i < r1; ++i) {
            std::fill(s.begin(), s.end(), 0.0);
            for (int64_t p = L.ptr[static_cast<size_t>(i)]; p < L.ptr[static_cast<size_t>(i) + 1]; ++p) {
              const double w = L.val[static_cast<size_t>(p)];
              const double* row = Vp + static_cast<int64_t>(L.idx[static_cast<size_t>(p)]) * nv;
              for (int64_t b = 0; b < nv; ++b) s[static_cast<size_t>(b)] += w * row[b];
            }
            for (int64_t b = 0; b < nv; ++b) {
              const int64_t q = i * nv + b;
              const double av = s2c * s[static_cast<size_t>(b)] - Vp[q];  // (A T_{j-1}) X
              const double wv = first ? av : 2.0 * av - Up[q];
              Wp[q] = wv;
              Rp[q] += coef * wv;
            }
          }
        });
        // rotate: U <- T_{j-1}... for j = 1, U keeps T_0 = X and V becomes T_1.
        if (first) {
          std::swap(V, W);
        } else {
          std::swap(U, V);
          std::swap(V, W);
        }
      }
    }
    std::copy(res.begin(), res.end(), y);
    if (error_bound != nullptr) {
      int64_t r = 0;
      for (int64_t i = 0; i < n; ++i)
        r = std::max<int64_t>(r, L.ptr[static_cast<size_t>(i) + 1] - L.ptr[static_cast<size_t>(i)]);
      const double mm = static_cast<double>(m) + 1.0;
      *error_bound = tail + 4.0 * mm * mm * (static_cast<double>(r) + 1.0) * 0x1.0p-53;
    }
    return POSENC_OK;
  });
}
