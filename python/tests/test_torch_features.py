# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rf_sample_f32 posenc_rf_features_f32 posenc_rf_features_backward_f32 posenc_linear_attention_f32 posenc_linear_attention_backward_f32 posenc_softmax_attention_f32 posenc_softmax_attention_backward_f32
# needs-modules: torch
"""posenc.torch rf_features / linear_attention / softmax_attention autograd and FastAttention.

The features family has no float64 variant in the C ABI, so every op is compared with torch
autograd of the float64 formula (posenc.h) on the same float32 inputs: forward and gradients
within 2e-5 of the reference's max (float32 accumulation over d = 16..64 and n <= 300; the C
functions state 1e-4 / 2e-4 relative bounds for their backward). FastAttention is compared with
performer-pytorch's softmax_kernel + linear_attention / causal_linear_attention_noncuda
(tests/performer_ports.py) on the same omega with eps = 0: float32 outputs within 1e-5 of
Performer's own float32 result, gradients within 1e-4 of torch autograd of Performer's formulas in
float64 (relative to the gradient's max)."""
import math

import pytest
import torch

import posenc
import posenc.torch as pt
from performer_ports import fast_attention, fast_attention_options

torch.manual_seed(24)


def ref_features(kind, omega, x, w=None):
    """float64 formulas of posenc_rf_kind (shift 'overflow' below exponent 60: unshifted)."""
    m = omega.shape[0]
    p = x @ omega.T
    w = torch.ones(m, dtype=x.dtype) if w is None else w
    h = (x * x).sum(-1, keepdim=True)
    if kind == "trig":
        return torch.cat((w * torch.cos(p), w * torch.sin(p)), -1) / math.sqrt(m)
    if kind == "positive":
        return w * torch.exp(p - h / 2) / math.sqrt(m)
    if kind == "hyperbolic":
        return torch.cat((w * torch.exp(p - h / 2), w * torch.exp(-p - h / 2)), -1) / math.sqrt(2 * m)
    if kind == "elu_plus_one":
        return w * (torch.nn.functional.elu(p) + 1)
    if kind == "relu":
        return w * torch.relu(p)
    return w * torch.exp(p - h) / math.sqrt(m)


def rel(a, b):
    return ((a.double() - b.double()).abs().max() / b.double().abs().max()).item()


@pytest.mark.parametrize("kind", ["trig", "positive", "hyperbolic", "gaussian_positive", "elu_plus_one", "relu"])
def test_rf_features_forward_backward(kind):
    d, m = 16, 24
    omega = pt.rf_sample(d, m, "orthogonal", seed=5).requires_grad_()
    x = (0.3 * torch.randn(2, 50, d)).requires_grad_()
    w = (0.5 + torch.rand(m)).requires_grad_()
    y = pt.rf_features(x, omega, w, kind=kind)
    o64, x64, w64 = (t.detach().double().requires_grad_() for t in (omega, x, w))
    yr = ref_features(kind, o64, x64, w64)
    assert y.dtype == torch.float32 and y.shape == yr.shape
    assert rel(y, yr) < 2e-5
    g = torch.randn_like(yr)
    gx, go, gw = torch.autograd.grad(y, (x, omega, w), g.float())
    rx, ro, rw = torch.autograd.grad(yr, (x64, o64, w64), g)
    assert rel(gx, rx) < 2e-5 and rel(go, ro) < 2e-5 and rel(gw, rw) < 2e-5
    # only x requires grad: omega / weights gradients are not computed (and need not be)
    (gx2,) = torch.autograd.grad(pt.rf_features(x, omega.detach(), w.detach(), kind=kind), x, g.float())
    assert torch.equal(gx2, gx)


@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention(causal):
    n, F, dv = 300, 20, 8  # 300 rows cross the 128-row causal chunks
    pq = torch.rand(2, n, F).requires_grad_()
    pk = torch.rand(2, n, F).requires_grad_()
    v = torch.randn(2, n, dv).requires_grad_()
    out = pt.linear_attention(pq, pk, v, causal=causal, eps=1e-3)
    a, b, c = (t.detach().double().requires_grad_() for t in (pq, pk, v))
    s = a @ b.transpose(-1, -2)
    if causal:
        s = torch.tril(s)
    ref = (s @ c) / (s.sum(-1, keepdim=True) + 1e-3)
    assert rel(out, ref) < 2e-5
    g = torch.randn_like(ref)
    got = torch.autograd.grad(out, (pq, pk, v), g.float())
    want = torch.autograd.grad(ref, (a, b, c), g)
    for x, y in zip(got, want):
        assert rel(x, y) < 2e-5


@pytest.mark.parametrize("causal", [False, True])
def test_softmax_attention(causal):
    n, d, dv = 200, 16, 8
    q, k, v = (torch.randn(3, n, c).requires_grad_() for c in (d, d, dv))
    out = pt.softmax_attention(q, k, v, causal=causal)
    a, b, c = (t.detach().double().requires_grad_() for t in (q, k, v))
    s = a @ b.transpose(-1, -2) / math.sqrt(d)
    if causal:
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), -math.inf)
    ref = torch.softmax(s, -1) @ c
    assert rel(out, ref) < 2e-5
    g = torch.randn_like(ref)
    for x, y in zip(torch.autograd.grad(out, (q, k, v), g.float()), torch.autograd.grad(ref, (a, b, c), g)):
        assert rel(x, y) < 2e-5


