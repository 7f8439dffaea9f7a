# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch.rope — RoPE on torch tensors with autograd, and HF's rotary module.

`rope_apply` rotates q / k (float32, bfloat16, float16; any strides whose head_dim axis has unit
stride, e.g. HF's [batch, heads, seq, head_dim] with ``heads_first=True``) and returns new
tensors: one C call (posenc_rope_plan_apply_out, Q and K of a token in the same pass) reads q and
k through ``data_ptr`` and writes the rotations into new tensors laid out as q and k (no copy
pass, no NumPy round trip). Its backward is the transpose of the rotation (the C ABI's
``inverse=1``), itself differentiable, so double backward works too. `RotaryEmbedding` is a
drop-in for transformers' ``LlamaRotaryEmbedding`` family built from a config dict."""
from __future__ import annotations

import ctypes
import math
import threading

import torch

from .._lib import ArgumentError
from ..rope import (RopeAxes, RopeLayout, RopeOperand, RopeParams, RopePlan, RopeType, _num_axes, rope_params)
from ._common import HUGE_PAGES_MIN_BYTES, cfn, check, huge_page_hint, positions_tensor, tensor

_DTYPES = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2}
_WHAT = ("the posenc C ABI rotates float32, bfloat16 and float16 storage (float64: cast with .float(); "
         "the rotation is computed in float32 in every case)")


class _Cfg:
    """What one rope call needs besides the tensors: the plan (made once from RopeParams), the
    raw C functions (in place and out of place), layout, heads_first, and the position axes."""

    __slots__ = ("raw_in", "raw_out", "first", "keep", "layout", "heads_first", "na", "mrope", "multi", "fast",
                 "runs", "bwd")

    def __init__(self, params, layout, heads_first):
        if isinstance(params, RopeParams):
            params = RopePlan(params)
        elif not isinstance(params, RopePlan):
            raise ArgumentError("params must be a posenc.RopeParams, a posenc.RopePlan or a "
                                f"posenc.torch.RotaryEmbedding (got {type(params).__name__})")
        p = params.params
        self.first = (params._handle(),)
        self.keep = params
        self.raw_in = _raw(cfn("posenc_rope_plan_apply"))
        self.raw_out = _raw(cfn("posenc_rope_plan_apply_out"))
        self.layout = int(layout)
        self.heads_first = bool(heads_first)
        self.na = _num_axes(p)
        self.mrope = p.axes in (RopeAxes.MROPE, RopeAxes.MROPE_INTERLEAVED)
        self.multi = self.na > 1 or p.axes == RopeAxes.AXIAL
        self.fast = {}  # _fast_key(...) -> _FastEntry: calls whose arguments passed the checks before
        self.runs = {}  # _run_key(...) -> _FastEntry: prepared operand structs of rotated tensors
        self.bwd = {}  # _grad_rotated's key -> _FastEntry: prepared backward calls


_I32, _I64, _VP = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
_RAW = {}


def _raw(fn):
    """fn (a ctypes function with argtypes) as a prototype without argtypes: the prepared calls
    pass ctypes objects of the exact C types built once (the per-argument conversion of argtypes
    costs about 0.3-0.5 us per call)."""
    addr = ctypes.cast(fn, _VP).value
    r = _RAW.get(addr)
    if r is None:
        r = _RAW[addr] = ctypes.CFUNCTYPE(ctypes.c_int)(addr)
    return r


_LAYOUTS = {}  # (shape, strides, heads_first) -> (num_heads, head_stride, token_stride, batch_stride, batch, tokens) or None


def _layout(shape, st, heads_first):
    nd = len(shape)
    h_ax, t_ax = (nd - 3, nd - 2) if heads_first else (nd - 2, nd - 3)
    if shape[-1] > 1 and st[-1] != 1:
        return None
    dims = [(n, s) for n, s in zip(shape[:nd - 3], st[:nd - 3]) if n != 1]
    for (n0, s0), (n1, s1) in zip(dims, dims[1:]):
        if s0 != s1 * n1:
            return None
    batch = 1
    for n in shape[:nd - 3]:
        batch *= n
    # no two elements at one address (e.g. expand()ed dimensions of stride 0): what the C ABI
    # requires of an operand (sorted by stride, each at least the extent inside it)
    extent = shape[-1]
    for n, s in sorted(((shape[h_ax], st[h_ax]), (shape[t_ax], st[t_ax]), (batch, dims[-1][1] if dims else 0)),
                       key=lambda d: d[1]):
        if n > 1:
            if s < extent:
                return None
            extent += (n - 1) * s
    return (shape[h_ax], st[h_ax] if shape[h_ax] > 1 else 0, st[t_ax] if shape[t_ax] > 1 else 0,
            dims[-1][1] if dims else 0, batch, shape[t_ax])


