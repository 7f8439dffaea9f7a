// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_lappe.cpp — graph family: Laplacian eigenvector PE (LapPE), the driver and the C
// entry points: argument checks, connected components, the k smallest pairs over all components
// (each solved and certified by lib/graph_lappe_solve.cpp), sign convention, DROP_TRIVIAL /
// NAN_PAD, the info struct. Results are bitwise identical for any thread count and ISA path.
//
// Graph construction: see lib/graph_common.hpp. POSENC_GRAPH_DEBUG=1: see lib/graph_lappe.hpp.
#include "lib/graph_lappe.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace posenc;
using namespace posenc::detail;
using namespace posenc::graph_detail;

namespace {

/// LapPE's arguments checked (nothing written on failure) into c's argument fields.
posenc_status lappe_check(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                          int64_t num_edges, const posenc_laplacian& laplacian_arg, int32_t k, double* eigvals,
                          double* eigvecs, const posenc_laplacian_pe_info* info, LappeCall* c) {
  POSENC_CHECK(check_graph(num_nodes, src, dst, weights, num_edges));
  // Enums are read as raw integers: a caller may pass any int, and loading an out-of-range value
  // as the enum type is undefined behaviour in C++ (UBSan's -fsanitize=enum).
  const long long lap_raw = enum_bits(laplacian_arg);
  if (lap_raw != POSENC_LAPLACIAN_SYM && lap_raw != POSENC_LAPLACIAN_COMBINATORIAL)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "laplacian must be POSENC_LAPLACIAN_SYM (0) or POSENC_LAPLACIAN_COMBINATORIAL (1) (got %lld)",
                     lap_raw);
  if (info != nullptr && info->struct_size != sizeof(posenc_laplacian_pe_info) &&
      info->struct_size != POSENC_LAPPE_INFO_SIZE_V1 && info->struct_size != POSENC_LAPPE_INFO_SIZE_V2)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "info->struct_size must be %u (or %u / %u, the 0.1 / 0.2 layouts) (got %u); call "
                     "posenc_laplacian_pe_info_init",
                     static_cast<unsigned>(sizeof(posenc_laplacian_pe_info)),
                     static_cast<unsigned>(POSENC_LAPPE_INFO_SIZE_V1),
                     static_cast<unsigned>(POSENC_LAPPE_INFO_SIZE_V2), info->struct_size);
  const uint32_t flags =
      info != nullptr && info->struct_size == sizeof(posenc_laplacian_pe_info) ? info->flags : 0u;
  constexpr uint32_t kKnown = POSENC_GRAPH_BOTH_DIRECTIONS | POSENC_LAPPE_DROP_TRIVIAL | POSENC_LAPPE_NAN_PAD;
  if ((flags & ~kKnown) != 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     "info->flags may hold only POSENC_GRAPH_BOTH_DIRECTIONS, POSENC_LAPPE_DROP_TRIVIAL and "
                     "POSENC_LAPPE_NAN_PAD (got 0x%x)",
                     static_cast<unsigned>(flags));
  const int64_t drop = (flags & POSENC_LAPPE_DROP_TRIVIAL) != 0 ? 1 : 0;
  const bool pad = (flags & POSENC_LAPPE_NAN_PAD) != 0;
  const int64_t avail = num_nodes - drop;  // pairs available after the drop
  if (pad && k <= 0)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "k must be >= 1 (got %d)", k);
  if (!pad && (k <= 0 || k > avail))
    return set_error(POSENC_ERR_INVALID_ARGUMENT,
                     drop ? "k must be in [1, num_nodes - 1 = %lld] with POSENC_LAPPE_DROP_TRIVIAL (got %d)"
                          : "k must be in [1, num_nodes = %lld] (got %d)",
                     static_cast<long long>(avail), k);
  int64_t total = 0;
  POSENC_CHECK(checked_mul(num_nodes, k, &total, "eigvecs [num_nodes, k]", sizeof(double)));
  (void)total;
  POSENC_CHECK(check_not_null(eigvals, "eigvals"));
  POSENC_CHECK(check_not_null(eigvecs, "eigvecs"));
  // Pairs computed: kc = the k (+ 1 dropped) smallest, at most num_nodes.
  const int32_t kc = static_cast<int32_t>(std::min<int64_t>(static_cast<int64_t>(k) + drop, num_nodes));
  const bool remap = drop != 0 || kc != k;
  const long long solver_raw = info != nullptr ? enum_bits(info->solver) : 0;
  if (solver_raw < POSENC_LAPPE_AUTO || solver_raw > POSENC_LAPPE_LANCZOS)
    return set_error(POSENC_ERR_INVALID_ARGUMENT, "info->solver must be a posenc_lappe_method in [0, 3] (got %lld)",
                     solver_raw);
  const posenc_laplacian laplacian = static_cast<posenc_laplacian>(lap_raw);
  c->num_nodes = num_nodes;
  c->num_edges = num_edges;
  c->laplacian = laplacian;
  c->k = k;
  c->kc = kc;
  c->drop = drop;
  c->remap = remap;
  c->solver = static_cast<posenc_lappe_method>(solver_raw);
  c->flags = flags;
  c->eigvals = eigvals;
  c->eigvecs = eigvecs;
  return POSENC_OK;
}

