# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rwse_ex_f64 posenc_laplacian_pe_ex_f64 posenc_laplacian_pe_info_init posenc_maglap_pe_f64
"""PyG / GraphGPS compatibility flags and MagLapPE against dense NumPy references.

PyG and GraphGPS are not installed here: their documented computations are written out below
(AddRandomWalkPE's dense path, AddLaplacianEigenvectorPE, GraphGPS's get_lap_decomp_stats), on
PyG's edge_index convention (every undirected edge listed in both directions)."""
import os

import numpy as np

import posenc

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data")


def karate_edge_index():
    e = np.loadtxt(os.path.join(DATA, "karate.edges"), dtype=np.int64, comments="#")
    return np.concatenate([e.T, e.T[::-1]], axis=1)  # PyG: both directions


def pyg_random_walk_pe(edge_index, n, walk_length):
    """torch_geometric.transforms.AddRandomWalkPE, dense path (N <= 2000), unweighted."""
    row, col = edge_index
    deg = np.bincount(row, minlength=n).astype(np.float64)
    value = 1.0 / np.maximum(deg, 1.0)[row]
    adj = np.zeros((n, n))
    adj[row, col] = value
    out, pe = adj, [np.diag(adj).copy()]
    for _ in range(walk_length - 1):
        out = out @ adj
        pe.append(np.diag(out).copy())
    return np.stack(pe, axis=1)


def same_eigenspaces(vals, vecs, ref_vals, ref_vecs, k, tol):
    """Compare projectors onto the eigenspaces of the k first values (clusters cut by k skipped)."""
    j = 0
    while j < k:
        e = j
        while e + 1 < len(ref_vals) and abs(ref_vals[e + 1] - ref_vals[j]) < 1e-8:
            e += 1
        if e < k:
            P = vecs[:, j:e + 1] @ vecs[:, j:e + 1].conj().T
            R = ref_vecs[:, j:e + 1] @ ref_vecs[:, j:e + 1].conj().T
            assert np.abs(P - R).max() < tol, (j, e, np.abs(P - R).max())
        j = e + 1


def test_rwse_self_loops_match_pyg():
    ei = karate_edge_index()
    n = 34
    loops = np.arange(n, dtype=np.int64)
    ei = np.concatenate([ei, np.stack([loops, loops])], axis=1)  # AddSelfLoops
    out = posenc.rwse(n, ei[0].copy(), ei[1].copy(), 8, keep_self_loops=True, both_directions=True)
    assert abs(out[0, 0] - 1 / 17) < 1e-16  # PyG: node 0 (degree 16) + self-loop
    np.testing.assert_allclose(out, pyg_random_walk_pe(ei, n, 8), rtol=0, atol=1e-13)
    # Default: self-loops ignored (posenc_rwse_f64), equal to PyG without them.
    plain = posenc.rwse(n, ei[0].copy(), ei[1].copy(), 8)
    np.testing.assert_allclose(plain, pyg_random_walk_pe(karate_edge_index(), n, 8), rtol=0, atol=1e-13)


def test_lappe_graphgps_combinatorial_nan_pad():
    # GraphGPS (laplacian_norm none): L = D - A of the undirected edge_index, eigh, k smallest,
    # NaN padding of eigenvalues and eigenvectors when N < max_freqs.
    def graphgps(ei, n, max_freqs):
        A = np.zeros((n, n))
        A[ei[0], ei[1]] = 1.0
        evals, evecs = np.linalg.eigh(np.diag(A.sum(1)) - A)
        idx = evals.argsort()[:max_freqs]
        evals, evecs = evals[idx], evecs[:, idx]
        if n < max_freqs:
            evals = np.pad(evals, (0, max_freqs - n), constant_values=np.nan)
            evecs = np.pad(evecs, ((0, 0), (0, max_freqs - n)), constant_values=np.nan)
        return evals, evecs

    ei = karate_edge_index()
    vals, vecs = posenc.laplacian_pe(34, ei[0].copy(), ei[1].copy(), 10, laplacian=posenc.Laplacian.COMBINATORIAL,
                                     both_directions=True)
    rv, rV = graphgps(ei, 34, 10)
    np.testing.assert_allclose(vals, rv, rtol=0, atol=1e-11)
    A = np.zeros((34, 34))
    A[ei[0], ei[1]] = 1.0
    fv, fV = np.linalg.eigh(np.diag(A.sum(1)) - A)
    same_eigenspaces(vals, vecs, fv, fV, 10, 1e-9)
    # Without the flag: exactly twice GraphGPS's eigenvalues (each pair counted twice).
    v2, _ = posenc.laplacian_pe(34, ei[0].copy(), ei[1].copy(), 10, laplacian=posenc.Laplacian.COMBINATORIAL)
    np.testing.assert_allclose(v2, 2 * rv, rtol=0, atol=2e-11)
    # A 6-node molecule-sized graph (a ring with a chord) and max_freqs = 8 > N.
    ring = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0], [0, 3]], dtype=np.int64).T
    ei6 = np.concatenate([ring, ring[::-1]], axis=1)
    vals, vecs = posenc.laplacian_pe(6, ei6[0].copy(), ei6[1].copy(), 8, laplacian=posenc.Laplacian.COMBINATORIAL,
                                     both_directions=True, nan_pad=True)
    rv, rV = graphgps(ei6, 6, 8)
    np.testing.assert_array_equal(np.isnan(vals), np.isnan(rv))
    np.testing.assert_array_equal(np.isnan(vecs), np.isnan(rV))
    np.testing.assert_allclose(vals[:6], rv[:6], rtol=0, atol=1e-12)
    same_eigenspaces(vals, vecs, rv, rV, 6, 1e-10)


