// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/test_graph_batch.cpp — graph family: the batched API (posenc_graph_batch_pe_f64 and
// posenc_graph_batch_pe_ex_f64 with the PyG flags: bitwise the single-graph calls), RRWP
// (posenc_rrwp_f64) and hop-capped shortest paths (posenc_shortest_path_i32).
//
// References, independent of lib/graph_*.cpp: dense Laplacians built here from each graph's edge
// list and Eigen's dense SelfAdjointEigenSolver (eigenvalues; the returned vectors must be
// orthonormal eigenvectors of those values), dense matrix powers of D^-1 A (RRWP), Floyd-Warshall
// (shortest paths); the batch's RWSE rows must be bitwise posenc_rwse_f64's. Every test runs on
// every ISA path (same bits everywhere: the graph kernels keep the scalar order, no FMA).
#include "tests/test_common.hpp"
#include "tests/graph_dense_ref.hpp"

#include "posenc/posenc.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace posenc_test;
using posenc_graph_gen::EdgeList;
using posenc_graph_gen::dense_laplacian;

namespace {

/// A small molecule-like graph: a random tree (each node attached to one of the 3 previous) plus
/// n / 8 random extra edges; each edge listed in both directions (PyG's edge_index).
EdgeList molecule(int64_t n, uint64_t& s) {
  EdgeList g;
  g.n = n;
  auto add = [&](int64_t a, int64_t b) {
    g.src.push_back(a);
    g.dst.push_back(b);
    g.src.push_back(b);
    g.dst.push_back(a);
  };
  for (int64_t i = 1; i < n; ++i) add(std::max<int64_t>(0, i - 1 - static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 3)), i);
  for (int64_t r = 0; r < n / 8; ++r) {
    const int64_t a = static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % n);
    const int64_t b = static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % n);
    if (a != b) add(a, b);
  }
  return g;
}

/// A batch: graphs concatenated with global ids, node_ptr / edge_ptr, weights.
struct Batch {
  std::vector<EdgeList> graphs;
  std::vector<int64_t> node_ptr{0}, edge_ptr{0}, src, dst;
  std::vector<double> w;
  void add(const EdgeList& g, uint64_t& s) {
    graphs.push_back(g);
    for (int64_t e = 0; e < g.m(); ++e) {
      src.push_back(g.src[e] + node_ptr.back());
      dst.push_back(g.dst[e] + node_ptr.back());
      w.push_back(0.5 + posenc_graph_gen::uniform01(s));
    }
    node_ptr.push_back(node_ptr.back() + g.n);
    edge_ptr.push_back(edge_ptr.back() + g.m());
  }
  int64_t ng() const { return static_cast<int64_t>(graphs.size()); }
  int64_t nodes() const { return node_ptr.back(); }
};

Batch test_batch() {
  uint64_t s = 7;
  Batch b;
  for (int i = 0; i < 40; ++i) b.add(molecule(15 + static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 23), s), s);
  EdgeList empty;  // a graph with no nodes
  b.add(empty, s);
  EdgeList one;  // one node, no edge
  one.n = 1;
  b.add(one, s);
  b.add(molecule(6, s), s);  // fewer nodes than k
  // Two components and an isolated node (the single-graph path).
  EdgeList two = molecule(9, s);
  const EdgeList t2 = molecule(7, s);
  for (int64_t e = 0; e < t2.m(); ++e) {
    two.src.push_back(t2.src[e] + 9);
    two.dst.push_back(t2.dst[e] + 9);
  }
  two.n = 17;
  b.add(two, s);
  // A symmetric graph with repeated eigenvalues: the 4 x 5 grid.
  b.add(posenc_graph_gen::grid(4, 5), s);
  return b;
}

struct Out {
  std::vector<double> val, vec, rw;
  std::vector<int32_t> st;
};

Out run(const Batch& b, int32_t k, int32_t steps, posenc_laplacian kind, bool weighted) {
  Out o;
  o.val.assign(static_cast<size_t>(b.ng() * k), 0.0);
  o.vec.assign(static_cast<size_t>(b.nodes() * k), 0.0);
  o.rw.assign(static_cast<size_t>(b.nodes() * steps), 0.0);
  o.st.assign(static_cast<size_t>(b.ng()), -1);
  poison(o.val);
  poison(o.vec);
  poison(o.rw);
  EXPECT_EQ(posenc_graph_batch_pe_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(), b.dst.data(),
                                      weighted ? b.w.data() : nullptr, kind, k, steps, o.val.data(), o.vec.data(),
                                      o.rw.data(), o.st.data()),
            POSENC_OK)
      << posenc_last_error_message();
  return o;
}

class GraphBatch : public IsaTest {};