/// Whether component ci takes the small dense path through the window (solver AUTO, 2 ..
/// kInterleaveMax nodes; component_pairs would take small_dense_pairs for it).
bool interleaved(const LappeCall& call, size_t ci) {
  const size_t size = call.parts.nodes[ci].size();
  return call.solver == POSENC_LAPPE_AUTO && size >= 2 && static_cast<int64_t>(size) <= kInterleaveMax;
}

/// Component ci's index in the window, or -1.
int64_t small_window(const LappeCall& call, size_t ci) {
  for (size_t j = 0; j < call.small_comp.size(); ++j)
    if (call.small_comp[j] == static_cast<int64_t>(ci)) return static_cast<int64_t>(j);
  return -1;
}

/// The window: the next kQlLanes components from ci on that take the small dense path, reduced
/// (Householder); with values, their QL too (interleaved).
void fill_window(LappeCall& call, size_t from, bool values) {
  call.small.clear();
  call.small_lap.clear();
  call.small_comp.clear();
  const std::vector<std::vector<int32_t>>& comps = call.parts.nodes;
  for (size_t ci = from; ci < comps.size() && call.small.size() < static_cast<size_t>(kQlLanes); ++ci) {
    if (!interleaved(call, ci)) continue;
    const int64_t size = static_cast<int64_t>(comps[ci].size());
    call.small_lap.push_back(component_laplacian(call.gr, comps[ci], call.parts.local, call.laplacian));
    call.small.emplace_back(size, std::min<int64_t>(call.kc, size));
    call.small_comp.push_back(static_cast<int64_t>(ci));
    small_dense_reduce(call.small_lap.back(), call.small.back());
  }
  if (values) {
    std::vector<SmallDense*> ptrs;
    for (SmallDense& sd : call.small) ptrs.push_back(&sd);
    small_dense_values(ptrs.data(), static_cast<int64_t>(ptrs.size()));
  }
}

/// The graph, its components and the first window (reduced, no QL yet).
void lappe_prepare(LappeCall& call, const int64_t* src, const int64_t* dst, const double* weights,
                   Graph* built = nullptr) {
  GDBG("lappe start");
  if (built != nullptr)
    call.gr = std::move(*built);
  else
    call.gr = build_graph(call.num_nodes, src, dst, weights, call.num_edges, call.flags & POSENC_GRAPH_BOTH_DIRECTIONS);
  GDBG("graph built");
  // Connected components (BFS from the lowest unvisited node): the Laplacian is block diagonal,
  // so each component is solved alone and every zero eigenvalue is found.
  call.parts = connected_components(call.gr);
  GDBG("components found");
  call.small.reserve(static_cast<size_t>(kQlLanes));
  fill_window(call, 0, false);
}

