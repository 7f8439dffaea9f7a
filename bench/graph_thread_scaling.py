#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Thread scaling of posenc's dataset- and graph-level calls through the Python binding: each call
at each thread count (posenc.threads_set(N)), wall clock, the best of --reps calls per round; the
rounds run in the order given and then in reverse, and the best over both rounds is reported with
its speed-up over the first thread count. Results of every thread count are compared bit for bit
with the first one's (posenc promises identical bits for any thread count).

    PYTHONPATH=python POSENC_LIBRARY=build/release/libposenc.so \
        /usr/bin/python3 bench/graph_thread_scaling.py [--threads 1 2 4 8 16] [--reps 2]
        [--calls batch,rwse_mc,heat_diag] [--molecules 20000] [--ba 100000] [--grid 1000]
        [--times 1,2,4,8,16]

Calls:
  * batch:     posenc.graph.graph_batch_pe of --molecules molecule-like graphs (15..37 nodes, the
               generator of bench/graph_batch_vs_numpy.py), LapPE k = 10 + RWSE 16 steps;
  * rwse_mc:   posenc.graph.rwse_auto forced to Monte-Carlo (500 walks per node, 16 steps) on a
               Barabasi-Albert graph of --ba nodes (3 edges per new node, preferential attachment
               by the repeated-endpoint list, seed 1; NumPy only);
  * heat_diag: posenc.graph.heat_kernel_diag on the --grid x --grid grid (L_sym) at --times.
Standard library + NumPy, so it runs under any Python 3 with NumPy (also the 16-core machines).
"""
import argparse
import os
import sys
import time

import numpy as np

import posenc
from posenc import graph

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_batch_vs_numpy import molecules  # noqa: E402


def barabasi_albert(n, m=3, seed=1):
    rng = np.random.default_rng(seed)
    ends = list(range(m))  # the repeated-endpoint list: a node appears once per incident edge
    src, dst = [], []
    for v in range(m, n):
        chosen = set()
        while len(chosen) < m:
            chosen.add(ends[int(rng.integers(0, len(ends)))] if len(ends) > m else int(rng.integers(0, v)))
        for u in chosen:
            src.append(v)
            dst.append(u)
            ends += [v, u]
    return n, np.array(src, np.int64), np.array(dst, np.int64)


def grid(r):
    idx = np.arange(r * r, dtype=np.int64).reshape(r, r)
    s = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    d = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return r * r, s, d


def make_calls(args):
    calls = {}
    names = args.calls.split(",")
    if "batch" in names:
        mols = molecules(args.molecules)
        sizes = np.array([m[0] for m in mols], np.int64)
        ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        ei = np.concatenate([np.stack([s + ptr[i], d + ptr[i]]) for i, (_, s, d) in enumerate(mols)], axis=1)
        ei = np.ascontiguousarray(ei, np.int64)
        calls["batch"] = (f"graph_batch_pe, {args.molecules} molecule-like graphs, LapPE k = 10 + RWSE 16",
                          lambda: graph.graph_batch_pe(ptr, ei, 10, 16))
    if "rwse_mc" in names:
        n, s, d = barabasi_albert(args.ba)
        calls["rwse_mc"] = (f"rwse_auto Monte-Carlo, Barabasi-Albert {n} nodes, 16 steps, 500 walks",
                            lambda: graph.rwse_auto(n, s, d, 16, method=graph.RwseMethod.MONTE_CARLO, walks=500))
    if "heat_diag" in names:
        n, s, d = grid(args.grid)
        ts = np.array([float(t) for t in args.times.split(",")])
        calls["heat_diag"] = (f"heat_kernel_diag, {args.grid} x {args.grid} grid, L_sym, t = {args.times}",
                              lambda: graph.heat_kernel_diag(n, s, d, ts))
    return calls


def as_arrays(r):
    if isinstance(r, tuple):
        return [a for a in r if a is not None]
    return [r]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--calls", default="batch,rwse_mc,heat_diag")
    ap.add_argument("--molecules", type=int, default=20000)
    ap.add_argument("--ba", type=int, default=100000)
    ap.add_argument("--grid", type=int, default=1000)
    ap.add_argument("--times", default="1,2,4,8,16")
    args = ap.parse_args()
    calls = make_calls(args)
    best = {c: {} for c in calls}
    ref = {}
    for order in (args.threads, list(reversed(args.threads))):
        for t in order:
            posenc.threads_set(t)
            for c, (_, fn) in calls.items():
                for _ in range(args.reps):
                    t0 = time.perf_counter()
                    r = fn()
                    dt = time.perf_counter() - t0
                    best[c][t] = min(best[c].get(t, float("inf")), dt)
                    arrs = as_arrays(r)
                    if c not in ref:
                        ref[c] = [a.copy() for a in arrs]
                    elif not all(np.array_equal(a, b, equal_nan=True) for a, b in zip(arrs, ref[c])):
                        print(f"MISMATCH: {c} at {t} threads differs from the first result", flush=True)
                print(f"{c} threads={t} best={best[c][t]:.4f}s", flush=True)
    t1 = args.threads[0]
    print("\n| call | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in args.threads) + " |")
    print("|---|" + "---|" * len(args.threads))
    for c, (label, _) in calls.items():
        row = [f"{best[c][t1] * 1e3:.0f} ms"] + [f"{best[c][t1] / best[c][t]:.2f}x" for t in args.threads[1:]]
        print(f"| {label} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
