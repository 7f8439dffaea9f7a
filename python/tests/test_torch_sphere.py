# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_sph_harm_real_grad_f64 posenc_sph_harm_real_grad_f32 posenc_sph_harm_real_f64 posenc_sph_harm_real_f32 posenc_sph_harm_real_ex_f64
# needs-modules: torch
"""posenc.torch.sph_harm_real autograd and SphericalHarmonics.

References: torch.autograd.gradcheck / gradgradcheck in float64 (first derivatives from
posenc_sph_harm_real_grad_f64, second from its Hessians, against finite differences of posenc's
own values); torch autograd of an independent float64 formula (sh_ports.legendre_sh, the
associated-Legendre recurrence) for values, gradients and double backward in float64 and
float32; e3nn's polynomials (sh_ports.e3nn_sh, ported) for convention='e3nn'. Tolerances: float64
1e-12 (values / gradients of unit-size outputs at lmax <= 8), float32 2e-6 * (1 + |ref|)
(the float64 result rounded once, plus the float32 input rounding of the reference)."""
import math

import numpy as np
import pytest
import torch

import posenc
import posenc.torch as pt
from sh_ports import e3nn_module_sh, e3nn_sh, legendre_sh

torch.manual_seed(24)


def points(n, dtype=torch.float64, seed=0):
    """n random points, lengths uniform in [0.5, 1.5] (the same points whatever ran before)."""
    g = torch.Generator().manual_seed(seed)
    u = torch.nn.functional.normalize(torch.randn(n, 3, generator=g, dtype=torch.float64), dim=-1)
    return (u * (0.5 + torch.rand(n, 1, generator=g, dtype=torch.float64))).to(dtype)


