#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""RoPE forward + backward in PyTorch: posenc.torch (RotaryEmbedding.apply, one C call each way)
vs transformers' eager rotary code (rotate_half / apply_rotary_pos_emb, ported; LlamaRotaryEmbedding
.forward for cos/sin), at the Llama-3.1-8B attention shape, in one process, interleaved.

    PYTHONPATH=python /usr/bin/python3 bench/torch_rope.py [--tokens 1 64 4096] [--threads 1] [--reps 30]
    PYTHONPATH=python /usr/bin/python3 bench/torch_rope.py --breakdown [--reps 40]

Shape: batch 1, 32 query heads, 8 key/value heads, head_dim 128, llama3 scaling (theta 5e5,
factor 8, original 8192), float32 (and --dtype bfloat16), q / k as HF makes them: views
[1, heads, seq, 128] of the projections' [1, seq, heads*128] output (transpose(1, 2)).
One step = forward of q and k, then autograd backward with given output gradients
(torch.autograd.backward((q_rot, k_rot), (gq, gk))) into the projections' outputs.

Reported per token count (both sides alternating, --reps samples each):
  hf_apply   HF apply_rotary_pos_emb with cos/sin precomputed (HF computes them once per model
             forward and shares them across layers, so the per-layer cost is this),
  hf_full    HF rotary forward (cos/sin from position_ids) + apply_rotary_pos_emb,
  posenc     RotaryEmbedding.apply(q, k, position_ids) (cos/sin computed inside every call;
             q and k read in place and their rotations written into new tensors by one
             posenc_rope_plan_apply_out call; outputs of >= 4 MiB hinted for transparent huge
             pages before their first touch, see posenc.torch._common.huge_page_hint),
  inplace    RotaryEmbedding.apply(q, k, position_ids, inplace=True) (q and k rotated in place,
             no copy; the backward still rotates a copy of the incoming gradient),
  floor      the step without any rotation: the views and autograd backward of the given
             gradients into the projections (what every step pays; no RoPE implementation can
             go below it),
  ratios     posenc / hf_apply, posenc / hf_full, and inplace / hf_apply where both sides start
             from the same non-leaf (x * 1) (hf_apply timed again that way), from the CPU-time
             medians and, in brackets, from the wall-clock minima.