def _operand(x, heads_first):
    """(RopeOperand, batch, tokens) of a tensor [..., tokens, heads, head_dim] (heads_first:
    [..., heads, tokens, head_dim]) whose leading dimensions collapse into one stride, or None.
    The layout of a (shape, strides) pair is computed once and cached."""
    key = (x.shape, x.stride(), heads_first)
    lay = _LAYOUTS.get(key, False)
    if lay is False:
        lay = _layout(tuple(x.shape), key[1], heads_first)
        if len(_LAYOUTS) > 4096:
            _LAYOUTS.clear()
        _LAYOUTS[key] = lay
    if lay is None:
        return None
    return RopeOperand(x.data_ptr(), lay[0], lay[1], lay[2], lay[3]), lay[4], lay[5]


def _new_like(x, small=False):
    """A new, unwritten tensor with x's layout (torch.empty_like: x's strides when x is dense); a
    large one is hinted for huge pages before its first touch (huge_page_hint)."""
    return torch.empty_like(x) if small else huge_page_hint(torch.empty_like(x))


def _readable(x, heads_first):
    """x itself when the C ABI can read it (unit-stride head_dim, leading dimensions that
    collapse, no two elements at one address), else a C-contiguous copy."""
    key = (x.shape, x.stride(), heads_first)
    lay = _LAYOUTS.get(key, False)
    if lay is False:
        return x if _operand(x, heads_first) is not None else x.contiguous()
    return x if lay is not None else x.contiguous()


def _fresh_out(x, heads_first):
    """A new tensor for the rotation of x: x's layout when the C ABI can address it, else
    C-contiguous."""
    y = _new_like(x)
    if _operand(y, heads_first) is None:
        y = huge_page_hint(torch.empty(x.shape, dtype=x.dtype))
    return y


def _run_key(xs, outs):
    x = xs[0]
    if len(xs) == 1:
        return (_ident(), x.dtype, x.shape, x.stride(), outs[0].stride() if outs else None)
    return (_ident(), x.dtype, x.shape, x.stride(), xs[1].shape, xs[1].stride(),
            (outs[0].stride(), outs[1].stride()) if outs else None)


def _run(cfg, positions, xs, inverse, outs=None, e=None):
    """One C call rotating the (one or two) tensors xs, in place (outs None) or into outs (the
    same shapes, posenc_rope_plan_apply_out). xs / outs must be addressable as they are
    (_operand not None); their operand structs are prepared once per (thread, dtype, shapes,
    strides) and only the data pointers, the positions pointer and the direction are written
    per call (e: the prepared entry of the layout when the caller has it)."""
    if e is None:
        key = _run_key(xs, outs)
        e = cfg.runs.get(key)
        if e is None:
            if len(cfg.runs) > 256:
                cfg.runs.clear()
            e = cfg.runs[key] = _FastEntry(cfg, xs, outs)
    ops = e.ops
    ops[0].data = xs[0].data_ptr()
    if len(xs) > 1:
        ops[1].data = xs[1].data_ptr()
    if outs is not None:
        ops[2].data = outs[0].data_ptr()
        if len(outs) > 1:
            ops[3].data = outs[1].data_ptr()
    e.pp.value = None if positions is None else positions.data_ptr()
    e.inv.value = 1 if inverse else 0
    st = e.raw(*e.args)
    if st:
        check(st)
    return e


def _rotated(cfg, positions, xs, inverse, layouts=None):
    """New tensors: the rotations of xs (one out-of-place C call). layouts: None (each output laid
    out as its input, see _fresh_out) or (shape, strides, contiguous) per tensor (the layouts of
    the forward outputs, for gradients)."""
    return _rotated_entry(cfg, positions, xs, inverse, layouts)[0]


