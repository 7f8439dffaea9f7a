// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_diffusion.cpp — graph family: what the heat kernel exp(-tL) gives per node and per
// pair: its exact diagonal for a list of t (HKdiagSE), its rows for chosen sources, and the
// diffusion distance D_t(i, j) = ||exp(-tL) (e_i - e_j)||_2 (from the kernel, or from k
// eigenpairs with the truncation bound).
//
// The kernel is applied by the Chebyshev expansion of lib/graph_heat.cpp (heat_apply) to blocks of
// unit vectors (or differences of two), in fixed blocks: bitwise identical for any thread count
// and on every ISA path.
#include "lib/graph_common.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

constexpr int64_t kColumns = 32;  // unit vectors per heat_apply block

posenc_status check_time(double t, const char* name) {
  if (!(std::isfinite(t) && t >= 0.0))
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s must be finite and >= 0 (got %g)", name, t);
  return POSENC_OK;
}

posenc_status check_nodes(const int64_t* ids, int64_t count, int64_t num_nodes, const char* name) {
  for (int64_t i = 0; i < count; ++i)
    if (ids[i] < 0 || ids[i] >= num_nodes)
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "%s[%lld] = %lld is out of range [0, num_nodes = %lld)", name,
                       static_cast<long long>(i), static_cast<long long>(ids[i]), static_cast<long long>(num_nodes));
  return POSENC_OK;
}

Lap whole_laplacian(const Graph& gr, posenc_laplacian kind) {
  std::vector<int32_t> all(static_cast<size_t>(gr.n));
  std::iota(all.begin(), all.end(), 0);
  return component_laplacian(gr, all, all, kind);
}

// The graph and Laplacian arguments of the three kernel-based entry points.
posenc_status check_graph_and_laplacian(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                        const double* weights, int64_t num_edges, posenc_laplacian laplacian,
                                        posenc_laplacian* kind) {
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  const long long lap_raw = enum_bits(laplacian);
  POSENC_CHECK(check_laplacian(lap_raw));
  *kind = static_cast<posenc_laplacian>(lap_raw);
  return POSENC_OK;
}

// exp(-tL) applied to `count` input columns in fixed blocks of kColumns (so the result does not
// depend on the thread count): seed(c0, nc, x) sets the block's columns c0 .. c0+nc-1 in the zeroed
// x [n, nc], take(c0, nc, y) reads y = exp(-tL) x [n, nc]. Returns the largest heat_apply bound.
template <class Seed, class Take>
double heat_columns(const Lap& L, double t, int64_t n, int64_t count, Seed seed, Take take) {
  double worst = 0.0;
  for (int64_t c0 = 0; c0 < count; c0 += kColumns) {
    const int64_t nc = std::min(kColumns, count - c0);
    std::vector<double> x(static_cast<size_t>(n * nc), 0.0), y(static_cast<size_t>(n * nc));
    seed(c0, nc, x.data());
    double bound = 0.0;
    heat_apply(L, t, x.data(), nc, y.data(), &bound);
    worst = std::max(worst, bound);
    take(c0, nc, y.data());
  }
  return worst;
}

}  // namespace

