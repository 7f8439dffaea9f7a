// SPDX-License-Identifier: Apache-2.0 OR MIT
/*
 * posenc/graph.h — the C ABI of posenc, graph section:
 * Laplacian eigenvector PE, random-walk structural encodings.
 *
 * posenc/posenc.h includes this header with the others; its opening comment states the
 * conventions every section follows. This header compiles alone, as C99 and as C++.
 */
#ifndef POSENC_GRAPH_H
#define POSENC_GRAPH_H

#include "posenc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================== */
/* graph — Laplacian eigenvector PE, random-walk structural encodings                        */
/* ======================================================================================== */

/* @@GRAPH-BEGIN@@ (section owned by the graph family) */

/*
 * Graph construction, shared by every function of this section
 * ------------------------------------------------------------
 * A graph is num_nodes nodes 0..num_nodes-1 and an edge list src[num_edges], dst[num_edges]
 * (int64 node ids) with optional weights[num_edges] (NULL = every weight 1). It is read as an
 * UNDIRECTED weighted graph with symmetric adjacency A:
 *  - every edge e with src[e] != dst[e] adds weights[e] to A[src][dst] AND A[dst][src], whatever
 *    its direction: duplicates (the same pair, listed in either direction, any number of times)
 *    are SUMMED, as PyG's coalesce / to_undirected(reduce="add") do. An edge list that holds every
 *    edge in both directions (PyG's edge_index convention) therefore doubles every weight, which
 *    leaves L_sym and RWSE unchanged (both are invariant to scaling all weights) but doubles the
 *    eigenvalues of the combinatorial Laplacian: pass each edge once for D - A;
 *  - self-loops (src[e] == dst[e]) are ignored;
 *  - pairs whose summed weight is 0 are dropped (they are not edges);
 *  - d_v = sum_u A[v][u] is the weighted degree; a node with d_v = 0 is isolated.
 * Errors (nothing is written): num_nodes <= 0 (empty graph) -> INVALID_ARGUMENT; num_nodes >=
 * 2^31 - 1 -> SIZE_OVERFLOW; num_edges < 0 -> INVALID_ARGUMENT; src / dst NULL with num_edges > 0
 * -> NULL_POINTER; a node id outside [0, num_nodes) -> INVALID_ARGUMENT naming src[e] / dst[e];
 * a negative, NaN or infinite weight -> INVALID_ARGUMENT naming weights[e].
 *
 * PyG compatibility flags (uint32_t bits, in posenc_laplacian_pe_info.flags and the flags
 * argument of posenc_rwse_ex_f64; a function given a bit it does not list -> INVALID_ARGUMENT
 * naming flags):
 *  - POSENC_GRAPH_BOTH_DIRECTIONS: the edge list already lists every edge in both directions
 *    (PyG's edge_index): every edge with src != dst adds weights[e] / 2 (instead of weights[e])
 *    to A[src][dst] and to A[dst][src], so A = (W + W^T) / 2 with W[u][v] the summed weights
 *    listed from u to v: W itself when the list is symmetric. D - A then has the eigenvalues of
 *    PyG's get_laplacian(normalization=None) and GraphGPS (without the flag exactly 2x theirs);
 *    L_sym and RWSE without self-loops do not change (invariant to a common weight scale). The
 *    symmetry of the list is not checked: an edge listed in one direction only counts half.
 *  - POSENC_GRAPH_KEEP_SELF_LOOPS (RWSE only): a self-loop (v, v) adds weights[e] to A[v][v]
 *    (once, with or without BOTH_DIRECTIONS) and therefore to d_v, as PyG's AddRandomWalkPE and
 *    GraphGPS's RWSE do (karate club node 0 with a self-loop: (P)_00 = 1/17 at t = 1).
 */

#define POSENC_GRAPH_BOTH_DIRECTIONS 1u /**< the edge list lists both directions: A = (W + W^T) / 2 */
#define POSENC_GRAPH_KEEP_SELF_LOOPS 2u /**< RWSE: self-loops count in A and in the degree (PyG) */
#define POSENC_LAPPE_DROP_TRIVIAL 4u    /**< LapPE: drop the first eigenpair (PyG's k + 1, drop first) */
#define POSENC_LAPPE_NAN_PAD 8u         /**< LapPE: k may exceed the pairs available: NaN columns (GraphGPS) */

