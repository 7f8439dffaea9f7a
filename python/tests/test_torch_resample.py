# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_learned_resample_f32 posenc_learned_resample_backward_f32
# needs-modules: torch
"""posenc.torch.learned_resample (autograd through posenc_learned_resample_backward_f32) and the
NumPy binding learned_resample_backward, against torch's F.interpolate (timm's
resample_abs_pos_embed) and its autograd in float64.

Tolerances: posenc stores the per-axis weights in float32 and sums in float32; torch in float64
computes float64 weights. Values and gradients agree to 2e-6 of the magnitude of the result."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import posenc
import posenc.torch as pt

torch.manual_seed(3)

MODES = [("bicubic_aa", dict(mode="bicubic", antialias=True)), ("bicubic", dict(mode="bicubic", antialias=False)),
         ("linear", dict(mode="bilinear", antialias=False))]


def timm_resample(table, prefix, old_hw, new_hw, kw):
    """timm resample_abs_pos_embed on a [prefix + h*w, dim] table (channels last)."""
    pre, grid = table[:prefix], table[prefix:]
    dim = table.shape[1]
    g = grid.reshape(1, old_hw[0], old_hw[1], dim).permute(0, 3, 1, 2)
    g = F.interpolate(g, size=new_hw, align_corners=False, **kw)
    g = g.permute(0, 2, 3, 1).reshape(-1, dim)
    return torch.cat((pre, g), 0)


@pytest.mark.parametrize("name,kw", MODES)
@pytest.mark.parametrize("prefix,old_hw,new_hw", [(1, (14, 14), (24, 24)), (0, (16, 16), (7, 9)), (2, (5, 6), (5, 11))])
def test_forward_and_gradient_vs_torch_float64(name, kw, prefix, old_hw, new_hw):
    dim = 12
    table = torch.randn(prefix + old_hw[0] * old_hw[1], dim, requires_grad=True)
    out = pt.learned_resample(table, old_hw, new_hw, prefix, name)
    g = torch.randn_like(out)
    out.backward(g)
    t64 = table.detach().double().requires_grad_()
    ref = timm_resample(t64, prefix, old_hw, new_hw, kw)
    ref.backward(g.double())
    assert out.shape == ref.shape
    assert (out.double() - ref.detach()).abs().max() <= 2e-6 * ref.detach().abs().max()
    assert (table.grad.double() - t64.grad).abs().max() <= 2e-6 * t64.grad.abs().max()
    # the NumPy binding's adjoint is the same C call
    want = posenc.learned_resample_backward(g.numpy(), old_hw, new_hw, prefix, posenc.Resample[name.upper()])
    assert np.array_equal(table.grad.numpy(), want)


def test_adjoint_identity_threads_and_errors():
    table = torch.randn(1 + 14 * 14, 64)
    y = torch.randn(1 + 24 * 24, 64)
    ax = pt.learned_resample(table, (14, 14), (24, 24), 1)
    aty = posenc.learned_resample_backward(y.numpy(), (14, 14), (24, 24), 1)
    lhs = (ax.double() * y.double()).sum()
    rhs = (table.double() * torch.from_numpy(aty).double()).sum()
    assert abs(lhs - rhs) <= 1e-6 * (ax.double().abs() * y.double().abs()).sum()
    old = posenc.threads_get()
    grads = []
    try:
        for n in (1, 2):
            posenc.threads_set(n)
            t = table.clone().requires_grad_()
            pt.learned_resample(t, (14, 14), (24, 24), 1).backward(y)
            grads.append(t.grad)
    finally:
        posenc.threads_set(old)
    assert torch.equal(*grads)
    with pytest.raises(posenc.ArgumentError, match=r"table must have shape \(1 \+ 14\*14, dim\)"):
        pt.learned_resample(table[1:], (14, 14), (24, 24), 1)
    with pytest.raises(posenc.ArgumentError, match="mode must be one of"):
        pt.learned_resample(table, (14, 14), (24, 24), 1, "nearest")
    with pytest.raises(posenc.Error, match="new_h"):
        pt.learned_resample(table, (14, 14), (0, 24), 1)
