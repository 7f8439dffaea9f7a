// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/graph_gen.hpp — deterministic graph generators for the graph family's tests and benchmarks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace posenc_graph_gen {

struct EdgeList {
  int64_t n = 0;
  std::vector<int64_t> src, dst;
  int64_t m() const { return static_cast<int64_t>(src.size()); }
};

/// splitmix64: a fixed, portable stream of 64-bit values.
inline uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
inline double uniform01(uint64_t& s) { return static_cast<double>(splitmix64(s) >> 11) * 0x1.0p-53; }

/// Zachary's karate club (networkx karate_club_graph, the shipped data/karate.edges), 34 nodes,
/// 78 edges, each once (u < v).
inline constexpr int kKarate[78][2] = {
    {0, 1},   {0, 2},   {0, 3},   {0, 4},   {0, 5},   {0, 6},   {0, 7},   {0, 8},   {0, 10},  {0, 11},
    {0, 12},  {0, 13},  {0, 17},  {0, 19},  {0, 21},  {0, 31},  {1, 2},   {1, 3},   {1, 7},   {1, 13},
    {1, 17},  {1, 19},  {1, 21},  {1, 30},  {2, 3},   {2, 7},   {2, 8},   {2, 9},   {2, 13},  {2, 27},
    {2, 28},  {2, 32},  {3, 7},   {3, 12},  {3, 13},  {4, 6},   {4, 10},  {5, 6},   {5, 10},  {5, 16},
    {6, 16},  {8, 30},  {8, 32},  {8, 33},  {9, 33},  {13, 33}, {14, 32}, {14, 33}, {15, 32}, {15, 33},
    {18, 32}, {18, 33}, {19, 33}, {20, 32}, {20, 33}, {22, 32}, {22, 33}, {23, 25}, {23, 27}, {23, 29},
    {23, 32}, {23, 33}, {24, 25}, {24, 27}, {24, 31}, {25, 31}, {26, 29}, {26, 33}, {27, 33}, {28, 31},
    {28, 33}, {29, 32}, {29, 33}, {30, 32}, {30, 33}, {31, 32}, {31, 33}, {32, 33}};

inline EdgeList karate() {
  EdgeList g;
  g.n = 34;
  for (const auto& e : kKarate) {
    g.src.push_back(e[0]);
    g.dst.push_back(e[1]);
  }
  return g;
}

/// rows x cols 4-neighbour grid, node r*cols + c; each edge once.
inline EdgeList grid(int64_t rows, int64_t cols) {
  EdgeList g;
  g.n = rows * cols;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t v = r * cols + c;
      if (c + 1 < cols) { g.src.push_back(v); g.dst.push_back(v + 1); }
      if (r + 1 < rows) { g.src.push_back(v); g.dst.push_back(v + cols); }
    }
  return g;
}

/// Random geometric graph: n uniform points in the unit square (splitmix64 from seed), an edge
/// between every pair closer than r = sqrt(mean_degree / (pi n)); each edge once (i < j).
inline EdgeList random_geometric(int64_t n, double mean_degree, uint64_t seed) {
  EdgeList g;
  g.n = n;
  std::vector<double> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) { x[i] = uniform01(seed); y[i] = uniform01(seed); }
  const double r = std::sqrt(mean_degree / (3.14159265358979323846 * static_cast<double>(n)));
  const int64_t cells = std::max<int64_t>(1, static_cast<int64_t>(1.0 / r));
  std::vector<std::vector<int64_t>> bucket(static_cast<size_t>(cells * cells));
  auto cell = [&](double t) { return std::min<int64_t>(cells - 1, static_cast<int64_t>(t * cells)); };
  for (int64_t i = 0; i < n; ++i) bucket[cell(y[i]) * cells + cell(x[i])].push_back(i);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t cx = cell(x[i]), cy = cell(y[i]);
    for (int64_t dy = -1; dy <= 1; ++dy)
      for (int64_t dx = -1; dx <= 1; ++dx) {
        const int64_t ux = cx + dx, uy = cy + dy;
        if (ux < 0 || uy < 0 || ux >= cells || uy >= cells) continue;
        for (int64_t j : bucket[uy * cells + ux]) {
          if (j <= i) continue;
          const double ddx = x[i] - x[j], ddy = y[i] - y[j];
          if (ddx * ddx + ddy * ddy < r * r) { g.src.push_back(i); g.dst.push_back(j); }
        }
      }
  }
  return g;
}

/// Barabasi-Albert preferential attachment: nodes 0..m-1 start unconnected, every later node v
/// links to m distinct earlier nodes drawn with probability proportional to their degree (a
/// uniform entry of the list of edge endpoints; uniform over 0..m-1 for the first new node),
/// splitmix64 from seed; each edge once (v, target). Hubs of degree ~ m sqrt(n).
inline EdgeList barabasi_albert(int64_t n, int64_t m, uint64_t seed) {
  EdgeList g;
  g.n = n;
  std::vector<int64_t> ends;
  std::vector<int64_t> picked;
  for (int64_t v = m; v < n; ++v) {
    picked.clear();
    while (static_cast<int64_t>(picked.size()) < m) {
      const double u = uniform01(seed);
      const int64_t t = ends.empty() ? static_cast<int64_t>(u * static_cast<double>(m))
                                     : ends[static_cast<size_t>(u * static_cast<double>(ends.size()))];
      if (std::find(picked.begin(), picked.end(), t) == picked.end()) picked.push_back(t);
    }
    for (int64_t t : picked) {
      g.src.push_back(v);
      g.dst.push_back(t);
      ends.push_back(v);
      ends.push_back(t);
    }
  }
  return g;
}

}  // namespace posenc_graph_gen