/// Every component's pairs (the window's QL must have run), the k smallest overall, the outputs
/// and info.
posenc_status lappe_finish(LappeCall& call, posenc_laplacian_pe_info* info, bool want_residual) {
  const int64_t num_nodes = call.num_nodes, n = call.num_nodes, drop = call.drop;
  const int32_t k = call.k, kc = call.kc;
  const bool remap = call.remap;
  const posenc_laplacian laplacian = call.laplacian;
  double* eigvals = call.eigvals;
  double* eigvecs = call.eigvecs;
  Graph& gr = call.gr;
  const std::vector<std::vector<int32_t>>& comps = call.parts.nodes;
  // The last component that needs the adjacency (2 nodes or more): once its Laplacian is built,
  // the adjacency is freed (only gr.deg is read afterwards), so that the solve of a connected
  // graph holds one CSR matrix, not two.
  size_t last_multi = comps.size();
  for (size_t ci = comps.size(); ci-- > 0;)
    if (comps[ci].size() >= 2) {
      last_multi = ci;
      break;
    }
  // With DROP_TRIVIAL / NAN_PAD the kc pairs are computed into scratch (allocated before any
  // output is written) and copied into the outputs at the end.
  std::vector<double> sv, se;
  double* ov = eigvals;
  double* oe = eigvecs;
  if (remap) {
    sv.resize(static_cast<size_t>(kc));
    se.resize(static_cast<size_t>(num_nodes) * static_cast<size_t>(kc));
    ov = sv.data();
    oe = se.data();
  }
  // Candidates: min(k, size) smallest pairs of every component; keep the k smallest overall.
  struct Cand {
    double val;
    int32_t comp;
    int32_t col;
  };
  std::vector<Cand> cand;
  std::vector<Pairs> pairs(comps.size());
  std::vector<std::vector<double>> res(comps.size());
  SolveStats st;
  posenc_lappe_method method = POSENC_LAPPE_DENSE;
  size_t biggest = 0;
  CompCert big;  // the largest solved component's certificate
  posenc_lappe_certificate weakest = POSENC_LAPPE_CERT_DENSE;
  int64_t recoveries = 0;
  for (size_t ci = 0; ci < comps.size(); ++ci) {
    const std::vector<int32_t>& nodes = comps[ci];
    const int64_t nev = std::min<int64_t>(kc, static_cast<int64_t>(nodes.size()));
    if (nodes.size() == 1) {
      pairs[ci].val = Eigen::VectorXd::Constant(1, laplacian == POSENC_LAPLACIAN_SYM ? 1.0 : 0.0);
      pairs[ci].vec = Eigen::MatrixXd::Constant(1, 1, 1.0);
      res[ci].assign(1, 0.0);
    } else {
      st.method.clear();
      CompCert cc;
      // A component of the small dense window (its Householder reduction and QL done, possibly
      // interleaved with other components' QL): its vectors; Eigen's solver through
      // component_pairs if that path rejects its result.
      if (interleaved(call, ci) && small_window(call, ci) < 0) fill_window(call, ci, true);
      const int64_t wi = small_window(call, ci);
      Lap fresh;
      if (wi < 0) fresh = component_laplacian(gr, nodes, call.parts.local, laplacian);
      if (ci == last_multi) {
        std::vector<int64_t>().swap(gr.ptr);
        std::vector<int32_t>().swap(gr.idx);
        std::vector<double>().swap(gr.val);
      }
      const Lap& L = wi < 0 ? fresh : call.small_lap[static_cast<size_t>(wi)];
      if (wi >= 0 && small_dense_vectors(L, call.small[static_cast<size_t>(wi)], &pairs[ci])) {
        st.method = "dense";
      } else {
        POSENC_CHECK(component_pairs(L, nev, call.solver, &pairs[ci], &st, &cc));
      }
      recoveries += cc.recoveries;
      if (cert_rank(cc.kind) < cert_rank(weakest)) weakest = cc.kind;
      // A connected component's smallest eigenvalue is exactly 0 with a known null vector
      // (D^1/2 1 for L_sym, 1 for D - A): store them exactly, so that zeros of different
      // components compare equal and order by component.
      Pairs& P = pairs[ci];
      if (std::abs(P.val[0]) <= 1e-8 * L.bound) {
        Eigen::VectorXd z(L.n);
        for (int64_t j = 0; j < L.n; ++j)
          z[j] = laplacian == POSENC_LAPLACIAN_SYM ? std::sqrt(gr.deg[static_cast<size_t>(nodes[static_cast<size_t>(j)])]) : 1.0;
        z /= z.norm();
        P.val[0] = 0.0;
        P.vec.col(0) = z;
      }
      if (want_residual) res[ci] = residuals(L, P);  // info->max_residual only
      if (nodes.size() > biggest) {
        biggest = nodes.size();
        method = st.method == "shift-invert" ? POSENC_LAPPE_SHIFT_INVERT
                 : st.method == "lanczos"    ? POSENC_LAPPE_LANCZOS
                                             : POSENC_LAPPE_DENSE;
        big = cc;
      }
    }
    for (Eigen::Index j = 0; j < pairs[ci].val.size(); ++j)
      cand.push_back({pairs[ci].val[j], static_cast<int32_t>(ci), static_cast<int32_t>(j)});
  }
  // Ascending value; ties by component (lowest node first), then by order within it.
  std::stable_sort(cand.begin(), cand.end(), [](const Cand& a, const Cand& b) { return a.val < b.val; });
  // All solved: write the outputs.
  double maxres = 0.0;
  std::fill(oe, oe + n * kc, 0.0);
  for (int32_t j = 0; j < kc; ++j) {
    const Cand& cd = cand[static_cast<size_t>(j)];
    ov[j] = cd.val;
    const std::vector<int32_t>& nodes = comps[static_cast<size_t>(cd.comp)];
    const Eigen::MatrixXd& V = pairs[static_cast<size_t>(cd.comp)].vec;
    for (size_t r = 0; r < nodes.size(); ++r)
      oe[static_cast<int64_t>(nodes[r]) * kc + j] = V(static_cast<Eigen::Index>(r), cd.col);
    fix_sign(oe + j, n, kc);
    if (j >= drop && want_residual) maxres = std::max(maxres, res[static_cast<size_t>(cd.comp)][static_cast<size_t>(cd.col)]);
  }
  if (remap) {  // column j of the output is computed pair j + drop; NaN beyond the pairs computed
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int64_t j = 0; j < k; ++j) eigvals[j] = j + drop < kc ? ov[j + drop] : nan;
    for (int64_t v = 0; v < n; ++v)
      for (int64_t j = 0; j < k; ++j)
        eigvecs[v * k + j] = j + drop < kc ? oe[v * kc + j + drop] : nan;
  }
  path(method == POSENC_LAPPE_SHIFT_INVERT ? "laplacian_pe.shift_invert"
       : method == POSENC_LAPPE_LANCZOS    ? "laplacian_pe.lanczos"
                                           : "laplacian_pe.dense");
  POSENC_SHAPE("nodes=%lld edges=%lld k=%d components=%zu", (long long)n, (long long)call.num_edges, k, comps.size());
  if (info != nullptr) {
    info->method = method;
    info->components = static_cast<int64_t>(comps.size());
    info->matvecs = st.matvecs;
    info->shift_solves = st.solves;
    info->max_residual = maxres;
    if (info->struct_size >= POSENC_LAPPE_INFO_SIZE_V2) {
      info->certificate = weakest;
      info->recoveries = static_cast<int32_t>(std::min<int64_t>(recoveries, std::numeric_limits<int32_t>::max()));
      info->inertia_sigma = big.kind == POSENC_LAPPE_CERT_INERTIA ? big.sigma : 0.0;
      info->inertia_count = big.kind == POSENC_LAPPE_CERT_INERTIA ? big.below : -1;
      info->factor_nnz = big.factor_nnz;
    }
  }
  return POSENC_OK;
}

