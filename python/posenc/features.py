# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.features — random-feature kernel maps (Bochner) and linear / softmax attention (include/posenc/features.h)."""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ._lib import _P, _c_d, _c_f, _c_i32, _c_i64, _c_u64, _call, _in, _out, _outs, _ptr, _rows
from . import _lib


class RfSampling(enum.IntEnum):
    IID = 0
    ORTHOGONAL = 1
    QMC = 2
    PFF = 3


class RfKind(enum.IntEnum):
    TRIG = 0
    POSITIVE = 1
    HYPERBOLIC = 2
    GAUSSIAN_POSITIVE = 3
    ELU_PLUS_ONE = 4
    RELU = 5


class RfShift(enum.IntEnum):
    """Stabilizing shift of the exponential kinds (posenc_rf_shift): ROW_MAX for the queries and
    SHARED_MAX for the keys of FAVOR+ linear attention."""
    OVERFLOW = 0
    ROW_MAX = 1
    SHARED_MAX = 2


_lib.register({
    "posenc_rf_sample_f32": (ctypes.c_int, [ctypes.c_int, _c_i32, _c_i32, _c_d, _c_u64, _P]),
    "posenc_rf_features_f32": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, _P, _c_i32, _c_i32, _P, _P, _c_i64, _P]),
    "posenc_linear_attention_f32": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P]),
    "posenc_softmax_attention_f32": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P]),
    "posenc_rf_features_backward_f32": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, _P, _c_i32, _c_i32, _P, _P, _c_i64,
                                                       _P, _P, _P, _P]),
    "posenc_linear_attention_backward_f32": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P, _P,
                                                            _P, _P]),
    "posenc_linear_attention_step_f32": (ctypes.c_int, [_P, _P, _P, _c_i32, _c_i32, _c_f, _P, _P, _P]),
    "posenc_softmax_attention_backward_f32": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P, _P,
                                                             _P, _P]),
    "posenc_rf_features_bf16": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, _P, _c_i32, _c_i32, _P, _P, _c_i64, _P]),
    "posenc_linear_attention_bf16": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P]),
    "posenc_linear_attention_mh_f32": (ctypes.c_int, [_c_i64, _c_i64, _c_i64, _c_i32, _c_i32, _P, _P, _P, _P, _P, _P,
                                                      _c_i32, _c_f, _P, _P]),
    "posenc_linear_attention_backward_mh_f32": (ctypes.c_int, [_c_i64, _c_i64, _c_i64, _c_i32, _c_i32, _P, _P, _P, _P,
                                                               _P, _P, _c_i32, _c_f, _P, _P, _P, _P, _P, _P, _P, _P]),
})


def rf_sample(sampling, d, m, sigma=1.0, seed=0, out=None):
    """posenc_rf_sample_f32 -> omega float32 [m, d]. out: None or the array to fill."""
    out = _out(out, (int(m), int(d)), np.float32)
    _call("posenc_rf_sample_f32", int(sampling), int(d), int(m), float(sigma), int(seed) & (2**64 - 1), _ptr(out))
    return out


def rf_features(kind, omega, x, weights=None, convert=False, out=None, shift=RfShift.OVERFLOW):
    """posenc_rf_features_f32: x [..., d] -> [..., m] (POSITIVE, GAUSSIAN_POSITIVE) or [..., 2m].
    shift: RfShift (ROW_MAX for FAVOR+ queries, SHARED_MAX for keys; one shared constant over all
    rows of x). out: None or the array to fill."""
    omega = _in(omega, np.float32, "omega", convert=convert, ndim=2)
    m, d = omega.shape
    x, batch = _rows(x, np.float32, "x", (d,), convert)
    if weights is not None:
        weights = _in(weights, np.float32, "weights", (m,), convert)
    F = 2 * m if int(kind) in (RfKind.TRIG, RfKind.HYPERBOLIC) else m
    out = _out(out, batch + (F,), np.float32, inputs={"omega": omega, "x": x, "weights": weights})
    _call("posenc_rf_features_f32", int(kind), int(shift), _ptr(omega), m, d, _ptr(weights), _ptr(x), x.shape[0], _ptr(out))
    return out


def _linear_flags(causal, unnormalized):
    return (1 if causal else 0) | (2 if unnormalized else 0)


