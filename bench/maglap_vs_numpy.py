#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""MagLapPE: posenc_maglap_pe_f64 (dense complex Hermitian eigensolver, Eigen) against NumPy
(the dense magnetic Laplacian built with NumPy, numpy.linalg.eigh = LAPACK zheevd): CPU-time
medians of interleaved runs and the largest eigenvalue difference, on random directed graphs
(mean out-degree 4 plus a directed path, q = 1/4, k = 16).

usage: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 POSENC_NUM_THREADS=1 \
       /usr/bin/python3 bench/maglap_vs_numpy.py [--sizes 200,500,1000] [--reps 3]"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import posenc  # noqa: E402


def digraph(n, seed):
    rng = np.random.default_rng(seed)
    m = 4 * n
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst
    path = np.arange(n - 1)
    return (np.concatenate([src[keep], path]).astype(np.int64), np.concatenate([dst[keep], path + 1]).astype(np.int64))


def numpy_maglap(n, src, dst, q):
    W = np.zeros((n, n))
    np.add.at(W, (src, dst), 1.0)
    As = (W + W.T) / 2
    H = As * np.exp(2j * np.pi * q * (W - W.T))
    d = As.sum(1)
    isq = 1 / np.sqrt(d)
    return np.eye(n) - isq[:, None] * H * isq[None, :]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="200,500,1000")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    q, k = 0.25, 16
    print("| nodes | posenc CPU s | NumPy build + eigh CPU s | ratio posenc / NumPy | max eigenvalue difference |")
    print("|---|---|---|---|---|")
    for n in (int(s) for s in a.sizes.split(",")):
        src, dst = digraph(n, 1)
        tp, tn = [], []
        for _ in range(a.reps):
            c = time.process_time()
            vals, _, _ = posenc.maglap_pe(n, src, dst, k, q=q)
            tp.append(time.process_time() - c)
            c = time.process_time()
            ref = np.linalg.eigh(numpy_maglap(n, src, dst, q))[0][:k]
            tn.append(time.process_time() - c)
        mp, mn = np.median(tp), np.median(tn)
        print(f"| {n} | {mp:.3f} | {mn:.3f} | {mp / mn:.2f} | {np.abs(vals - ref).max():.1e} |")


if __name__ == "__main__":
    main()
