# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_laplacian_pe_f64 posenc_rwse_f64 posenc_laplacian_pe_ex_f64 posenc_laplacian_pe_info_init
"""graph family against SciPy eigsh (LapPE) and NumPy matrix powers (RWSE)."""
import os

import numpy as np
import pytest
import scipy.sparse as sps
from scipy.sparse.linalg import eigsh

import posenc

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data")


def karate():
    e = np.loadtxt(os.path.join(DATA, "karate.edges"), dtype=np.int64, comments="#")
    return 34, e[:, 0].copy(), e[:, 1].copy()


def sym_laplacian(n, src, dst):
    A = sps.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    A = A + A.T
    d = np.asarray(A.sum(1)).ravel()
    Dm = sps.diags(1 / np.sqrt(d))
    return sps.identity(n) - Dm @ A @ Dm, A


def test_lappe_karate_vs_eigsh():
    n, src, dst = karate()
    k = 6
    vals, vecs = posenc.laplacian_pe(n, src, dst, k)
    L, _ = sym_laplacian(n, src, dst)
    ref_vals, ref_vecs = eigsh(L, k=k, which="SA", tol=1e-12)
    order = np.argsort(ref_vals)
    ref_vals, ref_vecs = ref_vals[order], ref_vecs[:, order]
    np.testing.assert_allclose(vals, ref_vals, atol=1e-10)
    for j in range(k):  # distinct eigenvalues here: vectors agree up to sign
        r = ref_vecs[:, j] * np.sign(ref_vecs[np.argmax(np.abs(ref_vecs[:, j])), j])
        np.testing.assert_allclose(vecs[:, j], r, atol=1e-8)
        assert vecs[np.argmax(np.abs(vecs[:, j])), j] > 0  # sign rule
    np.testing.assert_allclose(np.abs(L @ vecs - vecs * vals).max(), 0, atol=1e-10)


def test_lappe_large_grid_vs_eigsh():
    side = 45  # 2025 nodes
    idx = np.arange(side * side).reshape(side, side)
    src = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()]).astype(np.int64)
    dst = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()]).astype(np.int64)
    vals, vecs, info = posenc.laplacian_pe(side * side, src, dst, 5, info=True)
    assert info["method"] in ("dense", "shift_invert", "lanczos") and info["components"] == 1
    assert 0 <= info["max_residual"] < 1e-8
    v2, _, info2 = posenc.laplacian_pe(side * side, src, dst, 5, solver=posenc.LapPeMethod.LANCZOS)
    assert info2["method"] == "lanczos" and info2["matvecs"] > 0
    np.testing.assert_allclose(v2, vals, atol=1e-9)
    L, _ = sym_laplacian(side * side, src, dst)
    ref = np.sort(eigsh(L, k=5, sigma=-1e-3, which="LM")[0])
    np.testing.assert_allclose(vals, ref, atol=1e-9)
    assert np.abs(L @ vecs - vecs * vals).max() < 1e-8


def test_rwse_vs_matrix_powers():
    n, src, dst = karate()
    steps = 6
    out = posenc.rwse(n, src, dst, steps)
    _, A = sym_laplacian(n, src, dst)
    P = np.diag(1 / np.asarray(A.sum(1)).ravel()) @ A.toarray()
    Pt = np.eye(n)
    for t in range(steps):
        Pt = Pt @ P
        np.testing.assert_allclose(out[:, t], np.diag(Pt), atol=1e-13)


def test_graph_errors():
    with pytest.raises(posenc.Error) as e:
        posenc.laplacian_pe(3, np.array([0, 1], np.int64), np.array([1, 7], np.int64), 2)
    assert e.value.status == posenc.Status.ERR_INVALID_ARGUMENT
    with pytest.raises(posenc.ArgumentError):
        posenc.laplacian_pe(3, np.array([0, 1], np.int64), np.array([1], np.int64), 2)
