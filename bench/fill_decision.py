#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""CPU time of the LDL^T affordability decision (bench/fill_decision.cpp: AMD ordering, factor
count, Eigen's symbolic factorization) on the graphs of the LapPE / MagLapPE benchmarks.

usage: /usr/bin/python3 bench/fill_decision.py [--tool /tmp/fill_decision]
           [--graphs digraph:2e4,digraph:1e5,ba:1e5,grid:1e5] [--no-symbolic GRAPH,...]
Graphs: digraph:N as bench/maglap_sparse_random.py (4N random arcs + a directed path, seed 1);
ba:N and grid:N as bench/lappe_vs_scipy.py. Build the tool first (see bench/fill_decision.cpp)."""
import argparse
import importlib.util
import os
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def edges(spec):
    kind, _, size = spec.partition(":")
    n = int(float(size))
    if kind == "digraph":
        rng = np.random.default_rng(1)
        src, dst = rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n)
        path = np.arange(n - 1)
        return n, np.concatenate([src, path]), np.concatenate([dst, path + 1])
    spec_ = importlib.util.spec_from_file_location("lvs", os.path.join(HERE, "lappe_vs_scipy.py"))
    lvs = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(lvs)
    if kind == "ba":
        return lvs.ba(n, 3, 1)
    if kind == "grid":
        side = int(round(np.sqrt(n)))
        return lvs.grid(side, side)
    raise SystemExit(f"unknown graph {spec!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", default="/tmp/fill_decision")
    ap.add_argument("--graphs", default="digraph:2e4,digraph:1e5,ba:1e5,grid:1e5")
    ap.add_argument("--no-symbolic", default="", help="graphs whose symbolic factorization is skipped")
    a = ap.parse_args()
    skip = set(a.no_symbolic.split(",")) if a.no_symbolic else set()
    for spec in a.graphs.split(","):
        n, s, t = edges(spec)
        with tempfile.NamedTemporaryFile(suffix=".bin") as f:
            np.stack([np.asarray(s, np.int64), np.asarray(t, np.int64)], axis=1).tofile(f.name)
            args = [a.tool, f.name, str(n)] + (["--no-symbolic"] if spec in skip else [])
            out = subprocess.run(args, capture_output=True, text=True)
            print(spec, out.stdout.strip(), out.stderr.strip())


if __name__ == "__main__":
    main()