extern "C" POSENC_API posenc_status posenc_heat_kernel_diag_f64(int64_t num_nodes, const int64_t* src,
                                                               const int64_t* dst, const double* weights,
                                                               int64_t num_edges, posenc_laplacian laplacian,
                                                               const double* times, int32_t num_times, double* out,
                                                               double* error_bound) {
  api_guard g("posenc_heat_kernel_diag_f64");
  posenc_laplacian kind{};
  POSENC_CHECK(check_graph_and_laplacian(num_nodes, src, dst, weights, num_edges, laplacian, &kind));
  if (num_times <= 0) return set_error(POSENC_ERR_INVALID_ARGUMENT, "num_times must be > 0 (got %d)", num_times);
  POSENC_CHECK(check_not_null(times, "times"));
  for (int32_t i = 0; i < num_times; ++i)
    if (!(std::isfinite(times[i]) && times[i] >= 0.0))
      return set_error(POSENC_ERR_INVALID_ARGUMENT, "times[%d] must be finite and >= 0 (got %g)", i, times[i]);
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, num_times, &total, "out [num_nodes, num_times]", sizeof(double)));
  POSENC_CHECK(check_not_null(out, "out"));
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges);
    const Lap L = whole_laplacian(gr, kind);
    POSENC_CHECK(check_heat_range(L, *std::max_element(times, times + num_times), "times"));
    const int64_t n = num_nodes;
    std::vector<double> res(static_cast<size_t>(total));
    const HeatSeries hs = heat_series(L, times, num_times);
    // Route: local moments (lib/graph_heat_diag.cpp); the global blocks of heat_apply only when
    // POSENC_HEAT_DIAG_ROUTE=global (a test knob): the local route needs ceil(m/2) products per
    // source instead of m per time, and is faster on every graph measured (docs/PERFORMANCE.md).
    const bool local = heat_diag_route_override() != 2;
    double worst = 0.0;
    if (local) {
      worst = heat_diag_local(L, hs, num_times, res.data());
      path("heat_kernel_diag.local");
    } else {
      for (int32_t ti = 0; ti < num_times; ++ti)
        worst = std::max(worst, heat_columns(
                                    L, times[ti], n, n,
                                    [&](int64_t c0, int64_t nc, double* x) {
                                      for (int64_t b = 0; b < nc; ++b) x[(c0 + b) * nc + b] = 1.0;
                                    },
                                    [&](int64_t c0, int64_t nc, const double* y) {
                                      for (int64_t b = 0; b < nc; ++b)
                                        res[static_cast<size_t>((c0 + b) * num_times + ti)] = y[(c0 + b) * nc + b];
                                    }));
      path("heat_kernel_diag.chebyshev");
    }
    POSENC_SHAPE("nodes=%lld edges=%lld times=%d", (long long)n, (long long)num_edges, num_times);
    std::copy(res.begin(), res.end(), out);
    if (error_bound != nullptr) *error_bound = worst;
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_heat_kernel_rows_f64(int64_t num_nodes, const int64_t* src,
                                                               const int64_t* dst, const double* weights,
                                                               int64_t num_edges, posenc_laplacian laplacian,
                                                               double t, const int64_t* sources, int64_t num_sources,
                                                               double* out, double* error_bound) {
  api_guard g("posenc_heat_kernel_rows_f64");
  posenc_laplacian kind{};
  POSENC_CHECK(check_graph_and_laplacian(num_nodes, src, dst, weights, num_edges, laplacian, &kind));
  POSENC_CHECK(check_time(t, "t"));
  POSENC_CHECK(check_positive(num_sources, "num_sources"));
  POSENC_CHECK(check_not_null(sources, "sources"));
  // Sizes before contents: a num_sources beyond the address space must not be scanned.
  int64_t total = 0, ns = 0;
  POSENC_CHECK(checked_mul(num_sources, 1, &ns, "sources [num_sources]", sizeof(int64_t)));
  POSENC_CHECK(checked_mul(num_sources, num_nodes, &total, "out [num_sources, num_nodes]", sizeof(double)));
  POSENC_CHECK(check_nodes(sources, num_sources, num_nodes, "sources"));
  POSENC_CHECK(check_not_null(out, "out"));
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges);
    const Lap L = whole_laplacian(gr, kind);
    POSENC_CHECK(check_heat_range(L, t, "t"));
    const int64_t n = num_nodes;
    std::vector<double> res(static_cast<size_t>(total));
    const double worst = heat_columns(
        L, t, n, num_sources,
        [&](int64_t c0, int64_t nc, double* x) {
          for (int64_t b = 0; b < nc; ++b) x[sources[c0 + b] * nc + b] = 1.0;
        },
        [&](int64_t c0, int64_t nc, const double* y) {  // exp(-tL) is symmetric: row s = column s
          for (int64_t b = 0; b < nc; ++b)
            for (int64_t v = 0; v < n; ++v) res[static_cast<size_t>((c0 + b) * n + v)] = y[v * nc + b];
        });
    path("heat_kernel_rows.chebyshev");
    POSENC_SHAPE("nodes=%lld edges=%lld sources=%lld", (long long)n, (long long)num_edges, (long long)num_sources);
    std::copy(res.begin(), res.end(), out);
    if (error_bound != nullptr) *error_bound = worst;
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_diffusion_distance_f64(int64_t num_nodes, const int64_t* src,
                                                                 const int64_t* dst, const double* weights,
                                                                 int64_t num_edges, posenc_laplacian laplacian,
                                                                 double t, const int64_t* pairs, int64_t num_pairs,
                                                                 double* out, double* error_bound) {
  api_guard g("posenc_diffusion_distance_f64");
  posenc_laplacian kind{};
  POSENC_CHECK(check_graph_and_laplacian(num_nodes, src, dst, weights, num_edges, laplacian, &kind));
  POSENC_CHECK(check_time(t, "t"));
  POSENC_CHECK(check_positive(num_pairs, "num_pairs"));
  POSENC_CHECK(check_not_null(pairs, "pairs"));
  int64_t twice = 0;
  POSENC_CHECK(checked_mul(num_pairs, 2, &twice, "pairs [num_pairs, 2]", sizeof(int64_t)));
  POSENC_CHECK(check_nodes(pairs, twice, num_nodes, "pairs"));
  POSENC_CHECK(check_not_null(out, "out"));
  return guarded([&]() -> posenc_status {
    const Graph gr = build_graph(num_nodes, src, dst, weights, num_edges);
    const Lap L = whole_laplacian(gr, kind);
    POSENC_CHECK(check_heat_range(L, t, "t"));
    const int64_t n = num_nodes;
    std::vector<double> res(static_cast<size_t>(num_pairs));
    const double worst = heat_columns(
        L, t, n, num_pairs,
        [&](int64_t c0, int64_t nc, double* x) {
          for (int64_t b = 0; b < nc; ++b) {
            x[pairs[2 * (c0 + b)] * nc + b] += 1.0;
            x[pairs[2 * (c0 + b) + 1] * nc + b] -= 1.0;
          }
        },
        [&](int64_t c0, int64_t nc, const double* y) {
          for (int64_t b = 0; b < nc; ++b) {
            double s = 0.0;
            for (int64_t v = 0; v < n; ++v) s += y[v * nc + b] * y[v * nc + b];
            res[static_cast<size_t>(c0 + b)] = std::sqrt(s);
          }
        });
    path("diffusion_distance.chebyshev");
    POSENC_SHAPE("nodes=%lld edges=%lld pairs=%lld", (long long)n, (long long)num_edges, (long long)num_pairs);
    std::copy(res.begin(), res.end(), out);
    // ||y_b - exp(-tL) x_b|| <= bound ||x_b|| with ||x_b|| = sqrt(2) (0 for i == j).
    if (error_bound != nullptr) *error_bound = std::sqrt(2.0) * worst;
    return POSENC_OK;
  });
}