def _rotated_entry(cfg, positions, xs, inverse, layouts=None):
    """(outputs of _rotated, the prepared entry of the call, whether xs were read as they are)."""
    hf = cfg.heads_first
    ins = [_readable(x, hf) for x in xs]
    if layouts is None:
        outs = [_fresh_out(x, hf) for x in ins]
    else:
        outs = [huge_page_hint(torch.empty_strided(shape, st, dtype=x.dtype)) for x, (shape, st, _) in zip(ins, layouts)]
    e = _run(cfg, positions, ins, inverse, outs)
    return outs, e, all(a is b for a, b in zip(ins, xs))


_BOTH = (0, 1)


def _grad_rotated(ctx, gs, idx):
    """The backward without create_graph: the transposed rotation of the gradients gs (of the
    outputs idx) written in the forward outputs' layouts. A call whose (thread, dtype, gradient
    shapes and strides, output layouts) was seen before reuses its prepared entry."""
    cfg = ctx.cfg
    layouts = ctx.layouts if len(idx) == len(ctx.layouts) else [ctx.layouts[i] for i in idx]
    g0 = gs[0]
    if len(gs) == 1:
        key = (_ident(), g0.dtype, g0.shape, g0.stride(), layouts[0][1])
    else:
        g1 = gs[1]
        key = (_ident(), g0.dtype, g0.shape, g0.stride(), g1.shape, g1.stride(), layouts[0][1], layouts[1][1])
    bwd = cfg.bwd
    be = bwd.get(key)
    if be is None:
        outs, e, as_is = _rotated_entry(cfg, ctx.positions, gs, not ctx.inverse, layouts)
        if as_is:
            if len(bwd) > 256:
                bwd.clear()
            bwd[key] = (e, _templates(layouts, g0.dtype) if e.small else None)
        return outs
    e, tmpl = be
    if tmpl is not None:
        outs = [_empty_like(t, device=_CPU) for t in tmpl]
    else:
        dt = g0.dtype
        outs = [huge_page_hint(_empty_strided(lay[0], lay[1], dtype=dt)) for lay in layouts]
    _run(cfg, ctx.positions, gs, not ctx.inverse, outs, e)
    return outs


def _templates(layouts, dtype):
    """Storage-less (meta) tensors with the given (shape, strides) layouts: torch.empty_like of
    one with device=cpu allocates that layout faster than torch.empty_strided (half the Python
    argument parsing). None when a layout is not dense (empty_like would not keep its strides)."""
    tm = [_empty_strided(lay[0], lay[1], dtype=dtype, device="meta") for lay in layouts]
    if all(_empty_like(t, device=_CPU).stride() == lay[1] for t, lay in zip(tm, layouts)):
        return tm
    return None


def _in_place(xs, heads_first):
    for nm, x in zip(("q", "k"), xs):
        if _operand(x, heads_first) is None:
            raise ArgumentError(f"inplace=True: {nm} (shape {tuple(x.shape)}, strides {x.stride()}) must have a "
                                f"unit-stride head_dim and leading dimensions that collapse into one stride; "
                                f"use inplace=False (a copy is rotated)")
    if len(xs) == 2 and xs[0].data_ptr() == xs[1].data_ptr():
        raise ArgumentError("inplace=True: q and k must not share memory")
    return list(xs)


class _RopeInPlace(torch.autograd.Function):
    """In-place RoPE of one tensor x (autograd's CopySlices, used when x is a view, expects the
    modified tensor to be the first input and the only output)."""

    @staticmethod
    def forward(ctx, x, cfg, positions, inverse):
        _run(cfg, positions, [x], inverse)
        ctx.mark_dirty(x)
        ctx.cfg, ctx.positions, ctx.inverse = cfg, positions, inverse
        return x

    @staticmethod
    def backward(ctx, g):
        if torch.is_grad_enabled():
            (out,) = _RopeFunction.apply((ctx.cfg, ctx.positions, not ctx.inverse, None), g)
        else:
            (out,) = _rotated(ctx.cfg, ctx.positions, [g], not ctx.inverse)
        return out, None, None, None


