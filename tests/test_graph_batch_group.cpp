// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_batch_group.cpp — graph family: the interleaved small dense eigensolver. The
// batched LapPE (posenc_graph_batch_pe(_ex)_f64) runs the QL sweeps of the small components of
// groups of graphs in one loop, and a single-graph call runs those of its components in windows
// of several components: every graph's result must stay bitwise that of its own
// posenc_laplacian_pe_ex_f64 call, whatever the other graphs of its group are (mixed sizes, sizes
// around the window's limit of 64 nodes and above it, disconnected graphs with more small
// components than one window, repeated eigenvalues, k > n with NaN padding, batch sizes that are
// not a multiple of the group or tile size, 1 and 2 threads).
//
// Independent reference: Eigen's dense SelfAdjointEigenSolver of a dense Laplacian built here
// from the edge list (eigenvalues; the returned vectors must be orthonormal eigenvectors).
#include "tests/test_common.hpp"
#include "tests/graph_dense_ref.hpp"

#include "posenc/posenc.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;
using posenc_graph_gen::dense_laplacian;

namespace {

void add_edge(EdgeList& g, int64_t a, int64_t b) {
  g.src.push_back(a);
  g.dst.push_back(b);
}

/// A random tree (each node attached to one of the 3 previous) plus n / 8 extra edges.
EdgeList molecule(int64_t n, uint64_t& s) {
  EdgeList g;
  g.n = n;
  for (int64_t i = 1; i < n; ++i)
    add_edge(g, std::max<int64_t>(0, i - 1 - static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 3)), i);
  for (int64_t r = 0; r < n / 8; ++r) {
    const int64_t a = static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % n);
    const int64_t b = static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % n);
    if (a != b) add_edge(g, a, b);
  }
  return g;
}

/// g with h appended as further components (h's ids shifted by g.n).
void append(EdgeList& g, const EdgeList& h) {
  for (int64_t e = 0; e < h.m(); ++e) add_edge(g, h.src[e] + g.n, h.dst[e] + g.n);
  g.n += h.n;
}

EdgeList complete(int64_t n) {
  EdgeList g;
  g.n = n;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) add_edge(g, i, j);
  return g;
}

EdgeList cycle(int64_t n) {
  EdgeList g;
  g.n = n;
  for (int64_t i = 0; i < n; ++i) add_edge(g, i, (i + 1) % n);
  return g;
}

/// Graphs of every kind the groups mix (see the file comment).
std::vector<EdgeList> mixed_graphs() {
  uint64_t s = 11;
  std::vector<EdgeList> gs;
  for (int64_t n : {2, 3, 5, 17, 26, 37, 63, 64, 65, 100}) gs.push_back(molecule(n, s));
  gs.push_back(complete(8));
  gs.push_back(cycle(12));
  EdgeList star;
  star.n = 9;
  for (int64_t i = 1; i < 9; ++i) add_edge(star, 0, i);
  gs.push_back(star);
  // 11 components (2 .. 30 nodes, two windows and a part of a third), a 70-node one (not on the
  // window path) in the middle, two isolated nodes, repeated eigenvalues across components.
  EdgeList many = molecule(12, s);
  for (int64_t n : {2, 5, 30, 3}) append(many, molecule(n, s));
  append(many, molecule(70, s));
  append(many, cycle(6));
  append(many, cycle(6));
  many.n += 1;  // isolated
  for (int64_t n : {9, 4, 21}) append(many, molecule(n, s));
  many.n += 1;
  gs.push_back(many);
  gs.push_back(molecule(6, s));  // fewer nodes than k
  EdgeList one;
  one.n = 1;
  gs.push_back(one);
  for (int i = 0; i < 7; ++i) gs.push_back(molecule(15 + static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 23), s));
  return gs;  // 23 graphs: not a multiple of 4 (the group) or of 16 (the tile)
}

/// LapPE outputs of a batch of graphs[first, last) (k columns per graph).
struct Lap {
  std::vector<double> val, vec;
};

