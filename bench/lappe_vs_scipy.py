#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""LapPE (k smallest eigenpairs of L_sym) with posenc vs SciPy eigsh, on the same matrices.

Run from the repository root after building the release preset:
    /usr/bin/python3 bench/lappe_vs_scipy.py [--lib build/release/libposenc.so] [--k 16] [--reps 3]
        [--graphs rgg:1e5,grid:1e4,grid:1e5,grid:1e6,ba:1e5] [--scipy si|plain|both]
        [--scipy-sigma -1e-3] [--baseline-lib OTHER/libposenc.so]

Graphs (the same generators as tests/graph_gen.hpp, bit for bit: splitmix64 points):
  * rgg:  random geometric graph, 100000 points in the unit square, mean degree 10, seed 1,
          restricted to its largest connected component (so that every solver faces one zero
          eigenvalue; posenc itself handles all components, ARPACK would miss repeated zeros);
  * grid: sqrt(N) x sqrt(N) 4-neighbour grid (grid:1e5 = 316 x 316, 99856 nodes);
  * ba:   Barabasi-Albert graph (networkx, 3 edges per new node, seed 1): hubs, heavy fill-in.
posenc is called through ctypes (posenc_laplacian_pe_ex_f64). SciPy (ARPACK) runs
  * eigsh(L, k, sigma=s, which='LM', tol=1e-10)  shift-invert with SuperLU, sigma = -1e-3 (the
    shift --scipy-sigma, default -1e-3; posenc's own shift-invert path uses -1e-6 c/2 = -1e-6 for
    L_sym: pass --scipy-sigma -1e-6 for SciPy at the same shift), and
  * eigsh(2I - L, k, which='LA', tol=1e-10)      the plain Lanczos counterpart (optional, slow:
    --plain).
Every run is a forked child process, alternating posenc and SciPy (and, with --baseline-lib,
another posenc build, loaded into the same process: an A/B of two builds in one run). Reported: medians over --reps
runs of wall and CPU seconds and of the child's peak resident memory growth (over the whole run,
which ends with the residual check in NumPy, and in parentheses up to the end of the solve),
operator applications, the largest residual ||L v - lambda v|| and the largest eigenvalue difference.
"""
import argparse
import ctypes
import os
import time

import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from scipy.sparse.linalg import eigsh, LinearOperator, splu
from scipy.spatial import cKDTree

M64 = (1 << 64) - 1


def splitmix64_stream(seed, count):
    gamma = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        s = np.uint64(seed) + gamma * np.arange(1, count + 1, dtype=np.uint64)
        z = s
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def rgg(n, mean_degree, seed):
    u = splitmix64_stream(seed, 2 * n)
    pts = np.stack([u[0::2], u[1::2]], axis=1)
    r = np.sqrt(mean_degree / (np.pi * n))
    pairs = cKDTree(pts).query_pairs(r, output_type="ndarray")
    d = pts[pairs[:, 0]] - pts[pairs[:, 1]]
    pairs = pairs[(d * d).sum(1) < r * r]  # strict, as the C++ generator
    return n, pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)


def grid(rows, cols):
    idx = np.arange(rows * cols).reshape(rows, cols)
    s = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    t = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return rows * cols, s.astype(np.int64), t.astype(np.int64)


def largest_component(n, s, t):
    A = sp.coo_matrix((np.ones(len(s)), (s, t)), shape=(n, n)).tocsr()
    ncomp, lab = csg.connected_components(A, directed=False)
    big = np.bincount(lab).argmax()
    keep = lab == big
    new = -np.ones(n, dtype=np.int64)
    new[keep] = np.arange(keep.sum())
    m = keep[s] & keep[t]
    return int(keep.sum()), new[s[m]], new[t[m]], ncomp


def lsym(n, s, t):
    A = sp.coo_matrix((np.ones(len(s)), (s, t)), shape=(n, n))
    A = (A + A.T).tocsr()
    d = np.asarray(A.sum(1)).ravel()
    isq = np.where(d > 0, 1.0 / np.sqrt(np.maximum(d, 1e-300)), 0.0)
    Dm = sp.diags(isq)
    return (sp.identity(n, format="csr") - Dm @ A @ Dm).tocsc()


class Info(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("solver", ctypes.c_int), ("method", ctypes.c_int), ("components", ctypes.c_int64),
                ("matvecs", ctypes.c_int64), ("shift_solves", ctypes.c_int64), ("max_residual", ctypes.c_double),
                ("certificate", ctypes.c_int), ("recoveries", ctypes.c_int32), ("inertia_sigma", ctypes.c_double),
                ("inertia_count", ctypes.c_int64), ("factor_nnz", ctypes.c_int64), ("flags", ctypes.c_uint32)]

SOLVERS = {"auto": 0, "dense": 1, "shift-invert": 2, "lanczos": 3}


def posenc_lappe(lib, n, s, t, k, solver="auto"):
    ev = np.empty(k)
    V = np.empty((n, k))
    info = Info()
    lib.posenc_laplacian_pe_info_init(ctypes.byref(info))
    assert info.struct_size == ctypes.sizeof(Info), "posenc_laplacian_pe_info changed: update Info"
    info.solver = SOLVERS[solver]
    p = lambda a: a.ctypes.data_as(ctypes.c_void_p)
    t0 = time.perf_counter()
    c0 = time.process_time()
    st = lib.posenc_laplacian_pe_ex_f64(ctypes.c_int64(n), p(s), p(t), None, ctypes.c_int64(len(s)), 0,
                                        ctypes.c_int32(k), p(ev), p(V), ctypes.byref(info))
    dt = time.perf_counter() - t0
    ct = time.process_time() - c0
    if st != 0:
        raise RuntimeError(lib.posenc_last_error_message().decode())
    return dt, ct, ev, V, info


def residual(L, ev, V):
    return np.linalg.norm(L @ V - V * ev, axis=0).max()


def ba(n, m, seed):
    """Barabasi-Albert preferential attachment (networkx), m edges per new node: hubs of degree
    ~sqrt(n) m, the hub-heavy case where sparse factorizations fill in."""
    import networkx as nx
    e = np.array(nx.barabasi_albert_graph(n, m, seed=seed).edges(), dtype=np.int64)
    return n, e[:, 0].copy(), e[:, 1].copy()


_BASE_KB = [0]  # the forked child's VmRSS when fn starts (in_child)


def solve_peak_mb():
    """The child's peak resident memory growth so far (call right after the solve)."""
    return (status_kb("VmHWM") - _BASE_KB[0]) / 1024.0


