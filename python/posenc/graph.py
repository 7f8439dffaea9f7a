# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.graph — Laplacian eigenvector PE and random-walk SE of graphs (include/posenc/graph.h)."""
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
    "posenc_rwse_ex_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, _c_i32, ctypes.c_uint32, _P]),
    "posenc_rwse_info_init": (ctypes.c_int, [_P]),
    "posenc_rwse_auto_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, _c_i32, _P, _P]),
    "posenc_maglap_pe_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, ctypes.c_double, _c_i32, _P,
                                            _P, _P]),
    "posenc_laplacian_pe_info_init": (ctypes.c_int, [_P]),
    "posenc_laplacian_pe_ex_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, _c_i32, _P, _P, _P]),
    "posenc_heat_kernel_apply_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, ctypes.c_double, _P,
                                                    _c_i64, _P, _P]),
    "posenc_graph_batch_pe_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _P, _P, ctypes.c_int, _c_i32, _c_i32, _P, _P,
                                                 _P, _P]),
    "posenc_graph_batch_pe_ex_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _P, _P, ctypes.c_int, _c_i32, _c_i32,
                                                    ctypes.c_uint32, _P, _P, _P, _P]),
    "posenc_graph_batch_pe_auto_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _P, _P, ctypes.c_int, _c_i32, _c_i32,
                                                      ctypes.c_uint32, _P, _P, _P, _P, _P, _P]),
    "posenc_rrwp_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, _c_i32, _c_i64, _P, _P, _P]),
    "posenc_shortest_path_i32": (ctypes.c_int, [_c_i64, _P, _P, _c_i64, _c_i32, _c_i64, _P, _P, _P]),
    "posenc_heat_kernel_diag_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, _P, _c_i32, _P, _P]),
    "posenc_heat_kernel_rows_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, ctypes.c_double, _P,
                                                   _c_i64, _P, _P]),
    "posenc_diffusion_distance_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, ctypes.c_double, _P,
                                                     _c_i64, _P, _P]),
    "posenc_diffusion_distance_eig_f64": (ctypes.c_int, [_c_i64, _c_i32, _P, _P, ctypes.c_double, _P, _c_i64, _P,
                                                         _P]),
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
                ("inertia_sigma", ctypes.c_double), ("inertia_count", ctypes.c_int64), ("factor_nnz", ctypes.c_int64),
                ("flags", ctypes.c_uint32)]


# Flag bits (posenc.h): PyG / GraphGPS compatibility.
GRAPH_BOTH_DIRECTIONS = 1
GRAPH_KEEP_SELF_LOOPS = 2
LAPPE_DROP_TRIVIAL = 4
LAPPE_NAN_PAD = 8


class LapPeMethod(enum.IntEnum):
    AUTO = 0
    DENSE = 1
    SHIFT_INVERT = 2
    LANCZOS = 3


_LAPPE_METHODS = {0: "auto", 1: "dense", 2: "shift_invert", 3: "lanczos"}
_LAPPE_CERTS = {0: "none", 1: "dense", 2: "inertia", 3: "krylov"}


