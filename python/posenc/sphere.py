# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.sphere — Legendre functions, spherical harmonics and Wigner-D on the sphere S^2 (posenc.h, sphere section)."""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ._lib import _P, _c_i32, _c_i64, _call, _in, _ptr
from . import _lib


class LegendreNorm(enum.IntEnum):
    NONE = 0
    SCHMIDT = 1
    SPHARM = 2
    FULL = 3


_lib.register({
    "posenc_legendre_f64": (ctypes.c_int, [ctypes.c_int, _c_i32, _c_i32, _P, _c_i64, _P]),
    "posenc_legendre_f32": (ctypes.c_int, [ctypes.c_int, _c_i32, _c_i32, _P, _c_i64, _P]),
    "posenc_legendre_poly_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_kernel_f64": (ctypes.c_int, [_c_i32, _P, _P, _c_i64, _P]),
    "posenc_sph_harm_real_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_harm_real_f32": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_harm_real_lonlat_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_harm_complex_f64": (ctypes.c_int, [_c_i32, _P, _P, _c_i64, _P]),
    "posenc_wigner_d_real_f64": (ctypes.c_int, [_c_i32, _P, _P]),
    "posenc_sph_rotate_real_f64": (ctypes.c_int, [_c_i32, _P, _P, _c_i64, _P]),
})


def legendre(norm, lmax, x, csphase=1, convert=False):
    """posenc_legendre_f64 / _f32 (by x's dtype) -> [n, (lmax+1)(lmax+2)/2], index l(l+1)/2 + m."""
    if convert and not (isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64)):
        x = np.asarray(x, np.float64)
    dt = x.dtype if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64) else np.float64
    x = _in(x, dt, "x", convert=convert, ndim=1)
    L = int(lmax)
    out = np.empty((x.shape[0], max((L + 1) * (L + 2) // 2, 0)), dt)
    name = "posenc_legendre_f32" if dt == np.float32 else "posenc_legendre_f64"
    _call(name, int(norm), L, int(csphase), _ptr(x), x.shape[0], _ptr(out))
    return out


def legendre_poly(lmax, x, convert=False):
    """posenc_legendre_poly_f64 -> float64 [n, lmax+1] = P_l(x)."""
    x = _in(x, np.float64, "x", convert=convert, ndim=1)
    out = np.empty((x.shape[0], max(int(lmax) + 1, 0)), np.float64)
    _call("posenc_legendre_poly_f64", int(lmax), _ptr(x), x.shape[0], _ptr(out))
    return out


def sph_kernel(lmax, cos_gamma, weights=None, convert=False):
    """posenc_sph_kernel_f64 -> float64 [n] = sum_l w_l (2l+1)/(4 pi) P_l(cos_gamma)."""
    cos_gamma = _in(cos_gamma, np.float64, "cos_gamma", convert=convert, ndim=1)
    if weights is not None:
        weights = _in(weights, np.float64, "weights", (int(lmax) + 1,), convert)
    out = np.empty(cos_gamma.shape[0], np.float64)
    _call("posenc_sph_kernel_f64", int(lmax), _ptr(weights), _ptr(cos_gamma), cos_gamma.shape[0], _ptr(out))
    return out


def sph_harm_real(lmax, xyz, convert=False):
    """posenc_sph_harm_real_f64 / _f32 (by xyz's dtype): xyz [n, 3] -> [n, (lmax+1)^2], index l(l+1)+m."""
    dt = xyz.dtype if isinstance(xyz, np.ndarray) and xyz.dtype in (np.float32, np.float64) else np.float64
    xyz = _in(xyz, dt, "xyz", (None, 3), convert)
    L = int(lmax)
    out = np.empty((xyz.shape[0], max((L + 1) ** 2, 0)), dt)
    name = "posenc_sph_harm_real_f32" if dt == np.float32 else "posenc_sph_harm_real_f64"
    _call(name, L, _ptr(xyz), xyz.shape[0], _ptr(out))
    return out


def sph_harm_real_lonlat(lmax, lonlat, convert=False):
    """posenc_sph_harm_real_lonlat_f64: lonlat [n, 2] degrees -> float64 [n, (lmax+1)^2]."""
    lonlat = _in(lonlat, np.float64, "lonlat", (None, 2), convert)
    L = int(lmax)
    out = np.empty((lonlat.shape[0], max((L + 1) ** 2, 0)), np.float64)
    _call("posenc_sph_harm_real_lonlat_f64", L, _ptr(lonlat), lonlat.shape[0], _ptr(out))
    return out


def sph_harm_complex(lmax, theta, phi, convert=False):
    """posenc_sph_harm_complex_f64: polar theta [n], azimuth phi [n] (radians) -> complex128
    [n, (lmax+1)^2], index l(l+1)+m, Condon-Shortley phase (SciPy's sph_harm)."""
    theta = _in(theta, np.float64, "theta", convert=convert, ndim=1)
    phi = _in(phi, np.float64, "phi", theta.shape, convert)
    L = int(lmax)
    out = np.empty((theta.shape[0], max((L + 1) ** 2, 0), 2), np.float64)
    _call("posenc_sph_harm_complex_f64", L, _ptr(theta), _ptr(phi), theta.shape[0], _ptr(out))
    return out.view(np.complex128)[..., 0]


def wigner_d_real(lmax, rotation, convert=False):
    """posenc_wigner_d_real_f64: rotation [3, 3] -> list of the blocks D^0..D^lmax ((2l+1)x(2l+1))."""
    rotation = _in(rotation, np.float64, "rotation", (3, 3), convert)
    L = int(lmax)
    total = sum((2 * l + 1) ** 2 for l in range(L + 1))
    flat = np.empty(total, np.float64)
    _call("posenc_wigner_d_real_f64", L, _ptr(rotation), _ptr(flat))
    blocks, o = [], 0
    for l in range(L + 1):
        s = 2 * l + 1
        blocks.append(flat[o:o + s * s].reshape(s, s))
        o += s * s
    return blocks


def sph_rotate_real(lmax, rotation, coeffs, convert=False):
    """posenc_sph_rotate_real_f64: coeffs [n, (lmax+1)^2] -> D(R) coeffs_i per row."""
    L = int(lmax)
    rotation = _in(rotation, np.float64, "rotation", (3, 3), convert)
    coeffs = _in(coeffs, np.float64, "coeffs", (None, (L + 1) ** 2), convert)
    out = np.empty_like(coeffs)
    _call("posenc_sph_rotate_real_f64", L, _ptr(rotation), _ptr(coeffs), coeffs.shape[0], _ptr(out))
    return out


__all__ = ['LegendreNorm', 'legendre', 'legendre_poly', 'sph_kernel', 'sph_harm_real', 'sph_harm_real_lonlat', 'sph_harm_complex', 'wigner_d_real', 'sph_rotate_real']
