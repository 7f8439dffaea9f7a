# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rwse_auto_f64 posenc_rwse_info_init posenc_rwse_f64
"""posenc.graph.rwse_auto (Monte-Carlo RWSE and the AUTO choice) against NumPy matrix powers."""
import os

import numpy as np
import pytest

import posenc

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data")


def karate():
    e = np.loadtxt(os.path.join(DATA, "karate.edges"), dtype=np.int64, comments="#")
    return 34, e[:, 0].copy(), e[:, 1].copy()


def dense_rwse(n, s, d, steps, w=None):
    A = np.zeros((n, n))
    np.add.at(A, (s, d), 1.0 if w is None else w)
    np.add.at(A, (d, s), 1.0 if w is None else w)
    deg = A.sum(1)
    P = A / np.where(deg > 0, deg, 1.0)[:, None]
    out, M = np.empty((n, steps)), np.eye(n)
    for t in range(steps):
        M = M @ P
        out[:, t] = np.diag(M)
    return out


def test_monte_carlo_within_stated_std_error():
    n, s, d = karate()
    ref = dense_rwse(n, s, d, 12)
    R = 3000
    got, info = posenc.graph.rwse_auto(n, s, d, 12, method=posenc.graph.RwseMethod.MONTE_CARLO, walks=R, seed=3,
                                       info=True)
    assert info["method_used"] == "monte_carlo" and info["walks_used"] == R
    assert info["std_error_bound"] == pytest.approx(0.5 / np.sqrt(R))
    se = np.sqrt(ref * (1 - ref) / R)
    assert np.all(np.abs(got - ref) <= 5 * se + 1e-12)
    z = (got - ref)[se > 0] / se[se > 0]
    assert np.mean(z ** 2) <= 1.0
    # weighted rows (binary search), reproducible for a seed, different for another
    w = np.linspace(0.5, 2.0, len(s))
    g1 = posenc.graph.rwse_auto(n, s, d, 6, weights=w, method=2, walks=R, seed=9)
    g2 = posenc.graph.rwse_auto(n, s, d, 6, weights=w, method=2, walks=R, seed=9)
    assert np.array_equal(g1, g2)
    assert not np.array_equal(g1, posenc.graph.rwse_auto(n, s, d, 6, weights=w, method=2, walks=R, seed=10))
    refw = dense_rwse(n, s, d, 6, w)
    sew = np.sqrt(refw * (1 - refw) / R)
    assert np.all(np.abs(g1 - refw) <= 5 * sew + 1e-12)


def test_auto_is_exact_on_small_graphs_and_fills_out():
    n, s, d = karate()
    out = np.full((n, 16), np.nan)
    got, info = posenc.graph.rwse_auto(n, s, d, 16, info=True, out=out)
    assert got is out
    assert info["method_used"] == "exact" and info["walks_used"] == 0 and info["std_error_bound"] == 0.0
    assert 0 < info["exact_cost"] <= info["monte_carlo_cost"]
    assert np.array_equal(out, posenc.graph.rwse(n, s, d, 16))


def test_bad_arguments_name_the_field():
    n, s, d = karate()
    out = np.full((n, 4), 7.0)
    with pytest.raises(posenc.Error, match="info->walks"):
        posenc.graph.rwse_auto(n, s, d, 4, walks=-1, out=out)
    with pytest.raises(posenc.Error, match="info->method"):
        posenc.graph.rwse_auto(n, s, d, 4, method=5, out=out)
    with pytest.raises(posenc.Error, match="steps"):
        posenc.graph.rwse_auto(n, s, d, 0)
    assert np.all(out == 7.0)