class _RopeFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, args, *xs):
        """args: (cfg, positions, inverse, e) in one argument (autograd inspects every argument of
        apply; positions never get a gradient), e: the prepared entry (cfg.fast) of xs's layout,
        whose outputs keep it, or None."""
        cfg, positions, inverse, e = args
        ctx.cfg, ctx.positions, ctx.inverse = cfg, positions, inverse
        ctx.set_materialize_grads(False)
        if e is None:
            outs = _rotated(cfg, positions, xs, inverse)
            ctx.layouts = [(o.shape, o.stride(), o.is_contiguous()) for o in outs]
            return tuple(outs)
        ctx.layouts = e.lays_out
        ops = e.ops
        x = xs[0]
        o = _empty_like(x) if e.small else huge_page_hint(_empty_like(x))
        ops[0].data = x.data_ptr()
        ops[2].data = o.data_ptr()
        if len(xs) == 1:
            outs = (o,)
        else:
            x = xs[1]
            o2 = _empty_like(x) if e.small else huge_page_hint(_empty_like(x))
            ops[1].data = x.data_ptr()
            ops[3].data = o2.data_ptr()
            outs = (o, o2)
        e.pp.value = None if positions is None else positions.data_ptr()
        e.inv.value = 1 if inverse else 0
        st = e.raw(*e.args)
        if st:
            check(st)
        return outs

    @staticmethod
    def backward(ctx, *grads):
        if len(grads) == 2 and grads[0] is not None and grads[1] is not None and not _grad_enabled():
            return (None,) + tuple(_grad_rotated(ctx, grads, _BOTH))
        res = [None] * len(grads)
        idx = [i for i, g in enumerate(grads) if g is not None]
        if idx:
            gs = [grads[i] for i in idx]
            if _grad_enabled():  # create_graph: the backward is itself a rope op
                outs = _RopeFunction.apply((ctx.cfg, ctx.positions, not ctx.inverse, None), *gs)
            else:  # written in the forward outputs' layouts (autograd's view backward then copies nothing)
                outs = _grad_rotated(ctx, gs, idx)
            for i, o in zip(idx, outs):
                res[i] = o
        return (None,) + tuple(res)


def _prepare_positions(cfg, positions, lead, T):
    """positions broadcast to what the C call reads: None (0..T-1 per sequence, 1-D only),
    [batch, T] (1-D), [3, batch, T] (M-RoPE) or [batch, T, axes] (AXIAL), int64 C-contiguous."""
    if positions is None:
        if cfg.multi:
            raise ArgumentError("positions are required for M-RoPE / AXIAL params (they have several axes)")
        return None
    positions = positions_tensor(positions)
    if cfg.mrope:
        if positions.dim() < 2 or positions.shape[0] != 3:
            raise ArgumentError(f"positions must have shape (3, ..., tokens) for M-RoPE params (got "
                                f"{tuple(positions.shape)})")
        want = (3,) + lead + (T,)
    elif cfg.multi:
        if positions.dim() < 2 or positions.shape[-1] != cfg.na:
            raise ArgumentError(f"positions must have shape (..., tokens, {cfg.na}) for AXIAL params (got "
                                f"{tuple(positions.shape)})")
        want = lead + (T, cfg.na)
    else:
        want = lead + (T,)
    if tuple(positions.shape) == want:
        return positions
    try:
        return torch.broadcast_to(positions, want).contiguous()
    except RuntimeError:
        raise ArgumentError(f"positions of shape {tuple(positions.shape)} does not broadcast to {want} "
                            f"(the leading dimensions and tokens of q)") from None


def _check_qk(q, k, heads_first):
    tensor(q, "q", tuple(_DTYPES), _WHAT)
    if q.dim() < 3:
        raise ArgumentError(f"q must have shape (..., {'heads, tokens' if heads_first else 'tokens, heads'}, "
                            f"head_dim) (got {tuple(q.shape)})")
    if k is None:
        return
    tensor(k, "k", tuple(_DTYPES), _WHAT)
    if k.dtype != q.dtype:
        raise ArgumentError(f"q and k must have the same dtype (got {q.dtype} and {k.dtype})")
    t_ax = -2 if heads_first else -3
    if k.dim() != q.dim() or k.shape[:-3] != q.shape[:-3] or k.shape[t_ax] != q.shape[t_ax] \
            or k.shape[-1] != q.shape[-1]:
        raise ArgumentError(f"k must have the leading dimensions, tokens and head_dim of q (q {tuple(q.shape)}, "
                            f"k {tuple(k.shape)})")


_Tensor = torch.Tensor
_empty_like = torch.empty_like
_CPU = torch.device("cpu")
_empty_strided = torch.empty_strided
_ident = threading.get_ident
_grad_enabled = torch.is_grad_enabled