@pytest.mark.parametrize("causal", [False, True])
def test_fast_attention_matches_performer(causal):
    b, h, n, d = 2, 3, 260, 32
    fa = pt.FastAttention(d, nb_features=64, causal=causal, seed=11)
    q, k, v = (torch.randn(b, h, n, d).requires_grad_() for _ in range(3))
    out = fa(q, k, v)
    om = fa.projection_matrix
    perf = fast_attention(q.detach(), k.detach(), v.detach(), om, causal=causal, eps=0.0)
    assert rel(out, perf) < 1e-5
    a, c, e = (t.detach().double().requires_grad_() for t in (q, k, v))
    ref = fast_attention(a, c, e, om.double(), causal=causal, eps=0.0)
    assert rel(out, ref) < 1e-5
    g = torch.randn_like(ref)
    for x, y in zip(torch.autograd.grad(out, (q, k, v), g.float()), torch.autograd.grad(ref, (a, c, e), g)):
        assert rel(x, y) < 1e-4


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("option", ["generalized_relu", "generalized_softplus", "no_projection"])
def test_fast_attention_generalized_and_no_projection_match_performer(option, causal):
    """generalized_attention=True (performer-pytorch's generalized_kernel: kernel_fn((x d^-1/4)
    omega^T) + kernel_epsilon 0.001; ReLU through posenc's RELU feature map, another kernel_fn
    through torch) and no_projection=True (softmax of q over features, of k over the sequence or
    exp(k) when causal), against performer's formulas (tests/performer_ports.py) in float64 with
    torch autograd, same omega, causal denominator eps = 0: outputs within 1e-5, gradients of q,
    k, v within 1e-4 (relative to the max)."""
    b, h, n, d = 2, 2, 70, 16
    kw = {"no_projection": True} if option == "no_projection" else \
        {"generalized_attention": True, "kernel_fn": torch.nn.Softplus() if option == "generalized_softplus" else None}
    fa = pt.FastAttention(d, nb_features=24, causal=causal, seed=5, **kw)
    q, k, v = (torch.randn(b, h, n, d).requires_grad_() for _ in range(3))
    if option == "no_projection" and causal:
        with torch.no_grad():
            k.mul_(0.5)
    out = fa(q, k, v)
    om = fa.projection_matrix.double()
    kfn = torch.nn.functional.softplus if option == "generalized_softplus" else torch.relu
    a, c, e = (t.detach().double().requires_grad_() for t in (q, k, v))
    ref = fast_attention_options(a, c, e, om, causal=causal, generalized_attention=option != "no_projection",
                                 kernel_fn=kfn, no_projection=option == "no_projection", eps=0.0)
    assert rel(out, ref) < 1e-5
    g = torch.randn_like(ref)
    for x, y in zip(torch.autograd.grad(out, (q, k, v), g.float()), torch.autograd.grad(ref, (a, c, e), g)):
        assert rel(x, y) < 1e-4
    assert ("no_projection=True" if option == "no_projection" else "generalized_attention=True") in repr(fa)


def test_fast_attention_options_and_redraw():
    torch.manual_seed(3)
    fa = pt.FastAttention(16)
    assert fa.nb_features == int(16 * math.log(16)) and fa.projection_matrix.shape == (44, 16)
    torch.manual_seed(3)
    assert torch.equal(pt.FastAttention(16).projection_matrix, fa.projection_matrix)
    om = fa.projection_matrix.clone()
    fa.redraw_projection_matrix()
    assert not torch.equal(om, fa.projection_matrix)
    fr = pt.FastAttention(16, nb_features=32, redraw_interval=2, seed=1)
    q = torch.randn(1, 2, 10, 16)
    draws = []
    for _ in range(5):
        fr(q, q, q)
        draws.append(fr.projection_matrix.clone())
    assert torch.equal(draws[0], draws[1]) and not torch.equal(draws[1], draws[2]) and torch.equal(draws[2], draws[3])
    fr.eval()
    fr(q, q, q)
    assert torch.equal(fr.projection_matrix, draws[4])
    for kind in ("hyperbolic", "gaussian_positive"):
        out = pt.FastAttention(16, nb_features=32, kind=kind, sampling="qmc", seed=2)(q, q, q)
        assert out.shape == (1, 2, 10, 16) and torch.isfinite(out).all()
    for kind in ("trig", "relu"):
        with pytest.raises(posenc.ArgumentError, match=f"kind '{kind}' is not a softmax-kernel feature map"):
            pt.FastAttention(16, kind=kind)
    with pytest.raises(posenc.ArgumentError, match="kernel_fn must be a callable"):
        pt.FastAttention(16, generalized_attention=True, kernel_fn="gelu")
    with pytest.raises(posenc.ArgumentError, match="sampling must be one of"):
        pt.FastAttention(16, sampling="sobol")


