// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_batch.cpp — graph family: LapPE and RWSE of many graphs in one call (PyG's Batch
// layout: concatenated edge lists with node and edge offsets), parallel over graphs.
//
// Batch: every graph is graph g's posenc_laplacian_pe_ex_f64 call (the same internal stages,
// LappeCall in lib/graph_lappe.hpp, so bitwise the same result) and its posenc_rwse_ex_f64 result
// (rwse_graph: the same dense all-sources propagation for graphs of <= kDenseRwseMax nodes, the
// same block propagation over flat scratch above: bitwise the same). A tile's graphs are taken in
// groups of kGraphsPerGroup: each graph's LapPE call is started (graph, components, Householder
// reductions of its small components), the QL sweeps of the whole group run interleaved
// (lappe_values; the small dense solver is lib/graph_small_dense.cpp), then each call completes.
// Each graph is computed by one thread from its own data only, in fixed tiles of graphs: the
// result is bitwise identical for any thread count and any grouping.
#include "lib/graph_lappe.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <limits>
#include <numeric>

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

constexpr int64_t kGraphsPerTile = 16;
constexpr int kGraphsPerGroup = kQlLanes;  // graphs whose LapPE QL sweeps run interleaved (a tile's groups)

/// Scratch of one tile of graphs (a local of the tile: a tbb::enumerable_thread_specific here
/// double-freed its storage when an allocation inside it failed, found by tests/test_oom.cpp).
struct BatchScratch {
  std::vector<int64_t> src, dst;
  RwseScratch rw;
  FlatRwse flat;
  // the group's started LapPE calls: their outputs [kk] and [n, kk], graph index, kk, status
  LappeCall calls[kGraphsPerGroup];
  std::vector<double> vals[kGraphsPerGroup], vecs[kGraphsPerGroup];
  int64_t graph[kGraphsPerGroup] = {}, kk[kGraphsPerGroup] = {};
  posenc_status status[kGraphsPerGroup] = {};
};

/// A staging array of the batch's outputs: every element is written before it is read, so it is
/// not zeroed, and, on Linux, a large one asks for transparent huge pages (a fresh 4 KiB page costs
/// a page fault on first touch, which dominated the staging of small graphs' results).
class Staging {
 public:
  explicit Staging(int64_t count) : n_(static_cast<size_t>(count)) {
    if (n_ == 0) return;
    const size_t bytes = n_ * sizeof(double);
#if defined(__linux__)
    constexpr size_t kHuge = size_t{2} << 20;
    if (bytes >= kHuge) {
      const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
      p_ = static_cast<double*>(std::aligned_alloc(kHuge, rounded));
      if (p_ == nullptr) throw std::bad_alloc();
      (void)madvise(p_, rounded, MADV_HUGEPAGE);
      return;
    }
#endif
    p_ = static_cast<double*>(std::malloc(bytes));
    if (p_ == nullptr) throw std::bad_alloc();
  }
  ~Staging() { std::free(p_); }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  double* data() { return p_; }
  void copy_to(double* out) const {
    if (n_ > 0) std::memcpy(out, p_, n_ * sizeof(double));
  }

 private:
  size_t n_;
  double* p_ = nullptr;
};

posenc_status check_offsets(const int64_t* ptr, int64_t num_graphs, const char* name, int64_t limit_each) {
  if (ptr[0] != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s[0] must be 0 (got %lld)", name, static_cast<long long>(ptr[0]));
  for (int64_t g = 0; g < num_graphs; ++g) {
    const int64_t a = ptr[g], b = ptr[g + 1];
    if (b < a)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be non-decreasing (%s[%lld] = %lld > %s[%lld] = %lld)",
                       name, name, static_cast<long long>(g), static_cast<long long>(a), name,
                       static_cast<long long>(g + 1), static_cast<long long>(b));
    if (b - a > limit_each)
      return set_error(POSENC_ERR_SIZE_OVERFLOW, "%s: graph %lld has %lld entries (at most %lld)", name,
                       static_cast<long long>(g), static_cast<long long>(b - a), static_cast<long long>(limit_each));
  }
  return POSENC_OK;
}


