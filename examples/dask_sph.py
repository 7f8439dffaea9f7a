#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_sph_harm_real_f64
"""Scale-out: the real spherical harmonics of 10^7 points computed across a dask.distributed
LocalCluster on loopback, checked bit for bit against the single-process call.

    PYTHONPATH=python /usr/bin/python3 examples/dask_sph.py [--n N] [--lmax L] [--workers W] [--chunk C]

Each worker process loads libposenc and evaluates posenc_sph_harm_real_f64 on its chunk of
points. The result is bitwise identical to one call over all points because every output row
depends only on its own input row (posenc's tiling never mixes points, and it is deterministic
for any thread count). The one exception, absent from these random directions: a point off the
pole with sin(theta)^lmax < 2^-900 sends its whole block of vector-width points to the
extended-range recurrence, whose last bits differ from the fast path's (posenc.h). Memory: n (lmax+1)^2 float64 — 10^7 points at L = 3 is 1.28 GB of
output, so the
distributed blocks are streamed back and compared chunk by chunk with the single-process result.
"""
import argparse
import os
import sys
import time

import numpy as np


def points(n, seed=0):
    """n unit-ish directions (deterministic), float64 [n, 3]."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 3))


def sh_chunk(lmax, xyz):
    import posenc  # imported in the worker process
    posenc.threads_set(1)  # one posenc thread per dask worker thread
    return posenc.sph_harm_real(lmax, xyz)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--lmax", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=1_000_000)
    args = ap.parse_args(argv)

    import dask.array as da
    from dask.distributed import Client, LocalCluster

    import posenc

    xyz = points(args.n)
    here = os.path.dirname(os.path.abspath(posenc.__file__))
    env = {"PYTHONPATH": os.path.dirname(here), "POSENC_LIBRARY": posenc.library_path()}
    os.environ.update(env)  # inherited by the worker processes
    C = (args.lmax + 1) ** 2
    t0 = time.time()
    single = posenc.sph_harm_real(args.lmax, xyz)  # the single-process call over all points
    t_single = time.time() - t0
    same = True
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        t0 = time.time()
        x = da.from_array(xyz, chunks=(args.chunk, 3))
        y = x.map_blocks(lambda b: sh_chunk(args.lmax, b), chunks=(x.chunks[0], (C,)), dtype=np.float64)
        # Stream the blocks back as they finish and compare each with its rows of `single`
        # (bit patterns, so -0.0 vs 0.0 or NaN payloads would count as differences).
        blocks = y.to_delayed().ravel()
        futures = client.compute(list(blocks))
        starts = np.concatenate([[0], np.cumsum(x.chunks[0])])
        done = 0
        for i, fut in enumerate(futures):
            blk = fut.result()
            ref = single[starts[i]:starts[i + 1]]
            same &= blk.shape == ref.shape and np.array_equal(blk.view(np.uint64), ref.view(np.uint64))
            done += blk.shape[0]
            del blk
        t_dist = time.time() - t0
    same &= done == args.n
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