posenc_status laplacian_pe(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                           int64_t num_edges, const posenc_laplacian& laplacian_arg, int32_t k, double* eigvals,
                           double* eigvecs, posenc_laplacian_pe_info* info, bool want_residual = true) {
  LappeCall call;
  POSENC_CHECK(lappe_check(num_nodes, src, dst, weights, num_edges, laplacian_arg, k, eigvals, eigvecs, info, &call));
  POSENC_CHECK(graph_dense_check_kernels());
  return guarded([&]() -> posenc_status {
    lappe_prepare(call, src, dst, weights);
    lappe_values(&call, 1);
    return lappe_finish(call, info, want_residual);
  });
}

}  // namespace

posenc_status posenc::graph_detail::lappe_start(LappeCall* call, int64_t num_nodes, const int64_t* src,
                                                const int64_t* dst, const double* weights, int64_t num_edges,
                                                posenc_laplacian laplacian, int32_t k, uint32_t flags,
                                                double* eigvals, double* eigvecs, Graph* built) {
  posenc_laplacian_pe_info info{};
  info.struct_size = sizeof(posenc_laplacian_pe_info);
  info.solver = POSENC_LAPPE_AUTO;
  info.flags = flags;
  POSENC_CHECK(lappe_check(num_nodes, src, dst, weights, num_edges, laplacian, k, eigvals, eigvecs, &info, call));
  lappe_prepare(*call, src, dst, weights, built);
  return POSENC_OK;
}

