# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch.sphere — real spherical harmonics of xyz tensors (forward)."""
from __future__ import annotations

import warnings

import torch

from .._lib import ArgumentError
from ._common import cfn, check, contiguous_c, tensor

NOT_DIFFERENTIABLE = ("posenc.torch.sph_harm_real: the result is not differentiable with respect to xyz "
                      "(libposenc has no SH gradient function yet); it is returned as a constant, so no "
                      "gradient flows to xyz through it")


def sph_harm_real(xyz, lmax):
    """Real orthonormal spherical harmonics (posenc_sph_harm_real_f64 / _f32 by dtype):
    xyz float64 or float32 [..., 3] (any nonzero finite length; the direction is used) ->
    [..., (lmax+1)^2], index l(l+1)+m, m = -l..l (sphericart's order; e3nn's "integral"
    normalization with its (y, z, x) axis order differs). Accuracy: that of the C function
    (float64 <= 2e-13 absolute for lmax <= 20; float32 <= 1e-5 per degree block).

    Gradients: the output is marked non-differentiable (``requires_grad`` False) with respect to
    xyz. When xyz requires grad a UserWarning with the message NOT_DIFFERENTIABLE is issued
    (once per call site), so a model that needs d/dxyz learns about it instead of getting a
    silently wrong gradient."""
    tensor(xyz, "xyz", (torch.float64, torch.float32), "spherical harmonics take float64 or float32 xyz")
    if xyz.dim() < 1 or xyz.shape[-1] != 3:
        raise ArgumentError(f"xyz must have shape (..., 3) (got {tuple(xyz.shape)})")
    L = int(lmax)
    if xyz.requires_grad and torch.is_grad_enabled():
        warnings.warn(NOT_DIFFERENTIABLE, stacklevel=2)
    x = contiguous_c(xyz.detach())
    n = x.numel() // 3
    out = torch.empty(tuple(xyz.shape[:-1]) + ((L + 1) ** 2 if L >= 0 else 0,), dtype=xyz.dtype)
    name = "posenc_sph_harm_real_f64" if xyz.dtype == torch.float64 else "posenc_sph_harm_real_f32"
    check(cfn(name)(L, x.data_ptr(), n, out.data_ptr()))
    return out


__all__ = ["sph_harm_real", "NOT_DIFFERENTIABLE"]
