// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_rwse.cpp — graph family: random-walk structural encodings (RWSE), the diagonal of
// the random-walk matrix powers, by meet-in-the-middle local propagation (graphs of at most
// kDenseRwseMax nodes: every source at once over dense rows, rwse_dense).
//
// Plain lib code (baseline flags): irregular sparse propagation whose gathers do not vectorize
// profitably, split over the posenc arena with parallel_tiles (tiles depend on the problem only),
// so results are bitwise identical for any thread count and on every ISA path.
#include "lib/graph_common.hpp"

#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <cmath>

using namespace posenc;
using namespace posenc::detail;

namespace posenc {
namespace graph_detail {

namespace {

/// The walk distributions of one block of sources, grown node by node (any graph size):
/// r[s] holds the rows of the nodes discovered by the end of step s, in discovery order.
struct GrowLayout {
  RwseScratch& S;
  int32_t* local() { return S.local.data(); }
  void reset() { S.nodes.clear(); }
  void add_node(int64_t, int32_t v) { S.nodes.push_back(v); }
  int32_t node(int64_t j) const { return S.nodes[static_cast<size_t>(j)]; }
  /// Step s's storage with its first `count` values zeroed (the rest is not used yet).
  double* open(int32_t s, int64_t count) {
    S.r[static_cast<size_t>(s)].assign(static_cast<size_t>(count), 0.0);
    return S.r[static_cast<size_t>(s)].data();
  }
  /// Row cnt - 1 of step s was just discovered: zeroed; returns step s's (possibly moved) storage.
  double* grow(int32_t s, int64_t cnt) {
    std::vector<double>& r = S.r[static_cast<size_t>(s)];
    r.resize(static_cast<size_t>(cnt) * kBlock, 0.0);
    return r.data();
  }
  void close(int32_t s, int64_t cnt) { S.r[static_cast<size_t>(s)].resize(static_cast<size_t>(cnt) * kBlock); }
  int64_t rows(int32_t s) const { return static_cast<int64_t>(S.r[static_cast<size_t>(s)].size()) / kBlock; }
  const double* step(int32_t s) const { return S.r[static_cast<size_t>(s)].data(); }
};

/// The same for a small graph: one flat slab of n rows per step, sized once per graph.
struct FlatLayout {
  FlatRwse& S;
  int64_t slab;  // n * kBlock
  int32_t* local() { return S.local.data(); }
  void reset() {}
  void add_node(int64_t cnt, int32_t v) { S.nodes[static_cast<size_t>(cnt)] = v; }
  int32_t node(int64_t j) const { return S.nodes[static_cast<size_t>(j)]; }
  double* open(int32_t s, int64_t count) {
    double* __restrict r = S.r.data() + s * slab;
    for (int64_t i = 0; i < count; ++i) r[i] = 0.0;
    return r;
  }
  double* grow(int32_t s, int64_t cnt) {
    double* r = S.r.data() + s * slab;
    double* __restrict z = r + (cnt - 1) * kBlock;
    for (int b = 0; b < kBlock; ++b) z[b] = 0.0;
    return r;
  }
  void close(int32_t s, int64_t cnt) { S.rows[static_cast<size_t>(s)] = cnt; }
  int64_t rows(int32_t s) const { return S.rows[static_cast<size_t>(s)]; }
  const double* step(int32_t s) const { return S.r.data() + s * slab; }
};

/// RWSE of the sources src_nodes[0..nb) (nb <= kBlock), written to out rows, over either layout
/// (the same arithmetic in the same order: bitwise the same result). Lane b's value at a node w is
/// the sum, in discovery order of the node u, of (x_u * invdeg_u) * a_uw; whole zero rows are
/// skipped; then acc += (xa * xb) * invdeg over the rows of r[t/2].
template <class Layout>
void rwse_block_impl(const Graph& g, const double* invdeg, const int32_t* src_nodes, int nb, int32_t steps,
                     Layout& S, double* out) {
  const int32_t H = (steps + 1) / 2;
  int32_t* __restrict local = S.local();
  S.reset();
  int64_t cnt = 0;
  double* r0 = S.open(0, static_cast<int64_t>(nb) * kBlock);
  for (int b = 0; b < nb; ++b) {
    const int32_t v = src_nodes[b];
    int32_t l = local[v];
    if (l < 0) {
      l = static_cast<int32_t>(cnt);
      local[v] = l;
      S.add_node(cnt++, v);
    }
    r0[static_cast<int64_t>(l) * kBlock + b] = 1.0;
  }
  S.close(0, cnt);
  const int64_t* ptr = g.ptr.data();
  const int32_t* idx = g.idx.data();
  const double* val = g.val.data();
  for (int32_t s = 1; s <= H; ++s) {
    const int64_t rows = S.rows(s - 1);
    double* cur = S.open(s, cnt * kBlock);
    for (int64_t j = 0; j < rows; ++j) {
      const double* __restrict x = S.step(s - 1) + j * kBlock;
      bool any = false;
      for (int b = 0; b < kBlock; ++b) any |= x[b] != 0.0;
      if (!any) continue;
      const int32_t u = S.node(j);
      double xs[kBlock];
      const double iu = invdeg[u];
      for (int b = 0; b < kBlock; ++b) xs[b] = x[b] * iu;
      for (int64_t p = ptr[u]; p < ptr[u + 1]; ++p) {
        const int32_t w = idx[p];
        int32_t l = local[w];
        if (l < 0) {
          l = static_cast<int32_t>(cnt);
          local[w] = l;
          S.add_node(cnt++, w);
          cur = S.grow(s, cnt);
        }
        double* __restrict y = cur + static_cast<int64_t>(l) * kBlock;
        const double a = val[p];
        for (int b = 0; b < kBlock; ++b) y[b] += xs[b] * a;
      }
    }
    S.close(s, cnt);
  }
  for (int32_t t = 1; t <= steps; ++t) {
    const double* __restrict ra = S.step((t + 1) / 2);
    const double* __restrict rb = S.step(t / 2);
    double acc[kBlock];
    for (int b = 0; b < kBlock; ++b) acc[b] = 0.0;
    const int64_t rows = S.rows(t / 2);
    for (int64_t j = 0; j < rows; ++j) {
      const double id = invdeg[S.node(j)];
      const double* xa = ra + j * kBlock;
      const double* xb = rb + j * kBlock;
      for (int b = 0; b < kBlock; ++b) acc[b] += (xa[b] * xb[b]) * id;
    }
    for (int b = 0; b < nb; ++b) {
      const int32_t v = src_nodes[b];
      out[static_cast<int64_t>(v) * steps + t - 1] = g.deg[static_cast<size_t>(v)] * acc[b];
    }
  }
  for (int64_t j = 0; j < cnt; ++j) local[S.node(j)] = -1;
}

/// Graphs for which the flat slabs hold at most this many doubles take the flat layout.
constexpr int64_t kFlatRwseMax = int64_t{1} << 18;

}  // namespace

void rwse_dense(const Graph& g, const double* invdeg, int32_t steps, std::vector<double>& buf, double* out) {
  const int64_t n = g.n, W = (n + 7) / 8 * 8;  // lanes: source v is lane v (lanes >= n stay 0)
  // Slabs r_s, r_{s-1} / d and r_s / d (kernels/graph_dense_table.hpp): the kernel overwrites the
  // first and the third before reading them, so only the second is cleared.
  if (buf.size() < static_cast<size_t>(3 * n * W)) buf.resize(static_cast<size_t>(3 * n * W));
  double* xs = buf.data() + n * W;  // r_0 = D^-1
  std::fill(xs, xs + n * W, 0.0);
  for (int64_t v = 0; v < n; ++v)
    if (g.deg[static_cast<size_t>(v)] > 0.0) xs[v * W + v] = invdeg[v];  // r_0 = I, scaled
  // Row w of r_s gathers over its CSR row (neighbours ascending): sum_u (r_{s-1}[u] / d_u) a_wu,
  // 8 lanes at a time in registers. Meet in the middle: (P^t)_vv = d_v sum_u r_a[u] (r_b[u] / d_u),
  // a = ceil(t/2), b = floor(t/2), summed over u = 0..n-1: t = 2s - 1 with (r_s, r_{s-1} / d),
  // t = 2s with (r_s, r_s / d); the scaled r_s is the next step's input. The kernel
  // (kernels/graph_dense.cpp) gives the same bits on every ISA path.
  graph_dense_table()->rwse_dense(n, W, steps, g.ptr.data(), g.idx.data(), g.val.data(), invdeg, g.deg.data(),
                                  buf.data(), out);
}

void rwse_block(const Graph& g, const double* invdeg, const int32_t* src_nodes, int nb, int32_t steps,
                RwseScratch& S, double* out) {
  GrowLayout lay{S};
  rwse_block_impl(g, invdeg, src_nodes, nb, steps, lay, out);
}

void rwse_graph(const Graph& gr, int32_t steps, FlatRwse& F, RwseScratch& R, double* out) {
  const int64_t n = gr.n;
  std::fill(out, out + n * steps, 0.0);
  F.invdeg.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    F.invdeg[static_cast<size_t>(i)] = gr.deg[static_cast<size_t>(i)] > 0.0 ? 1.0 / gr.deg[static_cast<size_t>(i)] : 0.0;
  if (n <= kDenseRwseMax) {
    rwse_dense(gr, F.invdeg.data(), steps, F.r, out);
    return;
  }
  F.order.clear();
  for (int32_t v : bfs_order(gr))
    if (gr.deg[static_cast<size_t>(v)] > 0.0) F.order.push_back(v);
  const int64_t cnt = static_cast<int64_t>(F.order.size());
  const int32_t H = (steps + 1) / 2;
  const bool flat = (static_cast<int64_t>(H) + 1) * n * kBlock <= kFlatRwseMax;
  if (flat) {
    F.r.resize(static_cast<size_t>((static_cast<int64_t>(H) + 1) * n * kBlock));
    F.rows.resize(static_cast<size_t>(H) + 1);
    F.nodes.resize(static_cast<size_t>(n));
    F.local.assign(static_cast<size_t>(n), -1);
  } else {
    if (static_cast<int64_t>(R.local.size()) < n) R.local.resize(static_cast<size_t>(n), -1);
    if (R.r.size() < static_cast<size_t>(H) + 1) R.r.resize(static_cast<size_t>(H) + 1);
  }
  FlatLayout fl{F, n * kBlock};
  GrowLayout gl{R};
  for (int64_t i = 0; i < cnt; i += kBlock) {
    const int nb = static_cast<int>(std::min<int64_t>(kBlock, cnt - i));
    if (flat)
      rwse_block_impl(gr, F.invdeg.data(), F.order.data() + i, nb, steps, fl, out);
    else
      rwse_block_impl(gr, F.invdeg.data(), F.order.data() + i, nb, steps, gl, out);
  }
}

}  // namespace graph_detail
}  // namespace posenc

