# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.sphere — Legendre functions, spherical harmonics and Wigner-D on the sphere S^2 (include/posenc/sphere.h)."""
from __future__ import annotations

import ctypes
import enum

import numpy as np

from ._lib import ArgumentError, _P, _broadcast, _c_i32, _c_i64, _call, _in, _out, _outs, _ptr, _rows
from . import _lib


SPH_SOLID = 1  # posenc.h POSENC_SPH_SOLID: solid harmonics |x|^l Y_lm
SPH_ZERO_AS_ZERO = 2  # posenc.h POSENC_SPH_ZERO_AS_ZERO: a zero vector gives Y_00 and 0


def _sph_flags(solid, zero_as_zero, flags):
    f = int(flags) | (SPH_SOLID if solid else 0) | (SPH_ZERO_AS_ZERO if zero_as_zero else 0)
    return f


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
    "posenc_sph_harm_real_ex_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, ctypes.c_uint32, _P]),
    "posenc_sph_harm_real_ex_f32": (ctypes.c_int, [_c_i32, _P, _c_i64, ctypes.c_uint32, _P]),
    "posenc_sph_harm_real_grad_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, ctypes.c_uint32, _P, _P, _P]),
    "posenc_sph_harm_real_grad_f32": (ctypes.c_int, [_c_i32, _P, _c_i64, ctypes.c_uint32, _P, _P, _P]),
    "posenc_sph_harm_real_lonlat_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_harm_complex_f64": (ctypes.c_int, [_c_i32, _P, _P, _c_i64, _P]),
    "posenc_wigner_d_real_f64": (ctypes.c_int, [_c_i32, _P, _P]),
    "posenc_sph_rotate_real_f64": (ctypes.c_int, [_c_i32, _P, _P, _c_i64, _P]),
})


