#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Per-call cost of the posenc.torch ops at small sizes (the torch wrapper around one C call), in
one process, interleaved.

    PYTHONPATH=python /usr/bin/python3 bench/torch_per_call.py [--n 16] [--reps 20]

For each op, CPU-time medians (time.process_time over samples of 1000 calls, --reps samples per
row, rows interleaved) of:
  C call       the ctypes call alone (argtypes set once, arguments preallocated),
  alloc        the new output tensor(s) the op must return (torch.empty),
  no grad      the op under torch.no_grad() (entered once around the timing loop),
  fwd + bwd    the op on inputs that require grad, then torch.autograd.backward with a given
               output gradient;
and the wrapper overhead = no grad - C call (and without the allocation).
Ops: sph_harm_real (xyz [n, 3] float32, lmax 3), rf_features (x [n, 16], omega [32, 16], WPFF
weights, float32; fwd + bwd with x, omega and weights requiring grad), linear_attention (one head,
phi_q / phi_k [n, 32], v [n, 16]). RoPE's per-call cost is in bench/torch_rope.py.
posenc and torch on 1 thread (posenc.threads_set, torch.set_num_threads)."""
import argparse
import statistics
import time

import torch

import posenc
import posenc.torch as pt
from posenc.torch._common import cfn


def medians(fns, reps, calls):
    res = {k: [] for k in fns}
    for f, grad in fns.values():  # warm up (prepared paths, caches)
        with torch.set_grad_enabled(grad):
            for _ in range(50):
                f()
    for _ in range(reps):
        for k, (f, grad) in fns.items():
            with torch.set_grad_enabled(grad):
                c = time.process_time()
                for _ in range(calls):
                    f()
                res[k].append((time.process_time() - c) / calls * 1e6)
    return {k: statistics.median(v) for k, v in res.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--calls", type=int, default=1000)
    args = ap.parse_args()
    torch.set_num_threads(1)
    posenc.threads_set(1)
    n = args.n
    print(f"posenc {posenc.__version__}, isa {posenc.isa_name(posenc.isa_active())}, torch {torch.__version__}, "
          f"n {n}, 1 thread; CPU-time medians in us per call")

    L, K = 3, 16
    xyz = torch.randn(n, 3)
    y = torch.empty(n, K)
    f_sh = cfn("posenc_sph_harm_real_f32")
    xp, yp = xyz.data_ptr(), y.data_ptr()
    xg = xyz.clone().requires_grad_()
    gy = torch.randn(n, K)

    def sh_fb():
        xg.grad = None
        torch.autograd.backward(pt.sph_harm_real(xg, L), gy)

    d, m = 16, 32
    x = torch.randn(n, d)
    om = pt.rf_sample(d, m)
    w = 0.5 + torch.rand(m)
    phi = torch.empty(n, m)
    f_rf = cfn("posenc_rf_features_f32")
    rf_args = (int(posenc.RfKind.POSITIVE), int(posenc.RfShift.OVERFLOW), om.data_ptr(), m, d, w.data_ptr(),
               x.data_ptr(), n, phi.data_ptr())  # rf_features' defaults
    xr, omr, wr = x.clone().requires_grad_(), om.clone().requires_grad_(), w.clone().requires_grad_()
    gphi = torch.randn(n, m)

    def rf_fb():
        xr.grad = omr.grad = wr.grad = None
        torch.autograd.backward(pt.rf_features(xr, omr, wr), gphi)

    F, dv = 32, 16
    pq, pk, v = torch.rand(n, F), torch.rand(n, F), torch.randn(n, dv)
    o = torch.empty(n, dv)
    f_la = cfn("posenc_linear_attention_f32")
    la_args = (pq.data_ptr(), pk.data_ptr(), v.data_ptr(), n, F, dv, 0, 1e-6, o.data_ptr())
    pqg, pkg, vg = (t.clone().requires_grad_() for t in (pq, pk, v))
    go = torch.randn(n, dv)

    def la_fb():
        pqg.grad = pkg.grad = vg.grad = None
        torch.autograd.backward(pt.linear_attention(pqg, pkg, vg), go)

    ops = {
        "sph_harm_real": {"C call": (lambda: f_sh(L, xp, n, yp), False), "alloc": (lambda: torch.empty((n, K)), False),
                          "no grad": (lambda: pt.sph_harm_real(xyz, L), False), "fwd + bwd": (sh_fb, True)},
        "rf_features": {"C call": (lambda: f_rf(*rf_args), False), "alloc": (lambda: torch.empty((n, m)), False),
                        "no grad": (lambda: pt.rf_features(x, om, w), False), "fwd + bwd": (rf_fb, True)},
        "linear_attention": {"C call": (lambda: f_la(*la_args), False),
                             "alloc": (lambda: torch.empty((1, n, dv)), False),
                             "no grad": (lambda: pt.linear_attention(pq, pk, v), False), "fwd + bwd": (la_fb, True)},
    }
    print(f"{'op':18s} {'C call':>8s} {'alloc':>8s} {'no grad':>8s} {'fwd+bwd':>8s} {'overhead':>9s} {'w/o alloc':>9s}")
    for name, fns in ops.items():
        r = medians(fns, args.reps, args.calls)
        print(f"{name:18s} {r['C call']:8.2f} {r['alloc']:8.2f} {r['no grad']:8.2f} {r['fwd + bwd']:8.2f} "
              f"{r['no grad'] - r['C call']:9.2f} {r['no grad'] - r['C call'] - r['alloc']:9.2f}")


if __name__ == "__main__":
    main()
