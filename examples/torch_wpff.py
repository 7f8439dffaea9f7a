#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_rf_sample_f32 posenc_rf_features_f32 posenc_rf_features_backward_f32 posenc_linear_attention_f32 posenc_linear_attention_backward_f32 posenc_softmax_attention_f32
"""Learning WPFF weights end to end (DiJiang, Chen et al. ICML 2024, eq. 10): linear attention
on weighted positive random features phi_lambda(x) = lambda_j exp(w_j . x - |x|^2/2) / sqrt(m)
(posenc.torch.rf_features with weights, FAVOR+ stabilization) is trained to reproduce exact
softmax attention (posenc.torch.softmax_attention) on random queries, keys and values. Only the
m feature weights lambda = softplus(theta) >= 0 are learned (optionally omega too, --omega);
gradients reach them through posenc's linear-attention and feature backward functions.

    PYTHONPATH=python /usr/bin/python3 examples/torch_wpff.py [--steps 200] [--n 256] [--d 16]
        [--m 32] [--heads 4] [--omega] [--small]

Prints the training loss (mean squared difference to softmax attention) and the loss on fresh
held-out data for lambda = 1 (plain PFF / FAVOR+) and for the learned lambda. --small (the test
suite) uses n = 64 and 30 steps."""
import argparse
import math

import torch

import posenc
import posenc.torch as pt


def batch(heads, n, d, gen):
    q = torch.randn(heads, n, d, generator=gen) * 0.7
    k = torch.randn(heads, n, d, generator=gen) * 0.7
    v = torch.randn(heads, n, d, generator=gen)
    return q, k, v


def favor(q, k, v, omega, lam):
    """linear attention of weighted FAVOR+ features approximating softmax(q k^T / sqrt(d)) v."""
    c = q.shape[-1] ** -0.25
    pq = pt.rf_features(q * c, omega, lam, kind="positive", shift="row_max")
    pk = pt.rf_features(k * c, omega, lam, kind="positive", shift="shared_max")
    return pt.linear_attention(pq, pk, v, eps=0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--m", type=int, default=32)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--omega", action="store_true", help="learn omega as well")
    ap.add_argument("--small", action="store_true", help="n = 64, 30 steps (the test suite)")
    a = ap.parse_args()
    n, steps = (64, 30) if a.small else (a.n, a.steps)
    gen = torch.Generator().manual_seed(0)
    omega = pt.rf_sample(a.d, a.m, "orthogonal", seed=3).requires_grad_(a.omega)
    theta = torch.full((a.m,), math.log(math.e - 1.0), requires_grad=True)  # softplus(theta) = 1
    opt = torch.optim.Adam([theta] + ([omega] if a.omega else []), lr=0.05)
    test = batch(a.heads, n, a.d, torch.Generator().manual_seed(99))
    with torch.no_grad():
        test_ref = pt.softmax_attention(*test)
        test_before = (favor(*test, omega, None) - test_ref).pow(2).mean().item()
    print(f"posenc {posenc.__version__}: heads {a.heads}, n {n}, d {a.d}, m {a.m} features, learning lambda"
          + (" and omega" if a.omega else "") + f", {steps} Adam steps")
    curve = []
    for step in range(steps):
        q, k, v = batch(a.heads, n, a.d, gen)
        with torch.no_grad():
            ref = pt.softmax_attention(q, k, v)
        opt.zero_grad()
        loss = (favor(q, k, v, omega, torch.nn.functional.softplus(theta)) - ref).pow(2).mean()
        loss.backward()
        opt.step()
        curve.append(loss.item())
        if step % max(steps // 10, 1) == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {loss.item():.4e}")
    lam = torch.nn.functional.softplus(theta).detach()
    with torch.no_grad():
        test_after = (favor(*test, omega.detach(), lam) - test_ref).pow(2).mean().item()
    print(f"held-out MSE to softmax attention: lambda = 1 {test_before:.4e}, learned {test_after:.4e} "
          f"(ratio {test_after / test_before:.3f}); lambda in [{lam.min():.3f}, {lam.max():.3f}]")
    assert math.isfinite(test_after) and test_after < test_before, "learning lambda did not reduce the error"


if __name__ == "__main__":
    main()
