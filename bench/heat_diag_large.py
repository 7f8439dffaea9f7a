#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""HKdiagSE on large grids: posenc_heat_kernel_diag_f64 (local route, verbose path
heat_kernel_diag.local) on an R x R grid, L_sym with times 1..20 (GraphGPS's range(1, 21)) and
D - A with times 0.25..5 (the same number of Chebyshev terms: on the grid's interior D - A = 4 L_sym).

Reported per case: CPU seconds at 1 thread, wall seconds at 2 threads, CPU microseconds per node,
the returned error bound, and the largest error against closed forms in float64 with NumPy
(D - A of the grid is a Kronecker sum of two paths, diag = path_R(r) path_R(c) from the path's cosine
eigenpairs; for L_sym, rows and columns of nodes checked against numpy.linalg.eigh of the dense
Laplacian of a small grid only). Anchors, in the same process:
- the global route (POSENC_HEAT_DIAG_ROUTE=global: heat_apply on blocks of 32 unit vectors, per
  time) and the local route on an A x A grid (default 100: 10^4 nodes), CPU per node;
- accuracy on a B x B grid (default 40: <= 2000 nodes) against scipy.linalg.expm and numpy eigh.

usage: /usr/bin/python3 bench/heat_diag_large.py [--side 1000] [--anchor-side 100] [--dense-side 40]
       [--anchor-global sym|both|none]   (a side of 0 skips those rows)"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import posenc  # noqa: E402
from posenc import graph as G  # noqa: E402


def grid(r):
    idx = np.arange(r * r).reshape(r, r)
    src = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()]).astype(np.int64)
    dst = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()]).astype(np.int64)
    return src, dst


def path_diag(n, times):
    """[n, len(times)]: (exp(-t L_path))_kk, eigenvalues 2 - 2 cos(pi j / n), eigenvectors
    cos(pi j (k + 1/2) / n) with squared norm n (j = 0) or n / 2."""
    j = np.arange(n)
    lam = 2 - 2 * np.cos(np.pi * j / n)
    phi2 = np.cos(np.pi * np.outer(np.arange(n) + 0.5, j) / n) ** 2 * (2.0 / n)
    phi2[:, 0] = 1.0 / n
    return phi2 @ np.exp(-np.outer(lam, times))


def barabasi_albert(n, m, seed=1):
    """Preferential attachment: node v >= m links to m distinct earlier nodes, drawn from the list
    of edge endpoints so far (uniformly from 0..m-1 for the first)."""
    rng = np.random.default_rng(seed)
    src, dst, ends = [], [], []
    for v in range(m, n):
        chosen = set()
        while len(chosen) < m:
            chosen.add(ends[rng.integers(len(ends))] if ends else int(rng.integers(m)))
        for u in chosen:
            src.append(v)
            dst.append(u)
            ends += [u, v]
    return np.array(src, np.int64), np.array(dst, np.int64)


def dense_laplacian(r, kind):
    n = r * r
    src, dst = grid(r)
    A = np.zeros((n, n))
    A[src, dst] = 1
    A[dst, src] = 1
    d = A.sum(1)
    if kind == G.Laplacian.COMBINATORIAL:
        return np.diag(d) - A
    isq = 1 / np.sqrt(d)
    return np.eye(n) - isq[:, None] * A * isq[None, :]


def call(n, src, dst, times, kind, route=None, threads=1):
    if route:
        os.environ["POSENC_HEAT_DIAG_ROUTE"] = route
    else:
        os.environ.pop("POSENC_HEAT_DIAG_ROUTE", None)
    posenc.threads_set(threads)
    c, w = time.process_time(), time.perf_counter()
    out, bound = G.heat_kernel_diag(n, src, dst, times, laplacian=kind, error_bound=True)
    return out, bound, time.process_time() - c, time.perf_counter() - w


