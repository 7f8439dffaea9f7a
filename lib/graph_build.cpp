// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_build.cpp — graph family: argument checks, the CSR adjacency, component Laplacians,
// dense eigenpairs, the sign rule and BFS order shared by every graph function
// (lib/graph_common.hpp).
#include "lib/graph_common.hpp"

#include <algorithm>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <limits>
#include <utility>

using namespace posenc;
using namespace posenc::detail;

namespace posenc {
namespace graph_detail {

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

posenc_status check_laplacian(long long lap_raw) {
  if (lap_raw != POSENC_LAPLACIAN_SYM && lap_raw != POSENC_LAPLACIAN_COMBINATORIAL)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "laplacian must be POSENC_LAPLACIAN_SYM (0) or POSENC_LAPLACIAN_COMBINATORIAL (1) (got %lld)",
                     lap_raw);
  return POSENC_OK;
}


Graph build_graph(int64_t n, const int64_t* src, const int64_t* dst, const double* weights, int64_t m,
                  uint32_t flags) {
  Graph g;
  g.n = n;
  const bool loops = (flags & POSENC_GRAPH_KEEP_SELF_LOOPS) != 0;
  // BOTH_DIRECTIONS: A = (W + W^T) / 2; halving is exact (barring subnormal weights), so a
  // symmetric list gives W itself bit for bit.
  const double scale = (flags & POSENC_GRAPH_BOTH_DIRECTIONS) != 0 ? 0.5 : 1.0;
  std::vector<int64_t> cnt(static_cast<size_t>(n) + 1, 0);
  for (int64_t e = 0; e < m; ++e)
    if (src[e] != dst[e]) {
      ++cnt[static_cast<size_t>(src[e]) + 1];
      ++cnt[static_cast<size_t>(dst[e]) + 1];
    } else if (loops) {
      ++cnt[static_cast<size_t>(src[e]) + 1];
    }
  for (int64_t i = 0; i < n; ++i) cnt[static_cast<size_t>(i) + 1] += cnt[static_cast<size_t>(i)];
  std::vector<std::pair<int32_t, double>> ent(static_cast<size_t>(cnt[static_cast<size_t>(n)]));
  {
    std::vector<int64_t> pos(cnt.begin(), cnt.end() - 1);
    for (int64_t e = 0; e < m; ++e) {
      const int64_t u = src[e], v = dst[e];
      const double w = weights ? weights[e] : 1.0;
      if (u == v) {
        if (loops) ent[static_cast<size_t>(pos[static_cast<size_t>(u)]++)] = {static_cast<int32_t>(u), w};
        continue;
      }
      ent[static_cast<size_t>(pos[static_cast<size_t>(u)]++)] = {static_cast<int32_t>(v), w * scale};
      ent[static_cast<size_t>(pos[static_cast<size_t>(v)]++)] = {static_cast<int32_t>(u), w * scale};
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
  // Exact sizes (every neighbour plus the diagonal): push_back's doubling would leave up to half
  // of idx and val unused for the whole solve.
  size_t nnz = nodes.size();
  for (const int32_t u : nodes) nnz += static_cast<size_t>(g.ptr[static_cast<size_t>(u) + 1] - g.ptr[static_cast<size_t>(u)]);
  L.idx.reserve(nnz);
  L.val.reserve(nnz);
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

Components connected_components(const Graph& g) {
  Components cc;
  cc.comp.assign(static_cast<size_t>(g.n), -1);
  cc.local.assign(static_cast<size_t>(g.n), -1);
  for (int64_t s = 0; s < g.n; ++s) {
    if (cc.comp[static_cast<size_t>(s)] >= 0) continue;
    const int32_t c = static_cast<int32_t>(cc.nodes.size());
    cc.nodes.emplace_back();
    std::vector<int32_t>& nodes = cc.nodes.back();
    nodes.push_back(static_cast<int32_t>(s));
    cc.comp[static_cast<size_t>(s)] = c;
    for (size_t h = 0; h < nodes.size(); ++h) {
      const int32_t u = nodes[h];
      for (int64_t p = g.ptr[static_cast<size_t>(u)]; p < g.ptr[static_cast<size_t>(u) + 1]; ++p) {
        const int32_t w = g.idx[static_cast<size_t>(p)];
        if (cc.comp[static_cast<size_t>(w)] < 0) {
          cc.comp[static_cast<size_t>(w)] = c;
          nodes.push_back(w);
        }
      }
    }
    std::sort(nodes.begin(), nodes.end());
    for (size_t j = 0; j < nodes.size(); ++j) cc.local[static_cast<size_t>(nodes[j])] = static_cast<int32_t>(j);
  }
  return cc;
}

}  // namespace graph_detail
}  // namespace posenc
