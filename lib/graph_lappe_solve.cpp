// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_lappe_solve.cpp — graph family, LapPE: the eigensolvers of one connected component
// (dense, Lanczos and shift-invert through Spectra and Eigen, deflation rounds) and the
// certificate that the returned eigenvalues are the k smallest (Sylvester inertia count of an
// LDL^T factorization, or a deflated Krylov search). The driver is lib/graph_lappe.cpp.
//
// Plain lib code (baseline flags, no SIMD kernel table): sparse matrix-vector products and Lanczos
// bookkeeping split over the posenc arena with parallel_tiles, whose tiles depend on the problem
// only, so results are bitwise identical for any thread count and on every ISA path.
#include "lib/graph_lappe.hpp"
#include "lib/sparse_cholmod.hpp"
#include "lib/sparse_fill.hpp"

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
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

constexpr int64_t kDenseMax = 1024;   // components up to this size: dense solver
// Shift-invert's sigma = -kShiftRel * c/2. Lanczos on (L - sigma I)^{-1} separates the k-th from
// the (k+1)-th eigenvalue at the relative gap (lambda_{k+1} - lambda_k) / (lambda_k - sigma), so
// sigma must be small next to lambda_k: on the 316 x 316 grid (lambda_16 = 4e-4) 1e-3 took 116
// solves, 1e-4 80, 1e-5 and 1e-6 65 (the 100k RGG: 109, 68, 53, 53); on the 1000 x 1000 grid
// lambda_16 = 3e-5. L - sigma I stays far from singular in double: its smallest pivot is about
// |sigma| = 1e-6 c/2, rounding in the factorization about 1e-16 c times the growth.
constexpr double kShiftRel = 1e-6;



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
/// SimplicialLDLT whose factor size and cost are counted from the AMD-ordered pattern before the
/// symbolic analysis (lib/sparse_fill.hpp), so that the shift-invert and inertia paths analyse and
/// factor only when the fill-in is affordable.
using ProbedLDLT = OrderedLDLT<SpMat>;

/// The lower triangle of L - sigma I in compressed columns (lib/sparse_fill.hpp).
SpMat lower_csc(const Lap& L, double sigma, std::vector<int>* diag = nullptr) {
  return lower_from_symmetric_csr<SpMat>(static_cast<int>(L.n), L.ptr.data(), L.idx.data(), L.val.data(), sigma, diag);
}

/// Spectra shift-solve operator: y = P (L - sigma I)^{-1} P x with a prefactored L - sigma I
/// (the supernodal Cholesky when chol is not null, else the LDL^T) and P = I - Q Q^T (Q may be
/// empty).
struct ShiftSolveOp {
  using Scalar = double;
  const ProbedLDLT* ldlt;
  const SupernodalCholesky* chol;
  Eigen::Index n;
  const Eigen::MatrixXd* Q;
  mutable Eigen::VectorXd tmp;
  Eigen::Index rows() const { return n; }
  Eigen::Index cols() const { return n; }
  void set_shift(double) {}  // the factorization already holds L - sigma I
  void solve(const double* x_in, double* y_out) const {
    if (chol != nullptr) {
      chol->solve(x_in, y_out);
    } else {
      Eigen::Map<const Eigen::VectorXd> x(x_in, n);
      Eigen::Map<Eigen::VectorXd>(y_out, n) = ldlt->solve(x);
    }
  }
  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<const Eigen::VectorXd> x(x_in, n);
    Eigen::Map<Eigen::VectorXd> y(y_out, n);
    if (Q->cols() == 0) {
      solve(x_in, y_out);
      return;
    }
    tmp = x - (*Q) * (Q->transpose() * x);
    solve(tmp.data(), y_out);
    y -= (*Q) * (Q->transpose() * y);
  }
};

