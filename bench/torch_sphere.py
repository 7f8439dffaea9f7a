#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Real spherical harmonics values + backward in PyTorch: posenc.torch.sph_harm_real (one C call
forward with the gradient kept, torch.bmm backward) vs torch autograd through e3nn-style
polynomial code, in one process, interleaved.

    PYTHONPATH=python /usr/bin/python3 bench/torch_sphere.py [--n 100000] [--L 3 10] [--reps 9]
        [--dtype float32 float64] [--threads 1]

References (python/tests/sh_ports.py; e3nn is not installable here): L <= 3 e3nn's
polynomials (e3nn.o3.spherical_harmonics(..., normalize=True, normalization='integral'),
written out as monomials), L > 3 a generic polynomial recurrence in torch ((x+iy)^m and the Legendre recurrence in
z, sphericart's scheme), both equal to posenc's values (python/tests/test_torch_sphere.py).
One step = forward of xyz [n, 3] (requires grad) -> [n, (L+1)^2], then backward with a given
output gradient. Reported: CPU-time (time.process_time) median over --reps interleaved steps of
each side, and the ratio posenc / torch (< 1: posenc is faster). torch and posenc both use
--threads threads. Anchor: a new [n, (L+1)^2] tensor written once (the output both sides
allocate; on a VM whose page faults are slow it is a large part of either step)."""
import argparse
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
import posenc  # noqa: E402
import posenc.torch as pt  # noqa: E402
from sh_ports import e3nn_module_sh, poly_sh  # noqa: E402


def cpu(fn):
    t = time.process_time()
    fn()
    return time.process_time() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--L", type=int, nargs="+", default=[3, 10])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--dtype", nargs="+", default=["float32", "float64"])
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    posenc.threads_set(a.threads)
    print(f"posenc {posenc.__version__}, isa {posenc.isa_name(posenc.isa_active())}, torch {torch.__version__}, "
          f"threads {a.threads}, n {a.n}, CPU-time medians of {a.reps} interleaved steps")
    print(f"{'dtype':>8} {'L':>3} {'reference':>22} {'torch ms':>9} {'posenc ms':>10} {'posenc/torch':>13} {'max|diff|':>10} "
          f"{'anchor ms':>10}")
    for dt in a.dtype:
        dtype = getattr(torch, dt)
        for L in a.L:
            g = torch.Generator().manual_seed(L)
            x = torch.randn(a.n, 3, generator=g, dtype=torch.float64).to(dtype).requires_grad_()
            go = torch.randn(a.n, (L + 1) ** 2, generator=g, dtype=torch.float64).to(dtype)
            if L <= 3:
                ref_name = "e3nn polynomials"
                ref = lambda t: e3nn_module_sh(L, t[:, [1, 2, 0]])  # noqa: E731 (e3nn's axis order)
            else:
                ref_name = "polynomial recurrence"
                ref = lambda t: poly_sh(L, t)  # noqa: E731

            def torch_step():
                x.grad = None
                ref(x).backward(go)

            def posenc_step():
                x.grad = None
                pt.sph_harm_real(x, L).backward(go)

            with torch.no_grad():
                diff = (ref(x) - pt.sph_harm_real(x, L)).abs().max().item()
            torch_step()
            gt = x.grad.clone()
            posenc_step()
            gdiff = (x.grad - gt).abs().max().item()
            tt, tp, ta = [], [], []
            for _ in range(a.reps):
                tt.append(cpu(torch_step))
                tp.append(cpu(posenc_step))
                ta.append(cpu(lambda: torch.empty(a.n, (L + 1) ** 2, dtype=dtype).fill_(0)))
            mt, mp, ma = (statistics.median(t) * 1e3 for t in (tt, tp, ta))
            print(f"{dt:>8} {L:>3} {ref_name:>22} {mt:>9.2f} {mp:>10.2f} {mp / mt:>13.3f} "
                  f"{max(diff, gdiff / max(1.0, gt.abs().max().item())):>10.1e} {ma:>10.2f}")
            assert math.isfinite(mp)


if __name__ == "__main__":
    main()
