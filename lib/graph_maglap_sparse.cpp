// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_maglap_sparse.cpp — graph family: the sparse eigensolver of MagLapPE for one large
// connected component.
//
// The Hermitian L = A + iB (n x n) acts on R^{2n} as the real symmetric [[A, -B], [B, A]], whose
// spectrum is L's with every multiplicity doubled. Spectra's shift-invert Lanczos runs on that
// embedding, with the shift-solve done by ONE complex sparse LDL^H of L - sigma I (Eigen
// SimplicialLDLT, AMD ordering): (M - sigma I)^{-1} [u; v] = [Re w; Im w], w = (L - sigma I)^{-1}
// (u + i v). From the 2k + 2 Ritz vectors [u; v] the complex vectors u + i v (q = 0: the real
// vectors u and v) span a subspace on which a Rayleigh-Ritz with L gives the eigenpairs: a copy
// J [u; v] = [-v; u] of a doubled eigenvalue maps to i (u + i v), the same complex line, and is
// dropped by the rank-revealing QR. Every returned pair must have a residual below
// kResidualTol * scale, and the count of eigenvalues of L below tau = lambda_k - delta
// (Sylvester's law of inertia: the negative pivots of the LDL^H of L - tau I) must equal the
// number of Ritz values below tau; a shortfall restarts with a larger subspace (3 rounds), and
// then the call fails with POSENC_ERR_NOT_CONVERGED rather than returning a wrong spectrum.
// When the LDL^H fills in (factor flops > kFillRatio n^1.5 or > kShiftInvertFlops: expander-like
// graphs) the Lanczos runs in regular mode on c I - M (c = Gershgorin bound of L) instead; the
// inertia certificate is kept while the factorization costs <= kInertiaFlops, beyond that a
// Lanczos run on c I - M with the Ritz span projected out must find nothing below tau. The cost
// is counted before Eigen's symbolic factorization (lib/sparse_fill.hpp: AMD ordering once,
// elimination tree and column counts in near-linear time); the symbolic and numeric factorizations
// run only on the routes that use them.
//
// Sequential, deterministic: Spectra's start vector is fixed, so the bits do not depend on the
// thread count or the ISA path (baseline flags, no SIMD kernel table).
#include "lib/graph_maglap.hpp"
#include "lib/graph_lappe.hpp"  // GDBG
#include "lib/sparse_fill.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Spectra/SymEigsShiftSolver.h>
#include <Spectra/SymEigsSolver.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <vector>

using namespace posenc;
using namespace posenc::detail;