def legendre(norm, lmax, x, csphase=1, convert=False, out=None):
    """posenc_legendre_f64 / _f32 (by x's dtype): x of any shape -> [*x.shape, (lmax+1)(lmax+2)/2],
    index l(l+1)/2 + m. out: None or the array to fill."""
    if convert and not (isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64)):
        x = np.asarray(x, np.float64)
    dt = x.dtype if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64) else np.float64
    x, batch = _rows(x, dt, "x", convert=convert)
    L = int(lmax)
    out = _out(out, batch + ((L + 1) * (L + 2) // 2,), dt, inputs={"x": x})
    name = "posenc_legendre_f32" if dt == np.float32 else "posenc_legendre_f64"
    _call(name, int(norm), L, int(csphase), _ptr(x), x.shape[0], _ptr(out))
    return out


def legendre_poly(lmax, x, convert=False, out=None):
    """posenc_legendre_poly_f64: x float64 of any shape -> [*x.shape, lmax+1] = P_l(x). out: None or
    the array to fill."""
    x, batch = _rows(x, np.float64, "x", convert=convert)
    out = _out(out, batch + (int(lmax) + 1,), np.float64, inputs={"x": x})
    _call("posenc_legendre_poly_f64", int(lmax), _ptr(x), x.shape[0], _ptr(out))
    return out


def sph_kernel(lmax, cos_gamma, weights=None, convert=False, out=None):
    """posenc_sph_kernel_f64: cos_gamma float64 of any shape -> same shape, sum_l w_l (2l+1)/(4 pi)
    P_l(cos_gamma). out: None or the array to fill."""
    cos_gamma, batch = _rows(cos_gamma, np.float64, "cos_gamma", convert=convert)
    if weights is not None:
        weights = _in(weights, np.float64, "weights", (int(lmax) + 1,), convert)
    out = _out(out, batch, np.float64, inputs={"cos_gamma": cos_gamma, "weights": weights})
    _call("posenc_sph_kernel_f64", int(lmax), _ptr(weights), _ptr(cos_gamma), cos_gamma.shape[0], _ptr(out))
    return out


def sph_harm_real(lmax, xyz, convert=False, out=None, solid=False, zero_as_zero=False, flags=0):
    """posenc_sph_harm_real_f64 / _f32 (by xyz's dtype): xyz [..., 3] -> [..., (lmax+1)^2], index
    l(l+1)+m. solid / zero_as_zero / flags (SPH_SOLID | SPH_ZERO_AS_ZERO): posenc_sph_harm_real_ex_*
    (solid harmonics |x|^l Y_lm; a zero vector gives Y_00 and 0). out: None or the array to fill."""
    dt = xyz.dtype if isinstance(xyz, np.ndarray) and xyz.dtype in (np.float32, np.float64) else np.float64
    xyz, batch = _rows(xyz, dt, "xyz", (3,), convert)
    L = int(lmax)
    out = _out(out, batch + ((L + 1) ** 2,), dt, inputs={"xyz": xyz})
    f = _sph_flags(solid, zero_as_zero, flags)
    if f:
        name = "posenc_sph_harm_real_ex_f32" if dt == np.float32 else "posenc_sph_harm_real_ex_f64"
        _call(name, L, _ptr(xyz), xyz.shape[0], f, _ptr(out))
        return out
    name = "posenc_sph_harm_real_f32" if dt == np.float32 else "posenc_sph_harm_real_f64"
    _call(name, L, _ptr(xyz), xyz.shape[0], _ptr(out))
    return out


def sph_harm_real_grad(lmax, xyz, hessian=False, solid=False, zero_as_zero=False, flags=0, convert=False, out=None):
    """posenc_sph_harm_real_grad_f64 / _f32 (by xyz's dtype): xyz [..., 3] -> (values [..., K],
    grad [..., 3, K], hess [..., 3, 3, K] or None without hessian=True), K = (lmax+1)^2, index
    l(l+1)+m; grad[..., a, k] = d values[..., k] / d x_a (sphericart's layout). Unit-sphere
    harmonics include the chain rule through x/|x|; solid=True: |x|^l Y_lm and its derivatives;
    zero_as_zero=True: a zero vector gives Y_00 and 0 instead of an error. out: None or a tuple
    (values, grad, hess) of arrays to fill (each may be None; hess only with hessian=True)."""
    dt = xyz.dtype if isinstance(xyz, np.ndarray) and xyz.dtype in (np.float32, np.float64) else np.float64
    xyz, batch = _rows(xyz, dt, "xyz", (3,), convert)
    K = (int(lmax) + 1) ** 2
    ov, og, oh = _outs(out, 3)
    if oh is not None and not hessian:
        raise ArgumentError("out[2] (hess) given without hessian=True")
    values = _out(ov, batch + (K,), dt, "out[0]", inputs={"xyz": xyz})
    grad = _out(og, batch + (3, K), dt, "out[1]", inputs={"xyz": xyz, "out[0]": values})
    hess = _out(oh, batch + (3, 3, K), dt, "out[2]", inputs={"xyz": xyz, "out[0]": values, "out[1]": grad}) \
        if hessian else None
    name = "posenc_sph_harm_real_grad_f32" if dt == np.float32 else "posenc_sph_harm_real_grad_f64"
    _call(name, int(lmax), _ptr(xyz), xyz.shape[0], _sph_flags(solid, zero_as_zero, flags), _ptr(values), _ptr(grad),
          _ptr(hess))
    return values, grad, hess


def sph_harm_real_lonlat(lmax, lonlat, convert=False, out=None, convention="posenc"):
    """posenc_sph_harm_real_lonlat_f64: lonlat [..., 2] degrees -> float64 [..., (lmax+1)^2], index
    l(l+1)+m. out: None or the array to fill. A float32 lonlat array (what datasets of
    coordinates usually hold) is widened exactly, evaluated in float64 and returned as float32
    (one rounding of the float64 values); out is then float32 too.

    SatCLIP (Russwurm et al., ICLR 2024): its encoder with ``legendre_polys=L`` is lmax = L - 1
    (SatCLIP's "L = 10" is lmax 9), same order of (l, m). It evaluates at phi' = lon + 180 deg,
    theta' = lat + 90 deg; its ``closed-form`` harmonics equal (-1)^(l+m) times posenc's, which
    ``convention="satclip"`` returns; its default ``analytic`` harmonics equal (-1)^l times
    posenc's for m != 0 and pi (-1)^l times posenc's for m = 0 (sqrt((2l+1)/4*pi) in its
    generator). Tested for L <= 4 in python/tests/test_satclip.py."""
    if convention not in ("posenc", "satclip"):
        raise ArgumentError(f"convention must be 'posenc' or 'satclip' (got {convention!r})")
    f32 = isinstance(lonlat, np.ndarray) and lonlat.dtype == np.float32
    if f32:
        lonlat = lonlat.astype(np.float64)  # exact
    lonlat, batch = _rows(lonlat, np.float64, "lonlat", (2,), convert)
    L = int(lmax)
    shape = batch + ((L + 1) ** 2,)
    if f32:
        user = _out(out, shape, np.float32, inputs={"lonlat": lonlat})
        out = np.empty(tuple(max(s, 0) for s in shape), np.float64)
    else:
        out = _out(out, shape, np.float64, inputs={"lonlat": lonlat})
    _call("posenc_sph_harm_real_lonlat_f64", L, _ptr(lonlat), lonlat.shape[0], _ptr(out))
    if convention == "satclip" and L > 0:
        l = np.repeat(np.arange(L + 1), 2 * np.arange(L + 1) + 1)
        m = np.arange((L + 1) ** 2) - l * (l + 1)
        out[..., (l + m) % 2 == 1] *= -1.0
    if f32:
        user[...] = out
        return user
    return out


def sph_harm_complex(lmax, theta, phi, convert=False, out=None):
    """posenc_sph_harm_complex_f64: polar theta, azimuth phi (radians, float64, shapes that
    broadcast together) -> complex128 [*batch, (lmax+1)^2], index l(l+1)+m, Condon-Shortley phase
    (SciPy's sph_harm). out: None or the complex128 array to fill."""
    theta = _in(theta, np.float64, "theta", convert=convert)
    phi = _in(phi, np.float64, "phi", convert=convert)
    try:
        batch = np.broadcast_shapes(theta.shape, phi.shape)
    except ValueError:
        raise ArgumentError(f"theta {theta.shape} and phi {phi.shape} do not broadcast together") from None
    theta, phi = _broadcast(theta, batch, "theta"), _broadcast(phi, batch, "phi")
    L = int(lmax)
    out = _out(out, batch + ((L + 1) ** 2,), np.complex128, inputs={"theta": theta, "phi": phi})
    _call("posenc_sph_harm_complex_f64", L, _ptr(theta), _ptr(phi), theta.shape[0], _ptr(out))
    return out


def wigner_d_real(lmax, rotation, convert=False, out=None):
    """posenc_wigner_d_real_f64: rotation [3, 3] -> list of the blocks D^0..D^lmax ((2l+1)x(2l+1)),
    views of one float64 array [sum_l (2l+1)^2]; out: None or that array to fill."""
    rotation = _in(rotation, np.float64, "rotation", (3, 3), convert)
    L = int(lmax)
    total = sum((2 * l + 1) ** 2 for l in range(L + 1))
    flat = _out(out, (total,), np.float64, inputs={"rotation": rotation})
    _call("posenc_wigner_d_real_f64", L, _ptr(rotation), _ptr(flat))
    blocks, o = [], 0
    for l in range(L + 1):
        s = 2 * l + 1
        blocks.append(flat[o:o + s * s].reshape(s, s))
        o += s * s
    return blocks


def sph_rotate_real(lmax, rotation, coeffs, convert=False, out=None):
    """posenc_sph_rotate_real_f64: coeffs [..., (lmax+1)^2] -> D(R) coeffs per row. out: None or
    the array to fill (coeffs itself rotates in place)."""
    L = int(lmax)
    rotation = _in(rotation, np.float64, "rotation", (3, 3), convert)
    coeffs, batch = _rows(coeffs, np.float64, "coeffs", ((L + 1) ** 2,), convert)
    out = _out(out, batch + ((L + 1) ** 2,), np.float64, inputs={"rotation": rotation, "coeffs": coeffs},
               alias="coeffs")
    _call("posenc_sph_rotate_real_f64", L, _ptr(rotation), _ptr(coeffs), coeffs.shape[0], _ptr(out))
    return out


__all__ = ['SPH_SOLID', 'SPH_ZERO_AS_ZERO', 'LegendreNorm', 'legendre', 'legendre_poly', 'sph_kernel', 'sph_harm_real', 'sph_harm_real_grad', 'sph_harm_real_lonlat', 'sph_harm_complex', 'wigner_d_real', 'sph_rotate_real']