Lap batch(const std::vector<EdgeList>& gs, const std::vector<std::vector<double>>& ws, size_t first, size_t last,
          int32_t k, uint32_t flags, posenc_laplacian kind, bool weighted) {
  std::vector<int64_t> node_ptr{0}, edge_ptr{0}, src, dst;
  std::vector<double> w;
  for (size_t g = first; g < last; ++g) {
    for (int64_t e = 0; e < gs[g].m(); ++e) {
      src.push_back(gs[g].src[e] + node_ptr.back());
      dst.push_back(gs[g].dst[e] + node_ptr.back());
      w.push_back(ws[g][static_cast<size_t>(e)]);
    }
    node_ptr.push_back(node_ptr.back() + gs[g].n);
    edge_ptr.push_back(edge_ptr.back() + gs[g].m());
  }
  const int64_t ng = static_cast<int64_t>(last - first);
  Lap o;
  o.val.assign(static_cast<size_t>(ng * k), 0.0);
  o.vec.assign(static_cast<size_t>(node_ptr.back() * k), 0.0);
  poison(o.val);
  poison(o.vec);
  std::vector<int32_t> st(static_cast<size_t>(ng), -1);
  EXPECT_EQ(posenc_graph_batch_pe_ex_f64(ng, node_ptr.data(), edge_ptr.data(), src.data(), dst.data(),
                                         weighted ? w.data() : nullptr, kind, k, 0, flags, o.val.data(), o.vec.data(),
                                         nullptr, st.data()),
            POSENC_OK)
      << posenc_last_error_message();
  for (int32_t x : st) EXPECT_EQ(x, POSENC_OK);
  return o;
}

std::vector<std::vector<double>> weights_of(const std::vector<EdgeList>& gs) {
  uint64_t s = 5;
  std::vector<std::vector<double>> ws;
  for (const EdgeList& g : gs) {
    ws.emplace_back();
    for (int64_t e = 0; e < g.m(); ++e) ws.back().push_back(0.25 + 2.0 * posenc_graph_gen::uniform01(s));
  }
  return ws;
}

class GraphBatchGroup : public IsaTest {};

// Every graph of the batch (and of batches of other compositions: prefixes of 1, 5 and 17 graphs,
// the batch from graph 3 on) bitwise its own posenc_laplacian_pe_ex_f64 call; 1 and 2 threads.
TEST_P(GraphBatchGroup, BitwiseEqualToSingleGraphCallsWhateverTheGroup) {
  const std::vector<EdgeList> gs = mixed_graphs();
  const std::vector<std::vector<double>> ws = weights_of(gs);
  const int32_t k = 10;
  const uint32_t P = POSENC_LAPPE_NAN_PAD;
  for (uint32_t flags : {0u, P})
    for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL})
      for (bool weighted : {false, true}) {
        SCOPED_TRACE("flags " + std::to_string(flags) + " laplacian " + std::to_string(kind) +
                     (weighted ? " weighted" : ""));
        Lap full;
        {
          ThreadScope ts(1);
          full = batch(gs, ws, 0, gs.size(), k, flags, kind, weighted);
        }
        {
          ThreadScope ts(2);
          const Lap two = batch(gs, ws, 0, gs.size(), k, flags, kind, weighted);
          EXPECT_TRUE(same_bits(full.val, two.val));
          EXPECT_TRUE(same_bits(full.vec, two.vec));
        }
        // Graph g's rows of the full batch: its eigenvalues and [n, k] vectors.
        std::vector<int64_t> off{0};
        for (const EdgeList& g : gs) off.push_back(off.back() + g.n);
        auto rows = [&](const Lap& o, size_t g, size_t first) {
          const int64_t base = off[first];
          Lap r;
          r.val.assign(o.val.begin() + static_cast<int64_t>(g - first) * k,
                       o.val.begin() + static_cast<int64_t>(g - first + 1) * k);
          r.vec.assign(o.vec.begin() + (off[g] - base) * k, o.vec.begin() + (off[g + 1] - base) * k);
          return r;
        };
        for (size_t g = 0; g < gs.size(); ++g) {
          SCOPED_TRACE("graph " + std::to_string(g) + " (" + std::to_string(gs[g].n) + " nodes)");
          const Lap mine = rows(full, g, 0);
          const int64_t n = gs[g].n, kk = (flags & P) ? k : std::min<int64_t>(k, n);
          std::vector<double> v1(static_cast<size_t>(kk)), e1(static_cast<size_t>(n * kk));
          posenc_laplacian_pe_info info;
          ASSERT_EQ(posenc_laplacian_pe_info_init(&info), POSENC_OK);
          info.flags = flags;
          ASSERT_EQ(posenc_laplacian_pe_ex_f64(n, gs[g].src.data(), gs[g].dst.data(),
                                               weighted ? ws[g].data() : nullptr, gs[g].m(), kind,
                                               static_cast<int32_t>(kk), v1.data(), e1.data(), &info),
                    POSENC_OK)
              << posenc_last_error_message();
          EXPECT_TRUE(same_bits(v1, std::vector<double>(mine.val.begin(), mine.val.begin() + kk)));
          std::vector<double> be;
          for (int64_t v = 0; v < n; ++v)
            for (int64_t j = 0; j < kk; ++j) be.push_back(mine.vec[static_cast<size_t>(v * k + j)]);
          EXPECT_TRUE(same_bits(e1, be));
          for (int64_t j = kk; j < k; ++j) EXPECT_TRUE(std::isnan(mine.val[static_cast<size_t>(j)]));
          if ((flags & P) != 0)
            for (int64_t j = n; j < k; ++j) EXPECT_TRUE(std::isnan(mine.val[static_cast<size_t>(j)]));
        }
        // Other group compositions: the same rows.
        for (const auto& range : std::vector<std::pair<size_t, size_t>>{{0, 1}, {0, 5}, {0, 17}, {3, gs.size()}}) {
          const Lap part = batch(gs, ws, range.first, range.second, k, flags, kind, weighted);
          for (size_t g = range.first; g < range.second; ++g) {
            SCOPED_TRACE("batch [" + std::to_string(range.first) + ", " + std::to_string(range.second) +
                         "), graph " + std::to_string(g));
            const Lap a = rows(full, g, 0), b = rows(part, g, range.first);
            EXPECT_TRUE(same_bits(a.val, b.val));
            EXPECT_TRUE(same_bits(a.vec, b.vec));
          }
        }
      }
}