def linear_attention(phi_q, phi_k, v, causal=False, eps=1e-6, convert=False, out=None, unnormalized=False):
    """posenc_linear_attention_f32: phi_q, phi_k [n, F], v [n, dv] -> [n, dv]. eps is added to the
    denominator (fast-transformers' 1e-6); for FAVOR+ features (queries RfShift.ROW_MAX, keys
    RfShift.SHARED_MAX) pass eps=0. unnormalized: no denominator (POSENC_LINEAR_UNNORMALIZED),
    out_i = phi_q_i^T S. out: None or the array to fill."""
    phi_q = _in(phi_q, np.float32, "phi_q", convert=convert, ndim=2)
    n, F = phi_q.shape
    phi_k = _in(phi_k, np.float32, "phi_k", (n, F), convert)
    v = _in(v, np.float32, "v", (n, None), convert)
    out = _out(out, (n, v.shape[1]), np.float32, inputs={"phi_q": phi_q, "phi_k": phi_k, "v": v})
    _call("posenc_linear_attention_f32", _ptr(phi_q), _ptr(phi_k), _ptr(v), n, F, v.shape[1],
          _linear_flags(causal, unnormalized), float(eps), _ptr(out))
    return out


def softmax_attention(q, k, v, causal=False, scale=None, convert=False, out=None):
    """posenc_softmax_attention_f32: softmax(scale q k^T) v; scale defaults to 1/sqrt(d). out: None
    or the array [n, dv] to fill."""
    q = _in(q, np.float32, "q", convert=convert, ndim=2)
    n, d = q.shape
    k = _in(k, np.float32, "k", (n, d), convert)
    v = _in(v, np.float32, "v", (n, None), convert)
    if scale is None:
        scale = 1.0 / np.sqrt(d)
    out = _out(out, (n, v.shape[1]), np.float32, inputs={"q": q, "k": k, "v": v})
    _call("posenc_softmax_attention_f32", _ptr(q), _ptr(k), _ptr(v), n, d, v.shape[1], int(bool(causal)),
          float(scale), _ptr(out))
    return out


def rf_features_backward(kind, omega, x, grad_out, weights=None, shift=RfShift.OVERFLOW, grad_x=True,
                         grad_weights=True, grad_omega=False, convert=False, out=None):
    """posenc_rf_features_backward_f32: the gradients of sum(grad_out * rf_features(kind, omega, x,
    weights, shift=shift)) (the shift held constant). x [..., d], grad_out [..., F]. Returns
    (grad_x [..., d], grad_weights [m], grad_omega [m, d]), None for the ones not requested.
    out: None or a tuple of 3 arrays (or None) to fill, for the requested gradients."""
    omega = _in(omega, np.float32, "omega", convert=convert, ndim=2)
    m, d = omega.shape
    x, batch = _rows(x, np.float32, "x", (d,), convert)
    F = 2 * m if int(kind) in (RfKind.TRIG, RfKind.HYPERBOLIC) else m
    g, gbatch = _rows(grad_out, np.float32, "grad_out", (F,), convert)
    if gbatch != batch:
        raise _lib.ArgumentError(f"grad_out must have shape {batch + (F,)} (got {gbatch + (F,)})")
    if weights is not None:
        weights = _in(weights, np.float32, "weights", (m,), convert)
    ox, ow, oo = _outs(out, 3)
    ins = {"omega": omega, "x": x, "grad_out": g, "weights": weights}
    gx = _out(ox, batch + (d,), np.float32, "out[0]", inputs=ins) if grad_x else None
    gw = _out(ow, (m,), np.float32, "out[1]", inputs=dict(ins, **{"out[0]": gx})) if grad_weights else None
    go = _out(oo, (m, d), np.float32, "out[2]", inputs=dict(ins, **{"out[0]": gx, "out[1]": gw})) \
        if grad_omega else None
    _call("posenc_rf_features_backward_f32", int(kind), int(shift), _ptr(omega), m, d, _ptr(weights), _ptr(x),
          x.shape[0], _ptr(g), _ptr(gx), _ptr(gw), _ptr(go))
    return gx, gw, go