def laplacian_pe(num_nodes, src, dst, k, weights=None, laplacian=Laplacian.SYM, info=False,
                 solver=LapPeMethod.AUTO, both_directions=False, drop_trivial=False, nan_pad=False, convert=False,
                 out=None):
    """posenc_laplacian_pe_f64 -> (eigvals float64 [k] ascending, eigvecs float64 [num_nodes, k]);
    with info=True (or a solver other than AUTO, or a PyG flag) posenc_laplacian_pe_ex_f64 ->
    (eigvals, eigvecs, dict of its diagnostics: method, components, matvecs, shift_solves,
    max_residual, certificate ("dense", "inertia" or "krylov": how the values were proven to be
    the k smallest), recoveries, inertia_sigma, inertia_count, factor_nnz); the dict is returned
    only with info=True. out: None or an (eigvals, eigvecs) pair of arrays to fill.

    PyG / GraphGPS compatibility (info->flags of posenc.h):
      both_directions=True: (src, dst) lists every edge in both directions (PyG's edge_index);
        each listed edge counts half, so D - A has PyG's get_laplacian / GraphGPS's eigenvalues
        (without it exactly twice theirs; L_sym is the same either way).
      drop_trivial=True: the k + 1 smallest pairs, the first dropped (PyG's
        AddLaplacianEigenvectorPE(k): eig_vecs[:, 1:k + 1]); exactly one pair is dropped, also
        for a disconnected graph. Needs k + 1 <= num_nodes unless nan_pad.
      nan_pad=True: k may exceed the pairs available (num_nodes, minus 1 with drop_trivial): the
        missing eigvals and eigvecs columns are NaN (GraphGPS's padding when N < max_freqs)."""
    flags = ((GRAPH_BOTH_DIRECTIONS if both_directions else 0) | (LAPPE_DROP_TRIVIAL if drop_trivial else 0)
             | (LAPPE_NAN_PAD if nan_pad else 0))
    use_ex = info or int(solver) != LapPeMethod.AUTO or flags != 0
    src, dst, weights = _edges(src, dst, weights, convert)
    ov, oe = _outs(out, 2)
    ins = {"src": src, "dst": dst, "weights": weights}
    vals = _out(ov, (int(k),), np.float64, "out[0]", inputs=ins)
    vecs = _out(oe, (int(num_nodes), int(k)), np.float64, "out[1]", inputs=dict(ins, **{"out[0]": vals}))
    if not use_ex:
        _call("posenc_laplacian_pe_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
              int(laplacian), int(k), _ptr(vals), _ptr(vecs))
        return vals, vecs
    inf = LaplacianPeInfo()
    _call("posenc_laplacian_pe_info_init", ctypes.byref(inf))
    inf.solver = int(solver)
    inf.flags = flags
    _call("posenc_laplacian_pe_ex_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
          int(laplacian), int(k), _ptr(vals), _ptr(vecs), ctypes.byref(inf))
    if not info and int(solver) == LapPeMethod.AUTO:
        return vals, vecs
    d = {n: getattr(inf, n) for n, _ in LaplacianPeInfo._fields_ if n not in ("struct_size", "solver", "flags")}
    d["method"] = _LAPPE_METHODS.get(d["method"], d["method"])
    d["certificate"] = _LAPPE_CERTS.get(d["certificate"], d["certificate"])
    return vals, vecs, d


def rwse(num_nodes, src, dst, steps, weights=None, keep_self_loops=False, both_directions=False, convert=False,
         out=None):
    """posenc_rwse_f64 -> float64 [num_nodes, steps], out[v, t-1] = (P^t)_vv, P = D^-1 A. out: None
    or the array to fill. Isolated nodes get all zeros (PyG's 1/0 -> 0).

    By default self-loops in (src, dst) are IGNORED (the edge list is read as a simple undirected
    graph, duplicates summed). PyG's AddRandomWalkPE and GraphGPS keep them in A: pass
    keep_self_loops=True (posenc_rwse_ex_f64 with POSENC_GRAPH_KEEP_SELF_LOOPS) and, for PyG's
    edge_index (both directions listed), both_directions=True, so that a self-loop weighs as much
    as one undirected edge: karate club node 0 with a self-loop then gets 1/17 at t = 1, as in PyG
    (1/(d_v + 1) after AddSelfLoops). PyG matches for unweighted graphs (with weights, PyG's
    AddRandomWalkPE puts 1/deg, not w/deg, in P)."""
    src, dst, weights = _edges(src, dst, weights, convert)
    out = _out(out, (int(num_nodes), int(steps)), np.float64, inputs={"src": src, "dst": dst, "weights": weights})
    flags = (GRAPH_KEEP_SELF_LOOPS if keep_self_loops else 0) | (GRAPH_BOTH_DIRECTIONS if both_directions else 0)
    if flags == 0:
        _call("posenc_rwse_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0], int(steps),
              _ptr(out))
    else:
        _call("posenc_rwse_ex_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0], int(steps),
              flags, _ptr(out))
    return out


class RwseInfo(ctypes.Structure):
    """posenc_rwse_info (options and diagnostics of posenc_rwse_auto_f64)."""

    _fields_ = [("struct_size", ctypes.c_uint32), ("method", ctypes.c_int), ("flags", ctypes.c_uint32),
                ("walks", ctypes.c_int32), ("seed", ctypes.c_uint64), ("method_used", ctypes.c_int),
                ("walks_used", ctypes.c_int32), ("std_error_bound", ctypes.c_double), ("exact_cost", ctypes.c_double),
                ("monte_carlo_cost", ctypes.c_double)]


class RwseMethod(enum.IntEnum):
    AUTO = 0
    EXACT = 1
    MONTE_CARLO = 2