void posenc::graph_detail::lappe_values(LappeCall* calls, int64_t count) {
  std::vector<SmallDense*> ptrs;
  for (int64_t i = 0; i < count; ++i)
    for (SmallDense& sd : calls[i].small) ptrs.push_back(&sd);
  small_dense_values(ptrs.data(), static_cast<int64_t>(ptrs.size()));
}

posenc_status posenc::graph_detail::lappe_complete(LappeCall& call) {
  return lappe_finish(call, nullptr, /*want_residual=*/false);  // the caller reads no diagnostics
}

extern "C" POSENC_API posenc_status posenc_laplacian_pe_info_init(posenc_laplacian_pe_info* info) {
  api_guard g("posenc_laplacian_pe_info_init");
  POSENC_CHECK(check_not_null(info, "info"));
  *info = posenc_laplacian_pe_info{};
  info->struct_size = sizeof(posenc_laplacian_pe_info);
  info->certificate = POSENC_LAPPE_CERT_NONE;
  info->inertia_count = -1;
  info->solver = POSENC_LAPPE_AUTO;
  info->method = POSENC_LAPPE_DENSE;
  return POSENC_OK;
}

extern "C" POSENC_API posenc_status posenc_laplacian_pe_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                           const double* weights, int64_t num_edges,
                                                           posenc_laplacian laplacian, int32_t k, double* eigvals,
                                                           double* eigvecs) {
  api_guard g("posenc_laplacian_pe_f64");
  return laplacian_pe(num_nodes, src, dst, weights, num_edges, laplacian, k, eigvals, eigvecs, nullptr);
}

extern "C" POSENC_API posenc_status posenc_laplacian_pe_ex_f64(int64_t num_nodes, const int64_t* src,
                                                              const int64_t* dst, const double* weights,
                                                              int64_t num_edges, posenc_laplacian laplacian, int32_t k,
                                                              double* eigvals, double* eigvecs,
                                                              posenc_laplacian_pe_info* info) {
  api_guard g("posenc_laplacian_pe_ex_f64");
  return laplacian_pe(num_nodes, src, dst, weights, num_edges, laplacian, k, eigvals, eigvecs, info);}