def _grad_outs(out, qk_shape, v_shape, ins):
    """The three float32 gradient outputs of an attention backward: out None or a tuple of 3."""
    oq, ok, ov = _outs(out, 3)
    gq = _out(oq, qk_shape, np.float32, "out[0]", inputs=ins)
    gk = _out(ok, qk_shape, np.float32, "out[1]", inputs=dict(ins, **{"out[0]": gq}))
    gv = _out(ov, v_shape, np.float32, "out[2]", inputs=dict(ins, **{"out[0]": gq, "out[1]": gk}))
    return gq, gk, gv


def linear_attention_backward(phi_q, phi_k, v, grad_out, causal=False, eps=1e-6, convert=False, out=None,
                              unnormalized=False):
    """posenc_linear_attention_backward_f32: gradients of sum(grad_out * linear_attention(phi_q,
    phi_k, v, causal, eps, unnormalized=unnormalized)). Returns (grad_phi_q, grad_phi_k [n, F],
    grad_v [n, dv])."""
    phi_q = _in(phi_q, np.float32, "phi_q", convert=convert, ndim=2)
    n, F = phi_q.shape
    phi_k = _in(phi_k, np.float32, "phi_k", (n, F), convert)
    v = _in(v, np.float32, "v", (n, None), convert)
    dv = v.shape[1]
    g = _in(grad_out, np.float32, "grad_out", (n, dv), convert)
    gq, gk, gv = _grad_outs(out, (n, F), (n, dv), {"phi_q": phi_q, "phi_k": phi_k, "v": v, "grad_out": g})
    _call("posenc_linear_attention_backward_f32", _ptr(phi_q), _ptr(phi_k), _ptr(v), n, F, dv,
          _linear_flags(causal, unnormalized), float(eps), _ptr(g), _ptr(gq), _ptr(gk), _ptr(gv))
    return gq, gk, gv


def softmax_attention_backward(q, k, v, grad_out, causal=False, scale=None, convert=False, out=None):
    """posenc_softmax_attention_backward_f32: gradients of sum(grad_out * softmax_attention(q, k, v,
    causal, scale)) by recomputation (FlashAttention-2). Returns (grad_q, grad_k [n, d], grad_v [n, dv])."""
    q = _in(q, np.float32, "q", convert=convert, ndim=2)
    n, d = q.shape
    k = _in(k, np.float32, "k", (n, d), convert)
    v = _in(v, np.float32, "v", (n, None), convert)
    dv = v.shape[1]
    g = _in(grad_out, np.float32, "grad_out", (n, dv), convert)
    if scale is None:
        scale = 1.0 / np.sqrt(d)
    gq, gk, gv = _grad_outs(out, (n, d), (n, dv), {"q": q, "k": k, "v": v, "grad_out": g})
    _call("posenc_softmax_attention_backward_f32", _ptr(q), _ptr(k), _ptr(v), n, d, dv, int(bool(causal)),
          float(scale), _ptr(g), _ptr(gq), _ptr(gk), _ptr(gv))
    return gq, gk, gv


def linear_attention_step(phi_q, phi_k, v, state_s, state_z, eps=1e-6, out=None):
    """posenc_linear_attention_step_f32: one decoding row. phi_q, phi_k [F], v [dv]; state_s
    float32 [F, dv] and state_z float32 [F] (C-contiguous) are updated in place; state_z=None: the
    unnormalized form (out = phi_q^T S). Returns out [dv]."""
    phi_q = _in(phi_q, np.float32, "phi_q", convert=True, ndim=1)
    F = phi_q.shape[0]
    phi_k = _in(phi_k, np.float32, "phi_k", (F,), True)
    v = _in(v, np.float32, "v", convert=True, ndim=1)
    dv = v.shape[0]
    state_s = _lib._inout(state_s, np.float32, "state_s", (F, dv))
    if state_z is not None:
        state_z = _lib._inout(state_z, np.float32, "state_z", (F,))
    out = _out(out, (dv,), np.float32, inputs={"phi_q": phi_q, "phi_k": phi_k, "v": v})
    _call("posenc_linear_attention_step_f32", _ptr(phi_q), _ptr(phi_k), _ptr(v), F, dv, float(eps), _ptr(state_s),
          _ptr(state_z), _ptr(out))
    return out


