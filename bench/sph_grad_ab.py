#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""A/B of posenc_sph_harm_real_grad_f32 / _f64 (values + gradients, unit sphere) between two
builds of libposenc loaded into one process (ctypes), in the shape of posenc_bench's
BM_sph_grad_posenc (bench/bench_sphere_grad.cpp): 100000 random float directions, outputs
written in chunks of about 64 MB, 1 thread.

Run from the repository root after building the release preset:
    POSENC_ISA=avx512 /usr/bin/python3 bench/sph_grad_ab.py OLD/libposenc.so build/release/libposenc.so \\
        [--dtype f32|f64] [--lmax 10 40] [--reps 9] [--own-buffers]

Each repetition runs the whole 100000 points with A, then with B (interleaved); reported: the
median process CPU time of each and the ratio of the medians B / A. POSENC_ISA picks the path of
both builds. The two libraries must be different files (two copies of the same soname load twice
when their paths differ). --own-buffers: each library writes outputs of its own (by default both
write the same ones; where one build writes them with non-temporal stores and the other with
ordinary ones, shared outputs that the other left dirty in the L3 cost the streaming build a
write-back of each such line, which neither pays when run alone).
"""
import argparse
import ctypes
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib_a")
    ap.add_argument("lib_b")
    ap.add_argument("--dtype", choices=["f32", "f64"], default="f32")
    ap.add_argument("--lmax", type=int, nargs="+", default=[10, 40])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--points", type=int, default=100000)
    ap.add_argument("--own-buffers", action="store_true")
    a = ap.parse_args()
    libs = [ctypes.CDLL(a.lib_a), ctypes.CDLL(a.lib_b)]
    dt = np.float32 if a.dtype == "f32" else np.float64
    for lib in libs:
        lib.posenc_threads_set(1)
    fns = [getattr(lib, "posenc_sph_harm_real_grad_" + a.dtype) for lib in libs]
    rng = np.random.default_rng(0)
    n = a.points
    xyz = rng.normal(size=(n, 3)).astype(dt)
    P = ctypes.c_void_p
    for L in a.lmax:
        K = (L + 1) ** 2
        per = K * np.dtype(dt).itemsize * 4
        ch = max(64, min(n, (64 << 20) // per) // 64 * 64)
        outs = [(np.zeros((ch, K), dt), np.zeros((ch, 3, K), dt)) for _ in range(2 if a.own_buffers else 1)]

        def run(i):
            v, g = outs[i % len(outs)]
            t0 = time.process_time()
            for p in range(0, n, ch):
                m = min(ch, n - p)
                st = fns[i](ctypes.c_int32(L), xyz[p:].ctypes.data_as(P), ctypes.c_int64(m), ctypes.c_uint32(0),
                            v.ctypes.data_as(P), g.ctypes.data_as(P), None)
                assert st == 0, st
            return time.process_time() - t0

        for i in (0, 1):  # warm-up (page faults of the outputs, coefficient tables)
            run(i)
        t = [[], []]
        for _ in range(a.reps):
            for i in (0, 1):
                t[i].append(run(i))
        ma, mb = np.median(t[0]), np.median(t[1])
        print(f"{a.dtype} L {L}: A {ma * 1e3:.3g} ms  B {mb * 1e3:.3g} ms  B/A {mb / ma:.3f}")


if __name__ == "__main__":
    main()