/** Which graph Laplacian. */
typedef enum {
  POSENC_LAPLACIAN_SYM = 0,          /**< L_sym = I - D^-1/2 A D^-1/2, isolated node: diagonal 1
                                          (PyG get_laplacian(normalization="sym")); spectrum in [0, 2] */
  POSENC_LAPLACIAN_COMBINATORIAL = 1, /**< L = D - A; spectrum in [0, 2 max_v d_v] */
  POSENC_LAPLACIAN_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_laplacian;

/** LapPE eigensolvers (see posenc_laplacian_pe_f64 for when each is chosen). */
typedef enum {
  POSENC_LAPPE_AUTO = 0,         /**< choose per component (the default) */
  POSENC_LAPPE_DENSE = 1,        /**< Eigen SelfAdjointEigenSolver on the dense Laplacian */
  POSENC_LAPPE_SHIFT_INVERT = 2, /**< Spectra SymEigsShiftSolver, sigma < 0, sparse LDL^T */
  POSENC_LAPPE_LANCZOS = 3, /**< Spectra SymEigsSolver on a Chebyshev filter of L, else on
                                 c I - L (largest eigenpairs) */
  POSENC_LAPPE_METHOD_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_lappe_method;

/** How the k returned eigenvalues of a component were proven to be its k smallest. */
typedef enum {
  POSENC_LAPPE_CERT_NONE = 0,    /**< not certified (never returned with POSENC_OK) */
  POSENC_LAPPE_CERT_DENSE = 1,   /**< full dense decomposition (or a 1-node component): exact */
  POSENC_LAPPE_CERT_INERTIA = 2, /**< Sylvester inertia: an LDL^T of L - sigma I with sigma just
                                      below the k-th value has as many negative pivots as values
                                      returned below sigma */
  POSENC_LAPPE_CERT_KRYLOV = 3,  /**< the LDL^T would fill in beyond its limit: a Lanczos run on
                                      the orthogonal complement of the returned vectors, from a
                                      fresh start vector, found no eigenvalue below sigma
                                      (probabilistic: fails only if that start vector is almost
                                      orthogonal to a missed eigenvector) */
  POSENC_LAPPE_CERT_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_lappe_certificate;

/** Options (in) and diagnostics (out) of one posenc_laplacian_pe_ex_f64 call. */
typedef struct {
  uint32_t struct_size;       /**< sizeof(posenc_laplacian_pe_info); set by _init */
  posenc_lappe_method solver; /**< in: AUTO (default), or force one solver for every component
                                   of more than 3k nodes (smaller ones always use DENSE); a forced
                                   solver has no fallback: NOT_CONVERGED if it fails, or, for
                                   SHIFT_INVERT, if the fill-in limit rejects the factorization */
  posenc_lappe_method method; /**< out: solver used for the largest component */
  int64_t components;         /**< number of connected components (isolated nodes included) */
  int64_t matvecs;            /**< sparse products with L (Lanczos, all components; a filter
                                   application counts its degree, 16) */
  int64_t shift_solves;       /**< triangular solves with (L - sigma I) (shift-invert) */
  double max_residual;        /**< max_j ||L v_j - lambda_j v_j||_2 over the k returned pairs */
  /* ---- added in posenc 0.2 (absent, and not written, when struct_size ==
     POSENC_LAPPE_INFO_SIZE_V1) ---- */
  posenc_lappe_certificate certificate; /**< out: the weakest certificate over the components
                                             (DENSE > INERTIA > KRYLOV) */
  int32_t recoveries;        /**< out: deflated re-searches that found eigenpairs the first solve
                                  had missed (all components; 0 = the first solve was right) */
  double inertia_sigma;      /**< out: the largest component's inertia shift sigma (0 if its
                                  certificate is not INERTIA) */
  int64_t inertia_count;     /**< out: the number of eigenvalues of the largest component's
                                  Laplacian below inertia_sigma (negative LDL^T pivots); -1 if its
                                  certificate is not INERTIA */
  int64_t factor_nnz;        /**< out: nonzeros of the largest sparse factor (shift-invert LDL^T
                                  or supernodal Cholesky, or the inertia LDL^T) of the largest
                                  component; 0 if none was built */
  /* ---- added in posenc 0.3 (absent, and not read, when struct_size is POSENC_LAPPE_INFO_SIZE_V1
     or POSENC_LAPPE_INFO_SIZE_V2: flags = 0) ---- */
  uint32_t flags;            /**< in: 0 (default) or an OR of POSENC_GRAPH_BOTH_DIRECTIONS,
                                  POSENC_LAPPE_DROP_TRIVIAL, POSENC_LAPPE_NAN_PAD (see
                                  posenc_laplacian_pe_ex_f64) */
} posenc_laplacian_pe_info;

/** struct_size of a posenc 0.1 caller's posenc_laplacian_pe_info (fields up to max_residual):
 *  still accepted; the fields after max_residual are then neither read nor written. */
#define POSENC_LAPPE_INFO_SIZE_V1 ((uint32_t)offsetof(posenc_laplacian_pe_info, certificate))
/** struct_size of a posenc 0.2 caller's posenc_laplacian_pe_info (fields up to factor_nnz): still
 *  accepted; flags is then neither read nor written (0). */
#define POSENC_LAPPE_INFO_SIZE_V2 ((uint32_t)offsetof(posenc_laplacian_pe_info, flags))

/** Fills *info with struct_size = sizeof, solver = POSENC_LAPPE_AUTO and zeros (inertia_count =
 *  -1). NULL_POINTER if info is NULL. */
POSENC_API posenc_status posenc_laplacian_pe_info_init(posenc_laplacian_pe_info* info);

/** Laplacian eigenvector positional encoding (LapPE): the k smallest eigenpairs of the chosen
 *  Laplacian of the graph above.
 *
 *  Outputs: eigvals [k], ascending, INCLUDING the zero eigenvalues (GraphGPS keeps them; PyG's
 *  AddLaplacianEigenvectorPE computes k+1 and drops the first: take columns 1..k of a k+1 call).
 *  eigvecs [num_nodes, k] row-major: column j (eigvecs[v*k + j], v = 0..num_nodes-1) is a
 *  unit-norm eigenvector of eigvals[j]; the columns are orthonormal.
 *
 *  Sign rule (deterministic signs): in every column the entry of largest magnitude is positive;
 *  entries within a relative 1e-6 of that magnitude count as tied and the lowest node index
 *  among them decides. Eigenvector signs carry no meaning (Dwivedi et al. flip them at random in
 *  training; SignNet/BasisNet are sign-invariant); this only makes the output reproducible.
 *
 *  Repeated eigenvalues (grids, symmetric graphs, several components) are reported as they are,
 *  each as often as its multiplicity; the basis returned for a repeated eigenspace is ARBITRARY
 *  (any orthonormal basis of the space is equally correct), so compare eigenspaces, not columns.
 *  Disconnected graphs (REFERENCES §4): the Laplacian is block diagonal and each connected
 *  component is solved on its own, so L_sym has exactly one zero per component with >= 2 nodes
 *  (eigenvector proportional to D^1/2 1 on the component) and an isolated node contributes the
 *  eigenvalue 1 with eigenvector e_v (diagonal 1); D - A has one zero per component, isolated
 *  nodes included (eigenvector 1/sqrt(m) on the component). Every eigenvector is supported on one
 *  component (exact zeros elsewhere). Equal eigenvalues from different components are ordered by
 *  their component's lowest node id.
 *
 *  Solver (chosen automatically per component): up to 1024 nodes, or when 3k >= the component's
 *  size, a dense solver: for components of up to 512 nodes (molecules) under AUTO, Householder
 *  tridiagonalization, ALL eigenvalues of the tridiagonal by root-free implicit QL
 *  (Pal-Walker-Kahan, as LAPACK dsterf: the k smallest are never missed), the k smallest
 *  eigenvectors by inverse iteration (2 solves each, re-orthogonalized against the previous ones:
 *  LAPACK dstein's scheme) and the Householder
 *  back-transform, eigenvalues the Rayleigh quotients, each pair accepted only if ||L v - lambda
 *  v||_2 <= 1e-12 c (about a third of the work of a full decomposition); otherwise, or if a pair is
 *  rejected, Eigen's SelfAdjointEigenSolver (always with solver DENSE). Larger components use Spectra 1.0:
 *  (1) shift-invert (SymEigsShiftSolver) with sigma = -1e-6 * c/2 slightly BELOW 0 (never 0, where
 *  L is singular; close to 0 so that the small eigenvalues stay well separated after inversion)
 *  and a sparse LDL^T factor with AMD ordering (from 2e9 factorization flops on, CHOLMOD's
 *  supernodal Cholesky of L - sigma I (SuiteSparse, AMD ordering, BLAS blocks, OpenBLAS held at
 *  one thread during the call) factors and solves instead; the inertia certificate keeps the
 *  LDL^T), attempted only when its size, counted from the
 *  ordered pattern before the symbolic factorization, is at most 40x the nonzeros of L (meshes,
 *  geometric graphs; not expanders) and
 *  at most 6000 factorization flops per nonzero of L (the measured crossover: hub-heavy graphs
 *  such as package dependency or Barabasi-Albert graphs exceed it, and Lanczos is 2-7x faster
 *  on them; grids and geometric graphs stay below 4000, where shift-invert is 3-25x faster);
 *  (2) otherwise, or if (1) fails, Lanczos (SymEigsSolver, largest eigenvalues), with c = 2 for
 *  L_sym and the Gershgorin bound c = 2 max_v d_v for D - A: first on the Chebyshev filter
 *  p(L) = T_16((c + a - 2L) / (c - a)), which maps [a, c] into [-1, 1] and grows above 1 below a,
 *  with a = the (k+1)-th Ritz value of a Lanczos run of 20k products (100 to 600) without
 *  reorthogonalization (spurious copies removed; used only when a < c/2), ncv = max(2k + 1, 20),
 *  at most 50 restarts; accepted only when the k-th largest value of p exceeds 1 (+ 1e-6 +
 *  1e-9 times the largest): every eigenvalue of L in [a, c] has |p| <= 1 and p decreases below a,
 *  so the k largest values of p are those of the k smallest eigenvalues of L; the values are the
 *  Rayleigh-Ritz values of L on the k vectors. Else on c I - L, retried with a larger
 *  Krylov subspace (ncv) and more restarts; if Lanczos fails on a component where (1) was skipped
 *  for its flops only, shift-invert runs after all. info->method names the solver that succeeded. Spectra's relative tolerance is 1e-10. After
 *  convergence each pair is polished (eigenvalue = Rayleigh quotient) and accepted only if
 *  ||L v - lambda v||_2 <= 1e-9 c.
 *
 *  Certificate (iterative paths): Krylov methods can miss copies of a repeated eigenvalue and
 *  return larger eigenvalues instead, with small residuals. So, with top = the k-th value found and
 *  sigma = top - 1e-8 c, the result is accepted only when L has exactly as many eigenvalues below
 *  sigma as were returned below sigma. INERTIA (when the numeric LDL^T of L - sigma I, AMD
 *  ordering, costs <= 5e8 flops by its column counts, or when shift-invert factorized the same
 *  pattern: that analysis and storage are reused): the count is the number of negative
 *  pivots (Sylvester's law of inertia; a zero pivot moves sigma down by 0.37e-8 c, up to 4 times).
 *  KRYLOV (otherwise): a Lanczos run on the orthogonal complement of the returned vectors, from a
 *  fresh pseudo-random start vector, converged to the smallest eigenvalue there (one Ritz pair,
 *  Krylov subspace of max(2k + 1, 20) vectors; after a filtered solve, the largest eigenvalue of
 *  the same filter p there, 20 vectors: sigma < a, so a missed eigenvalue below sigma would have
 *  the largest p), must find nothing below sigma (probabilistic: a
 *  missed eigenvalue would be that smallest one). While the check fails, the returned vectors are
 *  deflated, the search goes on below sigma for blocks of max(4, k/4) pairs or more (deflated
 *  shift-invert or Lanczos from new start vectors) and every eigenpair found there replaces the
 *  largest ones;
 *  after 2k + 8 rounds, or 3 searches that find nothing while inertia says something is missing,
 *  the call returns NOT_CONVERGED. info reports the certificate, the recoveries, sigma and the
 *  count.
 *
 *  Accuracy: dense path, |lambda_j - exact| <= ~1e-13 c and residuals ~1e-14 c (checked <= 1e-12 c
 *  on the small path); iterative paths, residual <= 1e-9 c, the returned values are the k smallest to within 1e-8 c (certificate), each
 *  an eigenvalue to within its residual (Rayleigh quotient; ~residual^2 / gap when simple).
 *  Eigenvector error ~ residual / gap to the rest of the spectrum. The result is bitwise
 *  identical for any thread count and on every ISA path: the small dense path's flop loops are
 *  per-ISA kernels (wider vectors only; every sum in the scalar order, no FMA), the rest has no
 *  ISA-specific code. As for every kernel call, a POSENC_ISA that names a path this CPU cannot
 *  run -> POSENC_ERR_UNSUPPORTED (nothing written) until posenc_isa_set() is called.
 *
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, k <= 0 or
 *  k > num_nodes -> INVALID_ARGUMENT; eigvals or eigvecs NULL -> NULL_POINTER; num_nodes * k
 *  overflowing -> SIZE_OVERFLOW; no solver reaching the tolerance, or a certificate that cannot be
 *  established -> NOT_CONVERGED (nothing written), the message lists every attempt (method, nev,
 *  ncv, iteration limit, residual reached) or the inertia count against the values found.
 *
 *  Sources: Dwivedi et al., "Benchmarking Graph Neural Networks" (JMLR 2023) §C.2 LapPE;
 *  PyG AddLaplacianEigenvectorPE / get_laplacian; Rampasek et al., GraphGPS (NeurIPS 2022);
 *  Spectra 1.0 (Yixuan Qiu), ARPACK's implicitly restarted Lanczos. */
POSENC_API posenc_status posenc_laplacian_pe_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                 const double* weights, int64_t num_edges,
                                                 posenc_laplacian laplacian, int32_t k,
                                                 double* eigvals, double* eigvecs);

/** posenc_laplacian_pe_f64 with options and diagnostics in *info (may be NULL = AUTO, flags 0;
 *  else its struct_size must be sizeof(posenc_laplacian_pe_info), as set by
 *  posenc_laplacian_pe_info_init, or POSENC_LAPPE_INFO_SIZE_V1 / _V2; another struct_size or a
 *  solver outside the enum -> INVALID_ARGUMENT). The out fields of info are written on success
 *  only.
 *
 *  info->flags (PyG / GraphGPS compatibility; any other bit -> INVALID_ARGUMENT naming
 *  info->flags):
 *   - POSENC_GRAPH_BOTH_DIRECTIONS: graph construction with A = (W + W^T) / 2 (see "Graph
 *     construction"): D - A of PyG's edge_index has PyG's / GraphGPS's eigenvalues.
 *   - POSENC_LAPPE_DROP_TRIVIAL: the k + 1 smallest pairs are computed and the first (smallest,
 *     column 0) is dropped: eigvals [k], eigvecs [num_nodes, k] are pairs 1..k, as PyG's
 *     AddLaplacianEigenvectorPE(k) (eig_vecs[:, 1:k + 1]). Only ONE pair is dropped, also when the
 *     graph has several components (several zero eigenvalues), as in PyG. Needs k + 1 <= num_nodes
 *     unless NAN_PAD is set.
 *   - POSENC_LAPPE_NAN_PAD: k may exceed the number of pairs available, a = num_nodes (a =
 *     num_nodes - 1 with DROP_TRIVIAL): eigvals[j] and every eigvecs[v*k + j] for j >= a are NaN
 *     (GraphGPS's get_lap_decomp_stats pads both with NaN when N < max_freqs), columns < a as
 *     without the flag. Without it, k > a -> INVALID_ARGUMENT naming k.
 *  POSENC_GRAPH_KEEP_SELF_LOOPS is not accepted (PyG's get_laplacian removes self-loops too). */
POSENC_API posenc_status posenc_laplacian_pe_ex_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                    const double* weights, int64_t num_edges,
                                                    posenc_laplacian laplacian, int32_t k,
                                                    double* eigvals, double* eigvecs,
                                                    posenc_laplacian_pe_info* info);

/** Magnetic Laplacian positional encoding of a DIRECTED graph (MagLapPE: Geisler et al.,
 *  "Transformers Meet Directed Graphs", ICML 2023; the magnetic Laplacian of Zhang et al.,
 *  "MagNet", NeurIPS 2021): the k smallest eigenpairs of the complex Hermitian matrix
 *    L_q = I - D_s^-1/2 H D_s^-1/2 (laplacian = POSENC_LAPLACIAN_SYM) or L_q = D_s - H
 *    (POSENC_LAPLACIAN_COMBINATORIAL),  H_uv = A_s[u][v] exp(i Theta_uv),
 *  with W[u][v] the summed weights of the edges listed from u to v (src -> dst, self-loops
 *  ignored; weights NULL = all 1), the symmetrized adjacency A_s = (W + W^T) / 2, D_s =
 *  diag(sum_v A_s[u][v]) and the phase Theta_uv = 2 pi q (W[u][v] - W[v][u]) (potential q >= 0;
 *  an edge u -> v alone gives H_uv = exp(2 pi i q) / 2, a reciprocal pair a real entry). An
 *  isolated node has the diagonal entry 1 (SYM) or 0 (COMBINATORIAL), as in LapPE. q = 0 is the
 *  undirected Laplacian of A_s: posenc_laplacian_pe_f64's L_sym of the same edge list (eigvecs_im
 *  = 0), and for D - A its values with POSENC_GRAPH_BOTH_DIRECTIONS (A = A_s). For unweighted
 *  graphs L_q is periodic in q with period 1 and L_{1-q} = conj(L_q); q = 1/4 gives the largest
 *  phase difference between the two directions (Geisler et al. use q up to 1/4; their relative
 *  potential q' = q / max(1, m_dir) is left to the caller).
 *
 *  Outputs: eigvals [k], ascending (real: L_q is Hermitian; SYM: in [0, 2], D - A: in [0, 2 max_u
 *  d_u]); eigvecs_re, eigvecs_im [num_nodes, k] row-major: column j of eigvecs_re + i eigvecs_im
 *  is a unit-norm eigenvector of eigvals[j]; the columns are orthonormal (complex inner product).
 *  Phase rule (deterministic output; the phase of a complex eigenvector carries no meaning): in
 *  every column the entry of largest modulus is real and positive; entries within a relative 1e-6
 *  of that modulus count as tied and the lowest node index among them decides. The basis of a
 *  repeated eigenvalue is arbitrary, as in LapPE: compare eigenspaces (projectors).
 *
 *  Route: L_q is block diagonal over the connected components of A_s; the k smallest over all
 *  components are kept (ties ordered by component, lowest node id first). A component of n_c <=
 *  4096 nodes is solved densely (verbose path maglap_pe.dense): Householder tridiagonalization of
 *  the complex Hermitian matrix (Eigen; the tridiagonal is real), all eigenpairs of that real
 *  tridiagonal by implicit QR (every eigenvalue found, repeated ones included) and the wanted
 *  vectors back-transformed (q = 0: Eigen's real SelfAdjointEigenSolver, eigvecs_im exactly 0);
 *  cost O(n_c^3). A larger component takes the sparse route (maglap_pe.sparse, when any component
 *  does): Lanczos (Spectra) on the 2n_c x 2n_c real symmetric embedding M = [[Re L, -Im L],
 *  [Im L, Re L]] (every eigenvalue doubled) for its 2 min(k, n_c) + 2 smallest pairs. The
 *  cost of the sparse complex LDL^H of L (Eigen SimplicialLDLT, AMD ordering) is counted first,
 *  from the elimination tree and column counts of the ordered pattern (O(nnz log n) time at worst, near-linear
 *  in practice, before any symbolic factorization): while its factorization costs <= 1e3 n_c^1.5 and <= 1e12 flops
 *  (grids, meshes, near-planar graphs),
 *  shift-invert Lanczos with the shift-solve through the LDL^H of L - sigma I (sigma = -1e-6 c');
 *  otherwise (expander-like graphs) plain Lanczos on c'' I - M (c'' = Gershgorin bound of L).
 *  From each real Ritz pair [u; v] the complex u + i v (q = 0: u and v, so eigvecs_im is exactly
 *  0) spans a subspace, orthonormalized by a rank-revealing QR, and a complex Rayleigh-Ritz with
 *  L gives the pairs. Every returned pair of a sparse component has ||L v - lambda v||_2 <= 1e-7
 *  c' (c' = max(1, max diagonal of L)), and a certificate checks that no eigenvalue below the
 *  returned ones was missed: on the shift-invert variant and while the factorization costs
 *  <= 2e10 flops, by inertia (the
 *  number of negative pivots of the LDL^H of L - tau I, tau = lambda_k - 1e-8 c', Sylvester's
 *  law, must equal the number of Ritz values below tau: a proof); above, probabilistically (a
 *  Lanczos run on c'' I - M with the whole Ritz span projected out must find nothing below tau).
 *  A failed certificate restarts with a larger subspace (3 times), then NOT_CONVERGED.
 *  Accuracy: dense route |eigvals[j] - exact| <= ~1e-13 c (c = 2 for SYM, 2 max_u d_u for D - A),
 *  residuals ||L v - lambda v||_2 ~1e-14 c, eigenvector error ~1e-13 c / gap; sparse route
 *  residuals <= 1e-7 c' guaranteed (observed ~1e-14), eigenvalues observed within 4e-16 of the
 *  closed forms (directed cycles of 5000 and 20000 nodes, directed 64 x 65 tori), eigenvector error
 *  ~residual / gap; a sparse and a dense solve of the same component agree to ~1e-11 c in the
 *  eigenvalues and, for simple eigenvalues, to ~1e-6 in the phase-fixed columns. Bitwise identical
 *  for any thread count and on every ISA path (no ISA-specific code, sequential solvers).
 *
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, q < 0, NaN or
 *  infinite, k <= 0 or k > num_nodes -> INVALID_ARGUMENT; eigvals, eigvecs_re or eigvecs_im NULL
 *  -> NULL_POINTER; num_nodes * k overflowing -> SIZE_OVERFLOW; a component of 2^30 nodes or
 *  more -> UNSUPPORTED; the eigensolver failing,
 *  a sparse residual above the bound or the inertia certificate failing -> NOT_CONVERGED (never a
 *  spectrum with missing eigenvalues); an allocation failing -> OUT_OF_MEMORY.
 *
 *  Sources: Geisler et al. 2023 §3 (MagLapPE); Zhang et al. 2021 (A_s, Theta^(q)); Furutani et
 *  al. 2020 (the magnetic Laplacian for graph learning). */
POSENC_API posenc_status posenc_maglap_pe_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                              const double* weights, int64_t num_edges, posenc_laplacian laplacian,
                                              double q, int32_t k, double* eigvals, double* eigvecs_re,
                                              double* eigvecs_im);