def in_child(fn):
    """Run fn() in a forked child; return its result dict plus the child's peak resident memory
    growth during fn (VmHWM after minus VmRSS before, /proc/self/clear_refs resets the peak)."""
    import os
    import pickle
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        out = {}
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            base = status_kb("VmRSS")
            _BASE_KB[0] = base
            out = fn()
            out["peak_mb"] = (status_kb("VmHWM") - base) / 1024.0
        except BaseException as e:  # report, do not hang the parent
            out = {"error": repr(e)}
        with os.fdopen(w, "wb") as f:
            pickle.dump(out, f)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        out = pickle.load(f)
    os.waitpid(pid, 0)
    if "error" in out:
        raise RuntimeError(out["error"])
    return out


def status_kb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def run_posenc(lib, L, n, s, t, k, solver):
    dt, ct, ev, V, info = posenc_lappe(lib, n, s, t, k, solver)
    solve_mb = solve_peak_mb()
    return {"wall": dt, "cpu": ct, "ev": ev, "res": residual(L, ev, V), "method": info.method, "solve_mb": solve_mb,
            "solves": info.shift_solves, "matvecs": info.matvecs}


def run_scipy_si(L, n, k, sigma):
    t0_ = time.perf_counter()
    c0_ = time.process_time()
    lu = splu((L - sigma * sp.identity(n, format="csc")).tocsc())
    cnt = [0]

    def mv(x):
        cnt[0] += 1
        return lu.solve(x)
    op = LinearOperator((n, n), matvec=mv, dtype=np.float64)
    w, U = eigsh(L, k, sigma=sigma, which="LM", tol=1e-10, OPinv=op)
    wall, cpu = time.perf_counter() - t0_, time.process_time() - c0_
    solve_mb = solve_peak_mb()
    order = np.argsort(w)
    w, U = w[order], U[:, order]
    return {"wall": wall, "cpu": cpu, "ev": w, "res": residual(L, w, U), "solves": cnt[0], "solve_mb": solve_mb}


def run_scipy_plain(L, n, k):
    B = (2.0 * sp.identity(n, format="csr") - L).tocsr()
    cnt = [0]

    def mv2(x):
        cnt[0] += 1
        return B @ x
    op2 = LinearOperator((n, n), matvec=mv2, dtype=np.float64)
    t0_ = time.perf_counter()
    c0_ = time.process_time()
    w2, U2 = eigsh(op2, k, which="LA", tol=1e-10, maxiter=100000)
    wall, cpu = time.perf_counter() - t0_, time.process_time() - c0_
    solve_mb = solve_peak_mb()
    order = np.argsort(2.0 - w2)
    w2, U2 = (2.0 - w2)[order], U2[:, order]
    return {"wall": wall, "cpu": cpu, "ev": w2, "res": residual(L, w2, U2), "matvecs": cnt[0], "solve_mb": solve_mb}


def make_graph(spec):
    kind, _, size = spec.partition(":")
    n = int(float(size))
    if kind == "rgg":
        n0, s0, t0 = rgg(n, 10.0, 1)
        return largest_component(n0, s0, t0)[:3]
    if kind == "grid":
        side = int(round(np.sqrt(n)))
        return grid(side, side)
    if kind == "ba":
        return ba(n, 3, 1)
    raise SystemExit(f"unknown graph {spec!r} (rgg:N, grid:N, ba:N)")