@pytest.mark.parametrize("solid", [False, True])
def test_gradcheck_gradgradcheck_f64(solid):
    x = points(6).requires_grad_()
    f = lambda t: pt.sph_harm_real(t, 4, solid=solid)
    assert torch.autograd.gradcheck(f, (x,), eps=1e-6, atol=1e-8, rtol=1e-6)
    assert torch.autograd.gradgradcheck(f, (x,), eps=1e-6, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_against_autograd_of_float64_formula(dtype):
    L = 8
    x64 = points(200)
    x = x64.to(dtype).requires_grad_()
    y = pt.sph_harm_real(x, L)
    xr = x.detach().double().requires_grad_()
    yr = legendre_sh(L, xr)
    tol = 1e-12 if dtype == torch.float64 else 2e-6
    assert y.dtype == dtype and y.shape == (200, (L + 1) ** 2)
    assert ((y.double() - yr).abs() / (1 + yr.abs())).max() < tol
    w = torch.randn(200, (L + 1) ** 2, dtype=torch.float64)
    (g,) = torch.autograd.grad(y, x, w.to(dtype), create_graph=True)
    (gr,) = torch.autograd.grad(yr, xr, w, create_graph=True)
    scale = 1 + gr.abs().max()
    assert ((g.double() - gr).abs().max() / scale) < (1e-12 if dtype == torch.float64 else 2e-6)
    # double backward: d/dx of (g . u) for a fixed u, i.e. Hessian-vector products
    u = torch.randn(200, 3, dtype=torch.float64)
    (h,) = torch.autograd.grad((g * u.to(dtype)).sum(), x)
    (hr,) = torch.autograd.grad((gr * u).sum(), xr)
    assert ((h.double() - hr).abs().max() / (1 + hr.abs().max())) < (1e-11 if dtype == torch.float64 else 3e-6)


def test_second_order_through_weights_and_no_third():
    """The backward is differentiable w.r.t. grad_out too (a force-matching loss: d/dw of
    |d(w.Y)/dx|^2), and a third derivative raises (posenc has no third derivatives)."""
    x = points(5).requires_grad_()
    w = torch.randn(5, 9, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad((pt.sph_harm_real(x, 2) * w).sum(), x, create_graph=True)
    (gw,) = torch.autograd.grad((g * g).sum(), w)
    xr = x.detach().clone().requires_grad_()
    (gr,) = torch.autograd.grad((legendre_sh(2, xr) * w).sum(), xr, create_graph=True)
    (gwr,) = torch.autograd.grad((gr * gr).sum(), w)
    assert (gw - gwr).abs().max() < 1e-11 * (1 + gwr.abs().max())
    (g,) = torch.autograd.grad(pt.sph_harm_real(x, 2).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(h.sum(), x)


def test_module_sphericart_convention():
    x = points(64)
    sh = pt.SphericalHarmonics(5)
    y = sh(x)
    assert y.shape == (64, 36) and torch.equal(y, pt.sph_harm_real(x, 5))
    v, dv = sh.compute_with_gradients(x)
    v2, dv2, ddv = sh.compute_with_hessians(x)
    assert dv.shape == (64, 3, 36) and ddv.shape == (64, 3, 3, 36)
    assert torch.equal(dv, dv2) and torch.equal(v, v2)
    # gradients equal the autograd Jacobian of forward (sphericart's dsh[i, a, k] = dY_k / dx_a)
    xr = x.clone().requires_grad_()
    J = torch.autograd.functional.jacobian(lambda t: sh(t).sum(0), xr)  # [K, n, 3]
    assert (J.permute(1, 2, 0) - dv).abs().max() < 1e-13
    # solid harmonics (normalized=False): |x|^l Y_lm
    ys = pt.SphericalHarmonics(5, normalized=False)(x)
    l = torch.repeat_interleave(torch.arange(6), 2 * torch.arange(6) + 1)
    assert ((ys - y * x.norm(dim=-1, keepdim=True) ** l) .abs().max()) < 1e-12 * ys.abs().max()
    with pytest.raises(posenc.Error, match="xyz"):
        sh(torch.zeros(2, 3, dtype=torch.float64))
    with pytest.raises(posenc.ArgumentError, match="normalization applies to convention='e3nn'"):
        pt.SphericalHarmonics(2, normalization="component")
    with pytest.raises(posenc.ArgumentError, match="xyz must have dtype float64, float32"):
        sh(torch.zeros(2, 3, dtype=torch.float16))
    with pytest.raises(posenc.ArgumentError, match=r"xyz must have shape \(\.\.\., 3\)"):
        sh(torch.zeros(2, 4, dtype=torch.float64))


@pytest.mark.parametrize("normalization", ["integral", "component", "norm"])
@pytest.mark.parametrize("normalized", [True, False])
def test_module_e3nn_convention(normalization, normalized):
    x = points(50).requires_grad_()
    sh = pt.SphericalHarmonics(3, normalized=normalized, convention="e3nn", normalization=normalization)
    y = sh(x)
    l = torch.repeat_interleave(torch.arange(4), 2 * torch.arange(4) + 1).double()
    div = {"integral": math.sqrt(4 * math.pi) * torch.ones(16, dtype=torch.float64),
           "component": torch.ones(16, dtype=torch.float64), "norm": torch.sqrt(2 * l + 1)}[normalization]

    def ref_fn(t):
        if normalized:
            return e3nn_module_sh(3, t) * math.sqrt(4 * math.pi) / div  # component / div
        return e3nn_sh(3, t[:, 0], t[:, 1], t[:, 2]) / div  # e3nn normalize=False: the polynomials at t
    ref = ref_fn(x)
    assert (y - ref).abs().max() < 1e-12 * (1 + ref.abs().max())
    w = torch.randn_like(ref)
    (g,) = torch.autograd.grad(y, x, w)
    (gr,) = torch.autograd.grad(ref, x, w)
    assert (g - gr).abs().max() < 1e-12 * (1 + gr.abs().max())
    # e3nn maps the zero vector to Y_00 (and 0); the derivatives there are finite (posenc.h:
    # 0 on the sphere, the polynomials' own with normalized=False)
    x0 = torch.zeros(1, 3, dtype=torch.float64, requires_grad=True)
    z = sh(x0)
    assert z[0, 0] != 0 and torch.all(z[0, 1:] == 0)
    (g0,) = torch.autograd.grad(z.sum(), x0)
    assert torch.isfinite(g0).all()
    if normalized:
        assert torch.all(g0 == 0)
    else:  # degree 1 of sum(Y): d/dx of the linear terms
        x1 = torch.zeros(1, 3, dtype=torch.float64, requires_grad=True)
        (g1,) = torch.autograd.grad(ref_fn(x1).sum(), x1)
        assert (g0 - g1).abs().max() < 1e-12


def test_threads_bitwise_and_batch_shapes():
    x = points(3000).reshape(30, 100, 3).requires_grad_()
    w = torch.randn(30, 100, 49, dtype=torch.float64)
    res = []
    old = posenc.threads_get()
    try:
        for t in (1, 2):
            posenc.threads_set(t)
            y = pt.sph_harm_real(x, 6)
            (g,) = torch.autograd.grad(y, x, w, create_graph=True)
            (h,) = torch.autograd.grad(g.sum(), x)
            res.append((y.detach(), g.detach(), h))
    finally:
        posenc.threads_set(old)
    for a, b in zip(*res):
        assert torch.equal(a, b)
    assert res[0][0].shape == (30, 100, 49)
    # a non-contiguous input is read through one copy; same values
    xt = points(200).t().contiguous().t()
    assert not xt.is_contiguous()
    assert torch.equal(pt.sph_harm_real(xt, 3), pt.sph_harm_real(xt.contiguous(), 3))
    # no grad: no autograd node, same values as the NumPy binding
    with torch.no_grad():
        y = pt.sph_harm_real(x, 6)
    assert y.grad_fn is None
    assert np.array_equal(y.numpy(), posenc.sph_harm_real(6, x.detach().numpy()))


def test_benchmark_references_agree():
    """The torch references of bench/torch_sphere.py compute posenc's functions (the ratios
    compare equal work): e3nn's polynomials at the permuted point, the generic recurrence."""
    from sh_ports import poly_sh
    x = points(300)
    y = pt.sph_harm_real(x, 10)
    assert (poly_sh(10, x) - y).abs().max() < 1e-12
    assert (e3nn_module_sh(3, x[:, [1, 2, 0]]) - y[:, :16]).abs().max() < 1e-13


def test_small_calls_layouts_and_checks():
    """The per-call path of small calls: [n, 3] without reshapes, [..., 3] batches, a
    non-contiguous input, with and without autograd give the same bits; the backward of a call
    that fits one derivative chunk (no slicing) gives the bits of the chunked one (rows of a
    3000-point call, two chunks at lmax 6); other devices (meta, standing in for CUDA) and
    dtypes are refused with the argument named."""
    x = points(3000)
    w = torch.randn(3000, 49, dtype=torch.float64)
    xg = x.clone().requires_grad_()
    (g_big,) = torch.autograd.grad(pt.sph_harm_real(xg, 6), xg, w)
    xs = x[:10].clone().requires_grad_()
    y = pt.sph_harm_real(xs, 6)
    (g_small,) = torch.autograd.grad(y, xs, w[:10])
    assert torch.equal(g_small, g_big[:10])
    with torch.no_grad():
        assert torch.equal(pt.sph_harm_real(xs, 6), y.detach())
    assert torch.equal(pt.sph_harm_real(x[:10].reshape(2, 5, 3), 6), y.detach().reshape(2, 5, 49))
    xt = x[:10].t().contiguous().t()
    assert not xt.is_contiguous() and torch.equal(pt.sph_harm_real(xt, 6), y.detach())
    with pytest.raises(posenc.ArgumentError, match="xyz is on device meta"):
        pt.sph_harm_real(torch.empty(4, 3, device="meta"), 3)
    with pytest.raises(posenc.ArgumentError, match="xyz must have dtype float64, float32"):
        pt.sph_harm_real(x[:4].half(), 3)
    with pytest.raises(posenc.ArgumentError, match=r"xyz must have shape \(..., 3\)"):
        pt.sph_harm_real(x[:4, :2], 3)
