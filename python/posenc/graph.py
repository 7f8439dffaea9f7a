# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.graph — Laplacian eigenvector PE and random-walk SE of graphs (posenc.h, graph section)."""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ._lib import _P, _c_i32, _c_i64, _call, _in, _out, _outs, _ptr
from . import _lib


class Laplacian(enum.IntEnum):
    SYM = 0
    COMBINATORIAL = 1


_lib.register({
    "posenc_laplacian_pe_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, _c_i32, _P, _P]),
    "posenc_rwse_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, _c_i32, _P]),
    "posenc_laplacian_pe_info_init": (ctypes.c_int, [_P]),
    "posenc_laplacian_pe_ex_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, _c_i32, _P, _P, _P]),
    "posenc_heat_kernel_apply_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, ctypes.c_double, _P,
                                                    _c_i64, _P, _P]),
})


def _edges(src, dst, weights, convert):
    src = _in(src, np.int64, "src", convert=convert, ndim=1)
    dst = _in(dst, np.int64, "dst", src.shape, convert)
    if weights is not None:
        weights = _in(weights, np.float64, "weights", src.shape, convert)
    return src, dst, weights


class LaplacianPeInfo(ctypes.Structure):
    """posenc_laplacian_pe_info (diagnostics of posenc_laplacian_pe_ex_f64)."""

    _fields_ = [("struct_size", ctypes.c_uint32), ("solver", ctypes.c_int), ("method", ctypes.c_int),
                ("components", ctypes.c_int64), ("matvecs", ctypes.c_int64), ("shift_solves", ctypes.c_int64),
                ("max_residual", ctypes.c_double), ("certificate", ctypes.c_int), ("recoveries", ctypes.c_int32),
                ("inertia_sigma", ctypes.c_double), ("inertia_count", ctypes.c_int64), ("factor_nnz", ctypes.c_int64)]


class LapPeMethod(enum.IntEnum):
    AUTO = 0
    DENSE = 1
    SHIFT_INVERT = 2
    LANCZOS = 3


_LAPPE_METHODS = {0: "auto", 1: "dense", 2: "shift_invert", 3: "lanczos"}
_LAPPE_CERTS = {0: "none", 1: "dense", 2: "inertia", 3: "krylov"}


def laplacian_pe(num_nodes, src, dst, k, weights=None, laplacian=Laplacian.SYM, info=False,
                 solver=LapPeMethod.AUTO, convert=False, out=None):
    """posenc_laplacian_pe_f64 -> (eigvals float64 [k] ascending, eigvecs float64 [num_nodes, k]);
    with info=True (or a solver other than AUTO) posenc_laplacian_pe_ex_f64 -> (eigvals, eigvecs,
    dict of its diagnostics: method, components, matvecs, shift_solves, max_residual, certificate
    ("dense", "inertia" or "krylov": how the values were proven to be the k smallest), recoveries,
    inertia_sigma, inertia_count, factor_nnz). out: None or
    an (eigvals, eigvecs) pair of arrays to fill."""
    info = info or int(solver) != LapPeMethod.AUTO
    src, dst, weights = _edges(src, dst, weights, convert)
    ov, oe = _outs(out, 2)
    ins = {"src": src, "dst": dst, "weights": weights}
    vals = _out(ov, (int(k),), np.float64, "out[0]", inputs=ins)
    vecs = _out(oe, (int(num_nodes), int(k)), np.float64, "out[1]", inputs=dict(ins, **{"out[0]": vals}))
    if not info:
        _call("posenc_laplacian_pe_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
              int(laplacian), int(k), _ptr(vals), _ptr(vecs))
        return vals, vecs
    inf = LaplacianPeInfo()
    _call("posenc_laplacian_pe_info_init", ctypes.byref(inf))
    inf.solver = int(solver)
    _call("posenc_laplacian_pe_ex_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
          int(laplacian), int(k), _ptr(vals), _ptr(vecs), ctypes.byref(inf))
    d = {n: getattr(inf, n) for n, _ in LaplacianPeInfo._fields_ if n not in ("struct_size", "solver")}
    d["method"] = _LAPPE_METHODS.get(d["method"], d["method"])
    d["certificate"] = _LAPPE_CERTS.get(d["certificate"], d["certificate"])
    return vals, vecs, d


def rwse(num_nodes, src, dst, steps, weights=None, convert=False, out=None):
    """posenc_rwse_f64 -> float64 [num_nodes, steps], out[v, t-1] = (P^t)_vv, P = D^-1 A. out: None
    or the array to fill.

    Self-loops in (src, dst) are IGNORED (the edge list is read as a simple undirected graph,
    duplicates summed), whereas PyG's AddRandomWalkPE and GraphGPS keep them in A: after
    AddSelfLoops, PyG gives node v the return probability 1/(d_v + 1) at t = 1 (karate club node 0:
    1/17), posenc gives 0. Pipelines that add self-loops before the encoding therefore differ.
    Isolated nodes get all zeros (PyG's 1/0 -> 0)."""
    src, dst, weights = _edges(src, dst, weights, convert)
    out = _out(out, (int(num_nodes), int(steps)), np.float64, inputs={"src": src, "dst": dst, "weights": weights})
    _call("posenc_rwse_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0], int(steps), _ptr(out))
    return out


def heat_kernel_apply(num_nodes, src, dst, t, x, weights=None, laplacian=Laplacian.SYM, error_bound=False,
                      convert=False, out=None):
    """posenc_heat_kernel_apply_f64 -> y = exp(-t L) x, float64 of x's shape: x is [num_nodes] (one
    vector) or [num_nodes, num_vectors] (a block, C-contiguous). L is L_sym or D - A of the
    undirected graph (graph construction as in laplacian_pe), t >= 0 finite. Chebyshev expansion;
    with error_bound=True returns (y, bound) where ||y_b - exp(-t L) x_b||_2 <= bound ||x_b||_2 for
    every column b. out: None or the array to fill (may be x itself)."""
    src, dst, weights = _edges(src, dst, weights, convert)
    xa = np.asarray(x) if convert else x
    if isinstance(xa, np.ndarray) and xa.ndim == 1:
        xa = _in(xa, np.float64, "x", (int(num_nodes),), convert)
        nv = 1
    else:
        xa = _in(xa, np.float64, "x", None, convert, ndim=2)
        if xa.shape[0] != int(num_nodes):
            raise ValueError(f"x must have num_nodes = {int(num_nodes)} rows (got shape {xa.shape})")
        nv = xa.shape[1]
    y = _out(out, xa.shape, np.float64, inputs={"src": src, "dst": dst, "weights": weights, "x": xa}, alias="x")
    bound = ctypes.c_double(0.0)
    _call("posenc_heat_kernel_apply_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
          int(laplacian), float(t), _ptr(xa), int(nv), _ptr(y), ctypes.byref(bound))
    return (y, bound.value) if error_bound else y


__all__ = ['Laplacian', 'LaplacianPeInfo', 'LapPeMethod', 'heat_kernel_apply', 'laplacian_pe', 'rwse']