def median_of(runs, key):
    return float(np.median([r[key] for r in runs]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build/release/libposenc.so")
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--graphs", default="rgg:1e5,grid:1e5",
                    help="comma-separated rgg:N (random geometric, largest component), grid:N (sqrt(N)^2 "
                         "4-neighbour grid), ba:N (Barabasi-Albert, 3 edges per node)")
    ap.add_argument("--solver", default="auto", choices=list(SOLVERS), help="posenc's solver (info.solver)")
    ap.add_argument("--scipy", default="si", choices=["si", "plain", "both"],
                    help="SciPy side: ARPACK shift-invert with SuperLU (si), plain Lanczos on 2I - L (plain; for "
                         "hub-heavy graphs, where SuperLU fills in), or both")
    ap.add_argument("--scipy-sigma", type=float, default=-1e-3, help="SciPy's shift-invert sigma")
    ap.add_argument("--baseline-lib", default=None,
                    help="another libposenc build, run interleaved with --lib (an A/B in one process)")
    a = ap.parse_args()
    libs = {"posenc": ctypes.CDLL(os.path.abspath(a.lib), mode=ctypes.RTLD_LOCAL)}
    if a.baseline_lib:
        libs["baseline"] = ctypes.CDLL(os.path.abspath(a.baseline_lib), mode=ctypes.RTLD_LOCAL)
    for lb in libs.values():
        lb.posenc_last_error_message.restype = ctypes.c_char_p
    print(f"threads: posenc {os.environ.get('POSENC_NUM_THREADS', 'all')}; "
          f"SciPy {scipy.__version__}, NumPy {np.__version__}, k = {a.k}, tol = 1e-10, median of {a.reps}; "
          f"posenc solver {a.solver}; every run in a forked child (peak RSS growth of that child)")
    for spec in a.graphs.split(","):
        n, s, t = make_graph(spec)
        L = lsym(n, s, t)
        k = a.k
        # Interleaved: posenc, SciPy, posenc, SciPy, ...
        anchors = {"si": ["si"], "plain": ["plain"], "both": ["si", "plain"]}[a.scipy]
        runs, sr = {name: [] for name in libs}, {x: [] for x in anchors}
        for _ in range(a.reps):
            for name, lb in libs.items():
                runs[name].append(in_child(lambda: run_posenc(lb, L, n, s, t, k, a.solver)))
            for x in anchors:
                sr[x].append(in_child(lambda: run_scipy_si(L, n, k, a.scipy_sigma) if x == "si"
                                      else run_scipy_plain(L, n, k)))
        for name, rr in runs.items():
            t_, c_, m_ = median_of(rr, "wall"), median_of(rr, "cpu"), median_of(rr, "peak_mb")
            print(f"{spec}: n={n} nnz(L)={L.nnz}  {name}: {t_:.3f} s wall, {c_:.3f} s cpu, {m_:.0f} MB "
                  f"(solve {median_of(rr, 'solve_mb'):.0f} MB)  "
                  f"method={rr[-1]['method']} shift_solves={rr[-1]['solves']} matvecs={rr[-1]['matvecs']} "
                  f"max_residual={rr[-1]['res']:.2e}")
        pr = runs["posenc"]
        pt, pc, pm = median_of(pr, "wall"), median_of(pr, "cpu"), median_of(pr, "peak_mb")
        ev = pr[-1]["ev"]
        if "baseline" in runs:
            br = runs["baseline"]
            print(f"{spec}: posenc/baseline cpu {pc / median_of(br, 'cpu'):.2f}, memory "
                  f"{pm / max(median_of(br, 'peak_mb'), 1e-9):.2f}, max|dlambda| "
                  f"{np.abs(br[-1]['ev'] - ev).max():.2e}")
        for x in anchors:
            st, sc, sm = median_of(sr[x], "wall"), median_of(sr[x], "cpu"), median_of(sr[x], "peak_mb")
            what = (f"eigsh shift-invert (SuperLU, sigma={a.scipy_sigma:g})", f"solves={sr[x][-1].get('solves')}") if x == "si" else \
                   ("eigsh plain Lanczos on 2I-L", f"matvecs={sr[x][-1].get('matvecs')}")
            print(f"{spec}: scipy {what[0]}: {st:.3f} s wall, {sc:.3f} s cpu, {sm:.0f} MB "
                  f"(solve {median_of(sr[x], 'solve_mb'):.0f} MB)  {what[1]} "
                  f"max_residual={sr[x][-1]['res']:.2e}  max|dlambda|={np.abs(sr[x][-1]['ev'] - ev).max():.2e}  "
                  f"posenc/SciPy cpu {pc / sc:.2f}, wall {pt / st:.2f}, memory {pm / max(sm, 1e-9):.2f}")

if __name__ == "__main__":
    main()