TEST_P(GraphBatch, EveryGraphAgainstDenseEigenAndRwse) {
  const Batch b = test_batch();
  const int32_t k = 10, steps = 16;
  for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL})
    for (bool weighted : {false, true}) {
      const Out o = run(b, k, steps, kind, weighted);
      for (int64_t g = 0; g < b.ng(); ++g) {
        SCOPED_TRACE("graph " + std::to_string(g));
        EXPECT_EQ(o.st[g], POSENC_OK);
        const EdgeList& G = b.graphs[static_cast<size_t>(g)];
        const int64_t n = G.n, off = b.node_ptr[g], kk = std::min<int64_t>(k, n);
        for (int64_t j = kk; j < k; ++j) EXPECT_TRUE(std::isnan(o.val[g * k + j]));
        for (int64_t v = 0; v < n; ++v)
          for (int64_t j = kk; j < k; ++j) EXPECT_EQ(o.vec[(off + v) * k + j], 0.0);
        if (n == 0) continue;
        const double* wg = weighted ? b.w.data() + b.edge_ptr[g] : nullptr;
        const Eigen::MatrixXd L = dense_laplacian(G, wg, kind);
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(L);
        const double c = std::max(1.0, L.diagonal().maxCoeff() * 2.0);
        Eigen::MatrixXd V(n, kk);
        for (int64_t v = 0; v < n; ++v)
          for (int64_t j = 0; j < kk; ++j) V(v, j) = o.vec[(off + v) * k + j];
        for (int64_t j = 0; j < kk; ++j) {
          EXPECT_NEAR(o.val[g * k + j], es.eigenvalues()[j], 1e-13 * c);
          EXPECT_LE((L * V.col(j) - o.val[g * k + j] * V.col(j)).norm(), 1e-12 * c);
          // sign rule: the largest-magnitude entry (lowest index among near-ties) is positive
          const double mx = V.col(j).cwiseAbs().maxCoeff();
          for (int64_t v = 0; v < n; ++v)
            if (std::abs(V(v, j)) >= mx * (1.0 - 1e-6)) {
              EXPECT_GT(V(v, j), 0.0);
              break;
            }
        }
        EXPECT_LE((V.transpose() * V - Eigen::MatrixXd::Identity(kk, kk)).cwiseAbs().maxCoeff(), 1e-13);
        // RWSE: bitwise the single-graph call.
        std::vector<double> r1(static_cast<size_t>(n * steps));
        std::vector<int64_t> ls(G.src), ld(G.dst);
        ASSERT_EQ(posenc_rwse_f64(n, ls.data(), ld.data(), wg, G.m(), steps, r1.data()), POSENC_OK);
        EXPECT_TRUE(same_bits(r1, std::vector<double>(o.rw.begin() + off * steps, o.rw.begin() + (off + n) * steps)));
      }
    }
}

TEST_P(GraphBatch, BitwiseIdenticalForAnyThreadCount) {
  const Batch b = test_batch();
  Out a, c;
  {
    ThreadScope ts(1);
    a = run(b, 8, 7, POSENC_LAPLACIAN_SYM, true);
  }
  {
    ThreadScope ts(3);
    c = run(b, 8, 7, POSENC_LAPLACIAN_SYM, true);
  }
  EXPECT_TRUE(same_bits(a.val, c.val));
  EXPECT_TRUE(same_bits(a.vec, c.vec));
  EXPECT_TRUE(same_bits(a.rw, c.rw));
}

TEST_P(GraphBatch, OnlyLapPeOrOnlyRwse) {
  const Batch b = test_batch();
  const Out both = run(b, 5, 4, POSENC_LAPLACIAN_SYM, false);
  std::vector<double> val(static_cast<size_t>(b.ng() * 5)), vec(static_cast<size_t>(b.nodes() * 5)),
      rw(static_cast<size_t>(b.nodes() * 4));
  ASSERT_EQ(posenc_graph_batch_pe_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(), b.dst.data(), nullptr,
                                      POSENC_LAPLACIAN_SYM, 5, 0, val.data(), vec.data(), nullptr, nullptr),
            POSENC_OK);
  ASSERT_EQ(posenc_graph_batch_pe_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(), b.dst.data(), nullptr,
                                      POSENC_LAPLACIAN_SYM, 0, 4, nullptr, nullptr, rw.data(), nullptr),
            POSENC_OK);
  EXPECT_TRUE(same_bits(val, both.val));
  EXPECT_TRUE(same_bits(vec, both.vec));
  EXPECT_TRUE(same_bits(rw, both.rw));
}

