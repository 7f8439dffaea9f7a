#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""M-RoPE at the Qwen2.5-VL-7B shape: posenc vs HF transformers' apply_multimodal_rotary_pos_emb
run in torch, in one process, same data.

Run from the repository root after building the release preset:
    /usr/bin/python3 bench/torch_rope_models.py [--tokens 4096] [--reps 9] [--threads 1]

Shape: 28 Q heads, 4 K heads, head_dim 128, mrope_section [16, 24, 24], theta 1e6, positions
[3, T] of a 16-token text prefix followed by a 64-wide image grid (Qwen2-VL's get_rope_index
layout). The torch side is HF's code (Qwen2-VL modeling file: the rotary embedding's forward that
builds cos/sin [3, B, T, D] from inv_freq and position_ids, then apply_multimodal_rotary_pos_emb
with its split/cat over mrope_section and rotate_half), float32, q/k in HF's [B, H, T, D]
layout; posenc rotates the same [B, H, T, D] tensors in place (heads_first=True) through the
Python binding (posenc_rope_apply_strided with a RopePlan). Both sides are timed as CPU time
(time.process_time) medians of interleaved runs; the ratio is posenc / torch. With --check the
outputs are compared (max abs difference, expected at float32 rounding level).
"""
import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import posenc  # noqa: E402


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def hf_cos_sin(inv_freq, position_ids):
    # Qwen2VLRotaryEmbedding.forward: position_ids [3, B, T] -> cos, sin [3, B, T, D]
    inv = inv_freq[None, None, :, None].float().expand(3, position_ids.shape[1], -1, 1)
    pos = position_ids[:, :, None, :].float()
    freqs = (inv @ pos).transpose(2, 3)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def hf_apply_multimodal_rotary_pos_emb(q, k, cos, sin, mrope_section, unsqueeze_dim=1):
    mrope_section = mrope_section * 2
    cos = torch.cat([m[i % 3] for i, m in enumerate(cos.split(mrope_section, dim=-1))], dim=-1).unsqueeze(unsqueeze_dim)
    sin = torch.cat([m[i % 3] for i, m in enumerate(sin.split(mrope_section, dim=-1))], dim=-1).unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def positions(T):
    pos = np.empty((3, T), np.int64)
    for t in range(T):
        if t < 16:
            pos[:, t] = t
        else:
            i = t - 16
            pos[:, t] = (16, 16 + i // 64, 16 + i % 64)
    return pos


def median_cpu(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        out.append(time.process_time() - t0)
    return float(np.median(out)), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    posenc.threads_set(a.threads)
    T, Hq, Hk, D, sections = a.tokens, 28, 4, 128, [16, 24, 24]
    params = posenc.rope_params(posenc.RopeType.DEFAULT, 128, 1e6, axes=int(posenc.RopeAxes.MROPE),
                                sections=sections)
    plan = posenc.RopePlan(params)
    pos = positions(T)
    rng = np.random.default_rng(1)
    q0 = rng.standard_normal((1, Hq, T, D), dtype=np.float32)
    k0 = rng.standard_normal((1, Hk, T, D), dtype=np.float32)
    inv_freq = torch.from_numpy(posenc.rope_inv_freq(params)[0].astype(np.float32))
    pid = torch.from_numpy(pos)[:, None, :]
    tq, tk = torch.from_numpy(q0.copy()), torch.from_numpy(k0.copy())
    pq, pk = q0.copy(), k0.copy()
    ppos = pos[:, None, :]

    def run_torch():
        cos, sin = hf_cos_sin(inv_freq, pid)
        return hf_apply_multimodal_rotary_pos_emb(tq, tk, cos, sin, sections)

    def run_posenc():
        posenc.rope_apply(plan, pq, pk, ppos, heads_first=True)

    if a.check:
        rq, rk = run_torch()
        cq, ck = q0.copy(), k0.copy()
        posenc.rope_apply(plan, cq, ck, ppos, heads_first=True)
        print(f"max |posenc - torch|: q {np.abs(cq - rq.numpy()).max():.3g}, k {np.abs(ck - rk.numpy()).max():.3g}")
    for _ in range(2):  # warm both sides (first touch, allocator)
        run_torch()
        run_posenc()
    tt, tp = [], []
    for _ in range(a.reps):  # interleaved
        tt.append(median_cpu(run_torch, 1)[0])
        tp.append(median_cpu(run_posenc, 1)[0])
    mt, mp = float(np.median(tt)), float(np.median(tp))
    nbytes = 2 * T * (Hq + Hk) * D * 4
    print(f"M-RoPE Qwen2.5-VL-7B shape, {T} tokens, {a.threads} thread(s), CPU-time medians of {a.reps} interleaved runs")
    print(f"  torch (HF apply_multimodal_rotary_pos_emb): {mt * 1e3:8.3f} ms")
    print(f"  posenc rope_apply (plan, [B,H,T,D] in place): {mp * 1e3:8.3f} ms  ({nbytes / mp / 1e9:.2f} GB/s read+write)")
    print(f"  ratio posenc / torch: {mp / mt:.3f}")


if __name__ == "__main__":
    main()