def rf_features_bf16(kind, omega, x, weights=None, convert=False, out=None, shift=RfShift.OVERFLOW):
    """posenc_rf_features_bf16: x [..., d] as bfloat16 bit patterns (numpy uint16) -> uint16 [..., F]
    bf16 bits (the float32 map rounded once, nearest-even). omega, weights: float32. out: None or
    the uint16 array to fill."""
    omega = _in(omega, np.float32, "omega", convert=convert, ndim=2)
    m, d = omega.shape
    x, batch = _rows(x, np.uint16, "x", (d,), False)
    if weights is not None:
        weights = _in(weights, np.float32, "weights", (m,), convert)
    F = 2 * m if int(kind) in (RfKind.TRIG, RfKind.HYPERBOLIC) else m
    out = _out(out, batch + (F,), np.uint16, inputs={"omega": omega, "x": x, "weights": weights})
    _call("posenc_rf_features_bf16", int(kind), int(shift), _ptr(omega), m, d, _ptr(weights), _ptr(x), x.shape[0],
          _ptr(out))
    return out


def linear_attention_bf16(phi_q, phi_k, v, causal=False, eps=1e-6, unnormalized=False, out=None):
    """posenc_linear_attention_bf16: phi_q, phi_k [n, F], v [n, dv] as bfloat16 bit patterns (numpy
    uint16) -> uint16 [n, dv] bf16 bits (float32 accumulation, rounded once). out: None or the
    uint16 array to fill."""
    phi_q = _in(phi_q, np.uint16, "phi_q", ndim=2)
    n, F = phi_q.shape
    phi_k = _in(phi_k, np.uint16, "phi_k", (n, F))
    v = _in(v, np.uint16, "v", (n, None))
    out = _out(out, (n, v.shape[1]), np.uint16, inputs={"phi_q": phi_q, "phi_k": phi_k, "v": v})
    _call("posenc_linear_attention_bf16", _ptr(phi_q), _ptr(phi_k), _ptr(v), n, F, v.shape[1],
          _linear_flags(causal, unnormalized), float(eps), _ptr(out))
    return out