TEST_P(GraphBatch, BadInputWritesNothing) {
  const Batch b = test_batch();
  const int64_t ng = b.ng();
  std::vector<double> val(static_cast<size_t>(ng * 4)), vec(static_cast<size_t>(b.nodes() * 4)),
      rw(static_cast<size_t>(b.nodes() * 3));
  std::vector<int32_t> st(static_cast<size_t>(ng), 77);
  poison(val);
  poison(vec);
  poison(rw);
  auto call = [&](int64_t n_g, const std::vector<int64_t>& np, const std::vector<int64_t>& ep,
                  const std::vector<int64_t>& s, const std::vector<int64_t>& d, const double* w, int lap, int32_t k,
                  int32_t steps) {
    return posenc_graph_batch_pe_f64(n_g, np.data(), ep.data(), s.data(), d.data(), w,
                                     static_cast<posenc_laplacian>(lap), k, steps, val.data(), vec.data(), rw.data(),
                                     st.data());
  };
  const auto& np = b.node_ptr;
  const auto& ep = b.edge_ptr;
  EXPECT_POSENC_ERROR(call(0, np, ep, b.src, b.dst, nullptr, 0, 4, 3), POSENC_ERR_INVALID_ARGUMENT, "num_graphs");
  std::vector<int64_t> bad = np;
  bad[0] = 1;
  EXPECT_POSENC_ERROR(call(ng, bad, ep, b.src, b.dst, nullptr, 0, 4, 3), POSENC_ERR_INVALID_ARGUMENT, "node_ptr[0]");
  bad = np;
  bad[3] = bad[2] - 1;
  EXPECT_POSENC_ERROR(call(ng, bad, ep, b.src, b.dst, nullptr, 0, 4, 3), POSENC_ERR_INVALID_ARGUMENT, "node_ptr");
  bad = ep;
  bad[5] = bad[6] + 1;
  EXPECT_POSENC_ERROR(call(ng, np, bad, b.src, b.dst, nullptr, 0, 4, 3), POSENC_ERR_INVALID_ARGUMENT, "edge_ptr");
  std::vector<int64_t> s2 = b.src;
  s2[ep[2]] = np[3];  // an id of the next graph
  EXPECT_POSENC_ERROR(call(ng, np, ep, s2, b.dst, nullptr, 0, 4, 3), POSENC_ERR_INVALID_ARGUMENT, "src[");
  std::vector<int64_t> d2 = b.dst;
  d2[ep[1] + 1] = -1;
  EXPECT_POSENC_ERROR(call(ng, np, ep, b.src, d2, nullptr, 0, 4, 3), POSENC_ERR_INVALID_ARGUMENT, "dst[");
  std::vector<double> w2 = b.w;
  w2[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_POSENC_ERROR(call(ng, np, ep, b.src, b.dst, w2.data(), 0, 4, 3), POSENC_ERR_INVALID_ARGUMENT, "weights[3]");
  EXPECT_POSENC_ERROR(call(ng, np, ep, b.src, b.dst, nullptr, 9, 4, 3), POSENC_ERR_INVALID_ARGUMENT, "laplacian");
  EXPECT_POSENC_ERROR(call(ng, np, ep, b.src, b.dst, nullptr, 0, -1, 3), POSENC_ERR_INVALID_ARGUMENT, "k");
  EXPECT_POSENC_ERROR(call(ng, np, ep, b.src, b.dst, nullptr, 0, 4, -2), POSENC_ERR_INVALID_ARGUMENT, "steps");
  EXPECT_POSENC_ERROR(call(ng, np, ep, b.src, b.dst, nullptr, 0, 0, 0), POSENC_ERR_INVALID_ARGUMENT, "k and steps");
  EXPECT_POSENC_ERROR(posenc_graph_batch_pe_f64(ng, np.data(), ep.data(), b.src.data(), b.dst.data(), nullptr,
                                                POSENC_LAPLACIAN_SYM, 4, 3, val.data(), nullptr, rw.data(), st.data()),
                      POSENC_ERR_NULL_POINTER, "eigvecs");
  EXPECT_POSENC_ERROR(posenc_graph_batch_pe_f64(ng, nullptr, ep.data(), b.src.data(), b.dst.data(), nullptr,
                                                POSENC_LAPLACIAN_SYM, 4, 3, val.data(), vec.data(), rw.data(), st.data()),
                      POSENC_ERR_NULL_POINTER, "node_ptr");
  EXPECT_EQ(count_poison(val), val.size());
  EXPECT_EQ(count_poison(vec), vec.size());
  EXPECT_EQ(count_poison(rw), rw.size());
  for (int32_t x : st) EXPECT_EQ(x, 77);
}

// ---------------------------------------------------------------------------- flags

/// ZINC-like molecules (both directions listed) and the edge cases of the flags: an empty graph,
/// 1-node graphs (one with a self-loop), graphs with fewer nodes than k (+ 1), isolated nodes,
/// self-loops, two components, the 4 x 5 grid (repeated eigenvalues).
Batch flags_batch() {
  uint64_t s = 11;
  Batch b;
  for (int i = 0; i < 24; ++i) {
    EdgeList g = molecule(15 + static_cast<int64_t>(posenc_graph_gen::splitmix64(s) % 23), s);
    if (i % 3 == 0) {  // self-loops on two nodes
      for (int64_t v : {int64_t{0}, g.n / 2}) {
        g.src.push_back(v);
        g.dst.push_back(v);
      }
    }
    b.add(g, s);
  }
  EdgeList empty;
  b.add(empty, s);
  EdgeList one;
  one.n = 1;
  b.add(one, s);
  EdgeList loop1;  // one node with a self-loop
  loop1.n = 1;
  loop1.src = {0};
  loop1.dst = {0};
  b.add(loop1, s);
  b.add(molecule(2, s), s);
  b.add(molecule(5, s), s);  // N < k
  EdgeList iso = molecule(12, s);  // nodes 12, 13 isolated, a self-loop on 13
  iso.n = 14;
  iso.src.push_back(13);
  iso.dst.push_back(13);
  b.add(iso, s);
  EdgeList two = molecule(9, s);
  const EdgeList t2 = molecule(7, s);
  for (int64_t e = 0; e < t2.m(); ++e) {
    two.src.push_back(t2.src[e] + 9);
    two.dst.push_back(t2.dst[e] + 9);
  }
  two.n = 16;
  b.add(two, s);
  b.add(posenc_graph_gen::grid(4, 5), s);
  return b;
}

TEST_P(GraphBatch, FlagsBitwiseEqualToSingleGraphCalls) {
  const Batch b = flags_batch();
  const int32_t k = 6, steps = 9;
  const uint32_t B = POSENC_GRAPH_BOTH_DIRECTIONS, K = POSENC_GRAPH_KEEP_SELF_LOOPS, D = POSENC_LAPPE_DROP_TRIVIAL,
                 P = POSENC_LAPPE_NAN_PAD;
  for (uint32_t flags : {0u, B, K | B, D, P, D | P, B | K | D | P})
    for (posenc_laplacian kind : {POSENC_LAPLACIAN_SYM, POSENC_LAPLACIAN_COMBINATORIAL})
      for (bool weighted : {false, true}) {
        SCOPED_TRACE("flags " + std::to_string(flags) + " laplacian " + std::to_string(kind) +
                     (weighted ? " weighted" : ""));
        Out o[2];
        for (int t = 0; t < 2; ++t) {
          ThreadScope ts(t == 0 ? 1 : 3);
          o[t].val.assign(static_cast<size_t>(b.ng() * k), 0.0);
          o[t].vec.assign(static_cast<size_t>(b.nodes() * k), 0.0);
          o[t].rw.assign(static_cast<size_t>(b.nodes() * steps), 0.0);
          o[t].st.assign(static_cast<size_t>(b.ng()), -1);
          poison(o[t].val);
          poison(o[t].vec);
          poison(o[t].rw);
          ASSERT_EQ(posenc_graph_batch_pe_ex_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(),
                                                 b.dst.data(), weighted ? b.w.data() : nullptr, kind, k, steps, flags,
                                                 o[t].val.data(), o[t].vec.data(), o[t].rw.data(), o[t].st.data()),
                    POSENC_OK)
              << posenc_last_error_message();
        }
        EXPECT_TRUE(same_bits(o[0].val, o[1].val));
        EXPECT_TRUE(same_bits(o[0].vec, o[1].vec));
        EXPECT_TRUE(same_bits(o[0].rw, o[1].rw));
        if (flags == 0) {  // = posenc_graph_batch_pe_f64
          const Out z = run(b, k, steps, kind, weighted);
          EXPECT_TRUE(same_bits(z.val, o[0].val));
          EXPECT_TRUE(same_bits(z.vec, o[0].vec));
          EXPECT_TRUE(same_bits(z.rw, o[0].rw));
        }
        const Out& r = o[0];
        const int64_t drop = (flags & D) ? 1 : 0;
        for (int64_t g = 0; g < b.ng(); ++g) {
          SCOPED_TRACE("graph " + std::to_string(g));
          const EdgeList& G = b.graphs[static_cast<size_t>(g)];
          const int64_t n = G.n, off = b.node_ptr[g];
          EXPECT_EQ(r.st[g], POSENC_OK);
          if (n == 0) {
            for (int32_t j = 0; j < k; ++j) EXPECT_TRUE(std::isnan(r.val[g * k + j]));
            continue;
          }
          const double* wg = weighted ? b.w.data() + b.edge_ptr[g] : nullptr;
          std::vector<double> r1(static_cast<size_t>(n * steps));
          ASSERT_EQ(posenc_rwse_ex_f64(n, G.src.data(), G.dst.data(), wg, G.m(), steps, flags & (K | B), r1.data()),
                    POSENC_OK);
          EXPECT_TRUE(same_bits(r1, std::vector<double>(r.rw.begin() + off * steps, r.rw.begin() + (off + n) * steps)));
          const int64_t kk = (flags & P) ? k : std::min<int64_t>(k, n - drop);
          std::vector<double> v1(static_cast<size_t>(std::max<int64_t>(kk, 0))),
              e1(static_cast<size_t>(n * std::max<int64_t>(kk, 0)));
          if (kk >= 1) {
            posenc_laplacian_pe_info info;
            posenc_laplacian_pe_info_init(&info);
            info.flags = flags & (B | D | P);
            ASSERT_EQ(posenc_laplacian_pe_ex_f64(n, G.src.data(), G.dst.data(), wg, G.m(), kind,
                                                 static_cast<int32_t>(kk), v1.data(), e1.data(), &info),
                      POSENC_OK)
                << posenc_last_error_message();
          }
          std::vector<double> bv(r.val.begin() + g * k, r.val.begin() + g * k + std::max<int64_t>(kk, 0));
          EXPECT_TRUE(same_bits(v1, bv));
          std::vector<double> be;
          for (int64_t v = 0; v < n; ++v)
            for (int64_t j = 0; j < kk; ++j) be.push_back(r.vec[(off + v) * k + j]);
          EXPECT_TRUE(same_bits(e1, be));
          for (int64_t j = std::max<int64_t>(kk, 0); j < k; ++j) {  // padded here (no NAN_PAD)
            EXPECT_TRUE(std::isnan(r.val[g * k + j]));
            for (int64_t v = 0; v < n; ++v) EXPECT_EQ(r.vec[(off + v) * k + j], 0.0);
          }
        }
      }
}

