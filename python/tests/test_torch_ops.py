# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_learned_add_f32 posenc_learned_grad_f32 posenc_sph_harm_real_f64 posenc_sph_harm_real_f32 posenc_laplacian_pe_ex_f64 posenc_laplacian_pe_info_init posenc_rwse_ex_f64
# needs-modules: torch
"""posenc.torch learned_add (autograd), sph_harm_real (forward values; its autograd is tested in test_torch_sphere.py), laplacian_pe and
rwse of a PyG edge_index, against torch / NumPy float64 references.

learned_add has no float64 variant in the C ABI: its forward is one float32 addition (compared
bitwise with torch's x + table[positions]); its table gradient is compared with torch autograd of
the float64 formula (tolerance: float32 accumulation, 1e-6 of the sum of |contributions| per
entry) and bitwise with the documented sequential float32 loop."""

import numpy as np
import pytest
import torch

import posenc
import posenc.torch as pt

torch.manual_seed(2)


def test_learned_add_forward_backward():
    rows, dim = 50, 24
    table = torch.randn(rows, dim, requires_grad=True)
    x = torch.randn(3, 40, dim, requires_grad=True)
    pos = torch.randint(0, rows, (40,))
    y = pt.learned_add(x, table, pos)
    assert torch.equal(y, x.detach() + table.detach()[pos])
    g = torch.randn_like(y)
    y.backward(g)
    assert torch.equal(x.grad, g)
    t64 = table.detach().double().requires_grad_()
    (x.detach().double() + t64[pos] * 1.0).backward(g.double())
    bound = 1e-6 * torch.zeros(rows, dim, dtype=torch.float64).index_add_(0, pos.repeat(3), g.reshape(-1, dim).double().abs())
    assert torch.all((table.grad.double() - t64.grad).abs() <= bound + 1e-30)
    seq = torch.zeros(rows, dim)
    gf, pf = g.reshape(-1, dim), pos.repeat(3)
    for i in range(gf.shape[0]):
        seq[pf[i]] += gf[i]
    assert torch.equal(table.grad, seq)


def test_learned_add_threads_and_errors():
    rows, dim = 300, 64
    table = torch.randn(rows, dim, requires_grad=True)
    pos = torch.randint(0, rows, (8, 2000))
    x = torch.randn(8, 2000, dim)
    g = torch.randn(8, 2000, dim)
    grads = []
    old = posenc.threads_get()
    try:
        for n in (1, 2):
            posenc.threads_set(n)
            table.grad = None
            pt.learned_add(x, table, pos).backward(g)
            grads.append(table.grad.clone())
    finally:
        posenc.threads_set(old)
    assert torch.equal(*grads)
    with pytest.raises(posenc.ArgumentError, match="table must have dtype float32"):
        pt.learned_add(x, table.double(), pos)
    with pytest.raises(posenc.Error, match=r"positions\[0\] = 300 is out of range"):
        pt.learned_add(x[:1, :1], table, torch.tensor([[300]]))
    with pytest.raises(posenc.ArgumentError, match="does not broadcast"):
        pt.learned_add(x, table, torch.zeros(3, dtype=torch.int64))
    # no grad needed: plain call, no autograd node
    with torch.no_grad():
        y = pt.learned_add(x, table, pos)
    assert y.grad_fn is None and torch.equal(y, x + table.detach()[pos])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_sph_harm_real_values(dtype):
    xyz = torch.randn(4, 50, 3, dtype=dtype)
    y = pt.sph_harm_real(xyz, 6)
    want = posenc.sph_harm_real(6, xyz.numpy())
    assert y.dtype == dtype and y.shape == (4, 50, 49) and np.array_equal(y.numpy(), want)
    # closed forms for l <= 1 in float64: Y00 = 1/(2 sqrt(pi)), (Y1-1, Y10, Y11) = sqrt(3/(4 pi)) (y, z, x)/r
    u = xyz.double() / xyz.double().norm(dim=-1, keepdim=True)
    c = (3 / (4 * np.pi)) ** 0.5
    ref = torch.stack((torch.full_like(u[..., 0], 0.5 / np.pi ** 0.5), c * u[..., 1], c * u[..., 2], c * u[..., 0]), -1)
    assert (y[..., :4].double() - ref).abs().max() < (1e-14 if dtype == torch.float64 else 1e-6)
    with pytest.raises(posenc.ArgumentError, match=r"xyz must have shape \(\.\.\., 3\)"):
        pt.sph_harm_real(torch.randn(5, 2, dtype=dtype), 2)
    with pytest.raises(posenc.Error, match="xyz"):
        pt.sph_harm_real(torch.zeros(1, 3, dtype=dtype), 2)