_RWSE_METHODS = {0: "auto", 1: "exact", 2: "monte_carlo"}
RWSE_DEFAULT_WALKS = 2500


def rwse_auto(num_nodes, src, dst, steps, weights=None, method=RwseMethod.AUTO, walks=0, seed=0,
              keep_self_loops=False, both_directions=False, info=False, convert=False, out=None):
    """posenc_rwse_auto_f64 -> float64 [num_nodes, steps] (as rwse: out[v, t-1] = (P^t)_vv),
    computed exactly or estimated by Monte-Carlo, whichever the cost model says is cheaper
    (method=RwseMethod.AUTO), or forced (EXACT: rwse's result bitwise; MONTE_CARLO). Monte-Carlo:
    `walks` random walks per node (0 = RWSE_DEFAULT_WALKS = 2500), unbiased, standard error of each
    entry <= sqrt(p (1 - p) / walks) <= 0.5 / sqrt(walks); bitwise reproducible for a given seed,
    whatever the thread count. keep_self_loops / both_directions as in rwse. With info=True returns
    (out, dict): method_used ("exact" or "monte_carlo"), walks_used, std_error_bound, exact_cost,
    monte_carlo_cost (the cost model's estimates, posenc.h). out: None or the array to fill."""
    src, dst, weights = _edges(src, dst, weights, convert)
    out = _out(out, (int(num_nodes), int(steps)), np.float64, inputs={"src": src, "dst": dst, "weights": weights})
    inf = RwseInfo()
    _call("posenc_rwse_info_init", ctypes.byref(inf))
    inf.method = int(method)
    inf.flags = (GRAPH_KEEP_SELF_LOOPS if keep_self_loops else 0) | (GRAPH_BOTH_DIRECTIONS if both_directions else 0)
    inf.walks = int(walks)
    inf.seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    _call("posenc_rwse_auto_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0], int(steps),
          _ptr(out), ctypes.byref(inf))
    if not info:
        return out
    d = {n: getattr(inf, n) for n in ("method_used", "walks_used", "std_error_bound", "exact_cost",
                                     "monte_carlo_cost")}
    d["method_used"] = _RWSE_METHODS.get(d["method_used"], d["method_used"])
    return out, d


def maglap_pe(num_nodes, src, dst, k, q=0.25, weights=None, laplacian=Laplacian.SYM, convert=False, out=None):
    """posenc_maglap_pe_f64: magnetic Laplacian PE of the DIRECTED graph src -> dst (MagLapPE,
    Geisler et al. 2023) -> (eigvals float64 [k] ascending, eigvecs_re, eigvecs_im float64
    [num_nodes, k]); eigvecs_re + 1j * eigvecs_im holds unit eigenvectors of L_q = I - D_s^-1/2
    (A_s * exp(i Theta)) D_s^-1/2 (laplacian=SYM) or D_s - A_s * exp(i Theta) (COMBINATORIAL),
    A_s = (W + W^T) / 2, Theta = 2 pi q (W - W^T), potential q >= 0. The entry of largest modulus
    of each column is real positive (deterministic phase). q = 0 gives LapPE's L_sym pairs.
    Connected components of <= 4096 nodes are solved densely, larger ones by the sparse
    shift-invert route with an inertia certificate (NOT_CONVERGED rather than a missing
    eigenvalue; see posenc.h). out: None or an (eigvals, eigvecs_re, eigvecs_im) triple of arrays to fill."""
    src, dst, weights = _edges(src, dst, weights, convert)
    ov, ore, oim = _outs(out, 3)
    ins = {"src": src, "dst": dst, "weights": weights}
    vals = _out(ov, (int(k),), np.float64, "out[0]", inputs=ins)
    re = _out(ore, (int(num_nodes), int(k)), np.float64, "out[1]", inputs=dict(ins, **{"out[0]": vals}))
    im = _out(oim, (int(num_nodes), int(k)), np.float64, "out[2]",
              inputs=dict(ins, **{"out[0]": vals, "out[1]": re}))
    _call("posenc_maglap_pe_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0], int(laplacian),
          float(q), int(k), _ptr(vals), _ptr(re), _ptr(im))
    return vals, re, im


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