using namespace posenc::graph_detail;

namespace {

constexpr uint32_t kRwseFlags = POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_GRAPH_BOTH_DIRECTIONS;

/// 1 / d_v, 0 for isolated nodes.
std::vector<double> inverse_degrees(const Graph& gr) {
  std::vector<double> invdeg(static_cast<size_t>(gr.n));
  for (int64_t i = 0; i < gr.n; ++i)
    invdeg[static_cast<size_t>(i)] = gr.deg[static_cast<size_t>(i)] > 0.0 ? 1.0 / gr.deg[static_cast<size_t>(i)] : 0.0;
  return invdeg;
}

/// The exact path's sources: BFS order, isolated nodes left out.
std::vector<int32_t> rwse_sources(const Graph& gr) {
  std::vector<int32_t> order;
  for (int32_t v : bfs_order(gr))
    if (gr.deg[static_cast<size_t>(v)] > 0.0) order.push_back(v);
  return order;
}

/// Exact RWSE of every source into res [n, steps] (zeros elsewhere: isolated nodes).
void rwse_exact(const Graph& gr, const std::vector<int32_t>& order, int32_t steps, double* res) {
  const int64_t n = gr.n;
  // Meet in the middle: with r_s = e_v^T P^s (the walk's distribution after s steps) and the
  // reversibility D P^b = (P^b)^T D, (P^t)_vv = d_v * sum_u r_a[u] r_b[u] / d_u for a + b = t.
  // So only H = ceil(steps / 2) steps are propagated, over the H-hop ball of v.
  // Kept self-loops are diagonal CSR entries: the propagation takes them as steps from v to v,
  // and A stays symmetric, so the identity still holds.
  const std::vector<double> invdeg = inverse_degrees(gr);
  if (n <= kDenseRwseMax) {
    std::vector<double> buf;
    rwse_dense(gr, invdeg.data(), steps, buf, res);
    return;
  }
  const int32_t H = (steps + 1) / 2;
  tbb::enumerable_thread_specific<RwseScratch> scratch([&] {
    RwseScratch s;
    s.local.assign(static_cast<size_t>(n), -1);
    s.r.resize(static_cast<size_t>(H) + 1);
    return s;
  });
  const int64_t m = static_cast<int64_t>(order.size());
  const int64_t grain = 32 * kBlock;  // sources per tile
  parallel_tiles(tiles_of(m, grain), [&](int64_t t) {
    RwseScratch& S = scratch.local();
    const int64_t i0 = t * grain, i1 = std::min(m, i0 + grain);
    for (int64_t i = i0; i < i1; i += kBlock) {
      const int nb = static_cast<int>(std::min<int64_t>(kBlock, i1 - i));
      rwse_block(gr, invdeg.data(), order.data() + i, nb, steps, S, res);
    }
  });
}

posenc_status rwse(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                   int64_t num_edges, int32_t steps, uint32_t flags, double* out) {
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  if (steps <= 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "steps must be > 0 (got %d)", steps);
  if ((flags & ~kRwseFlags) != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "flags may hold only POSENC_GRAPH_KEEP_SELF_LOOPS and POSENC_GRAPH_BOTH_DIRECTIONS (got 0x%x)",
                     static_cast<unsigned>(flags));
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, steps, &total, "out [num_nodes, steps]", sizeof(double)));
  POSENC_CHECK(check_not_null(out, "out"));
  POSENC_CHECK(graph_dense_check_kernels());
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges, flags);
    // Isolated nodes (d_v = 0) have a zero row of P: all zeros (PyG, GraphGPS).
    // Allocation failure must leave out untouched: every value is computed into res (zeros for
    // isolated nodes), and out is written only by the final copy, after the last allocation.
    std::vector<double> res(static_cast<size_t>(total), 0.0);
    const std::vector<int32_t> order = rwse_sources(gr);
    POSENC_SHAPE("nodes=%lld edges=%lld steps=%d", (long long)num_nodes, (long long)num_edges, steps);
    rwse_exact(gr, order, steps, res.data());
    std::copy(res.begin(), res.end(), out);
    return POSENC_OK;
  });
}

