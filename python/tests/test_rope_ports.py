# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rope_params_init posenc_rope_inv_freq posenc_rope_cos_sin_f32 posenc_rope_apply_strided posenc_rope_plan_create posenc_rope_plan_apply posenc_rope_plan_rerotate posenc_rope_plan_inv_freq posenc_rope_plan_destroy
# needs-modules: torch
"""rope family against float64 ports of HF transformers, vLLM and ggml (python/tests/rope_ports.py)
and against torch running HF's M-RoPE code in float32 (a re-implementation, as HF runs it)."""
import numpy as np
import pytest

import posenc
from rope_ports import (eva02_angles, flux_angles, ggml_rope_cos_sin, hf_default, hf_dynamic, hf_linear, hf_llama3,
                        hf_longrope, hf_longrope_seq_len, hf_proportional, hf_yarn, qwen2vl_vision_angles,
                        rotate_pairs, torch_hf_mrope, vllm_apply_rotary_emb, vllm_dynamic_alpha, vllm_llama3,
                        vllm_mrope_cos_sin, vllm_ntk)

R = posenc.RopeType
rng = np.random.default_rng(23)


def pair_err(got, ref, x, neox, rot, af=1.0):
    """max |got - ref| / ((|a| + |b|) max(A, 1)) over rotated channels (the C bound is 4e-7)."""
    h = rot // 2
    if neox:
        a, b = x[..., :h], x[..., h:rot]
        scale = np.concatenate([np.abs(a) + np.abs(b)] * 2, -1)
    else:
        s = np.abs(x[..., 0:rot:2]) + np.abs(x[..., 1:rot:2])
        scale = np.repeat(s, 2, -1)
    return np.max(np.abs(got[..., :rot] - ref[..., :rot]) / (scale * max(af, 1.0) + 1e-30))


def vl_positions(B=2):
    """position_ids [3, B, S] as Qwen2.5-VL's get_rope_index lays out text, a 2x3x4 image, text."""
    t, h, w = [], [], []
    for i in range(5):
        t.append(i); h.append(i); w.append(i)
    for a in range(2):
        for b in range(3):
            for c in range(4):
                t.append(5 + a); h.append(5 + b); w.append(5 + c)
    for i in range(7):
        t.append(9 + i); h.append(9 + i); w.append(9 + i)
    one = np.array([t, h, w], np.int64)
    return np.stack([one + 1000 * b for b in range(B)], 1)  # row b shifted (a longer prompt before it)


# --------------------------------------------------------------------------- M-RoPE

@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("scaling", ["default", "yarn"])
def test_mrope_vs_hf_port_float64_and_torch_float32(interleaved, scaling):
    """Qwen2.5-VL (chunked [16,24,24]) / Qwen3-VL (interleaved [24,20,20]) on HF's [B, H, S, D] layout
    in place; YaRN + M-RoPE composes (inv_freq and attention factor of YaRN, sections of M-RoPE)."""
    import torch
    sec = (24, 20, 20) if interleaved else (16, 24, 24)
    axes = posenc.RopeAxes.MROPE_INTERLEAVED if interleaved else posenc.RopeAxes.MROPE
    if scaling == "yarn":
        p = posenc.rope_params(R.YARN, 128, 1e6, sections=sec, axes=axes, factor=4.0, original_max_position=32768)
        inv, af = hf_yarn(128, 1e6, 4.0, 32768)
    else:
        p = posenc.rope_params(R.DEFAULT, 128, 1e6, sections=sec, axes=axes)
        inv, af = hf_default(128, 1e6)
    pos = vl_positions()
    B, S, Hq, Hk, D = 2, pos.shape[2], 4, 2, 128
    q = rng.standard_normal((B, Hq, S, D)).astype(np.float32)
    k = rng.standard_normal((B, Hk, S, D)).astype(np.float32)
    # float64 port: HF's channel split / interleave, through vLLM's per-pair form (both are ports).
    ref_q, ref_k = np.empty(q.shape), np.empty(k.shape)
    for b in range(B):
        c, s = vllm_mrope_cos_sin(inv, af, pos[:, b], sec, interleaved)  # [S, 64]
        ang = np.arctan2(s, c)
        ref_q[b] = rotate_pairs(q[b], ang[None], True, np.hypot(c, s)[None])
        ref_k[b] = rotate_pairs(k[b], ang[None], True, np.hypot(c, s)[None])
    tq, tk = torch_hf_mrope(torch, torch.from_numpy(q.copy()), torch.from_numpy(k.copy()),
                            torch.from_numpy(inv.astype(np.float32)), af, torch.from_numpy(pos), sec, interleaved)
    q2, k2 = q.copy(), k.copy()
    posenc.rope_apply(p, q2, k2, pos, heads_first=True)
    assert pair_err(q2, ref_q, q, True, 128, af) < 4e-7 and pair_err(k2, ref_k, k, True, 128, af) < 4e-7
    # torch float32 (HF as it runs): agrees within its own float32 phase error (positions < 2100)
    assert np.abs(tq.numpy() - q2).max() < 2e-3 and np.abs(tk.numpy() - k2).max() < 2e-3
    # and the float64 port is closer to posenc than torch float32 is
    assert np.abs(ref_q - q2).max() < np.abs(ref_q - tq.numpy()).max()


