// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_pairs.cpp — graph family: sparse relative encodings over node pairs: RRWP (GRIT's
// random-walk probabilities between pairs within steps - 1 hops) and hop-capped shortest-path
// distances (Graphormer's spatial encoding).
//
// Both propagate from every source over its ball in the CSR (lib/graph_common.hpp), in fixed
// tiles of sources; each tile's pairs are collected separately and concatenated in tile order, so
// the output is bitwise identical for any thread count (plain C++, same on every ISA path).
#include "lib/graph_common.hpp"

#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <cmath>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

constexpr int64_t kSourcesPerTile = 64;

struct PairTile {
  std::vector<int64_t> pairs;  // [count, 2]
  std::vector<double> values;  // [count, steps] (RRWP)
  std::vector<int32_t> dist;   // [count] (SPD)
};

struct BallScratch {
  std::vector<int32_t> local;             // [n], -1 = not reached
  std::vector<int32_t> nodes;             // reached nodes in discovery order
  std::vector<std::vector<double>> r;     // r[s][l] = (P^s)_{source, nodes[l]}
  std::vector<int32_t> depth;             // SPD: hop distance of nodes[l]
  std::vector<int32_t> sorted;            // local indices sorted by node id
};

posenc_status check_pair_outputs(int64_t max_pairs, const int64_t* num_pairs, const void* pairs, const void* vals,
                                 const char* vals_name) {
  POSENC_CHECK(check_not_null(num_pairs, "num_pairs"));
  if ((pairs == nullptr) != (vals == nullptr))
    return set_error(POSENC_ERR_NULL_POINTER, "pairs and %s must both be NULL (size query) or both be given", vals_name);
  POSENC_CHECK(check_nonneg(max_pairs, "max_pairs"));
  return POSENC_OK;
}

/// Concatenates the tiles (in tile order) into the outputs after the size checks.
template <class V>
posenc_status emit(const std::vector<PairTile>& tiles, std::vector<V> PairTile::*field, int64_t width,
                   int64_t max_pairs, int64_t* num_pairs, int64_t* pairs, V* vals) {
  int64_t count = 0;
  for (const PairTile& t : tiles) count += static_cast<int64_t>(t.pairs.size() / 2);
  if (pairs != nullptr && count > max_pairs) {
    *num_pairs = count;
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "max_pairs = %lld is smaller than the number of pairs (%lld)",
                     static_cast<long long>(max_pairs), static_cast<long long>(count));
  }
  if (pairs != nullptr) {
    int64_t at = 0;
    for (const PairTile& t : tiles) {
      const int64_t c = static_cast<int64_t>(t.pairs.size() / 2);
      std::copy(t.pairs.begin(), t.pairs.end(), pairs + 2 * at);
      const std::vector<V>& v = t.*field;
      std::copy(v.begin(), v.end(), vals + width * at);
      at += c;
    }
  }
  *num_pairs = count;
  return POSENC_OK;
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_rrwp_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                   const double* weights, int64_t num_edges, int32_t steps,
                                                   int64_t max_pairs, int64_t* num_pairs, int64_t* pairs,
                                                   double* values) {
  api_guard g("posenc_rrwp_f64");
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  if (steps < 1) return set_error(POSENC_ERR_INVALID_ARGUMENT, "steps must be >= 1 (got %d)", steps);
  POSENC_CHECK(check_pair_outputs(max_pairs, num_pairs, pairs, values, "values"));
  int64_t room = 0;
  POSENC_CHECK(checked_mul(max_pairs, steps, &room, "values [max_pairs, steps]", sizeof(double)));
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges);
    const int64_t n = num_nodes;
    std::vector<double> invdeg(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      invdeg[static_cast<size_t>(i)] = gr.deg[static_cast<size_t>(i)] > 0.0 ? 1.0 / gr.deg[static_cast<size_t>(i)] : 0.0;
    const int64_t nt = tiles_of(n, kSourcesPerTile);
    std::vector<PairTile> tiles(static_cast<size_t>(nt));
    tbb::enumerable_thread_specific<BallScratch> scratch([&] {
      BallScratch s;
      s.local.assign(static_cast<size_t>(n), -1);
      s.r.resize(static_cast<size_t>(steps));
      return s;
    });
    POSENC_SHAPE("nodes=%lld edges=%lld steps=%d", (long long)n, (long long)num_edges, steps);
    parallel_tiles(nt, [&](int64_t t) {
      BallScratch& S = scratch.local();
      PairTile& T = tiles[static_cast<size_t>(t)];
      for (int64_t i = t * kSourcesPerTile; i < std::min(n, (t + 1) * kSourcesPerTile); ++i) {
        S.nodes.assign(1, static_cast<int32_t>(i));
        S.local[static_cast<size_t>(i)] = 0;
        S.r[0].assign(1, 1.0);
        for (int32_t s = 1; s < steps; ++s) {
          const std::vector<double>& prev = S.r[static_cast<size_t>(s) - 1];
          std::vector<double>& cur = S.r[static_cast<size_t>(s)];
          cur.assign(S.nodes.size(), 0.0);
          for (size_t j = 0; j < prev.size(); ++j) {
            if (prev[j] == 0.0) continue;
            const int32_t u = S.nodes[j];
            const double xs = prev[j] * invdeg[static_cast<size_t>(u)];
            for (int64_t p = gr.ptr[static_cast<size_t>(u)]; p < gr.ptr[static_cast<size_t>(u) + 1]; ++p) {
              const int32_t w = gr.idx[static_cast<size_t>(p)];
              int32_t l = S.local[static_cast<size_t>(w)];
              if (l < 0) {
                l = static_cast<int32_t>(S.nodes.size());
                S.local[static_cast<size_t>(w)] = l;
                S.nodes.push_back(w);
                cur.push_back(0.0);
              }
              cur[static_cast<size_t>(l)] += xs * gr.val[static_cast<size_t>(p)];
            }
          }
        }
        S.sorted.resize(S.nodes.size());
        for (size_t l = 0; l < S.nodes.size(); ++l) S.sorted[l] = static_cast<int32_t>(l);
        std::sort(S.sorted.begin(), S.sorted.end(),
                  [&](int32_t a, int32_t b) { return S.nodes[static_cast<size_t>(a)] < S.nodes[static_cast<size_t>(b)]; });
        for (int32_t l : S.sorted) {
          T.pairs.push_back(i);
          T.pairs.push_back(S.nodes[static_cast<size_t>(l)]);
          for (int32_t s = 0; s < steps; ++s) {
            const std::vector<double>& rs = S.r[static_cast<size_t>(s)];
            T.values.push_back(static_cast<size_t>(l) < rs.size() ? rs[static_cast<size_t>(l)] : 0.0);
          }
        }
        for (int32_t w : S.nodes) S.local[static_cast<size_t>(w)] = -1;
      }
    });
    path("rrwp_f64");
    return emit(tiles, &PairTile::values, steps, max_pairs, num_pairs, pairs, values);
  });
}