/** Random-walk structural encoding (RWSE, Dwivedi et al. 2022 "Graph Neural Networks with
 *  Learnable Structural and Positional Representations"; PyG AddRandomWalkPE; GraphGPS):
 *  out [num_nodes, steps] row-major, out[v*steps + t-1] = (P^t)_vv for t = 1..steps, where
 *  P = D^-1 A is the random-walk matrix of the graph above: the probability that a walk from v
 *  is back at v after t steps. An isolated node has a zero row of P (PyG sets 1/0 to 0), so its
 *  encodings are all 0. Self-loops are ignored (graph construction above), unlike PyG, which
 *  keeps them in A: posenc_rwse_ex_f64 with POSENC_GRAPH_KEEP_SELF_LOOPS keeps them too.
 *
 *  Exact (no sampling, no truncation): for every node v the walk distribution r_s = e_v^T P^s is
 *  propagated over the sparse CSR for s <= ceil(steps/2), and (P^t)_vv = d_v sum_u
 *  (P^a)_vu (P^b)_vu / d_u with a = ceil(t/2), b = floor(t/2) (reversibility: D P^b is
 *  symmetric), so only the ceil(steps/2)-hop ball of v is visited. Sources are taken in BFS order
 *  and propagated 8 at a time (their balls overlap; each edge visit updates 8 lanes). Cost
 *  O(sum over v of the edges within ceil(steps/2) hops of v); no dense matrix. Blocks are split
 *  over threads in fixed tiles: bitwise identical for any thread count and every ISA path. Graphs
 *  of at most 64 nodes (molecules) propagate all sources at once instead, on the calling thread:
 *  source v in lane v of n rows of n (rounded up to 8) lanes, each row summing its CSR row, and
 *  the same meet in the middle (sum over u = 0..n-1 of (P^a)_vu ((P^b)_vu / d_u)); cost
 *  O(ceil(steps/2) (nnz + n) n); that loop is a per-ISA kernel (wider vectors over the lanes, sums
 *  in the same order, no FMA: the same bits on every path). A POSENC_ISA that names a path this CPU
 *  cannot run -> POSENC_ERR_UNSUPPORTED (nothing written), as for every kernel call.
 *
 *  Accuracy: values lie in [0, 1]; absolute error <= 1e-14 against dense matrix powers (tests).
 *  Memory: the graph's CSR, per-thread walk scratch, and one [num_nodes, steps] result buffer that
 *  is copied into out at the end (so that out is written only on success).
 *  Errors (nothing written): the graph errors above; steps <= 0 -> INVALID_ARGUMENT; out NULL ->
 *  NULL_POINTER; num_nodes * steps overflowing -> SIZE_OVERFLOW; an allocation failing ->
 *  OUT_OF_MEMORY (out untouched). */