/// The RWSE options of posenc_graph_batch_pe_auto_f64 (auto = false: the exact path of
/// posenc_rwse_ex_f64 without the cost estimate, as posenc_graph_batch_pe(_ex)_f64).
struct RwseOptions {
  bool automatic = false;
  int32_t method = POSENC_RWSE_EXACT;
  int32_t walks = POSENC_RWSE_DEFAULT_WALKS;
  uint64_t seed = 0;
};

/// Reads posenc_graph_batch_pe_auto_f64's rwse_options (NULL: AUTO, default walks, seed 0).
posenc_status read_rwse_options(const posenc_rwse_info* info, RwseOptions* o) {
  o->automatic = true;
  o->method = POSENC_RWSE_AUTO;
  if (info == nullptr) return POSENC_OK;
  if (info->struct_size != sizeof(posenc_rwse_info))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "rwse_options->struct_size must be %u (got %u); call posenc_rwse_info_init",
                     static_cast<unsigned>(sizeof(posenc_rwse_info)), info->struct_size);
  const long long method = enum_bits(info->method);
  if (method < POSENC_RWSE_AUTO || method > POSENC_RWSE_MONTE_CARLO)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "rwse_options->method must be a posenc_rwse_method in [0, 2] (got %lld)", method);
  if (info->walks < 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "rwse_options->walks must be >= 0 (0 = the default) (got %d)",
                     info->walks);
  if (info->flags != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "rwse_options->flags must be 0 (the flags argument applies to every graph) (got 0x%x)",
                     static_cast<unsigned>(info->flags));
  o->method = static_cast<int32_t>(method);
  o->walks = info->walks == 0 ? POSENC_RWSE_DEFAULT_WALKS : info->walks;
  o->seed = info->seed;
  return POSENC_OK;
}