// ---- posenc_rwse_auto_f64: the exact path's cost model and the Monte-Carlo estimator ----------

/// The exact path's work W_exact (posenc.h): per block of kBlock consecutive sources of order,
/// kBlock * (sum_{s<H} vol(B_s) + steps |B_H|), estimated from up to 32 evenly spaced blocks by
/// BFS to depth H - 1 (all blocks when there are at most 32: then it is the model's exact value).
double rwse_exact_cost(const Graph& g, const std::vector<int32_t>& order, int32_t steps) {
  const int64_t m = static_cast<int64_t>(order.size());
  if (m == 0) return 0.0;
  const int32_t H = (steps + 1) / 2;
  const int64_t nblocks = (m + kBlock - 1) / kBlock;
  const int64_t samples = std::min<int64_t>(nblocks, 32);
  std::vector<int32_t> stamp(static_cast<size_t>(g.n), -1);
  std::vector<int32_t> ball;
  double sum = 0.0;
  for (int64_t j = 0; j < samples; ++j) {
    const int64_t b = j * nblocks / samples;
    ball.clear();
    for (int64_t i = b * kBlock; i < std::min(m, (b + 1) * kBlock); ++i) {
      const int32_t v = order[static_cast<size_t>(i)];
      if (stamp[static_cast<size_t>(v)] != static_cast<int32_t>(j)) {
        stamp[static_cast<size_t>(v)] = static_cast<int32_t>(j);
        ball.push_back(v);
      }
    }
    double work = 0.0, vol = 0.0;  // vol = vol(B_s), accumulated level by level
    size_t scanned = 0;            // ball[0..scanned) have had their rows added to vol
    for (int32_t s = 0; s < H; ++s) {
      const size_t level_end = ball.size();
      for (; scanned < level_end; ++scanned) {
        const int32_t u = ball[scanned];
        const int64_t p0 = g.ptr[static_cast<size_t>(u)], p1 = g.ptr[static_cast<size_t>(u) + 1];
        vol += static_cast<double>(p1 - p0);
        for (int64_t p = p0; p < p1; ++p) {
          const int32_t w = g.idx[static_cast<size_t>(p)];
          if (stamp[static_cast<size_t>(w)] != static_cast<int32_t>(j)) {
            stamp[static_cast<size_t>(w)] = static_cast<int32_t>(j);
            ball.push_back(w);
          }
        }
      }
      work += vol;  // the propagation of step s + 1 visits the rows of B_s
    }
    work += static_cast<double>(steps) * static_cast<double>(ball.size());  // the products over B_H
    sum += kBlock * work;
  }
  return sum * static_cast<double>(nblocks) / static_cast<double>(samples);
}

