# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.rope — RoPE and sinusoidal tables on the circle S^1 (include/posenc/rope.h).

The apply functions rotate q and k in place, so they are never converted or copied: they take
numpy views with any strides (the head_dim axis must have unit stride), e.g. HF's
[batch, heads, seq, head_dim] after ``transpose(1, 2)`` (``heads_first=True``) or the q and k
column ranges of a fused QKV buffer. float32 and float16 arrays go to `rope_apply`; bfloat16
bit patterns (uint16) to `rope_apply_bf16`. `RopePlan` keeps the frequencies of a parameter set
for repeated calls (decode); every function taking ``params`` also takes a `RopePlan`.
"""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ._lib import ArgumentError, _P, _broadcast, _c_d, _c_i32, _c_i64, _call, _fn, _in, _out, _outs, _ptr, _rows
from . import _lib


class RopeType(enum.IntEnum):
    DEFAULT = 0
    LINEAR = 1
    NTK = 2
    DYNAMIC = 3
    YARN = 4
    LONGROPE = 5
    LLAMA3 = 6
    PROPORTIONAL = 7
    NTK_VLLM = 8


class RopeLayout(enum.IntEnum):
    NEOX = 0
    INTERLEAVED = 1


class RopeAxes(enum.IntEnum):
    """posenc_rope_axes: ONE_D positions [..., tokens]; MROPE / MROPE_INTERLEAVED [3, ..., tokens];
    AXIAL [..., tokens, axes]."""
    ONE_D = 0
    MROPE = 1
    MROPE_INTERLEAVED = 2
    AXIAL = 3


class SinusoidalLayout(enum.IntEnum):
    INTERLEAVED = 0
    HALVES = 1


_F32, _BF16, _F16 = 0, 1, 2


class RopeOperand(ctypes.Structure):
    """posenc_rope_operand: one strided q or k (strides in elements, 0 = packed)."""

    _fields_ = [("data", ctypes.c_void_p), ("num_heads", ctypes.c_int64), ("head_stride", ctypes.c_int64),
                ("token_stride", ctypes.c_int64), ("batch_stride", ctypes.c_int64)]


_apply_args = [ctypes.c_int, ctypes.c_int, _P, _c_i32, _c_i64, _c_i64, _c_i64, _P, _P]
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
    "posenc_rope_apply_f16": (ctypes.c_int, [_P, ctypes.c_int, _P, _c_i64, _c_i64, _P, _c_i64, _c_i64,
                                             _P, _c_i64, _c_i64, _c_i32]),
    "posenc_rope_plan_create": (ctypes.c_int, [_P, _P]),
    "posenc_rope_plan_destroy": (None, [_P]),
    "posenc_rope_plan_inv_freq": (ctypes.c_int, [_P, _P, _P]),
    "posenc_rope_plan_apply": (ctypes.c_int, [_P] + _apply_args + [_c_i32]),
    "posenc_rope_plan_apply_out": (ctypes.c_int, [_P] + _apply_args + [_P, _P, _c_i32]),
    "posenc_rope_apply_strided": (ctypes.c_int, [_P] + _apply_args + [_c_i32]),
    "posenc_rope_plan_rerotate": (ctypes.c_int, [_P, _P] + _apply_args),
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


_ARRAYS = ("short_factor", "long_factor", "freq_factors")


def rope_params(type=RopeType.DEFAULT, rotary_dim=128, theta=10000.0, short_factor=None, long_factor=None,
                freq_factors=None, sections=None, **fields):
    """posenc_rope_params_init, then sets the given fields (factor=, original_max_position=, axes=,
    ...). short_factor / long_factor (LONGROPE) and freq_factors: float64 arrays [rotary_dim/2], kept
    alive by the result. sections: up to 4 ints (M-RoPE: (t, h, w) pairs, e.g. (16, 24, 24);
    AXIAL: pairs per axis)."""
    p = RopeParams()
    _call("posenc_rope_params_init", ctypes.byref(p), int(type), int(rotary_dim), float(theta))
    for k, v in fields.items():
        if k not in dict(RopeParams._fields_) or k in ("struct_size", "sections") + _ARRAYS:
            raise ArgumentError(f"rope_params: unknown field {k!r}")
        setattr(p, k, v)
    if sections is not None:
        sections = [int(s) for s in sections]
        if len(sections) > 4:
            raise ArgumentError(f"rope_params: sections takes at most 4 values (got {len(sections)})")
        p.sections[:] = sections + [0] * (4 - len(sections))
    keep = []
    for nm, arr in zip(_ARRAYS, (short_factor, long_factor, freq_factors)):
        if arr is not None:
            arr = _in(arr, np.float64, nm, (int(rotary_dim) // 2,), convert=True)
            keep.append(arr)
            setattr(p, nm, arr.ctypes.data)
    p._keep = keep
    return p


def _num_axes(p):
    """Position axes a token has under params p (posenc_rope_axes)."""
    if p.axes in (RopeAxes.MROPE, RopeAxes.MROPE_INTERLEAVED):
        return 3
    if p.axes == RopeAxes.AXIAL:
        n = 0
        while n < 4 and p.sections[n] > 0:
            n += 1
        return n
    return 1


class RopePlan:
    """posenc_rope_plan: the validated parameters with their frequencies derived once, for
    repeated apply calls. RopePlan(params); usable wherever a function takes params; released
    when garbage-collected or by close() (also as a context manager)."""

    def __init__(self, params):
        self._h = ctypes.c_void_p()
        _call("posenc_rope_plan_create", _params(params), ctypes.byref(self._h))
        self.params = params  # keeps short/long/freq_factors alive for the Python side's shape checks
        self.rotary_dim = int(params.rotary_dim)
        self.axes = RopeAxes(params.axes)
        self.num_axes = _num_axes(params)

    def close(self):
        """Releases the plan (posenc_rope_plan_destroy); later use raises ArgumentError."""
        h, self._h = self._h, ctypes.c_void_p()
        if h:
            _fn("posenc_rope_plan_destroy")(h)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may already be gone
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._h:
            raise ArgumentError("this RopePlan was closed")
        return self._h

    def inv_freq(self, out=None):
        """posenc_rope_plan_inv_freq -> (inv_freq float64 [rotary_dim/2], attention_factor).
        out: None or the array to fill."""
        out = _out(out, (self.rotary_dim // 2,), np.float64)
        af = ctypes.c_double(0)
        _call("posenc_rope_plan_inv_freq", self._handle(), _ptr(out), ctypes.byref(af))
        return out, af.value


def _params(p):
    if not isinstance(p, RopeParams):
        raise ArgumentError("params must be a posenc.RopeParams (see posenc.rope_params)")
    return ctypes.byref(p)


def _as_params(p):
    return p.params if isinstance(p, RopePlan) else p


def rope_inv_freq(params, out=None):
    """posenc_rope_inv_freq -> (inv_freq float64 [rotary_dim/2], attention_factor float). out: None
    or the array to fill."""
    params = _as_params(params)
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


def _axes_rank_error(p, positions):
    if _num_axes(p) == 3 or p.axes != RopeAxes.AXIAL:
        want = "(3, ..., tokens) for M-RoPE params: axis 0 is (temporal, height, width)"
    else:
        want = f"(..., tokens, {_num_axes(p)}) for AXIAL params: the last axis holds one position per section"
    return ArgumentError(f"positions must have shape {want} (got shape {positions.shape})")


def _multi_positions(p, positions, convert):
    """M-RoPE / AXIAL positions -> (C-contiguous array [3, n] or [n, axes], n, batch shape)."""
    if positions is None:
        raise ArgumentError("positions are required for M-RoPE / AXIAL params (they have several axes)")
    positions = _in(positions, np.int64, "positions", convert=convert)
    na = _num_axes(p)
    if p.axes == RopeAxes.AXIAL:
        if positions.ndim < 2 or positions.shape[-1] != na:
            raise _axes_rank_error(p, positions)
        batch = positions.shape[:-1]
        return positions.reshape(-1, na), int(np.prod(batch, dtype=np.int64)), batch
    if positions.ndim < 2 or positions.shape[0] != 3:
        raise _axes_rank_error(p, positions)
    batch = positions.shape[1:]
    return positions.reshape(3, -1), int(np.prod(batch, dtype=np.int64)), batch


def rope_cos_sin(params, positions=None, n=None, convert=False, out=None):
    """posenc_rope_cos_sin_f32 -> (cos, sin), float32 [*batch, rotary_dim/2]. positions int64: any
    shape (batch = positions.shape), or None with n (= 0..n-1); M-RoPE params: [3, *batch];
    AXIAL params: [*batch, axes]. out: None or a (cos, sin) pair of arrays to fill."""
    params = _as_params(params)
    if _num_axes(params) == 1 and params.axes != RopeAxes.AXIAL:
        positions, n, batch = _positions(positions, n, convert)
    else:
        positions, n, batch = _multi_positions(params, positions, convert)
    h = params.rotary_dim // 2
    oc, os_ = _outs(out, 2)
    c = _out(oc, batch + (h,), np.float32, "out[0]", inputs={"positions": positions})
    s = _out(os_, batch + (h,), np.float32, "out[1]", inputs={"positions": positions, "out[0]": c})
    _call("posenc_rope_cos_sin_f32", _params(params), _ptr(positions), n, _ptr(c), _ptr(s))
    return c, s


# --------------------------------------------------------------------------- in-place q / k

_DTYPE_NAMES = {_F32: "float32 or float16", _BF16: "uint16 (bfloat16 bit patterns)",
                _F16: "float16 or uint16 (binary16 bit patterns)"}


def _storage(a, name, kind):
    """The posenc_rope_dtype of in-place array `a` for function kind _F32 (float32 / float16),
    _BF16 or _F16, after the checks an in-place argument needs (never converted or copied)."""
    fix = (f"{name} is rotated in place, so it is never converted or copied (convert= applies to "
           f"positions only): rotate a converted copy and copy it back, e.g. x = {name}.astype(np.float32); "
           f"posenc.rope_apply(params, x); {name}[...] = x")
    if not isinstance(a, np.ndarray):
        raise ArgumentError(f"{name} must be a numpy.ndarray of {_DTYPE_NAMES[kind]} (got {type(a).__name__}); {fix}")
    code = {np.dtype(np.float32): _F32, np.dtype(np.float16): _F16}.get(a.dtype) if kind == _F32 else \
        (kind if a.dtype == np.uint16 or (kind == _F16 and a.dtype == np.float16) else None)
    if code is None:
        hint = " (bfloat16 bits: rope_apply_bf16)" if kind == _F32 and a.dtype == np.uint16 else ""
        raise ArgumentError(f"{name} must have dtype {_DTYPE_NAMES[kind]} (got {a.dtype}){hint}; {fix}")
    if not a.flags.writeable:
        raise ArgumentError(f"{name} must be writable (it is rotated in place)")
    if a.ndim < 3:
        raise ArgumentError(f"{name} must have shape (..., tokens, heads, head_dim) (got {a.shape})")
    size = a.itemsize
    if any(s < 0 or s % size for n, s in zip(a.shape, a.strides) if n > 1) or (a.shape[-1] > 1 and a.strides[-1] != size):
        raise ArgumentError(
            f"{name} must have non-negative strides in whole elements and a unit-stride last axis (head_dim) "
            f"(got strides {a.strides} bytes for {size}-byte elements); {name} is rotated in place, so it is "
            f"never copied: rotate np.ascontiguousarray({name}) and copy it back")
    return code


def _estride(a, axis):
    return a.strides[axis] // a.itemsize if a.shape[axis] > 1 else 0


def _operand(a, heads_first):
    """(leading shape, RopeOperand without batch stride, per-lead-dim element strides) of a view
    [..., tokens, heads, head_dim] ([..., heads, tokens, head_dim] with heads_first)."""
    t_ax, h_ax = (-2, -3) if heads_first else (-3, -2)
    op = RopeOperand(a.ctypes.data, a.shape[h_ax], _estride(a, h_ax), _estride(a, t_ax), 0)
    lead = a.shape[:-3]
    return lead, op, [_estride(a, i) for i in range(len(lead))]


def _collapse(lead, strides):
    """One (batch, batch_stride) for the leading dimensions, or None when their strides do not
    collapse into one."""
    dims = [(n, s) for n, s in zip(lead, strides) if n != 1]
    for (n0, s0), (n1, s1) in zip(dims, dims[1:]):
        if s0 != s1 * n1:
            return None
    return int(np.prod(lead, dtype=np.int64)), (dims[-1][1] if dims else 0)


def _apply_positions(p, positions, lead, T, convert):
    """(position axes, is M-RoPE, positions int64 C-contiguous broadcast to what the C call reads:
    [*lead, T], [3, *lead, T] (M-RoPE) or [*lead, T, axes] (AXIAL))."""
    na = _num_axes(p)
    multi = na > 1 or p.axes == RopeAxes.AXIAL
    if positions is None:
        if multi:
            raise ArgumentError("positions are required for M-RoPE / AXIAL params (they have several axes)")
        positions = np.arange(T, dtype=np.int64)
    positions = _in(positions, np.int64, "positions", convert=convert)
    mrope = p.axes in (RopeAxes.MROPE, RopeAxes.MROPE_INTERLEAVED)
    if mrope:
        if positions.ndim < 2 or positions.shape[0] != 3:
            raise _axes_rank_error(p, positions)
        want = (3,) + lead + (T,)
    elif multi:
        if positions.ndim < 2 or positions.shape[-1] != na:
            raise _axes_rank_error(p, positions)
        want = lead + (T, na)
    else:
        want = lead + (T,)
    try:
        positions = np.ascontiguousarray(np.broadcast_to(positions, want))
    except ValueError:
        raise ArgumentError(f"positions of shape {positions.shape} does not broadcast to {want}") from None
    return na, mrope, positions


def _rotate(fn_name, first, p, kind, q, k, positions, layout, extra, heads_first, convert):
    """Common path of rope_apply* / rope_rerotate: checks, positions, one C call (or one per index
    of leading dimensions whose strides do not collapse)."""
    given = [(nm, a) for nm, a in (("q", q), ("k", k)) if a is not None]
    if not given:
        raise ArgumentError("give q, k or both")
    codes = {_storage(a, nm, kind) for nm, a in given}
    if len(codes) != 1:
        raise ArgumentError("q and k must have the same dtype")
    dtype = codes.pop()
    ops = {nm: _operand(a, heads_first) for nm, a in given}
    ref_nm, ref = given[0]
    t_ax = -2 if heads_first else -3
    lead, T, D = ref.shape[:-3], ref.shape[t_ax], ref.shape[-1]
    for nm, a in given[1:]:
        if a.shape[:-3] != lead or a.shape[t_ax] != T or a.shape[-1] != D:
            raise ArgumentError(f"{nm} must have the leading dimensions, tokens and head_dim of {ref_nm} "
                                f"(like q: {ref.shape}, got {a.shape})")
    if q is not None and k is not None and np.shares_memory(q, k):
        raise ArgumentError("q and k must not overlap (views of one fused QKV buffer are fine when disjoint)")
    na, mrope, positions = _apply_positions(p, positions, lead, T, convert)
    collapsed = [_collapse(ops[nm][0], ops[nm][2]) for nm, _ in given]
    if all(c is not None for c in collapsed):
        calls = [((), collapsed)]
    else:  # one call per index of the leading dimensions
        calls = [(idx, [(1, 0)] * len(given)) for idx in np.ndindex(*lead)]
    opv = {"q": None, "k": None}
    for idx, bb in calls:
        for (nm, a), (batch, bs) in zip(given, bb):
            op = ops[nm][1]
            view = a[idx] if idx else a
            opv[nm] = RopeOperand(view.ctypes.data, op.num_heads, op.head_stride, op.token_stride, bs)
        pos = positions
        if idx:
            pos = np.ascontiguousarray(positions[(slice(None),) + idx] if mrope else positions[idx])
        batch = bb[0][0]
        args = [dtype, int(layout), _ptr(pos), na, batch, T, D,
                ctypes.byref(opv["q"]) if opv["q"] is not None else None,
                ctypes.byref(opv["k"]) if opv["k"] is not None else None]
        _call(fn_name, *first, *args, *extra)
    return q, k


def _target(params):
    """(C function, leading arguments, RopeParams) for params or a RopePlan."""
    if isinstance(params, RopePlan):
        return "posenc_rope_plan_apply", [params._handle()], params.params
    return "posenc_rope_apply_strided", [_params(params)], params


def rope_apply(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, convert=False,
               heads_first=False):
    """RoPE in place (posenc_rope_apply_strided, or posenc_rope_plan_apply with a RopePlan) on q
    [..., tokens, q_heads, head_dim] and k [..., tokens, k_heads, head_dim], float32 or float16
    (rounded to nearest even), any strides with a unit-stride head_dim axis; heads_first: q / k are
    [..., heads, tokens, head_dim] (HF's layout after transpose(1, 2)). q or k may be None.
    positions int64 broadcast to [..., tokens] (None = 0..tokens-1 in every row); M-RoPE params:
    [3, ..., tokens]; AXIAL params: [..., tokens, axes]. convert applies to positions only.
    Returns (q, k)."""
    fn, first, p = _target(params)
    return _rotate(fn, first, p, _F32, q, k, positions, layout, [int(bool(inverse))], heads_first, convert)


def rope_apply_bf16(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, convert=False,
                    heads_first=False):
    """As rope_apply, in place on uint16 arrays holding bfloat16 bit patterns (float32 math, RNE)."""
    fn, first, p = _target(params)
    return _rotate(fn, first, p, _BF16, q, k, positions, layout, [int(bool(inverse))], heads_first, convert)


def rope_apply_f16(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, convert=False,
                   heads_first=False):
    """As rope_apply, in place on IEEE binary16 storage given as float16 arrays or uint16 bit
    patterns (exact widening, float32 math, round to nearest even)."""
    fn, first, p = _target(params)
    return _rotate(fn, first, p, _F16, q, k, positions, layout, [int(bool(inverse))], heads_first, convert)


def rope_apply_out(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, convert=False,
                   heads_first=False, bf16=False, out=None):
    """RoPE out of place (posenc_rope_plan_apply_out): q and k are read, never written, and their
    rotations returned as new C-contiguous arrays of their shapes and dtypes, bit for bit what
    `rope_apply` leaves in a copy. q [..., tokens, q_heads, head_dim], k [..., tokens, k_heads,
    head_dim] (heads_first: [..., heads, tokens, head_dim]); float32, float16, or uint16 bit
    patterns (bfloat16 with bf16=True, else binary16); any strides (inputs the C call cannot
    address are read through a C-contiguous copy). positions as `rope_apply`. params: RopeParams
    or RopePlan (a plan is made for the call from RopeParams). out: None or (q_out, k_out),
    C-contiguous arrays of the inputs' shapes and dtypes sharing no memory with q, k or each
    other. Returns (q_rotated, k_rotated or None)."""
    plan = params if isinstance(params, RopePlan) else RopePlan(params)
    given = [(i, nm, a) for i, (nm, a) in enumerate((("q", q), ("k", k))) if a is not None]
    if not given:
        raise ArgumentError("give q, k or both")
    codes = set()
    arrs = {}
    for _, nm, a in given:
        if not isinstance(a, np.ndarray):
            raise ArgumentError(f"{nm} must be a numpy.ndarray (got {type(a).__name__})")
        code = {np.dtype(np.float32): _F32, np.dtype(np.float16): _F16,
                np.dtype(np.uint16): _BF16 if bf16 else _F16}.get(a.dtype)
        if code is None:
            raise ArgumentError(f"{nm} must have dtype float32, float16 or uint16 (bf16 / f16 bits) (got {a.dtype})")
        if a.ndim < 3:
            raise ArgumentError(f"{nm} must have shape (..., tokens, heads, head_dim) (got {a.shape})")
        codes.add(code)
        size = a.itemsize
        ok = not any(st < 0 or st % size for n, st in zip(a.shape, a.strides) if n > 1) and \
            (a.shape[-1] <= 1 or a.strides[-1] == size)
        if ok:
            lead_, op_, lst = _operand(a, heads_first)
            ok = _collapse(lead_, lst) is not None
        arrs[nm] = a if ok else np.ascontiguousarray(a)
    if len(codes) != 1:
        raise ArgumentError("q and k must have the same dtype")
    dtype = codes.pop()
    t_ax = -2 if heads_first else -3
    _, ref_nm, ref = given[0]
    lead, T, D = ref.shape[:-3], ref.shape[t_ax], ref.shape[-1]
    for _, nm, a in given[1:]:
        if a.shape[:-3] != lead or a.shape[t_ax] != T or a.shape[-1] != D:
            raise ArgumentError(f"{nm} must have the leading dimensions, tokens and head_dim of {ref_nm} "
                                f"(like q: {ref.shape}, got {a.shape})")
    na, _, pos = _apply_positions(plan.params, positions, lead, T, convert)
    outs = _outs(out, 2)
    res = [None, None]
    ops_in, ops_out = [None, None], [None, None]
    for i, nm, a in given:
        o = _out(outs[i], a.shape, a.dtype, f"out[{i}]", inputs={"q": q, "k": k, "out[0]": res[0]})
        res[i] = o
        for ops, arr in ((ops_in, arrs[nm]), (ops_out, o)):
            lead_, op, lst = _operand(arr, heads_first)
            op.batch_stride = _collapse(lead_, lst)[1]
            ops[i] = op
    batch = int(np.prod(lead, dtype=np.int64))
    ref_ = [None if o is None else ctypes.byref(o) for o in ops_in + ops_out]
    _call("posenc_rope_plan_apply_out", plan._handle(), dtype, int(layout), _ptr(pos), na, batch, T, D, *ref_,
          int(bool(inverse)))
    return res[0], res[1]


def rope_rerotate(src, dst, q=None, k=None, positions=None, layout=RopeLayout.NEOX, bf16=False, convert=False,
                  heads_first=False):
    """posenc_rope_plan_rerotate, in place: q / k rotated with `src` (RopePlan or RopeParams) become
    rotated with `dst`, in one pass (e.g. a K cache rotated with LongRoPE's short factors, re-rotated
    with the long ones). Arrays and positions as rope_apply; uint16 arrays are bfloat16 bits with
    bf16=True, else binary16 bits. Returns (q, k)."""
    src = src if isinstance(src, RopePlan) else RopePlan(src)
    dst = dst if isinstance(dst, RopePlan) else RopePlan(dst)
    a = q if q is not None else k
    kind = _BF16 if bf16 else (_F16 if isinstance(a, np.ndarray) and a.dtype == np.uint16 else _F32)
    return _rotate("posenc_rope_plan_rerotate", [src._handle(), dst._handle()], dst.params, kind, q, k, positions,
                   layout, [], heads_first, convert)


def rope_apply_cached(cos_table, sin_table, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False,
                      convert=False):
    """posenc_rope_apply_cached_f32, in place: rotation from precomputed tables [rows, rotary_dim/2]
    (float32) of C-contiguous float32 q [..., tokens, q_heads, head_dim] and k (the same leading
    dimensions; k may be None); positions int64 broadcast to [..., tokens] (None = 0..tokens-1)."""
    cos_table = _in(cos_table, np.float32, "cos_table", convert=convert, ndim=2)
    sin_table = _in(sin_table, np.float32, "sin_table", cos_table.shape, convert)
    for nm, a in (("q", q), ("k", k)):
        if a is None:
            continue
        if _storage(a, nm, _F32) != _F32:
            raise ArgumentError(f"{nm} must have dtype float32 for rope_apply_cached (got {a.dtype})")
        if not a.flags.c_contiguous:
            raise ArgumentError(f"{nm} must be C-contiguous for rope_apply_cached (it is rotated in place, never "
                                f"copied; rope_apply takes strided views)")
    batch, (hq, hd) = q.shape[:-2], q.shape[-2:]
    if k is not None:
        if k.shape[:-2] != batch or k.shape[-1] != hd:
            raise ArgumentError(f"k must have shape {batch + ('*', hd)} like q (got {k.shape})")
        if np.shares_memory(q, k):
            raise ArgumentError("q and k must not overlap")
    if positions is None:
        positions = np.arange(batch[-1], dtype=np.int64)
    positions = _broadcast(_in(positions, np.int64, "positions", convert=convert), batch, "positions")
    q2 = q.reshape((-1, hq, hd))
    k2 = None if k is None else k.reshape((-1,) + k.shape[-2:])
    _call("posenc_rope_apply_cached_f32", _ptr(cos_table), _ptr(sin_table), cos_table.shape[0],
          2 * cos_table.shape[1], int(layout), _ptr(positions), q2.shape[0], hd, _ptr(q2), hq, 0, _ptr(k2),
          0 if k2 is None else k2.shape[1], 0, int(bool(inverse)))
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


__all__ = ['RopeType', 'RopeLayout', 'RopeAxes', 'SinusoidalLayout', 'RopeParams', 'RopeOperand', 'RopePlan',
           'rope_params', 'rope_inv_freq', 'rope_cos_sin', 'rope_apply', 'rope_apply_bf16', 'rope_apply_f16',
           'rope_apply_out',
           'rope_rerotate', 'rope_apply_cached', 'sinusoidal', 'rope_decay']