def test_mrope_vllm_gptj_pairs_and_text_only():
    """vLLM MRotaryEmbedding.forward_native with is_neox_style=False; text-only positions equal 1-D."""
    p = posenc.rope_params(R.DEFAULT, 64, 1e4, sections=(8, 12, 12), axes=posenc.RopeAxes.MROPE)
    pos = vl_positions(1)[:, 0]  # [3, T]
    T = pos.shape[1]
    q = rng.standard_normal((T, 3, 80)).astype(np.float32)
    inv, _ = hf_default(64, 1e4)
    c, s = vllm_mrope_cos_sin(inv, 1.0, pos, (8, 12, 12), False)
    ref = q.astype(np.float64).copy()
    ref[..., :64] = vllm_apply_rotary_emb(ref[..., :64], c, s, False)
    q2 = q.copy()
    posenc.rope_apply(p, q2, positions=pos, layout=posenc.RopeLayout.INTERLEAVED)
    assert pair_err(q2, ref, q, False, 64) < 4e-7 and np.array_equal(q2[..., 64:], q[..., 64:])
    cs = posenc.rope_cos_sin(p, pos)
    assert np.abs(cs[0] - c).max() < 2e-7 and np.abs(cs[1] - s).max() < 2e-7
    text = rng.integers(0, 1 << 20, 16)
    a, b = q[:16].copy(), q[:16].copy()
    posenc.rope_apply(p, a, positions=np.stack([text] * 3))
    posenc.rope_apply(posenc.rope_params(R.DEFAULT, 64, 1e4), b, positions=text)
    assert np.abs(a - b).max() < 1e-6


def test_positions_of_the_wrong_rank_are_rejected():
    p = posenc.rope_params(R.DEFAULT, 64, 1e4, sections=(8, 12, 12), axes=posenc.RopeAxes.MROPE)
    q = np.zeros((5, 2, 64), np.float32)
    with pytest.raises(posenc.ArgumentError, match=r"positions must have shape \(3, \.\.\., tokens\)"):
        posenc.rope_apply(p, q, positions=np.arange(5))
    with pytest.raises(posenc.ArgumentError, match="positions are required"):
        posenc.rope_apply(p, q)
    ax = posenc.rope_params(R.DEFAULT, 64, 1e4, sections=(16, 16), axes=posenc.RopeAxes.AXIAL)
    with pytest.raises(posenc.ArgumentError, match=r"\(\.\.\., tokens, 2\)"):
        posenc.rope_apply(ax, q, positions=np.zeros((3, 5), np.int64))
    bad = posenc.rope_params(R.DEFAULT, 64, 1e4, sections=(8, 12, 10), axes=posenc.RopeAxes.MROPE)
    with pytest.raises(posenc.Error, match="sections"):
        posenc.rope_apply(bad, q, positions=np.zeros((3, 5), np.int64))
    assert not q.any()