extern "C" POSENC_API posenc_status posenc_shortest_path_i32(int64_t num_nodes, const int64_t* src,
                                                            const int64_t* dst, int64_t num_edges, int32_t max_hops,
                                                            int64_t max_pairs, int64_t* num_pairs, int64_t* pairs,
                                                            int32_t* dist) {
  api_guard g("posenc_shortest_path_i32");
  POSENC_CHECK(check_graph(num_nodes, src, dst, nullptr, num_edges));
  if (max_hops < 1) return set_error(POSENC_ERR_INVALID_ARGUMENT, "max_hops must be >= 1 (got %d)", max_hops);
  POSENC_CHECK(check_pair_outputs(max_pairs, num_pairs, pairs, dist, "dist"));
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, nullptr, num_edges);
    const int64_t n = num_nodes;
    const int64_t nt = tiles_of(n, kSourcesPerTile);
    std::vector<PairTile> tiles(static_cast<size_t>(nt));
    tbb::enumerable_thread_specific<BallScratch> scratch([&] {
      BallScratch s;
      s.local.assign(static_cast<size_t>(n), -1);
      return s;
    });
    POSENC_SHAPE("nodes=%lld edges=%lld max_hops=%d", (long long)n, (long long)num_edges, max_hops);
    parallel_tiles(nt, [&](int64_t t) {
      BallScratch& S = scratch.local();
      PairTile& T = tiles[static_cast<size_t>(t)];
      for (int64_t i = t * kSourcesPerTile; i < std::min(n, (t + 1) * kSourcesPerTile); ++i) {
        S.nodes.assign(1, static_cast<int32_t>(i));
        S.depth.assign(1, 0);
        S.local[static_cast<size_t>(i)] = 0;
        for (size_t h = 0; h < S.nodes.size(); ++h) {
          const int32_t d = S.depth[h];
          if (d >= max_hops) break;  // BFS order: every later node is at least as far
          const int32_t u = S.nodes[h];
          for (int64_t p = gr.ptr[static_cast<size_t>(u)]; p < gr.ptr[static_cast<size_t>(u) + 1]; ++p) {
            const int32_t w = gr.idx[static_cast<size_t>(p)];
            if (S.local[static_cast<size_t>(w)] < 0) {
              S.local[static_cast<size_t>(w)] = static_cast<int32_t>(S.nodes.size());
              S.nodes.push_back(w);
              S.depth.push_back(d + 1);
            }
          }
        }
        S.sorted.resize(S.nodes.size());
        for (size_t l = 0; l < S.nodes.size(); ++l) S.sorted[l] = static_cast<int32_t>(l);
        std::sort(S.sorted.begin(), S.sorted.end(),
                  [&](int32_t a, int32_t b) { return S.nodes[static_cast<size_t>(a)] < S.nodes[static_cast<size_t>(b)]; });
        for (int32_t l : S.sorted) {
          T.pairs.push_back(i);
          T.pairs.push_back(S.nodes[static_cast<size_t>(l)]);
          T.dist.push_back(S.depth[static_cast<size_t>(l)]);
        }
        for (int32_t w : S.nodes) S.local[static_cast<size_t>(w)] = -1;
      }
    });
    path("shortest_path_i32");
    return emit(tiles, &PairTile::dist, 1, max_pairs, num_pairs, pairs, dist);
  });
}
