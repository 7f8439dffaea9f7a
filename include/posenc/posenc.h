/*
 * posenc.h — the C ABI of posenc, a library of positional-encoding kernels.
 *
 * This is the one header a C (C99), C++, Rust or Python (ctypes) caller needs.
 *
 * Conventions (see docs/CONVENTIONS.md):
 *  - Every function returns posenc_status; nothing throws or aborts across the boundary. On any
 *    status other than POSENC_OK, posenc_last_error_message() gives a thread-local sentence that
 *    names the offending argument and the rule it broke.
 *  - All arguments are validated before any output is written: on error every output buffer,
 *    including in-place buffers, is exactly as it was.
 *  - Arrays are row-major, element counts and strides are int64_t (strides in elements); shapes
 *    are written as [n, k]. Pointers need only the natural alignment of their element type.
 *  - Parameter structs start with uint32_t struct_size and have an _init function.
 *  - Results are bitwise identical for any thread count; different ISA paths agree within the
 *    documented accuracy bound of each function.
 *  - Every function may be called concurrently from many threads on different outputs.
 */
#ifndef POSENC_POSENC_H
#define POSENC_POSENC_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define POSENC_API
#elif defined(__GNUC__) || defined(__clang__)
#define POSENC_API __attribute__((visibility("default")))
#else
#define POSENC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================== */
/* Runtime                                                                                   */
/* ======================================================================================== */

/** Status returned by every posenc function. */
typedef enum {
  POSENC_OK = 0,                   /**< success */
  POSENC_ERR_NULL_POINTER = 1,     /**< a required pointer argument was NULL */
  POSENC_ERR_INVALID_ARGUMENT = 2, /**< an argument broke a documented rule (range, parity, ...) */
  POSENC_ERR_UNSUPPORTED = 3,      /**< requested ISA not available / POSENC_ISA names one that
                                        this CPU cannot run */
  POSENC_ERR_OUT_OF_MEMORY = 4,    /**< an internal allocation failed */
  POSENC_ERR_SIZE_OVERFLOW = 5,    /**< a size product (e.g. n * dim) overflows int64_t/size_t */
  POSENC_ERR_NOT_CONVERGED = 6,    /**< an iterative solver did not converge */
  POSENC_ERR_INTERNAL = 7          /**< a bug in posenc; please report it */
} posenc_status;

/** Static English name of a status, e.g. "POSENC_ERR_NULL_POINTER"; "unknown status" for values
 *  outside the enum. Never NULL. */
POSENC_API const char* posenc_status_string(posenc_status s);

/** Thread-local message of the last failed posenc call on this thread: one sentence naming the
 *  argument and the rule, e.g. "posenc_sinusoidal_f32: dim must be even and > 0 (got 7)".
 *  Every call clears it on entry, so after a successful call it is "" (never NULL). The pointer
 *  stays valid until the next posenc call on the same thread. */
POSENC_API const char* posenc_last_error_message(void);

/** Library version as MAJOR*10000 + MINOR*100 + PATCH (0.1.0 -> 100). */
POSENC_API uint32_t posenc_version(void);
/** Library version as "MAJOR.MINOR.PATCH". Never NULL. */
POSENC_API const char* posenc_version_string(void);

/** Instruction-set paths. Values are bits so that posenc_isa_available() can be a mask. */
typedef enum {
  POSENC_ISA_AUTO = 0,   /**< best available: avx512 > avx2 > scalar on x86-64, neon > scalar on aarch64 */
  POSENC_ISA_SCALAR = 1, /**< portable C++ built with baseline flags; the reference path */
  POSENC_ISA_AVX2 = 2,   /**< x86-64 AVX2 + FMA */
  POSENC_ISA_AVX512 = 4, /**< x86-64 AVX-512 F+DQ+BW+VL */
  POSENC_ISA_NEON = 8    /**< aarch64 Advanced SIMD */
} posenc_isa;

/** Bitmask of the ISA paths that are both compiled into this library and runnable on this CPU
 *  (checked with __builtin_cpu_supports, which includes the OS's register-state support).
 *  POSENC_ISA_SCALAR is always set. */