# --------------------------------------------------------------------------- axial (ViT)

def test_axial_vision_conventions():
    R_, C_ = 6, 5
    rows, cols = np.repeat(np.arange(R_), C_), np.tile(np.arange(C_), R_)
    grid = np.stack([rows, cols], -1).astype(np.int64)
    cases = [  # (params, angles of the framework, NEOX?)
        (posenc.rope_params(R.DEFAULT, 80, 1e4, sections=(20, 20), axes=posenc.RopeAxes.AXIAL),
         qwen2vl_vision_angles(rows, cols, 80), True, grid),
        (posenc.rope_params(R.DEFAULT, 64, 1e4, sections=(16, 16), axes=posenc.RopeAxes.AXIAL),
         eva02_angles(rows, cols, 64), False, grid),
        (posenc.rope_params(R.DEFAULT, 128, 1e4, sections=(8, 28, 28), axes=posenc.RopeAxes.AXIAL),
         flux_angles(np.stack([np.zeros_like(rows), rows, cols], -1), (16, 56, 56)), False,
         np.stack([np.zeros_like(rows), rows, cols], -1).astype(np.int64)),
    ]
    for p, ang, neox, pos in cases:
        D = p.rotary_dim
        x = rng.standard_normal((R_ * C_, 2, D)).astype(np.float32)
        ref = rotate_pairs(x, ang[:, None, :], neox)
        got = x.copy()
        posenc.rope_apply(p, got, positions=pos, layout=posenc.RopeLayout.NEOX if neox else posenc.RopeLayout.INTERLEAVED)
        assert pair_err(got, ref, x, neox, D) < 4e-7


# --------------------------------------------------------------------------- frequency knobs

def inv_af(p):
    return posenc.rope_inv_freq(p)