Times are CPU-time medians (time.process_time: every thread of the process, page faults
included; a sample times --batch steps in a row at 1 / 64 tokens, since reading the process
CPU clock costs several us on a VM) and, in brackets, the wall-clock minimum per step (the
least disturbed run of each side).
Per-call overhead (1 token, no grad; CPU-time medians of samples of 50 calls): the ctypes call of
posenc_rope_plan_apply_out with the arguments the wrapper prepares (the C call alone),
RotaryEmbedding.apply under no_grad (checks, the two new output tensors, positions, the call; a
layout seen before takes the prepared fast path; the calls run inside one torch.no_grad() block,
whose entry, ~0.5-1 us, is not counted per call), the two torch.empty_like alone, apply with
inplace=True (posenc_rope_plan_apply, no new tensors), and the autograd forward+backward;
overhead = apply - C call, also without the two allocations every out-of-place call needs.
Both torch and posenc use --threads threads (torch.set_num_threads, posenc.threads_set)."""
import argparse
import statistics
import time

import torch

import posenc
import posenc.torch as pt
from posenc.torch import rope as ptr
from posenc.torch._common import huge_page_hint


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def hf_cos_sin(inv_freq, position_ids, dtype):
    inv_freq_expanded = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
    position_ids_expanded = position_ids[:, None, :].float()
    freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


CFG = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
       "rope_theta": 500000.0, "max_position_embeddings": 131072,
       "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                        "original_max_position_embeddings": 8192}}


def timeit(fn, reps):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return ts


def cpu_median(fn, reps, batch):
    ts = []
    for _ in range(reps):
        c0 = time.process_time()
        for _ in range(batch):
            fn()
        ts.append((time.process_time() - c0) / batch)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=int, nargs="+", default=[1, 64, 4096])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--breakdown", action="store_true", help="only the pieces of the 1-token no-grad call "
                    "(see breakdown())")
    ap.add_argument("--batch", type=int, default=0, help="steps per CPU-time sample (0: 20 at <= 64 tokens, "
                    "else 1)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    posenc.threads_set(args.threads)
    dtype = getattr(torch, args.dtype)
    emb = pt.RotaryEmbedding(CFG)
    if args.breakdown:
        return breakdown(emb, dtype, args.reps)
    inv_freq = emb.inv_freq
    Hq, Hk, D = 32, 8, 128
    print(f"posenc {posenc.__version__} ({posenc.library_path()}), isa {posenc.isa_name(posenc.isa_active())}, "
          f"torch {torch.__version__}, threads {args.threads}, dtype {args.dtype}")
    print(f"{'tokens':>7} {'hf_apply ms':>20} {'hf_full ms':>20} {'posenc ms':>20} {'inplace ms':>20} "
          f"{'floor ms':>20} {'posenc/hf_apply':>16} {'posenc/hf_full':>16} {'inplace/hf_apply':>16} "
          f"{'floor/hf_apply':>16}")
    for T in args.tokens:
        xq = torch.randn(1, T, Hq * D).to(dtype).requires_grad_()
        xk = torch.randn(1, T, Hk * D).to(dtype).requires_grad_()
        gq = torch.randn(1, Hq, T, D).to(dtype)
        gk = torch.randn(1, Hk, T, D).to(dtype)
        pos = torch.arange(T)[None] + 1000
        cos, sin = hf_cos_sin(inv_freq, pos, dtype)

        def views():
            xq.grad = xk.grad = None
            return xq.view(1, T, Hq, D).transpose(1, 2), xk.view(1, T, Hk, D).transpose(1, 2)

        def hf_apply():
            q, k = views()
            torch.autograd.backward(apply_rotary_pos_emb(q, k, cos, sin), (gq, gk))

        def hf_full():
            q, k = views()
            torch.autograd.backward(apply_rotary_pos_emb(q, k, *hf_cos_sin(inv_freq, pos, dtype)), (gq, gk))

        def posenc_step():
            q, k = views()
            torch.autograd.backward(emb.apply(q, k, pos), (gq, gk))

        def inplace_step():
            xq.grad = xk.grad = None
            q, k = (xq * 1).view(1, T, Hq, D).transpose(1, 2), (xk * 1).view(1, T, Hk, D).transpose(1, 2)
            torch.autograd.backward(emb.apply(q, k, pos, inplace=True), (gq, gk))

        def hf_apply_mul1():  # the same (x * 1) as inplace_step (a non-leaf to rotate in place)
            xq.grad = xk.grad = None
            q, k = (xq * 1).view(1, T, Hq, D).transpose(1, 2), (xk * 1).view(1, T, Hk, D).transpose(1, 2)
            torch.autograd.backward(apply_rotary_pos_emb(q, k, cos, sin), (gq, gk))

        def floor():  # no rotation: the views and the backward into the projections
            q, k = views()
            torch.autograd.backward((q, k), (gq, gk))

        reps = args.reps if T <= 64 else max(5, args.reps // 3)
        batch = args.batch or (20 if T <= 64 else 1)
        steps = (hf_apply, hf_full, posenc_step, inplace_step, floor, hf_apply_mul1)
        for f in steps:  # warm up
            f()
        cpu = [[] for _ in steps]
        wall = [[] for _ in steps]
        for _ in range(reps):  # interleaved
            for c, w, f in zip(cpu, wall, steps):
                c0 = time.process_time()
                for _ in range(batch):
                    t0 = time.perf_counter()
                    f()
                    w.append(time.perf_counter() - t0)
                c.append((time.process_time() - c0) / batch)
        meds = [statistics.median(c) * 1e3 for c in cpu]
        mins = [min(w) * 1e3 for w in wall]
        cells = " ".join(f"{d:>9.4f} [{m:>8.4f}]" for d, m in zip(meds[:5], mins[:5]))
        rat = " ".join(f"{meds[a] / meds[b]:>7.3f} [{mins[a] / mins[b]:>6.3f}]" for a, b in ((2, 0), (2, 1), (3, 5), (4, 0)))
        print(f"{T:>7} {cells} {rat}")
        # anchors: one new q-sized tensor written once (allocation + first touch of its pages), and
        # the C rotation alone of preallocated q and k (what the kernel costs without torch)
        qo, ko = xq.detach().view(1, T, Hq, D).transpose(1, 2).clone(), xk.detach().view(1, T, Hk, D).transpose(1, 2).clone()
        alloc = cpu_median(lambda: torch.empty_like(xq).fill_(1.0), reps, batch) * 1e3
        alloc_huge = cpu_median(lambda: huge_page_hint(torch.empty_like(xq)).fill_(1.0), reps, batch) * 1e3
        qi, ki = qo.clone(), ko.clone()
        c_only = cpu_median(lambda: ptr._run(emb._cfg[True], pos, [qi, ki], False, [qo, ko]), reps, batch) * 1e3
        print(f"{'':>7} anchors (CPU-time medians): new q-sized tensor written once {alloc:.4f} ms (with the huge-page "
              f"hint {alloc_huge:.4f} ms); C rotation of q and k into preallocated outputs {c_only:.4f} ms = {c_only / meds[0]:.4f} "
              f"of hf_apply")

    # per-call overhead at 1 token
    q = torch.randn(1, 1, Hq * D).view(1, 1, Hq, D).transpose(1, 2).to(dtype)
    k = torch.randn(1, 1, Hk * D).view(1, 1, Hk, D).transpose(1, 2).to(dtype)
    pos = torch.tensor([[1000]])
    cfg = emb._cfg[True]
    qo, ko = torch.empty_like(q), torch.empty_like(k)
    e = ptr._FastEntry(cfg, [q, k], [qo, ko])  # the operand structs and ctypes arguments the wrapper prepares
    for i, t in enumerate((q, k, qo, ko)):
        e.ops[i].data = t.data_ptr()
    e.pp.value = pos.data_ptr()
    raw, args = e.raw, e.args

    def c_call():
        raw(*args)

    def clones():  # the two new tensors an out-of-place rotation must return
        torch.empty_like(q)
        torch.empty_like(k)

    def no_grad_apply():  # timed inside torch.no_grad() (entered once, as in inference code)
        emb.apply(q, k, pos)

    qi, ki = q.clone(), k.clone()

    def no_grad_inplace():
        emb.apply(qi, ki, pos, inplace=True)

    qg = q.clone().requires_grad_()
    kg = k.clone().requires_grad_()
    g1, g2 = torch.randn_like(q), torch.randn_like(k)

    def autograd_step():
        qg.grad = kg.grad = None
        torch.autograd.backward(emb.apply(qg, kg, pos), (g1, g2))

    n = 2000
    res = {}
    for name, f in (("C call (ctypes, prepared operands)", c_call), ("RotaryEmbedding.apply, no grad", no_grad_apply),
                    ("empty_like of q and k (anchor)", clones), ("RotaryEmbedding.apply inplace, no grad", no_grad_inplace),
                    ("RotaryEmbedding.apply fwd+bwd (autograd)", autograd_step)):
        with torch.set_grad_enabled(f is autograd_step):
            for _ in range(50):
                f()
            res[name] = cpu_median(f, n // 50, 50) * 1e6
        print(f"  {name:44s} {res[name]:8.2f} us per call")
    names = list(res)
    print(f"  wrapper overhead (apply, no grad - C call): {res[names[1]] - res[names[0]]:.2f} us; without the two "
          f"allocations (apply - C call - empty_like): {res[names[1]] - res[names[0]] - res[names[2]]:.2f} us; inplace - C call: "
          f"{res[names[3]] - res[names[0]]:.2f} us")


def breakdown(emb, dtype, reps):
    """The pieces of RotaryEmbedding.apply(q, k, pos) at 1 token without autograd (a layout seen
    before: the prepared path), each timed alone: CPU time (time.process_time: a round that the
    scheduler interrupts on a loaded machine is not charged the wait) over `reps` interleaved
    rounds of 2000 calls, and alternatives for the two output allocations."""
    Hq, Hk, D = 32, 8, 128
    q = torch.randn(1, 1, Hq * D).view(1, 1, Hq, D).transpose(1, 2).to(dtype)
    k = torch.randn(1, 1, Hk * D).view(1, 1, Hk, D).transpose(1, 2).to(dtype)
    pos = torch.tensor([[1000]])
    cfg = emb._cfg[True]
    with torch.no_grad():
        emb.apply(q, k, pos)
    e = cfg.fast[ptr._fast_key(q, k, pos, False, False)]
    qo, ko = torch.empty_like(q), torch.empty_like(k)
    c = ptr._FastEntry(cfg, [q, k], [qo, ko])  # a separate entry: its pointers stay valid
    for i, t in enumerate((q, k, qo, ko)):
        c.ops[i].data = t.data_ptr()
    c.pp.value = pos.data_ptr()
    ident, fast, ops = ptr._ident, cfg.fast, e.ops
    key = ptr._fast_key(q, k, pos, False, False)
    nq, nk = q.numel(), k.numel()
    sq, tq, sk, tk = tuple(q.shape), q.stride(), tuple(k.shape), k.stride()
    pieces = {
        "cache key (thread id, shapes, strides, dtypes of q, k, positions)":
            lambda: (ident(), q.shape, q.stride(), q.dtype, k.shape, k.stride(), k.dtype, pos.shape, pos.dtype, False,
                     False),
        "dict lookup of the key": lambda: fast.get(key),
        "checks the key cannot carry (is_cpu, is_neg, positions contiguous)":
            lambda: q.is_cpu and not q.is_neg() and k.is_cpu and not k.is_neg() and pos.is_cpu and pos.is_contiguous(),
        "grad test (is_grad_enabled)": lambda: not (ptr._grad_enabled() and (q.requires_grad or k.requires_grad)),
        "5 data pointers written into the ctypes arguments": lambda: (
            setattr(ops[0], "data", q.data_ptr()), setattr(ops[1], "data", k.data_ptr()),
            setattr(ops[2], "data", qo.data_ptr()), setattr(ops[3], "data", ko.data_ptr()),
            setattr(e.pp, "value", pos.data_ptr())),
        "C call through ctypes (prepared argument tuple)": lambda: c.raw(*c.args),
        "torch.empty_like of q and k (the outputs)": lambda: (torch.empty_like(q), torch.empty_like(k)),
        "alternative: torch.empty_strided of both": lambda: (torch.empty_strided(sq, tq, dtype=dtype),
                                                             torch.empty_strided(sk, tk, dtype=dtype)),
        "alternative: one torch.empty + two as_strided views": lambda: (
            lambda b: (b.as_strided(sq, tq), b.as_strided(sk, tk, nq)))(torch.empty(nq + nk, dtype=dtype)),
        "alternative: one torch.empty + split_with_sizes": lambda: torch.empty(nq + nk, dtype=dtype).split_with_sizes(
            [nq, nk]),
        "whole RotaryEmbedding.apply(q, k, pos)": lambda: emb.apply(q, k, pos),
    }
    res = {name: [] for name in pieces}
    with torch.no_grad():
        for _ in range(reps):
            for name, f in pieces.items():
                t = time.process_time()
                for _ in range(2000):
                    f()
                res[name].append((time.process_time() - t) / 2000 * 1e6)
    print("RotaryEmbedding.apply at 1 token, no grad, prepared path: pieces timed alone (CPU time per call, us: "
          f"median and minimum of {reps} interleaved rounds of 2000 calls)")
    for name, v in res.items():
        print(f"  {name:70s} {statistics.median(v):6.3f} {min(v):6.3f}")


if __name__ == "__main__":
    main()