// The windowed single-graph path against Eigen: the disconnected graph of mixed_graphs (11
// components of 2 .. 30 nodes, one of 70, cycles with repeated eigenvalues, isolated nodes) and
// the molecules around the window's limit, k = 24 (more than the components' zeros).
TEST_P(GraphBatchGroup, WindowedComponentsAgainstDenseEigen) {
  const std::vector<EdgeList> gs = mixed_graphs();
  const std::vector<std::vector<double>> ws = weights_of(gs);
  for (size_t g : {size_t{6}, size_t{7}, size_t{8}, size_t{9}, size_t{13}})
    for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL})
      for (bool weighted : {false, true}) {
        const EdgeList& G = gs[g];
        SCOPED_TRACE("graph " + std::to_string(g) + " laplacian " + std::to_string(kind) +
                     (weighted ? " weighted" : ""));
        const int64_t n = G.n, k = std::min<int64_t>(24, n);
        std::vector<double> val(static_cast<size_t>(k)), vec(static_cast<size_t>(n * k));
        poison(val);
        poison(vec);
        const double* w = weighted ? ws[g].data() : nullptr;
        ASSERT_EQ(posenc_laplacian_pe_f64(n, G.src.data(), G.dst.data(), w, G.m(), kind, static_cast<int32_t>(k),
                                          val.data(), vec.data()),
                  POSENC_OK)
            << posenc_last_error_message();
        const Eigen::MatrixXd L = dense_laplacian(G, w, kind);
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(L);
        const double c = std::max(1.0, 2.0 * L.diagonal().maxCoeff());
        Eigen::MatrixXd V(n, k);
        for (int64_t v = 0; v < n; ++v)
          for (int64_t j = 0; j < k; ++j) V(v, j) = vec[static_cast<size_t>(v * k + j)];
        for (int64_t j = 0; j < k; ++j) {
          EXPECT_NEAR(val[static_cast<size_t>(j)], es.eigenvalues()[j], 1e-13 * c) << "pair " << j;
          EXPECT_LE((L * V.col(j) - val[static_cast<size_t>(j)] * V.col(j)).norm(), 1e-12 * c) << "pair " << j;
        }
        EXPECT_LE((V.transpose() * V - Eigen::MatrixXd::Identity(k, k)).cwiseAbs().maxCoeff(), 1e-13);
      }
}

POSENC_INSTANTIATE_ISA(GraphBatchGroup);

}  // namespace
