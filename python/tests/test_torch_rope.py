# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rope_plan_apply posenc_rope_plan_apply_out posenc_rope_apply_strided posenc_rope_cos_sin_f32 posenc_rope_plan_inv_freq
# needs-modules: torch
"""posenc.torch RoPE: the autograd op against torch autograd of a float64 reference rotation, bf16 /
fp16 against the float32 path, strided layouts, double backward, errors, thread determinism, the
HF config mapping, and RotaryEmbedding inside a Llama attention block ported from transformers.

Tolerances (the C ABI has no float64 RoPE, so no float64 gradcheck): the forward and the backward
(the transposed rotation of the incoming gradient) are each one float32 rotation with float32
cos/sin, documented in posenc.h as |error| <= 4e-7 (|a| + |b|) max(A, 1) per element of a pair
(a, b) against the float64 rotation: the tests assert exactly that bound against torch autograd
of the float64 formula. The Llama block compares two float32 computations of the same model
(HF's rotate_half formula vs posenc): 2e-6 relative on outputs and gradients."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import posenc
import posenc.torch as pt
import rope_ports

torch.manual_seed(0)


# ------------------------------------------------------------------ float64 reference (torch autograd)

def ref_rotate(x, inv, af, pos, rotary_dim, interleaved, heads_first):
    """float64 RoPE of x [..., T, H, D] (heads_first: [..., H, T, D]); pos [..., T] float64."""
    ang = pos[..., None] * inv  # [..., T, h]
    c, s = af * torch.cos(ang), af * torch.sin(ang)
    c, s = (c.unsqueeze(-3), s.unsqueeze(-3)) if heads_first else (c.unsqueeze(-2), s.unsqueeze(-2))
    h = rotary_dim // 2
    rot, rest = x[..., :rotary_dim], x[..., rotary_dim:]
    if interleaved:
        a, b = rot[..., 0::2], rot[..., 1::2]
        out = torch.stack((a * c - b * s, a * s + b * c), -1).flatten(-2)
    else:
        a, b = rot[..., :h], rot[..., h:]
        out = torch.cat((a * c - b * s, a * s + b * c), -1)
    return torch.cat((out, rest), -1)


def pair_bound(x, rotary_dim, interleaved, af):
    """4e-7 (|a| + |b|) max(A, 1) for every element of x (its pair's partner), 0 beyond rotary_dim
    (those channels are copied exactly)."""
    h = rotary_dim // 2
    r = x[..., :rotary_dim].abs()
    if interleaved:
        ab = r[..., 0::2] + r[..., 1::2]
        ab = torch.stack((ab, ab), -1).flatten(-2)
    else:
        ab = r[..., :h] + r[..., h:]
        ab = torch.cat((ab, ab), -1)
    return torch.cat((4e-7 * max(af, 1.0) * ab, torch.zeros_like(x[..., rotary_dim:])), -1)


def check_close(got, want, bound, what):
    err = (got.double() - want).abs()
    assert torch.all(err <= bound + 1e-30), f"{what}: max excess {(err - bound).max().item():.3g}"


PARAMS = [
    ("llama3", lambda: posenc.rope_params(posenc.RopeType.LLAMA3, 64, 500000.0, factor=8.0, low_freq_factor=1.0,
                                          high_freq_factor=4.0, original_max_position=8192)),
    ("yarn", lambda: posenc.rope_params(posenc.RopeType.YARN, 32, 10000.0, factor=4.0, original_max_position=4096)),
    ("partial", lambda: posenc.rope_params(posenc.RopeType.DEFAULT, 48, 10000.0)),
]


@pytest.mark.parametrize("name,make", PARAMS)
@pytest.mark.parametrize("heads_first", [False, True])
@pytest.mark.parametrize("layout", [posenc.RopeLayout.NEOX, posenc.RopeLayout.INTERLEAVED])
def test_forward_backward_vs_float64_autograd(name, make, heads_first, layout):
    p = make()
    plan = posenc.RopePlan(p)
    inv, af = plan.inv_freq()
    B, T, Hq, Hk, D = 2, 7, 4, 2, 64
    shp = (lambda H: (B, H, T, D)) if heads_first else (lambda H: (B, T, H, D))
    q = torch.randn(shp(Hq), requires_grad=True)
    k = torch.randn(shp(Hk), requires_grad=True)
    pos = torch.randint(0, 200000, (B, T))
    qr, kr = pt.rope_apply(plan, q, k, pos, layout=layout, heads_first=heads_first)
    gq, gk = torch.randn_like(qr), torch.randn_like(kr)
    ((qr * gq).sum() + (kr * gk).sum()).backward()

    inter = layout == posenc.RopeLayout.INTERLEAVED
    q64 = q.detach().double().requires_grad_()
    k64 = k.detach().double().requires_grad_()
    inv_t = torch.from_numpy(inv)
    rq = ref_rotate(q64, inv_t, af, pos.double(), p.rotary_dim, inter, heads_first)
    rk = ref_rotate(k64, inv_t, af, pos.double(), p.rotary_dim, inter, heads_first)
    ((rq * gq.double()).sum() + (rk * gk.double()).sum()).backward()
    check_close(qr, rq.detach(), pair_bound(q.detach().double(), p.rotary_dim, inter, af), "q forward")
    check_close(kr, rk.detach(), pair_bound(k.detach().double(), p.rotary_dim, inter, af), "k forward")
    check_close(q.grad, q64.grad, pair_bound(gq.double(), p.rotary_dim, inter, af), "q grad")
    check_close(k.grad, k64.grad, pair_bound(gk.double(), p.rotary_dim, inter, af), "k grad")
    # channels past rotary_dim pass through exactly, forward and backward
    assert torch.equal(qr[..., p.rotary_dim:], q.detach()[..., p.rotary_dim:])
    assert torch.equal(q.grad[..., p.rotary_dim:], gq[..., p.rotary_dim:])


def test_params_and_plan_agree_and_inverse_undoes():
    p = posenc.rope_params(rotary_dim=32)
    q = torch.randn(3, 9, 4, 32)
    a, _ = pt.rope_apply(p, q)
    b, _ = pt.rope_apply(posenc.RopePlan(p), q)
    assert torch.equal(a, b)
    back, _ = pt.rope_apply(p, a, inverse=True)
    assert (back - q).abs().max() < 1e-5
    assert not torch.equal(a, q)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_is_the_float32_path_rounded_once(dtype):
    plan = posenc.RopePlan(posenc.rope_params(rotary_dim=64))
    q = torch.randn(2, 4, 11, 64).to(dtype).requires_grad_()
    k = torch.randn(2, 2, 11, 64).to(dtype).requires_grad_()
    pos = torch.arange(11)[None] + 1000
    qr, kr = pt.rope_apply(plan, q, k, pos, heads_first=True)
    assert qr.dtype == dtype and kr.dtype == dtype
    qf, kf = pt.rope_apply(plan, q.detach().float(), k.detach().float(), pos, heads_first=True)
    assert torch.equal(qr, qf.to(dtype)) and torch.equal(kr, kf.to(dtype))
    gq, gk = torch.randn_like(qr), torch.randn_like(kr)
    torch.autograd.backward((qr, kr), (gq, gk))
    wq, wk = pt.rope_apply(plan, gq.float(), gk.float(), pos, inverse=True, heads_first=True)
    assert torch.equal(q.grad, wq.to(dtype)) and torch.equal(k.grad, wk.to(dtype))


def test_strided_views_equal_contiguous_bitwise():
    plan = posenc.RopePlan(posenc.rope_params(rotary_dim=16))
    B, S, Hq, Hk, D = 2, 5, 4, 2, 16
    qkv = torch.randn(B, S, (Hq + 2 * Hk) * D)
    q = qkv[..., :Hq * D].view(B, S, Hq, D)  # fused QKV column ranges: token stride (Hq+2Hk)D
    k = qkv[..., Hq * D:(Hq + Hk) * D].view(B, S, Hk, D)
    pos = torch.randint(0, 5000, (B, S))
    a = pt.rope_apply(plan, q, k, pos)
    b = pt.rope_apply(plan, q.contiguous(), k.contiguous(), pos)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    # HF layout after transpose(1, 2), and a non-unit-stride head_dim (copied to contiguous first)
    c = pt.rope_apply(plan, q.transpose(1, 2), k.transpose(1, 2), pos, heads_first=True)
    assert torch.equal(c[0].transpose(1, 2), b[0]) and torch.equal(c[1].transpose(1, 2), b[1])
    qt = q.contiguous().transpose(-1, -2).contiguous().transpose(-1, -2)  # stride(-1) == Hq
    assert qt.stride(-1) != 1
    d, _ = pt.rope_apply(plan, qt, None, pos)
    assert torch.equal(d, b[0])
    # extra leading dimensions, positions broadcast from [T]
    q5 = torch.randn(2, 3, S, Hq, D)
    e, _ = pt.rope_apply(plan, q5, None, torch.arange(S))
    f, _ = pt.rope_apply(plan, q5.reshape(6, S, Hq, D), None, torch.arange(S))
    assert torch.equal(e.reshape(6, S, Hq, D), f)
    # the input is never modified
    q0 = q.clone()
    pt.rope_apply(plan, q, k, pos)
    assert torch.equal(q, q0)
    # read where they are (posenc_rope_plan_apply_out), unless elements share an address: expand()ed
    # heads / batch (stride 0) and non-collapsing leading dimensions go through a contiguous copy;
    # with and without autograd, first call and the prepared (fast) path
    one = torch.randn(1, S, 1, D)
    for x in (one.expand(B, S, Hq, D), torch.randn(S, 3, B, Hq, D).permute(2, 1, 0, 3, 4)):
        want, _ = pt.rope_apply(plan, x.contiguous(), None, torch.arange(S))
        for grad in (False, True):
            for _ in range(2):
                got, _ = pt.rope_apply(plan, x.detach().requires_grad_(grad), None, torch.arange(S))
                assert torch.equal(got, want)


def test_double_backward_is_the_rotation_again():
    plan = posenc.RopePlan(posenc.rope_params(rotary_dim=8))
    q = torch.randn(1, 6, 2, 8, requires_grad=True)
    pos = torch.arange(6)[None] * 37
    qr, _ = pt.rope_apply(plan, q, None, pos)
    g = torch.randn_like(qr, requires_grad=True)
    (gq,) = torch.autograd.grad(qr, q, g, create_graph=True)  # R^T g, as a function of g
    v = torch.randn_like(gq)
    (gg,) = torch.autograd.grad(gq, g, v)  # d<R^T g, v>/dg = R v
    rv, _ = pt.rope_apply(plan, v, None, pos)
    assert torch.equal(gg, rv)


def test_errors_name_the_argument_and_the_fix():
    plan = posenc.RopePlan(posenc.rope_params(rotary_dim=8))
    q = torch.randn(1, 4, 2, 8)
    with pytest.raises(posenc.ArgumentError, match="q must have dtype.*float64: cast with .float"):
        pt.rope_apply(plan, q.double())
    with pytest.raises(posenc.ArgumentError, match="device meta.*CPU only"):
        pt.rope_apply(plan, torch.empty(1, 4, 2, 8, device="meta"))
    with pytest.raises(posenc.ArgumentError, match="layout torch.sparse_coo"):
        pt.rope_apply(plan, q.to_sparse())
    with pytest.raises(posenc.ArgumentError, match="same dtype"):
        pt.rope_apply(plan, q, q.half())
    with pytest.raises(posenc.ArgumentError, match="positions must have dtype"):
        pt.rope_apply(plan, q, None, torch.arange(4.0))
    with pytest.raises(posenc.ArgumentError, match="does not broadcast"):
        pt.rope_apply(plan, q, None, torch.arange(5))
    with pytest.raises(posenc.ArgumentError, match="k must have the leading dimensions"):
        pt.rope_apply(plan, q, torch.randn(1, 5, 2, 8))
    with pytest.raises(posenc.ArgumentError, match="q must have shape"):
        pt.rope_apply(plan, torch.randn(4, 8))
    with pytest.raises(posenc.Error, match="head_dim"):  # the C ABI's own check: head_dim < rotary_dim
        pt.rope_apply(plan, torch.randn(1, 4, 2, 6))
    with pytest.raises(posenc.ArgumentError, match="params must be"):
        pt.rope_apply("llama", q)


def test_thread_count_does_not_change_bits():
    plan = posenc.RopePlan(posenc.rope_params(posenc.RopeType.YARN, 128, 10000.0, factor=4.0,
                                              original_max_position=4096))
    q = torch.randn(2, 32, 300, 128, requires_grad=True)
    k = torch.randn(2, 8, 300, 128, requires_grad=True)
    pos = torch.randint(0, 100000, (2, 300))
    g = torch.randn(2, 32, 300, 128), torch.randn(2, 8, 300, 128)
    res = []
    old = posenc.threads_get()
    try:
        for n in (1, 2):
            posenc.threads_set(n)
            q.grad = k.grad = None
            qr, kr = pt.rope_apply(plan, q, k, pos, heads_first=True)
            torch.autograd.backward((qr, kr), g)
            res.append((qr.detach(), kr.detach(), q.grad.clone(), k.grad.clone()))
    finally:
        posenc.threads_set(old)
    assert all(torch.equal(a, b) for a, b in zip(*res))


def test_import_posenc_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import posenc; print(posenc.__version__)\n"
            "try:\n    import posenc.torch\nexcept ImportError as e:\n    print('IMPORTERROR', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy(),
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode == 0, r.stderr
    assert posenc.__version__ in r.stdout and "IMPORTERROR posenc.torch needs PyTorch" in r.stdout


# ------------------------------------------------------------------ HF configs and RotaryEmbedding

def hf_config(**kw):
    c = dict(hidden_size=128, num_attention_heads=4, num_key_value_heads=2, head_dim=32, rope_theta=10000.0,
             max_position_embeddings=4096, rope_scaling=None)
    c.update(kw)
    return c


CONFIGS = [
    ("default", hf_config(), lambda d: rope_ports.hf_default(d, 10000.0)),
    ("partial", hf_config(partial_rotary_factor=0.5), lambda d: rope_ports.hf_default(d, 10000.0)),
    ("linear", hf_config(rope_scaling={"rope_type": "linear", "factor": 2.0}),
     lambda d: rope_ports.hf_linear(d, 10000.0, 2.0)),
    ("dynamic", hf_config(rope_scaling={"type": "dynamic", "factor": 2.0}),
     lambda d: rope_ports.hf_dynamic(d, 10000.0, 2.0, 4096, 4096)),
    ("yarn", hf_config(rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024}),
     lambda d: rope_ports.hf_yarn(d, 10000.0, 4.0, 1024)),
    ("llama3", hf_config(rope_theta=500000.0, rope_scaling={"rope_type": "llama3", "factor": 8.0,
                                                              "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                              "original_max_position_embeddings": 8192}),
     lambda d: rope_ports.hf_llama3(d, 500000.0, 8.0, 1.0, 4.0, 8192)),
]


@pytest.mark.parametrize("name,cfg,ref", CONFIGS)
def test_config_mapping_matches_hf_init_functions(name, cfg, ref):
    emb = pt.RotaryEmbedding(cfg)
    d = int(32 * cfg.get("partial_rotary_factor", 1.0))
    want_inv, want_af = ref(d)
    assert emb.rotary_dim == d and emb.head_dim == 32
    np.testing.assert_allclose(emb.inv_freq.double().numpy(), np.asarray(want_inv, np.float64), rtol=1e-7)
    assert emb.attention_scaling == pytest.approx(want_af, rel=1e-12)


def test_longrope_config_switches_factors_by_position():
    short = np.linspace(1.0, 2.0, 16)
    long_ = np.linspace(1.0, 8.0, 16)
    cfg = hf_config(max_position_embeddings=16384, original_max_position_embeddings=4096,
                    rope_scaling={"rope_type": "longrope", "short_factor": short.tolist(),
                                  "long_factor": long_.tolist()})
    emb = pt.RotaryEmbedding(cfg)
    x = torch.zeros(1)
    for last, ext in ((4095, short), (4096, long_)):
        pos = torch.tensor([[0, 5, last]])
        cos, sin = emb(x, pos)
        inv, af = rope_ports.hf_longrope(32, 10000.0, 4.0, 4096, short, long_, last + 1)
        ang = pos[0, :, None].double() * torch.from_numpy(np.asarray(inv))
        assert torch.allclose(cos[0, :, :16].double(), af * torch.cos(ang), atol=2e-7)
        assert torch.allclose(sin[0, :, 16:].double(), af * torch.sin(ang), atol=2e-7)


def test_unmapped_config_raises():
    with pytest.raises(posenc.ArgumentError, match="not mapped"):
        pt.RotaryEmbedding(hf_config(rope_scaling={"rope_type": "su_mystery"}))
    with pytest.raises(posenc.ArgumentError, match="M-RoPE"):
        pt.RotaryEmbedding(hf_config(rope_scaling={"rope_type": "default", "mrope_section": [4, 6, 6]}))


# transformers' LlamaRotaryEmbedding.forward, rotate_half, apply_rotary_pos_emb, repeat_kv and the eager
# LlamaAttention.forward, ported to plain torch (transformers is not a dependency).

class HFRotary(torch.nn.Module):
    def __init__(self, inv_freq, attention_scaling):
        super().__init__()
        self.register_buffer("inv_freq", inv_freq)
        self.attention_scaling = attention_scaling

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


class LlamaAttention(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.head_dim = cfg["head_dim"]
        self.num_key_value_groups = cfg["num_attention_heads"] // cfg["num_key_value_heads"]
        self.scaling = self.head_dim ** -0.5
        h, nq, nk = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.q_proj = torch.nn.Linear(h, nq * self.head_dim, bias=False)
        self.k_proj = torch.nn.Linear(h, nk * self.head_dim, bias=False)
        self.v_proj = torch.nn.Linear(h, nk * self.head_dim, bias=False)
        self.o_proj = torch.nn.Linear(nq * self.head_dim, h, bias=False)

    def forward(self, hidden_states, rope):
        """rope(q, k) -> rotated (q, k) in HF layout [B, H, S, D]."""
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        query_states, key_states = rope(query_states, key_states)
        key_states = repeat_kv(key_states, self.num_key_value_groups)
        value_states = repeat_kv(value_states, self.num_key_value_groups)
        S = hidden_states.shape[1]
        causal_mask = torch.full((S, S), float("-inf")).triu(1)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling
        attn_weights = attn_weights + causal_mask
        attn_weights = torch.nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous()
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


@pytest.mark.parametrize("name,cfg,ref", [c for c in CONFIGS if c[0] in ("default", "partial", "llama3", "yarn")])
def test_llama_attention_block_same_outputs_and_gradients(name, cfg, ref):
    torch.manual_seed(1)
    block = LlamaAttention(cfg)
    emb = pt.RotaryEmbedding(cfg)
    # HF computes inv_freq in float32 (torch.arange(...).float() / dim, base ** ...): use HF's own
    # float32 values for the HF path, posenc's exact ones for posenc's
    want_inv, want_af = ref(emb.rotary_dim)
    hf = HFRotary(torch.from_numpy(np.asarray(want_inv)).float(), want_af)
    B, S = 2, 24
    x = torch.randn(B, S, cfg["hidden_size"])
    position_ids = torch.arange(S)[None].expand(B, S) + torch.tensor([[0], [40]])

    def run(rope):
        block.zero_grad()
        xx = x.clone().requires_grad_()
        y = block(xx, rope)
        loss = (y * torch.linspace(-1, 1, y.numel()).reshape(y.shape)).sum()
        loss.backward()
        return y.detach(), xx.grad, [p.grad.clone() for p in block.parameters()]

    def hf_rope(q, k):
        cos, sin = hf(q, position_ids)
        rd = cos.shape[-1]
        if rd == q.shape[-1]:
            return apply_rotary_pos_emb(q, k, cos, sin)
        # partial rotary (GPT-NeoX / Phi): rotate the first rotary_dim channels, pass the rest
        qr, kr = apply_rotary_pos_emb(q[..., :rd], k[..., :rd], cos, sin)
        return torch.cat((qr, q[..., rd:]), -1), torch.cat((kr, k[..., rd:]), -1)

    ref_out = run(hf_rope)
    got = run(lambda q, k: emb.apply(q, k, position_ids))
    # HF's forward feeding HF's apply_rotary_pos_emb: the cos/sin drop-in
    if emb.rotary_dim == cfg["head_dim"]:
        mixed = run(lambda q, k: apply_rotary_pos_emb(q, k, *emb(q, position_ids)))
    else:
        mixed = ref_out
    for a, b in zip((ref_out[0], ref_out[1], *ref_out[2]), (got[0], got[1], *got[2])):
        assert torch.allclose(a, b, rtol=2e-6, atol=2e-6 * a.abs().max().item())
    for a, b in zip((ref_out[0], ref_out[1], *ref_out[2]), (mixed[0], mixed[1], *mixed[2])):
        assert torch.allclose(a, b, rtol=2e-6, atol=2e-6 * a.abs().max().item())


def test_rotary_forward_matches_hf_forward():
    cfg = hf_config(rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024})
    emb = pt.RotaryEmbedding(cfg)
    inv, af = rope_ports.hf_yarn(32, 10000.0, 4.0, 1024)
    hf = HFRotary(torch.from_numpy(np.asarray(inv)).float(), af)
    pos = torch.arange(64)[None].repeat(2, 1)
    x = torch.zeros(1, dtype=torch.bfloat16)
    c1, s1 = emb(x, pos)
    c2, s2 = hf(x, pos)
    assert c1.shape == c2.shape == (2, 64, 32) and c1.dtype == torch.bfloat16
    assert (c1.float() - c2.float()).abs().max() <= 2 ** -8 * af and (s1.float() - s2.float()).abs().max() <= 2 ** -8 * af
    c3, s3 = emb(torch.zeros(1), pos)
    c4, s4 = hf(torch.zeros(1), pos)
    # HF forms position * inv_freq in float32: its phase error is up to ~position * 2^-24 rad
    tol = af * (63 * 2 ** -23 + 2 ** -22)
    assert (c3 - c4).abs().max() < tol and (s3 - s4).abs().max() < tol


def test_module_apply_with_a_function_is_nn_module_apply():
    emb = pt.RotaryEmbedding(hf_config())
    seen = []
    assert emb.apply(lambda m: seen.append(type(m).__name__)) is emb
    assert seen == ["RotaryEmbedding"]


def test_inplace_on_hf_views_equals_the_copy_bitwise():
    plan = posenc.RopePlan(posenc.rope_params(posenc.RopeType.LLAMA3, 64, 500000.0, factor=8.0,
                                              original_max_position=8192))
    B, S, Hq, Hk, D = 2, 9, 4, 2, 64
    wq = torch.randn(B, S, Hq * D, requires_grad=True)
    wk = torch.randn(B, S, Hk * D, requires_grad=True)
    pos = torch.randint(0, 50000, (B, S))
    gq, gk = torch.randn(B, Hq, S, D), torch.randn(B, Hk, S, D)
    res = []
    for inplace in (False, True):
        wq.grad = wk.grad = None
        q = (wq * 1).view(B, S, Hq, D).transpose(1, 2)  # HF: a transposed view of the projection
        k = (wk * 1).view(B, S, Hk, D).transpose(1, 2)
        qr, kr = pt.rope_apply(plan, q, k, pos, heads_first=True, inplace=inplace)
        assert (qr is q) == inplace and (kr is k) == inplace
        torch.autograd.backward((qr, kr), (gq, gk))
        res.append((qr.detach().clone(), kr.detach().clone(), wq.grad.clone(), wk.grad.clone()))
    assert all(torch.equal(a, b) for a, b in zip(*res))
    with torch.no_grad():  # no autograd: rotated in place as well
        q = torch.randn(B, S, Hq, D)
        want, _ = pt.rope_apply(plan, q, None, pos)
        got, _ = pt.rope_apply(plan, q, None, pos, inplace=True)
        assert got is q and torch.equal(q, want)
    leaf = torch.randn(B, S, Hq, D, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        pt.rope_apply(plan, leaf, None, pos, inplace=True)
    odd = torch.randn(B, S, Hq, D).transpose(-1, -2).contiguous().transpose(-1, -2)
    with pytest.raises(posenc.ArgumentError, match="inplace=True: q .* unit-stride head_dim"):
        pt.rope_apply(plan, odd, None, pos, inplace=True)


def test_fast_path_same_bits_and_same_checks():
    """Calls without autograd whose layout was seen before take a prepared fast path (per thread,
    shapes, strides and dtypes): same bits as the first (full) call, and what the key cannot
    carry (device-independent lazy neg bit, non-contiguous positions, q / k aliasing with
    inplace=True) still takes the full path with its checks."""
    emb = pt.RotaryEmbedding({"head_dim": 64, "rope_theta": 10000.0, "hidden_size": 256, "num_attention_heads": 4})
    xq, xk = torch.randn(2, 5, 4 * 64), torch.randn(2, 5, 2 * 64)
    q, k = xq.view(2, 5, 4, 64).transpose(1, 2), xk.view(2, 5, 2, 64).transpose(1, 2)
    pos = torch.arange(5)[None].expand(2, 5).contiguous() + 7
    with torch.no_grad():
        first = emb.apply(q, k, pos)
        assert len(emb._cfg[True].fast) >= 1
        again = emb.apply(q, k, pos)
        for a, b in zip(first, again):
            assert torch.equal(a, b)
        assert again[0].stride() == q.stride()
        assert again[0].data_ptr() != q.data_ptr()  # a new tensor, q untouched
        assert torch.equal(q, xq.view(2, 5, 4, 64).transpose(1, 2))
        # other positions, same layout: the fast path reads the new values
        other = emb.apply(q, k, pos + 100)
        ref = emb.apply(q.contiguous(), k.contiguous(), pos + 100)
        assert torch.equal(other[0], ref[0]) and torch.equal(other[1], ref[1])
        # a neg view with q's shape and strides is resolved by the full path's check
        z = torch.complex(xq, torch.zeros_like(xq)).conj().imag
        assert z.is_neg()
        with pytest.raises(posenc.ArgumentError, match="lazy conj/neg view"):
            emb.apply(z.view(2, 5, 4, 64).transpose(1, 2), k, pos)
        # non-contiguous positions of the same shape: full path (copies them), same values
        pn = pos.t().contiguous().t()
        assert not pn.is_contiguous()
        r2 = emb.apply(q, k, pn)
        assert torch.equal(r2[0], first[0])
        # inplace with q and k sharing memory is refused on every call
        qq = xq.clone().view(2, 5, 4, 64).transpose(1, 2)
        emb.apply(qq, qq.clone(), pos, inplace=True)
        for _ in range(2):
            with pytest.raises(posenc.ArgumentError, match="must not share memory"):
                emb.apply(qq, qq, pos, inplace=True)
        # inplace fast path rotates q / k themselves, with the copy path's bits
        q2 = q.clone()
        for _ in range(2):
            q3, k3 = q.clone(), k.clone()
            out = emb.apply(q3, k3, pos, inplace=True)
            assert out[0] is q3 and torch.equal(q3, first[0]) and torch.equal(k3, first[1])
        assert torch.equal(q2, q)
    # with autograd the op is recorded (the fast path is for calls without grad only)
    qg = q.clone().requires_grad_()
    out = emb.apply(qg, k, pos)
    assert out[0].grad_fn is not None and torch.equal(out[0].detach(), first[0])


def test_autograd_fast_path_and_backward_layout():
    """With autograd, a call whose arguments passed the checks before skips them (same bits as
    the first call, forward and backward); the backward returns the gradient in the forward
    output's layout (for HF's transposed views the projection's row-major layout, so the view
    backward needs no copy), with the values of the inverse rotation of the incoming gradient.
    What the cache key cannot carry (lazy neg bit) is still refused."""
    emb = pt.RotaryEmbedding({"head_dim": 32, "rope_theta": 10000.0, "hidden_size": 128, "num_attention_heads": 4})
    B, S, Hq, Hk, D = 2, 6, 4, 2, 32
    xq = torch.randn(B, S, Hq * D, requires_grad=True)
    xk = torch.randn(B, S, Hk * D, requires_grad=True)
    pos = torch.arange(S)[None].expand(B, S).contiguous() + 3
    gq, gk = torch.randn(B, Hq, S, D), torch.randn(B, Hk, S, D)
    res = []
    for _ in range(3):  # the first call takes the full path, the others the prepared one
        q, k = xq.view(B, S, Hq, D).transpose(1, 2), xk.view(B, S, Hk, D).transpose(1, 2)
        qr, kr = emb.apply(q, k, pos)
        dq, dk = torch.autograd.grad((qr, kr), (q, k), (gq, gk))
        assert dq.stride() == q.stride() and dk.stride() == k.stride()
        res.append((qr.detach(), kr.detach(), dq, dk))
    for r in res[1:]:
        assert all(torch.equal(a, b) for a, b in zip(res[0], r))
    with torch.no_grad():
        want_q, want_k = emb.apply(q.detach(), k.detach(), pos)
        inv_q, inv_k = pt.rope_apply(emb, gq, gk, pos, heads_first=True, inverse=True)
    assert torch.equal(res[0][0], want_q) and torch.equal(res[0][1], want_k)
    assert torch.equal(res[0][2], inv_q) and torch.equal(res[0][3], inv_k)
    # gradients in other layouts (non-contiguous, contiguous at one token) give the same values
    g2 = torch.randn(B, Hq, D, S).transpose(-1, -2)
    (d2,) = torch.autograd.grad(emb.apply(q, k, pos)[0], q, g2)
    with torch.no_grad():
        assert torch.equal(d2, pt.rope_apply(emb, g2.contiguous(), None, pos, heads_first=True, inverse=True)[0])
    z = torch.complex(xq.detach(), torch.zeros_like(xq.detach())).conj().imag.requires_grad_()
    assert z.is_neg()
    with pytest.raises(posenc.ArgumentError, match="lazy conj/neg view"):
        emb.apply(z.view(B, S, Hq, D).transpose(1, 2), k, pos)


def test_prepared_path_taken_and_checks_kept(monkeypatch):
    """A call of a layout seen before takes the prepared path (the full checks are not run
    again: _check_qk is made to fail and the call still succeeds, with the first call's bits,
    with and without autograd, at 1 token as in decoding); what the cache key does not carry is
    still checked on that path, with the full path's messages: a tensor of the same shape,
    strides and dtype on another device (meta, standing in for CUDA), another dtype, a layout
    the C ABI cannot address (copied first, same values; refused with inplace=True),
    int32 positions (widened, same values). The backward of a prepared layout returns the
    gradient in the forward output's exact strides."""
    from posenc.torch import rope as ptr
    emb = pt.RotaryEmbedding({"head_dim": 32, "rope_theta": 10000.0, "hidden_size": 128, "num_attention_heads": 4})
    B, Hq, Hk, D = 1, 4, 2, 32
    for S in (1, 3):
        xq, xk = torch.randn(B, S, Hq * D), torch.randn(B, S, Hk * D)
        views = lambda a, b: (a.view(B, S, Hq, D).transpose(1, 2), b.view(B, S, Hk, D).transpose(1, 2))
        q, k = views(xq, xk)
        pos = torch.arange(S)[None] + 5
        gq, gk = torch.randn(B, Hq, S, D), torch.randn(B, Hk, S, D)
        with torch.no_grad():
            first = emb.apply(q, k, pos)
        xg, kg = xq.clone().requires_grad_(), xk.clone().requires_grad_()
        qr, kr = emb.apply(*views(xg, kg), pos)
        dq, dk = torch.autograd.grad((qr, kr), (xg, kg), (gq, gk))
        with monkeypatch.context() as m:
            def no_full_path(*a, **kw):
                raise AssertionError("full path taken")
            m.setattr(ptr, "_check_qk", no_full_path)
            with torch.no_grad():
                again = emb.apply(q, k, pos)
            assert all(torch.equal(a, b) for a, b in zip(first, again))
            assert again[0].stride() == q.stride() and again[1].stride() == k.stride()
            for _ in range(2):  # the second backward takes the prepared backward entry
                qg, kg2 = views(xg, kg)
                qr2, kr2 = emb.apply(qg, kg2, pos)
                assert torch.equal(qr2.detach(), qr.detach())
                out_lays = [(o.shape, o.stride()) for o in (qr2, kr2)]
                gr = torch.autograd.grad((qr2, kr2), (qg, kg2), (gq, gk))
                assert [(g.shape, g.stride()) for g in gr] == out_lays
                dq2, dk2 = torch.autograd.grad(emb.apply(*views(xg, kg), pos), (xg, kg), (gq, gk))
                assert torch.equal(dq2, dq) and torch.equal(dk2, dk)
        meta_q = torch.empty_strided(q.shape, q.stride(), device="meta")
        with pytest.raises(posenc.ArgumentError, match="q is on device meta"):
            emb.apply(meta_q, k, pos)
        with torch.no_grad(), pytest.raises(posenc.ArgumentError, match="k is on device meta"):
            emb.apply(q, torch.empty_strided(k.shape, k.stride(), device="meta"), pos)
        with torch.no_grad(), pytest.raises(posenc.ArgumentError, match="positions is on device meta"):
            emb.apply(q, k, torch.empty(pos.shape, dtype=torch.int64, device="meta"))
        with torch.no_grad(), pytest.raises(posenc.ArgumentError, match="q must have dtype float32, bfloat16, float16"):
            emb.apply(q.double(), k.double(), pos)
        with torch.no_grad():
            odd_q = torch.randn(B, Hq, D, S).transpose(-1, -2).copy_(q)  # head_dim stride S
            assert odd_q.stride(-1) != 1 or S == 1
            got = emb.apply(odd_q, k, pos)
            assert torch.equal(got[0], first[0]) and torch.equal(got[1], first[1])
            got = emb.apply(q, k, pos.int())
            assert torch.equal(got[0], first[0]) and torch.equal(got[1], first[1])
            if S > 1:
                with pytest.raises(posenc.ArgumentError, match="inplace=True: q .* unit-stride head_dim"):
                    emb.apply(odd_q, k.clone(), pos, inplace=True)


