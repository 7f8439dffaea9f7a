#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Performer FAVOR+ attention forward + backward in PyTorch: posenc.torch.FastAttention (FAVOR+
features and linear attention through posenc's C functions, autograd backward from the C ABI) vs
performer-pytorch's softmax_kernel + linear_attention (causal: causal_linear_attention_noncuda)
in torch autograd, on the same omega, in one process, interleaved.

    PYTHONPATH=python /usr/bin/python3 bench/torch_favor.py [--n 8192] [--d 64] [--m 256] [--heads 8]
        [--batch 1] [--causal] [--options] [--reps 7] [--threads 1]

--options times every FastAttention option against performer-pytorch's branch for it
(fast_attention_options in the port): the softmax kernel (FAVOR+), generalized_attention=True
(ReLU features + kernel_epsilon 0.001 on both sides) and no_projection=True (softmax of q over
features, of k over the sequence or exp(k) when causal: torch ops on both sides, only the linear
attention is posenc's), each non-causal and causal.

performer-pytorch is ported in python/tests/performer_ports.py (not installable here), with its
eps set to 0 on both sides (the outputs then agree to float32 rounding; the max difference is
printed). One step = forward of q, k, v [batch, heads, n, d] (requiring grad) and backward with
a given output gradient. Reported: CPU-time (time.process_time) medians over --reps interleaved
steps and the ratio posenc / torch (< 1: posenc is faster). torch and posenc both use --threads
threads; torch multiplies through OpenBLAS when Debian's libopenblas0-pthread provides libblas."""
import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
import posenc  # noqa: E402
import posenc.torch as pt  # noqa: E402
from performer_ports import fast_attention, fast_attention_options  # noqa: E402


def blas_libraries():
    """The BLAS shared objects this process has mapped (Linux), e.g. openblas-pthread/libblas.so.3."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    except OSError:
        return "unknown"
    return ", ".join(sorted(os.path.relpath(p, os.path.dirname(os.path.dirname(p))) for p in libs)) or "none"


def cpu(fn):
    t = time.process_time()
    fn()
    return time.process_time() - t


def measure(a, causal, generalized, no_projection):
    """(torch ms, posenc ms, max rel diff of the output, of the gradients): CPU-time medians of
    a.reps interleaved forward + backward steps of one FastAttention configuration."""
    fa = pt.FastAttention(a.d, nb_features=a.m, causal=causal, seed=1, generalized_attention=generalized,
                          no_projection=no_projection)
    om = fa.projection_matrix
    g = torch.Generator().manual_seed(0)
    shape = (a.batch, a.heads, a.n, a.d)
    q, k, v = (torch.randn(shape, generator=g).requires_grad_() for _ in range(3))
    go = torch.randn(shape, generator=g)

    def ref(q, k, v):
        if generalized or no_projection:
            return fast_attention_options(q, k, v, om, causal=causal, generalized_attention=generalized,
                                          no_projection=no_projection, eps=0.0)
        return fast_attention(q, k, v, om, causal=causal, eps=0.0)

    def torch_step():
        q.grad = k.grad = v.grad = None
        ref(q, k, v).backward(go)

    def posenc_step():
        q.grad = k.grad = v.grad = None
        fa(q, k, v).backward(go)

    with torch.no_grad():
        o_t = ref(q, k, v)
        o_p = fa(q, k, v)
        diff = ((o_t - o_p).abs().max() / o_t.abs().max()).item()
    torch_step()
    gt = [t.grad.clone() for t in (q, k, v)]
    posenc_step()
    gdiff = max(((t.grad - r).abs().max() / r.abs().max()).item() for t, r in zip((q, k, v), gt))
    tt, tp = [], []
    for _ in range(a.reps):
        tt.append(cpu(torch_step))
        tp.append(cpu(posenc_step))
    return statistics.median(tt) * 1e3, statistics.median(tp) * 1e3, diff, gdiff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--m", type=int, default=256)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--options", action="store_true", help="every option: softmax kernel, generalized_attention "
                    "(ReLU), no_projection, each non-causal and causal (--causal ignored)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    posenc.threads_set(a.threads)
    print(f"posenc {posenc.__version__}, isa {posenc.isa_name(posenc.isa_active())}, torch {torch.__version__}, "
          f"threads {a.threads}, BLAS libraries mapped: {blas_libraries()}")
    if a.options:
        print(f"batch {a.batch} heads {a.heads} n {a.n} d {a.d} m {a.m}: CPU-time medians of {a.reps} interleaved "
              f"forward+backward steps")
        print(f"  {'option':16s} {'causal':>6s} {'torch ms':>10s} {'posenc ms':>10s} {'posenc/torch':>12s} "
              f"{'diff out':>9s} {'diff grad':>9s}")
        for causal in (False, True):
            for name, gen, nop in (("softmax", False, False), ("generalized", True, False),
                                   ("no_projection", False, True)):
                mt, mp, diff, gdiff = measure(a, causal, gen, nop)
                print(f"  {name:16s} {str(causal):>6s} {mt:10.1f} {mp:10.1f} {mp / mt:12.3f} {diff:9.1e} {gdiff:9.1e}",
                      flush=True)
        return
    mt, mp, diff, gdiff = measure(a, a.causal, False, False)
    print(f"batch {a.batch} heads {a.heads} n {a.n} d {a.d} m {a.m} causal {a.causal}: CPU-time medians of {a.reps} "
          f"interleaved forward+backward steps")
    print(f"  performer-pytorch formulas (torch autograd) {mt:9.1f} ms")
    print(f"  posenc.torch.FastAttention                  {mp:9.1f} ms")
    print(f"  ratio posenc / torch                        {mp / mt:9.3f}")
    print(f"  max rel diff: output {diff:.1e}, gradients {gdiff:.1e}")


if __name__ == "__main__":
    main()
