// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_maglap.cpp — graph family: magnetic Laplacian PE of directed graphs (MagLapPE,
// Geisler et al. 2023): the k smallest eigenpairs of the complex Hermitian L_q, per connected
// component of the symmetrized graph: up to kMagDenseMax nodes by a dense Householder
// tridiagonalization (Eigen) and the implicit QR of the real tridiagonal, larger components by
// the sparse route of lib/graph_maglap_sparse.cpp (lib/graph_maglap.hpp).
//
// Plain lib code (baseline flags, no SIMD kernel table): components are solved one after the
// other on the calling thread, so the result is bitwise identical for any thread count and on
// every ISA path.
#include "lib/graph_common.hpp"
#include "lib/graph_maglap.hpp"

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <vector>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

constexpr int64_t kMagDenseMax = 4096;  // largest component solved by the dense complex eigensolver

/// Components above this size take the sparse route: kMagDenseMax, or the value of the
/// environment variable POSENC_MAGLAP_DENSE_MAX (a test knob, docs/DEVELOPING.md), read per call.
int64_t dense_max() {
  if (const char* env = std::getenv("POSENC_MAGLAP_DENSE_MAX"); env && *env) {
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    if (end && *end == '\0' && v >= 1) return static_cast<int64_t>(v);
  }
  return kMagDenseMax;
}

/// Phase rule: the entry of largest modulus becomes real positive (ties within a relative 1e-6,
/// the lowest index decides), its imaginary part exactly 0.
void fix_phase(Eigen::Ref<Eigen::VectorXcd> v) {
  double mx = 0.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) mx = std::max(mx, std::abs(v[i]));
  const double thr = mx * (1.0 - 1e-6);
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    const double a = std::abs(v[i]);
    if (a >= thr && a > 0.0) {
      const std::complex<double> ph = std::conj(v[i]) / a;
      v *= ph;
      v[i] = std::complex<double>(std::abs(v[i]), 0.0);
      return;
    }
  }
}

