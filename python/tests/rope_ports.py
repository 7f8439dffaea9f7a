# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Float64 NumPy ports (and float32 torch re-implementations) of the framework RoPE code the rope
family matches. These are ports written for the tests, not the packages: HF transformers, vLLM and
ggml are not installed here. Each function names the source function it follows; the formulas and
the order of operations are those of the source, the dtype is float64 unless said otherwise.
"""
import math

import numpy as np


# --------------------------------------------------------------------------- HF modeling_rope_utils.py

def hf_default(dim, base):
    """_compute_default_rope_parameters: 1 / base^(arange(0, dim, 2) / dim)."""
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim), 1.0


def hf_linear(dim, base, factor):
    """_compute_linear_scaling_rope_parameters: default / factor (factor < 1 only warns)."""
    inv, _ = hf_default(dim, base)
    return inv / factor, 1.0


def hf_dynamic(dim, base, factor, max_pos, seq_len):
    """_compute_dynamic_ntk_parameters with seq_len = max(seq_len, max_position_embeddings)."""
    seq_len = max(seq_len, max_pos)
    base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))
    return hf_default(dim, base)[0], 1.0


def hf_yarn(dim, base, factor, orig, beta_fast=32, beta_slow=1, mscale=None, mscale_all_dim=None, truncate=True,
            extrapolation_factor=1.0, attn_factor=1.0):
    """_compute_yarn_parameters; extrapolation_factor / attn_factor as vLLM YaRNScalingRotaryEmbedding
    and MRotaryEmbedding (inv_freq_mask * extrapolation_factor, mscale * attn_factor; HF: both 1)."""
    def get_mscale(scale, m=1):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    if mscale and mscale_all_dim:
        af = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
    else:
        af = get_mscale(factor)

    def corr(rot):
        return (dim * math.log(orig / (rot * 2 * math.pi))) / (2 * math.log(base))

    low, high = corr(beta_fast), corr(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    extra, inter = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    mask = (1 - ramp) * extrapolation_factor
    return inter * (1 - mask) + extra * mask, af * attn_factor


def hf_longrope(dim, base, factor, orig, short, long, seq_len):
    """_compute_longrope_parameters (ext = long_factor when seq_len > original_max)."""
    af = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(orig))
    ext = np.asarray(long if seq_len and seq_len > orig else short, np.float64)
    return 1.0 / (ext * base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)), af


def hf_llama3(dim, base, factor, low_freq_factor, high_freq_factor, orig):
    """_compute_llama3_parameters."""
    inv, _ = hf_default(dim, base)
    low_wl, high_wl = orig / low_freq_factor, orig / high_freq_factor
    wavelen = 2 * math.pi / inv
    inv_l = np.where(wavelen > low_wl, inv / factor, inv)
    with np.errstate(divide="ignore", invalid="ignore"):
        smooth = (orig / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
    medium = ~(wavelen < high_wl) & ~(wavelen > low_wl)
    return np.where(medium, smoothed, inv_l), 1.0


def hf_proportional(head_dim, base, partial_rotary_factor, factor=1.0):
    """_compute_proportional_rope_parameters (Gemma 4): rope_angles = int(prf * head_dim // 2)
    frequencies over the whole head_dim, zeros after, all divided by factor."""
    angles = int(partial_rotary_factor * head_dim // 2)
    rotated = 1.0 / base ** (np.arange(0, 2 * angles, 2, dtype=np.float64) / head_dim)
    return np.concatenate([rotated, np.zeros(head_dim // 2 - angles)]) / factor, 1.0


def hf_longrope_seq_len(position_ids):
    """dynamic_rope_update / longrope_frequency_update: seq_len = max(position_ids) + 1."""
    return int(np.max(position_ids)) + 1


# --------------------------------------------------------------------------- vLLM rotary_embedding/

def vllm_ntk(dim, base, factor, mixed_b=None):
    """NTKScalingRotaryEmbedding._compute_inv_freq (fixed when mixed_b is None, else mixed)."""
    inv = 1.0 / (base * (factor if mixed_b is None else 1)) ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    if mixed_b is None:
        return inv / factor ** (2 / dim)
    a = math.log(factor) / (dim / 2) ** mixed_b
    return inv / np.exp(a * np.arange(1, dim // 2 + 1, dtype=np.float64) ** mixed_b)


def vllm_dynamic_alpha(dim, base, alpha):
    """DynamicNTKAlphaRotaryEmbedding: base * alpha^(dim / (dim - 2))."""
    return hf_default(dim, base * alpha ** (dim / (dim - 2)))[0]


def vllm_llama3(dim, base, factor, low_freq_factor, high_freq_factor, orig):
    """Llama3RotaryEmbedding._compute_inv_freq (smooth = 0 when the two factors are equal)."""
    inv, _ = hf_default(dim, base)
    low_wl, high_wl = orig / low_freq_factor, orig / high_freq_factor
    wave_len = 2 * math.pi / inv
    smooth = 0 if low_freq_factor == high_freq_factor else \
        (orig / wave_len - low_freq_factor) / (high_freq_factor - low_freq_factor)
    return np.where(wave_len < high_wl, inv,
                    np.where(wave_len > low_wl, inv / factor, (1 - smooth) * inv / factor + smooth * inv))


def vllm_mrope_cos_sin(inv, af, positions, mrope_section, interleaved):
    """MRotaryEmbedding.forward_native: cos_sin_cache[positions] (positions [3, T]) and the section
    selection (cat of cos.split(mrope_section) taking chunk i from axis i, or apply_interleaved_rope)
    -> cos, sin [T, rotary_dim/2], scaled by the attention factor (mscale) as the cache is."""
    ang = positions[..., None].astype(np.float64) * inv  # [3, T, half]
    cos, sin = np.cos(ang) * af, np.sin(ang) * af
    if interleaved:
        ch = np.arange(inv.size)
        h = (ch % 3 == 1) & (ch < mrope_section[1] * 3)
        w = (ch % 3 == 2) & (ch < mrope_section[2] * 3)
        pick = lambda x: np.where(w, x[2], np.where(h, x[1], x[0]))  # noqa: E731
        return pick(cos), pick(sin)
    bounds = np.cumsum(mrope_section)[:-1]
    return (np.concatenate([m[i] for i, m in enumerate(np.split(cos, bounds, axis=-1))], -1),
            np.concatenate([m[i] for i, m in enumerate(np.split(sin, bounds, axis=-1))], -1))


def vllm_apply_rotary_emb(x, cos, sin, is_neox_style):
    """apply_rotary_emb_torch: x [T, heads, rot], cos/sin [T, rot/2]."""
    cos, sin = cos[:, None, :], sin[:, None, :]
    if is_neox_style:
        x1, x2 = np.split(x, 2, axis=-1)
    else:
        x1, x2 = x[..., ::2], x[..., 1::2]
    o1, o2 = x1 * cos - x2 * sin, x2 * cos + x1 * sin
    if is_neox_style:
        return np.concatenate([o1, o2], -1)
    return np.stack([o1, o2], -1).reshape(x.shape)


# --------------------------------------------------------------------------- ggml (ggml-cpu ops.cpp)

def ggml_rope_cos_sin(pos, n_dims, freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow, n_ctx_orig,
                      freq_factors=None):
    """ggml_rope_cache_init + rope_yarn + ggml_rope_yarn_corr_dims in float64: cos/sin [len(pos),
    n_dims/2] of theta_extrap = p base^(-2i/n) / ff_i mixed with theta_interp = freq_scale
    theta_extrap by the ramp on the pair index; mscale = attn_factor (1 + 0.1 ln(1/freq_scale))
    when ext_factor != 0."""
    def corr_dim(n_rot):
        return n_dims * math.log(n_ctx_orig / (n_rot * 2 * math.pi)) / (2 * math.log(freq_base))

    lo = max(0.0, math.floor(corr_dim(beta_fast)))
    hi = min(n_dims - 1.0, math.ceil(corr_dim(beta_slow)))
    i = np.arange(n_dims // 2, dtype=np.float64)
    ff = np.ones(n_dims // 2) if freq_factors is None else np.asarray(freq_factors, np.float64)
    theta_extrap = np.asarray(pos, np.float64)[:, None] * freq_base ** (-2.0 * i / n_dims) / ff
    theta_interp = freq_scale * theta_extrap
    mscale = attn_factor
    theta = theta_interp
    if ext_factor != 0.0:
        y = (i - lo) / max(0.001, hi - lo)
        ramp_mix = (1 - np.minimum(1, np.maximum(0, y))) * ext_factor
        theta = theta_interp * (1 - ramp_mix) + theta_extrap * ramp_mix
        mscale *= 1.0 + 0.1 * math.log(1.0 / freq_scale)
    return np.cos(theta) * mscale, np.sin(theta) * mscale


# --------------------------------------------------------------------------- vision transformers

def qwen2vl_vision_angles(rows, cols, head_dim, theta=10000.0):
    """Qwen2-VL VisionRotaryEmbedding(head_dim // 2) + rot_pos_emb: per token
    cat(rows * inv, cols * inv) with inv = 1/theta^(arange(0, dim, 2)/dim), dim = head_dim / 2;
    apply_rotary_pos_emb_vision duplicates it (cat(freqs, freqs)) and rotates with rotate_half."""
    dim = head_dim // 2
    inv = 1.0 / theta ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    return np.concatenate([np.outer(rows, inv), np.outer(cols, inv)], -1)  # [T, head_dim / 2]


def eva02_angles(rows, cols, head_dim, theta=10000.0):
    """EVA-02 VisionRotaryEmbeddingFast(dim = head_dim // 2, freqs_for='lang'): freqs =
    1/theta^(arange(0, dim, 2)[:dim // 2] / dim), repeated '... n -> ... (n r)' (r = 2), row then
    col concatenated; rotate_half pairs adjacent channels. Per rotary pair: [T, head_dim / 2]."""
    dim = head_dim // 2
    f = 1.0 / theta ** (np.arange(0, dim, 2, dtype=np.float64)[: dim // 2] / dim)
    return np.concatenate([np.outer(rows, f), np.outer(cols, f)], -1)


def flux_angles(ids, axes_dim, theta=10000.0):
    """FLUX EmbedND / rope(pos, dim, theta): per axis omega = 1/theta^(arange(0, dim, 2)/dim) in
    float64, out = pos * omega, concatenated over the axes; apply_rope pairs (2j, 2j+1)."""
    return np.concatenate([np.outer(ids[:, a], 1.0 / theta ** (np.arange(0, d, 2, dtype=np.float64) / d))
                           for a, d in enumerate(axes_dim)], -1)


def rotate_pairs(x, ang, neox, af=1.0):
    """x [..., head_dim] rotated by per-pair angles ang [..., rot/2] (broadcast over heads), float64."""
    x = x.astype(np.float64).copy()
    h = ang.shape[-1]
    c, s = np.cos(ang) * af, np.sin(ang) * af
    if neox:
        a, b = x[..., :h].copy(), x[..., h:2 * h].copy()
        x[..., :h], x[..., h:2 * h] = a * c - b * s, a * s + b * c
    else:
        a, b = x[..., 0:2 * h:2].copy(), x[..., 1:2 * h:2].copy()
        x[..., 0:2 * h:2], x[..., 1:2 * h:2] = a * c - b * s, a * s + b * c
    return x


# --------------------------------------------------------------------------- torch, as HF runs it

def torch_hf_mrope(torch, q, k, inv_freq, af, position_ids, mrope_section, interleaved=False):
    """HF Qwen2_5_VLRotaryEmbedding.forward (or Qwen3VL's with apply_interleaved_mrope) followed by
    apply_multimodal_rotary_pos_emb, re-implemented in torch float32 as HF runs it: q, k [B, H, S,
    D] float32 tensors, inv_freq float32 [D/2], position_ids [3, B, S]. Returns (q_embed, k_embed)."""
    inv_freq_expanded = inv_freq[None, None, :, None].float().expand(3, position_ids.shape[1], -1, 1)
    position_ids_expanded = position_ids[:, :, None, :].float()
    freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(2, 3)  # [3, B, S, D/2]
    if interleaved:
        freqs_t = freqs[0].clone()
        for dim, offset in enumerate((1, 2), start=1):
            length = mrope_section[dim] * 3
            idx = slice(offset, length, 3)
            freqs_t[..., idx] = freqs[dim, ..., idx]
        emb = torch.cat((freqs_t, freqs_t), dim=-1)
        cos, sin = (emb.cos() * af).unsqueeze(1), (emb.sin() * af).unsqueeze(1)
    else:
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos() * af, emb.sin() * af
        sec = list(mrope_section) * 2
        cos = torch.cat([m[i % 3] for i, m in enumerate(cos.split(sec, dim=-1))], dim=-1).unsqueeze(1)
        sin = torch.cat([m[i % 3] for i, m in enumerate(sin.split(sec, dim=-1))], dim=-1).unsqueeze(1)

    def rotate_half(x):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
