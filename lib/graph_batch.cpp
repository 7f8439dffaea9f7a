// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_batch.cpp — graph family: LapPE and RWSE of many graphs in one call (PyG's Batch
// layout: concatenated edge lists with node and edge offsets), parallel over graphs.
//
// Small connected graphs (the molecules of ZINC / PCQM4Mv2: 10-50 nodes) take a dense path built
// for them: Householder tridiagonalization (Eigen), all eigenvalues of the tridiagonal by implicit
// QL, the k smallest eigenvectors by inverse iteration (2 solves) with full re-orthogonalization, and the
// Householder back-transform: about a third of the work of Eigen's SelfAdjointEigenSolver, which
// computes all n eigenvectors. Every returned pair is checked (residual); a graph that fails the
// check, is disconnected or is larger takes the single-graph code (lib/graph_lappe.cpp). RWSE
// uses the single-graph kernel unchanged (bitwise equal to posenc_rwse_f64).
//
// Each graph is computed by one thread from its own data only, in fixed tiles of graphs: the
// result is bitwise identical for any thread count.
#include "lib/graph_common.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

constexpr int64_t kSmallMax = 512;       // connected graphs up to this size: the tridiagonal path
constexpr double kSmallResidual = 1e-12;  // accepted residual ||L v - lambda v|| / c on that path
constexpr int64_t kGraphsPerTile = 16;

/// sqrt(a^2 + b^2) without hypot's cost where no overflow or underflow can occur.
inline double fast_hypot(double a, double b) {
  const double m = std::max(std::abs(a), std::abs(b));
  if (m > 1e-150 && m < 1e150) return std::sqrt(a * a + b * b);
  return std::hypot(a, b);
}

/// All eigenvalues of the symmetric tridiagonal (d, e) by the implicit QL method (EISPACK tql1,
/// Wilkinson shift): e[i] couples d[i] and d[i+1], e[n-1] = 0. d receives the eigenvalues
/// (unordered); false if an eigenvalue took more than 60 iterations.
bool tridiag_values(int64_t n, double* d, double* e) {
  const double eps = std::numeric_limits<double>::epsilon();
  for (int64_t l = 0; l < n; ++l) {
    int iter = 0;
    int64_t m;
    do {
      for (m = l; m < n - 1; ++m) {
        const double dd = std::abs(d[m]) + std::abs(d[m + 1]);
        if (std::abs(e[m]) <= eps * dd) break;
      }
      if (m != l) {
        if (iter++ == 60) return false;
        double g = (d[l + 1] - d[l]) / (2.0 * e[l]);
        double r = fast_hypot(g, 1.0);
        g = d[m] - d[l] + e[l] / (g + std::copysign(r, g));
        double s = 1.0, c = 1.0, p = 0.0;
        int64_t i;
        bool early = false;
        for (i = m - 1; i >= l; --i) {
          const double f = s * e[i], b = c * e[i];
          r = fast_hypot(f, g);
          e[i + 1] = r;
          if (r == 0.0) {
            d[i + 1] -= p;
            e[m] = 0.0;
            early = true;
            break;
          }
          s = f / r;
          c = g / r;
          g = d[i + 1] - p;
          r = (d[i] - g) * s + 2.0 * c * b;
          p = s * r;
          d[i + 1] = g + p;
          g = c * r - b;
        }
        if (early) continue;
        d[l] -= p;
        e[l] = g;
        e[m] = 0.0;
      }
    } while (m != l);
  }
  return true;
}

/// Scratch of the tridiagonal path (per thread).
/// One per graph, sized at construction: Eigen's dynamic storage frees its old block before it
/// allocates a new one of another size and keeps the freed pointer when that allocation throws
/// (a double free when the object is destroyed), so a scratch reused for graphs of different
/// sizes is not exception-safe (tests/test_oom.cpp found it).
struct SmallScratch {
  explicit SmallScratch(Eigen::Index n) : tri(n) {}
  Eigen::MatrixXd A, Y;
  Eigen::Tridiagonalization<Eigen::MatrixXd> tri;
  std::vector<double> d, e, lu0, lu1, lu2, mult, y;
  std::vector<char> piv;
};