def _bhn(a, name, dim=None, convert=False, writable=False):
    """A [batch, heads, n, dim] float32 array with any non-negative strides and a contiguous last
    dimension, and its element strides (numpy int64 [3]) for the C call."""
    if convert and not (isinstance(a, np.ndarray) and a.dtype == np.float32):
        a = _lib._convert(a, np.float32, name)
    if not isinstance(a, np.ndarray) or a.dtype != np.float32:
        raise _lib.ArgumentError(f"{name} must be a numpy.ndarray of float32 (got "
                                 f"{getattr(a, 'dtype', type(a).__name__)}; pass convert=True to convert)")
    if a.ndim != 4:
        raise _lib.ArgumentError(f"{name} must have 4 dimensions [batch, heads, n, dim] (got shape {a.shape})")
    if dim is not None and a.shape[3] != dim:
        raise _lib.ArgumentError(f"{name} must have shape (*, *, *, {dim}) (got {a.shape})")
    if a.shape[3] > 1 and a.strides[3] != 4:
        raise _lib.ArgumentError(f"{name}'s last dimension must be contiguous (stride 4 bytes, got {a.strides[3]})")
    if any(st < 0 or st % 4 for st in a.strides[:3]):
        raise _lib.ArgumentError(f"{name}'s strides must be non-negative multiples of 4 bytes (got {a.strides})")
    if writable and not a.flags.writeable:
        raise _lib.ArgumentError(f"{name} must be writable")
    return a, np.array([st // 4 for st in a.strides[:3]], np.int64)


def _bhn_out(out, shape, name, inputs):
    """An output of the multi-head functions: None (a new contiguous array) or a float32 array of
    exactly `shape`, possibly strided, last dimension contiguous, writable, overlapping no input."""
    if out is None:
        out = np.empty(shape, np.float32)
    if not isinstance(out, np.ndarray):
        raise _lib.ArgumentError(f"{name} must be a numpy.ndarray of float32 with shape {tuple(shape)} "
                                 f"(got {type(out).__name__})")
    if out.dtype != np.float32:
        raise _lib.ArgumentError(f"{name} must have dtype float32 (got {out.dtype}); outputs are never converted")
    if out.shape != tuple(shape):
        raise _lib.ArgumentError(f"{name} must have shape {tuple(shape)} (got {out.shape})")
    out, st = _bhn(out, name, writable=True)
    for nm, a in inputs.items():
        if a is not None and np.may_share_memory(out, a):
            raise _lib.ArgumentError(f"{name} must not overlap {nm}")
    return out, st


def linear_attention_mh(phi_q, phi_k, v, causal=False, eps=1e-6, unnormalized=False, convert=False, out=None):
    """posenc_linear_attention_mh_f32: phi_q, phi_k [batch, heads, n, F], v [batch, heads, n, dv]
    -> [batch, heads, n, dv], one call for all heads (TBB-parallel over them, each head bitwise equal
    to linear_attention on it). The arrays may be strided views (e.g. x.reshape(B, n, H, F)
    .transpose(0, 2, 1, 3)) as long as the last dimension is contiguous. out: None or a (possibly
    strided) array to fill."""
    q, sq = _bhn(phi_q, "phi_q", convert=convert)
    B, H, n, F = q.shape
    k, sk = _bhn(phi_k, "phi_k", F, convert)
    vv, sv = _bhn(v, "v", convert=convert)
    if k.shape[:3] != (B, H, n) or vv.shape[:3] != (B, H, n):
        raise _lib.ArgumentError(f"phi_k and v must have the leading shape {(B, H, n)} of phi_q "
                                 f"(got {k.shape[:3]}, {vv.shape[:3]})")
    dv = vv.shape[3]
    out, so = _bhn_out(out, (B, H, n, dv), "out", {"phi_q": q, "phi_k": k, "v": vv})
    _call("posenc_linear_attention_mh_f32", B, H, n, F, dv, _ptr(q), _ptr(sq), _ptr(k), _ptr(sk), _ptr(vv), _ptr(sv),
          _linear_flags(causal, unnormalized), float(eps), _ptr(out), _ptr(so))
    return out


def linear_attention_backward_mh(phi_q, phi_k, v, grad_out, causal=False, eps=1e-6, unnormalized=False,
                                 convert=False, out=None):
    """posenc_linear_attention_backward_mh_f32: the gradients of sum(grad_out * linear_attention_mh(...))
    for [batch, heads, n, dim] arrays (strided views allowed). Returns (grad_phi_q, grad_phi_k,
    grad_v). out: None or a tuple of 3 arrays to fill."""
    q, sq = _bhn(phi_q, "phi_q", convert=convert)
    B, H, n, F = q.shape
    k, sk = _bhn(phi_k, "phi_k", F, convert)
    vv, sv = _bhn(v, "v", convert=convert)
    dv = vv.shape[3]
    g, sg = _bhn(grad_out, "grad_out", dv, convert)
    if k.shape[:3] != (B, H, n) or vv.shape[:3] != (B, H, n) or g.shape[:3] != (B, H, n):
        raise _lib.ArgumentError(f"phi_k, v and grad_out must have the leading shape {(B, H, n)} of phi_q")
    oq, ok, ov = _outs(out, 3)
    ins = {"phi_q": q, "phi_k": k, "v": vv, "grad_out": g}
    gq, s1 = _bhn_out(oq, (B, H, n, F), "out[0]", ins)
    gk, s2 = _bhn_out(ok, (B, H, n, F), "out[1]", dict(ins, **{"out[0]": gq}))
    gv, s3 = _bhn_out(ov, (B, H, n, dv), "out[2]", dict(ins, **{"out[0]": gq, "out[1]": gk}))
    _call("posenc_linear_attention_backward_mh_f32", B, H, n, F, dv, _ptr(q), _ptr(sq), _ptr(k), _ptr(sk), _ptr(vv),
          _ptr(sv), _linear_flags(causal, unnormalized), float(eps), _ptr(g), _ptr(sg), _ptr(gq), _ptr(s1), _ptr(gk),
          _ptr(s2), _ptr(gv), _ptr(s3))
    return gq, gk, gv


__all__ = ['RfSampling', 'RfKind', 'RfShift', 'rf_sample', 'rf_features', 'linear_attention', 'softmax_attention',
           'rf_features_backward', 'linear_attention_backward',
           'softmax_attention_backward', 'linear_attention_step', 'linear_attention_mh',
           'linear_attention_backward_mh', 'rf_features_bf16', 'linear_attention_bf16']