POSENC_API posenc_status posenc_rwse_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                         const double* weights, int64_t num_edges, int32_t steps,
                                         double* out);

/** posenc_rwse_f64 with PyG compatibility flags: 0 (= posenc_rwse_f64, bitwise) or an OR of
 *  POSENC_GRAPH_KEEP_SELF_LOOPS and POSENC_GRAPH_BOTH_DIRECTIONS (see "Graph construction").
 *  With KEEP_SELF_LOOPS, A[v][v] = the summed self-loop weights of v, d_v includes it and
 *  out[v*steps + t-1] = (P^t)_vv with P = D^-1 A, self-loop steps included: PyG's
 *  AddRandomWalkPE and GraphGPS's get_rw_landing_probs on an edge_index with self-loops (node 0
 *  of the karate club plus one self-loop: (P)_00 = 1/17). Pass BOTH_DIRECTIONS too for PyG's
 *  edge_index (both directions listed): without it every off-diagonal weight counts twice
 *  against the self-loop's. A node whose only edges are self-loops has P_vv = 1. PyG matches for
 *  unweighted graphs; with edge weights PyG's AddRandomWalkPE uses 1/deg (not w/deg) as the
 *  entries of P and clamps degrees below 1, which posenc does not copy (P = D^-1 A exactly).
 *  Method, accuracy (<= 1e-14 absolute against dense matrix powers), determinism and memory as
 *  posenc_rwse_f64 (A's diagonal is one more CSR entry per looped node).
 *  Errors (nothing written): those of posenc_rwse_f64; flags with another bit ->
 *  INVALID_ARGUMENT naming flags. */