extern "C" POSENC_API posenc_status posenc_diffusion_distance_eig_f64(int64_t num_nodes, int32_t k,
                                                                     const double* eigvals, const double* eigvecs,
                                                                     double t, const int64_t* pairs,
                                                                     int64_t num_pairs, double* out,
                                                                     double* truncation_bound) {
  api_guard g("posenc_diffusion_distance_eig_f64");
  POSENC_CHECK(check_positive(num_nodes, "num_nodes"));
  if (k <= 0 || k > num_nodes)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "k must be in [1, num_nodes = %lld] (got %d)",
                     static_cast<long long>(num_nodes), k);
  POSENC_CHECK(check_not_null(eigvals, "eigvals"));
  POSENC_CHECK(check_not_null(eigvecs, "eigvecs"));
  POSENC_CHECK(check_time(t, "t"));
  for (int32_t j = 0; j < k; ++j)
    if (!(std::isfinite(eigvals[j]) && eigvals[j] >= 0.0) || (j > 0 && eigvals[j] < eigvals[j - 1]))
      return set_error(POSENC_ERR_INVALID_ARGUMENT,
                       "eigvals[%d] must be finite, >= 0 and >= eigvals[%d] (ascending, as posenc_laplacian_pe_f64 "
                       "returns them) (got %g)",
                       j, j > 0 ? j - 1 : 0, eigvals[j]);
  POSENC_CHECK(check_positive(num_pairs, "num_pairs"));
  POSENC_CHECK(check_not_null(pairs, "pairs"));
  int64_t twice = 0, nk = 0;
  POSENC_CHECK(checked_mul(num_pairs, 2, &twice, "pairs [num_pairs, 2]", sizeof(int64_t)));
  POSENC_CHECK(checked_mul(num_nodes, k, &nk, "eigvecs [num_nodes, k]", sizeof(double)));
  POSENC_CHECK(check_nodes(pairs, twice, num_nodes, "pairs"));
  POSENC_CHECK(check_not_null(out, "out"));
  return guarded([&]() -> posenc_status {
    std::vector<double> decay(static_cast<size_t>(k));
    for (int32_t j = 0; j < k; ++j) decay[static_cast<size_t>(j)] = std::exp(-2.0 * t * eigvals[j]);
    const int64_t grain = 4096;
    parallel_tiles(tiles_of(num_pairs, grain), [&](int64_t tile) {
      for (int64_t p = tile * grain; p < std::min(num_pairs, (tile + 1) * grain); ++p) {
        const double* a = eigvecs + pairs[2 * p] * k;
        const double* b = eigvecs + pairs[2 * p + 1] * k;
        double s = 0.0;
        for (int32_t j = 0; j < k; ++j) {
          const double d = a[j] - b[j];
          s += decay[static_cast<size_t>(j)] * d * d;
        }
        out[p] = std::sqrt(s);
      }
    });
    path("diffusion_distance_eig");
    // The missing terms l >= k have eigenvalues >= eigvals[k-1] and sum_l (phi_l(i) - phi_l(j))^2
    // = ||e_i - e_j||^2 <= 2: 0 <= D^2 - D_k^2 <= 2 exp(-2 t eigvals[k-1]), so
    // 0 <= D - D_k <= sqrt(2) exp(-t eigvals[k-1]) (k = num_nodes: 0).
    if (truncation_bound != nullptr)
      *truncation_bound = k == num_nodes ? 0.0 : std::sqrt(2.0) * std::exp(-t * eigvals[k - 1]);
    return POSENC_OK;
  });
}