/// LU factorization with partial pivoting of T - lambda I (T = (d, e) tridiagonal) for inverse
/// iteration; zero pivots are replaced by tiny (= eps ||T||). Stores U's three diagonals (the
/// first as reciprocals), the multipliers and the row swaps in S.
void tridiag_factor(int64_t n, const double* d, const double* e, double lambda, double tiny, SmallScratch& S) {
  double* u0 = S.lu0.data();
  double* u1 = S.lu1.data();
  double* u2 = S.lu2.data();
  double* mu = S.mult.data();
  char* pv = S.piv.data();
  double cd = d[0] - lambda, cs = n > 1 ? e[0] : 0.0;
  for (int64_t i = 0; i + 1 < n; ++i) {
    const double sub = e[i], dg = d[i + 1] - lambda, sup = i + 2 < n ? e[i + 1] : 0.0;
    if (std::abs(cd) >= std::abs(sub)) {
      if (cd == 0.0) cd = tiny;
      const double m = sub / cd;
      u0[i] = 1.0 / cd;
      u1[i] = cs;
      u2[i] = 0.0;
      cd = dg - m * cs;
      cs = sup;
      mu[i] = m;
      pv[i] = 0;
    } else {
      const double m = cd / sub;
      u0[i] = 1.0 / sub;
      u1[i] = dg;
      u2[i] = sup;
      cd = cs - m * dg;
      cs = -m * sup;
      mu[i] = m;
      pv[i] = 1;
    }
  }
  u0[n - 1] = 1.0 / (cd == 0.0 ? tiny : cd);
}

/// Solves (T - lambda I) x = y with the factorization of tridiag_factor; y is overwritten with x.
void tridiag_solve(int64_t n, const SmallScratch& S, double* y) {
  const double* u0 = S.lu0.data();
  const double* u1 = S.lu1.data();
  const double* u2 = S.lu2.data();
  const double* mu = S.mult.data();
  const char* pv = S.piv.data();
  for (int64_t i = 0; i + 1 < n; ++i) {
    if (pv[i]) std::swap(y[i], y[i + 1]);
    y[i + 1] -= mu[i] * y[i];
  }
  y[n - 1] *= u0[n - 1];
  if (n > 1) y[n - 2] = (y[n - 2] - u1[n - 2] * y[n - 1]) * u0[n - 2];
  for (int64_t i = n - 3; i >= 0; --i) y[i] = (y[i] - u1[i] * y[i + 1] - u2[i] * y[i + 2]) * u0[i];
}

/// The nev smallest eigenpairs of the connected component Laplacian L (all its n nodes) by the
/// tridiagonal path; false if an eigenvalue did not converge or a residual exceeds kSmallResidual c.
bool small_pairs(const Lap& L, int64_t nev, SmallScratch& S, Pairs* out) {
  const int64_t n = L.n;
  S.A.setZero(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = L.ptr[static_cast<size_t>(i)]; p < L.ptr[static_cast<size_t>(i) + 1]; ++p)
      S.A(i, L.idx[static_cast<size_t>(p)]) = L.val[static_cast<size_t>(p)];
  S.tri.compute(S.A);
  const auto diag = S.tri.diagonal();
  const auto sub = S.tri.subDiagonal();
  S.d.resize(static_cast<size_t>(n));
  S.e.assign(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < n; ++i) S.d[static_cast<size_t>(i)] = diag[i];  // (a strided view of T)
  for (int64_t i = 0; i + 1 < n; ++i) S.e[static_cast<size_t>(i)] = sub[i];
  double tnorm = 0.0;
  for (int64_t i = 0; i < n; ++i)
    tnorm = std::max(tnorm, std::abs(S.d[static_cast<size_t>(i)]) + (i > 0 ? std::abs(S.e[static_cast<size_t>(i) - 1]) : 0.0) +
                                (i + 1 < n ? std::abs(S.e[static_cast<size_t>(i)]) : 0.0));
  std::vector<double> vals(S.d), work(S.e);
  if (!tridiag_values(n, vals.data(), work.data())) return false;
  std::sort(vals.begin(), vals.end());
  S.lu0.resize(static_cast<size_t>(n));
  S.lu1.resize(static_cast<size_t>(n));
  S.lu2.resize(static_cast<size_t>(n));
  S.mult.resize(static_cast<size_t>(n));
  S.piv.resize(static_cast<size_t>(n));
  S.Y.resize(n, nev);
  const double tiny = std::numeric_limits<double>::epsilon() * std::max(tnorm, 1e-300);
  for (int64_t j = 0; j < nev; ++j) {
    double* y = S.Y.col(j).data();
    // Deterministic start vector (splitmix64 of the column index).
    uint64_t z = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(j + 1);
    for (int64_t i = 0; i < n; ++i) {
      z += 0x9e3779b97f4a7c15ULL;
      uint64_t w = z;
      w = (w ^ (w >> 30)) * 0xbf58476d1ce4e5b9ULL;
      w = (w ^ (w >> 27)) * 0x94d049bb133111ebULL;
      w ^= w >> 31;
      y[i] = static_cast<double>(w >> 11) * 0x1.0p-53 - 0.5;
    }
    tridiag_factor(n, S.d.data(), S.e.data(), vals[static_cast<size_t>(j)], tiny, S);
    for (int it = 0; it < 2; ++it) {
      tridiag_solve(n, S, y);
      // Modified Gram-Schmidt against the previous vectors; twice after the last solve ("twice is
      // enough").
      for (int pass = 0; pass < 1 + it; ++pass)
        for (int64_t q = 0; q < j; ++q) {
          const double* yq = S.Y.col(q).data();
          double dot = 0.0;
          for (int64_t i = 0; i < n; ++i) dot += yq[i] * y[i];
          for (int64_t i = 0; i < n; ++i) y[i] -= dot * yq[i];
        }
      double nrm = 0.0;
      for (int64_t i = 0; i < n; ++i) nrm += y[i] * y[i];
      nrm = std::sqrt(nrm);
      if (!(nrm > 0.0) || !std::isfinite(nrm)) return false;
      for (int64_t i = 0; i < n; ++i) y[i] /= nrm;
    }
  }
  out->vec = S.tri.matrixQ() * S.Y;
  out->val.resize(nev);
  // Eigenvalues: Rayleigh quotients of the back-transformed vectors; every residual checked.
  Eigen::VectorXd v(n), r(n);
  for (int64_t j = 0; j < nev; ++j) {
    v = out->vec.col(j);
    L.shifted_apply(0.0, v.data(), r.data());  // r = -L v
    const double lam = -v.dot(r);
    r += lam * v;
    if (!(r.norm() <= kSmallResidual * L.bound)) return false;
    out->val[j] = lam;
  }
  return true;
}