POSENC_API uint32_t posenc_isa_available(void);

/** The ISA path the kernels use now (never POSENC_ISA_AUTO). If the environment variable
 *  POSENC_ISA named a path that cannot run here, this returns the path it named; every kernel
 *  call then fails with POSENC_ERR_UNSUPPORTED until posenc_isa_set() is called. */
POSENC_API posenc_isa posenc_isa_active(void);

/** Select the ISA path for all later calls in this process. POSENC_ISA_AUTO picks the best
 *  available one. Errors: POSENC_ERR_UNSUPPORTED if isa is not in posenc_isa_available(),
 *  POSENC_ERR_INVALID_ARGUMENT if it is not a posenc_isa value; the active ISA is then unchanged.
 *  A successful call also clears an error left by an unusable POSENC_ISA value.
 *  Thread-safe; calls already running finish on the path they started with. */
POSENC_API posenc_status posenc_isa_set(posenc_isa isa);

/** "scalar", "avx2", "avx512", "neon" or "auto"; "unknown" for other values. Never NULL. */
POSENC_API const char* posenc_isa_name(posenc_isa isa);

/** Number of worker threads (a oneTBB task_arena) used by every later call; 0 = all hardware
 *  threads. Errors: POSENC_ERR_INVALID_ARGUMENT if n < 0 or n > 4096. Results never depend on the
 *  thread count: work is tiled by problem size only. */
POSENC_API posenc_status posenc_threads_set(int32_t n);
/** The current worker-thread count (>= 1). */
POSENC_API int32_t posenc_threads_get(void);

/* Environment, read once at first use:
 *   POSENC_ISA=scalar|avx2|avx512|neon|auto   initial ISA path (case-insensitive). An unknown
 *       name or a path this CPU cannot run never silently falls back: kernel calls return
 *       POSENC_ERR_UNSUPPORTED with a message naming POSENC_ISA until posenc_isa_set() is called.
 *   POSENC_NUM_THREADS=n                       initial thread count (0 or unset = all). */

/* ======================================================================================== */
/* rope — S¹: RoPE frequencies, cos/sin, rotation, sinusoidal tables, decay                  */
/* ======================================================================================== */

/* @@ROPE-BEGIN@@ (section owned by the rope family) */

/** Layout of a sinusoidal table row. */
typedef enum {
  POSENC_SINUSOIDAL_INTERLEAVED = 0, /**< Vaswani et al. 2017 §3.5: out[p, 2i] = sin(p w_i),
                                          out[p, 2i+1] = cos(p w_i) */
  POSENC_SINUSOIDAL_HALVES = 1       /**< tensor2tensor / fairseq: [sin(p w_0..) | cos(p w_0..)] */
} posenc_sinusoidal_layout;

/** Sinusoidal absolute position table (Vaswani et al. 2017, §3.5).
 *
 *  out: [n, dim] float32, row i for position positions[i] (or i when positions is NULL);
 *  w_i = base^(-2i/dim) radians per position, i = 0 .. dim/2-1, evaluated in float64.
 *  The phase p*w_i is formed exactly (double-double product, reduction modulo 2*pi in turns) and
 *  sin/cos are evaluated by a polynomial on the reduced argument in float64, then rounded to
 *  float32. Accuracy: max abs error <= 2e-7 (observed <= 6e-8, i.e. float32 rounding) against
 *  float64 sin/cos of the exactly reduced phase, for |position| <= 2^24; positions up to 2^53
 *  remain exact in the phase. Unlike fp32-phase implementations (error 1e-2 at 128K, see
 *  docs/ACCURACY.md) the error does not grow with the position.
 *
 *  Errors: NULL_POINTER (out NULL while n > 0); INVALID_ARGUMENT (n < 0, dim odd or <= 0,
 *  base <= 0 or not finite, layout not a posenc_sinusoidal_layout); SIZE_OVERFLOW (n * dim
 *  overflows). n == 0 is a no-op. */
POSENC_API posenc_status posenc_sinusoidal_f32(const int64_t* positions, int64_t n, int32_t dim,
                                               double base, posenc_sinusoidal_layout layout,
                                               float* out);

/* @@ROPE-END@@ */

