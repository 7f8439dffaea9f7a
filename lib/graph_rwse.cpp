// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_rwse.cpp — graph family: random-walk structural encodings (RWSE), the diagonal of
// the random-walk matrix powers, by meet-in-the-middle local propagation.
//
// Plain lib code (baseline flags): irregular sparse propagation whose gathers do not vectorize
// profitably, split over the posenc arena with parallel_tiles (tiles depend on the problem only),
// so results are bitwise identical for any thread count and on every ISA path.
#include "lib/graph_common.hpp"

#include <tbb/enumerable_thread_specific.h>

using namespace posenc;
using namespace posenc::detail;

namespace posenc {
namespace graph_detail {

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

}  // namespace graph_detail
}  // namespace posenc

using namespace posenc::graph_detail;

namespace {

posenc_status rwse(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                   int64_t num_edges, int32_t steps, uint32_t flags, double* out) {
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  if (steps <= 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "steps must be > 0 (got %d)", steps);
  if ((flags & ~(POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_GRAPH_BOTH_DIRECTIONS)) != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "flags may hold only POSENC_GRAPH_KEEP_SELF_LOOPS and POSENC_GRAPH_BOTH_DIRECTIONS (got 0x%x)",
                     static_cast<unsigned>(flags));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, steps, &total, "out [num_nodes, steps]", sizeof(double)));
  POSENC_CHECK(check_not_null(out, "out"));
  return guarded([&]() -> posenc_status {
    // Kept self-loops are diagonal CSR entries: the propagation below takes them as steps from
    // v to v, and A stays symmetric, so the meet-in-the-middle identity still holds.
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges, flags);
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

}  // namespace

extern "C" POSENC_API posenc_status posenc_rwse_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                   const double* weights, int64_t num_edges, int32_t steps,
                                                   double* out) {
  api_guard g("posenc_rwse_f64");
  return rwse(num_nodes, src, dst, weights, num_edges, steps, 0u, out);
}

extern "C" POSENC_API posenc_status posenc_rwse_ex_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                      const double* weights, int64_t num_edges, int32_t steps,
                                                      uint32_t flags, double* out) {
  api_guard g("posenc_rwse_ex_f64");
  return rwse(num_nodes, src, dst, weights, num_edges, steps, flags, out);
}
