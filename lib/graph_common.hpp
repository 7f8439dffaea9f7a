// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_common.hpp — the graph family's shared internals (lib/ only, never included by
// kernels/): argument checks, the symmetric CSR adjacency every graph function builds from an edge
// list, the Laplacian of a connected component, dense eigenpairs, the sign rule, BFS order, and
// the RWSE block propagation.
//
// Graph construction (every graph function): every listed edge (src[e], dst[e]) with src != dst
// adds weights[e] (1 when weights is NULL) to the undirected pair {src, dst}, whatever its
// direction (duplicates are summed, as PyG's coalesce / to_undirected(reduce="add") do);
// self-loops are ignored; pairs whose summed weight is 0 are dropped. The result is a symmetric
// CSR adjacency.
#pragma once

#include "kernels/graph_dense_table.hpp"
#include "lib/internal.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace posenc {
namespace graph_detail {
using namespace posenc::detail;

/// Validates a graph argument set (num_nodes, ids in range, weights finite and >= 0).
posenc_status check_graph(int64_t num_nodes, const int64_t* src, const int64_t* dst, const double* weights,
                          int64_t num_edges);

/// Reads a posenc_laplacian as a raw integer and rejects unknown values (INVALID_ARGUMENT naming
/// "laplacian").
posenc_status check_laplacian(long long raw);

/// Symmetric weighted adjacency in CSR, neighbours sorted, no zero weights, no self-loops (unless
/// built with POSENC_GRAPH_KEEP_SELF_LOOPS).
struct Graph {
  int64_t n = 0;
  std::vector<int64_t> ptr;  // [n + 1]
  std::vector<int32_t> idx;  // [nnz]
  std::vector<double> val;   // [nnz]
  std::vector<double> deg;   // [n] weighted degree (sum of the row, in column order)
};

/// flags: POSENC_GRAPH_BOTH_DIRECTIONS (every off-diagonal weight halved), POSENC_GRAPH_KEEP_SELF_LOOPS
/// (self-loops kept as diagonal entries: then the CSR is NOT free of self-loops); 0 = the default.
Graph build_graph(int64_t n, const int64_t* src, const int64_t* dst, const double* weights, int64_t m,
                  uint32_t flags = 0);

/// Laplacian of one connected component in local numbering (CSR including the diagonal).
struct Lap {
  int64_t n = 0;
  std::vector<int64_t> ptr;
  std::vector<int32_t> idx;
  std::vector<double> val;
  double bound = 2.0;  // >= lambda_max
  int64_t nnz() const { return static_cast<int64_t>(idx.size()); }
  /// y = c x - L x, parallel over fixed row tiles.
  void shifted_apply(double c, const double* x, double* y) const {
    const int64_t grain = 2048;
    parallel_tiles(tiles_of(n, grain), [&](int64_t t) {
      const int64_t r0 = t * grain, r1 = std::min(n, r0 + grain);
      const int64_t* pp = ptr.data();
      const int32_t* ci = idx.data();
      const double* cv = val.data();
      for (int64_t i = r0; i < r1; ++i) {
        // two accumulators (even / odd entries of the row): half the dependent-add latency
        double s0 = 0.0, s1 = 0.0;
        int64_t p = pp[i];
        const int64_t e = pp[i + 1];
        for (; p + 1 < e; p += 2) {
          s0 += cv[p] * x[ci[p]];
          s1 += cv[p + 1] * x[ci[p + 1]];
        }
        if (p < e) s0 += cv[p] * x[ci[p]];
        y[i] = c * x[i] - (s0 + s1);
      }
    });
  }
};

Lap component_laplacian(const Graph& g, const std::vector<int32_t>& nodes, const std::vector<int32_t>& local,
                        posenc_laplacian kind);

/// Eigenpairs of one component: values ascending, vectors as columns (local numbering).
struct Pairs {
  Eigen::VectorXd val;
  Eigen::MatrixXd vec;
};

/// The nev smallest eigenpairs of L by Eigen's dense SelfAdjointEigenSolver; false if it failed.
bool dense_pairs(const Lap& L, int64_t nev, Pairs* out);

/// Sign rule: the entry of largest magnitude is positive; entries within a relative 1e-6 of the
/// largest magnitude count as ties, and the lowest index among them decides.
void fix_sign(double* col, int64_t n, int64_t stride);

/// Nodes in BFS order (from the lowest unvisited id, neighbours in CSR order): consecutive
/// nodes are close in the graph. Depends on the graph only.
std::vector<int32_t> bfs_order(const Graph& g);

/// Connected components: nodes[c] lists component c's nodes ascending, components ordered by
/// their lowest node (BFS from the lowest unvisited id); comp[v] = v's component, local[v] = v's
/// index in nodes[comp[v]]. Depends on the graph only.
struct Components {
  std::vector<int32_t> comp, local;
  std::vector<std::vector<int32_t>> nodes;
};
Components connected_components(const Graph& g);

/// Sources propagated together by the RWSE: their walk distributions are stored as rows of kBlock
/// values, so every edge visit updates kBlock lanes (a loop the compiler vectorizes) and the index
/// work of the sparse gather is shared by kBlock sources whose neighbourhoods mostly overlap
/// (sources are taken in BFS order, so a block is a few adjacent nodes).
constexpr int kBlock = 8;

/// Per-thread scratch for the local propagation.
struct RwseScratch {
  std::vector<int32_t> local;          // [n], -1 = not reached
  std::vector<int32_t> nodes;          // reached nodes in discovery order
  std::vector<std::vector<double>> r;  // r[s][j*kBlock + b] = (P^s)_{source b, nodes[j]}
};

/// RWSE of the sources src_nodes[0..nb) (nb <= kBlock), written to out rows.
void rwse_block(const Graph& g, const double* invdeg, const int32_t* src_nodes, int nb, int32_t steps,
                RwseScratch& S, double* out);

/// Reusable scratch of rwse_graph for small graphs: the walk distributions of step s in one flat
/// slab of n rows of kBlock lanes, sized once per graph instead of grown node by node.
struct FlatRwse {
  std::vector<double> r;        // [(H + 1) * n * kBlock]
  std::vector<int64_t> rows;    // rows[s]: nodes discovered by the end of step s
  std::vector<int32_t> local;   // [n], -1 = not reached
  std::vector<int32_t> nodes;   // [n], discovery order
  std::vector<double> invdeg;   // [n]
  std::vector<int32_t> order;   // sources (BFS order, degree > 0)
};

/// Graphs of at most this many nodes take rwse_dense on every exact RWSE path (posenc_rwse(_ex),
/// posenc_rwse_auto's exact path, the batched calls), larger ones the block propagation.
constexpr int64_t kDenseRwseMax = 64;

/// Exact RWSE of a graph of n <= kDenseRwseMax nodes into out [n, steps] (rows of isolated nodes
/// are not written): every source at once, source v in lane v of n x W row-major distributions
/// (W = n rounded up to 8). Step s: row w = sum over w's CSR row (u ascending) of (x_u invdeg_u) a_wu;
/// out[v, t-1] = d_v * sum_{u=0..n-1} r_a[u][v] (r_b[u][v] invdeg_u) with a = ceil(t/2), b = floor(t/2)
/// (meet in the middle, as rwse_block). Three slabs in buf (resized here); one thread.
void rwse_dense(const Graph& g, const double* invdeg, int32_t steps, std::vector<double>& buf, double* out);

/// Exact RWSE of one whole graph into out [n, steps] on the calling thread: rwse_dense for
/// n <= kDenseRwseMax, else rwse_block's arithmetic (one template over the two scratch layouts),
/// so bitwise posenc_rwse_ex_f64's result.
void rwse_graph(const Graph& gr, int32_t steps, FlatRwse& F, RwseScratch& R, double* out);

/// posenc_rwse_auto_f64's result for one whole graph (method a posenc_rwse_method, walks >= 1 the
/// budget R, seed) into out [n, steps]: the exact path by rwse_graph, the Monte-Carlo estimator
/// as there (bitwise that call's result). Returns true if the exact path ran.
bool rwse_graph_auto(const Graph& gr, int32_t steps, int32_t method, int32_t walks, uint64_t seed, FlatRwse& F,
                     RwseScratch& R, double* out);

/// Components of 2 .. kSmallDenseMax nodes take small_dense_pairs under POSENC_LAPPE_AUTO.
constexpr int64_t kSmallDenseMax = 512;

/// The nev smallest eigenpairs of a connected component's Laplacian (2 <= L.n <= kSmallDenseMax)
/// by Householder tridiagonalization, root-free implicit QL (all eigenvalues of the tridiagonal), inverse
/// iteration for the nev smallest and the back-transform; eigenvalues are the Rayleigh quotients,
/// every residual ||L v - lambda v|| <= 1e-12 L.bound. false if not accepted (lib/graph_small_dense.cpp).
/// The stages below in one call (count = 1 in small_dense_values).
bool small_dense_pairs(const Lap& L, int64_t nev, Pairs* out);

/// One component on the small dense path between its stages (lib/graph_small_dense.cpp), so that the
/// latency-bound QL sweeps of several components (of one graph or of several graphs of a batch)
/// can run interleaved: small_dense_reduce (Householder tridiagonalization), small_dense_values
/// (QL, any number of components at once), small_dense_vectors (inverse iteration, back-transform,
/// Rayleigh quotients, residual check). Every component's arithmetic is that of small_dense_pairs
/// alone, whatever the other components of a small_dense_values call are: the result is bitwise
/// the same. One allocation (buf, zeroed); movable, not copyable.
struct SmallDense {
  SmallDense(int64_t n, int64_t nev);
  SmallDense(SmallDense&&) = default;
  SmallDense& operator=(SmallDense&&) = default;
  SmallDense(const SmallDense&) = delete;
  SmallDense& operator=(const SmallDense&) = delete;
  int64_t n, nev;
  int64_t ld, ldk;  // row strides of A, V ([n][ld]) and of the [n][ldk] blocks (kernels/graph_dense_table.hpp)
  const graph_dense_kernels_t* dk;  // the active ISA path's kernels
  double tnorm = 0.0;  // ||T||_inf of the tridiagonal
  bool ok = true;      // false once a stage failed (then small_dense_vectors returns false)
  std::vector<double> buf;
  double *A, *V, *tau, *d, *e, *p, *w, *vals, *work, *lu0, *lu1, *lu2, *mult, *piv, *Y, *lamp, *res2, *Zt;
};

/// The check of the LapPE and RWSE entry points before anything is written: the active ISA path's graph
/// dense kernels are usable (POSENC_ERR_UNSUPPORTED naming POSENC_ISA otherwise, as for every
/// kernel call). SmallDense takes its table from the active path afterwards.
posenc_status graph_dense_check_kernels();

/// The active ISA path's graph dense kernels (kernels/graph_dense_table.hpp).
const graph_dense_kernels_t* graph_dense_table();

/// Problems small_dense_values advances together (independent dependent chains in one loop).
constexpr int kQlLanes = 4;

/// Stage 1 for S = SmallDense(L.n, nev): false (S.ok = false) if the reduction is not finite.
bool small_dense_reduce(const Lap& L, SmallDense& S);

/// Stage 2: the eigenvalues of every s[j] with ok, ascending, in s[j]->vals (kQlLanes at a time).
void small_dense_values(SmallDense* const* s, int64_t count);

/// Stage 3: the nev smallest pairs into out; false if S failed a stage or a residual exceeds
/// 1e-12 L.bound.
bool small_dense_vectors(const Lap& L, SmallDense& S, Pairs* out);

/// Chebyshev coefficients of exp(-z (1 + s)) on s in [-1, 1] (see lib/graph_heat.cpp).
std::vector<double> heat_chebyshev(double z, double tol, double* tail);

/// The heat-kernel functions' check on the built Laplacian, before anything is written: every
/// entry of L and its spectral bound c finite (weights near the float64 limit can overflow a
/// weighted degree), and z = t_max c / 2 <= kHeatMaxZ (the Chebyshev series needs about
/// z + 12 sqrt(z) terms). INVALID_ARGUMENT naming the weights or t otherwise.
constexpr double kHeatMaxZ = 1e7;
posenc_status check_heat_range(const Lap& L, double t_max, const char* t_name);

/// y = exp(-tL) x for the block x [L.n, nv] row-major (y may be x) by the Chebyshev series of
/// posenc_heat_kernel_apply_f64; *error_bound receives its bound; returns the number of terms.
int64_t heat_apply(const Lap& L, double t, const double* x, int64_t nv, double* y, double* error_bound);

/// The Chebyshev series of exp(-t L) for every time of a list: coef[i][j] = eps_j (-1)^j a_j(z_i)
/// (z_i = times[i] c / 2, heat_chebyshev with tol 1e-17), tail[i] its truncation tail, m_max the
/// largest degree.
struct HeatSeries {
  std::vector<std::vector<double>> coef;
  std::vector<double> tail;
  int64_t m_max = 0;
};
HeatSeries heat_series(const Lap& L, const double* times, int32_t num_times);

/// (exp(-times[i] L))_vv into res [L.n, num_times] by local Chebyshev moments (lib/graph_heat_diag.cpp):
/// blocks of kBlock BFS-adjacent nodes, each propagated over its ceil(m_max / 2)-hop ball. L must be
/// the whole graph's Laplacian (global numbering). Returns the error bound (posenc.h).
double heat_diag_local(const Lap& L, const HeatSeries& hs, int32_t num_times, double* res);

/// The route forced by the environment variable POSENC_HEAT_DIAG_ROUTE (a test knob,
/// docs/DEVELOPING.md), read per call: 1 = "local", 2 = "global", 0 = unset or any other value
/// (the local route).
int heat_diag_route_override();

}  // namespace graph_detail
}  // namespace posenc