def karate_like():
    """A small connected graph (two cliques joined by a path, one isolated-free) in PyG's
    convention: every undirected edge listed in both directions."""
    und = [(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (5, 7), (6, 7), (1, 8), (8, 9), (9, 4)]
    src = [a for a, b in und] + [b for a, b in und]
    dst = [b for a, b in und] + [a for a, b in und]
    return torch.tensor([src, dst]), 10, und


def dense_adj(und, n):
    a = np.zeros((n, n))
    for u, v in und:
        a[u, v] = a[v, u] = 1.0
    return a


def test_laplacian_pe_matches_pyg_definition():
    ei, n, und = karate_like()
    a = dense_adj(und, n)
    d = a.sum(1)
    lsym = np.eye(n) - a / np.sqrt(np.outer(d, d))
    w, v = np.linalg.eigh(lsym)
    k = 3
    vals, vecs = pt.laplacian_pe(ei, k, return_eigvals=True)
    assert vecs.shape == (n, k) and vecs.dtype == torch.float64
    np.testing.assert_allclose(vals.numpy(), w[1:k + 1], atol=1e-12)
    # eigenspaces (simple eigenvalues here): |<v_posenc, v_numpy>| = 1
    np.testing.assert_allclose(np.abs(np.sum(vecs.numpy() * v[:, 1:k + 1], 0)), 1.0, atol=1e-10)
    # D - A with PyG's both-directions edge_index: the same eigenvalues as PyG's get_laplacian(None)
    lc = np.diag(d) - a
    vals_c, _ = pt.laplacian_pe(ei, k, normalization=None, drop_first=False, return_eigvals=True)
    np.testing.assert_allclose(vals_c.numpy(), np.linalg.eigvalsh(lc)[:k], atol=1e-12)
    with pytest.raises(posenc.ArgumentError, match="edge_index must have shape"):
        pt.laplacian_pe(ei.t(), k)


def test_rwse_matches_dense_powers():
    ei, n, und = karate_like()
    a = dense_adj(und, n)
    p = a / a.sum(1, keepdims=True)
    out = pt.rwse(ei, 6)
    want = np.stack([np.diag(np.linalg.matrix_power(p, t)) for t in range(1, 7)], 1)
    assert out.shape == (n, 6)
    np.testing.assert_allclose(out.numpy(), want, atol=1e-14)
    # num_nodes beyond the largest id: an isolated node gets zeros (PyG's 1/0 -> 0)
    out2 = pt.rwse(ei, 3, num_nodes=n + 1)
    assert torch.equal(out2[n], torch.zeros(3, dtype=torch.float64))


def test_rwse_self_loops_and_lappe_nan_pad_are_pyg():
    ei, n, und = karate_like()
    loops = torch.arange(n)
    eil = torch.cat([ei, torch.stack([loops, loops])], 1)  # PyG's AddSelfLoops
    a = dense_adj(und, n) + np.eye(n)  # PyG keeps the loop in A and in the degree
    p = a / a.sum(1, keepdims=True)
    want = np.stack([np.diag(np.linalg.matrix_power(p, t)) for t in range(1, 5)], 1)
    np.testing.assert_allclose(pt.rwse(eil, 4).numpy(), want, atol=1e-14)
    assert torch.equal(pt.rwse(eil, 4, keep_self_loops=False), pt.rwse(ei, 4))
    # GraphGPS: N = 3 < k = 5 -> NaN columns; PyG's drop of the trivial pair first
    ei3 = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]])
    vals, vecs = pt.laplacian_pe(ei3, 5, drop_first=True, nan_pad=True, return_eigvals=True)
    assert vecs.shape == (3, 5)
    assert torch.isfinite(vecs[:, :2]).all() and torch.isnan(vecs[:, 2:]).all() and torch.isnan(vals[2:]).all()
    np.testing.assert_allclose(vals[:2].numpy(), [1.0, 2.0], atol=1e-14)  # L_sym of the path P3: 0, 1, 2


class _ShDataset(torch.utils.data.Dataset):
    def __init__(self, xyz):
        self.xyz = xyz

    def __len__(self):
        return self.xyz.shape[0]

    def __getitem__(self, i):
        return pt.sph_harm_real(self.xyz[i], 8), posenc.threads_get()


def _one_thread(_):
    posenc.threads_set(1)


def test_dataloader_workers_after_the_parent_used_threads():
    xyz = torch.randn(4, 20000, 3, dtype=torch.float64)
    old = posenc.threads_get()
    try:
        posenc.threads_set(2)
        want = pt.sph_harm_real(xyz, 8)
        dl = torch.utils.data.DataLoader(_ShDataset(xyz), batch_size=None, num_workers=2,
                                         worker_init_fn=_one_thread, multiprocessing_context="fork")
        got = list(dl)
    finally:
        posenc.threads_set(old)
    assert all(n == 1 for _, n in got)
    assert torch.equal(torch.stack([y for y, _ in got]), want)