/// Scratch of one tile of graphs (a local of the tile: a tbb::enumerable_thread_specific here
/// double-freed its storage when an allocation inside it failed, found by tests/test_oom.cpp).
struct BatchScratch {
  std::vector<int64_t> src, dst;
  RwseScratch rw;
  std::vector<double> vals, vecs;
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

}  // namespace

extern "C" POSENC_API posenc_status posenc_graph_batch_pe_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                             const int64_t* edge_ptr, const int64_t* src,
                                                             const int64_t* dst, const double* weights,
                                                             posenc_laplacian laplacian, int32_t k, int32_t steps,
                                                             double* eigvals, double* eigvecs, double* rwse,
                                                             int32_t* graph_status) {
  api_guard g("posenc_graph_batch_pe_f64");
  POSENC_CHECK(check_positive(num_graphs, "num_graphs"));
  POSENC_CHECK(check_not_null(node_ptr, "node_ptr"));
  POSENC_CHECK(check_not_null(edge_ptr, "edge_ptr"));
  const long long lap_raw = enum_bits(laplacian);
  POSENC_CHECK(check_laplacian(lap_raw));
  if (k < 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "k must be >= 0 (got %d)", k);
  if (steps < 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "steps must be >= 0 (got %d)", steps);
  if (k == 0 && steps == 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "k and steps must not both be 0 (nothing to compute)");
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
  return guarded([&]() -> posenc_status {
    // The results are computed into staging arrays and copied to the caller's at the end: an
    // allocation failing in any graph (OUT_OF_MEMORY for the whole call) then leaves every output
    // untouched. A graph whose eigensolver does not converge is reported in graph_status.
    std::vector<int32_t> st(static_cast<size_t>(num_graphs), POSENC_OK);
    std::vector<double> eigvals_s(static_cast<size_t>(k > 0 ? num_graphs * k : 0)),
        eigvecs_s(static_cast<size_t>(k > 0 ? total_nodes * k : 0)),
        rwse_s(static_cast<size_t>(steps > 0 ? total_nodes * steps : 0));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    parallel_tiles(tiles_of(num_graphs, kGraphsPerTile), [&](int64_t tile) {
      BatchScratch S;
      const int64_t g0 = tile * kGraphsPerTile, g1 = std::min(num_graphs, g0 + kGraphsPerTile);
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
        const Graph gr = build_graph(n, S.src.data(), S.dst.data(), w, m);
        if (steps > 0) {
          double* out = rwse_s.data() + off * steps;
          std::fill(out, out + n * steps, 0.0);
          std::vector<double> invdeg(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i)
            invdeg[static_cast<size_t>(i)] = gr.deg[static_cast<size_t>(i)] > 0.0 ? 1.0 / gr.deg[static_cast<size_t>(i)] : 0.0;
          std::vector<int32_t> order;
          for (int32_t v : bfs_order(gr))
            if (gr.deg[static_cast<size_t>(v)] > 0.0) order.push_back(v);
          if (static_cast<int64_t>(S.rw.local.size()) < n) S.rw.local.resize(static_cast<size_t>(n), -1);
          if (S.rw.r.size() < static_cast<size_t>((steps + 1) / 2) + 1) S.rw.r.resize(static_cast<size_t>((steps + 1) / 2) + 1);
          const int64_t cnt = static_cast<int64_t>(order.size());
          for (int64_t i = 0; i < cnt; i += kBlock) {
            const int nb = static_cast<int>(std::min<int64_t>(kBlock, cnt - i));
            rwse_block(gr, invdeg.data(), order.data() + i, nb, steps, S.rw, out);
          }
        }
        if (k == 0) continue;
        const int64_t kk = std::min<int64_t>(k, n);
        double* vecs = eigvecs_s.data() + off * k;
        bool done = false;
        if (n >= 2 && n <= kSmallMax) {
          // connected? (BFS from node 0 reaches every node)
          int64_t reach = 1;
          {
            std::vector<char> seen(static_cast<size_t>(n), 0);
            std::vector<int32_t> q{0};
            seen[0] = 1;
            for (size_t h = 0; h < q.size(); ++h)
              for (int64_t p = gr.ptr[static_cast<size_t>(q[h])]; p < gr.ptr[static_cast<size_t>(q[h]) + 1]; ++p) {
                const int32_t u = gr.idx[static_cast<size_t>(p)];
                if (!seen[static_cast<size_t>(u)]) {
                  seen[static_cast<size_t>(u)] = 1;
                  q.push_back(u);
                }
              }
            reach = static_cast<int64_t>(q.size());
          }
          if (reach == n) {
            std::vector<int32_t> all(static_cast<size_t>(n));
            std::iota(all.begin(), all.end(), 0);
            const Lap L = component_laplacian(gr, all, all, kind);
            Pairs P;
            SmallScratch sm(n);
            if (small_pairs(L, kk, sm, &P)) {
              // The smallest eigenvalue of a connected graph is exactly 0 with a known null vector
              // (as in posenc_laplacian_pe_f64).
              if (std::abs(P.val[0]) <= 1e-8 * L.bound) {
                Eigen::VectorXd z(n);
                for (int64_t j = 0; j < n; ++j)
                  z[j] = kind == POSENC_LAPLACIAN_SYM ? std::sqrt(gr.deg[static_cast<size_t>(j)]) : 1.0;
                z /= z.norm();
                P.val[0] = 0.0;
                P.vec.col(0) = z;
              }
              for (int64_t j = 0; j < kk; ++j) {
                vals[j] = P.val[j];
                for (int64_t r = 0; r < n; ++r) vecs[r * k + j] = P.vec(r, j);
                fix_sign(vecs + j, n, k);
              }
              done = true;
            }
          }
        }
        if (!done) {
          S.vals.resize(static_cast<size_t>(kk));
          S.vecs.resize(static_cast<size_t>(n * kk));
          const posenc_status s = laplacian_pe_core(n, S.src.data(), S.dst.data(), w, m, kind,
                                                    static_cast<int32_t>(kk), S.vals.data(), S.vecs.data());
          if (s == POSENC_ERR_OUT_OF_MEMORY) throw std::bad_alloc();
          if (s != POSENC_OK) {
            st[static_cast<size_t>(gi)] = s;
            for (int64_t r = 0; r < n; ++r)
              for (int32_t j = 0; j < k; ++j) vecs[r * k + j] = nan;
            continue;
          }
          for (int64_t j = 0; j < kk; ++j) vals[j] = S.vals[static_cast<size_t>(j)];
          for (int64_t r = 0; r < n; ++r)
            for (int64_t j = 0; j < kk; ++j) vecs[r * k + j] = S.vecs[static_cast<size_t>(r * kk + j)];
        }
        for (int64_t r = 0; r < n; ++r)
          for (int64_t j = kk; j < k; ++j) vecs[r * k + j] = 0.0;
      }
    });
    path("graph_batch_pe.tridiagonal");
    POSENC_SHAPE("graphs=%lld nodes=%lld edges=%lld k=%d steps=%d", (long long)num_graphs, (long long)total_nodes,
                 (long long)num_edges, k, steps);
    std::copy(eigvals_s.begin(), eigvals_s.end(), eigvals);
    std::copy(eigvecs_s.begin(), eigvecs_s.end(), eigvecs);
    std::copy(rwse_s.begin(), rwse_s.end(), rwse);
    if (graph_status != nullptr) std::copy(st.begin(), st.end(), graph_status);
    for (int64_t gi = 0; gi < num_graphs; ++gi)
      if (st[static_cast<size_t>(gi)] != POSENC_OK)
        return set_error(static_cast<posenc_status>(st[static_cast<size_t>(gi)]),
                         "graph %lld (and possibly others, see graph_status) failed: its eigvals / eigvecs rows are NaN",
                         static_cast<long long>(gi));
    return POSENC_OK;
  });
}
