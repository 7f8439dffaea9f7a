#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The harness behind posenc_rwse_auto_f64's AUTO choice (lib/graph_rwse.cpp): for each graph,
the exact RWSE and the Monte-Carlo estimate forced in turn, one thread, CPU seconds (medians of
interleaved runs), the cost model's W_exact and W_mc (posenc.h) and what AUTO picks. It prints the
measured cost of one walk step in exact lane-edge updates (the constant POSENC_RWSE_MC_STEP_COST)
and, per graph, the crossover budget: the walks per node below which Monte-Carlo is faster.

    /usr/bin/python3 bench/rwse_auto_choice.py [--lib build/release/libposenc.so] [--steps 16]
        [--walks 2500] [--repeats 3] [--max-exact-s 120]
        [--graphs grid:1e4,ba:2e3,ba:1e4,debian,ba:1e5] [--scipy-max-nodes 10000]

Graphs as bench/lappe_auto_choice.py (`ba`: Barabasi-Albert, 3 edges per new node, networkx
seed 1; `debian`: the largest component of data/debian-bookworm-depends.txt.gz). The exact path is
skipped where the cost model, at the ns per lane-edge update measured on the previous graphs,
predicts more than --max-exact-s CPU seconds: its time is then EXTRAPOLATED (printed with `~`).
Up to --scipy-max-nodes nodes, PyG's AddRandomWalkPE loop for large graphs (SciPy sparse: P^t by
repeated sparse products, diagonal of each) is timed too. Where exact ran, the last column gives
the Monte-Carlo estimate's largest absolute error and its RMS z-score, z = error / sqrt(p (1 - p)
/ R) (<= 1: the stated standard error is an upper bound).
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from lappe_auto_choice import debian  # noqa: E402
from lappe_vs_scipy import make_graph  # noqa: E402


def scipy_rwse(n, s, t, steps):
    """PyG AddRandomWalkPE's sparse path: adj = D^-1 A, out = adj, diag(out) per power."""
    import scipy.sparse as sp
    keep = s != t  # self-loops ignored, as posenc's default
    A = sp.coo_matrix((np.ones(int(keep.sum())), (s[keep], t[keep])), shape=(n, n))
    A = (A + A.T).tocsr()
    A.data[:] = 1.0  # duplicates: posenc sums them; the benchmark graphs have none
    d = np.asarray(A.sum(1)).ravel()
    P = sp.diags(np.where(d > 0, 1.0 / np.maximum(d, 1e-300), 0.0)) @ A
    out = np.empty((n, steps))
    M = P.copy()
    for k in range(steps):
        out[:, k] = M.diagonal()
        if k + 1 < steps:
            M = M @ P
    return out


def cpu(fn):
    c0 = time.process_time()
    r = fn()
    return time.process_time() - c0, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.path.join(ROOT, "build/release/libposenc.so"))
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--walks", type=int, default=2500)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-exact-s", type=float, default=120.0)
    ap.add_argument("--scipy-max-nodes", type=int, default=10000)
    ap.add_argument("--graphs", default="grid:1e4,ba:2e3,ba:1e4,debian,ba:1e5")
    a = ap.parse_args()
    os.environ.setdefault("POSENC_LIBRARY", a.lib)
    os.environ.setdefault("POSENC_NUM_THREADS", "1")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from posenc import graph as G  # noqa: E402
    K, R = a.steps, a.walks
    print(f"steps = {K}, walks = {R}, posenc threads {os.environ['POSENC_NUM_THREADS']}; CPU seconds, median of "
          f"{a.repeats} interleaved runs (1 where exact is extrapolated or above 10 s)")
    print("graph | nodes | edges | W_exact | W_mc / C | exact cpu s | MC cpu s | ns per lane-edge update | "
          "ns per walk step | measured C | crossover walks | AUTO picks | faster | MC max |err| (RMS z) "
          "| SciPy (PyG loop) cpu s")
    ns_unit_seen = []
    for spec in a.graphs.split(","):
        n, s, t = debian(os.path.join(ROOT, "data/debian-bookworm-depends.txt.gz")) if spec == "debian" \
            else make_graph(spec)
        # The cost model's fields (walks = 1: W_mc / R); active = nodes with d > 0 (walk starts).
        _, info = G.rwse_auto(n, s, t, K, method=G.RwseMethod.MONTE_CARLO, walks=1, info=True)
        w_exact = info["exact_cost"]
        w_mc = info["monte_carlo_cost"] * R
        deg = np.bincount(np.concatenate([s[s != t], t[s != t]]), minlength=n)
        active = int((deg > 0).sum())
        walk_steps = float(R) * K * active
        predicted = w_exact * (np.median(ns_unit_seen) if ns_unit_seen else 1.0) * 1e-9
        run_exact = predicted <= a.max_exact_s
        ex_t, mc_t = [], []
        ex_out = mc_out = None
        for rep in range(a.repeats):
            if run_exact:
                dt, ex_out = cpu(lambda: G.rwse_auto(n, s, t, K, method=G.RwseMethod.EXACT))
                ex_t.append(dt)
            dt, mc_out = cpu(lambda: G.rwse_auto(n, s, t, K, method=G.RwseMethod.MONTE_CARLO, walks=R, seed=rep))
            mc_t.append(dt)
            if max(ex_t + mc_t) > 10.0:
                break
        t_mc = float(np.median(mc_t))
        ns_step = t_mc / walk_steps * 1e9
        if run_exact:
            t_ex = float(np.median(ex_t))
            ns_unit = t_ex / w_exact * 1e9
            ns_unit_seen.append(ns_unit)
            ex_txt = f"{t_ex:.2f}"
            se = np.sqrt(ex_out * (1 - ex_out) / R)
            err = np.abs(mc_out - ex_out)
            z = err[se > 0] / se[se > 0]
            acc = f"{err.max():.4f} ({np.sqrt(np.mean(z ** 2)):.2f})"
        else:
            ns_unit = float(np.median(ns_unit_seen))
            t_ex = w_exact * ns_unit * 1e-9
            ex_txt = f"~{t_ex:.0f} (extrapolated)"
            acc = "-"
        meas_c = ns_step / ns_unit
        crossover = w_exact / (meas_c * K * active)
        pick = "exact" if w_exact <= w_mc else "Monte-Carlo"
        faster = "exact" if t_ex < t_mc else "Monte-Carlo"
        ratio = max(t_ex, t_mc) / min(t_ex, t_mc)
        sc = "-"
        if n <= a.scipy_max_nodes:
            dt, _ = cpu(lambda: scipy_rwse(n, s, t, K))
            sc = f"{dt:.2f}"
        print(f"{spec} | {n} | {len(s)} | {w_exact:.3g} | {walk_steps:.3g} | {ex_txt} | {t_mc:.2f} | {ns_unit:.2f} | "
              f"{ns_step:.2f} | {meas_c:.1f} | {crossover:.0f} | {pick} | {faster} ({ratio:.1f}x) | "
              f"{acc} | {sc}", flush=True)


if __name__ == "__main__":
    main()