POSENC_API posenc_status posenc_rwse_ex_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                            const double* weights, int64_t num_edges, int32_t steps,
                                            uint32_t flags, double* out);

/** RWSE paths of posenc_rwse_auto_f64. */
typedef enum {
  POSENC_RWSE_AUTO = 0,        /**< exact below the cost threshold, else Monte-Carlo (the default) */
  POSENC_RWSE_EXACT = 1,       /**< posenc_rwse_ex_f64's exact meet-in-the-middle propagation */
  POSENC_RWSE_MONTE_CARLO = 2, /**< unbiased random-walk estimate with a stated standard error */
  POSENC_RWSE_METHOD_MAX_ENUM_ = 0x7fffffff /**< not a value: makes the enum 32-bit wide */
} posenc_rwse_method;

/** Options (in) and diagnostics (out) of one posenc_rwse_auto_f64 call. */
typedef struct {
  uint32_t struct_size;       /**< sizeof(posenc_rwse_info); set by _init */
  posenc_rwse_method method;  /**< in: AUTO (default), or EXACT / MONTE_CARLO forced */
  uint32_t flags;             /**< in: 0 or an OR of POSENC_GRAPH_KEEP_SELF_LOOPS and
                                   POSENC_GRAPH_BOTH_DIRECTIONS (as posenc_rwse_ex_f64) */
  int32_t walks;              /**< in: Monte-Carlo walks per node R; 0 = POSENC_RWSE_DEFAULT_WALKS */
  uint64_t seed;              /**< in: Monte-Carlo seed (any value; _init sets 0) */
  posenc_rwse_method method_used; /**< out: EXACT or MONTE_CARLO */
  int32_t walks_used;         /**< out: R of the Monte-Carlo path; 0 when the exact path ran */
  double std_error_bound;     /**< out: 0.5 / sqrt(R), the largest standard error of one entry
                                   (Monte-Carlo); 0 when the exact path ran */
  double exact_cost;          /**< out: the exact path's estimated work (lane-edge updates, see
                                   posenc_rwse_auto_f64) */
  double monte_carlo_cost;    /**< out: the Monte-Carlo path's work in the same unit
                                   (POSENC_RWSE_MC_STEP_COST x walk steps) */
} posenc_rwse_info;

/** Default Monte-Carlo walks per node: standard error <= 0.5 / sqrt(2500) = 0.01 for every entry. */
#define POSENC_RWSE_DEFAULT_WALKS 2500
/** The cost of one Monte-Carlo walk step in exact-path lane-edge updates (measured: 4-9 on x86-64,
 *  bench/rwse_auto_choice.py). */
#define POSENC_RWSE_MC_STEP_COST 6.0

/** Fills *info with struct_size = sizeof, method = POSENC_RWSE_AUTO, flags 0, walks 0 (the
 *  default), seed 0 and zero outputs. NULL_POINTER if info is NULL. */
POSENC_API posenc_status posenc_rwse_info_init(posenc_rwse_info* info);

/** RWSE (as posenc_rwse_ex_f64: out [num_nodes, steps] row-major, out[v*steps + t-1] = (P^t)_vv
 *  for t = 1..steps, P = D^-1 A, graph construction and info->flags as there) computed exactly or
 *  estimated by Monte-Carlo, chosen by cost. info may be NULL (AUTO, flags 0, default walks, seed
 *  0); else info->struct_size must be sizeof(posenc_rwse_info) (posenc_rwse_info_init). The out
 *  fields of info are written on success only.
 *
 *  EXACT: posenc_rwse_ex_f64's result, bitwise. Its work is modelled as W_exact = sum over its blocks of 8
 *  sources (BFS order) of 8 (sum_{s=0}^{H-1} vol(B_s) + steps |B_H|), H = ceil(steps/2), B_s the
 *  nodes within s hops of the block and vol the sum of their CSR row lengths: the lane-edge updates
 *  of the propagation plus the final products. It is estimated before running from up to 32
 *  evenly spaced blocks (exact when the graph has at most 32 blocks), by BFS to depth H - 1.
 *
 *  MONTE_CARLO (Dwivedi et al. 2022's RWSE as a random-walk return probability): from every node
 *  i with d_i > 0, R walks X_0 = i, X_1, ..., X_{steps-1}; each step goes from x to y with
 *  probability A[x][y] / d_x (weights and kept self-loops as in the exact path; a binary search on
 *  the row's cumulative weights, or a uniform pick where a row's weights are equal). The estimate
 *  is out[i*steps + t-1] = (1/R) sum_walks A[X_{t-1}][i] / d_{X_{t-1}}: the probability that the
 *  walk's t-th step lands on i given X_{t-1}, i.e. the fraction of walks back at i after t steps
 *  with the last step averaged exactly (Rao-Blackwell). It is UNBIASED (E = (P^t)_ii) and each
 *  entry, a mean of R independent terms in [0, 1] with mean p = (P^t)_ii, has standard error
 *  <= sqrt(p (1 - p) / R) <= 0.5 / sqrt(R) (the indicator estimator's; conditioning can only lower
 *  it; t = 1 is exact up to the rounding of the sum). One walk of steps - 1 moves gives every t.
 *  Entries of one node are correlated (the same walks), nodes are independent. Where R p is small
 *  the error is Poisson-like (rare walks with a large term), not Gaussian. Walks of a node advance
 *  8 at a time and the terms are summed in a fixed order. Random numbers: a counter-based
 *  generator (splitmix64) keyed by (seed, node, walk): the output depends on seed, the graph,
 *  steps and R only, and is bitwise identical for any thread count and on every ISA path (plain
 *  C++).
 *  Work W_mc = POSENC_RWSE_MC_STEP_COST x R x steps x (nodes with d > 0): O(n R steps),
 *  independent of the graph's hubs; memory O(nnz + n) plus n doubles per thread.
 *
 *  AUTO: EXACT when W_exact <= W_mc (estimated before running), else MONTE_CARLO: Monte-Carlo is
 *  taken only where it is cheaper than the exact result, at the requested budget R. The constant
 *  POSENC_RWSE_MC_STEP_COST = 6 is the ratio of the CPU time of one walk step to one exact
 *  lane-edge update, measured 4.1-8.7 (x86-64, bench/rwse_auto_choice.py: grids, Barabasi-Albert
 *  2000 and 10^4 nodes, the Debian dependency graph), so near the threshold the choice is within
 *  ~1.5x of the faster path. At R = 2500 and 16 steps: karate, grids and Barabasi-Albert 2000 stay
 *  exact; Barabasi-Albert 10^4 (2.7x faster), the 58 955-node Debian component (10x) and
 *  Barabasi-Albert 10^5 take Monte-Carlo. The choice depends on the graph, steps and R only.
 *  Isolated nodes get zeros on both paths.
 *
 *  Errors (nothing written, info untouched): those of posenc_rwse_ex_f64 (flags read from
 *  info->flags, named info->flags); info->struct_size other than sizeof(posenc_rwse_info),
 *  info->method not in the enum, info->walks < 0 -> INVALID_ARGUMENT naming the field; an
 *  allocation failing -> OUT_OF_MEMORY. */
