#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Prototype behind LapPE's Chebyshev-filtered Lanczos (lib/graph_lanczos_filter.cpp), in SciPy.

Run from the repository root (one thread, as the benchmarks):
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/lappe_filter_proto.py \
        [--n 100000] [--k 16] [--bounds 0.28,0.3] [--degrees 8,16,32] [--steps 100,160,250,400]

On L_sym of the networkx Barabasi-Albert graph (n nodes, 3 edges per node, seed 1; the graph of
bench/lappe_vs_scipy.py's ba:N), k smallest eigenpairs, ARPACK tolerance 1e-10:
  * plain:    eigsh(2I - L, k, which='LA')                         (bench/lappe_vs_scipy.py's anchor)
  * filtered: eigsh(p(L), k, which='LA') with p = T_d(t(L)), t(x) = ((2 + a) - 2x) / (2 - a) mapping
              [a, 2] onto [-1, 1] (|p| <= 1 there, p > 1 and decreasing below a), for every bound a
              in --bounds and degree d in --degrees; then Rayleigh-Ritz with L on the k vectors.
              Reported: CPU seconds, outer Lanczos steps (applications of p), sparse products
              (steps * d), the largest residual ||L v - lambda v|| and mu_k (the k-th value of p).
  * bounds:   for every m in --steps, the (k+1)-th Ritz value of an m-step Lanczos run on L
              (a) with full reorthogonalization (an upper bound on lambda_{k+1} by interlacing) and
              (b) without reorthogonalization, spurious copies removed (Cullum-Willoughby: numerically
              equal values once, simple values shared with T_m minus its first row and column
              dropped), the choice of the library, with the CPU time of each and the filtered solve
              (d = 16) at bound (a).
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh, LinearOperator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lappe_vs_scipy as lv  # noqa: E402  (the same graph and L_sym as the benchmark)


def plain(L, k):
    n = L.shape[0]
    B = (2.0 * sp.identity(n, format="csr") - L).tocsr()
    cnt = [0]

    def mv(x):
        cnt[0] += 1
        return B @ x
    c0 = time.process_time()
    w, _ = eigsh(LinearOperator((n, n), matvec=mv, dtype=np.float64), k, which="LA", tol=1e-10, maxiter=100000)
    return time.process_time() - c0, cnt[0], np.sort(2.0 - w)


def filtered(L, k, a, d):
    n = L.shape[0]
    al = 2.0 / (2.0 - a)
    h = (2.0 + a) / 2.0
    cnt = [0]

    def mv(x):  # T_d(t(L)) x, t(L) = al (h I - L)
        cnt[0] += 1
        y0 = x
        y1 = al * (h * x - L @ x)
        for _ in range(2, d + 1):
            y0, y1 = y1, 2.0 * al * (h * y1 - L @ y1) - y0
        return y1
    c0 = time.process_time()
    mu, U = eigsh(LinearOperator((n, n), matvec=mv, dtype=np.float64), k, which="LA", tol=1e-10, maxiter=100000)
    Q, _ = np.linalg.qr(U)
    lam, Z = np.linalg.eigh(Q.T @ (L @ Q))
    V = Q @ Z
    cpu = time.process_time() - c0
    res = np.linalg.norm(L @ V - V * lam, axis=0).max()
    return cpu, cnt[0], lam, res, mu.min()


def lanczos_ritz(L, m, reorth, seed=1):
    n = L.shape[0]
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(n)
    q /= np.linalg.norm(q)
    Q = np.zeros((m, n)) if reorth else None
    qprev = np.zeros(n)
    al, bl, b = [], [], 0.0
    for j in range(m):
        if reorth:
            Q[j] = q
        w = L @ q - b * qprev
        a_ = q @ w
        al.append(a_)
        w -= a_ * q
        if reorth:
            for _ in range(2):
                w -= Q[:j + 1].T @ (Q[:j + 1] @ w)
        b = np.linalg.norm(w)
        bl.append(b)
        qprev, q = q, w / b
    T = np.diag(al) + np.diag(bl[:-1], 1) + np.diag(bl[:-1], -1)
    th = np.linalg.eigvalsh(T)
    if reorth:
        return th
    cut = np.linalg.eigvalsh(T[1:, 1:])
    tol = 1e-10 * 2.0 * m
    kept, i = [], 0
    while i < m:
        j = i + 1
        while j < m and th[j] - th[j - 1] <= tol:
            j += 1
        if j > i + 1 or np.min(np.abs(cut - th[i])) > tol:
            kept.append(th[i])
        i = j
    return np.array(kept)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--bounds", default="0.28,0.3")
    ap.add_argument("--degrees", default="8,16,32")
    ap.add_argument("--steps", default="100,160,250,400")
    ap.add_argument("--no-plain", action="store_true")
    a = ap.parse_args()
    n, s, t = lv.ba(a.n, 3, 1)
    L = lv.lsym(n, s, t).tocsr()
    k = a.k
    if not a.no_plain:
        cpu, mv, lam = plain(L, k)
        print(f"plain eigsh(2I - L): cpu {cpu:.2f} s, products {mv}, lambda_k {lam[-1]:.6f}", flush=True)
    for bound in [float(x) for x in a.bounds.split(",") if x]:
        for d in [int(x) for x in a.degrees.split(",") if x]:
            cpu, outer, lam, res, mu_k = filtered(L, k, bound, d)
            print(f"filtered a={bound:.4f} d={d:2d}: cpu {cpu:.2f} s, steps {outer}, products {outer * d}, "
                  f"residual {res:.1e}, mu_k {mu_k:.3g}, lambda_k {lam[-1]:.6f}", flush=True)
    for m in [int(x) for x in a.steps.split(",") if x]:
        c0 = time.process_time()
        full = lanczos_ritz(L, m, True)
        c1 = time.process_time()
        kept = lanczos_ritz(L, m, False)
        c2 = time.process_time()
        cpu, outer, _, res, _ = filtered(L, k, full[k], 16)
        print(f"m={m}: theta_(k+1) full reorth {full[k]:.5f} ({c1 - c0:.2f} s), no reorth kept "
              f"{kept[k]:.5f} ({c2 - c1:.2f} s); filtered d=16 at the full-reorth bound: cpu {cpu:.2f} s, "
              f"steps {outer}, residual {res:.1e}", flush=True)


if __name__ == "__main__":
    main()