posenc_status graph_batch_pe(int64_t num_graphs, const int64_t* node_ptr, const int64_t* edge_ptr,
                             const int64_t* src, const int64_t* dst, const double* weights,
                             const posenc_laplacian& laplacian, int32_t k, int32_t steps, uint32_t flags,
                             double* eigvals, double* eigvecs, double* rwse, int32_t* graph_status,
                             const RwseOptions& ro = RwseOptions{}, int32_t* rwse_method_used = nullptr) {
  POSENC_CHECK(check_positive(num_graphs, "num_graphs"));
  POSENC_CHECK(check_not_null(node_ptr, "node_ptr"));
  POSENC_CHECK(check_not_null(edge_ptr, "edge_ptr"));
  const long long lap_raw = enum_bits(laplacian);
  POSENC_CHECK(check_laplacian(lap_raw));
  if (k < 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "k must be >= 0 (got %d)", k);
  if (steps < 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "steps must be >= 0 (got %d)", steps);
  if (k == 0 && steps == 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "k and steps must not both be 0 (nothing to compute)");
  constexpr uint32_t kKnown = POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_GRAPH_KEEP_SELF_LOOPS | POSENC_LAPPE_DROP_TRIVIAL |
                              POSENC_LAPPE_NAN_PAD;
  if ((flags & ~kKnown) != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "flags may hold only POSENC_GRAPH_BOTH_DIRECTIONS, POSENC_GRAPH_KEEP_SELF_LOOPS, "
                     "POSENC_LAPPE_DROP_TRIVIAL and POSENC_LAPPE_NAN_PAD (got 0x%x)",
                     static_cast<unsigned>(flags));
  int64_t ng1 = 0;
  POSENC_CHECK(checked_mul(num_graphs, 1, &ng1, "num_graphs", sizeof(int64_t)));
  POSENC_CHECK(check_offsets(node_ptr, num_graphs, "node_ptr", static_cast<int64_t>(std::numeric_limits<int32_t>::max()) - 2));
  POSENC_CHECK(check_offsets(edge_ptr, num_graphs, "edge_ptr", std::numeric_limits<int64_t>::max() / 16));
  const int64_t total_nodes = node_ptr[num_graphs], num_edges = edge_ptr[num_graphs];
  POSENC_CHECK(check_not_null_if(src, num_edges, "src"));
  POSENC_CHECK(check_not_null_if(dst, num_edges, "dst"));
  int64_t nvec = 0, nval = 0, nrw = 0;
  POSENC_CHECK(checked_mul(total_nodes, k, &nvec, "eigvecs [node_ptr[num_graphs], k]", sizeof(double)));
  POSENC_CHECK(checked_mul(num_graphs, k, &nval, "eigvals [num_graphs, k]", sizeof(double)));
  POSENC_CHECK(checked_mul(total_nodes, steps, &nrw, "rwse [node_ptr[num_graphs], steps]", sizeof(double)));
  if (k > 0) {
    POSENC_CHECK(check_not_null(eigvals, "eigvals"));
    POSENC_CHECK(check_not_null(eigvecs, "eigvecs"));
  }
  if (steps > 0) POSENC_CHECK(check_not_null(rwse, "rwse"));
  for (int64_t gi = 0; gi < num_graphs; ++gi) {
    const int64_t lo = node_ptr[gi], hi = node_ptr[gi + 1];
    for (int64_t e = edge_ptr[gi]; e < edge_ptr[gi + 1]; ++e) {
      if (src[e] < lo || src[e] >= hi)
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "src[%lld] = %lld is outside its graph %lld's nodes [node_ptr[%lld] = %lld, %lld)",
                         static_cast<long long>(e), static_cast<long long>(src[e]), static_cast<long long>(gi),
                         static_cast<long long>(gi), static_cast<long long>(lo), static_cast<long long>(hi));
      if (dst[e] < lo || dst[e] >= hi)
        return set_error(POSENC_ERR_INVALID_ARGUMENT,
                         "dst[%lld] = %lld is outside its graph %lld's nodes [node_ptr[%lld] = %lld, %lld)",
                         static_cast<long long>(e), static_cast<long long>(dst[e]), static_cast<long long>(gi),
                         static_cast<long long>(gi), static_cast<long long>(lo), static_cast<long long>(hi));
      if (weights != nullptr && !(std::isfinite(weights[e]) && weights[e] >= 0.0))
        return set_error(POSENC_ERR_INVALID_ARGUMENT, "weights[%lld] must be finite and >= 0 (got %g)",
                         static_cast<long long>(e), weights[e]);
    }
  }
  const posenc_laplacian kind = static_cast<posenc_laplacian>(lap_raw);
  const uint32_t lap_flags = flags & (POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_LAPPE_DROP_TRIVIAL | POSENC_LAPPE_NAN_PAD);
  const uint32_t rw_flags = flags & (POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_GRAPH_KEEP_SELF_LOOPS);
  const int64_t drop = (flags & POSENC_LAPPE_DROP_TRIVIAL) != 0 ? 1 : 0;
  const bool pad = (flags & POSENC_LAPPE_NAN_PAD) != 0;
  POSENC_CHECK(graph_dense_check_kernels());
  return guarded([&]() -> posenc_status {
    // The results are computed into staging arrays and copied to the caller's at the end: an
    // allocation failing in any graph (OUT_OF_MEMORY for the whole call) then leaves every output
    // untouched. A graph whose eigensolver does not converge is reported in graph_status.
    std::vector<int32_t> st(static_cast<size_t>(num_graphs), POSENC_OK);
    std::vector<int32_t> used(rwse_method_used != nullptr ? static_cast<size_t>(num_graphs) : 0, POSENC_RWSE_EXACT);
    std::atomic<bool> any_mc{false};  // some graph's RWSE took the Monte-Carlo path (the verbose path)
    Staging eigvals_s(k > 0 ? num_graphs * k : 0), eigvecs_s(k > 0 ? total_nodes * k : 0),
        rwse_s(steps > 0 ? total_nodes * steps : 0);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    parallel_tiles(tiles_of(num_graphs, kGraphsPerTile), [&](int64_t tile) {
      BatchScratch S;
      const int64_t t0 = tile * kGraphsPerTile, t1 = std::min(num_graphs, t0 + kGraphsPerTile);
      // Groups of kGraphsPerGroup graphs: every graph's LapPE call is started (graph, components,
      // Householder reductions), then the QL sweeps of all of them run interleaved
      // (lappe_values), then each call completes; RWSE runs before.
      for (int64_t g0 = t0; g0 < t1; g0 += kGraphsPerGroup) {
        const int64_t g1 = std::min(t1, g0 + kGraphsPerGroup);
        int64_t started = 0;
        for (int64_t gi = g0; gi < g1; ++gi) {
          const int64_t off = node_ptr[gi], n = node_ptr[gi + 1] - off;
          const int64_t e0 = edge_ptr[gi], m = edge_ptr[gi + 1] - e0;
          double* vals = k > 0 ? eigvals_s.data() + gi * k : nullptr;
          for (int32_t j = 0; j < k; ++j) vals[j] = nan;
          if (n == 0) continue;
          S.src.resize(static_cast<size_t>(m));
          S.dst.resize(static_cast<size_t>(m));
          for (int64_t e = 0; e < m; ++e) {
            S.src[static_cast<size_t>(e)] = src[e0 + e] - off;
            S.dst[static_cast<size_t>(e)] = dst[e0 + e] - off;
          }
          const double* w = weights != nullptr ? weights + e0 : nullptr;
          // RWSE's graph is LapPE's when the flags build the same one (no KEEP_SELF_LOOPS).
          Graph gr;
          const bool same_graph = rw_flags == (lap_flags & POSENC_GRAPH_BOTH_DIRECTIONS);
          if (steps > 0) {
            gr = build_graph(n, S.src.data(), S.dst.data(), w, m, rw_flags);
            double* rw = rwse_s.data() + off * steps;
            if (!ro.automatic) {
              rwse_graph(gr, steps, S.flat, S.rw, rw);
            } else if (!rwse_graph_auto(gr, steps, ro.method, ro.walks, ro.seed, S.flat, S.rw, rw)) {
              any_mc.store(true, std::memory_order_relaxed);
              if (!used.empty()) used[static_cast<size_t>(gi)] = POSENC_RWSE_MONTE_CARLO;
            }
          }
          if (k == 0) continue;
          // Graph g's posenc_laplacian_pe_ex_f64 call with the same flags: kk columns (all k with
          // NAN_PAD; else the pairs available, the rest padded here: NaN eigenvalues, 0 vectors).
          const int64_t kk = pad ? k : std::min<int64_t>(k, n - drop);
          double* vecs = eigvecs_s.data() + off * k;
          for (int64_t r = 0; r < n; ++r)
            for (int64_t j = std::max<int64_t>(kk, 0); j < k; ++j) vecs[r * k + j] = 0.0;
          if (kk < 1) continue;
          const size_t q = static_cast<size_t>(started);
          S.vals[q].resize(static_cast<size_t>(kk));
          S.vecs[q].resize(static_cast<size_t>(n * kk));
          S.calls[q] = LappeCall{};
          S.graph[q] = gi;
          S.kk[q] = kk;
          const posenc_status s = lappe_start(&S.calls[q], n, S.src.data(), S.dst.data(), w, m, kind,
                                              static_cast<int32_t>(kk), lap_flags, S.vals[q].data(), S.vecs[q].data(),
                                              steps > 0 && same_graph ? &gr : nullptr);
          S.status[q] = s;
          ++started;
        }
        lappe_values(S.calls, started);
        for (int64_t q = 0; q < started; ++q) {
          const int64_t gi = S.graph[q], kk = S.kk[q];
          const int64_t off = node_ptr[gi], n = node_ptr[gi + 1] - off;
          double* vals = eigvals_s.data() + gi * k;
          double* vecs = eigvecs_s.data() + off * k;
          posenc_status s = S.status[q];
          if (s == POSENC_OK) s = lappe_complete(S.calls[q]);
          S.calls[q] = LappeCall{};  // frees the graph's scratch
          if (s == POSENC_ERR_OUT_OF_MEMORY) throw std::bad_alloc();
          if (s != POSENC_OK) {
            st[static_cast<size_t>(gi)] = s;
            for (int64_t r = 0; r < n; ++r)
              for (int32_t j = 0; j < k; ++j) vecs[r * k + j] = nan;
            continue;
          }
          const std::vector<double>& sv = S.vals[static_cast<size_t>(q)];
          const std::vector<double>& se = S.vecs[static_cast<size_t>(q)];
          for (int64_t j = 0; j < kk; ++j) vals[j] = sv[static_cast<size_t>(j)];
          for (int64_t r = 0; r < n; ++r)
            for (int64_t j = 0; j < kk; ++j) vecs[r * k + j] = se[static_cast<size_t>(r * kk + j)];
        }
      }
    });
    path(any_mc.load() ? "graph_batch_pe.per_graph_monte_carlo" : "graph_batch_pe.per_graph");
    POSENC_SHAPE("graphs=%lld nodes=%lld edges=%lld k=%d steps=%d flags=0x%x", (long long)num_graphs,
                 (long long)total_nodes, (long long)num_edges, k, steps, static_cast<unsigned>(flags));
    eigvals_s.copy_to(eigvals);
    eigvecs_s.copy_to(eigvecs);
    rwse_s.copy_to(rwse);
    if (graph_status != nullptr) std::copy(st.begin(), st.end(), graph_status);
    if (rwse_method_used != nullptr) std::copy(used.begin(), used.end(), rwse_method_used);
    for (int64_t gi = 0; gi < num_graphs; ++gi)
      if (st[static_cast<size_t>(gi)] != POSENC_OK)
        return set_error(static_cast<posenc_status>(st[static_cast<size_t>(gi)]),
                         "graph %lld (and possibly others, see graph_status) failed: its eigvals / eigvecs rows are NaN",
                         static_cast<long long>(gi));
    return POSENC_OK;
  });
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_graph_batch_pe_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                             const int64_t* edge_ptr, const int64_t* src,
                                                             const int64_t* dst, const double* weights,
                                                             posenc_laplacian laplacian, int32_t k, int32_t steps,
                                                             double* eigvals, double* eigvecs, double* rwse,
                                                             int32_t* graph_status) {
  api_guard g("posenc_graph_batch_pe_f64");
  return graph_batch_pe(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, 0u, eigvals, eigvecs,
                        rwse, graph_status);
}