/// splitmix64's output function (Steele, Lea & Flood 2014): a bijective 64-bit mix.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Monte-Carlo RWSE of every node with d > 0 into res [n, steps] (posenc.h): R walks per node
/// with steps - 1 moves, the last step of every t averaged exactly (each walk adds
/// A[X_{t-1}][i] / d_{X_{t-1}}). The random stream of walk w of node i is splitmix64 started
/// from mix64(mix64(seed) ^ (i << 32 | w)): counter-based, so any tiling gives the same bits.
void rwse_monte_carlo(const Graph& g, int32_t steps, int32_t R, uint64_t seed, double* res) {
  const int64_t n = g.n;
  const std::vector<double> invdeg = inverse_degrees(g);
  // Per row, packed so that a walk step reads one 16-byte record: the row's start, its length and
  // whether every weight of the row is equal (then a uniform pick of the position; else a binary
  // search on the row's cumulative weights).
  struct Row {
    int64_t p0;
    int32_t cnt;
    int32_t uniform;
  };
  const size_t nnz = g.idx.size();
  std::vector<double> cum(nnz);
  std::vector<Row> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    double c = 0.0;
    const int64_t p0 = g.ptr[static_cast<size_t>(i)], p1 = g.ptr[static_cast<size_t>(i) + 1];
    Row& r = rows[static_cast<size_t>(i)];
    r.p0 = p0;
    r.cnt = static_cast<int32_t>(p1 - p0);
    r.uniform = 1;
    for (int64_t p = p0; p < p1; ++p) {
      c += g.val[static_cast<size_t>(p)];
      cum[static_cast<size_t>(p)] = c;
      if (g.val[static_cast<size_t>(p)] != g.val[static_cast<size_t>(p0)]) r.uniform = 0;
    }
  }
  const Row* row = rows.data();
  const int32_t* idx = g.idx.data();
  const double* cw = cum.data();
  const double* idg = invdeg.data();
  const uint64_t key = mix64(seed ^ 0x6A09E667F3BCC909ull);
  tbb::enumerable_thread_specific<std::vector<double>> scratch(
      [&] { return std::vector<double>(static_cast<size_t>(n), 0.0); });
  const int64_t grain = 64;  // nodes per tile
  // kLanes walks of one node advance together: their memory accesses are independent, so the
  // processor overlaps their cache misses. The sums are in a fixed order (per step, the lanes in
  // order): the result does not depend on the tiling.
  constexpr int kLanes = 8;
  parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
    // mark[y] = A[i][y] / d_y = A[y][i] / d_y = P[y][i] for the node i (0 elsewhere)
    std::vector<double>& mark = scratch.local();
    std::vector<double> acc(static_cast<size_t>(steps));
    const int64_t i0 = t * grain, i1 = std::min(n, i0 + grain);
    for (int64_t i = i0; i < i1; ++i) {
      if (g.deg[static_cast<size_t>(i)] <= 0.0) continue;  // isolated: zeros
      const int64_t q0 = g.ptr[static_cast<size_t>(i)], q1 = g.ptr[static_cast<size_t>(i) + 1];
      for (int64_t p = q0; p < q1; ++p)
        mark[static_cast<size_t>(idx[p])] = g.val[static_cast<size_t>(p)] * idg[idx[p]];
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t w0 = 0; w0 < R; w0 += kLanes) {
        const int nl = static_cast<int>(std::min<int64_t>(kLanes, R - w0));
        uint64_t st[kLanes];
        int32_t x[kLanes];
        for (int l = 0; l < nl; ++l) {
          st[l] = mix64(key ^ ((static_cast<uint64_t>(i) << 32) | static_cast<uint64_t>(w0 + l)));
          x[l] = static_cast<int32_t>(i);
        }
        for (int32_t s = 0;; ++s) {
          double a = 0.0;
          for (int l = 0; l < nl; ++l) a += mark[static_cast<size_t>(x[l])];
          acc[static_cast<size_t>(s)] += a;
          if (s + 1 == steps) break;
          for (int l = 0; l < nl; ++l) {
            st[l] += 0x9E3779B97F4A7C15ull;
            const uint64_t z = mix64(st[l]);
            const Row r = row[x[l]];
            const double u = static_cast<double>(z >> 11) * 0x1p-53;  // uniform in [0, 1), 53 bits
            int64_t p;
            if (r.uniform) {
              p = r.p0 + static_cast<int64_t>(u * static_cast<double>(r.cnt));
            } else {
              p = std::upper_bound(cw + r.p0, cw + r.p0 + r.cnt, u * cw[r.p0 + r.cnt - 1]) - cw;
            }
            if (p >= r.p0 + r.cnt) p = r.p0 + r.cnt - 1;  // u * cnt rounded up to cnt
            x[l] = idx[p];
          }
        }
      }
      for (int64_t p = q0; p < q1; ++p) mark[static_cast<size_t>(idx[p])] = 0.0;
      const double inv_r = 1.0 / static_cast<double>(R);
      for (int32_t s = 0; s < steps; ++s) res[i * steps + s] = acc[static_cast<size_t>(s)] * inv_r;
    }
  });
}