TEST_P(GraphBatch, AutoRwseBitwiseEqualToRwseAutoPerGraph) {
  const Batch b = flags_batch();
  const int32_t k = 3, steps = 7;
  const uint32_t B = POSENC_GRAPH_BOTH_DIRECTIONS, K = POSENC_GRAPH_KEEP_SELF_LOOPS;
  struct Opt {
    posenc_rwse_method method;
    int32_t walks;
    uint64_t seed;
  };
  // walks = 1 makes Monte-Carlo the cheaper path on molecules, so AUTO mixes both paths in a batch.
  const Opt opts[] = {{POSENC_RWSE_MONTE_CARLO, 40, 9}, {POSENC_RWSE_AUTO, 1, 5}, {POSENC_RWSE_AUTO, 0, 0},
                      {POSENC_RWSE_EXACT, 0, 0}};
  for (const Opt& op : opts)
    for (uint32_t flags : {0u, K | B})
      for (bool weighted : {false, true}) {
        SCOPED_TRACE("method " + std::to_string(op.method) + " walks " + std::to_string(op.walks) + " flags " +
                     std::to_string(flags) + (weighted ? " weighted" : ""));
        const double* w = weighted ? b.w.data() : nullptr;
        posenc_rwse_info info;
        ASSERT_EQ(posenc_rwse_info_init(&info), POSENC_OK);
        info.method = op.method;
        info.walks = op.walks;
        info.seed = op.seed;
        Out o[2];
        std::vector<int32_t> used[2];
        for (int t = 0; t < 2; ++t) {
          ThreadScope ts(t == 0 ? 1 : 3);
          o[t].val.assign(static_cast<size_t>(b.ng() * k), 0.0);
          o[t].vec.assign(static_cast<size_t>(b.nodes() * k), 0.0);
          o[t].rw.assign(static_cast<size_t>(b.nodes() * steps), 0.0);
          o[t].st.assign(static_cast<size_t>(b.ng()), -1);
          used[t].assign(static_cast<size_t>(b.ng()), -1);
          poison(o[t].val);
          poison(o[t].vec);
          poison(o[t].rw);
          ASSERT_EQ(posenc_graph_batch_pe_auto_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(),
                                                   b.dst.data(), w, POSENC_LAPLACIAN_SYM, k, steps, flags, &info,
                                                   o[t].val.data(), o[t].vec.data(), o[t].rw.data(), o[t].st.data(),
                                                   used[t].data()),
                    POSENC_OK)
              << posenc_last_error_message();
          EXPECT_EQ(count_poison(o[t].rw), 0u);
        }
        EXPECT_TRUE(same_bits(o[0].rw, o[1].rw));
        EXPECT_EQ(used[0], used[1]);
        // The LapPE outputs are posenc_graph_batch_pe_ex_f64's; so are the RWSE rows with EXACT.
        Out x;
        x.val.assign(o[0].val.size(), 0.0);
        x.vec.assign(o[0].vec.size(), 0.0);
        x.rw.assign(o[0].rw.size(), 0.0);
        x.st.assign(o[0].st.size(), -1);
        ASSERT_EQ(posenc_graph_batch_pe_ex_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(), b.dst.data(),
                                               w, POSENC_LAPLACIAN_SYM, k, steps, flags, x.val.data(), x.vec.data(),
                                               x.rw.data(), x.st.data()),
                  POSENC_OK);
        EXPECT_TRUE(same_bits(x.val, o[0].val));
        EXPECT_TRUE(same_bits(x.vec, o[0].vec));
        EXPECT_EQ(x.st, o[0].st);
        if (op.method == POSENC_RWSE_EXACT) EXPECT_TRUE(same_bits(x.rw, o[0].rw));
        int monte_carlo = 0;
        for (int64_t g = 0; g < b.ng(); ++g) {
          SCOPED_TRACE("graph " + std::to_string(g));
          const EdgeList& G = b.graphs[static_cast<size_t>(g)];
          const int64_t n = G.n, off = b.node_ptr[g];
          if (n == 0) {
            EXPECT_EQ(used[0][static_cast<size_t>(g)], POSENC_RWSE_EXACT);
            continue;
          }
          posenc_rwse_info gi = info;
          gi.flags = flags;
          std::vector<double> r1(static_cast<size_t>(n * steps));
          ASSERT_EQ(posenc_rwse_auto_f64(n, G.src.data(), G.dst.data(), weighted ? b.w.data() + b.edge_ptr[g] : nullptr,
                                         G.m(), steps, r1.data(), &gi),
                    POSENC_OK);
          EXPECT_TRUE(same_bits(r1, std::vector<double>(o[0].rw.begin() + off * steps,
                                                        o[0].rw.begin() + (off + n) * steps)));
          EXPECT_EQ(used[0][static_cast<size_t>(g)], gi.method_used);
          monte_carlo += gi.method_used == POSENC_RWSE_MONTE_CARLO;
        }
        if (op.method == POSENC_RWSE_AUTO && op.walks == 1) {  // both paths taken in one batch
          EXPECT_GT(monte_carlo, 0);
          EXPECT_LT(monte_carlo, b.ng() - 1);
        }
        if (op.method == POSENC_RWSE_AUTO && op.walks == 0) EXPECT_EQ(monte_carlo, 0);  // molecules stay exact
      }
}

