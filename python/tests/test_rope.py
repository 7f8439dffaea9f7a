# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rope_params_init posenc_rope_inv_freq posenc_rope_cos_sin_f32 posenc_rope_apply_f32 posenc_rope_apply_cached_f32 posenc_rope_apply_bf16 posenc_rope_decay_f64 posenc_sinusoidal_f32 posenc_rope_plan_apply_out posenc_rope_apply_strided
"""rope family against NumPy float64 on the same inputs."""
import numpy as np
import pytest

import posenc

rng = np.random.default_rng(7)


def np_inv_freq(d, theta):
    return 1.0 / theta ** (np.arange(0, d, 2, dtype=np.float64) / d)


def test_sinusoidal_vs_numpy():
    pos = rng.integers(0, 1 << 20, 300).astype(np.int64)
    for layout in posenc.SinusoidalLayout:
        out = posenc.sinusoidal(positions=pos, dim=64, base=10000.0, layout=layout)
        ph = pos[:, None].astype(np.float64) * np_inv_freq(64, 1e4)[None, :]
        s, c = np.sin(ph), np.cos(ph)
        ref = np.stack([s, c], -1).reshape(len(pos), 64) if layout == posenc.SinusoidalLayout.INTERLEAVED \
            else np.concatenate([s, c], 1)
        # float64 phase itself carries ~|p| * 1e-16 error: tolerance 2e-7 + that
        assert np.abs(out - ref).max() < 2e-7 + 1e-15 * pos.max()


def test_inv_freq_default_and_llama3():
    p = posenc.rope_params(posenc.RopeType.DEFAULT, 128, 5e5)
    inv, af = posenc.rope_inv_freq(p)
    assert af == 1.0
    np.testing.assert_allclose(inv, np_inv_freq(128, 5e5), rtol=1e-14)
    p = posenc.rope_params(posenc.RopeType.LLAMA3, 128, 5e5, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                           original_max_position=8192)
    inv3, _ = posenc.rope_inv_freq(p)
    base = np_inv_freq(128, 5e5)
    wl = 2 * np.pi / base
    smooth = (8192 / wl - 1) / (4 - 1)
    ref = np.where(wl < 8192 / 4, base, np.where(wl > 8192, base / 8, (1 - smooth) * base / 8 + smooth * base))
    np.testing.assert_allclose(inv3, ref, rtol=1e-13)


def test_cos_sin_vs_numpy():
    p = posenc.rope_params(posenc.RopeType.DEFAULT, 128, 5e5)
    pos = np.concatenate([np.arange(100), rng.integers(0, 131072, 200)]).astype(np.int64)
    c, s = posenc.rope_cos_sin(p, pos)
    ph = pos[:, None] * np_inv_freq(128, 5e5)[None, :]
    assert c.shape == (300, 64) and c.dtype == np.float32
    assert np.abs(c - np.cos(ph)).max() < 2e-7 and np.abs(s - np.sin(ph)).max() < 2e-7


def np_rotate(x, c, s, layout, inverse):
    x = x.astype(np.float64).copy()
    h = c.shape[-1]
    if inverse:
        s = -s
    if layout == posenc.RopeLayout.NEOX:
        a, b = x[..., :h].copy(), x[..., h:2 * h].copy()
        x[..., :h], x[..., h:2 * h] = a * c - b * s, a * s + b * c
    else:
        a, b = x[..., 0:2 * h:2].copy(), x[..., 1:2 * h:2].copy()
        x[..., 0:2 * h:2], x[..., 1:2 * h:2] = a * c - b * s, a * s + b * c
    return x


@pytest.mark.parametrize("layout", list(posenc.RopeLayout))
@pytest.mark.parametrize("inverse", [False, True])
def test_apply_vs_numpy(layout, inverse):
    T, hq, hk, hd, rd = 37, 4, 2, 80, 64
    p = posenc.rope_params(posenc.RopeType.DEFAULT, rd, 1e4)
    pos = rng.integers(0, 50000, T).astype(np.int64)
    q = rng.standard_normal((T, hq, hd)).astype(np.float32)
    k = rng.standard_normal((T, hk, hd)).astype(np.float32)
    ph = pos[:, None] * np_inv_freq(rd, 1e4)[None, :]
    c, s = np.cos(ph)[:, None, :], np.sin(ph)[:, None, :]
    rq, rk = np_rotate(q, c, s, layout, inverse), np_rotate(k, c, s, layout, inverse)
    q2, k2 = q.copy(), k.copy()
    posenc.rope_apply(p, q2, k2, pos, layout=layout, inverse=inverse)
    assert np.abs(q2 - rq).max() < 2e-6 and np.abs(k2 - rk).max() < 2e-6
    assert np.array_equal(q2[..., rd:], q[..., rd:])  # channels >= rotary_dim untouched
    # cached tables give the same rotation
    ct, st = posenc.rope_cos_sin(p, n=50000)
    q3, k3 = q.copy(), k.copy()
    posenc.rope_apply_cached(ct, st, q3, k3, pos, layout=layout, inverse=inverse)
    assert np.abs(q3 - q2).max() < 1e-6 and np.abs(k3 - k2).max() < 1e-6


