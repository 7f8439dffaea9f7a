// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_lappe.hpp — graph family, LapPE internals shared by the driver and entry points
// (lib/graph_lappe.cpp) and the eigensolvers with their certificate (lib/graph_lappe_solve.cpp,
// lib/graph_lanczos_filter.cpp).
#pragma once

#include "lib/graph_common.hpp"

#include <Spectra/Util/SelectionRule.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace posenc {
namespace graph_detail {

constexpr double kSpectraTol = 1e-10;  // Spectra's relative Ritz tolerance (every LapPE solve)

/// eig.compute, with Spectra's own failures (it throws std::logic_error / std::runtime_error,
/// e.g. "TridiagEigen: eigen decomposition failed" on a non-finite Ritz matrix) turned into "not
/// converged": the solver's info() stays NotComputed, so the caller takes its not-converged path
/// (another solver, or NOT_CONVERGED) instead of the call failing with INTERNAL.
/// std::bad_alloc still propagates (OUT_OF_MEMORY).
template <class Solver>
void spectra_compute(Solver& eig, Spectra::SortRule selection, int64_t maxit, Spectra::SortRule sorting) {
  try {
    eig.compute(selection, maxit, kSpectraTol, sorting);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::logic_error&) {
  } catch (const std::runtime_error&) {
  }
}

/// POSENC_GRAPH_DEBUG=1 in the environment: GDBG prints the LapPE solver's progress
/// (factorization fill, operator applications per attempt, timestamps) to stderr; no result changes.
inline bool graph_debug() {
  static const bool on = std::getenv("POSENC_GRAPH_DEBUG") != nullptr;
  return on;
}
inline double graph_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
/// Resident set of the process in MB (Linux /proc/self/statm; 0 elsewhere), for GDBG.
inline double graph_rss_mb() {
  double mb = 0.0;
#if defined(__linux__)
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    long pages = 0, resident = 0;
    if (std::fscanf(f, "%ld %ld", &pages, &resident) == 2) mb = static_cast<double>(resident) * 4096.0 / 1048576.0;
    std::fclose(f);
  }
#endif
  return mb;
}
#define GDBG(...) do { if (::posenc::graph_detail::graph_debug()) { std::fprintf(stderr, "[graph %.3f rss %.1f MB] ", ::posenc::graph_detail::graph_now_s(), ::posenc::graph_detail::graph_rss_mb()); std::fprintf(stderr, __VA_ARGS__); std::fputc('\n', stderr); } } while (0)

/// Work counts of one LapPE call (posenc_laplacian_pe_info) and the solver that produced the
/// largest component's pairs ("dense", "lanczos" or "shift-invert").
struct SolveStats {
  int64_t matvecs = 0;
  int64_t solves = 0;  // shift-invert triangular solves
  std::string method;
};

/// How one component's result was certified.
struct CompCert {
  posenc_lappe_certificate kind = POSENC_LAPPE_CERT_DENSE;
  double sigma = 0.0;
  int64_t below = -1;
  int64_t recoveries = 0;
  int64_t factor_nnz = 0;
};

/// Strength of a certificate (larger = stronger): DENSE > INERTIA > KRYLOV > NONE.
int cert_rank(posenc_lappe_certificate c);

/// The nev smallest eigenpairs of a connected component's Laplacian (2 <= L.n, nev <= L.n),
/// certified (dense solve, Sylvester inertia count or deflated Krylov check; see
/// lib/graph_lappe_solve.cpp); solver: the caller's posenc_lappe_method. NOT_CONVERGED rather than
/// a spectrum that may miss an eigenvalue.
posenc_status component_pairs(const Lap& L, int64_t nev, posenc_lappe_method solver, Pairs* out, SolveStats* st,
                              CompCert* cert);

/// Components of 2 .. kInterleaveMax nodes (under POSENC_LAPPE_AUTO) go through a LapPE call's
/// window of kQlLanes components on the small dense path, whose QL sweeps run interleaved.
constexpr int64_t kInterleaveMax = 64;

