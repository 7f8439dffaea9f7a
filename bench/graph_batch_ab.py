#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""A/B of posenc_graph_batch_pe_f64 across libposenc builds in one process (C ABI through ctypes):
1000 molecule-like graphs (graph_batch_vs_numpy.py's generator), L_sym, k = 10, LapPE only and
LapPE + RWSE 16; REPS interleaved runs (the order of the libraries alternates), medians of the
process CPU time per graph, speed-ups against the first library. With --single: the
single-graph call posenc_laplacian_pe_f64 (k = 10) instead, on each molecule alone and on graphs
made of 8 molecules each (8 components: the windowed path), per molecule.

    PYTHONPATH=python POSENC_NUM_THREADS=1 /usr/bin/python3 bench/graph_batch_ab.py [--single] REPS A/libposenc.so B/libposenc.so ...
"""
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_batch_vs_numpy import molecules  # noqa: E402
P = ctypes.c_void_p
single = sys.argv[1] == "--single"
args = sys.argv[2:] if single else sys.argv[1:]
libs = []
for path in args[1:]:
    L = ctypes.CDLL(path)
    L.posenc_graph_batch_pe_f64.argtypes = [ctypes.c_int64, P, P, P, P, P, ctypes.c_int, ctypes.c_int32, ctypes.c_int32, P, P, P, P]
    L.posenc_laplacian_pe_f64.argtypes = [ctypes.c_int64, P, P, P, ctypes.c_int64, ctypes.c_int, ctypes.c_int32, P, P]
    libs.append((path, L))
gs = molecules(1000)
if single:
    one = [(n, np.ascontiguousarray(s), np.ascontiguousarray(d)) for n, s, d in gs]
    multi = []
    for i in range(0, len(one), 8):
        off, ss, dd = 0, [], []
        for n, s, d in one[i:i + 8]:
            ss.append(s + off)
            dd.append(d + off)
            off += n
        multi.append((off, np.concatenate(ss), np.concatenate(dd)))
    res = {(p, w): [] for p, _ in libs for w in ("one", "multi")}
    for rep in range(int(args[0])):
        for p, L in (libs if rep % 2 == 0 else libs[::-1]):
            for w, set_ in (("one", one), ("multi", multi)):
                t = time.process_time()
                for n, s, d in set_:
                    vals, vecs = np.empty(10), np.empty((n, 10))
                    assert L.posenc_laplacian_pe_f64(n, s.ctypes.data, d.ctypes.data, None, s.shape[0], 0, 10,
                                                     vals.ctypes.data, vecs.ctypes.data) == 0
                res[(p, w)].append(time.process_time() - t)
    for (p, w), v in res.items():
        print(f"{p:45s} {w:5s} median {np.median(v) / len(one) * 1e6:6.2f} us per molecule")
    sys.exit(0)
ptr = np.zeros(len(gs) + 1, np.int64); ptr[1:] = np.cumsum([g[0] for g in gs])
eptr = np.zeros(len(gs) + 1, np.int64); eptr[1:] = np.cumsum([len(g[1]) for g in gs])
src = np.concatenate([g[1] + ptr[i] for i, g in enumerate(gs)]).astype(np.int64)
dst = np.concatenate([g[2] + ptr[i] for i, g in enumerate(gs)]).astype(np.int64)
ng, n = len(gs), int(ptr[-1])
vals, vecs, rw = np.empty((ng, 10)), np.empty((n, 10)), np.empty((n, 16)); st = np.zeros(ng, np.int32)
res = {(p, ss): [] for p, _ in libs for ss in (0, 16)}
for rep in range(int(args[0])):
    for p, L in (libs if rep % 2 == 0 else libs[::-1]):
        for ss in (0, 16):
            t = time.process_time()
            rc = L.posenc_graph_batch_pe_f64(ng, ptr.ctypes.data, eptr.ctypes.data, src.ctypes.data, dst.ctypes.data, None, 0, 10, ss, vals.ctypes.data, vecs.ctypes.data, rw.ctypes.data, st.ctypes.data)
            res[(p, ss)].append(time.process_time() - t); assert rc == 0
for (p, ss), v in res.items():
    print(f"{p:45s} steps={ss:2d} median {np.median(v) / ng * 1e6:6.2f} us/graph")
b = libs[0][0]
for p, _ in libs[1:]:
    print(p, "speed-up vs", b, "LapPE only %.3f, LapPE+RWSE %.3f" % (np.median(res[(b, 0)]) / np.median(res[(p, 0)]), np.median(res[(b, 16)]) / np.median(res[(p, 16)])))