def test_apply_bf16_matches_f32_within_bf16_rounding():
    T, hd = 16, 64
    p = posenc.rope_params(posenc.RopeType.DEFAULT, hd, 1e4)
    x = rng.standard_normal((T, 2, hd)).astype(np.float32)
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)  # truncate to bf16
    xf = (bits.astype(np.uint32) << 16).view(np.float32)
    posenc.rope_apply(p, xf)
    posenc.rope_apply_bf16(p, bits)
    back = (bits.astype(np.uint32) << 16).view(np.float32)
    assert np.all(np.abs(back - xf) <= 2.0 ** -8 * np.abs(xf) + 1e-30)


def test_apply_checks_in_place_arguments():
    p = posenc.rope_params(posenc.RopeType.DEFAULT, 8, 1e4)
    with pytest.raises(posenc.ArgumentError):
        posenc.rope_apply(p, np.zeros((2, 1, 8)))  # float64, cannot rotate in place
    q = np.zeros((2, 1, 8), np.float32)
    with pytest.raises(posenc.Error) as e:
        posenc.rope_apply(p, q, positions=np.array([0, 1 << 60], np.int64))
    assert e.value.status == posenc.Status.ERR_INVALID_ARGUMENT


@pytest.mark.parametrize("kind", ["f32", "f16", "bf16"])
def test_apply_out_equals_in_place_apply_on_a_copy(kind):
    """posenc_rope_plan_apply_out: the same bits as rope_apply on a copy (HF's transposed view in,
    C-contiguous out), partial rotary (tail copied), inputs untouched, out= filled."""
    B, T, hq, hk, hd, rd = 2, 9, 4, 2, 80, 64
    p = posenc.rope_params(posenc.RopeType.DEFAULT, rd, 1e4)
    plan = posenc.RopePlan(p)
    pos = rng.integers(0, 50000, (B, T)).astype(np.int64)
    x = rng.standard_normal((B, T, (hq + hk) * hd)).astype(np.float32)
    if kind == "f16":
        x = x.astype(np.float16)
    elif kind == "bf16":
        x = (x.view(np.uint32) >> 16).astype(np.uint16)
    q = x[..., :hq * hd].reshape(B, T, hq, hd).transpose(0, 2, 1, 3)  # [B, H, T, D] views of a fused buffer
    k = x[..., hq * hd:].reshape(B, T, hk, hd).transpose(0, 2, 1, 3)
    x0 = x.copy()
    bf16 = kind == "bf16"
    for params in (p, plan):
        for inverse in (False, True):
            qo, ko = posenc.rope_apply_out(params, q, k, pos, inverse=inverse, heads_first=True, bf16=bf16)
            assert qo.flags.c_contiguous and qo.shape == q.shape and qo.dtype == q.dtype
            q2, k2 = q.copy(), k.copy()
            fn = posenc.rope_apply_bf16 if bf16 else posenc.rope_apply
            fn(p, q2, k2, pos, inverse=inverse, heads_first=True)
            assert np.array_equal(qo.view(np.uint16 if kind != "f32" else np.uint32),
                                  q2.view(np.uint16 if kind != "f32" else np.uint32))
            assert np.array_equal(ko.view(np.uint8), k2.view(np.uint8))
            assert np.array_equal(qo[..., rd:], q[..., rd:])
    assert np.array_equal(x.view(np.uint8), x0.view(np.uint8))  # inputs untouched
    qf, kf = posenc.rope_apply_out(plan, q, k, pos, heads_first=True, bf16=bf16)
    oq, ok = np.empty(q.shape, q.dtype), np.empty(k.shape, k.dtype)
    r = posenc.rope_apply_out(plan, q, k, pos, heads_first=True, bf16=bf16, out=(oq, ok))
    assert r[0] is oq and r[1] is ok
    assert np.array_equal(oq.view(np.uint8), qf.view(np.uint8)) and np.array_equal(ok.view(np.uint8), kf.view(np.uint8))


def test_apply_out_rejects_overlapping_outputs():
    p = posenc.rope_params(posenc.RopeType.DEFAULT, 8, 1e4)
    q = rng.standard_normal((3, 2, 8)).astype(np.float32)
    buf = np.empty((2, 3, 2, 8), np.float32)
    with pytest.raises(posenc.ArgumentError, match="overlap"):
        posenc.rope_apply_out(p, q, q, out=(buf[0], buf[0]))
    with pytest.raises(posenc.ArgumentError, match="overlap"):
        posenc.rope_apply_out(p, q, out=(q, None))
    with pytest.raises(posenc.ArgumentError, match="dtype"):
        posenc.rope_apply_out(p, q.astype(np.float64))
    qo, _ = posenc.rope_apply_out(p, q)
    q2 = q.copy()
    posenc.rope_apply(p, q2)
    assert np.array_equal(qo, q2)


def test_decay_vs_numpy():
    inv = np_inv_freq(256, 1e4)
    f, b = posenc.rope_decay(inv, 500, n_begin=3, n_step=7, bound=True)
    n = 3 + 7 * np.arange(500)
    ph = n[:, None] * inv[None, :]
    np.testing.assert_allclose(f, np.cos(ph).sum(1), atol=1e-9 * len(inv))
    S = np.cumsum(np.exp(1j * ph), axis=1)
    np.testing.assert_allclose(b, np.abs(S).sum(1) / len(inv), atol=1e-9 * len(inv))