class _FastEntry:
    """A prepared call for one (thread, shapes, strides, dtypes) key: operand structs whose data
    pointer alone changes per call (inputs, then outputs when out of place), the raw C function
    and its whole argument tuple as ctypes objects (the positions pointer `pp` and the direction
    `inv` are objects of the tuple whose value is set per call)."""

    __slots__ = ("ops", "raw", "args", "pp", "inv", "small", "lays_out")

    def __init__(self, cfg, xs, outs=None, inverse=0):
        lays = [_operand(x, cfg.heads_first) for x in xs]
        ops = [lay[0] for lay in lays] + [None] * (2 - len(xs))
        if outs is not None:
            ops += [_operand(o, cfg.heads_first)[0] for o in outs] + [None] * (2 - len(outs))
        self.ops = ops
        addrs = [None if op is None else _VP(ctypes.addressof(op)) for op in ops]
        _, batch, seq = lays[0]
        self.raw = cfg.raw_in if outs is None else cfg.raw_out
        self.pp = _VP()  # NULL: positions 0..tokens-1
        self.inv = _I32(1 if inverse else 0)
        self.args = (tuple(cfg.first) + (_I32(_DTYPES[xs[0].dtype]), _I32(cfg.layout), self.pp, _I32(cfg.na),
                     _I64(batch), _I64(seq), _I64(xs[0].shape[-1])) + tuple(addrs) + (self.inv,))
        # all tensors of this layout below the huge-page threshold: no hint (see _new_like)
        self.small = all(x.numel() * x.element_size() < HUGE_PAGES_MIN_BYTES for x in xs)
        # (shape, strides, contiguous) of each output: what the backward writes its gradient in
        self.lays_out = None if outs is None else [(o.shape, o.stride(), o.is_contiguous()) for o in outs]


def _fast_key(q, k, positions, inverse, inplace):
    """The key of cfg.fast (a flat tuple; the four cases of k / positions None or not have four
    different lengths). Raises RuntimeError for tensors without strides (sparse, mkldnn)."""
    if k is not None:
        if positions is not None:
            return (_ident(), q.shape, q.stride(), q.dtype, k.shape, k.stride(), k.dtype, positions.shape,
                    positions.dtype, inverse, inplace)
        return (_ident(), q.shape, q.stride(), q.dtype, k.shape, k.stride(), k.dtype, inverse, inplace)
    if positions is not None:
        return (_ident(), q.shape, q.stride(), q.dtype, positions.shape, positions.dtype, inverse, inplace)
    return (_ident(), q.shape, q.stride(), q.dtype, inverse, inplace)