extern "C" POSENC_API posenc_status posenc_graph_batch_pe_ex_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                                const int64_t* edge_ptr, const int64_t* src,
                                                                const int64_t* dst, const double* weights,
                                                                posenc_laplacian laplacian, int32_t k, int32_t steps,
                                                                uint32_t flags, double* eigvals, double* eigvecs,
                                                                double* rwse, int32_t* graph_status) {
  api_guard g("posenc_graph_batch_pe_ex_f64");
  return graph_batch_pe(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, flags, eigvals,
                        eigvecs, rwse, graph_status);
}

extern "C" POSENC_API posenc_status posenc_graph_batch_pe_auto_f64(
    int64_t num_graphs, const int64_t* node_ptr, const int64_t* edge_ptr, const int64_t* src, const int64_t* dst,
    const double* weights, posenc_laplacian laplacian, int32_t k, int32_t steps, uint32_t flags,
    const posenc_rwse_info* rwse_options, double* eigvals, double* eigvecs, double* rwse, int32_t* graph_status,
    int32_t* rwse_method_used) {
  api_guard g("posenc_graph_batch_pe_auto_f64");
  RwseOptions ro;
  POSENC_CHECK(read_rwse_options(rwse_options, &ro));
  return graph_batch_pe(num_graphs, node_ptr, edge_ptr, src, dst, weights, laplacian, k, steps, flags, eigvals,
                        eigvecs, rwse, graph_status, ro, rwse_method_used);
}
