// SPDX-License-Identifier: Apache-2.0 OR MIT
// lib/graph_lappe.hpp — graph family, LapPE internals shared by the driver and entry points
// (lib/graph_lappe.cpp) and the eigensolvers with their certificate (lib/graph_lappe_solve.cpp).
#pragma once

#include "lib/graph_common.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace posenc {
namespace graph_detail {

/// POSENC_GRAPH_DEBUG=1 in the environment: GDBG prints the LapPE solver's progress
/// (factorization fill, operator applications per attempt, timestamps) to stderr; no result changes.
inline bool graph_debug() {
  static const bool on = std::getenv("POSENC_GRAPH_DEBUG") != nullptr;
  return on;
}
inline double graph_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
#define GDBG(...) do { if (::posenc::graph_detail::graph_debug()) { std::fprintf(stderr, "[graph %.3f] ", ::posenc::graph_detail::graph_now_s()); std::fprintf(stderr, __VA_ARGS__); std::fputc('\n', stderr); } } while (0)

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

/// ||L v_j - lambda_j v_j||_2 for every pair.
std::vector<double> residuals(const Lap& L, const Pairs& p);

}  // namespace graph_detail
}  // namespace posenc
