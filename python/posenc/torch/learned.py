# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch.learned — learned position tables as torch ops with autograd."""
from __future__ import annotations

import torch
from torch.autograd.function import once_differentiable

from .._lib import ArgumentError
from ..learned import Resample
from ._common import cfn, check, contiguous_c, positions_tensor, tensor

_F32 = (torch.float32,)
_WHAT = "learned tables are float32 in the posenc C ABI (cast with .float())"


def _table_positions(table, positions, batch):
    """table checked [rows, dim]; positions int64 broadcast to `batch` and flattened."""
    if table.dim() != 2:
        raise ArgumentError(f"table must have shape (rows, dim) (got {tuple(table.shape)})")
    pos = positions_tensor(positions)
    if tuple(pos.shape) != tuple(batch):
        try:
            pos = torch.broadcast_to(pos, batch).contiguous()
        except RuntimeError:
            raise ArgumentError(f"positions of shape {tuple(pos.shape)} does not broadcast to {tuple(batch)} "
                                f"(x.shape[:-1])") from None
    return pos.reshape(-1)


def _add(table, pos, out):
    rows, dim = table.shape
    check(cfn("posenc_learned_add_f32")(table.data_ptr(), rows, dim, pos.data_ptr(), pos.numel(), out.data_ptr()))


def _grad(grad_out, pos, rows, dim):
    g = contiguous_c(grad_out)
    gt = torch.zeros((rows, dim), dtype=torch.float32)
    check(cfn("posenc_learned_grad_f32")(g.data_ptr(), pos.data_ptr(), pos.numel(), dim, gt.data_ptr(), rows))
    return gt


class _LearnedAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, table, pos):
        out = x.clone(memory_format=torch.contiguous_format)
        _add(contiguous_c(table), pos, out)
        ctx.save_for_backward(pos)
        ctx.rows_dim = tuple(table.shape)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        (pos,) = ctx.saved_tensors
        gx = grad_out if ctx.needs_input_grad[0] else None
        gt = _grad(grad_out, pos, *ctx.rows_dim) if ctx.needs_input_grad[1] else None
        return gx, gt, None


def learned_add(x, table, positions):
    """x + table[positions] -> a new float32 tensor (posenc_learned_add_f32: one float32 addition
    per element, bit-identical to torch's ``x + table[positions]``).

    x: float32 [..., dim]; table: float32 [rows, dim] (an nn.Parameter, e.g. GPT-2's wpe);
    positions: integer tensor broadcast to x.shape[:-1] (e.g. [tokens] for x [batch, tokens,
    dim]), each in [0, rows) (a learned table cannot extrapolate: posenc.Error otherwise).
    Backward: grad_x = grad_out; grad_table = the deterministic scatter-add of
    posenc_learned_grad_f32 (contributions to a row added in increasing token order in float32:
    bit-identical for any posenc thread count, unlike index_add_ with threads). Not twice
    differentiable."""
    tensor(x, "x", _F32, _WHAT)
    tensor(table, "table", _F32, _WHAT)
    if x.dim() < 1 or table.dim() != 2 or x.shape[-1] != table.shape[1]:
        raise ArgumentError(f"x must have shape (..., dim) and table (rows, dim) with the same dim "
                            f"(got x {tuple(x.shape)}, table {tuple(table.shape)})")
    pos = _table_positions(table, positions, tuple(x.shape[:-1]))
    if torch.is_grad_enabled() and (x.requires_grad or table.requires_grad):
        return _LearnedAdd.apply(x, table, pos)
    out = x.clone(memory_format=torch.contiguous_format)
    _add(contiguous_c(table), pos, out)
    return out


_MODES = {"bicubic_aa": Resample.BICUBIC_AA, "bicubic": Resample.BICUBIC, "linear": Resample.LINEAR,
          "bilinear": Resample.LINEAR}


def _hw(v):
    if isinstance(v, int):
        return 1, int(v)
    h, w = v
    return int(h), int(w)


def _resample(src, prefix, from_hw, to_hw, mode, backward):
    """One C call: forward (table from_hw -> to_hw) or its adjoint (grad_out to_hw -> from_hw,
    from_hw = the forward's old size)."""
    (oh, ow), (nh, nw) = (from_hw, to_hw)
    src = contiguous_c(src)
    dim = src.shape[1]
    rows = prefix + (oh * ow if backward else nh * nw)
    out = torch.empty((max(rows, 0), dim), dtype=torch.float32)
    name = "posenc_learned_resample_backward_f32" if backward else "posenc_learned_resample_f32"
    check(cfn(name)(src.data_ptr(), prefix, oh, ow, dim, nh, nw, int(mode), out.data_ptr()))
    return out


class _LearnedResample(torch.autograd.Function):
    @staticmethod
    def forward(ctx, table, prefix, old_hw, new_hw, mode):
        ctx.args = (prefix, old_hw, new_hw, mode)
        return _resample(table, prefix, old_hw, new_hw, mode, False)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        prefix, old_hw, new_hw, mode = ctx.args
        return _resample(grad_out, prefix, old_hw, new_hw, mode, True), None, None, None, None


def learned_resample(table, old_hw, new_hw, prefix=0, mode="bicubic_aa"):
    """Resampled learned position grid (posenc_learned_resample_f32, timm resample_abs_pos_embed
    with channels last) -> float32 [prefix + new_h*new_w, dim], with autograd.

    table: float32 [prefix + old_h*old_w, dim] (the first `prefix` rows are class / register
    tokens, copied); old_hw / new_hw: (h, w), or an int for a 1-D table. mode: "bicubic_aa"
    (timm's default, F.interpolate(mode='bicubic', antialias=True)), "bicubic" (antialias=False),
    "linear" / "bilinear", or a posenc.Resample. Backward: posenc_learned_resample_backward_f32,
    the exact adjoint of the forward's float32 weights (PyTorch's F.interpolate backward up to
    its float32 weights), bitwise identical for any posenc thread count."""
    tensor(table, "table", _F32, _WHAT)
    m = _MODES.get(mode) if isinstance(mode, str) else Resample(int(mode))
    if m is None:
        raise ArgumentError(f"mode must be one of {', '.join(_MODES)} or a posenc.Resample (got {mode!r})")
    (oh, ow), (nh, nw) = _hw(old_hw), _hw(new_hw)
    prefix = int(prefix)
    if table.dim() != 2 or table.shape[0] != prefix + oh * ow:
        raise ArgumentError(f"table must have shape ({prefix} + {oh}*{ow}, dim) = ({prefix + oh * ow}, dim) "
                            f"(got {tuple(table.shape)})")
    if torch.is_grad_enabled() and table.requires_grad:
        return _LearnedResample.apply(table, prefix, (oh, ow), (nh, nw), m)
    return _resample(table, prefix, (oh, ow), (nh, nw), m, False)


__all__ = ["learned_add", "learned_resample"]
