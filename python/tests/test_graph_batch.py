# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.graph.graph_batch_pe (PyG Batch layout) against per-graph numpy references, rrwp against
dense numpy matrix powers, shortest_path against networkx."""
# needs-modules: networkx
import networkx as nx
import numpy as np
import pytest

import posenc
from posenc import graph


def _molecule(rng, n):
    s = [int(rng.integers(max(0, i - 3), i)) for i in range(1, n)]
    d = list(range(1, n))
    for _ in range(n // 8):
        a, b = rng.integers(0, n, 2)
        if a != b:
            s.append(int(a))
            d.append(int(b))
    s, d = np.array(s), np.array(d)
    return np.concatenate([s, d]), np.concatenate([d, s])  # both directions, as PyG's edge_index


def _batch(seed=0, count=25):
    rng = np.random.default_rng(seed)
    graphs, ptr, S, D = [], [0], [], []
    for _ in range(count):
        n = int(rng.integers(4, 30))
        s, d = _molecule(rng, n)
        graphs.append((n, s, d))
        S.append(s + ptr[-1])
        D.append(d + ptr[-1])
        ptr.append(ptr[-1] + n)
    return graphs, np.array(ptr, np.int64), np.stack([np.concatenate(S), np.concatenate(D)]).astype(np.int64)


def _lsym(n, s, d):
    A = np.zeros((n, n))
    np.add.at(A, (s, d), 1.0)
    np.add.at(A, (d, s), 1.0)
    np.fill_diagonal(A, 0.0)
    deg = A.sum(1)
    isq = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    return np.eye(n) - isq[:, None] * A * isq[None, :], A


def test_batch_against_numpy_per_graph():
    graphs, ptr, ei = _batch()
    k, steps = 10, 16
    vals, vecs, rw, st = graph.graph_batch_pe(ptr, ei, k, steps, status=True)
    assert (st == 0).all()
    for g, (n, s, d) in enumerate(graphs):
        L, A = _lsym(n, s, d)
        ref = np.linalg.eigvalsh(L)
        kk = min(k, n)
        np.testing.assert_allclose(vals[g, :kk], ref[:kk], atol=1e-13)
        assert np.isnan(vals[g, kk:]).all()
        V = vecs[ptr[g]:ptr[g + 1], :kk]
        assert (vecs[ptr[g]:ptr[g + 1], kk:] == 0).all()
        np.testing.assert_allclose(V.T @ V, np.eye(kk), atol=1e-13)
        np.testing.assert_allclose(L @ V, V * vals[g, :kk], atol=1e-12)
        # RWSE: numpy matrix powers of D^-1 A (the reference), and bitwise the single-graph call
        P = A / A.sum(1, keepdims=True)
        M = np.eye(n)
        for t in range(steps):
            M = M @ P
            np.testing.assert_allclose(rw[ptr[g]:ptr[g + 1], t], np.diag(M), atol=1e-14)
        assert np.array_equal(rw[ptr[g]:ptr[g + 1]], graph.rwse(n, s, d, steps))


def test_batch_out_and_threads():
    graphs, ptr, ei = _batch(seed=2)
    ng, N = len(graphs), int(ptr[-1])
    out = (np.empty((ng, 6)), np.empty((N, 6)), np.empty((N, 5)))
    old = posenc.threads_get()
    try:
        posenc.threads_set(1)
        a = graph.graph_batch_pe(ptr, ei, 6, 5, out=out)
        posenc.threads_set(3)
        b = graph.graph_batch_pe(ptr, ei, 6, 5)
    finally:
        posenc.threads_set(old)
    assert all(x is y for x, y in zip(a, out))
    for x, y in zip(a, b):
        assert np.array_equal(x, y, equal_nan=True)


def test_batch_bad_ptr_writes_nothing():
    graphs, ptr, ei = _batch(seed=3, count=4)
    bad = ptr.copy()
    bad[2] = bad[1] - 1
    with pytest.raises(posenc.Error, match="node_ptr"):
        graph.graph_batch_pe(bad, ei, 3, 2, edge_ptr=np.searchsorted(ei[0], ptr).astype(np.int64))
    e2 = ei.copy()
    e2[1, 0] = ptr[-1]  # outside graph 0
    out = (np.full((4, 3), 7.0), np.full((int(ptr[-1]), 3), 7.0), np.full((int(ptr[-1]), 2), 7.0))
    with pytest.raises(posenc.Error, match=r"dst\[0\]"):
        graph.graph_batch_pe(ptr, e2, 3, 2, out=out)
    assert all((o == 7.0).all() for o in out)


@pytest.mark.parametrize("steps", [1, 3, 6])
def test_rrwp_against_matrix_powers(steps):
    rng = np.random.default_rng(4)
    n, (s, d) = 26, _molecule(rng, 24)  # nodes 24, 25 isolated
    w = rng.uniform(0.3, 2.0, s.shape[0])
    pairs, vals = graph.rrwp(n, s, d, steps, weights=w)
    A = np.zeros((n, n))
    np.add.at(A, (s, d), w)
    np.add.at(A, (d, s), w)
    deg = A.sum(1, keepdims=True)
    P = np.divide(A, deg, out=np.zeros_like(A), where=deg > 0)
    powers = [np.eye(n)]
    for _ in range(1, steps):
        powers.append(powers[-1] @ P)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(s.tolist(), d.tolist()))
    sp = dict(nx.all_pairs_shortest_path_length(G, cutoff=steps - 1))
    expect = sorted((i, j) for i in sp for j in sp[i])
    assert [tuple(p) for p in pairs.tolist()] == expect
    for t in range(steps):
        np.testing.assert_allclose(vals[:, t], powers[t][pairs[:, 0], pairs[:, 1]], atol=1e-15)
    diag = pairs[:, 0] == pairs[:, 1]
    assert (vals[diag, 0] == 1.0).all()


@pytest.mark.parametrize("cap", [1, 2, 5])
def test_shortest_path_against_networkx(cap):
    rng = np.random.default_rng(5)
    s, d = _molecule(rng, 40)
    n = 42
    pairs, dist = graph.shortest_path(n, s, d, cap)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(s.tolist(), d.tolist()))
    sp = dict(nx.all_pairs_shortest_path_length(G, cutoff=cap))
    expect = sorted((i, j, sp[i][j]) for i in sp for j in sp[i])
    got = [(int(a), int(b), int(c)) for (a, b), c in zip(pairs.tolist(), dist.tolist())]
    assert got == expect
    with pytest.raises(posenc.Error, match="max_hops"):
        graph.shortest_path(n, s, d, 0)


@pytest.mark.parametrize("flags", [dict(both_directions=True), dict(keep_self_loops=True, both_directions=True),
                                   dict(drop_trivial=True), dict(nan_pad=True),
                                   dict(both_directions=True, keep_self_loops=True, drop_trivial=True, nan_pad=True)])
def test_batch_flags_bitwise_single_graph_calls(flags):
    graphs, ptr, ei = _batch(seed=3, count=12)
    # self-loops on the first node of every other graph, and a 1-node graph with a self-loop
    S, D = [ei[0]], [ei[1]]
    for g in range(0, len(graphs), 2):
        S.append(np.array([ptr[g]]))
        D.append(np.array([ptr[g]]))
    n0 = int(ptr[-1])
    ptr = np.append(ptr, n0 + 1).astype(np.int64)
    S.append(np.array([n0]))
    D.append(np.array([n0]))
    src, dst = np.concatenate(S), np.concatenate(D)
    order = np.argsort(np.searchsorted(ptr, src, side="right") - 1, kind="stable")
    ei2 = np.stack([src[order], dst[order]]).astype(np.int64)
    k, steps = 6, 7
    vals, vecs, rw, st = graph.graph_batch_pe(ptr, ei2, k, steps, status=True, **flags)
    assert (st == 0).all()
    lap = {f: flags.get(f, False) for f in ("both_directions", "drop_trivial", "nan_pad")}
    rws = {f: flags.get(f, False) for f in ("both_directions", "keep_self_loops")}
    drop = 1 if lap["drop_trivial"] else 0
    for g in range(len(ptr) - 1):
        lo, hi = int(ptr[g]), int(ptr[g + 1])
        n = hi - lo
        m = (ei2[0] >= lo) & (ei2[0] < hi)
        s, d = ei2[0][m] - lo, ei2[1][m] - lo
        np.testing.assert_array_equal(rw[lo:hi], graph.rwse(n, s, d, steps, **rws))
        kk = k if lap["nan_pad"] else min(k, n - drop)
        if kk >= 1:
            v1, e1 = graph.laplacian_pe(n, s, d, kk, **lap)
            np.testing.assert_array_equal(vals[g, :kk], v1)
            np.testing.assert_array_equal(vecs[lo:hi, :kk], e1)
        assert np.isnan(vals[g, max(kk, 0):]).all()
        assert (vecs[lo:hi, max(kk, 0):] == 0).all()
    # GraphGPS's padding: NaN eigenvalues and eigenvectors beyond N (k > N for the small graphs)
    if lap["nan_pad"] and not lap["drop_trivial"]:
        g = len(ptr) - 2  # the 1-node graph
        assert vals[g, 0] == 1.0 and np.isnan(vals[g, 1:]).all() and np.isnan(vecs[ptr[g], 1:]).all()


def test_batch_monte_carlo_rwse_per_graph():
    graphs, ptr, ei = _batch(seed=5, count=8)
    steps, walks = 6, 2000
    vals, vecs, rw, used = graph.graph_batch_pe(ptr, ei, 3, steps, rwse_method=graph.RwseMethod.MONTE_CARLO,
                                                walks=walks, seed=7, rwse_methods=True)
    assert (used == graph.RwseMethod.MONTE_CARLO).all()
    ref_vals, ref_vecs, ref_rw = graph.graph_batch_pe(ptr, ei, 3, steps)
    assert np.array_equal(vals, ref_vals, equal_nan=True) and np.array_equal(vecs, ref_vecs)
    for g, (n, s, d) in enumerate(graphs):
        mine = rw[ptr[g]:ptr[g + 1]]
        # bitwise the single-graph estimator with the same options (seed keyed by local node ids)
        assert np.array_equal(mine, graph.rwse_auto(n, s, d, steps, method=graph.RwseMethod.MONTE_CARLO, walks=walks,
                                                    seed=7))
        # unbiased, standard error <= 0.5 / sqrt(walks) per entry: within 6 of them of the exact powers
        assert np.abs(mine - ref_rw[ptr[g]:ptr[g + 1]]).max() <= 6 * 0.5 / np.sqrt(walks)
    # AUTO at the default budget: molecules take the exact path (bitwise the plain call)
    _, _, rw2, used2 = graph.graph_batch_pe(ptr, ei, 3, steps, rwse_method=graph.RwseMethod.AUTO, rwse_methods=True)
    assert (used2 == graph.RwseMethod.EXACT).all() and np.array_equal(rw2, ref_rw)
    with pytest.raises(posenc.Error, match=r"rwse_options->walks"):
        graph.graph_batch_pe(ptr, ei, 3, steps, rwse_method=graph.RwseMethod.AUTO, walks=-1)
