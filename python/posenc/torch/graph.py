# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch.graph — Laplacian eigenvector PE and random-walk SE of a PyG-style edge_index.

Plain functions returning float64 tensors (no autograd: the encodings are inputs, not
parameters). The graph is PyG's ``edge_index`` [2, E] (row 0 source, row 1 target), with
optional ``edge_weight`` [E], and ``num_nodes`` (default: max node id + 1, PyG's
maybe_num_nodes). The helpers pass posenc's PyG-compatibility flags (graph section of
posenc.h): by default the edge_index lists both directions, as in PyG."""
from __future__ import annotations

import torch

from .._lib import ArgumentError
from ..graph import Laplacian
from ._common import cfn, check, contiguous_c, tensor


def _graph(edge_index, edge_weight, num_nodes):
    tensor(edge_index, "edge_index", (torch.int64, torch.int32), "node ids are integers")
    if edge_index.dim() != 2 or edge_index.shape[0] != 2:
        raise ArgumentError(f"edge_index must have shape (2, num_edges) (got {tuple(edge_index.shape)})")
    ei = contiguous_c(edge_index.to(torch.int64))
    E = ei.shape[1]
    if num_nodes is None:
        num_nodes = int(ei.max()) + 1 if E > 0 else 0
    w = None
    if edge_weight is not None:
        tensor(edge_weight, "edge_weight", (torch.float64, torch.float32), "weights are real numbers")
        if tuple(edge_weight.shape) != (E,):
            raise ArgumentError(f"edge_weight must have shape ({E},) (got {tuple(edge_weight.shape)})")
        w = contiguous_c(edge_weight.detach().to(torch.float64))
    return ei, w, int(num_nodes), E


def laplacian_pe(edge_index, k, num_nodes=None, edge_weight=None, normalization="sym", drop_first=True,
                 both_directions=True, nan_pad=False, return_eigvals=False):
    """Laplacian eigenvector PE (posenc_laplacian_pe_ex_f64) -> eigvecs float64 [num_nodes, k]
    (and eigvals [k] with return_eigvals=True).

    drop_first=True is PyG's AddLaplacianEigenvectorPE(k): the k+1 smallest eigenpairs, the first
    (trivial) one dropped (POSENC_LAPPE_DROP_TRIVIAL; exactly one, also for a disconnected graph);
    False keeps it (GraphGPS). normalization "sym" (I - D^-1/2 A D^-1/2, PyG's default for the
    transform) or None (D - A). both_directions=True (PyG's convention: every undirected edge
    listed in both directions; POSENC_GRAPH_BOTH_DIRECTIONS) counts each listed edge half, so that
    D - A has PyG's / GraphGPS's eigenvalues (L_sym does not change with a common weight scale).
    nan_pad=True (GraphGPS, N < k): the columns beyond the available pairs are NaN (eigvals too)
    instead of an error (POSENC_LAPPE_NAN_PAD). Differences from PyG: signs are deterministic (the
    largest-magnitude entry of each column is positive; PyG flips each column at random) and the
    basis of a repeated eigenvalue is arbitrary in both."""
    import ctypes

    from ..graph import (GRAPH_BOTH_DIRECTIONS, LAPPE_DROP_TRIVIAL, LAPPE_NAN_PAD, LaplacianPeInfo)
    lap = {"sym": Laplacian.SYM, None: Laplacian.COMBINATORIAL, "none": Laplacian.COMBINATORIAL}.get(normalization)
    if lap is None:
        raise ArgumentError(f"normalization must be 'sym' or None (got {normalization!r})")
    ei, w, n, E = _graph(edge_index, edge_weight, num_nodes)
    flags = ((GRAPH_BOTH_DIRECTIONS if both_directions else 0) | (LAPPE_DROP_TRIVIAL if drop_first else 0)
             | (LAPPE_NAN_PAD if nan_pad else 0))
    kk = max(int(k), 0)
    vals = torch.empty(kk, dtype=torch.float64)
    vecs = torch.empty((max(n, 0), kk), dtype=torch.float64)
    info = LaplacianPeInfo()
    check(cfn("posenc_laplacian_pe_info_init")(ctypes.byref(info)))
    info.flags = flags
    check(cfn("posenc_laplacian_pe_ex_f64")(n, ei[0].data_ptr(), ei[1].data_ptr(),
                                            None if w is None else w.data_ptr(), E, int(lap), int(k),
                                            vals.data_ptr(), vecs.data_ptr(), ctypes.byref(info)))
    return (vals, vecs) if return_eigvals else vecs


def rwse(edge_index, walk_length, num_nodes=None, edge_weight=None, keep_self_loops=True, both_directions=True):
    """Random-walk SE (posenc_rwse_ex_f64) -> float64 [num_nodes, walk_length], column t-1 the
    return probability (P^t)_vv, P = D^-1 A: PyG's AddRandomWalkPE(walk_length). The defaults
    are PyG's semantics: self-loops are kept in A and the degree (keep_self_loops,
    POSENC_GRAPH_KEEP_SELF_LOOPS; after AddSelfLoops node v gets 1/(d_v + 1) at t = 1) and
    edge_index lists both directions (both_directions, POSENC_GRAPH_BOTH_DIRECTIONS: a self-loop
    weighs as much as one undirected edge). keep_self_loops=False ignores self-loops. Isolated
    nodes get zeros, as in PyG. With edge weights PyG's transform puts 1/deg (not w/deg) in P;
    posenc uses P = D^-1 A."""
    ei, w, n, E = _graph(edge_index, edge_weight, num_nodes)
    flags = (2 if keep_self_loops else 0) | (1 if both_directions else 0)
    out = torch.empty((max(n, 0), max(int(walk_length), 0)), dtype=torch.float64)
    check(cfn("posenc_rwse_ex_f64")(n, ei[0].data_ptr(), ei[1].data_ptr(), None if w is None else w.data_ptr(), E,
                                    int(walk_length), flags, out.data_ptr()))
    return out


__all__ = ["laplacian_pe", "rwse"]