def _rope(cfg, q, k, positions, inverse, inplace):
    # the prepared path: a call whose (thread, shapes, strides, dtypes, positions shape, inverse,
    # inplace) passed the full checks before (cfg.fast) only checks what the key cannot carry
    # (CPU device, lazy neg bit, contiguous positions, q / k aliasing for inplace); the C call
    # validates the rest again. Anything else takes the full path below, which explains.
    if type(q) is _Tensor and (k is None or type(k) is _Tensor) and (positions is None or type(positions) is _Tensor):
        try:
            if k is not None and positions is not None:  # _fast_key, inline for the common case
                e = cfg.fast.get((_ident(), q.shape, q.stride(), q.dtype, k.shape, k.stride(), k.dtype,
                                  positions.shape, positions.dtype, inverse, inplace))
            else:
                e = cfg.fast.get(_fast_key(q, k, positions, inverse, inplace))
        except RuntimeError:  # tensors without strides (sparse, mkldnn)
            e = None
        if e is not None and q.is_cpu and not q.is_neg() and \
                (k is None or (k.is_cpu and not k.is_neg() and not (inplace and q.data_ptr() == k.data_ptr()))) and \
                (positions is None or (positions.is_cpu and positions.is_contiguous())):
            if not (_grad_enabled() and (q.requires_grad or (k is not None and k.requires_grad))):
                ops = e.ops
                ops[0].data = q.data_ptr()
                if k is not None:
                    ops[1].data = k.data_ptr()
                if inplace:
                    oq, ok = q, k
                else:
                    oq = _empty_like(q) if e.small else huge_page_hint(_empty_like(q))
                    ops[2].data = oq.data_ptr()
                    ok = None
                    if k is not None:
                        ok = _empty_like(k) if e.small else huge_page_hint(_empty_like(k))
                        ops[3].data = ok.data_ptr()
                if positions is not None:
                    e.pp.value = positions.data_ptr()
                st = e.raw(*e.args)
                if st:
                    check(st)
                return oq, ok
            if not inplace:
                if k is None:
                    return _RopeFunction.apply((cfg, positions, bool(inverse), e), q)[0], None
                return _RopeFunction.apply((cfg, positions, bool(inverse), e), q, k)
    grad = _grad_enabled() and (q.requires_grad or (k is not None and k.requires_grad))
    _check_qk(q, k, cfg.heads_first)
    t_ax = -2 if cfg.heads_first else -3
    pos = _prepare_positions(cfg, positions, tuple(q.shape[:-3]), q.shape[t_ax])
    xs = (q,) if k is None else (q, k)
    if grad:
        if inplace:  # autograd takes an in-place Function on a view only with one output: q, k apart
            outs = [_RopeInPlace.apply(x, cfg, pos, bool(inverse)) for x in _in_place(xs, cfg.heads_first)]
        else:
            outs = _RopeFunction.apply((cfg, pos, bool(inverse), None), *xs)
    else:
        if inplace:
            outs = _in_place(xs, cfg.heads_first)
            _run(cfg, pos, outs, inverse)
        else:
            outs = _rotated(cfg, pos, xs, inverse)
    # remember the checked arguments for the prepared path when the next call with this key can take them as
    # they are: the positions used unchanged (int64, contiguous, no broadcast), q / k read as they
    # are and the outputs with their strides (with autograd: out-of-place calls only)
    if (positions is None or pos is positions) and not (grad and inplace) and \
            all(o.stride() == x.stride() for o, x in zip(outs, xs)) and \
            all(_operand(x, cfg.heads_first) is not None for x in xs) and \
            type(q) is _Tensor and (k is None or type(k) is _Tensor) and \
            (positions is None or type(positions) is _Tensor):
        if len(cfg.fast) > 256:
            cfg.fast.clear()
        cfg.fast[_fast_key(q, k, positions, inverse, inplace)] = _FastEntry(cfg, xs, None if inplace else outs,
                                                                            inverse)
    return (outs[0], outs[1] if k is not None else None)


def rope_apply(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, heads_first=False,
               inplace=False):
    """RoPE of q (and k) -> (q_rotated, k_rotated or None), new tensors with autograd.

    params: a posenc.RopePlan (parameters validated and frequencies derived once: use it for
    repeated calls), a posenc.RopeParams, or a `RotaryEmbedding`. q: [..., tokens, q_heads,
    head_dim], k: [..., tokens, k_heads, head_dim] (GQA: any k_heads) with the same leading
    dimensions; heads_first=True: [..., heads, tokens, head_dim] (HF's layout after
    ``transpose(1, 2)``). dtype float32, bfloat16 or float16 (both the same; bf16 / fp16 are
    widened exactly, rotated in float32, rounded to nearest even), on the CPU, any strides with a
    unit-stride head_dim (other layouts are copied to C-contiguous first). positions: integer
    tensor broadcast to [..., tokens] (e.g. HF's position_ids [batch, seq] or [1, seq]); None =
    0..tokens-1 in every sequence; M-RoPE params: [3, ..., tokens]; AXIAL: [..., tokens, axes].
    inverse=True applies the transpose (the un-rotation). Accuracy: that of posenc_rope_apply_f32
    (|error| <= 4e-7 (|a| + |b|) max(A, 1) per element against a float64 rotation).
    Backward: the transposed rotation of the incoming gradient (exact transpose of the float32
    cos/sin used forward); positions get no gradient.
    inplace=True rotates q and k themselves (no copy; FlashAttention's rotary inplace=True) and
    returns them, recorded for autograd as an in-place op (torch.autograd.Function.mark_dirty),
    so it works on views such as HF's transposed projections but not on leaf tensors that
    require grad (with autograd, q and k then take one C call each: autograd allows only one
    output for an in-place Function on a view); q / k must then have a unit-stride head_dim and leading dimensions that
    collapse into one stride."""
    if isinstance(params, RotaryEmbedding):
        if int(layout) == RopeLayout.NEOX:
            return _rope(params._cfg[bool(heads_first)], q, k, positions, inverse, inplace)
        params = params.plan
    return _rope(_Cfg(params, layout, heads_first), q, k, positions, inverse, inplace)


