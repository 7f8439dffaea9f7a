# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.graph.heat_kernel_apply against scipy.linalg.expm of a dense Laplacian built here."""
import numpy as np
import pytest
import scipy.linalg

import posenc
from posenc import graph
from graph_dense import dense_laplacian as _laplacian


def _graph(seed=0, n=40, m=120):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n - 4, m)
    d = rng.integers(0, n - 4, m)
    w = rng.uniform(0.2, 3.0, m)
    return n, s, d, w


@pytest.mark.parametrize("kind", [graph.Laplacian.SYM, graph.Laplacian.COMBINATORIAL])
@pytest.mark.parametrize("t", [0.0, 0.05, 1.0, 6.0, 25.0])
def test_against_expm(kind, t):
    n, s, d, w = _graph()
    L = _laplacian(n, s, d, w, kind)
    X = np.random.default_rng(1).standard_normal((n, 3))
    y, bound = graph.heat_kernel_apply(n, s, d, t, X, weights=w, laplacian=kind, error_bound=True)
    ref = scipy.linalg.expm(-t * L) @ X
    err = np.linalg.norm(y - ref, axis=0) / np.linalg.norm(X, axis=0)
    assert err.max() <= max(bound, 1e-14)
    assert err.max() <= 1e-14
    y1 = graph.heat_kernel_apply(n, s, d, t, X[:, 1].copy(), weights=w, laplacian=kind)
    assert y1.shape == (n,)
    np.testing.assert_allclose(y1, y[:, 1], rtol=0, atol=1e-15)


def test_out_in_place_and_errors():
    n, s, d, w = _graph(2)
    X = np.random.default_rng(3).standard_normal((n, 2))
    y = graph.heat_kernel_apply(n, s, d, 0.7, X, weights=w)
    Z = X.copy()
    assert graph.heat_kernel_apply(n, s, d, 0.7, Z, weights=w, out=Z) is Z
    assert np.array_equal(Z, y)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(posenc.Error, match="t must be"):
            graph.heat_kernel_apply(n, s, d, bad, X, weights=w)
