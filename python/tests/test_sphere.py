# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_legendre_f64 posenc_legendre_f32 posenc_legendre_poly_f64 posenc_sph_kernel_f64 posenc_sph_harm_real_f64 posenc_sph_harm_real_f32 posenc_sph_harm_real_lonlat_f64 posenc_sph_harm_complex_f64 posenc_wigner_d_real_f64 posenc_sph_rotate_real_f64
"""sphere family against SciPy (sph_harm / sph_harm_y, lpmv, eval_legendre) on the same inputs."""
import numpy as np
import pytest
import scipy.special as sp

import posenc

rng = np.random.default_rng(3)


def scipy_Y(l, m, theta, phi):
    """Complex SH with Condon-Shortley phase; SciPy >= 1.15 has sph_harm_y(l, m, polar, azimuth),
    older versions sph_harm(m, l, azimuth, polar)."""
    if hasattr(sp, "sph_harm_y"):
        return sp.sph_harm_y(l, m, theta, phi)
    return sp.sph_harm(m, l, phi, theta)


def directions(n):
    v = rng.standard_normal((n, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_complex_sh_vs_scipy():
    L, n = 12, 50
    theta, phi = rng.uniform(0, np.pi, n), rng.uniform(-np.pi, np.pi, n)
    out = posenc.sph_harm_complex(L, theta, phi)
    assert out.shape == (n, (L + 1) ** 2) and out.dtype == np.complex128
    for l in range(L + 1):
        for m in range(-l, l + 1):
            np.testing.assert_allclose(out[:, l * (l + 1) + m], scipy_Y(l, m, theta, phi), atol=1e-12)


def real_from_scipy(L, xyz):
    theta = np.arccos(np.clip(xyz[:, 2], -1, 1))
    phi = np.arctan2(xyz[:, 1], xyz[:, 0])
    out = np.empty((len(xyz), (L + 1) ** 2))
    for l in range(L + 1):
        for m in range(-l, l + 1):
            Y = scipy_Y(l, abs(m), theta, phi)
            if m > 0:
                v = np.sqrt(2) * (-1) ** m * Y.real
            elif m < 0:
                v = np.sqrt(2) * (-1) ** m * Y.imag
            else:
                v = Y.real
            out[:, l * (l + 1) + m] = v
    return out


def test_real_sh_vs_scipy():
    L = 10
    xyz = directions(40)
    ref = real_from_scipy(L, xyz)
    np.testing.assert_allclose(posenc.sph_harm_real(L, xyz), ref, atol=1e-12)
    np.testing.assert_allclose(posenc.sph_harm_real(L, xyz * 3.7), ref, atol=1e-12)  # any length
    out32 = posenc.sph_harm_real(L, xyz.astype(np.float32))
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, ref, atol=2e-5)


def test_lonlat_matches_xyz():
    L = 8
    lonlat = np.stack([rng.uniform(-180, 180, 30), rng.uniform(-90, 90, 30)], 1)
    lo, la = np.radians(lonlat[:, 0]), np.radians(lonlat[:, 1])
    xyz = np.stack([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)], 1)
    np.testing.assert_allclose(posenc.sph_harm_real_lonlat(L, lonlat), real_from_scipy(L, xyz), atol=1e-12)


@pytest.mark.parametrize("csphase", [1, -1])
def test_legendre_none_vs_lpmv(csphase):
    L = 15
    x = rng.uniform(-1, 1, 25)
    out = posenc.legendre(posenc.LegendreNorm.NONE, L, x, csphase=csphase)
    assert out.shape == (25, (L + 1) * (L + 2) // 2)
    for l in range(L + 1):
        for m in range(l + 1):
            ref = sp.lpmv(m, l, x) * (1 if csphase == -1 else (-1) ** m)  # lpmv includes (-1)^m
            np.testing.assert_allclose(out[:, l * (l + 1) // 2 + m], ref, rtol=1e-10, atol=1e-10 * abs(ref).max())
    out32 = posenc.legendre(posenc.LegendreNorm.NONE, 6, x.astype(np.float32), csphase=csphase)
    assert out32.dtype == np.float32


def test_legendre_poly_and_kernel():
    L = 20
    x = rng.uniform(-1, 1, 30)
    P = posenc.legendre_poly(L, x)
    for l in range(L + 1):
        np.testing.assert_allclose(P[:, l], sp.eval_legendre(l, x), atol=1e-13)
    w = rng.uniform(0, 2, L + 1)
    ref = ((2 * np.arange(L + 1) + 1) / (4 * np.pi) * w * sp.eval_legendre(np.arange(L + 1)[None, :], x[:, None])).sum(1)
    np.testing.assert_allclose(posenc.sph_kernel(L, x, weights=w), ref, atol=1e-12)


def test_addition_theorem():
    L = 10
    a, b = directions(20), directions(20)
    Ya, Yb = posenc.sph_harm_real(L, a), posenc.sph_harm_real(L, b)
    k = posenc.sph_kernel(L, np.clip((a * b).sum(1), -1, 1))
    np.testing.assert_allclose((Ya * Yb).sum(1), k, atol=1e-12)


def test_wigner_and_rotate_equivariance():
    L = 6
    q = rng.standard_normal(4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    D = posenc.wigner_d_real(L, R)
    assert [b.shape for b in D] == [(2 * l + 1, 2 * l + 1) for l in range(L + 1)]
    v = directions(15)
    Y, YR = posenc.sph_harm_real(L, v), posenc.sph_harm_real(L, v @ R.T)
    for l in range(L + 1):
        sl = slice(l * l, (l + 1) ** 2)
        np.testing.assert_allclose(Y[:, sl] @ D[l].T, YR[:, sl], atol=1e-12)
        np.testing.assert_allclose(D[l] @ D[l].T, np.eye(2 * l + 1), atol=1e-12)
    np.testing.assert_allclose(posenc.sph_rotate_real(L, R, Y), YR, atol=1e-12)


def test_sphere_errors():
    with pytest.raises(posenc.Error) as e:
        posenc.legendre_poly(4, np.array([2.0]))
    assert e.value.status == posenc.Status.ERR_INVALID_ARGUMENT
    with pytest.raises(posenc.ArgumentError):
        posenc.sph_harm_real(3, np.zeros((4, 2)))
    with pytest.raises(posenc.Error):
        posenc.wigner_d_real(2, np.diag([1.0, 1.0, -1.0]))  # improper


def test_lonlat_float32_is_the_float64_result_rounded_once():
    rng = np.random.default_rng(21)
    lonlat = np.stack([rng.uniform(-180, 180, 50), rng.uniform(-90, 90, 50)], 1).astype(np.float32)
    got = posenc.sph_harm_real_lonlat(10, lonlat)
    assert got.dtype == np.float32 and got.shape == (50, 121)
    want = posenc.sph_harm_real_lonlat(10, lonlat.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    out = np.full((50, 121), np.nan, np.float32)
    assert posenc.sph_harm_real_lonlat(10, lonlat, out=out) is out
    np.testing.assert_array_equal(out, want)
    with pytest.raises(posenc.ArgumentError):
        posenc.sph_harm_real_lonlat(10, lonlat, out=np.empty((50, 121), np.float64))