@pytest.mark.parametrize("factor", [4.0, 0.5])
def test_knobs_vs_framework_formulas(factor):
    d = 128
    for mixed_b in (None, 0.8):
        p = posenc.rope_params(R.NTK_VLLM, d, 1e4, factor=factor, mixed_b=mixed_b or 0.0)
        np.testing.assert_allclose(inv_af(p)[0], vllm_ntk(d, 1e4, factor, mixed_b), rtol=1e-13)
    p = posenc.rope_params(R.DYNAMIC, d, 1e4, alpha=1000.0)
    np.testing.assert_allclose(inv_af(p)[0], vllm_dynamic_alpha(d, 1e4, 1000.0), rtol=1e-13)
    for e, a in ((1.0, 1.0), (0.5, 0.75), (0.0, 1.3)):
        p = posenc.rope_params(R.YARN, d, 5e5, factor=factor, original_max_position=8192, extrapolation_factor=e,
                               attn_factor=a)
        inv, af = inv_af(p)
        ref_inv, ref_af = hf_yarn(d, 5e5, factor, 8192, extrapolation_factor=e, attn_factor=a)
        np.testing.assert_allclose(inv, ref_inv, rtol=1e-13)
        assert af == pytest.approx(ref_af, rel=1e-15)
    # factor < 1 (HF warns, computes): every type's formula as written
    np.testing.assert_allclose(inv_af(posenc.rope_params(R.LINEAR, d, 1e4, factor=factor))[0],
                               hf_linear(d, 1e4, factor)[0], rtol=1e-14)
    np.testing.assert_allclose(
        inv_af(posenc.rope_params(R.DYNAMIC, d, 1e4, factor=factor, original_max_position=4096, seq_len=9000))[0],
        hf_dynamic(d, 1e4, factor, 4096, 9000)[0], rtol=1e-13)
    sf, lf = rng.uniform(1, 2, d // 2), rng.uniform(1, 40, d // 2)
    for sl in (100, 5000):
        p = posenc.rope_params(R.LONGROPE, d, 1e4, short_factor=sf, long_factor=lf, factor=factor,
                               original_max_position=4096, seq_len=sl)
        inv, af = inv_af(p)
        ref_inv, ref_af = hf_longrope(d, 1e4, factor, 4096, sf, lf, sl)
        np.testing.assert_allclose(inv, ref_inv, rtol=1e-14)
        assert af == pytest.approx(ref_af, rel=1e-15)
    p = posenc.rope_params(R.LLAMA3, d, 5e5, factor=factor, original_max_position=8192)
    np.testing.assert_allclose(inv_af(p)[0], hf_llama3(d, 5e5, factor, 1.0, 4.0, 8192)[0], rtol=1e-13)


def test_llama3_equal_factors_follow_vllm_and_proportional_follows_hf():
    p = posenc.rope_params(R.LLAMA3, 128, 5e5, factor=8.0, original_max_position=8192, low_freq_factor=2.0,
                           high_freq_factor=2.0)
    np.testing.assert_allclose(inv_af(p)[0], vllm_llama3(128, 5e5, 8.0, 2.0, 2.0, 8192), rtol=1e-13)
    for prf in (0.25, 0.5, 0.3, 1.0):
        p = posenc.rope_params(R.PROPORTIONAL, 512, 1e6, partial_rotary_factor=prf, factor=2.0)
        np.testing.assert_allclose(inv_af(p)[0], hf_proportional(512, 1e6, prf, 2.0)[0], rtol=1e-13, atol=0)


def test_ggml_freq_factors_with_yarn_cos_sin():
    """ggml rope_yarn with rope_freqs: posenc's cos/sin table = ggml's (float64 port) to 1e-7."""
    d, ff = 128, np.where(np.arange(64) < 40, 1.0, 1.0 + 0.25 * (np.arange(64) - 39))
    pos = np.concatenate([np.arange(50), rng.integers(0, 100000, 50)]).astype(np.int64)
    p = posenc.rope_params(R.YARN, d, 5e5, freq_factors=ff, factor=16.0, original_max_position=8192,
                           extrapolation_factor=0.75, attn_factor=0.9)
    c, s = posenc.rope_cos_sin(p, pos)
    rc, rs = ggml_rope_cos_sin(pos, d, 5e5, 1 / 16, 0.75, 0.9, 32, 1, 8192, ff)
    assert np.abs(c - rc).max() < 3e-7 and np.abs(s - rs).max() < 3e-7  # 1e-10 phase at 1e5 in float64


# --------------------------------------------------------------------------- LongRoPE regime switch

def test_longrope_seq_len_from_positions_and_rerotation():
    d, L = 96, 4096
    sf, lf = rng.uniform(1, 1.5, d // 2), rng.uniform(1, 60, d // 2)
    base = dict(short_factor=sf, long_factor=lf, factor=32.0, original_max_position=L)
    flag = posenc.rope_params(R.LONGROPE, d, 1e4, seq_len_from_positions=1, **base)
    short = posenc.rope_params(R.LONGROPE, d, 1e4, **base)
    long_ = posenc.rope_params(R.LONGROPE, d, 1e4, seq_len=L + 1, **base)
    k = rng.standard_normal((40, 2, d)).astype(np.float32)
    for last in (L - 1, L, 3 * L):
        pos = np.concatenate([rng.integers(0, L - 1, 39), [last]]).astype(np.int64)
        inv, af = hf_longrope(d, 1e4, 32.0, L, sf, lf, hf_longrope_seq_len(pos))
        got = k.copy()
        posenc.rope_apply(flag, got, positions=pos)
        ref = rotate_pairs(k, pos[:, None, None] * inv[None, None, :], True, af)
        assert pair_err(got, ref, k, True, d, af) < 4e-7, last
    # K cached with the short factors; the sequence crosses L: one re-rotation to the long factors.
    pos = rng.integers(0, L, 40).astype(np.int64)
    cached = k.copy()
    posenc.rope_apply(short, cached, positions=pos)
    posenc.rope_rerotate(short, long_, k=cached, positions=pos)
    inv, af = hf_longrope(d, 1e4, 32.0, L, sf, lf, L + 1)
    ref = rotate_pairs(k, pos[:, None, None] * inv[None, None, :], True, af)
    assert np.abs(cached - ref).max() < 4e-6


# --------------------------------------------------------------------------- storage, strides, plan

def test_fp16_is_float32_math_rounded_and_strided_views_rotate_in_place():
    p = posenc.rope_params(R.YARN, 64, 1e6, factor=8.0, original_max_position=4096)
    pos = rng.integers(0, 1 << 16, 2 * 9).reshape(2, 9).astype(np.int64)
    x16 = rng.standard_normal((2, 3, 9, 80)).astype(np.float16)  # HF [B, H, S, D]
    x32 = x16.astype(np.float32)
    posenc.rope_apply(p, x16, positions=pos, heads_first=True)
    posenc.rope_apply(p, x32, positions=pos, heads_first=True)
    assert np.array_equal(x16, x32.astype(np.float16))  # numpy's float32 -> float16 is RNE
    # fused QKV rows: q and k are column ranges of one [T, (4 + 2 + 2) * 64] buffer
    qkv = rng.standard_normal((11, 8 * 64)).astype(np.float32)
    ref = qkv.copy()
    q, k = qkv[:, :256].reshape(11, 4, 64), qkv[:, 256:384].reshape(11, 2, 64)
    assert not q.flags.c_contiguous and np.shares_memory(q, qkv)
    plan = posenc.RopePlan(p)
    posenc.rope_apply(plan, q, k, positions=pos[0, :9].repeat(2)[:11])
    rq, rk = ref[:, :256].reshape(11, 4, 64).copy(), ref[:, 256:384].reshape(11, 2, 64).copy()
    posenc.rope_apply(p, rq, rk, positions=pos[0, :9].repeat(2)[:11])
    assert np.array_equal(qkv[:, :256], rq.reshape(11, 256)) and np.array_equal(qkv[:, 256:384], rk.reshape(11, 128))
    assert np.array_equal(qkv[:, 384:], ref[:, 384:])  # v untouched
    inv, af = plan.inv_freq()
    assert np.array_equal(inv, posenc.rope_inv_freq(p)[0]) and af == posenc.rope_inv_freq(p)[1]
    plan.close()
    with pytest.raises(posenc.ArgumentError, match="closed"):
        posenc.rope_apply(plan, q)


def test_in_place_messages_never_suggest_convert():
    """Item 8: an in-place array of the wrong dtype / layout names the fix (convert is for positions)."""
    p = posenc.rope_params(R.DEFAULT, 8, 1e4)
    for convert in (False, True):
        with pytest.raises(posenc.ArgumentError) as e:
            posenc.rope_apply(p, np.zeros((2, 1, 8)), convert=convert)
        msg = str(e.value)
        assert "never converted" in msg and "astype(np.float32)" in msg and "pass convert=True" not in msg
    with pytest.raises(posenc.ArgumentError, match="unit-stride last axis") as e:
        posenc.rope_apply(p, np.zeros((2, 1, 16), np.float32)[..., ::2])
    assert "pass convert=True" not in str(e.value)
    with pytest.raises(posenc.ArgumentError, match="rope_apply_bf16"):
        posenc.rope_apply(p, np.zeros((2, 1, 8), np.uint16))
    # positions are an input: convert=True converts them (value-preserving)
    q = np.ones((2, 1, 8), np.float32)
    posenc.rope_apply(p, q, positions=[0.0, 3.0], convert=True)
    q3 = np.ones((2, 1, 8), np.float32)
    posenc.rope_apply(p, q3, positions=np.array([0, 3], np.int64))
    assert np.array_equal(q, q3)
