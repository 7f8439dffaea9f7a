#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Dataset throughput: LapPE (k = 10) + RWSE (16 steps) of many small molecule-like graphs with
posenc's batched call vs a PyG/GraphGPS-style numpy/SciPy loop and vs posenc's single-graph calls.

Run from the repository root after building the release preset:
    PYTHONPATH=python POSENC_LIBRARY=build/release/libposenc.so POSENC_NUM_THREADS=1 \
        /usr/bin/python3 bench/graph_batch_vs_numpy.py [--graphs 2000] [--reps 5] [--baseline-lib OTHER.so]
        [--only-batch]  (only the batched call, e.g. under perf record)

Graphs: --graphs random molecule-like graphs, 15..37 nodes (uniform), a random tree (each node
attached to one of the 3 previous) plus up to n/8 random extra edges (no duplicates), every edge
in both directions (PyG's edge_index), seed 0. Contestants, each over the whole dataset:
  * batch:  posenc.graph.graph_batch_pe(ptr, edge_index, 10, 16) (one call, PyG Batch layout);
  * batch (GraphGPS flags): the same with both_directions, keep_self_loops and nan_pad;
  * baseline: with --baseline-lib, posenc_graph_batch_pe_f64 of another build of libposenc (e.g.
            an older commit's), called through ctypes in the same process (an A/B of two builds);
  * single: posenc.graph.laplacian_pe + posenc.graph.rwse per graph;
  * numpy:  per graph what GraphGPS's precomputation does: L_sym from scipy.sparse
            (get_laplacian(normalization="sym") equivalent), np.linalg.eigh of the dense L, the k
            smallest pairs; RWSE as the diagonals of dense powers of D^-1 A (get_rw_landing_probs).
Reported: graphs/s from the median process CPU time of --reps interleaved runs, and the ratios.
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp

import posenc
from posenc import graph


def molecules(count, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(15, 38))
        edges = {(int(rng.integers(max(0, i - 3), i)), i) for i in range(1, n)}
        for _ in range(n // 8):
            a, b = (int(x) for x in rng.integers(0, n, 2))
            if a != b and (a, b) not in edges and (b, a) not in edges:
                edges.add((a, b))
        s = np.array([e[0] for e in sorted(edges)], np.int64)
        d = np.array([e[1] for e in sorted(edges)], np.int64)
        out.append((n, np.concatenate([s, d]), np.concatenate([d, s])))
    return out


def numpy_pe(n, s, d, k, steps):
    A = sp.coo_matrix((np.ones(s.shape[0]), (s, d)), shape=(n, n)).tocsr()
    A.data[:] = 1.0  # coalesced edge_index: unit weights
    deg = np.asarray(A.sum(1)).ravel()
    isq = sp.diags(np.where(deg > 0, deg, 1.0) ** -0.5)
    L = sp.eye(n) - isq @ A @ isq
    w, V = np.linalg.eigh(L.toarray())
    vals, vecs = w[:k], V[:, :k]
    P = (sp.diags(1.0 / np.where(deg > 0, deg, 1.0)) @ A).toarray()
    M = P.copy()
    rw = np.empty((n, steps))
    for t in range(steps):
        rw[:, t] = np.diag(M)
        M = M @ P
    return vals, vecs, rw


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--baseline-lib", default=None)
    ap.add_argument("--no-numpy", action="store_true", help="leave the (slow) numpy loop out of the timing")
    ap.add_argument("--only-batch", action="store_true",
                    help="run only the batched call, --reps times (for a profiler: perf record ...)")
    args = ap.parse_args()
    gs = molecules(args.graphs)
    ptr = np.zeros(len(gs) + 1, np.int64)
    ptr[1:] = np.cumsum([g[0] for g in gs])
    ei = np.stack([np.concatenate([g[1] + ptr[i] for i, g in enumerate(gs)]),
                   np.concatenate([g[2] + ptr[i] for i, g in enumerate(gs)])]).astype(np.int64)
    k, steps = 10, 16

    def batch():
        graph.graph_batch_pe(ptr, ei, k, steps)

    if args.only_batch:
        for _ in range(args.reps):
            t = time.process_time()
            batch()
            print(f"batch {(time.process_time() - t) / len(gs) * 1e6:.1f} us/graph (cpu)")
        return

    def batch_flags():
        graph.graph_batch_pe(ptr, ei, k, steps, both_directions=True, keep_self_loops=True, nan_pad=True)

    base = None
    if args.baseline_lib:
        import ctypes
        base = ctypes.CDLL(args.baseline_lib)
        P = ctypes.c_void_p
        base.posenc_graph_batch_pe_f64.argtypes = [ctypes.c_int64, P, P, P, P, P, ctypes.c_int, ctypes.c_int32,
                                                   ctypes.c_int32, P, P, P, P]
        src, dst = np.ascontiguousarray(ei[0]), np.ascontiguousarray(ei[1])
        eptr = np.searchsorted(src, ptr, side="left").astype(np.int64)
        eptr[0], eptr[-1] = 0, src.shape[0]

    def baseline(kk=k, ss=steps):
        ng, n = len(gs), int(ptr[-1])
        vals, vecs, rw = np.empty((ng, max(kk, 1))), np.empty((n, max(kk, 1))), np.empty((n, max(ss, 1)))
        st = np.zeros(ng, np.int32)
        rc = base.posenc_graph_batch_pe_f64(ng, ptr.ctypes.data, eptr.ctypes.data, src.ctypes.data, dst.ctypes.data,
                                            None, 0, kk, ss, vals.ctypes.data, vecs.ctypes.data, rw.ctypes.data,
                                            st.ctypes.data)
        assert rc == 0

    def batch_lappe():
        graph.graph_batch_pe(ptr, ei, k, 0)

    def batch_rwse():
        graph.graph_batch_pe(ptr, ei, 0, steps)

    def single():
        for n, s, d in gs:
            graph.laplacian_pe(n, s, d, min(k, n))
            graph.rwse(n, s, d, steps)

    def numpy_loop():
        for n, s, d in gs:
            numpy_pe(n, s, d, k, steps)

    # agreement (first 200 graphs): eigenvalues and RWSE
    vals, _, rw = graph.graph_batch_pe(ptr, ei, k, steps)
    dv = dr = 0.0
    for i, (n, s, d) in enumerate(gs[:200]):
        v, _, r = numpy_pe(n, s, d, k, steps)
        dv = max(dv, np.abs(v - vals[i]).max())
        dr = max(dr, np.abs(r - rw[ptr[i]:ptr[i + 1]]).max())
    fns = {"batch": batch, "batch (GraphGPS flags)": batch_flags, "single": single, "numpy": numpy_loop,
           "batch (LapPE only)": batch_lappe, "batch (RWSE only)": batch_rwse}
    if base is not None:
        fns["baseline lib batch"] = baseline
        fns["baseline LapPE only"] = lambda: baseline(k, 0)
        fns["baseline RWSE only"] = lambda: baseline(0, steps)
    if args.no_numpy:
        del fns["numpy"]
    times = {name: [] for name in fns}
    for _ in range(args.reps):
        for name, f in fns.items():
            t = time.process_time()
            f()
            times[name].append(time.process_time() - t)
    med = {k_: float(np.median(v)) for k_, v in times.items()}
    print(f"threads={posenc.threads_get()} graphs={len(gs)} nodes={int(ptr[-1])} k={k} steps={steps}")
    for name in fns:
        print(f"{name:22s} {med[name] / len(gs) * 1e6:8.1f} us/graph  {len(gs) / med[name]:9.0f} graphs/s")
    if "numpy" in med:
        print(f"batch vs numpy: {med['numpy'] / med['batch']:.1f}x faster")
    print(f"batch vs single calls: "
          f"{med['single'] / med['batch']:.2f}x; max |dlambda| {dv:.1e}, max |dRWSE| {dr:.1e}")
    if base is not None:
        print(f"batch vs baseline lib: {med['baseline lib batch'] / med['batch']:.2f}x faster; LapPE only "
              f"{med['baseline LapPE only'] / med['batch (LapPE only)']:.2f}x; RWSE only "
              f"{med['baseline RWSE only'] / med['batch (RWSE only)']:.2f}x")


if __name__ == "__main__":
    main()