/* ======================================================================================== */
/* sphere — S²: associated Legendre, spherical harmonics, addition theorem, Wigner-D         */
/* ======================================================================================== */

/* @@SPHERE-BEGIN@@ (section owned by the sphere family) */
/* @@SPHERE-END@@ */

/* ======================================================================================== */
/* features — Bochner: random Fourier / positive / PFF features, linear attention            */
/* ======================================================================================== */

/* @@FEATURES-BEGIN@@ (section owned by the features family) */
/* @@FEATURES-END@@ */

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
 */

/** Which graph Laplacian. */
typedef enum {
  POSENC_LAPLACIAN_SYM = 0,          /**< L_sym = I - D^-1/2 A D^-1/2, isolated node: diagonal 1
                                          (PyG get_laplacian(normalization="sym")); spectrum in [0, 2] */
  POSENC_LAPLACIAN_COMBINATORIAL = 1 /**< L = D - A; spectrum in [0, 2 max_v d_v] */
} posenc_laplacian;

/** LapPE eigensolvers (see posenc_laplacian_pe_f64 for when each is chosen). */
typedef enum {
  POSENC_LAPPE_AUTO = 0,         /**< choose per component (the default) */
  POSENC_LAPPE_DENSE = 1,        /**< Eigen SelfAdjointEigenSolver on the dense Laplacian */
  POSENC_LAPPE_SHIFT_INVERT = 2, /**< Spectra SymEigsShiftSolver, sigma < 0, sparse LDL^T */
  POSENC_LAPPE_LANCZOS = 3       /**< Spectra SymEigsSolver on c I - L (largest eigenpairs) */
} posenc_lappe_method;

/** Options (in) and diagnostics (out) of one posenc_laplacian_pe_ex_f64 call. */
typedef struct {
  uint32_t struct_size;       /**< sizeof(posenc_laplacian_pe_info); set by _init */
  posenc_lappe_method solver; /**< in: AUTO (default), or force one solver for every component
                                   of more than 3k nodes (smaller ones always use DENSE); a forced
                                   solver has no fallback: NOT_CONVERGED if it fails, or, for
                                   SHIFT_INVERT, if the fill-in limit rejects the factorization */
  posenc_lappe_method method; /**< out: solver used for the largest component */
  int64_t components;         /**< number of connected components (isolated nodes included) */
  int64_t matvecs;            /**< sparse products with c I - L (Lanczos, all components) */
  int64_t shift_solves;       /**< triangular solves with (L - sigma I) (shift-invert) */
  double max_residual;        /**< max_j ||L v_j - lambda_j v_j||_2 over the k returned pairs */
} posenc_laplacian_pe_info;

/** Fills *info with struct_size, solver = POSENC_LAPPE_AUTO and zeros. NULL_POINTER if info is
 *  NULL. */
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
 *  size, a dense Eigen SelfAdjointEigenSolver. Larger components use Spectra 1.0:
 *  (1) shift-invert (SymEigsShiftSolver) with sigma = -1e-3 * c/2 slightly BELOW 0 (never 0, where
 *  L is singular) and a sparse LDL^T factor with AMD ordering, attempted only when its symbolic
 *  analysis predicts at most 40x the nonzeros of L (meshes, geometric graphs; not expanders);
 *  (2) otherwise, or if (1) fails, Lanczos on c I - L (SymEigsSolver, largest eigenvalues), with
 *  c = 2 for L_sym and the Gershgorin bound c = 2 max_v d_v for D - A, retried with a larger
 *  Krylov subspace (ncv) and more restarts. Spectra's relative tolerance is 1e-10. After
 *  convergence each pair is polished (eigenvalue = Rayleigh quotient) and accepted only if
 *  ||L v - lambda v||_2 <= 1e-9 c. Krylov methods can miss a copy of a repeated eigenvalue, so the
 *  found vectors are then deflated and Lanczos looks again below the k-th value (up to 4 rounds).
 *
 *  Accuracy: dense path, |lambda_j - exact| <= ~1e-13 c and residuals ~1e-14 c; iterative paths,
 *  residual <= 1e-9 c, eigenvalue error <= residual (Rayleigh quotient; ~residual^2 / gap when
 *  simple). Eigenvector error ~ residual / gap to the rest of the spectrum. The result is bitwise
 *  identical for any thread count and on every ISA path (no ISA-specific code).
 *
 *  Errors (nothing written): the graph errors above; laplacian not in the enum, k <= 0 or
 *  k > num_nodes -> INVALID_ARGUMENT; eigvals or eigvecs NULL -> NULL_POINTER; num_nodes * k
 *  overflowing -> SIZE_OVERFLOW; no solver reaching the tolerance -> NOT_CONVERGED, the message
 *  lists every attempt (method, nev, ncv, iteration limit, residual reached).
 *
 *  Sources: Dwivedi et al., "Benchmarking Graph Neural Networks" (JMLR 2023) §C.2 LapPE;
 *  PyG AddLaplacianEigenvectorPE / get_laplacian; Rampasek et al., GraphGPS (NeurIPS 2022);
 *  Spectra 1.0 (Yixuan Qiu), ARPACK's implicitly restarted Lanczos. */
