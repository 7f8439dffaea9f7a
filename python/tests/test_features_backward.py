# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rf_sample_f32 posenc_rf_features_f32 posenc_rf_features_backward_f32 posenc_linear_attention_f32 posenc_linear_attention_backward_f32
# needs-modules: torch
"""features backward passes against torch autograd of the float64 formulas (same omega, same inputs)."""
import numpy as np
import pytest
import torch

import posenc

torch.set_default_dtype(torch.float64)


def torch_features(kind, om, x, w):
    m = om.shape[0]
    p = x @ om.T
    n2 = (x * x).sum(-1, keepdim=True)
    if kind == posenc.RfKind.TRIG:
        return torch.cat([w * torch.cos(p), w * torch.sin(p)], -1) / np.sqrt(m)
    if kind == posenc.RfKind.POSITIVE:
        return w * torch.exp(p - n2 / 2) / np.sqrt(m)
    if kind == posenc.RfKind.HYPERBOLIC:
        return torch.cat([w * torch.exp(p), w * torch.exp(-p)], -1) * torch.exp(-n2 / 2) / np.sqrt(2 * m)
    if kind == posenc.RfKind.ELU_PLUS_ONE:
        return w * (torch.nn.functional.elu(p) + 1)
    if kind == posenc.RfKind.RELU:
        return w * torch.relu(p)
    return w * torch.exp(p - n2) / np.sqrt(m)


@pytest.mark.parametrize("kind", list(posenc.RfKind))
@pytest.mark.parametrize("weighted", [False, True])
def test_features_backward_vs_torch_autograd(kind, weighted):
    rng = np.random.default_rng(int(kind) * 2 + weighted)
    d, m = 16, 48
    om = posenc.rf_sample(posenc.RfSampling.ORTHOGONAL, d, m, seed=3)
    x = (0.3 * rng.standard_normal((2, 150, d))).astype(np.float32)  # batch dims flatten to 300 rows
    w = (0.5 + rng.random(m)).astype(np.float32) if weighted else None
    F = 2 * m if kind in (posenc.RfKind.TRIG, posenc.RfKind.HYPERBOLIC) else m
    g = rng.standard_normal((2, 150, F)).astype(np.float32)
    gx, gw, go = posenc.rf_features_backward(kind, om, x, g, weights=w, grad_omega=True)
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    to = torch.tensor(om, dtype=torch.float64, requires_grad=True)
    tw = torch.tensor(w if weighted else np.ones(m, np.float32), dtype=torch.float64, requires_grad=True)
    (torch_features(kind, to, tx, tw) * torch.tensor(g, dtype=torch.float64)).sum().backward()
    for got, ref in ((gx, tx.grad), (gw, tw.grad), (go, to.grad)):
        ref = ref.numpy()
        assert got.shape == ref.shape
        assert np.abs(got - ref).max() <= 1e-4 * np.abs(ref).max() + 1e-6


def torch_linear(q, k, v, causal, eps, unnormalized=False):
    A = q @ k.T
    if causal:
        A = torch.tril(A)
    if unnormalized:
        return A @ v
    return (A @ v) / (A.sum(-1, keepdim=True) + eps)


@pytest.mark.parametrize("causal", [False, True])
def test_unnormalized_linear_attention_vs_torch_autograd(causal):
    # DiJiang / retention form: no denominator; signed features are allowed
    rng = np.random.default_rng(15 + causal)
    n, F, dv = 300, 12, 6
    q, k = (rng.standard_normal((n, F)).astype(np.float32) for _ in range(2))
    v = rng.standard_normal((n, dv)).astype(np.float32)
    g = rng.standard_normal((n, dv)).astype(np.float32)
    out = posenc.linear_attention(q, k, v, causal=causal, unnormalized=True)
    gq, gk, gv = posenc.linear_attention_backward(q, k, v, g, causal=causal, unnormalized=True)
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (q, k, v))
    ref = torch_linear(tq, tk, tv, causal, 0.0, unnormalized=True)
    (ref * torch.tensor(g, dtype=torch.float64)).sum().backward()
    ref = ref.detach().numpy()
    assert np.abs(out - ref).max() <= 1e-5 * (1 + np.abs(ref).max())
    for got, r in ((gq, tq.grad), (gk, tk.grad), (gv, tv.grad)):
        r = r.numpy()
        assert np.abs(got - r).max() <= 1e-5 * (1 + np.abs(r).max())
    if causal:  # decoding with state_z=None reproduces the rows
        S = np.zeros((F, dv), np.float32)
        rows = [posenc.linear_attention_step(q[i], k[i], v[i], S, None) for i in range(n)]
        assert np.abs(np.array(rows) - ref).max() <= 1e-5 * (1 + np.abs(ref).max())