namespace posenc {
namespace graph_detail {

namespace {

using cplx = std::complex<double>;
using CSp = Eigen::SparseMatrix<cplx, Eigen::ColMajor, int>;

constexpr double kSpectraTol = 1e-10;    // Spectra's relative Ritz tolerance
constexpr double kResidualTol = 1e-7;    // ||L v - lambda v|| <= kResidualTol * scale
constexpr double kShiftRel = 1e-6;       // shift-invert pole at -kShiftRel * scale (L is PSD)
constexpr double kCertDelta = 1e-8;      // certificate point tau = lambda_k - kCertDelta * scale
constexpr double kRankTol = 1e-6;        // rank threshold of the complex QR of the Ritz span
constexpr double kInertiaFlops = 2e10;   // Lanczos route: LDL^H factors up to this cost certify
constexpr double kShiftInvertFlops = 1e12; // shift-invert route: largest factorization attempted
constexpr double kFillRatio = 1e3;       // shift-invert while factor flops <= kFillRatio n^1.5
constexpr int kRounds = 3;               // subspace enlargements after a failed certificate

using ProbedCLDLT = OrderedLDLT<CSp>;

/// Spectra shift-solve operator on the real 2n embedding, through the complex factor.
struct EmbeddedShiftSolve {
  using Scalar = double;
  const ProbedCLDLT* f;
  Eigen::Index n;
  mutable Eigen::VectorXcd z, w;
  Eigen::Index rows() const { return 2 * n; }
  Eigen::Index cols() const { return 2 * n; }
  void set_shift(double) {}  // the factor already holds L - sigma I
  void perform_op(const double* x, double* y) const {
    z.resize(n);
    z.real() = Eigen::Map<const Eigen::VectorXd>(x, n);
    z.imag() = Eigen::Map<const Eigen::VectorXd>(x + n, n);
    w = f->solve(z);
    Eigen::Map<Eigen::VectorXd>(y, n) = w.real();
    Eigen::Map<Eigen::VectorXd>(y + n, n) = w.imag();
  }
};

/// Spectra operator on the real 2n embedding: y = P (c I - M) P x, P = I - E E^T (E may be empty).
struct EmbeddedShifted {
  using Scalar = double;
  const CSp* L;
  double c;
  const Eigen::MatrixXd* E;
  Eigen::Index n;
  mutable Eigen::VectorXcd z, w;
  mutable Eigen::VectorXd t;
  Eigen::Index rows() const { return 2 * n; }
  Eigen::Index cols() const { return 2 * n; }
  void perform_op(const double* x, double* y) const {
    Eigen::Map<Eigen::VectorXd> ym(y, 2 * n);
    t = Eigen::Map<const Eigen::VectorXd>(x, 2 * n);
    if (E->cols() > 0) t -= (*E) * (E->transpose() * t);
    z.resize(n);
    z.real() = t.head(n);
    z.imag() = t.tail(n);
    w = (*L) * z;
    ym.head(n) = c * t.head(n) - w.real();
    ym.tail(n) = c * t.tail(n) - w.imag();
    if (E->cols() > 0) ym -= (*E) * (E->transpose() * ym);
  }
};

template <class Solver>
bool spectra_run(Solver& eig, Spectra::SortRule sel, int64_t maxit, Spectra::SortRule sorting) {
  eig.init();
  try {
    eig.compute(sel, maxit, kSpectraTol, sorting);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception&) {
    return false;
  }
  return eig.info() == Spectra::CompInfo::Successful;
}

/// Numeric LDL^H of L - s I (pattern analysed); false on a zero or non-finite pivot.
bool factor_at(ProbedCLDLT* f, CSp* Ls, const std::vector<int>& dpos, const Eigen::VectorXd& diag, double s) {
  for (size_t i = 0; i < dpos.size(); ++i) Ls->valuePtr()[dpos[i]] = cplx(diag[static_cast<Eigen::Index>(i)] - s, 0.0);
  f->factorize(*Ls);
  if (f->info() != Eigen::Success) return false;
  const Eigen::VectorXcd& d = f->vectorD();
  for (Eigen::Index i = 0; i < d.size(); ++i)
    if (!std::isfinite(d[i].real()) || d[i].real() == 0.0) return false;
  return true;
}

}  // namespace

posenc_status maglap_sparse_component(const std::vector<int32_t>& nodes, const std::vector<int32_t>& local,
                                      const int64_t* src, const int64_t* dst, const double* weights,
                                      const int64_t* edges, int64_t num_local_edges, bool sym, double q,
                                      int64_t nev, Eigen::VectorXd* vals, Eigen::MatrixXcd* vecs) {
  const int64_t n64 = static_cast<int64_t>(nodes.size());
  if (n64 >= std::numeric_limits<int>::max() / 2 || 2 * num_local_edges + n64 >= std::numeric_limits<int>::max())
    return set_error(POSENC_ERR_UNSUPPORTED, "the component of node %d is too large for the sparse route (%lld nodes)",
                     nodes[0], static_cast<long long>(n64));
  const int n = static_cast<int>(n64);
  // C(i, j) = W(i, j) + i W(j, i), duplicates summed: both directions of every pair in one entry.
  CSp C(n, n);
  {
    std::vector<Eigen::Triplet<cplx, int>> tr;
    tr.reserve(static_cast<size_t>(2 * num_local_edges));
    for (int64_t p = 0; p < num_local_edges; ++p) {
      const int64_t e = edges[p];
      const int s = local[static_cast<size_t>(src[e])], d = local[static_cast<size_t>(dst[e])];
      const double w = weights ? weights[e] : 1.0;
      tr.emplace_back(s, d, cplx(w, 0.0));
      tr.emplace_back(d, s, cplx(0.0, w));
    }
    C.setFromTriplets(tr.begin(), tr.end());
  }
  // Degrees of A_s = (W + W^T) / 2 and the scaling D^{-1/2} (same formulas as the dense route).
  Eigen::VectorXd deg(n), isq(n);
  for (int j = 0; j < n; ++j) {
    double s = 0.0;
    for (CSp::InnerIterator it(C, j); it; ++it) s += 0.5 * (it.value().real() + it.value().imag());
    if (!std::isfinite(s))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "weights: the weighted degree of node %d overflows (got %g)",
                       nodes[static_cast<size_t>(j)], s);
    deg[j] = s;
    isq[j] = s > 0.0 ? 1.0 / std::sqrt(s) : 0.0;
  }
  // L (full Hermitian, diagonal stored) and the positions of its diagonal entries.
  const double two_pi_q = 2.0 * 3.14159265358979323846 * q;
  Eigen::VectorXd diag(n);
  CSp L(n, n);
  {
    std::vector<Eigen::Triplet<cplx, int>> tr;
    tr.reserve(static_cast<size_t>(C.nonZeros() + n));
    for (int j = 0; j < n; ++j) {
      diag[j] = sym ? 1.0 : deg[j];
      tr.emplace_back(j, j, cplx(diag[j], 0.0));
      for (CSp::InnerIterator it(C, j); it; ++it) {
        const int i = it.row();  // it.value() = W(i, j) + i W(j, i)
        const double as = 0.5 * (it.value().real() + it.value().imag());
        if (as == 0.0) continue;
        const double th = two_pi_q * (it.value().real() - it.value().imag());
        const cplx h(as * std::cos(th), as * std::sin(th));
        tr.emplace_back(i, j, sym ? -(isq[i] * isq[j]) * h : -h);
      }
    }
    L.setFromTriplets(tr.begin(), tr.end());
  }
  const double scale = std::max(1.0, diag.maxCoeff());
  CSp Ls = L.triangularView<Eigen::Lower>();
  std::vector<int> dpos(static_cast<size_t>(n), -1);
  for (int j = 0; j < n; ++j)
    for (int p = Ls.outerIndexPtr()[j]; p < Ls.outerIndexPtr()[j + 1]; ++p)
      if (Ls.innerIndexPtr()[p] == j) dpos[static_cast<size_t>(j)] = p;
  // Shift-invert while the factor stays sparse (grids, meshes, road networks); else plain Lanczos
  // on c I - M (expander-like graphs: large fill, but a wide spectral gap at the bottom). The
  // factor's cost is counted from the AMD-ordered pattern (elimination tree and column counts,
  // near-linear time) before Eigen's symbolic factorization, whose time grows with the fill, runs.
  ProbedCLDLT f;
  GDBG("maglap sparse: n=%d nnz(L lower)=%lld", n, (long long)Ls.nonZeros());
  f.order(Ls);
  GDBG("maglap sparse: AMD ordering done");
  const FillCount fc = f.fill();
  const double flops = fc.flops;
  GDBG("maglap sparse: fill counted: factor_nnz=%lld flops=%.3g", (long long)fc.factor_nnz, flops);
  const bool use_si = fc.indexable && flops <= kFillRatio * std::pow(static_cast<double>(n), 1.5) &&
                      flops <= kShiftInvertFlops;
  const bool use_inertia = use_si || (fc.indexable && flops <= kInertiaFlops);
  if (use_inertia) {
    f.analyze();
    GDBG("maglap sparse: symbolic factorization done");
  }
  double gersh = 0.0;  // Gershgorin bound of L's spectrum
  for (int j = 0; j < n; ++j) {
    double a = 0.0;
    for (CSp::InnerIterator it(L, j); it; ++it) a += std::abs(it.value());
    gersh = std::max(gersh, a);
  }
  const Eigen::MatrixXd no_proj;
  const bool real_case = q == 0.0;
  int64_t want = std::min<int64_t>(2 * nev + 2, 2 * n64 - 1);
  const char* why = "";
  for (int round = 0; round <= kRounds; ++round) {
    Eigen::MatrixXd X;
    int64_t ncv = 0;
    bool conv = false;
    if (use_si) {
      const double sigma = -kShiftRel * scale;
      if (!factor_at(&f, &Ls, dpos, diag, sigma))
        return set_error(POSENC_ERR_NOT_CONVERGED, "the LDL^H of L - sigma I broke down (component of node %d)",
                         nodes[0]);
      EmbeddedShiftSolve op{&f, n, {}, {}};
      ncv = std::min<int64_t>(2 * n64, std::max<int64_t>(2 * want + 1, want + 20));
      Spectra::SymEigsShiftSolver<EmbeddedShiftSolve> eig(op, want, ncv, sigma);
      conv = spectra_run(eig, Spectra::SortRule::LargestMagn, 1000, Spectra::SortRule::SmallestAlge);
      if (conv) X = eig.eigenvectors();
    } else {
      EmbeddedShifted op{&L, gersh, &no_proj, n, {}, {}, {}};
      ncv = std::min<int64_t>(2 * n64, std::max<int64_t>(2 * want + 1, want + 40));
      Spectra::SymEigsSolver<EmbeddedShifted> eig(op, want, ncv);
      conv = spectra_run(eig, Spectra::SortRule::LargestAlge, 20000, Spectra::SortRule::LargestAlge);
      if (conv) X = eig.eigenvectors();
    }
    if (!conv)
      return set_error(POSENC_ERR_NOT_CONVERGED,
                       "%s on the real embedding (Spectra, nev=%lld, ncv=%lld) did not converge "
                       "(component of node %d, %d nodes)",
                       use_si ? "shift-invert Lanczos" : "Lanczos", static_cast<long long>(want),
                       static_cast<long long>(ncv), nodes[0], n);
    // Basis of the Ritz span: complex u + i v (real u and v when q = 0), rank-revealing QR.
    Eigen::MatrixXcd Z;
    if (real_case) {
      Z.resize(n, 2 * X.cols());
      Z.leftCols(X.cols()) = X.topRows(n).cast<cplx>();
      Z.rightCols(X.cols()) = X.bottomRows(n).cast<cplx>();
    } else {
      Z.resize(n, X.cols());
      Z.real() = X.topRows(n);
      Z.imag() = X.bottomRows(n);
    }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXcd> qr(Z);
    qr.setThreshold(kRankTol);
    const Eigen::Index r = qr.rank();
    Eigen::MatrixXcd Q = qr.householderQ().setLength(qr.nonzeroPivots()) * Eigen::MatrixXcd::Identity(n, r);
    if (real_case) Q = Q.real().cast<cplx>();  // real span: Q is real up to rounding
    const Eigen::MatrixXcd LQ = L * Q;
    Eigen::MatrixXcd S = Q.adjoint() * LQ;
    S = (0.5 * (S + S.adjoint())).eval();
    Eigen::VectorXd mu;
    Eigen::MatrixXcd Y;
    if (real_case) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(S.real());
      mu = es.eigenvalues();
      Y = es.eigenvectors().cast<cplx>();
    } else {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> es(S);
      mu = es.eigenvalues();
      Y = es.eigenvectors();
    }
    if (r < nev) {
      why = "the Ritz span holds fewer independent complex vectors than wanted";
    } else {
      Eigen::MatrixXcd V = Q * Y.leftCols(nev);
      if (real_case) V = V.real().cast<cplx>();
      const Eigen::MatrixXcd R = LQ * Y.leftCols(nev) - V * mu.head(nev).asDiagonal();
      for (Eigen::Index j = 0; j < nev; ++j)
        if (!(R.col(j).norm() <= kResidualTol * scale))
          return set_error(POSENC_ERR_NOT_CONVERGED,
                           "eigenpair %lld of the component of node %d: residual %.3g above %.3g", (long long)j,
                           nodes[0], R.col(j).norm(), kResidualTol * scale);
      // Certificate: no eigenvalue of L below tau is missing from the Ritz values.
      double tau = mu[nev - 1] - kCertDelta * scale;
      if (!use_inertia) {
        // Probabilistic certificate: Lanczos on c I - M with the whole Ritz span (both real copies
        // of each complex vector) projected out; its largest eigenvalue c - lambda must not
        // reveal an eigenvalue lambda of L below tau.
        Eigen::MatrixXd E(2 * n64, 2 * r);
        E << Q.real(), -Q.imag(), Q.imag(), Q.real();
        EmbeddedShifted op{&L, gersh, &E, n, {}, {}, {}};
        const int64_t dncv = std::min<int64_t>(2 * n64, 40);
        if (2 * n64 - 2 * r < 3) {
          *vals = mu.head(nev);
          *vecs = std::move(V);
          return POSENC_OK;  // nothing left outside the span
        }
        Spectra::SymEigsSolver<EmbeddedShifted> eig(op, 2, dncv);
        if (!spectra_run(eig, Spectra::SortRule::LargestAlge, 20000, Spectra::SortRule::LargestAlge))
          return set_error(POSENC_ERR_NOT_CONVERGED,
                           "certificate: the deflated Lanczos run did not converge (component of node %d)", nodes[0]);
        const double rest = gersh - eig.eigenvalues()[0];
        if (rest >= tau) {
          *vals = mu.head(nev);
          *vecs = std::move(V);
          return POSENC_OK;
        }
        why = "the deflated Lanczos run found an eigenvalue below the returned ones";
        want += 4;
        want = std::min<int64_t>(std::max<int64_t>(want, 2 * nev + 2 * (round + 2)), 2 * n64 - 1);
        continue;
      }
      int64_t truth = -1;
      for (int t = 0; t < 4 && truth < 0; ++t, tau -= kCertDelta * scale) {
        if (!factor_at(&f, &Ls, dpos, diag, tau)) continue;
        const Eigen::VectorXcd& d = f.vectorD();
        truth = 0;
        for (Eigen::Index i = 0; i < d.size(); ++i) truth += d[i].real() < 0.0;
      }
      if (truth < 0)
        return set_error(POSENC_ERR_NOT_CONVERGED,
                         "certificate: the LDL^H of L - tau I broke down at 4 shifts (component of node %d)", nodes[0]);
      tau += kCertDelta * scale;
      int64_t have = 0;
      for (Eigen::Index j = 0; j < mu.size(); ++j) have += mu[j] < tau;
      if (truth == have) {
        *vals = mu.head(nev);
        *vecs = std::move(V);
        return POSENC_OK;
      }
      if (truth < have)
        return set_error(POSENC_ERR_NOT_CONVERGED,
                         "certificate: L has %lld eigenvalues below tau = %.17g by inertia but %lld Ritz values "
                         "lie below it (component of node %d)",
                         (long long)truth, tau, (long long)have, nodes[0]);
      why = "the inertia count found eigenvalues the Lanczos run missed";
      want += 2 * (truth - have) + 2;
    }
    want = std::min<int64_t>(std::max<int64_t>(want, 2 * nev + 2 * (round + 2)), 2 * n64 - 1);
  }
  return set_error(POSENC_ERR_NOT_CONVERGED, "certificate (component of node %d, %d nodes): %s after %d rounds",
                   nodes[0], n, why, kRounds + 1);
}

}  // namespace graph_detail
}  // namespace posenc
