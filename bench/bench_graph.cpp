// SPDX-License-Identifier: Apache-2.0 OR MIT
// graph family benchmarks: LapPE (k = 16) on a 100k-node random geometric graph and on a
// 316 x 316 grid, RWSE (16 steps) on the same random geometric graph. Anchor in this binary: one
// Eigen sparse matrix-vector product with the same Laplacian (the unit of iterative eigensolver
// work); the SciPy eigsh comparison is bench/lappe_vs_scipy.py.
#include "bench/bench_common.hpp"
#include "tests/graph_gen.hpp"

#include <Eigen/SparseCore>

#include <map>

using namespace posenc_bench;
using posenc_graph_gen::EdgeList;

namespace {

/// Graphs: 0 = random geometric graph (mean degree 10, seed 1), 1 = square grid; ~n nodes.
const EdgeList& graph(int kind, int64_t n) {
  static std::map<std::pair<int, int64_t>, EdgeList> cache;
  auto it = cache.find({kind, n});
  if (it != cache.end()) return it->second;
  const int64_t side = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(n))));
  EdgeList g = kind == 0 ? posenc_graph_gen::random_geometric(n, 10.0, 1) : posenc_graph_gen::grid(side, side);
  return cache.emplace(std::make_pair(kind, n), std::move(g)).first->second;
}

int64_t size_arg(benchmark::State& st) { return smoke() ? 2500 : st.range(1); }

// posenc_laplacian_pe_ex_f64, L_sym, k = 16. Args: graph kind, nodes.
void BM_lappe(benchmark::State& st) {
  const EdgeList& g = graph(static_cast<int>(st.range(0)), size_arg(st));
  const int32_t k = 16;
  std::vector<double> val(k), vec(static_cast<size_t>(g.n * k));
  posenc_laplacian_pe_info info;
  for (auto _ : st) {
    posenc_laplacian_pe_info_init(&info);
    if (!ok(st, posenc_laplacian_pe_ex_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), POSENC_LAPLACIAN_SYM, k,
                                           val.data(), vec.data(), &info)))
      return;
    benchmark::DoNotOptimize(vec.data());
  }
  st.counters["nodes"] = static_cast<double>(g.n);
  st.counters["method"] = static_cast<double>(info.method);
  st.counters["matvecs"] = static_cast<double>(info.matvecs);
  st.counters["shift_solves"] = static_cast<double>(info.shift_solves);
  st.counters["max_residual"] = info.max_residual;
  label(st);
}

// posenc_rwse_f64, 16 steps. Args: graph kind, nodes.
void BM_rwse(benchmark::State& st) {
  const EdgeList& g = graph(static_cast<int>(st.range(0)), size_arg(st));
  const int32_t steps = 16;
  std::vector<double> out(static_cast<size_t>(g.n * steps));
  for (auto _ : st) {
    if (!ok(st, posenc_rwse_f64(g.n, g.src.data(), g.dst.data(), nullptr, g.m(), steps, out.data()))) return;
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * g.n);
  st.counters["nodes"] = static_cast<double>(g.n);
  label(st);
}

// Anchor: one y = L x with Eigen's sparse product (L_sym of the same graph, one thread).
void BM_anchor_spmv(benchmark::State& st) {
  const EdgeList& g = graph(static_cast<int>(st.range(0)), size_arg(st));
  std::vector<double> d(static_cast<size_t>(g.n), 0.0);
  for (int64_t e = 0; e < g.m(); ++e) { d[g.src[e]] += 1; d[g.dst[e]] += 1; }
  std::vector<Eigen::Triplet<double>> t;
  for (int64_t i = 0; i < g.n; ++i) t.emplace_back(i, i, 1.0);
  for (int64_t e = 0; e < g.m(); ++e) {
    const double x = -1.0 / std::sqrt(d[g.src[e]] * d[g.dst[e]]);
    t.emplace_back(g.src[e], g.dst[e], x);
    t.emplace_back(g.dst[e], g.src[e], x);
  }
  Eigen::SparseMatrix<double, Eigen::RowMajor> L(g.n, g.n);
  L.setFromTriplets(t.begin(), t.end());
  Eigen::VectorXd x = Eigen::VectorXd::Ones(g.n), y(g.n);
  for (auto _ : st) {
    y.noalias() = L * x;
    benchmark::DoNotOptimize(y.data());
  }
  st.counters["nnz"] = static_cast<double>(L.nonZeros());
}

}  // namespace

BENCHMARK(BM_lappe)->Args({0, 100000})->Args({1, 100000})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rwse)->Args({0, 100000})->Args({1, 100000})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_anchor_spmv)->Args({0, 100000})->Args({1, 100000})->Unit(benchmark::kMillisecond)->UseRealTime();
