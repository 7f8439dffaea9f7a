# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.features — random-feature kernel maps (Bochner) and linear / softmax attention (posenc.h, features section)."""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ._lib import _P, _c_d, _c_f, _c_i32, _c_i64, _c_u64, _call, _in, _ptr
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


_lib.register({
    "posenc_rf_sample_f32": (ctypes.c_int, [ctypes.c_int, _c_i32, _c_i32, _c_d, _c_u64, _P]),
    "posenc_rf_features_f32": (ctypes.c_int, [ctypes.c_int, _P, _c_i32, _c_i32, _P, _P, _c_i64, _P]),
    "posenc_linear_attention_f32": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P]),
    "posenc_softmax_attention_f32": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P]),
})


def rf_sample(sampling, d, m, sigma=1.0, seed=0):
    """posenc_rf_sample_f32 -> omega float32 [m, d]."""
    out = np.empty((int(m), int(d)), np.float32)
    _call("posenc_rf_sample_f32", int(sampling), int(d), int(m), float(sigma), int(seed) & (2**64 - 1), _ptr(out))
    return out


def rf_features(kind, omega, x, weights=None, convert=False):
    """posenc_rf_features_f32: x [n, d] -> [n, m] (POSITIVE, GAUSSIAN_POSITIVE) or [n, 2m]."""
    omega = _in(omega, np.float32, "omega", convert=convert, ndim=2)
    m, d = omega.shape
    x = _in(x, np.float32, "x", (None, d), convert)
    if weights is not None:
        weights = _in(weights, np.float32, "weights", (m,), convert)
    F = 2 * m if int(kind) in (RfKind.TRIG, RfKind.HYPERBOLIC) else m
    out = np.empty((x.shape[0], F), np.float32)
    _call("posenc_rf_features_f32", int(kind), _ptr(omega), m, d, _ptr(weights), _ptr(x), x.shape[0], _ptr(out))
    return out


def linear_attention(phi_q, phi_k, v, causal=False, eps=1e-6, convert=False):
    """posenc_linear_attention_f32: phi_q, phi_k [n, F], v [n, dv] -> [n, dv]."""
    phi_q = _in(phi_q, np.float32, "phi_q", convert=convert, ndim=2)
    n, F = phi_q.shape
    phi_k = _in(phi_k, np.float32, "phi_k", (n, F), convert)
    v = _in(v, np.float32, "v", (n, None), convert)
    out = np.empty((n, v.shape[1]), np.float32)
    _call("posenc_linear_attention_f32", _ptr(phi_q), _ptr(phi_k), _ptr(v), n, F, v.shape[1], int(bool(causal)),
          float(eps), _ptr(out))
    return out


def softmax_attention(q, k, v, causal=False, scale=None, convert=False):
    """posenc_softmax_attention_f32: softmax(scale q k^T) v; scale defaults to 1/sqrt(d)."""
    q = _in(q, np.float32, "q", convert=convert, ndim=2)
    n, d = q.shape
    k = _in(k, np.float32, "k", (n, d), convert)
    v = _in(v, np.float32, "v", (n, None), convert)
    if scale is None:
        scale = 1.0 / np.sqrt(d)
    out = np.empty((n, v.shape[1]), np.float32)
    _call("posenc_softmax_attention_f32", _ptr(q), _ptr(k), _ptr(v), n, d, v.shape[1], int(bool(causal)),
          float(scale), _ptr(out))
    return out


__all__ = ['RfSampling', 'RfKind', 'rf_sample', 'rf_features', 'linear_attention', 'softmax_attention']
