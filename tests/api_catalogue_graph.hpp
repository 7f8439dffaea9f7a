// SPDX-License-Identifier: Apache-2.0 OR MIT
// tests/api_catalogue_graph.hpp — the API catalogue's calls of the graph family: LapPE, RWSE, heat kernel, diffusion, RRWP, shortest paths, MagLapPE, the batched API.
// Part of tests/api_catalogue.hpp (see there).
#pragma once

#include "tests/api_catalogue_common.hpp"

namespace posenc_test {

/// Appends one small, valid call of each graph function (several variants per function).
inline void add_graph_calls(std::vector<ApiCall>& calls) {
  using namespace api_detail;
  const Adder add{calls};
  {
    // A 4 x 5 grid plus a triangle and an isolated node (27 nodes), weighted.
    auto graph = [](Bufs& b, int64_t*& src, int64_t*& dst, double*& w, int64_t& n, int64_t& m) {
      std::vector<int64_t> s, d;
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 5; ++c) {
          if (c + 1 < 5) { s.push_back(r * 5 + c); d.push_back(r * 5 + c + 1); }
          if (r + 1 < 4) { s.push_back(r * 5 + c); d.push_back((r + 1) * 5 + c); }
        }
      for (int i = 0; i < 3; ++i) { s.push_back(20 + i); d.push_back(20 + (i + 1) % 3); }
      n = 27;
      m = static_cast<int64_t>(s.size());
      src = b.iv(s);
      dst = b.iv(d);
      w = b.rd(static_cast<size_t>(m), 0.5, 2);
    };
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* val = b->od(4);
      double* vec = b->od(static_cast<size_t>(n * 4));
      add("posenc_laplacian_pe_f64", "graph", b, {region(val, 4), region(vec, n * 4)},
          [=] { return posenc_laplacian_pe_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, 4, val, vec); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      b->other.push_back(std::make_shared<posenc_laplacian_pe_info>());
      auto* info = static_cast<posenc_laplacian_pe_info*>(b->other.back().get());
      double* val = b->od(3);
      double* vec = b->od(static_cast<size_t>(n * 3));
      add("posenc_laplacian_pe_ex_f64", "graph", b, {region(val, 3), region(vec, n * 3)}, [=] {
        posenc_laplacian_pe_info_init(info);
        info->solver = POSENC_LAPPE_LANCZOS;
        return posenc_laplacian_pe_ex_f64(n, src, dst, nullptr, m, POSENC_LAPLACIAN_COMBINATORIAL, 3, val, vec, info);
      });
    }
    {
      // PyG flags: the drop and the NaN padding go through scratch copied at the end.
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      b->other.push_back(std::make_shared<posenc_laplacian_pe_info>());
      auto* info = static_cast<posenc_laplacian_pe_info*>(b->other.back().get());
      double* val = b->od(30);
      double* vec = b->od(static_cast<size_t>(n * 30));
      add("posenc_laplacian_pe_ex_f64", "graph", b, {region(val, 30), region(vec, n * 30)}, [=] {
        posenc_laplacian_pe_info_init(info);
        info->flags = POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_LAPPE_DROP_TRIVIAL | POSENC_LAPPE_NAN_PAD;
        return posenc_laplacian_pe_ex_f64(n, src, dst, w, m, POSENC_LAPLACIAN_COMBINATORIAL, 30, val, vec, info);
      });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* out = b->od(static_cast<size_t>(n * 6));
      add("posenc_rwse_f64", "graph", b, {region(out, n * 6)},
          [=] { return posenc_rwse_f64(n, src, dst, w, m, 6, out); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* out = b->od(static_cast<size_t>(n * 5));
      add("posenc_rwse_ex_f64", "graph", b, {region(out, n * 5)}, [=] {
        return posenc_rwse_ex_f64(n, src, dst, w, m, 5, POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_GRAPH_BOTH_DIRECTIONS,
                                  out);
      });
    }
    {
      // Monte-Carlo (forced, weighted rows: the binary-search path) and AUTO (exact here).
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      b->other.push_back(std::make_shared<posenc_rwse_info>());
      auto* info = static_cast<posenc_rwse_info*>(b->other.back().get());
      double* out = b->od(static_cast<size_t>(n * 6));
      add("posenc_rwse_auto_f64", "graph", b, {region(out, n * 6)}, [=] {
        posenc_rwse_info_init(info);
        info->method = POSENC_RWSE_MONTE_CARLO;
        info->walks = 16;
        info->seed = 5;
        info->flags = POSENC_GRAPH_KEEP_SELF_LOOPS;
        return posenc_rwse_auto_f64(n, src, dst, w, m, 6, out, info);
      });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* out = b->od(static_cast<size_t>(n * 4));
      add("posenc_rwse_auto_f64", "graph", b, {region(out, n * 4)},
          [=] { return posenc_rwse_auto_f64(n, src, dst, w, m, 4, out, nullptr); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      double* val = b->od(3);
      double* re = b->od(static_cast<size_t>(n * 3));
      double* im = b->od(static_cast<size_t>(n * 3));
      add("posenc_maglap_pe_f64", "graph", b, {region(val, 3), region(re, n * 3), region(im, n * 3)},
          [=] { return posenc_maglap_pe_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, 0.2, 3, val, re, im); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const double* x = b->rd(static_cast<size_t>(n * 2), -1, 1);
      double* y = b->od(static_cast<size_t>(n * 2));
      double* eb = b->od(1);
      add("posenc_heat_kernel_apply_f64", "graph", b, {region(y, n * 2), region(eb, 1)},
          [=] { return posenc_heat_kernel_apply_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, 1.5, x, 2, y, eb); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const double* times = b->rd(3, 0.1, 2);
      double* out = b->od(static_cast<size_t>(n * 3));
      double* eb = b->od(1);
      add("posenc_heat_kernel_diag_f64", "graph", b, {region(out, n * 3), region(eb, 1)},
          [=] { return posenc_heat_kernel_diag_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, times, 3, out, eb); });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t* sources = b->iv({0, 7, 21, 26});
      double* out = b->od(static_cast<size_t>(4 * n));
      double* eb = b->od(1);
      add("posenc_heat_kernel_rows_f64", "graph", b, {region(out, 4 * n), region(eb, 1)}, [=] {
        return posenc_heat_kernel_rows_f64(n, src, dst, w, m, POSENC_LAPLACIAN_COMBINATORIAL, 0.7, sources, 4, out, eb);
      });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t* pairs = b->iv({0, 19, 3, 3, 20, 22, 5, 26, 11, 12});
      double* out = b->od(5);
      double* eb = b->od(1);
      add("posenc_diffusion_distance_f64", "graph", b, {region(out, 5), region(eb, 1)},
          [=] { return posenc_diffusion_distance_f64(n, src, dst, w, m, POSENC_LAPLACIAN_SYM, 1.2, pairs, 5, out, eb); });
    }
    {
      auto b = fresh();
      const int64_t n = 9;
      const int32_t k = 4;
      b->d.push_back({0.0, 0.3, 0.7, 1.2});
      const double* val = b->d.back().data();
      const double* vec = b->rd(static_cast<size_t>(n * k), -0.5, 0.5);
      const int64_t* pairs = b->iv({0, 8, 3, 3, 2, 5});
      double* out = b->od(3);
      double* tb = b->od(1);
      add("posenc_diffusion_distance_eig_f64", "graph", b, {region(out, 3), region(tb, 1)},
          [=] { return posenc_diffusion_distance_eig_f64(n, k, val, vec, 0.9, pairs, 3, out, tb); });
    }
    for (int weighted = 0; weighted < 2; ++weighted) {
      // The size is queried once here; the call then writes max_pairs = that many rows.
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int32_t steps = 4;
      int64_t np = 0;
      posenc_rrwp_f64(n, src, dst, weighted ? w : nullptr, m, steps, 0, &np, nullptr, nullptr);
      int64_t* cnt = b->oi(1);
      int64_t* pairs = b->oi(static_cast<size_t>(2 * np));
      double* values = b->od(static_cast<size_t>(np * steps));
      add("posenc_rrwp_f64", "graph", b, {region(cnt, 1), region(pairs, 2 * np), region(values, np * steps)}, [=] {
        return posenc_rrwp_f64(n, src, dst, weighted ? w : nullptr, m, steps, np, cnt, pairs, values);
      });
    }
    {
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int32_t hops = 3;
      int64_t np = 0;
      posenc_shortest_path_i32(n, src, dst, m, hops, 0, &np, nullptr, nullptr);
      int64_t* cnt = b->oi(1);
      int64_t* pairs = b->oi(static_cast<size_t>(2 * np));
      int32_t* dist = b->oi32(static_cast<size_t>(np));
      add("posenc_shortest_path_i32", "graph", b, {region(cnt, 1), region(pairs, 2 * np), region(dist, np)},
          [=] { return posenc_shortest_path_i32(n, src, dst, m, hops, np, cnt, pairs, dist); });
    }
    for (int32_t k : {0, 3}) {
      // Three graphs in PyG's Batch layout (global node ids): the grid and triangle above as
      // two graphs (the triangle's ids shifted), and a 4-node path.
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t G = 3, N = n + 4;
      std::vector<int64_t> s2(src, src + m), d2(dst, dst + m);
      for (int i = 0; i < 3; ++i) { s2.push_back(n + i); d2.push_back(n + i + 1); }
      const int64_t* node_ptr = b->iv({0, 20, n, N});
      const int64_t* edge_ptr = b->iv({0, m - 3, m, m + 3});
      const int64_t* bs = b->iv(s2);
      const int64_t* bd = b->iv(d2);
      const double* bw = b->rd(static_cast<size_t>(m + 3), 0.5, 2);
      const int32_t steps = k ? 0 : 5;
      double* val = b->od(static_cast<size_t>(G * 3));
      double* vec = b->od(static_cast<size_t>(N * 3));
      double* rw = b->od(static_cast<size_t>(N * 5));
      int32_t* st = b->oi32(static_cast<size_t>(G));
      add("posenc_graph_batch_pe_f64", "graph", b,
          {region(val, G * 3), region(vec, N * 3), region(rw, N * 5), region(st, G)}, [=] {
            return posenc_graph_batch_pe_f64(G, node_ptr, edge_ptr, bs, bd, bw, POSENC_LAPLACIAN_SYM, k, steps,
                                             k ? val : nullptr, k ? vec : nullptr, steps ? rw : nullptr, st);
          });
    }
    {  // the batched API with flags: both directions listed, self-loops kept for RWSE, the trivial
       // pair dropped, NaN padding (the 4-node path has fewer pairs than k + 1)
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t G = 3, N = n + 4;
      std::vector<int64_t> s2(src, src + m), d2(dst, dst + m);
      for (int i = 0; i < 3; ++i) { s2.push_back(n + i); d2.push_back(n + i + 1); }
      s2.push_back(n + 1); d2.push_back(n + 1);  // a self-loop
      const int64_t* node_ptr = b->iv({0, 20, n, N});
      const int64_t* edge_ptr = b->iv({0, m - 3, m, m + 4});
      const int64_t* bs = b->iv(s2);
      const int64_t* bd = b->iv(d2);
      const double* bw = b->rd(static_cast<size_t>(m + 4), 0.5, 2);
      const int32_t k = 4, steps = 5;
      double* val = b->od(static_cast<size_t>(G * k));
      double* vec = b->od(static_cast<size_t>(N * k));
      double* rw = b->od(static_cast<size_t>(N * steps));
      int32_t* st = b->oi32(static_cast<size_t>(G));
      add("posenc_graph_batch_pe_ex_f64", "graph", b,
          {region(val, G * k), region(vec, N * k), region(rw, N * steps), region(st, G)}, [=] {
            return posenc_graph_batch_pe_ex_f64(G, node_ptr, edge_ptr, bs, bd, bw, POSENC_LAPLACIAN_SYM, k, steps,
                                                POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_GRAPH_KEEP_SELF_LOOPS |
                                                    POSENC_LAPPE_DROP_TRIVIAL | POSENC_LAPPE_NAN_PAD,
                                                val, vec, rw, st);
          });
    }
    {  // the batched API with RWSE chosen per graph, Monte-Carlo forced (and its method array)
      auto b = fresh();
      int64_t *src, *dst, n, m;
      double* w;
      graph(*b, src, dst, w, n, m);
      const int64_t G = 2;
      const int64_t* node_ptr = b->iv({0, 20, n});
      const int64_t* edge_ptr = b->iv({0, m - 3, m});
      b->other.push_back(std::make_shared<posenc_rwse_info>());
      auto* info = static_cast<posenc_rwse_info*>(b->other.back().get());
      const int32_t k = 3, steps = 5;
      double* val = b->od(static_cast<size_t>(G * k));
      double* vec = b->od(static_cast<size_t>(n * k));
      double* rw = b->od(static_cast<size_t>(n * steps));
      int32_t* st = b->oi32(static_cast<size_t>(G));
      int32_t* used = b->oi32(static_cast<size_t>(G));
      add("posenc_graph_batch_pe_auto_f64", "graph", b,
          {region(val, G * k), region(vec, n * k), region(rw, n * steps), region(st, G), region(used, G)}, [=] {
            posenc_rwse_info_init(info);
            info->method = POSENC_RWSE_MONTE_CARLO;
            info->walks = 16;
            info->seed = 3;
            return posenc_graph_batch_pe_auto_f64(G, node_ptr, edge_ptr, src, dst, w, POSENC_LAPLACIAN_SYM, k, steps,
                                                  POSENC_GRAPH_KEEP_SELF_LOOPS, info, val, vec, rw, st, used);
          });
    }
  }

}

}  // namespace posenc_test