posenc_status maglap_pe(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                        int64_t num_edges, const posenc_laplacian& laplacian_arg, double q, int32_t k,
                        double* eigvals, double* eigvecs_re, double* eigvecs_im) {
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  const long long lap_raw = enum_bits(laplacian_arg);
  POSENC_CHECK(check_laplacian(lap_raw));
  if (!(std::isfinite(q) && q >= 0.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "q must be finite and >= 0 (got %g)", q);
  if (k <= 0 || k > num_nodes)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "k must be in [1, num_nodes = %lld] (got %d)",
                     static_cast<long long>(num_nodes), k);
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, k, &total, "eigvecs_re [num_nodes, k]", sizeof(double)));
  POSENC_CHECK(check_not_null(eigvals, "eigvals"));
  POSENC_CHECK(check_not_null(eigvecs_re, "eigvecs_re"));
  POSENC_CHECK(check_not_null(eigvecs_im, "eigvecs_im"));
  const bool sym = lap_raw == POSENC_LAPLACIAN_SYM;
  return guarded([&]() -> posenc_status {
    // A_s = (W + W^T) / 2: the undirected graph with halved weights; its components.
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges, POSENC_GRAPH_BOTH_DIRECTIONS);
    const int64_t n = num_nodes;
    const Components cc = connected_components(gr);
    const std::vector<int32_t>& comp = cc.comp;
    const std::vector<int32_t>& local = cc.local;
    const std::vector<std::vector<int32_t>>& comps = cc.nodes;
    const int64_t dmax = dense_max();
    bool any_sparse = false;
    // Edges bucketed by component (edge order kept): W of each component is summed in edge order.
    // An edge whose ends lie in different components (weight 0, or a subnormal weight halved to 0
    // in A_s) adds nothing to A_s and is skipped.
    auto inside = [&](int64_t e) {
      return src[e] != dst[e] && comp[static_cast<size_t>(src[e])] == comp[static_cast<size_t>(dst[e])];
    };
    std::vector<int64_t> eptr(comps.size() + 1, 0);
    for (int64_t e = 0; e < num_edges; ++e)
      if (inside(e)) ++eptr[static_cast<size_t>(comp[static_cast<size_t>(src[e])]) + 1];
    for (size_t c = 0; c < comps.size(); ++c) eptr[c + 1] += eptr[c];
    std::vector<int64_t> ebuf(static_cast<size_t>(eptr.back()));
    {
      std::vector<int64_t> pos(eptr.begin(), eptr.end() - 1);
      for (int64_t e = 0; e < num_edges; ++e)
        if (inside(e)) ebuf[static_cast<size_t>(pos[static_cast<size_t>(comp[static_cast<size_t>(src[e])])]++)] = e;
    }
    struct Cand {
      double val;
      int32_t comp;
      int32_t col;
    };
    std::vector<Cand> cand;
    std::vector<Eigen::VectorXd> vals(comps.size());
    std::vector<Eigen::MatrixXcd> vecs(comps.size());
    const double two_pi_q = 2.0 * 3.14159265358979323846 * q;
    for (size_t c = 0; c < comps.size(); ++c) {
      const std::vector<int32_t>& nodes = comps[c];
      const int64_t nc = static_cast<int64_t>(nodes.size());
      const int64_t nev = std::min<int64_t>(k, nc);
      if (nc == 1) {
        vals[c] = Eigen::VectorXd::Constant(1, sym ? 1.0 : 0.0);
        vecs[c] = Eigen::MatrixXcd::Constant(1, 1, 1.0);
      } else if (nc > dmax) {
        any_sparse = true;
        POSENC_CHECK(maglap_sparse_component(nodes, local, src, dst, weights, ebuf.data() + eptr[c],
                                             eptr[c + 1] - eptr[c], sym, q, nev, &vals[c], &vecs[c]));
      } else {
        Eigen::MatrixXd W = Eigen::MatrixXd::Zero(nc, nc);
        for (int64_t p = eptr[c]; p < eptr[c + 1]; ++p) {
          const int64_t e = ebuf[static_cast<size_t>(p)];
          W(local[static_cast<size_t>(src[e])], local[static_cast<size_t>(dst[e])]) += weights ? weights[e] : 1.0;
        }
        Eigen::MatrixXcd L(nc, nc);
        Eigen::VectorXd d(nc), isq(nc);
        for (int64_t i = 0; i < nc; ++i) {
          double s = 0.0;
          for (int64_t j = 0; j < nc; ++j) s += 0.5 * (W(i, j) + W(j, i));
          if (!std::isfinite(s))
            return set_error(POSENC_ERR_INVALID_ARGUMENT,
                             "weights: the weighted degree of node %d overflows (got %g)", nodes[static_cast<size_t>(i)], s);
          d[i] = s;
          isq[i] = s > 0.0 ? 1.0 / std::sqrt(s) : 0.0;
        }
        for (int64_t j = 0; j < nc; ++j)
          for (int64_t i = 0; i < nc; ++i) {
            const double as = 0.5 * (W(i, j) + W(j, i));
            const double th = two_pi_q * (W(i, j) - W(j, i));
            const std::complex<double> h = as == 0.0 ? std::complex<double>(0.0, 0.0)
                                                     : std::complex<double>(as * std::cos(th), as * std::sin(th));
            L(i, j) = sym ? -(isq[i] * isq[j]) * h : -h;
          }
        for (int64_t i = 0; i < nc; ++i) L(i, i) = sym ? 1.0 : d[i];
        bool ok = true;
        if (q == 0.0) {  // L_0 is real: the real solver keeps eigvecs_im exactly 0
          Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(L.real());
          ok = es.info() == Eigen::Success;
          if (ok) {
            vals[c] = es.eigenvalues().head(nev);
            vecs[c] = es.eigenvectors().leftCols(nev).cast<std::complex<double>>();
          }
        } else {
          // Householder tridiagonalization of the Hermitian L (its tridiagonal is real), all
          // eigenpairs of the REAL tridiagonal by implicit QR, and only the nev wanted vectors
          // back-transformed: cheaper than accumulating the complex Q through the QR sweeps.
          Eigen::Tridiagonalization<Eigen::MatrixXcd> tri(L);
          const Eigen::VectorXd td = tri.diagonal();
          const Eigen::VectorXd te = tri.subDiagonal();
          Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es;
          es.computeFromTridiagonal(td, te, Eigen::ComputeEigenvectors);
          ok = es.info() == Eigen::Success;
          if (ok) {
            vals[c] = es.eigenvalues().head(nev);
            vecs[c] = tri.matrixQ() * es.eigenvectors().leftCols(nev).cast<std::complex<double>>();
          }
        }
        if (!ok)
          return set_error(POSENC_ERR_NOT_CONVERGED,
                           "the dense Hermitian eigensolver failed on the component of node %d (%lld nodes)",
                           nodes[0], static_cast<long long>(nc));
      }
      for (Eigen::Index j = 0; j < vals[c].size(); ++j)
        cand.push_back({vals[c][j], static_cast<int32_t>(c), static_cast<int32_t>(j)});
    }
    // Ascending value; ties by component (lowest node first), then by order within it.
    std::stable_sort(cand.begin(), cand.end(), [](const Cand& a, const Cand& b) { return a.val < b.val; });
    std::vector<double> re(static_cast<size_t>(total), 0.0), im(static_cast<size_t>(total), 0.0), ev(static_cast<size_t>(k));
    Eigen::VectorXcd col;
    for (int32_t j = 0; j < k; ++j) {
      const Cand& cd = cand[static_cast<size_t>(j)];
      ev[static_cast<size_t>(j)] = cd.val;
      const std::vector<int32_t>& nodes = comps[static_cast<size_t>(cd.comp)];
      col = vecs[static_cast<size_t>(cd.comp)].col(cd.col);
      fix_phase(col);
      for (size_t r = 0; r < nodes.size(); ++r) {
        const int64_t at = static_cast<int64_t>(nodes[r]) * k + j;
        re[static_cast<size_t>(at)] = col[static_cast<Eigen::Index>(r)].real();
        im[static_cast<size_t>(at)] = col[static_cast<Eigen::Index>(r)].imag();
      }
    }
    path(any_sparse ? "maglap_pe.sparse" : "maglap_pe.dense");
    POSENC_SHAPE("nodes=%lld edges=%lld k=%d components=%zu", (long long)n, (long long)num_edges, k, comps.size());
    std::copy(ev.begin(), ev.end(), eigvals);
    std::copy(re.begin(), re.end(), eigvecs_re);
    std::copy(im.begin(), im.end(), eigvecs_im);
    return POSENC_OK;
  });
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_maglap_pe_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                        const double* weights, int64_t num_edges,
                                                        posenc_laplacian laplacian, double q, int32_t k,
                                                        double* eigvals, double* eigvecs_re, double* eigvecs_im) {
  api_guard g("posenc_maglap_pe_f64");
  return maglap_pe(num_nodes, src, dst, weights, num_edges, laplacian, q, k, eigvals, eigvecs_re, eigvecs_im);
}