# --------------------------------------------------------------------------- HF config -> params

_HF_TYPES = {"default": RopeType.DEFAULT, "linear": RopeType.LINEAR, "dynamic": RopeType.DYNAMIC,
             "yarn": RopeType.YARN, "longrope": RopeType.LONGROPE, "llama3": RopeType.LLAMA3}


def _cfg_get(config, key, default=None):
    if isinstance(config, dict):
        v = config.get(key, default)
    else:
        v = getattr(config, key, default)
    return default if v is None else v


def rope_params_from_hf(config):
    """posenc.RopeParams of a transformers config (a dict such as ``config.to_dict()`` or a config
    object) as its ``ROPE_INIT_FUNCTIONS`` read it:

    - head_dim = config.head_dim, else hidden_size // num_attention_heads; rotary_dim =
      int(head_dim * partial_rotary_factor) (HF's rotated prefix, NEOX pairs inside it);
    - theta = rope_theta (default 10000); rope_scaling (or rope_parameters) with rope_type / type
      in default, linear, dynamic, yarn, longrope, llama3; its factor, low/high_freq_factor,
      original_max_position_embeddings, beta_fast/slow, mscale, mscale_all_dim,
      attention_factor, truncate, short_factor / long_factor map to the fields of the same name;
    - dynamic: original_max_position = max_position_embeddings; yarn: original_max_position =
      rope_scaling's original_max_position_embeddings, else max_position_embeddings; longrope:
      config.original_max_position_embeddings (else rope_scaling's), factor = rope_scaling's,
      else max_position_embeddings / original;
    - dynamic and longrope set seq_len_from_positions (HF's dynamic_rope_update: seq_len =
      max(position_ids) + 1 of each call).
    Other rope types (mrope sections, proportional) raise ArgumentError: build RopeParams with
    posenc.rope_params for them."""
    rs = _cfg_get(config, "rope_parameters") or _cfg_get(config, "rope_scaling") or {}
    theta = float(rs.get("rope_theta", _cfg_get(config, "rope_theta", 10000.0)))
    head_dim = _cfg_get(config, "head_dim")
    if head_dim is None:
        hidden, heads = _cfg_get(config, "hidden_size"), _cfg_get(config, "num_attention_heads")
        if hidden is None or heads is None:
            raise ArgumentError("config needs head_dim or hidden_size and num_attention_heads")
        head_dim = hidden // heads
    prf = float(rs.get("partial_rotary_factor", _cfg_get(config, "partial_rotary_factor", 1.0)))
    rotary_dim = int(head_dim * prf)
    name = rs.get("rope_type", rs.get("type", "default"))
    if name not in _HF_TYPES:
        raise ArgumentError(f"rope_type {name!r} is not mapped by rope_params_from_hf (mapped: "
                            f"{', '.join(_HF_TYPES)}); build posenc.rope_params for it")
    if "mrope_section" in rs:
        raise ArgumentError("M-RoPE configs (mrope_section) are not mapped by rope_params_from_hf: use "
                            "posenc.rope_params(axes=posenc.RopeAxes.MROPE, sections=...) with "
                            "posenc.torch.rope_apply")
    t = _HF_TYPES[name]
    max_pos = _cfg_get(config, "max_position_embeddings")
    fields, arrays = {}, {}
    for key in ("factor", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow", "mscale",
                "mscale_all_dim", "attention_factor"):
        if rs.get(key) is not None and t != RopeType.DEFAULT:
            fields[key] = float(rs[key])
    if "truncate" in rs and t == RopeType.YARN:
        fields["truncate"] = int(bool(rs["truncate"]))
    if t == RopeType.DYNAMIC:
        fields["original_max_position"] = int(max_pos)
        fields["seq_len_from_positions"] = 1
    elif t in (RopeType.YARN, RopeType.LLAMA3):
        orig = rs.get("original_max_position_embeddings") or max_pos
        fields["original_max_position"] = int(orig)
    elif t == RopeType.LONGROPE:
        orig = _cfg_get(config, "original_max_position_embeddings") or rs.get("original_max_position_embeddings")
        fields["original_max_position"] = int(orig)
        if "factor" not in fields:
            fields["factor"] = float(max_pos) / float(orig)
        fields["seq_len_from_positions"] = 1
        arrays = {"short_factor": rs["short_factor"], "long_factor": rs["long_factor"]}
    return rope_params(t, rotary_dim, theta, **arrays, **fields)