/// The AUTO rule of posenc_rwse_auto_f64 (EXACT / MONTE_CARLO forced, or exact iff
/// W_exact <= W_mc); writes both costs.
bool rwse_choose_exact(const Graph& gr, const std::vector<int32_t>& order, int32_t steps, int32_t method, int32_t R,
                       double* w_exact, double* w_mc) {
  *w_exact = rwse_exact_cost(gr, order, steps);
  *w_mc = POSENC_RWSE_MC_STEP_COST * static_cast<double>(R) * static_cast<double>(steps) *
          static_cast<double>(order.size());
  return method == POSENC_RWSE_EXACT || (method == POSENC_RWSE_AUTO && *w_exact <= *w_mc);
}

posenc_status rwse_auto(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                        int64_t num_edges, int32_t steps, double* out, posenc_rwse_info* info) {
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  if (steps <= 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "steps must be > 0 (got %d)", steps);
  if (info != nullptr && info->struct_size != sizeof(posenc_rwse_info))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "info->struct_size must be %u (got %u); call posenc_rwse_info_init",
                     static_cast<unsigned>(sizeof(posenc_rwse_info)), info->struct_size);
  const uint32_t flags = info != nullptr ? info->flags : 0u;
  if ((flags & ~kRwseFlags) != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "info->flags may hold only POSENC_GRAPH_KEEP_SELF_LOOPS and POSENC_GRAPH_BOTH_DIRECTIONS "
                     "(got 0x%x)",
                     static_cast<unsigned>(flags));
  const long long method = info != nullptr ? enum_bits(info->method) : 0;
  if (method < POSENC_RWSE_AUTO || method > POSENC_RWSE_MONTE_CARLO)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "info->method must be a posenc_rwse_method in [0, 2] (got %lld)",
                     method);
  const int32_t walks_in = info != nullptr ? info->walks : 0;
  if (walks_in < 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "info->walks must be >= 0 (0 = the default) (got %d)", walks_in);
  const int32_t R = walks_in == 0 ? POSENC_RWSE_DEFAULT_WALKS : walks_in;
  const uint64_t seed = info != nullptr ? info->seed : 0u;
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, steps, &total, "out [num_nodes, steps]", sizeof(double)));
  POSENC_CHECK(check_not_null(out, "out"));
  POSENC_CHECK(graph_dense_check_kernels());
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges, flags);
    std::vector<double> res(static_cast<size_t>(total), 0.0);
    const std::vector<int32_t> order = rwse_sources(gr);
    double w_exact = 0.0, w_mc = 0.0;
    const bool exact = rwse_choose_exact(gr, order, steps, static_cast<int32_t>(method), R, &w_exact, &w_mc);
    POSENC_SHAPE("nodes=%lld edges=%lld steps=%d walks=%d", (long long)num_nodes, (long long)num_edges, steps,
                 exact ? 0 : R);
    if (exact) {
      path("rwse_auto.exact");
      rwse_exact(gr, order, steps, res.data());
    } else {
      path("rwse_auto.monte_carlo");
      rwse_monte_carlo(gr, steps, R, seed, res.data());
    }
    std::copy(res.begin(), res.end(), out);
    if (info != nullptr) {
      info->method_used = exact ? POSENC_RWSE_EXACT : POSENC_RWSE_MONTE_CARLO;
      info->walks_used = exact ? 0 : R;
      info->std_error_bound = exact ? 0.0 : 0.5 / std::sqrt(static_cast<double>(R));
      info->exact_cost = w_exact;
      info->monte_carlo_cost = w_mc;
    }
    return POSENC_OK;
  });
}

}  // namespace