def test_determinism_and_errors():
    x = torch.randn(4, 300, 32).requires_grad_()
    om = pt.rf_sample(32, 64, seed=1).requires_grad_()
    v = torch.randn(4, 300, 16).requires_grad_()
    res = []
    old = posenc.threads_get()
    try:
        for t in (1, 2):
            posenc.threads_set(t)
            pq = pt.rf_features(x, om, kind="positive", shift="row_max")
            pk = pt.rf_features(x, om, kind="positive", shift="shared_max")
            o = pt.linear_attention(pq, pk, v, causal=True, eps=0) + pt.softmax_attention(x, x, v)
            res.append((o.detach(),) + torch.autograd.grad(o.sum(), (x, om, v)))
    finally:
        posenc.threads_set(old)
    for a, b in zip(*res):
        assert torch.equal(a, b)
    with pytest.raises(posenc.ArgumentError, match="x must have dtype float32"):
        pt.rf_features(x.double(), om)
    with pytest.raises(posenc.ArgumentError, match=r"x must have shape \(\.\.\., d\) with d = omega.shape\[1\] = 32"):
        pt.rf_features(x[..., :8], om)
    with pytest.raises(posenc.ArgumentError, match="kind must be one of"):
        pt.rf_features(x, om, kind="sigmoid")
    with pytest.raises(posenc.Error, match="weight"):
        pt.rf_features(x, om, weights=-torch.ones(64))
    with pytest.raises(posenc.ArgumentError, match="eps must be finite and >= 0"):
        pt.linear_attention(x, x, v, eps=-1)
    with pytest.raises(posenc.ArgumentError, match="must have the same shape"):
        pt.linear_attention(x, x[:, :10], v)


def test_shared_max_is_per_sequence_and_parameter_grads_sum_over_sequences():
    """shift='shared_max' on x [b, h, n, d] takes one constant per (b, h) (one C call each, the
    same bits as separate calls); omega / weights gradients add the calls' partials, compared
    with torch autograd of the float64 formula with the same (detached) shifts."""
    d, m = 8, 16
    omega = pt.rf_sample(d, m, "qmc", seed=2).requires_grad_()
    w = (0.5 + torch.rand(m)).requires_grad_()
    x = torch.randn(2, 3, 40, d)
    x[1, 2] *= 3  # a sequence with larger exponents: its own constant
    x.requires_grad_()
    y = pt.rf_features(x, omega, w, kind="positive", shift="shared_max")
    for b in range(2):
        for h in range(3):
            assert torch.equal(y[b, h], pt.rf_features(x[b, h].detach(), omega.detach(), w.detach(), kind="positive",
                                                       shift="shared_max"))
    o64, x64, w64 = (t.detach().double().requires_grad_() for t in (omega, x, w))
    e = x64 @ o64.T - (x64 * x64).sum(-1, keepdim=True) / 2  # exponents [2, 3, n, m]
    c = e.amax(dim=(-1, -2), keepdim=True).detach()
    yr = w64 * torch.exp(e - c) / math.sqrt(m)
    assert rel(y, yr) < 2e-5
    g = torch.randn_like(yr)
    got = torch.autograd.grad(y, (x, omega, w), g.float())
    want = torch.autograd.grad(yr, (x64, o64, w64), g)
    for a, b in zip(got, want):
        assert rel(a, b) < 2e-5


def test_small_calls_flat_and_batched_same_bits():
    """The per-call path of small calls: a 2-D x [n, d] (no reshapes, one C call over all rows,
    one backward call writing grad_weights / grad_omega) gives the bits of the same rows as a
    [1, n, d] batch, forward and gradients; attention heads addressed by pointer offsets give
    each head's own single-head result; other devices (meta, standing in for CUDA) are refused."""
    d, m, n = 8, 12, 10
    om = pt.rf_sample(d, m, seed=3).requires_grad_()
    w = (0.5 + torch.rand(m)).requires_grad_()
    x = torch.randn(n, d).requires_grad_()
    g = torch.randn(n, m)
    y2 = pt.rf_features(x, om, w)
    r2 = torch.autograd.grad(y2, (x, om, w), g)
    y3 = pt.rf_features(x[None], om, w)
    r3 = torch.autograd.grad(y3, (x, om, w), g[None])
    assert torch.equal(y2, y3[0]) and all(torch.equal(a, b) for a, b in zip(r2, r3))
    with torch.no_grad():
        assert torch.equal(pt.rf_features(x, om, w), y2)
    q, k, v = torch.rand(3, n, 4), torch.rand(3, n, 4), torch.randn(3, n, 5)
    for fn in (pt.linear_attention, pt.softmax_attention):
        out = fn(q, k, v, causal=True)
        for h in range(3):
            assert torch.equal(out[h], fn(q[h].clone(), k[h].clone(), v[h].clone(), causal=True))
    with pytest.raises(posenc.ArgumentError, match="x is on device meta"):
        pt.rf_features(torch.empty(n, d, device="meta"), om)
    with pytest.raises(posenc.ArgumentError, match="v is on device meta"):
        pt.linear_attention(q, k, torch.empty(3, n, 5, device="meta"))
