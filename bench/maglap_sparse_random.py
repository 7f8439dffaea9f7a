#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""MagLapPE sparse route on random directed graphs (deg * n random arcs plus a directed path, one
connected component above the dense limit; the LDL^H fills in, so the route is plain Lanczos on
the real embedding), L_sym, q = 1/4, k = 8: CPU-time median, eigvals[0..2].

usage: POSENC_NUM_THREADS=1 /usr/bin/python3 bench/maglap_sparse_random.py [--sizes 5000,20000] [--deg 4] [--reps 1]"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import posenc  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="5000,20000")
    ap.add_argument("--deg", type=int, default=4)
    ap.add_argument("--reps", type=int, default=1)
    a = ap.parse_args()
    print("| nodes | arcs | posenc CPU s | eigvals[0..2] |")
    print("|---|---|---|---|")
    for n in (int(s) for s in a.sizes.split(",")):
        rng = np.random.default_rng(1)
        src, dst = rng.integers(0, n, a.deg * n), rng.integers(0, n, a.deg * n)
        path = np.arange(n - 1)
        src = np.concatenate([src, path]).astype(np.int64)
        dst = np.concatenate([dst, path + 1]).astype(np.int64)
        ts = []
        for _ in range(a.reps):
            c = time.process_time()
            vals, _, _ = posenc.maglap_pe(n, src, dst, 8, q=0.25)
            ts.append(time.process_time() - c)
        print(f"| {n} | {src.size} | {np.median(ts):.2f} | {', '.join(f'{v:.8f}' for v in vals[:3])} |")


if __name__ == "__main__":
    main()