def test_large_outputs_hinted_for_huge_pages_same_values():
    """Outputs of >= 4 MiB are allocated, hinted for transparent huge pages, then written
    (posenc.torch._common.huge_page_hint): the same values and strides as the small-tensor path
    (clone), forward and backward."""
    from posenc.torch import _common
    emb = pt.RotaryEmbedding({"head_dim": 128, "rope_theta": 10000.0, "hidden_size": 1024, "num_attention_heads": 8})
    S = 1024
    xq = torch.randn(1, S, 8 * 128, requires_grad=True)  # 4 MiB
    q = xq.view(1, S, 8, 128).transpose(1, 2)
    assert q.numel() * 4 >= _common.HUGE_PAGES_MIN_BYTES
    pos = torch.arange(S)[None]
    gq = torch.randn(1, 8, S, 128)
    qr, _ = emb.apply(q, None, pos)
    (dq,) = torch.autograd.grad(qr, q, gq)
    assert qr.stride() == q.stride() and dq.stride() == q.stride()
    with torch.no_grad():
        old = _common.HUGE_PAGES_MIN_BYTES
        try:  # the same call through the plain clones
            _common.HUGE_PAGES_MIN_BYTES = 1 << 62
            import posenc.torch.rope as ptr
            ptr.HUGE_PAGES_MIN_BYTES = 1 << 62
            want, _ = emb.apply(q.detach().contiguous(), None, pos)
            inv, _ = pt.rope_apply(emb, gq, None, pos, heads_first=True, inverse=True)
        finally:
            _common.HUGE_PAGES_MIN_BYTES = old
            ptr.HUGE_PAGES_MIN_BYTES = old
    assert torch.equal(qr, want) and torch.equal(dq, inv)