def test_lappe_pyg_drop_first():
    # PyG AddLaplacianEigenvectorPE(k): get_laplacian(normalization="sym"), the k + 1 smallest,
    # eig_vecs[:, 1:k + 1].
    ei = karate_edge_index()
    n, k = 34, 6
    A = np.zeros((n, n))
    A[ei[0], ei[1]] = 1.0
    d = A.sum(1)
    L = np.eye(n) - A / np.sqrt(np.outer(d, d))
    rv, rV = np.linalg.eigh(L)
    vals, vecs = posenc.laplacian_pe(n, ei[0].copy(), ei[1].copy(), k, drop_trivial=True, both_directions=True)
    np.testing.assert_allclose(vals, rv[1:k + 1], rtol=0, atol=1e-12)
    same_eigenspaces(vals, vecs, rv[1:], rV[:, 1:], k, 1e-9)
    full, fvec = posenc.laplacian_pe(n, ei[0].copy(), ei[1].copy(), k + 1, both_directions=True)
    np.testing.assert_array_equal(vals, full[1:])
    np.testing.assert_array_equal(vecs, fvec[:, 1:])


def dense_maglap(n, src, dst, q, w=None, sym=True):
    W = np.zeros((n, n))
    np.add.at(W, (src, dst), np.ones(len(src)) if w is None else w)
    np.fill_diagonal(W, 0.0)
    As = (W + W.T) / 2
    H = As * np.exp(1j * 2 * np.pi * q * (W - W.T))
    d = As.sum(1)
    if not sym:
        return np.diag(d) - H
    isq = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0.0)
    return np.eye(n) - isq[:, None] * H * isq[None, :]


def random_digraph(n, p, seed):
    rng = np.random.default_rng(seed)
    M = (rng.random((n, n)) < p) & ~np.eye(n, dtype=bool)
    src, dst = np.nonzero(M)
    path = np.arange(n - 1)
    return np.concatenate([src, path]).astype(np.int64), np.concatenate([dst, path + 1]).astype(np.int64)


def test_maglap_vs_dense_eigh():
    n, k = 30, 10
    src, dst = random_digraph(n, 0.12, 5)
    w = np.random.default_rng(6).uniform(0.5, 2.0, len(src))
    for lap in (posenc.Laplacian.SYM, posenc.Laplacian.COMBINATORIAL):
        for q in (0.05, 0.25, 0.5):
            vals, re, im = posenc.maglap_pe(n, src, dst, k, q=q, weights=w, laplacian=lap)
            L = dense_maglap(n, src, dst, q, w, lap == posenc.Laplacian.SYM)
            rv, rV = np.linalg.eigh(L)
            np.testing.assert_allclose(vals, rv[:k], rtol=0, atol=1e-10)
            V = re + 1j * im
            np.testing.assert_allclose(V.conj().T @ V, np.eye(k), rtol=0, atol=1e-12)
            same_eigenspaces(vals, V, rv, rV, k, 1e-9)
            # Phase rule: the first entry of largest modulus is real positive.
            for j in range(k):
                a = np.abs(V[:, j])
                i = np.nonzero(a >= a.max() * (1 - 1e-6))[0][0]
                assert im[i, j] == 0.0 and re[i, j] > 0.0


def test_maglap_q0_is_lappe_and_out():
    n = 20
    src, dst = random_digraph(n, 0.15, 9)
    vals, re, im = posenc.maglap_pe(n, src, dst, 6, q=0.0)
    lv, lV = posenc.laplacian_pe(n, src, dst, 6)
    np.testing.assert_allclose(vals, lv, rtol=0, atol=1e-12)
    assert np.all(im == 0.0)
    same_eigenspaces(vals, re, lv, lV, 5, 1e-9)
    outs = (np.empty(6), np.empty((n, 6)), np.empty((n, 6)))
    r = posenc.maglap_pe(n, src, dst, 6, q=0.0, out=outs)
    assert r[0] is outs[0] and r[1] is outs[1]
    np.testing.assert_array_equal(outs[0], vals)
    # q < 0 is rejected.
    try:
        posenc.maglap_pe(n, src, dst, 6, q=-0.1)
    except posenc.Error as e:
        assert "q" in str(e)
    else:
        raise AssertionError("q < 0 accepted")