POSENC_API posenc_status posenc_laplacian_pe_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                 const double* weights, int64_t num_edges,
                                                 posenc_laplacian laplacian, int32_t k,
                                                 double* eigvals, double* eigvecs);

/** posenc_laplacian_pe_f64 with options and diagnostics in *info (may be NULL = AUTO; else its
 *  struct_size must be set, by posenc_laplacian_pe_info_init; solver outside the enum ->
 *  INVALID_ARGUMENT). The out fields of info are written on success only. */
POSENC_API posenc_status posenc_laplacian_pe_ex_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                                    const double* weights, int64_t num_edges,
                                                    posenc_laplacian laplacian, int32_t k,
                                                    double* eigvals, double* eigvecs,
                                                    posenc_laplacian_pe_info* info);

/** Random-walk structural encoding (RWSE, Dwivedi et al. 2022 "Graph Neural Networks with
 *  Learnable Structural and Positional Representations"; PyG AddRandomWalkPE; GraphGPS):
 *  out [num_nodes, steps] row-major, out[v*steps + t-1] = (P^t)_vv for t = 1..steps, where
 *  P = D^-1 A is the random-walk matrix of the graph above: the probability that a walk from v
 *  is back at v after t steps. An isolated node has a zero row of P (PyG sets 1/0 to 0), so its
 *  encodings are all 0. Self-loops are ignored (graph construction above), unlike PyG, which
 *  keeps them in A.
 *
 *  Exact (no sampling, no truncation): for every node v the walk distribution r_s = e_v^T P^s is
 *  propagated over the sparse CSR for s <= ceil(steps/2), and (P^t)_vv = d_v sum_u
 *  (P^a)_vu (P^b)_vu / d_u with a = ceil(t/2), b = floor(t/2) (reversibility: D P^b is
 *  symmetric), so only the ceil(steps/2)-hop ball of v is visited. Sources are taken in BFS order
 *  and propagated 8 at a time (their balls overlap; each edge visit updates 8 lanes). Cost
 *  O(sum over v of the edges within ceil(steps/2) hops of v); no dense matrix. Blocks are split
 *  over threads in fixed tiles: bitwise identical for any thread count and every ISA path (plain
 *  C++, no ISA-specific code).
 *
 *  Accuracy: values lie in [0, 1]; absolute error <= 1e-14 against dense matrix powers (tests).
 *  Errors (nothing written): the graph errors above; steps <= 0 -> INVALID_ARGUMENT; out NULL ->
 *  NULL_POINTER; num_nodes * steps overflowing -> SIZE_OVERFLOW. */
POSENC_API posenc_status posenc_rwse_f64(int64_t num_nodes, const int64_t* src, const int64_t* dst,
                                         const double* weights, int64_t num_edges, int32_t steps,
                                         double* out);

/* @@GRAPH-END@@ */

/* ======================================================================================== */
/* learned — learned position tables as parameters                                           */
/* ======================================================================================== */

/* @@LEARNED-BEGIN@@ (section owned by the learned family) */
/* @@LEARNED-END@@ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POSENC_POSENC_H */