TEST_P(GraphBatch, AutoRwseBadOptionsWriteNothing) {
  const Batch b = flags_batch();
  const int32_t k = 3, steps = 5;
  std::vector<double> val(static_cast<size_t>(b.ng() * k)), vec(static_cast<size_t>(b.nodes() * k)),
      rw(static_cast<size_t>(b.nodes() * steps));
  std::vector<int32_t> st(static_cast<size_t>(b.ng()), -7), used(static_cast<size_t>(b.ng()), -7);
  poison(val);
  poison(vec);
  poison(rw);
  auto call = [&](const posenc_rwse_info* info) {
    return posenc_graph_batch_pe_auto_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(), b.dst.data(),
                                          nullptr, POSENC_LAPLACIAN_SYM, k, steps, 0u, info, val.data(), vec.data(),
                                          rw.data(), st.data(), used.data());
  };
  posenc_rwse_info info;
  posenc_rwse_info_init(&info);
  info.struct_size = 8;
  EXPECT_POSENC_ERROR(call(&info), POSENC_ERR_INVALID_ARGUMENT, "rwse_options->struct_size");
  posenc_rwse_info_init(&info);
  reinterpret_cast<int32_t*>(&info.method)[0] = 7;
  EXPECT_POSENC_ERROR(call(&info), POSENC_ERR_INVALID_ARGUMENT, "rwse_options->method");
  posenc_rwse_info_init(&info);
  info.walks = -1;
  EXPECT_POSENC_ERROR(call(&info), POSENC_ERR_INVALID_ARGUMENT, "rwse_options->walks");
  posenc_rwse_info_init(&info);
  info.flags = POSENC_GRAPH_KEEP_SELF_LOOPS;
  EXPECT_POSENC_ERROR(call(&info), POSENC_ERR_INVALID_ARGUMENT, "rwse_options->flags");
  posenc_rwse_info_init(&info);
  const std::vector<double> bad_w(b.w.size(), -1.0);  // the batch's own checks still apply
  EXPECT_POSENC_ERROR(posenc_graph_batch_pe_auto_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(),
                                                     b.dst.data(), bad_w.data(), POSENC_LAPLACIAN_SYM, k, steps, 0u,
                                                     &info, val.data(), vec.data(), rw.data(), st.data(), used.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "weights");
  EXPECT_EQ(count_poison(val), val.size());
  EXPECT_EQ(count_poison(vec), vec.size());
  EXPECT_EQ(count_poison(rw), rw.size());
  for (size_t g = 0; g < st.size(); ++g) {
    EXPECT_EQ(st[g], -7);
    EXPECT_EQ(used[g], -7);
  }
  // NULL options: AUTO with the default budget: molecules take the exact path (= _ex's rows).
  ASSERT_EQ(call(nullptr), POSENC_OK) << posenc_last_error_message();
  std::vector<double> rx(rw.size()), vx(val.size()), ex(vec.size());
  ASSERT_EQ(posenc_graph_batch_pe_ex_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(), b.dst.data(),
                                         nullptr, POSENC_LAPLACIAN_SYM, k, steps, 0u, vx.data(), ex.data(), rx.data(),
                                         nullptr),
            POSENC_OK);
  EXPECT_TRUE(same_bits(rx, rw));
  for (int32_t u : used) EXPECT_EQ(u, POSENC_RWSE_EXACT);
}