CASES = [("L_sym", G.Laplacian.SYM, np.arange(1.0, 21.0)),
         ("D - A", G.Laplacian.COMBINATORIAL, 0.25 * np.arange(1.0, 21.0))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", type=int, default=1000)
    ap.add_argument("--anchor-side", type=int, default=100)
    ap.add_argument("--dense-side", type=int, default=40)
    ap.add_argument("--ba", type=int, default=0,
                    help="also a Barabasi-Albert graph of this many nodes (m = 3; its balls are the whole graph), "
                         "L_sym, t = 5 and t = 1..20, both routes")
    ap.add_argument("--cases", default="sym,comb", help="Laplacians: sym (L_sym), comb (D - A)")
    ap.add_argument("--anchor-global", choices=["sym", "both", "none"], default="sym",
                    help="which Laplacians also run the global route on the anchor grid (L_sym: 2.6 min CPU)")
    a = ap.parse_args()
    print(f"uptime: {os.getloadavg()}")
    print("| grid | Laplacian | times | route | CPU s (1 thread) | wall s, CPU s (2 threads) | CPU us / node | "
          "error bound | max error vs closed form |")
    print("|---|---|---|---|---|---|---|---|---|")
    wanted = {"sym": G.Laplacian.SYM, "comb": G.Laplacian.COMBINATORIAL}
    cases = [c for c in CASES if c[1] in [wanted[x] for x in a.cases.split(",")]]
    rows = [(a.side, None, name, kind, times) for name, kind, times in cases]
    for name, kind, times in cases:
        rows.append((a.anchor_side, None, name, kind, times))
        if a.anchor_global == "both" or (a.anchor_global == "sym" and kind == G.Laplacian.SYM):
            rows.append((a.anchor_side, "global", name, kind, times))
    for side, route, name, kind, times in rows:
        if side <= 0:
            continue
        tl = f"{times[0]:g}..{times[-1]:g} ({len(times)})"
        n = side * side
        src, dst = grid(side)
        ref = None
        if kind == G.Laplacian.COMBINATORIAL:
            p = path_diag(side, times)
            ref = (p[:, None, :] * p[None, :, :]).reshape(n, len(times))
        out, bound, cpu1, _ = call(n, src, dst, times, kind, route, 1)
        cpu2, wall2 = call(n, src, dst, times, kind, route, 2)[2:] if side == a.side else (float("nan"),) * 2
        err = f"{np.abs(out - ref).max():.2e}" if ref is not None else "-"
        print(f"| {side} x {side} | {name} | {tl} | {route or 'local'} | {cpu1:.2f} | {wall2:.2f}, {cpu2:.2f} | "
              f"{1e6 * cpu1 / n:.2f} | {bound:.2e} | {err} |", flush=True)
    if a.ba > 0:
        src, dst = barabasi_albert(a.ba, 3)
        for times in (np.array([5.0]), np.arange(1.0, 21.0)):
            res = {}
            for route in ("local", "global"):
                out, bound, cpu1, _ = call(a.ba, src, dst, times, G.Laplacian.SYM, route, 1)
                res[route] = (out, cpu1)
            diff = np.abs(res["local"][0] - res["global"][0]).max()
            print(f"| Barabasi-Albert {a.ba} (m = 3) | L_sym | {times[0]:g}..{times[-1]:g} ({len(times)}) | "
                  f"local {res['local'][1]:.2f} s, global {res['global'][1]:.2f} s: "
                  f"{res['global'][1] / res['local'][1]:.1f}x | max diff {diff:.1e} |", flush=True)
    # accuracy on a small grid against dense references
    import scipy.linalg
    r = a.dense_side
    if r <= 0:
        return
    n = r * r
    src, dst = grid(r)
    print(f"\n| {r} x {r} grid | Laplacian | max abs diff vs scipy expm | vs numpy eigh | error bound |")
    print("|---|---|---|---|---|")
    for name, kind, times in cases:
        L = dense_laplacian(r, kind)
        out, bound, _, _ = call(n, src, dst, times, kind)
        lam, V = np.linalg.eigh(L)
        e_eigh = max(np.abs(out[:, i] - (V**2) @ np.exp(-t * lam)).max() for i, t in enumerate(times))
        e_expm = max(np.abs(out[:, i] - np.diag(scipy.linalg.expm(-t * L))).max() for i, t in enumerate(times))
        print(f"| | {name} | {e_expm:.2e} | {e_eigh:.2e} | {bound:.2e} |", flush=True)
    posenc.threads_set(0)


if __name__ == "__main__":
    main()
