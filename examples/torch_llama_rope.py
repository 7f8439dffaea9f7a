#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rope_plan_apply posenc_rope_cos_sin_f32 posenc_rope_plan_inv_freq
"""A Llama attention layer using posenc's RoPE (posenc.torch.RotaryEmbedding), forward + backward,
against the same layer with transformers' rotary code (LlamaRotaryEmbedding.forward, rotate_half,
apply_rotary_pos_emb; ported here to plain torch, transformers is not needed): same loss and
gradients up to float32 rounding.

    PYTHONPATH=python /usr/bin/python3 examples/torch_llama_rope.py [--seq 256] [--batch 2]

The config is Llama-3.1's rope (llama3 scaling, theta 5e5) on a small layer (hidden 256, 8 query
heads, 2 key/value heads, head_dim 32); pass --hidden 4096 --heads 32 --kv-heads 8 for the 8B
layer's shapes."""
import argparse

import torch

import posenc
import posenc.torch as pt


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class HFLlamaRotary(torch.nn.Module):
    """transformers' LlamaRotaryEmbedding.forward with the llama3 inv_freq computed as HF does
    (_compute_llama3_parameters, float32)."""

    def __init__(self, cfg):
        super().__init__()
        dim, base = cfg["head_dim"], cfg["rope_theta"]
        rs = cfg["rope_scaling"]
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        factor, lf, hf = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
        old = rs["original_max_position_embeddings"]
        low_wl, high_wl = old / lf, old / hf
        wavelen = 2 * torch.pi / inv_freq
        inv_l = torch.where(wavelen > low_wl, inv_freq / factor, inv_freq)
        smooth = (old / wavelen - lf) / (hf - lf)
        smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
        is_medium = ~(wavelen < high_wl) * ~(wavelen > low_wl)
        self.register_buffer("inv_freq", torch.where(is_medium, smoothed, inv_l), persistent=False)
        self.attention_scaling = 1.0

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return (emb.cos() * self.attention_scaling).to(x.dtype), (emb.sin() * self.attention_scaling).to(x.dtype)


class LlamaAttention(torch.nn.Module):
    """transformers' eager LlamaAttention.forward; `rope(q, k, position_ids)` rotates q, k in HF
    layout [batch, heads, seq, head_dim]."""

    def __init__(self, cfg):
        super().__init__()
        self.head_dim = cfg["head_dim"]
        self.groups = cfg["num_attention_heads"] // cfg["num_key_value_heads"]
        h, nq, nk = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.q_proj = torch.nn.Linear(h, nq * self.head_dim, bias=False)
        self.k_proj = torch.nn.Linear(h, nk * self.head_dim, bias=False)
        self.v_proj = torch.nn.Linear(h, nk * self.head_dim, bias=False)
        self.o_proj = torch.nn.Linear(nq * self.head_dim, h, bias=False)

    def forward(self, hidden_states, position_ids, rope):
        b, s, _ = hidden_states.shape
        shape = (b, s, -1, self.head_dim)
        q = self.q_proj(hidden_states).view(shape).transpose(1, 2)
        k = self.k_proj(hidden_states).view(shape).transpose(1, 2)
        v = self.v_proj(hidden_states).view(shape).transpose(1, 2)
        q, k = rope(q, k, position_ids)
        k = k.repeat_interleave(self.groups, dim=1)
        v = v.repeat_interleave(self.groups, dim=1)
        scores = torch.matmul(q, k.transpose(2, 3)) * self.head_dim ** -0.5
        scores = scores + torch.full((s, s), float("-inf")).triu(1)
        attn = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(b, s, -1)
        return self.o_proj(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=2)
    args = ap.parse_args()
    cfg = {"hidden_size": args.hidden, "num_attention_heads": args.heads, "num_key_value_heads": args.kv_heads,
           "head_dim": args.hidden // args.heads, "rope_theta": 500000.0, "max_position_embeddings": 131072,
           "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                            "original_max_position_embeddings": 8192}}
    torch.manual_seed(0)
    layer = LlamaAttention(cfg)
    hf_rotary = HFLlamaRotary(cfg)
    posenc_rotary = pt.RotaryEmbedding(cfg)  # the drop-in: same config dict

    def hf_rope(q, k, position_ids):
        return apply_rotary_pos_emb(q, k, *hf_rotary(q, position_ids))

    def posenc_rope(q, k, position_ids):
        return posenc_rotary.apply(q, k, position_ids)

    x = torch.randn(args.batch, args.seq, args.hidden)
    position_ids = torch.arange(args.seq)[None].expand(args.batch, -1)
    target = torch.randn(args.batch, args.seq, args.hidden)
    results = {}
    for name, rope in (("hf", hf_rope), ("posenc", posenc_rope)):
        layer.zero_grad()
        xx = x.clone().requires_grad_()
        loss = torch.nn.functional.mse_loss(layer(xx, position_ids, rope), target)
        loss.backward()
        results[name] = (loss.item(), xx.grad.clone(), {n: p.grad.clone() for n, p in layer.named_parameters()})
    (l_hf, gx_hf, gp_hf), (l_pe, gx_pe, gp_pe) = results["hf"], results["posenc"]
    print(f"posenc {posenc.__version__} ({posenc.library_path()}), {posenc_rotary}")
    print(f"loss: HF rotary {l_hf:.9f}  posenc {l_pe:.9f}  |diff| {abs(l_hf - l_pe):.2e}")
    worst = 0.0
    for n, g in [("input", gx_hf)] + list(gp_hf.items()):
        p = gx_pe if n == "input" else gp_pe[n]
        rel = ((g - p).abs().max() / g.abs().max()).item()
        worst = max(worst, rel)
        print(f"grad {n:14s} max |HF - posenc| / max |HF| = {rel:.2e}")
    ok = abs(l_hf - l_pe) <= 1e-6 * abs(l_hf) and worst <= 1e-5
    print("same loss and gradients (loss 1e-6 relative, gradients 1e-5 of their max):", "yes" if ok else "NO")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
