#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""LapPE (k smallest eigenpairs of L_sym) with posenc vs SciPy eigsh, on the same matrices.

Run from the repository root after building the release preset:
    /usr/bin/python3 bench/lappe_vs_scipy.py [--lib build/release/libposenc.so] [--k 16] [--reps 3]

Graphs (the same generators as tests/graph_gen.hpp, bit for bit: splitmix64 points):
  * rgg:  random geometric graph, 100000 points in the unit square, mean degree 10, seed 1,
          restricted to its largest connected component (so that every solver faces one zero
          eigenvalue; posenc itself handles all components, ARPACK would miss repeated zeros);
  * grid: 316 x 316 4-neighbour grid (99856 nodes).
posenc is called through ctypes (posenc_laplacian_pe_ex_f64). SciPy (ARPACK) runs
  * eigsh(L, k, sigma=s, which='LM', tol=1e-10)  shift-invert with SuperLU, sigma = -1e-3 (the
    same shift and the same tolerance on the same transformed Ritz values as posenc's
    shift-invert path), and
  * eigsh(2I - L, k, which='LA', tol=1e-10)      the plain Lanczos counterpart (optional, slow:
    --plain).
Reported: median wall seconds over --reps runs, operator applications, the largest residual
||L v - lambda v|| and the largest eigenvalue difference between the two.
"""
import argparse
import ctypes
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
                ("matvecs", ctypes.c_int64), ("shift_solves", ctypes.c_int64), ("max_residual", ctypes.c_double)]


def posenc_lappe(lib, n, s, t, k):
    ev = np.empty(k)
    V = np.empty((n, k))
    info = Info()
    lib.posenc_laplacian_pe_info_init(ctypes.byref(info))
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build/release/libposenc.so")
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--plain", action="store_true", help="also run ARPACK without shift-invert")
    a = ap.parse_args()
    lib = ctypes.CDLL(a.lib)
    lib.posenc_last_error_message.restype = ctypes.c_char_p
    import os
    print(f"threads: posenc {os.environ.get('POSENC_NUM_THREADS', 'all')}; "
          f"SciPy {scipy.__version__}, NumPy {np.__version__}, k = {a.k}, tol = 1e-10, median of {a.reps}")
    side = int(round(np.sqrt(a.n)))
    n0, s0, t0, = rgg(a.n, 10.0, 1)
    graphs = {"rgg": largest_component(n0, s0, t0)[:3], "grid": grid(side, side)}
    for name, (n, s, t) in graphs.items():
        L = lsym(n, s, t)
        k = a.k
        times, cpus = [], []
        for _ in range(a.reps):
            dt, ct, ev, V, info = posenc_lappe(lib, n, s, t, k)
            times.append(dt)
            cpus.append(ct)
        pt, pc = float(np.median(times)), float(np.median(cpus))
        pres = residual(L, ev, V)
        print(f"{name}: n={n} nnz(L)={L.nnz}  posenc: {pt:.3f} s wall, {pc:.3f} s cpu  method={info.method} "
              f"shift_solves={info.shift_solves} matvecs={info.matvecs} max_residual={pres:.2e}")
        sigma = -1e-3
        times, cpus = [], []
        for _ in range(a.reps):
            t0_ = time.perf_counter()
            c0_ = time.process_time()
            lu = splu((L - sigma * sp.identity(n, format="csc")).tocsc())
            cnt = [0]

            def mv(x):
                cnt[0] += 1
                return lu.solve(x)
            op = LinearOperator((n, n), matvec=mv, dtype=np.float64)
            w, U = eigsh(L, k, sigma=sigma, which="LM", tol=1e-10, OPinv=op)
            times.append(time.perf_counter() - t0_)
            cpus.append(time.process_time() - c0_)
        order = np.argsort(w)
        w, U = w[order], U[:, order]
        st, sc = float(np.median(times)), float(np.median(cpus))
        print(f"{name}: scipy eigsh shift-invert (SuperLU): {st:.3f} s wall, {sc:.3f} s cpu  solves={cnt[0]} "
              f"max_residual={residual(L, w, U):.2e}  max|dlambda|={np.abs(w - ev).max():.2e}  "
              f"posenc speed-up {st / pt:.2f}x wall, {sc / pc:.2f}x cpu")
        if a.plain:
            B = (2.0 * sp.identity(n, format="csr") - L).tocsr()
            cnt = [0]

            def mv2(x):
                cnt[0] += 1
                return B @ x
            op2 = LinearOperator((n, n), matvec=mv2, dtype=np.float64)
            t0_ = time.perf_counter()
            c0_ = time.process_time()
            w2, U2 = eigsh(op2, k, which="LA", tol=1e-10, maxiter=100000)
            st2 = time.perf_counter() - t0_
            sc2 = time.process_time() - c0_
            w2 = np.sort(2.0 - w2)[:k]
            U2 = U2[:, ::-1]
            print(f"{name}: scipy eigsh plain Lanczos on 2I-L: {st2:.3f} s wall, {sc2:.3f} s cpu  matvecs={cnt[0]} "
                  f"max|dlambda|={np.abs(w2 - ev).max():.2e}  posenc speed-up {st2 / pt:.2f}x wall, "
                  f"{sc2 / pc:.2f}x cpu")


if __name__ == "__main__":
    main()