def graph_batch_pe(ptr, edge_index, k, steps, edge_ptr=None, weights=None, laplacian=Laplacian.SYM, convert=False,
                   out=None, status=False, both_directions=False, keep_self_loops=False, drop_trivial=False,
                   nan_pad=False, rwse_method=None, walks=0, seed=0, rwse_methods=False):
    """posenc_graph_batch_pe_f64 / posenc_graph_batch_pe_ex_f64 (with a flag): LapPE (k > 0) and
    RWSE (steps > 0) of every graph of a PyG Batch.

    ptr: int64 [num_graphs + 1] (Batch.ptr), edge_index: int64 [2, E] with GLOBAL node ids
    (Batch.edge_index; the edges of each graph contiguous, in graph order). edge_ptr: int64
    [num_graphs + 1] edge offsets, or None to derive them from edge_index[0] and ptr
    (np.searchsorted). Returns (eigvals [num_graphs, k], eigvecs [N, k], rwse [N, steps]) (an
    entry is None when k / steps is 0), plus the per-graph statuses (int32 [num_graphs]) with
    status=True. out: None or an (eigvals, eigvecs, rwse) triple of arrays to fill (None entries
    allocated). Padding (n_g < k): eigvals NaN, eigvecs 0.

    PyG / GraphGPS flags, as in laplacian_pe and rwse: both_directions (LapPE and RWSE),
    keep_self_loops (RWSE), drop_trivial and nan_pad (LapPE; nan_pad pads eigvecs with NaN too, as
    GraphGPS). Every graph's rows are then bitwise those of laplacian_pe / rwse called on that graph
    with the same flags (without nan_pad: k capped at the pairs available, the rest padded as above).

    rwse_method (None, or a RwseMethod: AUTO, EXACT, MONTE_CARLO), walks, seed:
    posenc_graph_batch_pe_auto_f64: every graph's RWSE rows are rwse_auto's on that graph with these
    options (Monte-Carlo where forced, or under AUTO where the exact path costs more; molecules stay
    exact). rwse_methods=True appends an int32 [num_graphs] array of the RwseMethod each graph's
    RWSE used (requires rwse_method)."""
    ptr = _in(ptr, np.int64, "ptr", convert=convert, ndim=1)
    ei = _in(edge_index, np.int64, "edge_index", convert=convert, ndim=2)
    if ei.shape[0] != 2:
        raise ValueError(f"edge_index must have shape [2, E] (got {ei.shape})")
    if ptr.shape[0] < 2:
        raise ValueError("ptr must hold num_graphs + 1 >= 2 offsets")
    src, dst = np.ascontiguousarray(ei[0]), np.ascontiguousarray(ei[1])
    if edge_ptr is None:
        edge_ptr = np.searchsorted(src, ptr, side="left").astype(np.int64)
        edge_ptr[0], edge_ptr[-1] = 0, src.shape[0]
    else:
        edge_ptr = _in(edge_ptr, np.int64, "edge_ptr", ptr.shape, convert)
    if weights is not None:
        weights = _in(weights, np.float64, "weights", src.shape, convert)
    ng = ptr.shape[0] - 1
    n = int(ptr[-1])
    ov, oe, orw = _outs(out, 3)
    ins = {"ptr": ptr, "edge_index": ei, "weights": weights}
    vals = _out(ov, (ng, int(k)), np.float64, "out[0]", inputs=ins) if k > 0 else None
    vecs = _out(oe, (n, int(k)), np.float64, "out[1]", inputs=dict(ins, **{"out[0]": vals})) if k > 0 else None
    rw = _out(orw, (n, int(steps)), np.float64, "out[2]",
              inputs=dict(ins, **{"out[0]": vals, "out[1]": vecs})) if steps > 0 else None
    st = np.zeros(ng, np.int32)
    flags = ((GRAPH_BOTH_DIRECTIONS if both_directions else 0) | (GRAPH_KEEP_SELF_LOOPS if keep_self_loops else 0)
             | (LAPPE_DROP_TRIVIAL if drop_trivial else 0) | (LAPPE_NAN_PAD if nan_pad else 0))
    if rwse_method is not None:
        inf = RwseInfo()
        _call("posenc_rwse_info_init", ctypes.byref(inf))
        inf.method = int(rwse_method)
        inf.walks = int(walks)
        inf.seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        used = np.zeros(ng, np.int32)
        _call("posenc_graph_batch_pe_auto_f64", ng, _ptr(ptr), _ptr(edge_ptr), _ptr(src), _ptr(dst), _ptr(weights),
              int(laplacian), int(k), int(steps), int(flags), ctypes.byref(inf), _ptr(vals), _ptr(vecs), _ptr(rw),
              _ptr(st), _ptr(used))
        res = (vals, vecs, rw) + ((st,) if status else ())
        return res + (used,) if rwse_methods else res
    if rwse_methods:
        raise ValueError("rwse_methods=True needs rwse_method (the auto call)")
    if flags:
        _call("posenc_graph_batch_pe_ex_f64", ng, _ptr(ptr), _ptr(edge_ptr), _ptr(src), _ptr(dst), _ptr(weights),
              int(laplacian), int(k), int(steps), int(flags), _ptr(vals), _ptr(vecs), _ptr(rw), _ptr(st))
    else:
        _call("posenc_graph_batch_pe_f64", ng, _ptr(ptr), _ptr(edge_ptr), _ptr(src), _ptr(dst), _ptr(weights),
              int(laplacian), int(k), int(steps), _ptr(vals), _ptr(vecs), _ptr(rw), _ptr(st))
    return (vals, vecs, rw, st) if status else (vals, vecs, rw)


