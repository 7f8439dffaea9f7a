// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/graph_gen.hpp — deterministic graph generators for the graph family's tests and benchmarks.
#pragma once

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

}  // namespace posenc_graph_gen
