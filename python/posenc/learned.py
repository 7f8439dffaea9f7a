# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.learned — learned position tables: add, gradient scatter, spectrum, low rank, resampling (include/posenc/learned.h)."""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ._lib import _P, _broadcast, _c_i32, _c_i64, _call, _in, _inout, _out, _outs, _ptr, _rows
from . import _lib


class Resample(enum.IntEnum):
    BICUBIC_AA = 0
    BICUBIC = 1
    LINEAR = 2


_lib.register({
    "posenc_learned_add_f32": (ctypes.c_int, [_P, _c_i64, _c_i32, _P, _c_i64, _P]),
    "posenc_learned_grad_f32": (ctypes.c_int, [_P, _P, _c_i64, _c_i32, _P, _c_i64]),
    "posenc_learned_spectrum_f32": (ctypes.c_int, [_P, _c_i64, _c_i32, _P, _P]),
    "posenc_learned_lowrank_f32": (ctypes.c_int, [_P, _c_i64, _c_i32, _c_i32, _P, _P]),
    "posenc_learned_resample_f32": (ctypes.c_int, [_P, _c_i32, _c_i64, _c_i64, _c_i32, _c_i64, _c_i64,
                                                   ctypes.c_int, _P]),
    "posenc_learned_resample_backward_f32": (ctypes.c_int, [_P, _c_i32, _c_i64, _c_i64, _c_i32, _c_i64, _c_i64,
                                                            ctypes.c_int, _P]),
})


def learned_add(table, positions, x, convert=False):
    """posenc_learned_add_f32: x [..., dim] += table[positions] in place, positions int64 broadcast to
    x.shape[:-1] (e.g. [tokens] for x [batch, tokens, dim]), one C call; returns x."""
    table = _in(table, np.float32, "table", convert=convert, ndim=2)
    rows, dim = table.shape
    positions = _in(positions, np.int64, "positions", convert=convert)
    x2, batch = _rows(_inout(x, np.float32, "x"), np.float32, "x", (dim,))
    positions = _broadcast(positions, batch, "positions")
    _call("posenc_learned_add_f32", _ptr(table), rows, dim, _ptr(positions), positions.shape[0], _ptr(x2))
    return x


def learned_grad(grad_x, positions, grad_table, convert=False):
    """posenc_learned_grad_f32: grad_table [rows, dim] += scatter of grad_x [..., dim], positions
    int64 broadcast to grad_x.shape[:-1], one C call; returns grad_table."""
    grad_table = _inout(grad_table, np.float32, "grad_table", ndim=2)
    rows, dim = grad_table.shape
    positions = _in(positions, np.int64, "positions", convert=convert)
    grad_x, batch = _rows(grad_x, np.float32, "grad_x", (dim,), convert)
    positions = _broadcast(positions, batch, "positions")
    _call("posenc_learned_grad_f32", _ptr(grad_x), _ptr(positions), positions.shape[0], dim, _ptr(grad_table), rows)
    return grad_table


def learned_spectrum(table, convert=False, out=None):
    """posenc_learned_spectrum_f32 -> (singular values float64 [min(rows, dim)] descending, effective
    rank). out: None or the array of singular values to fill."""
    table = _in(table, np.float32, "table", convert=convert, ndim=2)
    s = _out(out, (min(table.shape),), np.float64, inputs={"table": table})
    er = ctypes.c_double(0)
    _call("posenc_learned_spectrum_f32", _ptr(table), table.shape[0], table.shape[1], _ptr(s), ctypes.byref(er))
    return s, er.value


def learned_lowrank(table, r, convert=False, out=None):
    """posenc_learned_lowrank_f32 -> (left float32 [rows, r], right float32 [r, dim]). out: None or a
    (left, right) pair of arrays to fill."""
    table = _in(table, np.float32, "table", convert=convert, ndim=2)
    ol, orr = _outs(out, 2)
    left = _out(ol, (table.shape[0], int(r)), np.float32, "out[0]", inputs={"table": table})
    right = _out(orr, (int(r), table.shape[1]), np.float32, "out[1]", inputs={"table": table, "out[0]": left})
    _call("posenc_learned_lowrank_f32", _ptr(table), table.shape[0], table.shape[1], int(r), _ptr(left), _ptr(right))
    return left, right


def learned_resample(table, old_hw, new_hw, prefix=0, mode=Resample.BICUBIC_AA, convert=False, out=None):
    """posenc_learned_resample_f32: table [prefix + old_h*old_w, dim] -> [prefix + new_h*new_w, dim].
    old_hw / new_hw: (h, w) tuples, or an int for a 1-D table (h = 1). out: None or the array to fill."""
    oh, ow = (1, int(old_hw)) if np.isscalar(old_hw) else map(int, old_hw)
    nh, nw = (1, int(new_hw)) if np.isscalar(new_hw) else map(int, new_hw)
    table = _in(table, np.float32, "table", (int(prefix) + oh * ow, None), convert)
    out = _out(out, (int(prefix) + nh * nw, table.shape[1]), np.float32, inputs={"table": table})
    _call("posenc_learned_resample_f32", _ptr(table), int(prefix), oh, ow, table.shape[1], nh, nw, int(mode), _ptr(out))
    return out


def learned_resample_backward(grad_out, old_hw, new_hw, prefix=0, mode=Resample.BICUBIC_AA, convert=False, out=None):
    """posenc_learned_resample_backward_f32: the adjoint of learned_resample, grad_out
    [prefix + new_h*new_w, dim] -> grad_table [prefix + old_h*old_w, dim] (A^T grad_out; old_hw /
    new_hw as in learned_resample: the forward's sizes). out: None or the array to fill."""
    oh, ow = (1, int(old_hw)) if np.isscalar(old_hw) else map(int, old_hw)
    nh, nw = (1, int(new_hw)) if np.isscalar(new_hw) else map(int, new_hw)
    grad_out = _in(grad_out, np.float32, "grad_out", (int(prefix) + nh * nw, None), convert)
    out = _out(out, (int(prefix) + oh * ow, grad_out.shape[1]), np.float32, inputs={"grad_out": grad_out})
    _call("posenc_learned_resample_backward_f32", _ptr(grad_out), int(prefix), oh, ow, grad_out.shape[1], nh, nw,
          int(mode), _ptr(out))
    return out


__all__ = ['Resample', 'learned_add', 'learned_grad', 'learned_spectrum', 'learned_lowrank', 'learned_resample',
           'learned_resample_backward']