def rrwp(num_nodes, src, dst, steps, weights=None, convert=False, out=None):
    """posenc_rrwp_f64 -> (pairs int64 [P, 2] sorted, values float64 [P, steps]): values[p, s] =
    (P^s)_ij, P = D^-1 A, for every pair (i, j) within steps - 1 hops (GRIT's RRWP; the pairs
    (i, i) hold [1, RWSE]). out: None or a (pairs, values) pair of arrays of exactly these shapes
    (P from a first call, or from the C size query)."""
    src, dst, weights = _edges(src, dst, weights, convert)
    np_ = ctypes.c_int64(0)
    m = src.shape[0]
    _call("posenc_rrwp_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), m, int(steps), 0,
          ctypes.byref(np_), None, None)
    P = np_.value
    op, ov = _outs(out, 2)
    ins = {"src": src, "dst": dst, "weights": weights}
    pairs = _out(op, (P, 2), np.int64, "out[0]", inputs=ins)
    vals = _out(ov, (P, int(steps)), np.float64, "out[1]", inputs=dict(ins, **{"out[0]": pairs}))
    _call("posenc_rrwp_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), m, int(steps), P,
          ctypes.byref(np_), _ptr(pairs), _ptr(vals))
    return pairs, vals


def shortest_path(num_nodes, src, dst, max_hops, convert=False, out=None):
    """posenc_shortest_path_i32 -> (pairs int64 [P, 2] sorted, dist int32 [P]): hop distances of
    every pair within max_hops (Graphormer's spatial encoding; farther or unreachable pairs are
    not listed). out: None or a (pairs, dist) pair of arrays of exactly these shapes."""
    src = _in(src, np.int64, "src", convert=convert, ndim=1)
    dst = _in(dst, np.int64, "dst", src.shape, convert)
    np_ = ctypes.c_int64(0)
    m = src.shape[0]
    _call("posenc_shortest_path_i32", int(num_nodes), _ptr(src), _ptr(dst), m, int(max_hops), 0, ctypes.byref(np_),
          None, None)
    P = np_.value
    op, od = _outs(out, 2)
    ins = {"src": src, "dst": dst}
    pairs = _out(op, (P, 2), np.int64, "out[0]", inputs=ins)
    dist = _out(od, (P,), np.int32, "out[1]", inputs=dict(ins, **{"out[0]": pairs}))
    _call("posenc_shortest_path_i32", int(num_nodes), _ptr(src), _ptr(dst), m, int(max_hops), P, ctypes.byref(np_),
          _ptr(pairs), _ptr(dist))
    return pairs, dist


def heat_kernel_diag(num_nodes, src, dst, times, weights=None, laplacian=Laplacian.SYM, error_bound=False,
                     convert=False, out=None):
    """posenc_heat_kernel_diag_f64 -> float64 [num_nodes, len(times)], out[v, i] = exp(-times[i] L)_vv
    (HKdiagSE), exact to the returned bound (error_bound=True -> (out, bound)). out: None or the
    array to fill."""
    src, dst, weights = _edges(src, dst, weights, convert)
    ts = _in(times, np.float64, "times", convert=convert, ndim=1)
    o = _out(out, (int(num_nodes), ts.shape[0]), np.float64, inputs={"src": src, "dst": dst, "weights": weights,
                                                                     "times": ts})
    b = ctypes.c_double(0.0)
    _call("posenc_heat_kernel_diag_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
          int(laplacian), _ptr(ts), ts.shape[0], _ptr(o), ctypes.byref(b))
    return (o, b.value) if error_bound else o