@pytest.mark.parametrize("kind", [posenc.RfKind.ELU_PLUS_ONE, posenc.RfKind.RELU])
def test_elementwise_kinds_through_linear_attention_vs_torch_autograd(kind):
    # fast-transformers' LinearAttention (elu + 1, Omega = I) and Performer's ReLU kernel (random
    # Omega, performer-pytorch adds kernel_epsilon = 1e-3 to the features: here through eps), end to end
    rng = np.random.default_rng(30 + int(kind))
    n, d, dv = 200, 16, 8
    om = np.eye(d, dtype=np.float32) if kind == posenc.RfKind.ELU_PLUS_ONE else \
        posenc.rf_sample(posenc.RfSampling.ORTHOGONAL, d, 32, seed=2)
    q, k = ((0.5 * rng.standard_normal((n, d))).astype(np.float32) for _ in range(2))
    v = rng.standard_normal((n, dv)).astype(np.float32)
    g = rng.standard_normal((n, dv)).astype(np.float32)
    eps = 1e-3
    pq, pk = posenc.rf_features(kind, om, q), posenc.rf_features(kind, om, k)
    gpq, gpk, gv = posenc.linear_attention_backward(pq, pk, v, g, causal=True, eps=eps)
    gq = posenc.rf_features_backward(kind, om, q, gpq, grad_weights=False)[0]
    gk = posenc.rf_features_backward(kind, om, k, gpk, grad_weights=False)[0]
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (q, k, v))
    to, tw = torch.tensor(om, dtype=torch.float64), torch.ones(om.shape[0])
    out = torch_linear(torch_features(kind, to, tq, tw), torch_features(kind, to, tk, tw), tv, True, eps)
    (out * torch.tensor(g, dtype=torch.float64)).sum().backward()
    for got, ref in ((gq, tq.grad), (gk, tk.grad), (gv, tv.grad)):
        ref = ref.numpy()
        assert np.abs(got - ref).max() <= 1e-3 * (1 + np.abs(ref).max())


@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention_backward_vs_torch_autograd(causal):
    rng = np.random.default_rng(5 + causal)
    n, F, dv, eps = 600, 12, 6, 1e-3  # causal: two blocks of 8 64-row chunks, the second partial
    q = (0.1 + rng.random((n, F))).astype(np.float32)
    k = (0.1 + rng.random((n, F))).astype(np.float32)
    v = rng.standard_normal((n, dv)).astype(np.float32)
    g = rng.standard_normal((n, dv)).astype(np.float32)
    gq, gk, gv = posenc.linear_attention_backward(q, k, v, g, causal=causal, eps=eps)
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (q, k, v))
    (torch_linear(tq, tk, tv, causal, eps) * torch.tensor(g, dtype=torch.float64)).sum().backward()
    for got, ref in ((gq, tq.grad), (gk, tk.grad), (gv, tv.grad)):
        ref = ref.numpy()
        assert np.abs(got - ref).max() <= 2e-4 * (1 + np.abs(ref).max())


def test_favor_end_to_end_gradient_with_stabilized_shifts():
    # queries ROW_MAX, keys SHARED_MAX, eps = 0: the shifts cancel, so chaining the two backward
    # passes gives torch's gradient of the unshifted float64 FAVOR+ attention.
    rng = np.random.default_rng(9)
    n, d, m, dv = 64, 8, 32, 4
    om = posenc.rf_sample(posenc.RfSampling.ORTHOGONAL, d, m, seed=4)
    q = (0.6 * rng.standard_normal((n, d))).astype(np.float32)
    k = (0.6 * rng.standard_normal((n, d))).astype(np.float32)
    v = rng.standard_normal((n, dv)).astype(np.float32)
    g = rng.standard_normal((n, dv)).astype(np.float32)
    R, S = posenc.RfShift.ROW_MAX, posenc.RfShift.SHARED_MAX
    pq = posenc.rf_features(posenc.RfKind.POSITIVE, om, q, shift=R)
    pk = posenc.rf_features(posenc.RfKind.POSITIVE, om, k, shift=S)
    gpq, gpk, gv = posenc.linear_attention_backward(pq, pk, v, g, causal=True, eps=0.0)
    gq = posenc.rf_features_backward(posenc.RfKind.POSITIVE, om, q, gpq, shift=R, grad_weights=False)[0]
    gk = posenc.rf_features_backward(posenc.RfKind.POSITIVE, om, k, gpk, shift=S, grad_weights=False)[0]
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (q, k, v))
    to, tw = torch.tensor(om, dtype=torch.float64), torch.ones(m)
    out = torch_linear(torch_features(posenc.RfKind.POSITIVE, to, tq, tw),
                       torch_features(posenc.RfKind.POSITIVE, to, tk, tw), tv, True, 0.0)
    (out * torch.tensor(g, dtype=torch.float64)).sum().backward()
    for got, ref in ((gq, tq.grad), (gk, tk.grad), (gv, tv.grad)):
        ref = ref.numpy()
        assert np.abs(got - ref).max() <= 1e-3 * (1 + np.abs(ref).max())


def test_backward_errors():
    om = posenc.rf_sample(posenc.RfSampling.IID, 4, 8)
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(posenc.ArgumentError, match="grad_out"):
        posenc.rf_features_backward(posenc.RfKind.POSITIVE, om, x, np.zeros((3, 9), np.float32))
    with pytest.raises(posenc.Error, match="grad_x, grad_weights and grad_omega"):
        posenc.rf_features_backward(posenc.RfKind.POSITIVE, om, x, np.zeros((3, 8), np.float32), grad_x=False,
                                    grad_weights=False)
    with pytest.raises(posenc.Error, match="eps"):
        posenc.linear_attention_backward(np.ones((3, 2), np.float32), np.ones((3, 2), np.float32),
                                         np.ones((3, 1), np.float32), np.ones((3, 1), np.float32), eps=-1.0)
