#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_graph_batch_pe_f64
"""Dataset precomputation: LapPE (k) + RWSE (steps) of a dataset of small graphs, sharded across
a dask.distributed LocalCluster, one .npz per shard, checked bit for bit against the
single-process call over the whole dataset.

    PYTHONPATH=python /usr/bin/python3 examples/dask_graph_pe.py [--graphs G] [--shards S]
        [--workers W] [--k K] [--steps T] [--out DIR]

The dataset (molecule-like graphs of 15-37 nodes, every edge in both directions, as PyG stores
them) is held in PyG's Batch layout: ptr (node offsets), edge_index with global ids. Shard s takes
a contiguous range of graphs, re-bases its node ids and calls posenc.graph.graph_batch_pe once;
the worker writes shard_<s>.npz (ptr, eigvals, eigvecs, rwse, status). The result is bitwise
identical to one call over all graphs because every graph is computed from its own data only
(posenc's batch never mixes graphs and is deterministic for any thread count). Parquet output
is not used: pyarrow is optional and .npz keeps the arrays' exact bits.
"""
import argparse
import os
import sys
import tempfile

import numpy as np


def dataset(count, seed=0):
    """ptr [count + 1], edge_index [2, E] (global ids, both directions, graphs in order)."""
    rng = np.random.default_rng(seed)
    ptr, S, D = [0], [], []
    for _ in range(count):
        n = int(rng.integers(15, 38))
        edges = {(int(rng.integers(max(0, i - 3), i)), i) for i in range(1, n)}
        for _ in range(n // 8):
            a, b = (int(x) for x in rng.integers(0, n, 2))
            if a != b and (a, b) not in edges and (b, a) not in edges:
                edges.add((a, b))
        s = np.array([e[0] for e in sorted(edges)], np.int64) + ptr[-1]
        d = np.array([e[1] for e in sorted(edges)], np.int64) + ptr[-1]
        S.append(np.concatenate([s, d]))
        D.append(np.concatenate([d, s]))
        ptr.append(ptr[-1] + n)
    return np.array(ptr, np.int64), np.stack([np.concatenate(S), np.concatenate(D)])


def shard_pe(ptr, edge_index, k, steps, path):
    """One shard (ids re-based to start at 0): computes and writes its .npz, returns the path."""
    import posenc  # imported in the worker process
    from posenc import graph
    posenc.threads_set(1)  # one posenc thread per dask worker thread
    vals, vecs, rw, st = graph.graph_batch_pe(ptr, edge_index, k, steps, status=True)
    np.savez(path, ptr=ptr, eigvals=vals, eigvecs=vecs, rwse=rw, status=st)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=20000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--out", default=None, help="directory for the shard files (default: a temporary one)")
    args = ap.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    import posenc
    from posenc import graph

    ptr, ei = dataset(args.graphs)
    here = os.path.dirname(os.path.abspath(posenc.__file__))
    os.environ.update({"PYTHONPATH": os.path.dirname(here), "POSENC_LIBRARY": posenc.library_path()})
    single = graph.graph_batch_pe(ptr, ei, args.k, args.steps)  # the single-process call
    bounds = np.linspace(0, args.graphs, args.shards + 1).astype(np.int64)
    edge_ptr = np.searchsorted(ei[0], ptr).astype(np.int64)
    same = True
    with tempfile.TemporaryDirectory() as tmp, \
            LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                         dashboard_address=None) as cluster, Client(cluster) as client:
        out = args.out or tmp
        os.makedirs(out, exist_ok=True)
        futures = []
        for s in range(args.shards):
            g0, g1 = bounds[s], bounds[s + 1]
            p = ptr[g0:g1 + 1] - ptr[g0]
            e = ei[:, edge_ptr[g0]:edge_ptr[g1]] - ptr[g0]
            futures.append(client.submit(shard_pe, p, np.ascontiguousarray(e), args.k, args.steps,
                                         os.path.join(out, f"shard_{s:04d}.npz"), pure=False))
        for s, fut in enumerate(futures):
            f = np.load(fut.result())
            g0, g1 = bounds[s], bounds[s + 1]
            n0, n1 = ptr[g0], ptr[g1]
            for got, ref in ((f["eigvals"], single[0][g0:g1]), (f["eigvecs"], single[1][n0:n1]),
                             (f["rwse"], single[2][n0:n1])):
                same &= got.shape == ref.shape and np.array_equal(got.view(np.uint64), ref.view(np.uint64))
            same &= bool((f["status"] == 0).all())
    print(f"{args.graphs} graphs ({int(ptr[-1])} nodes) in {args.shards} shards on {args.workers} workers: "
          f"{'bit-identical' if same else 'DIFFERENT'} to the single-process result")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
