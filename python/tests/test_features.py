# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rf_sample_f32 posenc_rf_features_f32 posenc_linear_attention_f32 posenc_softmax_attention_f32 posenc_rf_features_bf16 posenc_linear_attention_bf16
"""features family against NumPy float64 on the same inputs (same omega)."""
import numpy as np
import pytest

import posenc

rng = np.random.default_rng(11)


def test_sample_shapes_and_determinism():
    for s in posenc.RfSampling:
        a = posenc.rf_sample(s, 8, 24, sigma=0.5, seed=42)
        b = posenc.rf_sample(s, 8, 24, sigma=0.5, seed=42)
        assert a.shape == (24, 8) and a.dtype == np.float32 and np.array_equal(a, b)
        assert not np.array_equal(a, posenc.rf_sample(s, 8, 24, sigma=0.5, seed=43))
    o = posenc.rf_sample(posenc.RfSampling.ORTHOGONAL, 16, 16, seed=1).astype(np.float64)
    G = o @ o.T
    off = G - np.diag(np.diag(G))
    assert np.abs(off).max() < 1e-5 * np.diag(G).max()  # rows orthogonal within a block


def np_features(kind, om, x, w=None):
    om, x = om.astype(np.float64), x.astype(np.float64)
    m = om.shape[0]
    w = np.ones(m) if w is None else w.astype(np.float64)
    p = x @ om.T
    n2 = (x * x).sum(1, keepdims=True)
    if kind == posenc.RfKind.TRIG:
        return np.concatenate([w * np.cos(p), w * np.sin(p)], 1) / np.sqrt(m)
    if kind == posenc.RfKind.POSITIVE:
        return w * np.exp(p - n2 / 2) / np.sqrt(m)
    if kind == posenc.RfKind.HYPERBOLIC:
        return np.concatenate([w * np.exp(p), w * np.exp(-p)], 1) * np.exp(-n2 / 2) / np.sqrt(2 * m)
    if kind == posenc.RfKind.ELU_PLUS_ONE:  # fast-transformers' elu_feature_map of x Omega^T
        return w * np.where(p > 0, p + 1, np.exp(np.minimum(p, 0)))
    if kind == posenc.RfKind.RELU:  # Performer's generalized kernel, kernel_fn = ReLU
        return w * np.maximum(p, 0)
    return w * np.exp(p - n2) / np.sqrt(m)


@pytest.mark.parametrize("kind", list(posenc.RfKind))
def test_features_vs_numpy(kind):
    d, m, n = 16, 40, 33
    om = posenc.rf_sample(posenc.RfSampling.IID, d, m, seed=5)
    x = (rng.standard_normal((n, d)) * 0.3).astype(np.float32)
    w = rng.uniform(0, 2, m).astype(np.float32)
    for weights in (None, w):
        out = posenc.rf_features(kind, om, x, weights)
        ref = np_features(kind, om, x, weights)
        assert out.shape == ref.shape
        np.testing.assert_allclose(out, ref, rtol=2e-5, atol=2e-6 / np.sqrt(m))


def test_trig_features_estimate_gaussian_kernel():
    d, m = 3, 4096
    x = rng.standard_normal((20, d)).astype(np.float32) * 0.7
    om = posenc.rf_sample(posenc.RfSampling.QMC, d, m, seed=9)
    phi = posenc.rf_features(posenc.RfKind.TRIG, om, x).astype(np.float64)
    xd = x.astype(np.float64)
    K = np.exp(-0.5 * ((xd[:, None, :] - xd[None, :, :]) ** 2).sum(-1))
    assert np.abs(phi @ phi.T - K).max() < 0.05