POSENC_API posenc_status posenc_rwse_auto_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                              const double* weights, int64_t num_edges, int32_t steps,
                                              double* out, posenc_rwse_info* info);

/** Heat kernel of the graph above applied to a block of vectors: y = exp(-t L) x, where L is the
 *  chosen Laplacian (L_sym or D - A, as in posenc_laplacian_pe_f64), x and y are [num_nodes,
 *  num_vectors] row-major (column b is one vector), t >= 0 is the diffusion time (in units of
 *  1/eigenvalue of L). exp(-t L) is the graph's relative kernel: (exp(-t L))_uv is the heat at v
 *  at time t from a unit source at u (Kondor & Lafferty 2002; diffusion distance, Coifman & Lafon
 *  2006); for D - A every column sum is conserved, for L_sym the vector D^1/2 1 is.
 *
 *  Method: Chebyshev expansion on the spectral interval [0, c] (c = 2 for L_sym, c = 2 max_v d_v
 *  for D - A, as in LapPE): with z = t c / 2 and A = (2/c) L - I,
 *  exp(-t L) = sum_j eps_j (-1)^j e^-z I_j(z) T_j(A) (eps_0 = 1, eps_j = 2; I_j the modified Bessel
 *  functions, computed by Miller's backward recurrence normalized by e^z = I_0 + 2 sum I_j), the
 *  T_j(A) x by the three-term recurrence over the sparse CSR. The series is cut at the first m
 *  whose tail 2 sum_{j>m} e^-z I_j(z) is <= 1e-17; m ~ z + O(sqrt(z)), so the cost is about
 *  (t c / 2 + 8 sqrt(t c / 2) + 10) sparse products with the block (O(m nnz num_vectors)); t = 0
 *  returns x. No dense matrix, no eigendecomposition.
 *
 *  Error bound: for every column, ||y_b - exp(-t L) x_b||_2 <= error_bound * ||x_b||_2 with
 *  error_bound = tail + 4 (m + 1)^2 (r + 1) 2^-53 (r = the most nonzeros in a row of L): the
 *  truncation (|T_j| <= 1 on [-1, 1]) plus a conservative rounding term of the recurrence. The
 *  tests measure <= 3e-15 ||x|| (the dense reference's own rounding) against dense
 *  eigendecompositions for t c / 2 up to 60, and <= 1e-15 against scipy.linalg.expm.
 *  Rows are computed in fixed tiles: bitwise identical for any thread count and on every ISA path.
 *
 *  x and y may be the same array (y is written once at the end, only on success).
 *  error_bound may be NULL; else it receives the bound above.
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, t < 0, NaN or
 *  infinite, num_vectors <= 0, a non-finite x[i] -> INVALID_ARGUMENT (naming t / num_vectors /
 *  x[i]); x or y NULL -> NULL_POINTER; num_nodes * num_vectors overflowing -> SIZE_OVERFLOW; an
 *  allocation failing -> OUT_OF_MEMORY. */
POSENC_API posenc_status posenc_heat_kernel_apply_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                      const double* weights, int64_t num_edges,
                                                      posenc_laplacian laplacian, double t, const double* x,
                                                      int64_t num_vectors, double* y, double* error_bound);

/** LapPE and RWSE of many graphs in one call (a dataset, or PyG's Batch): num_graphs graphs in
 *  PyG's Batch layout. Graph g has the nodes node_ptr[g] .. node_ptr[g+1]-1 (GLOBAL ids, as in
 *  Batch.edge_index; node_ptr is Batch.ptr, [num_graphs + 1]) and the edges edge_ptr[g] ..
 *  edge_ptr[g+1]-1 of src / dst / weights (edge_ptr [num_graphs + 1]; the edges of a graph are
 *  contiguous, as in a Batch). Each graph is read as in "Graph construction" above (ids local to
 *  the graph: src[e] - node_ptr[g]).
 *
 *  Outputs (row-major; N = node_ptr[num_graphs]):
 *   - k > 0: eigvals [num_graphs, k], eigvecs [N, k]: row g of eigvals and rows node_ptr[g] ..
 *     node_ptr[g+1]-1 of eigvecs are graph g's posenc_laplacian_pe_f64 result (same Laplacian,
 *     zero eigenvalues, sign rule and component handling). A graph with n_g < k nodes has n_g
 *     pairs: eigvals[g, j] = NaN and eigvecs[v, j] = 0 for j >= n_g (GraphGPS pads the
 *     eigenvalues with NaN too, but its eigenvectors with NaN; no flag selects that here: set
 *     those columns to NaN after the call, or use posenc_laplacian_pe_ex_f64 with
 *     POSENC_LAPPE_NAN_PAD per graph).
 *     k = 0: no LapPE (eigvals, eigvecs may be NULL).
 *   - steps > 0: rwse [N, steps], graph g's posenc_rwse_f64 rows (bitwise equal to that call).
 *     steps = 0: no RWSE (rwse may be NULL).
 *   - graph_status [num_graphs] (may be NULL): POSENC_OK, or the status of the graph whose LapPE
 *     failed (NOT_CONVERGED; its eigvals / eigvecs entries are then NaN; the other graphs are
 *     still computed and written). The call returns the first failing graph's status and names
 *     it in the message, else POSENC_OK.
 *
 *  Method: each graph is computed by one thread, by the code of the single-graph calls: its LapPE
 *  rows are bitwise posenc_laplacian_pe_f64's (solver AUTO, so its components of up to 512 nodes
 *  take the small dense path described there), its RWSE rows bitwise posenc_rwse_f64's (the same
 *  arithmetic; for small graphs over flat per-thread scratch). Within a tile, graphs are taken in
 *  groups of 4 whose small components' QL sweeps run interleaved in one loop; each component's
 *  arithmetic is unchanged, so the rows stay bitwise the single-graph calls' for any grouping.
 *  Graphs are split over threads in fixed tiles of 16: bitwise identical for any thread count and on every ISA path (the
 *  kernels of the small dense solver and of the dense RWSE give the same bits on every path).
 *  Cost on ZINC-like molecules (15-37 nodes, k = 10, steps = 16, 1 thread): see
 *  docs/PERFORMANCE.md (about 20 microseconds per graph on a Zen 4 core, most of it the dense
 *  eigensolver).
 *
 *  Errors (nothing written): num_graphs <= 0, node_ptr[0] or edge_ptr[0] != 0, node_ptr or
 *  edge_ptr decreasing, an edge id outside its own graph's nodes (naming src[e] / dst[e] and the
 *  graph), a negative or non-finite weight, laplacian not in the enum, k < 0, steps < 0, k and
 *  steps both 0 -> INVALID_ARGUMENT; node_ptr, edge_ptr, a needed output, or src / dst (with
 *  edges) NULL -> NULL_POINTER; a graph of 2^31 - 2 or more nodes, or N * k, N * steps,
 *  num_graphs * k overflowing -> SIZE_OVERFLOW; a POSENC_ISA naming a path this CPU cannot run ->
 *  UNSUPPORTED; an allocation failing -> OUT_OF_MEMORY (nothing written: the results are staged,
 *  about one more copy of the outputs, and copied at the end).
 *
 *  Sources: PyG torch_geometric.data.Batch (ptr, edge_index layout); GraphGPS's LapPE / RWSE
 *  precomputation (Rampasek et al. 2022). */
POSENC_API posenc_status posenc_graph_batch_pe_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                   const int64_t* edge_ptr, const int64_t* src, const int64_t* dst,
                                                   const double* weights, posenc_laplacian laplacian, int32_t k,
                                                   int32_t steps, double* eigvals, double* eigvecs, double* rwse,
                                                   int32_t* graph_status);