class RotaryEmbedding(torch.nn.Module):
    """Drop-in for transformers' LlamaRotaryEmbedding (and the other rotary classes that share
    its interface), built from an HF config (dict or object, see `rope_params_from_hf`).

    ``forward(x, position_ids) -> (cos, sin)``, each [batch, seq, rotary_dim] in x.dtype, the
    halves repeated as HF's ``cat((freqs, freqs), -1)`` and scaled by attention_scaling: feed them
    to HF's apply_rotary_pos_emb unchanged. cos/sin come from posenc_rope_cos_sin_f32: the phase
    is reduced exactly in float64 (HF forms position * inv_freq in float32, so at large positions
    HF's own values carry a phase error of ~6e-8 * position radians that posenc's do not).
    ``apply(q, k, position_ids)`` is the fused alternative: q [batch, q_heads, seq, head_dim], k
    [batch, k_heads, seq, head_dim] (HF layout; heads_first=False for [batch, seq, heads,
    head_dim]) -> rotated (q, k), one C call, autograd (see `rope_apply`); it equals
    apply_rotary_pos_emb(q, k, *forward(q, position_ids)) up to float32 rounding.
    Attributes as HF's: inv_freq (float32 buffer), attention_scaling, rope_type; plus params
    (posenc.RopeParams), plan (posenc.RopePlan), head_dim and rotary_dim."""

    def __init__(self, config, device=None):
        super().__init__()
        if device is not None and torch.device(device).type != "cpu":
            raise ArgumentError(f"device {device}: posenc.torch runs on the CPU only")
        self.params = rope_params_from_hf(config)
        rs = _cfg_get(config, "rope_parameters") or _cfg_get(config, "rope_scaling") or {}
        self.rope_type = rs.get("rope_type", rs.get("type", "default"))
        self.plan = RopePlan(self.params)
        inv, af = self.plan.inv_freq()
        self.register_buffer("inv_freq", torch.from_numpy(inv).to(torch.float32), persistent=False)
        self.attention_scaling = af
        hd = _cfg_get(config, "head_dim")
        self.head_dim = int(hd if hd is not None else _cfg_get(config, "hidden_size") //
                            _cfg_get(config, "num_attention_heads"))
        self.rotary_dim = int(self.params.rotary_dim)
        self._cfg = {hf: _Cfg(self.plan, RopeLayout.NEOX, hf) for hf in (True, False)}
        self._cfg_hf = self._cfg[True]

    def forward(self, x, position_ids):
        pos = positions_tensor(position_ids)
        h = self.rotary_dim // 2
        n = pos.numel()
        c = torch.empty(tuple(pos.shape) + (h,), dtype=torch.float32)
        s = torch.empty(tuple(pos.shape) + (h,), dtype=torch.float32)
        check(cfn("posenc_rope_cos_sin_f32")(ctypes.byref(self.params), pos.data_ptr(), n, c.data_ptr(),
                                             s.data_ptr()))
        cos, sin = torch.cat((c, c), -1), torch.cat((s, s), -1)
        dt = x.dtype if isinstance(x, torch.Tensor) else torch.float32
        return cos.to(dt), sin.to(dt)

    def apply(self, q, k=None, position_ids=None, heads_first=True, inplace=False):
        """Fused RoPE of q and k (see the class docstring) -> (q_rotated, k_rotated);
        inplace=True rotates q and k themselves (see `rope_apply`).
        Called with one callable (torch.nn.Module.apply's signature, e.g. model.apply(init_fn)
        reaching this submodule), it is Module.apply."""
        if type(q) is not _Tensor and callable(q) and not isinstance(q, torch.Tensor) and k is None and \
                position_ids is None:
            return super().apply(q)
        return _rope(self._cfg_hf if heads_first is True else self._cfg[bool(heads_first)], q, k, position_ids, False,
                     inplace)

    def extra_repr(self):
        return (f"rope_type={self.rope_type!r}, head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, "
                f"theta={self.params.theta}, attention_scaling={self.attention_scaling}")


__all__ = ["rope_apply", "rope_params_from_hf", "RotaryEmbedding"]