@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention_vs_numpy(causal):
    n, F, dv = 50, 24, 7
    pq = rng.uniform(0.1, 1, (n, F)).astype(np.float32)
    pk = rng.uniform(0.1, 1, (n, F)).astype(np.float32)
    v = rng.standard_normal((n, dv)).astype(np.float32)
    out = posenc.linear_attention(pq, pk, v, causal=causal, eps=1e-6)
    A = pq.astype(np.float64) @ pk.astype(np.float64).T
    if causal:
        A = np.tril(A)
    ref = (A @ v.astype(np.float64)) / (A.sum(1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_softmax_attention_vs_numpy(causal):
    n, d, dv = 40, 16, 5
    q, k = (rng.standard_normal((2, n, d))).astype(np.float32)
    v = rng.standard_normal((n, dv)).astype(np.float32)
    out = posenc.softmax_attention(q, k, v, causal=causal, scale=0.25)
    s = 0.25 * q.astype(np.float64) @ k.astype(np.float64).T
    if causal:
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(out, p @ v.astype(np.float64), rtol=1e-4, atol=1e-5)


def test_features_errors():
    om = posenc.rf_sample(posenc.RfSampling.IID, 4, 8)
    with pytest.raises(posenc.ArgumentError):
        posenc.rf_features(posenc.RfKind.TRIG, om, np.zeros((3, 5), np.float32))  # d mismatch
    with pytest.raises(posenc.Error) as e:
        posenc.rf_features(posenc.RfKind.TRIG, om, np.zeros((3, 4), np.float32), -np.ones(8, np.float32))
    assert e.value.status == posenc.Status.ERR_INVALID_ARGUMENT


@pytest.mark.parametrize("a", [2.0, 3.0, 5.0])
def test_favor_stabilized_queries_and_keys_match_float64(a):
    # keys N(0, 1), queries N(0, a^2): ROW_MAX queries, SHARED_MAX keys, eps = 0 against the
    # float64 FAVOR+ estimate on the same omega (shifts cancel; done in log space here).
    d, m, n, dv = 64, 256, 96, 8
    om = posenc.rf_sample(posenc.RfSampling.ORTHOGONAL, d, m, seed=5)
    r = np.random.default_rng(int(a))
    q = (a * r.standard_normal((n, d))).astype(np.float32)
    k = r.standard_normal((n, d)).astype(np.float32)
    v = r.standard_normal((n, dv)).astype(np.float32)
    pq = posenc.rf_features(posenc.RfKind.POSITIVE, om, q, shift=posenc.RfShift.ROW_MAX)
    pk = posenc.rf_features(posenc.RfKind.POSITIVE, om, k, shift=posenc.RfShift.SHARED_MAX)
    out = posenc.linear_attention(pq, pk, v, eps=0.0)
    o64, q64, k64 = om.astype(np.float64), q.astype(np.float64), k.astype(np.float64)
    eq = q64 @ o64.T - (q64 * q64).sum(1, keepdims=True) / 2
    ek = k64 @ o64.T - (k64 * k64).sum(1, keepdims=True) / 2
    A = np.exp(eq - eq.max(1, keepdims=True)) @ np.exp(ek - ek.max()).T
    ref = (A @ v.astype(np.float64)) / A.sum(1, keepdims=True)
    assert np.isfinite(out).all() and (np.abs(out).sum(1) > 0).all()
    assert np.abs(out - ref).max() < 2e-4 * a
    # the unstabilized map underflows every query row at a = 5
    if a == 5.0:
        assert posenc.rf_features(posenc.RfKind.POSITIVE, om, q).max() == 0.0


def _to_bf16(a):
    u = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bf16(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("kind", list(posenc.RfKind))
def test_bf16_features_and_linear_attention_are_the_float32_results_rounded_once(kind):
    d, m, n = 16, 40, 50
    om = posenc.rf_sample(posenc.RfSampling.IID, d, m, seed=5) * np.float32(0.25)
    xb = _to_bf16(rng.standard_normal((n, d)))
    ref = posenc.rf_features(kind, om, _from_bf16(xb))
    out = posenc.rf_features_bf16(kind, om, xb)
    assert out.dtype == np.uint16 and np.array_equal(out, _to_bf16(ref))
    qb, kb = (_to_bf16(np.abs(rng.standard_normal((n, 12)))) for _ in range(2))
    vb = _to_bf16(rng.standard_normal((n, 5)))
    for causal in (False, True):
        ref = posenc.linear_attention(_from_bf16(qb), _from_bf16(kb), _from_bf16(vb), causal=causal)
        assert np.array_equal(posenc.linear_attention_bf16(qb, kb, vb, causal=causal), _to_bf16(ref))