/** posenc_graph_batch_pe_f64 with the PyG compatibility flags of the single-graph functions
 *  (flags 0 = posenc_graph_batch_pe_f64, bitwise). flags: 0 or an OR of
 *   - POSENC_GRAPH_BOTH_DIRECTIONS: both LapPE and RWSE read every graph as in "Graph
 *     construction" with that flag (PyG's edge_index, both directions listed);
 *   - POSENC_GRAPH_KEEP_SELF_LOOPS: RWSE only (LapPE ignores self-loops, as PyG's get_laplacian);
 *   - POSENC_LAPPE_DROP_TRIVIAL, POSENC_LAPPE_NAN_PAD: LapPE, as in posenc_laplacian_pe_ex_f64.
 *  Results, graph by graph (bitwise; the tests check it, on every ISA path and thread count):
 *   - rwse rows of graph g = posenc_rwse_ex_f64(n_g, its edges, steps, flags &
 *     (KEEP_SELF_LOOPS | BOTH_DIRECTIONS));
 *   - with NAN_PAD: row g of eigvals and graph g's rows of eigvecs = posenc_laplacian_pe_ex_f64(n_g,
 *     its edges, k) with info->flags = flags & (BOTH_DIRECTIONS | DROP_TRIVIAL | NAN_PAD) and
 *     solver AUTO: GraphGPS's padding (NaN eigenvalues AND eigenvectors beyond the pairs available);
 *   - without NAN_PAD: with a = n_g - (1 if DROP_TRIVIAL else 0) pairs available, the columns
 *     j < min(k, a) are that call's result with k = min(k, a), and the columns j >= a have
 *     eigvals NaN and eigvecs 0 (as posenc_graph_batch_pe_f64; a 1-node graph with DROP_TRIVIAL has
 *     no pair: every column padded).
 *  Method, accuracy, determinism, graph_status and errors as posenc_graph_batch_pe_f64; flags
 *  with another bit -> INVALID_ARGUMENT naming flags. */
POSENC_API posenc_status posenc_graph_batch_pe_ex_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                      const int64_t* edge_ptr, const int64_t* src, const int64_t* dst,
                                                      const double* weights, posenc_laplacian laplacian, int32_t k,
                                                      int32_t steps, uint32_t flags, double* eigvals, double* eigvecs,
                                                      double* rwse, int32_t* graph_status);

/** posenc_graph_batch_pe_ex_f64 with the RWSE of every graph chosen as by posenc_rwse_auto_f64
 *  (exact, or the unbiased Monte-Carlo estimator for graphs where the exact path costs more).
 *  rwse_options: NULL (AUTO, POSENC_RWSE_DEFAULT_WALKS walks, seed 0) or a posenc_rwse_info set by
 *  posenc_rwse_info_init whose in fields method, walks and seed apply to every graph; its flags
 *  field must be 0 (the flags argument applies, as in posenc_graph_batch_pe_ex_f64); it is only
 *  read (no out field is written). rwse_method_used [num_graphs] (may be NULL) receives, per graph,
 *  POSENC_RWSE_MONTE_CARLO where the estimator ran, else POSENC_RWSE_EXACT (also for graphs
 *  without nodes and when steps = 0).
 *  Results, graph by graph (bitwise; tested on every ISA path and thread count): the rwse rows of
 *  graph g = posenc_rwse_auto_f64(n_g, its edges, steps, out, info) with info->method, walks and
 *  seed from rwse_options and info->flags = flags & (KEEP_SELF_LOOPS | BOTH_DIRECTIONS): the seed
 *  keys the walks of graph g by its LOCAL node ids, so equal graphs in one batch get equal
 *  estimates; give graphs different estimates by calling per shard with different seeds. With
 *  method EXACT every rwse row equals posenc_graph_batch_pe_ex_f64's. The LapPE outputs,
 *  graph_status, accuracy of the exact rows, determinism and errors are those of
 *  posenc_graph_batch_pe_ex_f64. The Monte-Carlo rows have the standard error <= 0.5 / sqrt(R)
 *  of posenc_rwse_auto_f64 (R = the walks). Cost: AUTO evaluates the exact path's cost model per
 *  graph (a BFS to depth ceil(steps/2) - 1 from up to 32 blocks of sources), a few percent of a
 *  molecule's exact RWSE; molecules always take the exact path at the default budget (W_exact ~
 *  2e4 lane-edge updates vs W_mc ~ 6e6), so the estimator matters for batches holding large
 *  hub-heavy graphs (see posenc_rwse_auto_f64).
 *  Errors (nothing written): those of posenc_graph_batch_pe_ex_f64; rwse_options->struct_size other
 *  than sizeof(posenc_rwse_info), rwse_options->method not in the enum, rwse_options->walks < 0,
 *  rwse_options->flags != 0 -> INVALID_ARGUMENT naming the field. */
POSENC_API posenc_status posenc_graph_batch_pe_auto_f64(int64_t num_graphs, const int64_t* node_ptr,
                                                        const int64_t* edge_ptr, const int64_t* src, const int64_t* dst,
                                                        const double* weights, posenc_laplacian laplacian, int32_t k,
                                                        int32_t steps, uint32_t flags,
                                                        const posenc_rwse_info* rwse_options, double* eigvals,
                                                        double* eigvecs, double* rwse, int32_t* graph_status,
                                                        int32_t* rwse_method_used);

/** Relative random-walk probabilities (RRWP, GRIT: Ma et al., "Graph Inductive Biases in
 *  Transformers without Message Passing", ICML 2023), sparse: for every ordered node pair (i, j)
 *  at hop distance <= steps - 1 (i == j included), values[p, s] = (P^s)_ij for s = 0..steps-1,
 *  P = D^-1 A the random-walk matrix of the graph above ((P^0) = I): the probability that a walk
 *  from i is at j after s steps. Pairs farther apart have all these values 0 and are not listed.
 *  The pairs (i, i) carry the absolute part [1, (P)_ii, ..., (P^(steps-1))_ii] = [1, RWSE of
 *  posenc_rwse_f64 with steps - 1]. An isolated node has only its pair (i, i) = [1, 0, ..., 0].
 *
 *  Outputs: *num_pairs = the number of listed pairs (always written on success); pairs
 *  [num_pairs, 2] (int64 i, j) sorted by i, then j; values [num_pairs, steps] row-major. With
 *  pairs == values == NULL only *num_pairs is computed (size query); else both must hold
 *  max_pairs rows, and max_pairs < *num_pairs -> INVALID_ARGUMENT naming max_pairs (then only
 *  *num_pairs is written).
 *
 *  Method: e_i^T P^s propagated over the sparse CSR from every source (cost O(sum_i edges within
 *  steps - 1 hops of i)); sources split over threads in fixed tiles: bitwise identical for any
 *  thread count and on every ISA path. Accuracy: values in [0, 1], absolute error <= ~1e-15
 *  against dense matrix powers (tests).
 *  Errors (nothing written): the graph errors above; steps < 1 -> INVALID_ARGUMENT; num_pairs
 *  NULL, or exactly one of pairs / values NULL -> NULL_POINTER; max_pairs < 0 or too small ->
 *  INVALID_ARGUMENT; an allocation failing -> OUT_OF_MEMORY. */
POSENC_API posenc_status posenc_rrwp_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                         const double* weights, int64_t num_edges, int32_t steps,
                                         int64_t max_pairs, int64_t* num_pairs, int64_t* pairs, double* values);

/** Shortest-path distance up to a hop cap (Graphormer's spatial encoding, Ying et al. 2021),
 *  sparse: every ordered pair (i, j) with hop distance d(i, j) <= max_hops (i == j included, d =
 *  0) in the graph above, unweighted (every listed edge with src != dst is an edge; weights are
 *  not taken). Pairs farther apart or unreachable are not listed (Graphormer clips or marks them).
 *  Outputs: *num_pairs, pairs [num_pairs, 2] sorted by i then j, dist [num_pairs] (int32); size
 *  query and max_pairs as in posenc_rrwp_f64. Method: a BFS from every node, stopped at
 *  max_hops (cost O(sum_i edges within max_hops of i)); exact; sources split over threads in
 *  fixed tiles (same result for any thread count).
 *  Errors (nothing written): the graph errors above; max_hops < 1 -> INVALID_ARGUMENT; num_pairs
 *  NULL, or exactly one of pairs / dist NULL -> NULL_POINTER; max_pairs < 0 or too small ->
 *  INVALID_ARGUMENT; an allocation failing -> OUT_OF_MEMORY. */