/// One posenc_laplacian_pe(_ex)_f64 call split into stages, so that the QL sweeps of the first
/// small components of several graphs (the batched call, lib/graph_batch.cpp) run interleaved:
/// lappe_start (checks, graph, components, the Householder reductions of the first window),
/// lappe_values (the QL of every given call's window at once), lappe_complete (the remaining
/// components window by window, the k smallest pairs, the outputs). Each component's arithmetic is
/// that of small_dense_pairs alone: bitwise the single call's result.
struct LappeCall {
  // the checked arguments
  int64_t num_nodes = 0, num_edges = 0, drop = 0;
  posenc_laplacian laplacian = POSENC_LAPLACIAN_SYM;
  int32_t k = 0, kc = 0;
  bool remap = false;
  posenc_lappe_method solver = POSENC_LAPPE_AUTO;
  uint32_t flags = 0;
  double* eigvals = nullptr;
  double* eigvecs = nullptr;
  // the graph and its components
  Graph gr;
  Components parts;
  // the window: up to kQlLanes components (small_comp) on the small dense path
  std::vector<SmallDense> small;
  std::vector<Lap> small_lap;
  std::vector<int64_t> small_comp;
};

/// posenc_laplacian_pe_ex_f64's checks (info->flags = flags, solver AUTO) into *call (a non-OK
/// status with the message set, nothing else done), then the graph, its components and the first
/// window's Householder reductions. built: NULL, or build_graph(num_nodes, src, dst, weights,
/// num_edges, flags & POSENC_GRAPH_BOTH_DIRECTIONS) already built by the caller (moved from).
/// May throw std::bad_alloc.
posenc_status lappe_start(LappeCall* call, int64_t num_nodes, const int64_t* src, const int64_t* dst,
                          const double* weights, int64_t num_edges, posenc_laplacian laplacian, int32_t k,
                          uint32_t flags, double* eigvals, double* eigvecs, Graph* built = nullptr);

/// The QL of the windows of calls[0..count) together (small_dense_values).
void lappe_values(LappeCall* calls, int64_t count);

/// The rest of a started call (after lappe_values): the outputs, no diagnostics. May throw
/// std::bad_alloc.
posenc_status lappe_complete(LappeCall& call);

/// ||L v_j - lambda_j v_j||_2 for every pair.
std::vector<double> residuals(const Lap& L, const Pairs& p);
/// A deterministic pseudo-random start vector (splitmix64 of seed, entries in [-0.5, 0.5)), unit norm.
Eigen::VectorXd start_vector(int64_t n, uint64_t seed);
/// Chebyshev-filtered Lanczos (lib/graph_lanczos_filter.cpp): the nev smallest eigenpairs of L
/// from thick-restart Lanczos (ncv basis vectors, maxit restarts) on T_d(t(L)), t mapping [a, c] onto [-1, 1] with a
/// an upper bound on lambda_{nev+1} from a short Lanczos run; values are Rayleigh-Ritz values of L.
/// false (reason appended to *why) when skipped, not converged, or when the nev-th largest value
/// of the filter is not above 1 (then not provably the nev smallest). Products (d per filter
/// application) are added to st->matvecs; *bound = a on success.
bool filtered_lanczos(const Lap& L, int64_t nev, int64_t ncv, int64_t maxit, Pairs* out, SolveStats* st,
                      std::string* why, double* bound);
/// The nev largest eigenpairs of P T_d(t(L)) P (the filter of filtered_lanczos with bound a,
/// P = I - Q Q^T) from the start vector start (nullptr: a fixed pseudo-random vector); values are the
/// Rayleigh quotients of L. The KRYLOV certificate's probe after a filtered solve.
bool deflated_filtered_lanczos(const Lap& L, double a, const Eigen::MatrixXd& Q, int64_t nev, int64_t ncv,
                               int64_t maxit, const double* start, Pairs* out, SolveStats* st);

}  // namespace graph_detail
}  // namespace posenc