bool posenc::graph_detail::rwse_graph_auto(const Graph& gr, int32_t steps, int32_t method, int32_t walks, uint64_t seed,
                                           FlatRwse& F, RwseScratch& R, double* out) {
  const std::vector<int32_t> order = rwse_sources(gr);
  double w_exact = 0.0, w_mc = 0.0;
  if (rwse_choose_exact(gr, order, steps, method, walks, &w_exact, &w_mc)) {
    rwse_graph(gr, steps, F, R, out);
    return true;
  }
  std::fill(out, out + gr.n * steps, 0.0);
  rwse_monte_carlo(gr, steps, walks, seed, out);
  return false;
}

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

extern "C" POSENC_API posenc_status posenc_rwse_info_init(posenc_rwse_info* info) {
  api_guard g("posenc_rwse_info_init");
  POSENC_CHECK(check_not_null(info, "info"));
  *info = posenc_rwse_info{};
  info->struct_size = sizeof(posenc_rwse_info);
  info->method = POSENC_RWSE_AUTO;
  info->method_used = POSENC_RWSE_EXACT;
  return POSENC_OK;
}

extern "C" POSENC_API posenc_status posenc_rwse_auto_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                        const double* weights, int64_t num_edges, int32_t steps,
                                                        double* out, posenc_rwse_info* info) {
  api_guard g("posenc_rwse_auto_f64");
  return rwse_auto(num_nodes, src, dst, weights, num_edges, steps, out, info);
}
