#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""MagLapPE sparse route: posenc_maglap_pe_f64 on directed R x R grids (edges right and down, one
connected component above the dense limit of 4096 nodes, verbose path maglap_pe.sparse), L_sym,
k = 8: CPU-time median, the largest residual ||L v - lambda v||_2 (L applied here with NumPy from
the edge list as documented) and the orthonormality error ||V^H V - I||_max.

usage: POSENC_NUM_THREADS=1 /usr/bin/python3 bench/maglap_sparse_grid.py [--sides 100,316] [--q 0.25] [--reps 1]"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import posenc  # noqa: E402


def directed_grid(r):
    idx = np.arange(r * r).reshape(r, r)
    src = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()]).astype(np.int64)
    dst = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()]).astype(np.int64)
    return src, dst


def apply_lsym(n, src, dst, q, V):
    """L_sym V for an unweighted simple digraph without reciprocal pairs: A_s = 1/2 per edge,
    H_uv = exp(2 pi i q) / 2 for an edge u -> v and its conjugate for v -> u."""
    d = np.zeros(n)
    np.add.at(d, src, 0.5)
    np.add.at(d, dst, 0.5)
    isq = 1 / np.sqrt(d)
    ph = np.exp(2j * np.pi * q) / 2
    HV = np.zeros_like(V)
    np.add.at(HV, src, (ph * isq[src] * isq[dst])[:, None] * V[dst])
    np.add.at(HV, dst, (np.conj(ph) * isq[src] * isq[dst])[:, None] * V[src])
    return V - HV


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sides", default="100,316")
    ap.add_argument("--q", type=float, default=0.25)
    ap.add_argument("--reps", type=int, default=1)
    a = ap.parse_args()
    k = 8
    print("| grid | nodes | q | posenc CPU s | max residual | max orthonormality error | eigvals[0], eigvals[k-1] |")
    print("|---|---|---|---|---|---|---|")
    for r in (int(s) for s in a.sides.split(",")):
        n = r * r
        src, dst = directed_grid(r)
        ts = []
        for _ in range(a.reps):
            c = time.process_time()
            vals, re, im = posenc.maglap_pe(n, src, dst, k, q=a.q)
            ts.append(time.process_time() - c)
        V = re + 1j * im
        res = np.linalg.norm(apply_lsym(n, src, dst, a.q, V) - V * vals[None, :], axis=0).max()
        orth = np.abs(V.conj().T @ V - np.eye(k)).max()
        print(f"| {r}x{r} | {n} | {a.q} | {np.median(ts):.2f} | {res:.1e} | {orth:.1e} | {vals[0]:.6g}, {vals[-1]:.6g} |")


if __name__ == "__main__":
    main()
