# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.rope — RoPE and sinusoidal tables on the circle S^1 (posenc.h, rope section)."""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ._lib import ArgumentError, _P, _broadcast, _c_d, _c_i32, _c_i64, _call, _in, _inout, _out, _outs, _ptr, _rows
from . import _lib


class RopeType(enum.IntEnum):
    DEFAULT = 0
    LINEAR = 1
    NTK = 2
    DYNAMIC = 3
    YARN = 4
    LONGROPE = 5
    LLAMA3 = 6


class RopeLayout(enum.IntEnum):
    NEOX = 0
    INTERLEAVED = 1


class SinusoidalLayout(enum.IntEnum):
    INTERLEAVED = 0
    HALVES = 1


_lib.register({
    "posenc_rope_params_init": (ctypes.c_int, [_P, ctypes.c_int, _c_i32, _c_d]),
    "posenc_rope_inv_freq": (ctypes.c_int, [_P, _P, _P]),
    "posenc_rope_cos_sin_f32": (ctypes.c_int, [_P, _P, _c_i64, _P, _P]),
    "posenc_rope_apply_f32": (ctypes.c_int, [_P, ctypes.c_int, _P, _c_i64, _c_i64, _P, _c_i64, _c_i64,
                                             _P, _c_i64, _c_i64, _c_i32]),
    "posenc_rope_apply_cached_f32": (ctypes.c_int, [_P, _P, _c_i64, _c_i32, ctypes.c_int, _P, _c_i64, _c_i64,
                                                    _P, _c_i64, _c_i64, _P, _c_i64, _c_i64, _c_i32]),
    "posenc_rope_apply_bf16": (ctypes.c_int, [_P, ctypes.c_int, _P, _c_i64, _c_i64, _P, _c_i64, _c_i64,
                                              _P, _c_i64, _c_i64, _c_i32]),
    "posenc_sinusoidal_f32": (ctypes.c_int, [_P, _c_i64, _c_i32, _c_d, ctypes.c_int, _P]),
    "posenc_rope_decay_f64": (ctypes.c_int, [_P, _c_i32, _c_i64, _c_i64, _c_i64, _P, _P]),
})


class RopeParams(ctypes.Structure):
    """posenc_rope_params (fill with `rope_params`)."""

    _fields_ = [("struct_size", ctypes.c_uint32), ("type", ctypes.c_int), ("rotary_dim", ctypes.c_int32),
                ("theta", ctypes.c_double), ("factor", ctypes.c_double),
                ("original_max_position", ctypes.c_int64), ("seq_len", ctypes.c_int64),
                ("low_freq_factor", ctypes.c_double), ("high_freq_factor", ctypes.c_double),
                ("beta_fast", ctypes.c_double), ("beta_slow", ctypes.c_double), ("mscale", ctypes.c_double),
                ("mscale_all_dim", ctypes.c_double), ("attention_factor", ctypes.c_double),
                ("truncate", ctypes.c_int32), ("short_factor", ctypes.c_void_p),
                ("long_factor", ctypes.c_void_p),
                # added in posenc 0.2
                ("axes", ctypes.c_int), ("sections", ctypes.c_int32 * 4),
                ("partial_rotary_factor", ctypes.c_double), ("extrapolation_factor", ctypes.c_double),
                ("attn_factor", ctypes.c_double), ("mixed_b", ctypes.c_double), ("alpha", ctypes.c_double),
                ("freq_factors", ctypes.c_void_p), ("seq_len_from_positions", ctypes.c_int32)]


