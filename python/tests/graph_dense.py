# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Dense references shared by the graph tests: the Laplacian of an edge list built with NumPy."""
import numpy as np

from posenc import graph


def dense_laplacian(n, s, d, w, kind):
    """L_sym or D - A of the undirected multigraph (s, d, w); self-loops dropped, isolated nodes 0."""
    A = np.zeros((n, n))
    for a, b, x in zip(s, d, w):
        if a != b:
            A[a, b] += x
            A[b, a] += x
    deg = A.sum(1)
    if kind == graph.Laplacian.COMBINATORIAL:
        return np.diag(deg) - A
    isq = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    return np.eye(n) - isq[:, None] * A * isq[None, :]