/// Factorizations of L - sigma I below this many flops (counted on the AMD-ordered pattern, sum
/// of squared column counts) use Eigen's SimplicialLDLT, larger ones CHOLMOD's supernodal Cholesky
/// (lib/sparse_cholmod.hpp; dense BLAS-3 blocks). Measured one thread, k = 16: on the 316 x 316
/// grid (5.5e8 flops) CHOLMOD factored in 0.15 s against Eigen's 0.135 s and solved in 10.6 ms
/// against 8.3 ms (small supernodes); on the 1000 x 1000 grid (1.8e10 flops) it factored in 2.4 s
/// CPU, Eigen's simplicial factorization takes 10x as long.
/// POSENC_LAPPE_TEST_DEFLATED_RESIDUAL=S (a test knob, read per call): the residual bound a pair
/// found by a deflated search must meet is multiplied by S (S = 0: every such pair fails it), so
/// tests can reach the branch where a search returns a value below sigma that cannot be kept.
double deflated_residual_scale() {
  if (const char* e = std::getenv("POSENC_LAPPE_TEST_DEFLATED_RESIDUAL")) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && v >= 0.0) return v;
  }
  return 1.0;
}

/// POSENC_LAPPE_SUPERNODAL_MIN_FLOPS=F (a test knob, read per call) replaces the threshold.
constexpr double kSupernodalFlops = 2e9;
double supernodal_min_flops() {
  if (const char* e = std::getenv("POSENC_LAPPE_SUPERNODAL_MIN_FLOPS")) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && v >= 0.0) return v;
  }
  return kSupernodalFlops;
}

/// A factorization of L - sigma I kept for the deflation rounds: the supernodal Cholesky
/// (supernodal) or the LDL^T. The inertia certificate uses ldlt's AMD ordering for the LDL^T of
/// L - tau I: after a supernodal shift-invert it analyses and factors it (the Cholesky stays for
/// the deflated searches); otherwise it reuses the analysis and storage (one factor in memory),
/// held_sigma then turns false and refactor() restores L - sigma I for a deflated search.
struct ShiftInvert {
  ProbedLDLT ldlt;
  SupernodalCholesky chol;
  SpMat M;  // lower triangle of L - sigma I
  double sigma = 0.0;
  bool ready = false;
  bool supernodal = false;  // chol holds the factorization; ldlt is ordered only
  bool held_sigma = false;  // ldlt's numeric factor is that of M
  bool deferred = false;    // AUTO: the factorization looked too expensive; Lanczos goes first
  bool counted = false;     // ldlt ordered M's pattern and counted its factor (count)
  FillCount count;
  int64_t factor_nnz = 0;   // strictly-lower nonzeros of the factor used for the solves
  bool refactor() {
    if (supernodal) return true;
    if (!held_sigma) {
      ldlt.factorize(M);
      held_sigma = ldlt.info() == Eigen::Success;
    }
    return held_sigma;
  }
  ShiftSolveOp op(Eigen::Index n, const Eigen::MatrixXd* Q) const {
    return ShiftSolveOp{&ldlt, supernodal ? &chol : nullptr, n, Q, {}};
  }
};

// AUTO's choice between shift-invert and Lanczos for a component (measured with
// bench/lappe_auto_choice.py, k = 16, one thread; factorization flops per nonzero of L and the
// faster solver): rgg 1e5 156 (shift-invert 15x faster), 10^4 grid 264 (2.9x), 10^5 grid 910
// (25x), 10^6 grid 3940 (Lanczos needs thousands of matvecs; shift-invert 77 solves), Debian
// dependency graph 10700 (Lanczos 2.1x against 110 shift-invert solves at sigma = -1e-3 c/2),
// Barabasi-Albert 10^4 33000 (Lanczos 7x). Hubs make the sparse LDL^T fill in (dense supernodes),
// while the same graphs are expanders with well-separated small eigenvalues, which Lanczos finds
// in few products. Above this many factorization flops per nonzero, AUTO runs Lanczos first and
// shift-invert only if it fails. With the supernodal Cholesky above 2e9 flops, forced shift-invert
// on Barabasi-Albert 10^4 (2.3e9 flops) went from 4.0 to 2.3 CPU-s against Lanczos's 0.4 s: the
// inertia certificate's simplicial LDL^T of the same pattern remains, so the limit stays.
// Re-measured with the Chebyshev-filtered Lanczos (docs/PERFORMANCE.md): the same side wins on
// every graph above, so the limit stays.
constexpr double kShiftInvertFlopsPerNnz = 6000.0;