def rope_params(type=RopeType.DEFAULT, rotary_dim=128, theta=10000.0, short_factor=None, long_factor=None,
                **fields):
    """posenc_rope_params_init, then sets the given fields (factor=, original_max_position=, ...).
    short_factor / long_factor (LONGROPE): float64 arrays [rotary_dim/2], kept alive by the result."""
    p = RopeParams()
    _call("posenc_rope_params_init", ctypes.byref(p), int(type), int(rotary_dim), float(theta))
    for k, v in fields.items():
        if k not in dict(RopeParams._fields_) or k in ("struct_size", "short_factor", "long_factor"):
            raise ArgumentError(f"rope_params: unknown field {k!r}")
        setattr(p, k, v)
    keep = []
    for nm, arr in (("short_factor", short_factor), ("long_factor", long_factor)):
        if arr is not None:
            arr = _in(arr, np.float64, nm, (int(rotary_dim) // 2,), convert=True)
            keep.append(arr)
            setattr(p, nm, arr.ctypes.data)
    p._keep = keep
    return p


def _params(p):
    if not isinstance(p, RopeParams):
        raise ArgumentError("params must be a posenc.RopeParams (see posenc.rope_params)")
    return ctypes.byref(p)


def rope_inv_freq(params, out=None):
    """posenc_rope_inv_freq -> (inv_freq float64 [rotary_dim/2], attention_factor float). out: None
    or the array to fill."""
    out = _out(out, (params.rotary_dim // 2,), np.float64)
    af = ctypes.c_double(0)
    _call("posenc_rope_inv_freq", _params(params), _ptr(out), ctypes.byref(af))
    return out, af.value


def _positions(positions, n, convert):
    """-> (positions flattened or None, count, batch shape): positions int64 of any shape (each
    dimension a batch dimension of the result), or None with n (= 0..n-1, batch shape (n,))."""
    if positions is None:
        if n is None:
            raise ArgumentError("give positions or n")
        return None, int(n), (int(n),)
    positions, batch = _rows(positions, np.int64, "positions", convert=convert)
    if n is not None and int(n) != positions.shape[0]:
        raise ArgumentError(f"n ({n}) differs from positions.size ({positions.shape[0]})")
    return positions, positions.shape[0], batch


def rope_cos_sin(params, positions=None, n=None, convert=False, out=None):
    """posenc_rope_cos_sin_f32 -> (cos, sin), float32 [*positions.shape, rotary_dim/2]. positions:
    int64 of any shape, or None with n (= 0..n-1). out: None or a (cos, sin) pair of arrays to fill."""
    positions, n, batch = _positions(positions, n, convert)
    h = params.rotary_dim // 2
    oc, os_ = _outs(out, 2)
    c = _out(oc, batch + (h,), np.float32, "out[0]", inputs={"positions": positions})
    s = _out(os_, batch + (h,), np.float32, "out[1]", inputs={"positions": positions, "out[0]": c})
    _call("posenc_rope_cos_sin_f32", _params(params), _ptr(positions), n, _ptr(c), _ptr(s))
    return c, s


def _qk(q, k, dtype, positions, convert):
    """q [..., tokens, q_heads, head_dim] and k [..., tokens, k_heads, head_dim] (in place, the same
    leading dimensions) and positions (broadcast to those dimensions; None = 0..tokens-1 along the
    last) -> q and k as [rows, heads, head_dim] views, positions [rows], rows, q_heads, head_dim, k_heads."""
    q = _inout(q, dtype, "q")
    if q.ndim < 3:
        raise ArgumentError(f"q must have shape (..., tokens, q_heads, head_dim) (got {q.shape})")
    batch, (hq, hd) = q.shape[:-2], q.shape[-2:]
    if k is not None:
        k = _inout(k, dtype, "k")
        if k.shape[:-2] != batch or k.shape[-1] != hd:
            raise ArgumentError(f"k must have shape {batch + ('*', hd)} like q (got {k.shape})")
        if np.shares_memory(q, k):
            raise ArgumentError("q and k must not overlap")
        k = k.reshape((-1,) + k.shape[-2:])
    if positions is None:
        positions = np.arange(batch[-1], dtype=np.int64)
    positions = _broadcast(_in(positions, np.int64, "positions", convert=convert), batch, "positions")
    q = q.reshape((-1, hq, hd))
    return q, k, positions, q.shape[0], hq, hd, (0 if k is None else k.shape[1])


def rope_apply(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, convert=False):
    """posenc_rope_apply_f32, in place on q [..., tokens, q_heads, head_dim] and k [..., tokens,
    k_heads, head_dim] (float32, C-contiguous, the same leading batch dimensions; k may be None), in
    one C call. positions int64 broadcast to [..., tokens] (None = 0..tokens-1 for every batch row)."""
    q2, k2, positions, tokens, hq, hd, hk = _qk(q, k, np.float32, positions, convert)
    _call("posenc_rope_apply_f32", _params(params), int(layout), _ptr(positions), tokens, hd, _ptr(q2), hq, 0,
          _ptr(k2), hk, 0, int(bool(inverse)))
    return q, k


def rope_apply_bf16(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, convert=False):
    """posenc_rope_apply_bf16: as rope_apply on uint16 arrays holding bfloat16 bit patterns."""
    q2, k2, positions, tokens, hq, hd, hk = _qk(q, k, np.uint16, positions, convert)
    _call("posenc_rope_apply_bf16", _params(params), int(layout), _ptr(positions), tokens, hd, _ptr(q2), hq, 0,
          _ptr(k2), hk, 0, int(bool(inverse)))
    return q, k


def rope_apply_cached(cos_table, sin_table, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False,
                      convert=False):
    """posenc_rope_apply_cached_f32: rotation from precomputed tables [rows, rotary_dim/2] (float32);
    q, k and positions as in rope_apply."""
    cos_table = _in(cos_table, np.float32, "cos_table", convert=convert, ndim=2)
    sin_table = _in(sin_table, np.float32, "sin_table", cos_table.shape, convert)
    q2, k2, positions, tokens, hq, hd, hk = _qk(q, k, np.float32, positions, convert)
    _call("posenc_rope_apply_cached_f32", _ptr(cos_table), _ptr(sin_table), cos_table.shape[0],
          2 * cos_table.shape[1], int(layout), _ptr(positions), tokens, hd, _ptr(q2), hq, 0, _ptr(k2), hk, 0,
          int(bool(inverse)))
    return q, k


def sinusoidal(n=None, dim=128, base=10000.0, layout=SinusoidalLayout.INTERLEAVED, positions=None, convert=False,
               out=None):
    """posenc_sinusoidal_f32 -> float32 [*positions.shape, dim] (positions int64 of any shape, or
    None with n: [n, dim] for 0..n-1). out: None or the array to fill."""
    positions, n, batch = _positions(positions, n, convert)
    out = _out(out, batch + (int(dim),), np.float32, inputs={"positions": positions})
    _call("posenc_sinusoidal_f32", _ptr(positions), n, int(dim), float(base), int(layout), _ptr(out))
    return out


def rope_decay(inv_freq, count, n_begin=0, n_step=1, bound=False, convert=False, out=None):
    """posenc_rope_decay_f64 -> f float64 [count], or (f, bound) with bound=True. out: None or the
    array to fill (a pair of arrays with bound=True)."""
    inv_freq = _in(inv_freq, np.float64, "inv_freq", convert=convert, ndim=1)
    of, ob = _outs(out, 2) if bound else (out, None)
    f = _out(of, (int(count),), np.float64, "out[0]" if bound else "out", inputs={"inv_freq": inv_freq})
    b = _out(ob, (int(count),), np.float64, "out[1]", inputs={"inv_freq": inv_freq, "out[0]": f}) if bound else None
    _call("posenc_rope_decay_f64", _ptr(inv_freq), inv_freq.shape[0], int(n_begin), int(n_step), int(count),
          _ptr(f), _ptr(b))
    return (f, b) if bound else f


__all__ = ['RopeType', 'RopeLayout', 'SinusoidalLayout', 'RopeParams', 'rope_params', 'rope_inv_freq', 'rope_cos_sin', 'rope_apply', 'rope_apply_bf16', 'rope_apply_cached', 'sinusoidal', 'rope_decay']