def heat_kernel_rows(num_nodes, src, dst, t, sources, weights=None, laplacian=Laplacian.SYM, error_bound=False,
                     convert=False, out=None):
    """posenc_heat_kernel_rows_f64 -> float64 [len(sources), num_nodes], the rows exp(-t L)[s, :].
    out: None or the array to fill."""
    src, dst, weights = _edges(src, dst, weights, convert)
    so = _in(sources, np.int64, "sources", convert=convert, ndim=1)
    o = _out(out, (so.shape[0], int(num_nodes)), np.float64, inputs={"src": src, "dst": dst, "weights": weights,
                                                                     "sources": so})
    b = ctypes.c_double(0.0)
    _call("posenc_heat_kernel_rows_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
          int(laplacian), float(t), _ptr(so), so.shape[0], _ptr(o), ctypes.byref(b))
    return (o, b.value) if error_bound else o


def diffusion_distance(num_nodes, src, dst, t, pairs, weights=None, laplacian=Laplacian.SYM, error_bound=False,
                       convert=False, out=None):
    """posenc_diffusion_distance_f64 -> float64 [P], ||exp(-t L)(e_i - e_j)||_2 for pairs [P, 2]
    (int64), from the heat kernel (no eigenpairs). out: None or the array to fill."""
    src, dst, weights = _edges(src, dst, weights, convert)
    pr = _in(pairs, np.int64, "pairs", convert=convert, ndim=2)
    if pr.shape[1] != 2:
        raise ValueError(f"pairs must have shape [P, 2] (got {pr.shape})")
    o = _out(out, (pr.shape[0],), np.float64, inputs={"src": src, "dst": dst, "weights": weights, "pairs": pr})
    b = ctypes.c_double(0.0)
    _call("posenc_diffusion_distance_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
          int(laplacian), float(t), _ptr(pr), pr.shape[0], _ptr(o), ctypes.byref(b))
    return (o, b.value) if error_bound else o


def diffusion_distance_eig(eigvals, eigvecs, t, pairs, truncation_bound=False, convert=False, out=None):
    """posenc_diffusion_distance_eig_f64 -> float64 [P] from k eigenpairs (eigvals [k] ascending,
    eigvecs [num_nodes, k], e.g. laplacian_pe's); with truncation_bound=True -> (out, bound),
    0 <= exact - out <= bound = sqrt(2) exp(-t eigvals[k-1])."""
    ev = _in(eigvals, np.float64, "eigvals", convert=convert, ndim=1)
    V = _in(eigvecs, np.float64, "eigvecs", convert=convert, ndim=2)
    if V.shape[1] != ev.shape[0]:
        raise ValueError(f"eigvecs must have shape [num_nodes, {ev.shape[0]}] (got {V.shape})")
    pr = _in(pairs, np.int64, "pairs", convert=convert, ndim=2)
    if pr.shape[1] != 2:
        raise ValueError(f"pairs must have shape [P, 2] (got {pr.shape})")
    o = _out(out, (pr.shape[0],), np.float64, inputs={"eigvals": ev, "eigvecs": V, "pairs": pr})
    b = ctypes.c_double(0.0)
    _call("posenc_diffusion_distance_eig_f64", V.shape[0], ev.shape[0], _ptr(ev), _ptr(V), float(t), _ptr(pr),
          pr.shape[0], _ptr(o), ctypes.byref(b))
    return (o, b.value) if truncation_bound else o


__all__ = ['GRAPH_BOTH_DIRECTIONS', 'GRAPH_KEEP_SELF_LOOPS', 'LAPPE_DROP_TRIVIAL', 'LAPPE_NAN_PAD', 'Laplacian',
           'LaplacianPeInfo', 'LapPeMethod', 'diffusion_distance', 'diffusion_distance_eig', 'graph_batch_pe',
           'heat_kernel_apply', 'heat_kernel_diag', 'heat_kernel_rows', 'laplacian_pe', 'maglap_pe', 'rrwp', 'rwse',
           'RWSE_DEFAULT_WALKS', 'RwseInfo', 'RwseMethod', 'rwse_auto', 'shortest_path']