TEST_P(GraphBatch, FlagsRejectUnknownBitsWritingNothing) {
  const Batch b = flags_batch();
  std::vector<double> val(static_cast<size_t>(b.ng() * 3)), vec(static_cast<size_t>(b.nodes() * 3)),
      rw(static_cast<size_t>(b.nodes() * 2));
  std::vector<int32_t> st(static_cast<size_t>(b.ng()), 77);
  poison(val);
  poison(vec);
  poison(rw);
  for (uint32_t bad : {16u, 0x80000000u, POSENC_LAPPE_NAN_PAD | 32u})
    EXPECT_POSENC_ERROR(posenc_graph_batch_pe_ex_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(),
                                                     b.dst.data(), nullptr, POSENC_LAPLACIAN_SYM, 3, 2, bad, val.data(),
                                                     vec.data(), rw.data(), st.data()),
                        POSENC_ERR_INVALID_ARGUMENT, "flags");
  EXPECT_EQ(count_poison(val), val.size());
  EXPECT_EQ(count_poison(vec), vec.size());
  EXPECT_EQ(count_poison(rw), rw.size());
  for (int32_t x : st) EXPECT_EQ(x, 77);
  // the C++ wrapper
  const std::vector<int32_t> s2 = posenc::graph_batch_pe_ex(
      b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(), b.dst.data(), nullptr, POSENC_LAPLACIAN_SYM, 3, 2,
      POSENC_LAPPE_NAN_PAD | POSENC_GRAPH_BOTH_DIRECTIONS, val.data(), vec.data(), rw.data());
  for (int32_t x : s2) EXPECT_EQ(x, POSENC_OK);
}

// ---------------------------------------------------------------------------- RRWP and SPD

/// Dense P^s, s = 0..steps-1.
std::vector<Eigen::MatrixXd> walk_powers(const EdgeList& g, const double* w, int32_t steps) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(g.n, g.n);
  for (int64_t e = 0; e < g.m(); ++e)
    if (g.src[e] != g.dst[e]) {
      A(g.src[e], g.dst[e]) += w ? w[e] : 1.0;
      A(g.dst[e], g.src[e]) += w ? w[e] : 1.0;
    }
  Eigen::MatrixXd P = A;
  for (int64_t i = 0; i < g.n; ++i) {
    const double d = A.row(i).sum();
    P.row(i) = d > 0 ? Eigen::RowVectorXd(A.row(i) / d) : Eigen::RowVectorXd::Zero(g.n);
  }
  std::vector<Eigen::MatrixXd> out{Eigen::MatrixXd::Identity(g.n, g.n)};
  for (int32_t s = 1; s < steps; ++s) out.push_back(out.back() * P);
  return out;
}

/// Floyd-Warshall hop distances (-1 = unreachable).
std::vector<std::vector<int>> hops(const EdgeList& g) {
  const int inf = 1 << 29;
  std::vector<std::vector<int>> d(static_cast<size_t>(g.n), std::vector<int>(static_cast<size_t>(g.n), inf));
  for (int64_t i = 0; i < g.n; ++i) d[i][i] = 0;
  for (int64_t e = 0; e < g.m(); ++e)
    if (g.src[e] != g.dst[e]) d[g.src[e]][g.dst[e]] = d[g.dst[e]][g.src[e]] = 1;
  for (int64_t m = 0; m < g.n; ++m)
    for (int64_t i = 0; i < g.n; ++i)
      for (int64_t j = 0; j < g.n; ++j) d[i][j] = std::min(d[i][j], d[i][m] + d[m][j]);
  for (auto& r : d)
    for (int& x : r)
      if (x >= inf) x = -1;
  return d;
}

EdgeList two_pieces() {
  uint64_t s = 3;
  EdgeList g = molecule(30, s);
  g.src.push_back(31);  // node 30 isolated, 31-32 an edge, a self-loop and a duplicate
  g.dst.push_back(32);
  g.src.push_back(32);
  g.dst.push_back(32);
  g.src.push_back(32);
  g.dst.push_back(31);
  g.n = 33;
  return g;
}

