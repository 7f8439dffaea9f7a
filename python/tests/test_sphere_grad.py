# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_sph_harm_real_grad_f64 posenc_sph_harm_real_grad_f32 posenc_sph_harm_real_ex_f64 posenc_sph_harm_real_ex_f32 posenc_sph_harm_real_f64
# needs-modules: torch
"""sph_harm_real_grad / sph_harm_real(flags) against torch autograd of a float64 formula (SciPy's
complex SH turned real, written in torch) and central finite differences of posenc's values."""
import numpy as np
import pytest

import posenc

import torch
rng = np.random.default_rng(8)


def torch_real_sh(L, x, solid=False):
    """Real orthonormal SH (posenc.h real form) of one point x (torch float64 [3]) as a list in
    index order l(l+1)+m, by the normalized Legendre recurrence in cos theta and
    cos / sin (m atan2(y, x))."""
    r = torch.sqrt((x * x).sum())
    ct, st = x[2] / r, torch.sqrt(x[0] ** 2 + x[1] ** 2) / r
    phi = torch.atan2(x[1], x[0])
    pm = [torch.tensor(1.0 / np.sqrt(4 * np.pi), dtype=torch.float64)]
    for m in range(1, L + 1):
        pm.append(pm[-1] * np.sqrt((2 * m + 1) / (2 * m)) * st)
    out = [None] * ((L + 1) ** 2)
    p1, p2 = [None] * (L + 1), [None] * (L + 1)
    for l in range(L + 1):
        for m in range(l + 1):
            if m == l:
                v = pm[m]
            elif m == l - 1:
                v = np.sqrt(2 * m + 3) * ct * pm[m]
            else:
                a = np.sqrt((4 * l * l - 1) / ((l - m) * (l + m)))
                b = np.sqrt(((l - 1) ** 2 - m * m) / (4 * (l - 1) ** 2 - 1))
                v = a * (ct * p1[m] - b * p2[m])
            p2[m], p1[m] = p1[m], v
            s = r ** l if solid else 1.0
            c = l * (l + 1)
            if m == 0:
                out[c] = v * s
            else:
                out[c + m] = np.sqrt(2) * v * torch.cos(m * phi) * s
                out[c - m] = np.sqrt(2) * v * torch.sin(m * phi) * s
    return torch.stack(out)


@pytest.mark.parametrize("solid", [False, True])
def test_grad_and_hessian_match_torch_autograd(solid):
    L = 4
    pts = rng.normal(size=(3, 3)) * rng.uniform(0.3, 3.0, size=(3, 1))
    pts = np.vstack([pts, [[1e-3, -2e-3, 0.999627]]])  # (atan2 has no autograd on the axis itself)
    v, g, h = posenc.sph_harm_real_grad(L, pts, hessian=True, solid=solid)
    K = (L + 1) ** 2
    assert v.shape == (len(pts), K) and g.shape == (len(pts), 3, K) and h.shape == (len(pts), 3, 3, K)
    for i, p in enumerate(pts):
        x = torch.tensor(p, dtype=torch.float64)
        f = lambda t: torch_real_sh(L, t, solid)
        jac = torch.autograd.functional.jacobian(f, x).numpy()  # [K, 3]
        scale = np.abs(jac).max()
        np.testing.assert_allclose(v[i], f(x).detach().numpy(), atol=1e-13 * max(1.0, np.abs(v[i]).max()))
        np.testing.assert_allclose(g[i], jac.T, atol=1e-12 * scale)
        for k in range(K):
            hk = torch.autograd.functional.hessian(lambda t: torch_real_sh(L, t, solid)[k], x).numpy()
            np.testing.assert_allclose(h[i, :, :, k], hk, atol=1e-11 * max(scale, 1.0) * L / np.sqrt(p @ p))


def test_gradient_by_finite_differences_and_orthogonal_to_x():
    L = 10
    pts = rng.normal(size=(20, 3))
    v, g, _ = posenc.sph_harm_real_grad(L, pts)
    h = 1e-5
    for a in range(3):
        e = np.zeros(3)
        e[a] = h
        fd = (posenc.sph_harm_real(L, pts + e) - posenc.sph_harm_real(L, pts - e)) / (2 * h)
        np.testing.assert_allclose(g[:, a, :], fd, atol=1e-7 * np.abs(fd).max())
    dot = np.einsum("na,nak->nk", pts, g)
    assert np.abs(dot).max() <= 1e-12 * np.abs(g).max()
    np.testing.assert_allclose(v, posenc.sph_harm_real(L, pts), atol=2e-12)


def test_flags_float32_zero_vector_and_errors():
    L = 3
    pts = np.array([[0.3, -0.2, 0.5], [0.0, 0.0, 0.0]])
    v = posenc.sph_harm_real(L, pts, zero_as_zero=True)
    assert v[1, 0] == pytest.approx(1 / np.sqrt(4 * np.pi)) and not v[1, 1:].any()
    s = posenc.sph_harm_real(L, pts[:1], solid=True)
    r = np.sqrt(pts[0] @ pts[0])
    deg = np.floor(np.sqrt(np.arange((L + 1) ** 2)))
    np.testing.assert_allclose(s[0], posenc.sph_harm_real(L, pts[:1])[0] * r ** deg, rtol=1e-13)
    assert np.array_equal(posenc.sph_harm_real(L, pts[:1], flags=posenc.SPH_SOLID), s)
    v32, g32, h32 = posenc.sph_harm_real_grad(L, pts[:1].astype(np.float32), hessian=True)
    v64, g64, h64 = posenc.sph_harm_real_grad(L, pts[:1].astype(np.float32).astype(np.float64), hessian=True)
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, g64, rtol=1e-6, atol=1e-6 * np.abs(g64).max())
    with pytest.raises(posenc.Error, match=r"xyz\[1\]"):
        posenc.sph_harm_real_grad(L, pts)
    with pytest.raises(posenc.Error, match="flags"):
        posenc.sph_harm_real_grad(L, pts, flags=4)