/// Restarts of the filtered Lanczos attempt before the plain one takes over (k = 16, ncv = 33: the
/// 10^5-node Barabasi-Albert graph converges after about 6 restarts, 128 applications of the
/// filter; forced Lanczos on the 100k RGG after about 15, 282 applications, 8.4 CPU-s against the
/// plain path's 53 s; 15 restarts were too few there), which bounds what a bound a below lambda_k
/// can waste (it does not converge) before the plain attempt.
constexpr int64_t kFilterRestarts = 50;
/// Restarts of the certificate's filtered probe (nev = 1); one that does not converge counts as a
/// failed search, and the next search is a plain deflated Lanczos block.
constexpr int64_t kFilterProbeRestarts = 60;

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
  // Column j becomes old column ord[j], in place (cycles of the permutation, one spare column):
  // no second n x m matrix, and the heap block of the vectors stays where the solver left it.
  Eigen::VectorXd val(m);
  for (Eigen::Index j = 0; j < m; ++j) val[j] = p->val[ord[static_cast<size_t>(j)]];
  p->val.swap(val);
  std::vector<char> done(static_cast<size_t>(m), 0);
  Eigen::VectorXd spare;
  for (Eigen::Index j = 0; j < m; ++j) {
    if (done[static_cast<size_t>(j)] || ord[static_cast<size_t>(j)] == j) continue;
    spare = p->vec.col(j);
    for (Eigen::Index t = j;;) {
      const Eigen::Index from = ord[static_cast<size_t>(t)];
      done[static_cast<size_t>(t)] = 1;
      if (from == j) {
        p->vec.col(t) = spare;
        break;
      }
      p->vec.col(t) = p->vec.col(from);
      t = from;
    }
  }
}