TEST_P(GraphBatch, RrwpAgainstDenseMatrixPowers) {
  const EdgeList g = two_pieces();
  std::vector<double> w(static_cast<size_t>(g.m()));
  uint64_t s = 9;
  for (double& x : w) x = 0.25 + posenc_graph_gen::uniform01(s);
  const auto D = hops(g);
  for (int32_t steps : {1, 2, 5, 8}) {
    for (bool weighted : {false, true}) {
      const double* wp = weighted ? w.data() : nullptr;
      int64_t np = -1;
      ASSERT_EQ(posenc_rrwp_f64(g.n, g.src.data(), g.dst.data(), wp, g.m(), steps, 0, &np, nullptr, nullptr), POSENC_OK);
      std::vector<int64_t> pairs(static_cast<size_t>(2 * np));
      std::vector<double> vals(static_cast<size_t>(np * steps));
      poison(vals);
      int64_t np2 = -1;
      ASSERT_EQ(posenc_rrwp_f64(g.n, g.src.data(), g.dst.data(), wp, g.m(), steps, np, &np2, pairs.data(), vals.data()),
                POSENC_OK);
      EXPECT_EQ(np2, np);
      const auto Pw = walk_powers(g, wp, steps);
      int64_t expect = 0;
      for (int64_t i = 0; i < g.n; ++i)
        for (int64_t j = 0; j < g.n; ++j)
          if (D[i][j] >= 0 && D[i][j] <= steps - 1) ++expect;
      EXPECT_EQ(np, expect);
      for (int64_t p = 0; p < np; ++p) {
        const int64_t i = pairs[2 * p], j = pairs[2 * p + 1];
        if (p > 0) {
          EXPECT_TRUE(pairs[2 * p - 2] < i || (pairs[2 * p - 2] == i && pairs[2 * p - 1] < j));
        }
        EXPECT_TRUE(D[i][j] >= 0 && D[i][j] <= steps - 1);
        for (int32_t t = 0; t < steps; ++t) EXPECT_NEAR(vals[p * steps + t], Pw[t](i, j), 1e-15);
      }
      // The absolute part: pairs (i, i) hold [1, RWSE(steps - 1)].
      if (steps >= 2) {
        std::vector<double> rw(static_cast<size_t>(g.n * (steps - 1)));
        ASSERT_EQ(posenc_rwse_f64(g.n, g.src.data(), g.dst.data(), wp, g.m(), steps - 1, rw.data()), POSENC_OK);
        for (int64_t p = 0; p < np; ++p)
          if (pairs[2 * p] == pairs[2 * p + 1]) {
            const int64_t i = pairs[2 * p];
            EXPECT_EQ(vals[p * steps], 1.0);
            for (int32_t t = 1; t < steps; ++t) EXPECT_NEAR(vals[p * steps + t], rw[i * (steps - 1) + t - 1], 1e-15);
          }
      }
    }
  }
}

TEST_P(GraphBatch, ShortestPathAgainstFloydWarshall) {
  const EdgeList g = two_pieces();
  const auto D = hops(g);
  for (int32_t cap : {1, 2, 4, 100}) {
    const posenc::pair_encoding<int32_t> r = posenc::shortest_path(g.n, g.src, g.dst, cap);
    int64_t expect = 0;
    for (int64_t i = 0; i < g.n; ++i)
      for (int64_t j = 0; j < g.n; ++j)
        if (D[i][j] >= 0 && D[i][j] <= cap) ++expect;
    ASSERT_EQ(r.num_pairs(), expect);
    for (int64_t p = 0; p < r.num_pairs(); ++p) EXPECT_EQ(r.values[p], D[r.pairs[2 * p]][r.pairs[2 * p + 1]]);
  }
}

TEST_P(GraphBatch, PairsBitwiseForAnyThreadCountAndBadInput) {
  const EdgeList g = posenc_graph_gen::random_geometric(400, 6.0, 5);
  posenc::pair_encoding<double> a, b;
  {
    ThreadScope ts(1);
    a = posenc::rrwp(g.n, g.src, g.dst, 5);
  }
  {
    ThreadScope ts(3);
    b = posenc::rrwp(g.n, g.src, g.dst, 5);
  }
  EXPECT_EQ(a.pairs, b.pairs);
  EXPECT_TRUE(same_bits(a.values, b.values));
  int64_t np = 77;
  std::vector<int64_t> pairs(8, 5);
  std::vector<double> vals(8);
  std::vector<int32_t> dist(4, 5);
  poison(vals);
  EXPECT_POSENC_ERROR(posenc_rrwp_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), 0, 4, &np, pairs.data(), vals.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "steps");
  EXPECT_POSENC_ERROR(posenc_rrwp_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), 2, 4, nullptr, pairs.data(), vals.data()),
                      POSENC_ERR_NULL_POINTER, "num_pairs");
  EXPECT_POSENC_ERROR(posenc_rrwp_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), 2, 4, &np, pairs.data(), nullptr),
                      POSENC_ERR_NULL_POINTER, "values");
  EXPECT_POSENC_ERROR(posenc_rrwp_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), 2, -1, &np, pairs.data(), vals.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "max_pairs");
  EXPECT_EQ(np, 77);
  EXPECT_POSENC_ERROR(posenc_rrwp_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), 2, 4, &np, pairs.data(), vals.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "max_pairs");
  EXPECT_GT(np, 4);  // the count is reported
  EXPECT_POSENC_ERROR(posenc_shortest_path_i32(g.n, g.src.data(), g.dst.data(), g.m(), 0, 4, &np, pairs.data(), dist.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "max_hops");
  std::vector<int64_t> s2 = g.src;
  s2[3] = g.n;
  EXPECT_POSENC_ERROR(posenc_shortest_path_i32(g.n, s2.data(), g.dst.data(), g.m(), 2, 4, &np, pairs.data(), dist.data()),
                      POSENC_ERR_INVALID_ARGUMENT, "src[3]");
  EXPECT_EQ(count_poison(vals), vals.size());
  for (int64_t x : pairs) EXPECT_EQ(x, 5);
  for (int32_t x : dist) EXPECT_EQ(x, 5);
}

