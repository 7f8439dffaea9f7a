# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.graph heat-kernel diagonal / rows and diffusion distances against scipy.linalg.expm."""
import numpy as np
import pytest
import scipy.linalg

import posenc
from posenc import graph
from graph_dense import dense_laplacian as _laplacian


def _graph(seed=0, n=40, m=110):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n - 3, m)
    d = rng.integers(0, n - 3, m)
    w = rng.uniform(0.2, 3.0, m)
    return n, s, d, w


@pytest.mark.parametrize("kind", [graph.Laplacian.SYM, graph.Laplacian.COMBINATORIAL])
def test_diag_and_rows_against_expm(kind):
    n, s, d, w = _graph()
    L = _laplacian(n, s, d, w, kind)
    times = np.array([0.0, 0.2, 1.0, 5.0])
    diag, bound = graph.heat_kernel_diag(n, s, d, times, weights=w, laplacian=kind, error_bound=True)
    assert bound < 1e-10
    src = np.array([3, 0, 39], np.int64)
    for i, t in enumerate(times):
        H = scipy.linalg.expm(-t * L)
        np.testing.assert_allclose(diag[:, i], np.diag(H), atol=1e-13)
        rows = graph.heat_kernel_rows(n, s, d, t, src, weights=w, laplacian=kind)
        np.testing.assert_allclose(rows, H[src], atol=1e-13)


def test_diffusion_distance_against_expm_and_eigenpairs():
    n, s, d, w = _graph(seed=1)
    L = _laplacian(n, s, d, w, graph.Laplacian.SYM)
    pairs = np.array([[0, 1], [5, 20], [7, 7], [36, 38], [2, 30]], np.int64)
    for t in (0.5, 3.0):
        H = scipy.linalg.expm(-t * L)
        ref = np.linalg.norm(H[:, pairs[:, 0]] - H[:, pairs[:, 1]], axis=0)
        got, b = graph.diffusion_distance(n, s, d, t, pairs, weights=w, error_bound=True)
        np.testing.assert_allclose(got, ref, atol=1e-13)
        for k in (6, 20, n):
            vals, vecs = graph.laplacian_pe(n, s, d, k, weights=w)
            dk, tb = graph.diffusion_distance_eig(vals, vecs, t, pairs, truncation_bound=True)
            assert (dk <= ref + 1e-12).all() and (ref - dk <= tb + 1e-12).all()


def test_bad_times():
    n, s, d, w = _graph()
    with pytest.raises(posenc.Error, match=r"times\[1\]"):
        graph.heat_kernel_diag(n, s, d, np.array([1.0, -2.0]))
    with pytest.raises(posenc.Error, match="t must be finite"):
        graph.diffusion_distance(n, s, d, np.nan, np.array([[0, 1]], np.int64))
