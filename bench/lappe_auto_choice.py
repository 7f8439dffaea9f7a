#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The harness behind LapPE's AUTO solver choice (lib/graph_lappe_solve.cpp, component_pairs): for each
graph, posenc's shift-invert and Lanczos solvers forced in turn, one thread, CPU seconds, the
LDL^T factor's fill ratio factor_nnz / nnz(L) and what AUTO picks.

    /usr/bin/python3 bench/lappe_auto_choice.py [--lib build/release/libposenc.so] [--k 16]
        [--graphs grid:1e4,grid:1e5,rgg:1e5,ba:1e4,ba:1e5,debian]

Graphs as bench/lappe_vs_scipy.py, plus `debian`: the largest connected component of
data/debian-bookworm-depends.txt.gz (the report's graph).
"""
import argparse
import gzip
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lappe_vs_scipy import in_child, largest_component, lsym, make_graph, posenc_lappe  # noqa: E402


def debian(path):
    with gzip.open(path, "rt") as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    n = int(lines[0].split()[1])
    m = int(lines[n + 1].split()[1])
    e = np.array([ln.split() for ln in lines[n + 2:n + 2 + m]], dtype=np.int64)
    return largest_component(n, e[:, 0].copy(), e[:, 1].copy())[:3]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build/release/libposenc.so")
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--graphs", default="grid:1e4,grid:1e5,rgg:1e5,ba:1e4,ba:1e5,debian")
    a = ap.parse_args()
    import ctypes
    lib = ctypes.CDLL(a.lib)
    lib.posenc_last_error_message.restype = ctypes.c_char_p
    os.environ.setdefault("POSENC_NUM_THREADS", "1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"k = {a.k}, posenc threads {os.environ['POSENC_NUM_THREADS']}; CPU seconds of one run each, in forked children")
    print("graph | nodes | nnz(L) | fill factor_nnz/nnz(L) | shift-invert cpu s (solves) | Lanczos cpu s (matvecs) "
          "| faster | AUTO picks")
    for spec in a.graphs.split(","):
        n, s, t = debian(os.path.join(root, "data/debian-bookworm-depends.txt.gz")) if spec == "debian" \
            else make_graph(spec)
        nnz = lsym(n, s, t).nnz
        res = {}
        for solver in ("shift-invert", "lanczos", "auto"):
            def run():
                _, ct, _, _, info = posenc_lappe(lib, n, s, t, a.k, solver)
                return {"cpu": ct, "method": info.method, "solves": info.shift_solves, "matvecs": info.matvecs,
                        "fill": info.factor_nnz}
            try:
                res[solver] = in_child(run)
            except RuntimeError as e:
                res[solver] = {"cpu": float("nan"), "method": -1, "solves": 0, "matvecs": 0, "fill": 0, "err": str(e)}
        si, la, au = res["shift-invert"], res["lanczos"], res["auto"]
        names = {2: "shift-invert", 3: "Lanczos", 1: "dense", -1: "failed"}
        faster = "shift-invert" if si["cpu"] < la["cpu"] else "Lanczos"
        print(f"{spec} | {n} | {nnz} | {si['fill'] / nnz:.1f} | {si['cpu']:.2f} ({si['solves']}) | "
              f"{la['cpu']:.2f} ({la['matvecs']}) | {faster} ({max(si['cpu'], la['cpu']) / min(si['cpu'], la['cpu']):.1f}x) "
              f"| {names.get(au['method'], au['method'])} ({au['cpu']:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
