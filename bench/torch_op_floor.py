#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The floor of a torch RoPE op at 1 token, Python autograd.Function vs C++ autograd Function,
against HF's eager rotary step (Llama-3.1-8B attention shape), in one process, interleaved.

    POSENC_LIBRARY=build/release/libposenc.so PYTHONPATH=python /usr/bin/python3 bench/torch_op_floor.py [--reps 40]

Needs libtorch-dev (the C++ headers of the installed torch; `apt-get install libtorch-dev` on
Debian): bench/torch_op_floor.cpp is compiled with g++ into a temporary directory and loaded with
torch.ops.load_library. One step = the views of the projections' outputs, the op on q and k, and
torch.autograd.backward with given output gradients (as bench/torch_rope.py). Columns (CPU-time
medians of --reps samples of 50 steps, and the ratio to hf_apply):
  hf_apply     HF's apply_rotary_pos_emb with cos/sin precomputed,
  floor        the step without any op (views + backward into the projections),
  py_trivial   a Python torch.autograd.Function whose forward and backward only allocate their
               outputs (torch.empty_like): the least a Python op can cost,
  cpp_trivial  the same Function in C++ (torch::autograd::Function, TORCH_LIBRARY op),
  posenc       posenc.torch.RotaryEmbedding.apply (the real Python op: the rotation included).
A C++ RoPE op can at best reach cpp_trivial + the C rotation (~0.003 ms)."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

import posenc
import posenc.torch as pt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_rope import CFG, apply_rotary_pos_emb, hf_cos_sin  # noqa: E402


def build_op(tmp):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_op_floor.cpp")
    so = os.path.join(tmp, "libposenc_floor.so")
    inc = "/usr/include/torch/csrc/api/include"
    if not os.path.isdir(inc):
        sys.exit("bench/torch_op_floor.py: the torch C++ headers are missing (apt-get install libtorch-dev)")
    subprocess.run(["g++", "-O2", "-std=c++17", "-shared", "-fPIC", f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}",
                    "-I" + inc, src, "-o", so, "-ltorch", "-ltorch_cpu", "-lc10"], check=True)
    torch.ops.load_library(so)
    return torch.ops.posenc_floor.trivial


class PyTrivial(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k):
        return torch.empty_like(q), torch.empty_like(k)

    @staticmethod
    def backward(ctx, gq, gk):
        return torch.empty_like(gq), torch.empty_like(gk)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=40)
    args = ap.parse_args()
    torch.set_num_threads(1)
    posenc.threads_set(1)
    with tempfile.TemporaryDirectory() as tmp:
        op = build_op(tmp)
        emb = pt.RotaryEmbedding(CFG)
        Hq, Hk, D, T = 32, 8, 128, 1
        xq = torch.randn(1, T, Hq * D).requires_grad_()
        xk = torch.randn(1, T, Hk * D).requires_grad_()
        gq, gk = torch.randn(1, Hq, T, D), torch.randn(1, Hk, T, D)
        pos = torch.arange(T)[None] + 1000
        cos, sin = hf_cos_sin(emb.inv_freq, pos, torch.float32)

        def views():
            xq.grad = xk.grad = None
            return xq.view(1, T, Hq, D).transpose(1, 2), xk.view(1, T, Hk, D).transpose(1, 2)

        def hf_apply():
            q, k = views()
            torch.autograd.backward(apply_rotary_pos_emb(q, k, cos, sin), (gq, gk))

        def floor():
            q, k = views()
            torch.autograd.backward((q, k), (gq, gk))

        def py_trivial():
            q, k = views()
            torch.autograd.backward(PyTrivial.apply(q, k), (gq, gk))

        def cpp_trivial():
            q, k = views()
            torch.autograd.backward(op(q, k), (gq, gk))

        def posenc_step():
            q, k = views()
            torch.autograd.backward(emb.apply(q, k, pos), (gq, gk))

        steps = (hf_apply, floor, py_trivial, cpp_trivial, posenc_step)
        for f in steps:
            f()
            f()
        cpu = [[] for _ in steps]
        for _ in range(args.reps):
            for c, f in zip(cpu, steps):
                c0 = time.process_time()
                for _ in range(50):
                    f()
                c.append((time.process_time() - c0) / 50)
        meds = [statistics.median(c) * 1e6 for c in cpu]
        print(f"torch {torch.__version__}, 1 token, Llama-3.1-8B shape, float32, 1 thread (CPU-time medians, us per step)")
        for f, m in zip(steps, meds):
            print(f"  {f.__name__:12s} {m:8.1f} us  {m / meds[0]:.3f} of hf_apply")


if __name__ == "__main__":
    main()
