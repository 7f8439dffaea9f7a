#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Forward + backward of FAVOR+ features + linear attention: posenc (C ABI through the Python
binding, per head) against torch autograd of the same float32 computation, in one process, one
thread. Prints the times and the ratio posenc / torch.

usage: POSENC_LIBRARY=build/release/libposenc.so PYTHONPATH=python python3 bench/torch_features.py
       [--n 8192] [--d 64] [--m 256] [--heads 8] [--causal] [--reps 3] [--causal-ratio]
(--causal runs torch's dense causal product, which holds [heads, n, m, d] floats: 4 GiB at the
defaults; use a smaller --n.)
"""
import argparse
import time

import numpy as np
import torch

import posenc


def torch_step(q, k, v, go, om, causal):
    """Performer's softmax_kernel (query row max, key global max; detached) + linear attention."""
    m = om.shape[0]
    q = q.detach().requires_grad_(True)
    k = k.detach().requires_grad_(True)
    v = v.detach().requires_grad_(True)

    def feat(x, is_query):
        p = x @ om.T
        diag = (x * x).sum(-1, keepdim=True) / 2
        mx = p.amax(dim=-1, keepdim=True) if is_query else p.amax(dim=(-1, -2), keepdim=True)
        return torch.exp(p - diag - mx.detach()) / m ** 0.5

    pq, pk = feat(q, True), feat(k, False)
    if causal:  # prefix sums (fast-transformers' causal product, dense in torch)
        kv = torch.cumsum(pk.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)
        num = (pq.unsqueeze(-1) * kv).sum(-2)
        den = (pq * torch.cumsum(pk, dim=-2)).sum(-1, keepdim=True)
    else:
        num = pq @ (pk.transpose(-1, -2) @ v)
        den = pq @ pk.sum(-2, keepdim=True).transpose(-1, -2)
    out = num / den
    out.backward(go)
    return q.grad, k.grad, v.grad


def posenc_step(q, k, v, go, om, causal):
    R, S, P = posenc.RfShift.ROW_MAX, posenc.RfShift.SHARED_MAX, posenc.RfKind.POSITIVE
    res = []
    for h in range(q.shape[0]):
        pq = posenc.rf_features(P, om, q[h], shift=R)
        pk = posenc.rf_features(P, om, k[h], shift=S)
        posenc.linear_attention(pq, pk, v[h], causal=causal, eps=0.0)
        gpq, gpk, gv = posenc.linear_attention_backward(pq, pk, v[h], go[h], causal=causal, eps=0.0)
        gq = posenc.rf_features_backward(P, om, q[h], gpq, shift=R, grad_weights=False)[0]
        gk = posenc.rf_features_backward(P, om, k[h], gpk, shift=S, grad_weights=False)[0]
        res.append((gq, gk, gv))
    return res


def best(fn, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = fn()
        t.append(time.perf_counter() - t0)
    return min(t), r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--m", type=int, default=256)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--flush-denormal", action="store_true", help="torch.set_flush_denormal(True) for torch")
    ap.add_argument("--causal-ratio", action="store_true", help="also time posenc's causal backward vs forward")
    a = ap.parse_args()
    torch.set_num_threads(1)
    if a.flush_denormal:
        torch.set_flush_denormal(True)
    posenc.threads_set(1)
    rng = np.random.default_rng(0)
    s = a.d ** -0.25
    q = (s * rng.standard_normal((a.heads, a.n, a.d))).astype(np.float32)
    k = (s * rng.standard_normal((a.heads, a.n, a.d))).astype(np.float32)
    v = rng.standard_normal((a.heads, a.n, a.d)).astype(np.float32)
    go = rng.standard_normal((a.heads, a.n, a.d)).astype(np.float32)
    om = posenc.rf_sample(posenc.RfSampling.ORTHOGONAL, a.d, a.m, seed=1)
    tq, tk, tv, tgo, tom = (torch.from_numpy(x) for x in (q, k, v, go, om))
    # torch's key max is per head (dims -1, -2 of [heads, n, m]); posenc's SHARED_MAX per call (= per head)
    tt, tr = best(lambda: torch_step(tq, tk, tv, tgo, tom, a.causal), a.reps)
    tp, pr = best(lambda: posenc_step(q, k, v, go, om, a.causal), a.reps)
    err = max(float(np.abs(pr[h][i] - tr[i][h].numpy()).max() / (np.abs(tr[i][h].numpy()).max() + 1e-30))
              for h in range(a.heads) for i in range(3))
    print(f"forward+backward FAVOR+ features + linear attention, n={a.n} d={a.d} m={a.m} heads={a.heads} "
          f"causal={int(a.causal)}, flush_denormal={int(a.flush_denormal)}, 1 thread, torch {torch.__version__} (BLAS: {torch.__config__.show().count('BLAS')} mentions)")
    print(f"  torch autograd {tt * 1e3:9.1f} ms   posenc {tp * 1e3:9.1f} ms   ratio posenc/torch {tp / tt:.3f}   "
          f"max rel grad diff {err:.1e}")
    if a.causal_ratio:
        causal_ratio(a.n, a.m, a.d, a.reps)


def causal_ratio(n, F, dv, reps):
    """posenc causal linear attention: backward time / forward time (goal <= 2)."""
    rng = np.random.default_rng(1)
    q, k = (np.abs(rng.standard_normal((n, F))).astype(np.float32) for _ in range(2))
    v, g = (rng.standard_normal((n, dv)).astype(np.float32) for _ in range(2))
    tf, _ = best(lambda: posenc.linear_attention(q, k, v, causal=True), reps)
    tb, _ = best(lambda: posenc.linear_attention_backward(q, k, v, g, causal=True), reps)
    print(f"posenc causal linear attention n={n} F={F} dv={dv}: forward {tf * 1e3:.1f} ms, backward {tb * 1e3:.1f} ms, "
          f"backward/forward {tb / tf:.2f}")


if __name__ == "__main__":
    main()