// The small dense solver (lib/graph_batch.cpp: inverse iteration of all k vectors in lockstep)
// on graphs with eigenvalues of high multiplicity, against their closed-form L_sym spectra:
// K_10 (0, 10/9 x 9), the star on 13 nodes (0, 1 x 11, 2), the hypercube Q_5 (2j/5 x C(5, j)),
// the Petersen graph (0, 2/3 x 5, 5/3 x 4) and three disjoint 5-cycles (0 x 3, then
// 1 - cos(2 pi j / 5) x 6 each), k = 12 with NaN padding. Each connected graph's vectors must
// differ from those of Eigen's solver (solver = DENSE): the small path accepted its own result
// instead of falling back to Eigen.
TEST_P(GraphBatch, SmallDenseSolverOnRepeatedEigenvalues) {
  auto edges = [](int64_t n, const std::vector<std::pair<int64_t, int64_t>>& e) {
    EdgeList g;
    g.n = n;
    for (const auto& p : e) {
      g.src.push_back(p.first);
      g.dst.push_back(p.second);
    }
    return g;
  };
  std::vector<EdgeList> gs;
  std::vector<std::vector<double>> spec;
  std::vector<std::pair<int64_t, int64_t>> e;
  for (int64_t i = 0; i < 10; ++i)
    for (int64_t j = i + 1; j < 10; ++j) e.push_back({i, j});
  gs.push_back(edges(10, e));
  spec.push_back({0.0});
  for (int i = 0; i < 9; ++i) spec.back().push_back(10.0 / 9.0);
  e.clear();
  for (int64_t i = 1; i < 13; ++i) e.push_back({0, i});
  gs.push_back(edges(13, e));
  spec.push_back({0.0});
  for (int i = 0; i < 11; ++i) spec.back().push_back(1.0);
  spec.back().push_back(2.0);
  e.clear();
  for (int64_t i = 0; i < 32; ++i)
    for (int b = 0; b < 5; ++b)
      if (i < (i ^ (int64_t{1} << b))) e.push_back({i, i ^ (int64_t{1} << b)});
  gs.push_back(edges(32, e));
  spec.push_back({});
  for (int j = 0, c = 1; j <= 5; c = c * (5 - j) / (j + 1), ++j)
    for (int r = 0; r < c; ++r) spec.back().push_back(2.0 * j / 5.0);
  e.clear();
  for (int64_t i = 0; i < 5; ++i) e.insert(e.end(), {{i, (i + 1) % 5}, {5 + i, 5 + (i + 2) % 5}, {i, i + 5}});
  gs.push_back(edges(10, e));
  spec.push_back({0.0, 2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3, 5.0 / 3, 5.0 / 3, 5.0 / 3, 5.0 / 3});
  e.clear();
  for (int64_t o : {0, 5, 10})
    for (int64_t i = 0; i < 5; ++i) e.push_back({o + i, o + (i + 1) % 5});
  gs.push_back(edges(15, e));
  const double pi = 3.14159265358979323846, a1 = 1.0 - std::cos(2 * pi / 5), a2 = 1.0 - std::cos(4 * pi / 5);
  spec.push_back({0.0, 0.0, 0.0, a1, a1, a1, a1, a1, a1, a2, a2, a2, a2, a2, a2});
  uint64_t s = 3;
  Batch b;
  for (const EdgeList& g : gs) b.add(g, s);
  const int32_t k = 12;
  std::vector<double> val(static_cast<size_t>(b.ng() * k)), vec(static_cast<size_t>(b.nodes() * k));
  std::vector<int32_t> st(static_cast<size_t>(b.ng()));
  ASSERT_EQ(posenc_graph_batch_pe_ex_f64(b.ng(), b.node_ptr.data(), b.edge_ptr.data(), b.src.data(), b.dst.data(),
                                         nullptr, POSENC_LAPLACIAN_SYM, k, 0, POSENC_LAPPE_NAN_PAD, val.data(),
                                         vec.data(), nullptr, st.data()),
            POSENC_OK)
      << posenc_last_error_message();
  for (int64_t g = 0; g < b.ng(); ++g) {
    SCOPED_TRACE("graph " + std::to_string(g));
    const EdgeList& G = gs[static_cast<size_t>(g)];
    const int64_t n = G.n, off = b.node_ptr[g], kk = std::min<int64_t>(k, n);
    const Eigen::MatrixXd L = dense_laplacian(G, nullptr, POSENC_LAPLACIAN_SYM);
    Eigen::MatrixXd V(n, kk);
    for (int64_t j = 0; j < k; ++j) {
      if (j >= n) {
        EXPECT_TRUE(std::isnan(val[g * k + j]));
        continue;
      }
      EXPECT_NEAR(val[g * k + j], spec[static_cast<size_t>(g)][static_cast<size_t>(j)], 1e-14);
      for (int64_t v = 0; v < n; ++v) V(v, j) = vec[(off + v) * k + j];
      EXPECT_LE((L * V.col(j) - val[g * k + j] * V.col(j)).norm(), 1e-12);
    }
    EXPECT_LE((V.transpose() * V - Eigen::MatrixXd::Identity(kk, kk)).cwiseAbs().maxCoeff(), 1e-13);
    if (g == 4) continue;  // disconnected: its components are solved separately
    posenc_laplacian_pe_info info;
    ASSERT_EQ(posenc_laplacian_pe_info_init(&info), POSENC_OK);
    info.solver = POSENC_LAPPE_DENSE;
    std::vector<double> ev(static_cast<size_t>(kk)), evec(static_cast<size_t>(n * kk)), mine(evec.size());
    ASSERT_EQ(posenc_laplacian_pe_ex_f64(n, G.src.data(), G.dst.data(), nullptr, G.m(), POSENC_LAPLACIAN_SYM,
                                         static_cast<int32_t>(kk), ev.data(), evec.data(), &info),
              POSENC_OK);
    for (int64_t v = 0; v < n; ++v)
      for (int64_t j = 0; j < kk; ++j) mine[static_cast<size_t>(v * kk + j)] = vec[(off + v) * k + j];
    EXPECT_FALSE(same_bits(mine, evec)) << "the small dense path fell back to Eigen's solver";
  }
}

POSENC_INSTANTIATE_ISA(GraphBatch);

}  // namespace
