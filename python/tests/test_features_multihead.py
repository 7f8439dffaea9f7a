# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_linear_attention_mh_f32 posenc_linear_attention_backward_mh_f32 posenc_linear_attention_f32
# needs-modules: torch
"""multi-head linear attention on strided [B, H, n, d] views: bitwise equal to per-head calls, and
against torch autograd of the float64 formula."""
import numpy as np
import pytest
import torch

import posenc


def heads_view(rng, B, n, H, d, positive=False):
    """torch's x.view(B, n, H, d).transpose(1, 2): a strided [B, H, n, d] view."""
    x = rng.standard_normal((B, n, H, d)).astype(np.float32)
    if positive:
        x = np.abs(x) + np.float32(0.05)
    return x.transpose(0, 2, 1, 3)


def torch_linear(q, k, v, causal, eps, unnormalized):
    A = q @ k.transpose(-1, -2)
    if causal:
        A = torch.tril(A)
    return A @ v if unnormalized else (A @ v) / (A.sum(-1, keepdim=True) + eps)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("unnormalized", [False, True])
def test_multihead_matches_per_head_and_torch(causal, unnormalized):
    rng = np.random.default_rng(3 + 2 * causal + unnormalized)
    B, H, n, F, dv, eps = 2, 3, 150, 8, 5, 1e-6
    q, k = heads_view(rng, B, n, H, F, True), heads_view(rng, B, n, H, F, True)
    v = rng.standard_normal((B, H, n, dv)).astype(np.float32)
    g = heads_view(rng, B, n, H, dv)
    out = posenc.linear_attention_mh(q, k, v, causal=causal, eps=eps, unnormalized=unnormalized)
    gq, gk, gv = posenc.linear_attention_backward_mh(q, k, v, g, causal=causal, eps=eps, unnormalized=unnormalized)
    for b in range(B):
        for h in range(H):
            qh, kh, vh, gh = (np.ascontiguousarray(a[b, h]) for a in (q, k, v, g))
            o1 = posenc.linear_attention(qh, kh, vh, causal=causal, eps=eps, unnormalized=unnormalized)
            r = posenc.linear_attention_backward(qh, kh, vh, gh, causal=causal, eps=eps, unnormalized=unnormalized)
            assert np.array_equal(out[b, h], o1)
            for got, ref in zip((gq, gk, gv), r):
                assert np.array_equal(got[b, h], ref)
    tq, tk, tv = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (q, k, v))
    ref = torch_linear(tq, tk, tv, causal, eps, unnormalized)
    (ref * torch.tensor(g, dtype=torch.float64)).sum().backward()
    ref = ref.detach().numpy()
    assert np.abs(out - ref).max() <= 2e-5 * (1 + np.abs(ref).max())
    for got, r in ((gq, tq.grad), (gk, tk.grad), (gv, tv.grad)):
        r = r.numpy()
        assert np.abs(got - r).max() <= 2e-4 * (1 + np.abs(r).max())


def test_multihead_strided_out_and_errors():
    rng = np.random.default_rng(9)
    B, H, n, F, dv = 1, 2, 7, 4, 3
    q = heads_view(rng, B, n, H, F, True)
    v = rng.standard_normal((B, H, n, dv)).astype(np.float32)
    buf = np.zeros((B, n, H, dv), np.float32)
    out = posenc.linear_attention_mh(q, q, v, out=buf.transpose(0, 2, 1, 3))
    assert np.array_equal(buf.transpose(0, 2, 1, 3), out)
    assert np.array_equal(out, posenc.linear_attention_mh(q, q, v))
    with pytest.raises(posenc.ArgumentError, match="4 dimensions"):
        posenc.linear_attention_mh(q[0], q[0], v[0])
    with pytest.raises(posenc.ArgumentError, match="last dimension"):
        posenc.linear_attention_mh(q[..., ::2], q[..., ::2], v)
    with pytest.raises(posenc.Error, match="flags|eps"):
        posenc.linear_attention_mh(q, q, v, eps=-1.0)