POSENC_API posenc_status posenc_shortest_path_i32(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                  int64_t num_edges, int32_t max_hops, int64_t max_pairs,
                                                  int64_t* num_pairs, int64_t* pairs, int32_t* dist);

/** Heat-kernel diagonal (HKdiagSE of GraphGPS; Kondor & Lafferty 2002): out [num_nodes,
 *  num_times] row-major, out[v*num_times + i] = (exp(-times[i] L))_vv for the chosen Laplacian of
 *  the graph above, computed EXACTLY (to the bound below), not from truncated eigenpairs (which
 *  are off by 0.11 at k = 8 on small molecules).
 *  Method: the Chebyshev series of posenc_heat_kernel_apply_f64, exp(-tL) = sum_j eps_j (-1)^j a_j
 *  T_j(A) with A = (2/c) L - I (c the spectral bound: 2 for L_sym, twice the largest weighted
 *  degree for D - A), a_j = e^-z I_j(z), z = t c / 2, m_i terms for times[i] (truncation tail
 *  <= 1e-17; m is at most about 9 sqrt(z) + 10, e.g. 42 at z = 20). The moments mu_j(v) = (T_j(A))_vv, j <= m = max m_i,
 *  come from w_a = T_a(A) e_v, a <= H = ceil(m / 2), which lives on the a-hop ball of v:
 *  mu_{2a} = 2 <w_a, w_a> - 1, mu_{2a+1} = 2 <w_a, w_{a+1}> - mu_1 (meet in the middle, as the
 *  exact RWSE); one set of moments serves every time. Nodes go in blocks of 8 BFS-adjacent
 *  sources, each block propagated over the union of their H-hop balls B_a only: cost about
 *  sum_v sum_{a=1..H} vol(B_a(v)) multiply-adds (vol = nnz of L's rows in the ball), e.g. a
 *  1000 x 1000 grid with L_sym and times 1..20 (H = 21) in about 21 s on one core, linear in
 *  num_nodes on graphs of bounded growth; where the balls are the whole graph (hub graphs, large
 *  t c) it is about num_nodes * H * nnz(L), half the cost of ONE time of the global route
 *  (heat_apply on blocks of 32 unit vectors per time), which the environment variable
 *  POSENC_HEAT_DIAG_ROUTE=global (a test knob) still selects. Verbose path heat_kernel_diag.local
 *  (heat_kernel_diag.chebyshev for the global route).
 *  Error: |out - exact| <= error_bound for every entry (error_bound, if not NULL, receives
 *  max_i tail_i + 5 e + 2 e^2 + 2.02 N u (1 + e)^2 + (m_i + 5) u with e = 2 (H + 1)^2 (r + 4) u,
 *  u = 2^-53, r the largest row count of L (diagonal included) and N the largest ball |B_H|: the
 *  local recurrence's rounding, the inner products over the ball and the final sum; below 1e-11
 *  for t c / 2 <= 25, degree <= 8 and balls of <= 1000 nodes, growing with N on graphs whose
 *  balls are large (2e-10 at N = 10^6); docs/ACCURACY.md). Memory: per worker thread about
 *  24 N doubles of work vectors plus a copy of L restricted to the ball (about 190 MB a thread
 *  where the balls are a 10^6-node graph).
 *  Bitwise identical for any thread count and on every ISA path (plain C++ in lib/, fixed blocks).
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, num_times <= 0, a
 *  times[i] < 0, NaN or infinite -> INVALID_ARGUMENT (naming times[i]); times or out NULL ->
 *  NULL_POINTER; num_nodes * num_times overflowing -> SIZE_OVERFLOW. */
POSENC_API posenc_status posenc_heat_kernel_diag_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                     const double* weights, int64_t num_edges,
                                                     posenc_laplacian laplacian, const double* times,
                                                     int32_t num_times, double* out, double* error_bound);

/** Rows of the heat kernel for chosen source nodes: out [num_sources, num_nodes] row-major,
 *  out[s*num_nodes + v] = (exp(-t L))_{sources[s], v} (the heat at v at time t from a unit source;
 *  exp(-tL) is symmetric, so rows = columns). Method, bound (|out - exact| <= error_bound per
 *  row in the 2-norm) and determinism as posenc_heat_kernel_diag_f64, on blocks of 32 sources.
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, t < 0, NaN or
 *  infinite, num_sources <= 0, a sources[s] outside [0, num_nodes) -> INVALID_ARGUMENT; sources or
 *  out NULL -> NULL_POINTER; num_sources * num_nodes overflowing -> SIZE_OVERFLOW. */
POSENC_API posenc_status posenc_heat_kernel_rows_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                     const double* weights, int64_t num_edges,
                                                     posenc_laplacian laplacian, double t, const int64_t* sources,
                                                     int64_t num_sources, double* out, double* error_bound);

/** Diffusion distance (Coifman & Lafon 2006, with the graph heat kernel) for node pairs:
 *  out[p] = D_t(i, j) = ||exp(-t L) (e_i - e_j)||_2 = sqrt(sum_l exp(-2 t lambda_l) (phi_l(i) -
 *  phi_l(j))^2) over ALL eigenpairs of L, for (i, j) = (pairs[2p], pairs[2p+1]) (int64 [num_pairs,
 *  2]). Computed from the kernel (posenc_heat_kernel_apply_f64 on blocks of 32 vectors e_i - e_j),
 *  no eigenpairs: |out[p] - exact| <= error_bound (= sqrt(2) times the apply bound).
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, t < 0, NaN or
 *  infinite, num_pairs <= 0, a node id outside [0, num_nodes) (naming pairs[q]) ->
 *  INVALID_ARGUMENT; pairs or out NULL -> NULL_POINTER. */
POSENC_API posenc_status posenc_diffusion_distance_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                       const double* weights, int64_t num_edges,
                                                       posenc_laplacian laplacian, double t, const int64_t* pairs,
                                                       int64_t num_pairs, double* out, double* error_bound);

/** Diffusion distance from k eigenpairs (e.g. posenc_laplacian_pe_f64's output): out[p] =
 *  sqrt(sum_{j<k} exp(-2 t eigvals[j]) (eigvecs[i*k+j] - eigvecs[j'*k+j])^2) for (i, j') = pairs[p].
 *  Truncation (eigvecs orthonormal eigenvectors of L for its k smallest eigenvalues, ascending):
 *  the missing terms have eigenvalues >= eigvals[k-1] and sum to at most ||e_i - e_j||^2 = 2 times
 *  exp(-2 t eigvals[k-1]), so 0 <= D_t - out[p] <= truncation_bound = sqrt(2) exp(-t
 *  eigvals[k-1]) (0 when k = num_nodes). truncation_bound may be NULL.
 *  Errors (nothing written): num_nodes <= 0, k outside [1, num_nodes], an eigvals[j] negative,
 *  non-finite or below eigvals[j-1], t < 0 or non-finite, num_pairs <= 0, a node id outside
 *  [0, num_nodes) -> INVALID_ARGUMENT; a NULL array -> NULL_POINTER. */
POSENC_API posenc_status posenc_diffusion_distance_eig_f64(int64_t num_nodes, int32_t k, const double* eigvals,
                                                           const double* eigvecs, double t, const int64_t* pairs,
                                                           int64_t num_pairs, double* out, double* truncation_bound);

/* @@GRAPH-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_GRAPH_H */