/// Largest eigenpairs of P (cI - L) P by Spectra; returns converged or not (message in *why).
bool lanczos(const Lap& L, const Eigen::MatrixXd& Q, int64_t nev, int64_t ncv, int64_t maxit, Pairs* out,
             SolveStats* st, std::string* why) {
  ShiftedOp op{&L, L.bound, &Q, {}};
  Spectra::SymEigsSolver<ShiftedOp> eig(op, nev, ncv);
  eig.init();
  spectra_compute(eig, Spectra::SortRule::LargestAlge, maxit, Spectra::SortRule::LargestAlge);
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
                  std::string* why, double max_factor_flops = std::numeric_limits<double>::infinity()) {
  if (L.n >= std::numeric_limits<int>::max() / 2 || L.nnz() >= std::numeric_limits<int>::max()) {
    *why += "shift-invert skipped (matrix too large for 32-bit sparse indices); ";
    return false;
  }
  // sigma slightly below 0: L - sigma I is positive definite (sigma = 0 would be singular).
  const double sigma = -kShiftRel * L.bound / 2.0;
  SpMat& M = si->M;
  {
    SpMat built = lower_csc(L, sigma);
    M.swap(built);  // (SparseMatrix's assignment from a returned matrix copies it)
  }
  GDBG("M built");
  ProbedLDLT& ldlt = si->ldlt;
  si->sigma = sigma;
  ldlt.order_pattern(M, L.ptr.data(), L.idx.data());  // L's rows: the full symmetric pattern of M
  const FillCount fc = ldlt.fill();  // counted before Eigen's symbolic analysis, whose time grows with the fill
  si->counted = true;
  si->count = fc;
  GDBG("shift-invert: ordered and counted: fill=%lld flops=%.3g", (long long)fc.factor_nnz, fc.flops);
  const int64_t fill = fc.factor_nnz;
  const int64_t fill_max = 40 * L.nnz() + 100000;
  char buf[240];
  if (fill > fill_max || !fc.indexable || fc.flops > max_factor_flops) {
    // Skipped or deferred: the count is all that is used later (Inertia::affordable; a deferred
    // retry orders again), so M and the ordered copy are freed before Lanczos allocates its basis.
    M = SpMat();
    ldlt.release();
  }
  if (fill > fill_max || !fc.indexable) {
    if (fill > fill_max)
      std::snprintf(buf, sizeof buf,
                    "shift-invert skipped (LDL^T factor would hold %lld nonzeros > %lld, 40x those of L); ",
                    static_cast<long long>(fill), static_cast<long long>(fill_max));
    else
      std::snprintf(buf, sizeof buf,
                    "shift-invert skipped (LDL^T factor of %lld nonzeros exceeds 32-bit column pointers); ",
                    static_cast<long long>(fill));
    *why += buf;
    return false;
  }
  if (fc.flops > max_factor_flops) {
    std::snprintf(buf, sizeof buf, "shift-invert deferred (LDL^T factorization %.3g flops > %.3g); ",
                  fc.flops, max_factor_flops);
    *why += buf;
    si->deferred = true;
    return false;
  }
  si->supernodal = fc.flops >= supernodal_min_flops() &&
                   si->chol.analyze(static_cast<int>(L.n), M.outerIndexPtr(), M.innerIndexPtr(), M.valuePtr());
  if (si->supernodal) {
    GDBG("CHOLMOD analyse done: factor nnz=%.0f flops=%.3g", si->chol.factor_nnz(), si->chol.factor_flops());
    if (!si->chol.factorize()) {
      *why += "shift-invert: supernodal Cholesky factorization of L - sigma*I failed; ";
      return false;
    }
    si->factor_nnz = static_cast<int64_t>(si->chol.factor_nnz()) - L.n;
  } else {
    ldlt.analyze();
    GDBG("analyze done: n=%lld nnz=%lld fill=%lld", (long long)L.n, (long long)L.nnz(), (long long)fill);
    ldlt.factorize(M);
    if (ldlt.info() != Eigen::Success) {
      *why += "shift-invert: LDL^T factorization of L - sigma*I failed; ";
      return false;
    }
    si->held_sigma = true;
    si->factor_nnz = ldlt.factor_nnz();
  }
  GDBG("factorize done");
  si->ready = true;
  const Eigen::MatrixXd none(L.n, 0);
  ShiftSolveOp op = si->op(static_cast<Eigen::Index>(L.n), &none);
  Spectra::SymEigsShiftSolver<ShiftSolveOp> eig(op, nev, ncv, sigma);
  eig.init();
  spectra_compute(eig, Spectra::SortRule::LargestMagn, 300, Spectra::SortRule::SmallestAlge);
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
bool deflated_shift_invert(const Lap& L, ShiftInvert& si, const Eigen::MatrixXd& Q, int64_t nev, int64_t ncv,
                           const double* start, Pairs* out, SolveStats* st) {
  if (!si.refactor()) return false;  // the inertia count may have used the storage
  ShiftSolveOp op = si.op(static_cast<Eigen::Index>(L.n), &Q);
  Spectra::SymEigsSolver<ShiftSolveOp> eig(op, nev, ncv);
  if (start != nullptr) eig.init(start); else eig.init();
  spectra_compute(eig, Spectra::SortRule::LargestMagn, 300, Spectra::SortRule::LargestMagn);
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
  spectra_compute(eig, Spectra::SortRule::LargestAlge, maxit, Spectra::SortRule::LargestAlge);
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
/// (L's, diagonal included) is ordered once (AMD), its factor counted, and analysed only when the
/// factorization is affordable, or not at all when the shift-invert factorization of the same
/// pattern exists (its ordering, and for an LDL^T shift-invert its analysis and storage, are
/// reused; a supernodal Cholesky cannot count negative pivots: it stops at the first); each count
/// is one numeric factorization.
struct Inertia {
  const Lap* L = nullptr;
  ShiftInvert* shared = nullptr;  // ready shift-invert factorization, or null
  SpMat M;
  std::vector<int> diag;  // position of M(i, i) in M's value array
  ProbedLDLT own;
  ProbedLDLT* ldlt = &own;
  // 0: not analysed, 1: affordable and analysed, 2: ordered and counted by precount, affordable,
  // not analysed yet, -1: fill beyond the limit
  int state = 0;
  int64_t fill = 0;

  double flops = 0.0;
  /// Analyses the pattern once; false when the numeric factorization would cost more than
  /// flops_max floating-point operations and no shift-invert factorization exists (with one, the
  /// count costs one more numeric factorization of the same pattern, no memory, and spares the
  /// deflated Krylov check: on the 1000 x 1000 grid dozens of solves).
  bool affordable(double flops_max) {
    if (state == 0 && shared != nullptr && !shared->ready && shared->counted &&
        (!shared->count.indexable || shared->count.flops > flops_max)) {
      // Shift-invert ordered and counted the same pattern (L - sigma I's lower triangle has L's)
      // and was skipped or deferred: the count says no without a second AMD ordering (on a
      // Barabasi-Albert graph with its hubs, 0.15 s at 3e4 nodes).
      fill = shared->count.factor_nnz;
      flops = shared->count.flops;
      state = -1;
      GDBG("inertia: shift-invert's count reused: fill=%lld flops=%.3g (limit %.3g)", (long long)fill, flops, flops_max);
    }
    if (state == 0) {
      if (L->n >= std::numeric_limits<int>::max() / 2 || L->nnz() >= std::numeric_limits<int>::max()) {
        state = -1;
        return false;
      }
      {
        SpMat built = lower_csc(*L, 0.0, &diag);
        M.swap(built);
      }
      if (shared != nullptr && shared->ready) {
        ldlt = &shared->ldlt;  // same pattern as M: built from L by the same loop
        if (shared->supernodal) {  // ordered and counted, not analysed: the Cholesky did the solves
          const FillCount fc = ldlt->fill();
          if (!fc.indexable) {
            state = -1;
            M = SpMat();
            std::vector<int>().swap(diag);
            return false;
          }
          ldlt->analyze();
        }
        fill = ldlt->factor_nnz();
        flops = ldlt->factor_flops();
        state = 1;
      } else {
        GDBG("inertia: M built");
        own.order_pattern(M, L->ptr.data(), L->idx.data());
        const FillCount fc = own.fill();  // before the symbolic analysis, whose time grows with the fill
        fill = fc.factor_nnz;
        flops = fc.flops;
        state = fc.indexable && flops <= flops_max ? 1 : -1;
        if (state == 1) own.analyze();
      }
      if (state != 1) {  // no count follows: free the pattern before the deflated Krylov searches
        M = SpMat();
        std::vector<int>().swap(diag);
        own.release();
      }
      GDBG("inertia analyse: n=%lld nnz=%lld fill=%lld flops=%.3g (limit %.3g)", (long long)L->n, (long long)L->nnz(),
           (long long)fill, flops, flops_max);
    }
    if (state == 2) {  // precount ordered M and found it affordable: the analysis only
      own.analyze();
      state = 1;
      GDBG("inertia analyse (ordered before the solve): fill=%lld flops=%.3g", (long long)fill, flops);
    }
    return state == 1;
  }
  /// affordable()'s ordering and count before a Lanczos solve (no shift-invert count to reuse):
  /// beyond flops_max (or not indexable) state = -1 and all is freed, so the ordering's memory
  /// (about 20 MB on a 10^5-node Barabasi-Albert graph) is reused by the Lanczos basis instead of
  /// added after it; else M and the ordering are kept (state 2) and affordable() only analyses.
  void precount(double flops_max) {
    if (state != 0 || (shared != nullptr && (shared->ready || shared->counted))) return;
    if (L->n >= std::numeric_limits<int>::max() / 2 || L->nnz() >= std::numeric_limits<int>::max()) return;
    {
      SpMat built = lower_csc(*L, 0.0, &diag);
      M.swap(built);
    }
    own.order_pattern(M, L->ptr.data(), L->idx.data());
    const FillCount fc = own.fill();
    fill = fc.factor_nnz;
    flops = fc.flops;
    GDBG("inertia precount: fill=%lld flops=%.3g (limit %.3g)", (long long)fill, flops, flops_max);
    if (fc.indexable && flops <= flops_max) {
      state = 2;
      return;
    }
    state = -1;
    M = SpMat();
    std::vector<int>().swap(diag);
    own.release();
  }
  /// Number of eigenvalues below sigma, or -1 if the factorization broke down (a zero or
  /// non-finite pivot: sigma is then moved by the caller).
  int64_t below(double sigma) {
    for (int64_t i = 0; i < L->n; ++i) {
      const double lii = L->val[static_cast<size_t>(diag_in_L(i))];
      M.valuePtr()[diag[static_cast<size_t>(i)]] = lii - sigma;
    }
    if (ldlt != &own) shared->held_sigma = false;
    ldlt->factorize(M);
    if (ldlt->info() != Eigen::Success) return -1;
    const Eigen::VectorXd& d = ldlt->vectorD();
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


}  // namespace

Eigen::VectorXd posenc::graph_detail::start_vector(int64_t n, uint64_t seed) {
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

namespace {

constexpr double kCertDelta = 1e-8;     // certificate margin, relative to c: sigma = top - 1e-8 c
constexpr double kInertiaFlops = 5e8;   // inertia attempted when its LDL^T costs <= 5e8 flops (~0.5 s),
                                        // or whenever shift-invert factorized the same pattern
/// POSENC_LAPPE_TEST_INERTIA_FLOPS=F (a test knob, read per call) replaces kInertiaFlops, so that
/// tests reach the KRYLOV certificate (F = 0, without a shift-invert factorization) on graphs small
/// enough for a dense reference.
double inertia_flops() {
  if (const char* e = std::getenv("POSENC_LAPPE_TEST_INERTIA_FLOPS")) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && v >= 0.0) return v;
  }
  return kInertiaFlops;
}

}  // namespace

/// Strength of a certificate (larger = stronger).
int posenc::graph_detail::cert_rank(posenc_lappe_certificate c) {
  return c == POSENC_LAPPE_CERT_DENSE ? 3 : c == POSENC_LAPPE_CERT_INERTIA ? 2 : c == POSENC_LAPPE_CERT_KRYLOV ? 1 : 0;
}

/// nev smallest eigenpairs of a connected component's Laplacian (nev <= L.n), certified.
posenc_status posenc::graph_detail::component_pairs(const Lap& L, int64_t nev, posenc_lappe_method solver, Pairs* out,
                                                    SolveStats* st, CompCert* cert) {
  *cert = CompCert{};
  if (3 * nev >= L.n || solver == POSENC_LAPPE_DENSE || (solver == POSENC_LAPPE_AUTO && L.n <= kDenseMax)) {
    st->method = "dense";
    // Small components (molecules): the tridiagonal path, Eigen's solver if it rejects its result.
    if (solver == POSENC_LAPPE_AUTO && L.n <= kSmallDenseMax && small_dense_pairs(L, nev, out)) return POSENC_OK;
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
  const double si_cap = solver == POSENC_LAPPE_AUTO ? kShiftInvertFlopsPerNnz * static_cast<double>(L.nnz())
                                                    : std::numeric_limits<double>::infinity();
  if (solver != POSENC_LAPPE_LANCZOS && shift_invert(L, nev, ncv0, &si, out, st, &why, si_cap) &&
      accept(out, "shift-invert")) {
    ok = true;
    st->method = "shift-invert";
  }
  // Lanczos path: first on a Chebyshev filter of L (lib/graph_lanczos_filter.cpp; ncv = ARPACK's
  // max(2 nev + 1, 20), at most kFilterRestarts restarts of up to ncv applications of d products
  // each), then on c I - L.
  double filter_a = 0.0;  // the filter's bound a when the filtered attempt gave the pairs, else 0
  Inertia inert;  // the certificate's inertia count (below)
  inert.L = &L;
  inert.shared = &si;
  // Forced Lanczos: no shift-invert count to reuse; the certificate's count runs before the
  // Lanczos basis exists, so that the ordering's memory is not added to the solve's (Inertia::precount).
  if (!ok && solver == POSENC_LAPPE_LANCZOS) inert.precount(inertia_flops());
  if (!ok && solver != POSENC_LAPPE_SHIFT_INVERT &&
      filtered_lanczos(L, nev, std::min<int64_t>(L.n, std::max<int64_t>(2 * nev + 1, 20)), kFilterRestarts, out, st,
                       &why, &filter_a)) {
    if (accept(out, "filtered Lanczos")) {
      ok = true;
      st->method = "lanczos";
    } else {
      filter_a = 0.0;
    }
  }
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
  if (!ok && si.deferred) {  // AUTO's Lanczos-first choice failed: the factorization after all
    si.deferred = false;
    if (shift_invert(L, nev, ncv0, &si, out, st, &why) && accept(out, "shift-invert")) {
      ok = true;
      st->method = "shift-invert";
    }
  }
  if (si.ready) cert->factor_nnz = si.factor_nnz;
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
  const bool use_inertia = inert.affordable(inertia_flops());
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
    // Deflated search below sigma, from a fresh start vector. Without inertia the first search is
    // a probe for the single smallest eigenvalue of L on the complement of the returned vectors
    // (nev = 1, ncv = ARPACK's max(2 nev + 1, 20) for the k wanted): a missed eigenvalue
    // below sigma is the extreme one there, which restarted Lanczos from a random start converges
    // first, so the probe tests what the certificate needs; converging a block of max(4, nev / 4)
    // values took 3x its products on a 3e4-node Barabasi-Albert graph (1726 against 561, k = 16).
    // Once a search has recovered a pair, or one did not converge, a cluster is likely: the
    // search asks for the block, as with inertia (where the count of missing values is known).
    const int64_t missing = truth >= 0 ? truth - have : 0;
    const int64_t room = L.n - nev - 1;
    const bool probe = !use_inertia && cert->recoveries == 0 && failed_searches == 0;
    const int64_t more =
        std::min<int64_t>(room, probe ? 1
                                      : std::max<int64_t>(std::max<int64_t>(4, nev / 4),
                                                          std::min<int64_t>(missing, nev) + 2));
    if (more <= 0)
      return set_error(POSENC_ERR_NOT_CONVERGED, "certificate: no room for a deflated search (component of %lld nodes)",
                       static_cast<long long>(L.n));
    const int64_t ncv =
        std::min<int64_t>(L.n - nev, probe ? std::max<int64_t>(2 * nev + 1, 20)
                                           : std::max<int64_t>(2 * more + 1, more + 16) << failed_searches);
    const Eigen::VectorXd v0 = start_vector(L.n, seed++);
    Pairs extra;
    // After a filtered solve the probe runs on the same filter p (lib/graph_lanczos_filter.cpp):
    // the pairs were accepted with p(lambda_k) > 1, so sigma <= lambda_k < a, and a missed
    // eigenvalue lambda* < sigma has p(lambda*) > p(lambda) for every other eigenvalue lambda >=
    // sigma of L on the complement of the returned vectors (p decreases on [0, a), |p| <= 1 on
    // [a, c]): it is the extreme eigenvalue of the deflated filter, as it is of c I - L for the
    // plain probe, and the returned vector's Rayleigh quotient with L is tested against sigma below.
    const bool got =
        si.ready ? deflated_shift_invert(L, si, out->vec, more, ncv, v0.data(), &extra, st)
        : probe && filter_a > 0.0
            ? deflated_filtered_lanczos(L, filter_a, out->vec, more, std::min<int64_t>(L.n - nev, 20), kFilterProbeRestarts,
                                        v0.data(), &extra, st)
            : deflated_lanczos(L, out->vec, more, ncv, 3000, v0.data(), &extra, st);
    bool found = false;
    // A value below sigma that the search returned but that fails the residual test is neither
    // kept nor ruled out: the search then counts as not converged, never as a certificate.
    bool unresolved = false;
    const double found_res_max = res_max * deflated_residual_scale();
    if (got) {
      polish(L, &extra);
      Pairs merged = *out;
      for (Eigen::Index j = 0; j < extra.val.size(); ++j) {
        // accept only true eigenpairs below sigma, orthogonal to what is kept
        Eigen::VectorXd v = extra.vec.col(j);
        Eigen::VectorXd y(L.n);
        L.shifted_apply(0.0, v.data(), y.data());
        if (!(extra.val[j] < sigma)) continue;
        if ((y + extra.val[j] * v).norm() > found_res_max) {
          unresolved = true;
          continue;
        }
        v -= merged.vec * (merged.vec.transpose() * v);
        const double nv = v.norm();
        if (!(nv > 0.5)) continue;
        v /= nv;
        L.shifted_apply(0.0, v.data(), y.data());
        const double lam = -v.dot(y);
        if ((y + lam * v).norm() > found_res_max) {
          unresolved = true;
          continue;
        }
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
      if (!use_inertia && got && !unresolved) {
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

/// ||L v_j - lambda_j v_j||_2 for every pair.
std::vector<double> posenc::graph_detail::residuals(const Lap& L, const Pairs& p) {
  std::vector<double> r(static_cast<size_t>(p.val.size()));
  Eigen::VectorXd y(L.n);
  for (Eigen::Index j = 0; j < p.val.size(); ++j) {
    L.shifted_apply(0.0, p.vec.col(j).data(), y.data());  // y = -L v
    r[static_cast<size_t>(j)] = (y + p.val[j] * p.vec.col(j)).norm();
  }
  return r;
}
