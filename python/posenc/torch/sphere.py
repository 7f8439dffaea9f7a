# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch.sphere — real spherical harmonics of xyz tensors with autograd (first and second
derivatives from posenc_sph_harm_real_grad_*), and the `SphericalHarmonics` module with
sphericart-torch's call convention and e3nn's conventions by option."""
from __future__ import annotations

import math

import torch
from torch.autograd.function import once_differentiable

from .._lib import ArgumentError
from ._common import cfn, check, contiguous_c, tensor

_DT = (torch.float64, torch.float32)
_WHAT = "spherical harmonics take float64 or float32 xyz"
SOLID = 1  # posenc.h POSENC_SPH_SOLID
ZERO_AS_ZERO = 2  # posenc.h POSENC_SPH_ZERO_AS_ZERO


def _values(x, L, flags):
    """values [n, K] (posenc_sph_harm_real_* / _ex_*), x C-contiguous [n, 3]."""
    n = x.shape[0]
    dt = x.dtype
    out = torch.empty((n, (L + 1) ** 2), dtype=dt)
    f64 = dt is torch.float64
    if flags:
        st = cfn("posenc_sph_harm_real_ex_f64" if f64 else "posenc_sph_harm_real_ex_f32")(L, x.data_ptr(), n, flags,
                                                                                          out.data_ptr())
    else:
        st = cfn("posenc_sph_harm_real_f64" if f64 else "posenc_sph_harm_real_f32")(L, x.data_ptr(), n, out.data_ptr())
    if st:
        check(st)
    return out


def _grad(x, L, flags, values=True, hessian=False):
    """(values [n, K] or None, grad [n, 3, K], hess [n, 3, 3, K] or None): one call of
    posenc_sph_harm_real_grad_f64 / _f32."""
    n, K = x.shape[0], (L + 1) ** 2
    v = torch.empty((n, K), dtype=x.dtype) if values else None
    g = torch.empty((n, 3, K), dtype=x.dtype)
    h = torch.empty((n, 3, 3, K), dtype=x.dtype) if hessian else None
    _grad_into(x, L, flags, v, g, h)
    return v, g, h


def _grad_into(x, L, flags, v, g, h):
    name = "posenc_sph_harm_real_grad_f64" if x.dtype == torch.float64 else "posenc_sph_harm_real_grad_f32"
    check(cfn(name)(L, x.data_ptr(), x.shape[0], flags, None if v is None else v.data_ptr(), g.data_ptr(),
                    None if h is None else h.data_ptr()))


_CHUNK_BYTES = 1 << 21  # per-chunk derivative buffer of the backward: stays in L2/L3 while contracted


def _chunks(n, row_bytes):
    c = max(8, _CHUNK_BYTES // max(row_bytes, 1))
    return [(a, min(a + c, n)) for a in range(0, n, c)]


def _grad_xyz(x, grad_out, L, flags):
    """grad_xyz [n, 3] = dY . grad_out (see _SphBackward), without autograd."""
    n, K = grad_out.shape
    gx = torch.empty((n, 3), dtype=x.dtype)
    if n == 0:
        return gx
    chunks = _chunks(n, 3 * K * x.element_size())
    buf = torch.empty((chunks[0][1] - chunks[0][0], 3, K), dtype=x.dtype)
    if len(chunks) == 1:  # small n: the same contraction without the slicing views
        _grad_into(x, L, flags, None, buf, None)
        torch.bmm(buf, grad_out.unsqueeze(-1), out=gx.unsqueeze(-1))
        return gx
    for a, b in chunks:
        g = buf[:b - a]
        _grad_into(x[a:b], L, flags, None, g, None)
        torch.bmm(g, grad_out[a:b].unsqueeze(-1), out=gx[a:b].unsqueeze(-1))
    return gx


class _SphBackward(torch.autograd.Function):
    """grad_xyz[i, a] = sum_k grad_out[i, k] dY[i, a, k], with dY from posenc_sph_harm_real_grad_*
    computed chunk by chunk into one small buffer (no [n, 3, K] tensor is kept or allocated per
    call); differentiable once more through the Hessians, recomputed the same way."""

    @staticmethod
    def forward(ctx, x, grad_out, L, flags):
        ctx.save_for_backward(x, grad_out)
        ctx.args = (L, flags)
        return _grad_xyz(x, grad_out, L, flags)

    @staticmethod
    @once_differentiable
    def backward(ctx, gg):
        x, go = ctx.saved_tensors
        L, flags = ctx.args
        need_x, need_go = ctx.needs_input_grad[:2]
        n, K = go.shape
        gg = contiguous_c(gg)
        gx = torch.empty((n, 3), dtype=x.dtype) if need_x else None
        ggo = torch.empty((n, K), dtype=x.dtype) if need_go else None
        if n == 0:
            return gx, ggo, None, None
        chunks = _chunks(n, (12 if need_x else 3) * K * x.element_size())
        c = chunks[0][1] - chunks[0][0]
        gbuf = torch.empty((c, 3, K), dtype=x.dtype)
        hbuf = torch.empty((c, 3, 3, K), dtype=x.dtype) if need_x else None
        for a, b in chunks:
            m = b - a
            g, h = gbuf[:m], (hbuf[:m] if need_x else None)
            _grad_into(x[a:b], L, flags, None, g, h)
            if need_x:
                # gx[i, b] = sum_a gg[i, a] sum_k H[i, a, b, k] go[i, k]   (H symmetric in a, b)
                Hg = torch.bmm(h.reshape(m, 9, K), go[a:b].unsqueeze(-1)).reshape(m, 3, 3)
                torch.bmm(gg[a:b].unsqueeze(1), Hg, out=gx[a:b].unsqueeze(1))
            if need_go:
                torch.bmm(gg[a:b].unsqueeze(1), g, out=ggo[a:b].unsqueeze(1))
        return gx, ggo, None, None


class _Sph(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, L, flags):
        ctx.save_for_backward(x)
        ctx.args = (L, flags)
        return _values(x, L, flags)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        L, flags = ctx.args
        if not torch.is_grad_enabled():  # no create_graph: the same contraction without a graph node
            return _grad_xyz(x, contiguous_c(grad_out), L, flags), None, None
        return _SphBackward.apply(x, contiguous_c(grad_out), L, flags), None, None


def _check_xyz(xyz, lmax):
    tensor(xyz, "xyz", _DT, _WHAT)
    if xyz.dim() < 1 or xyz.shape[-1] != 3:
        raise ArgumentError(f"xyz must have shape (..., 3) (got {tuple(xyz.shape)})")
    L = int(lmax)
    if L < 0:
        raise ArgumentError(f"lmax must be >= 0 (got {L})")
    return L


def sph_harm_real(xyz, lmax, solid=False, zero_as_zero=False):
    """Real orthonormal spherical harmonics Y_lm(xyz / |xyz|) -> [..., (lmax+1)^2] in xyz's dtype
    (float64 or float32), index l(l+1)+m, m = -l..l (sphericart's order and real form: degree 1
    is sqrt(3/(4 pi)) (y, z, x)/r). solid=True: solid harmonics |xyz|^l Y_lm (sphericart's
    ``normalized=False``); zero_as_zero=True: (0, 0, 0) gives Y_00 and 0 (derivatives 0 there,
    the polynomials' exact ones with solid) instead of posenc.Error.

    Differentiable twice: the forward is posenc_sph_harm_real_* (or _ex_* with flags), the same
    bits with and without grad; only xyz is saved. The backward computes the Cartesian gradient
    dY [n, 3, K] with posenc_sph_harm_real_grad_* chunk by chunk (about 2 MiB of rows at a time,
    one reused buffer, so no [n, 3, K] tensor is stored between forward and backward as
    sphericart-torch does) and contracts it with grad_out: grad_xyz = dY . grad_out. Its own
    backward (double backward, e.g. a force-matching loss) uses the Hessians of
    posenc_sph_harm_real_grad_* (with hess), chunked the same way. Third derivatives are
    not available (torch raises if asked). Accuracy: that of the C functions (float64: values and
    gradients <= 2e-13, Hessians <= 1e-12 of each degree block's rms at lmax 40; float32: the
    float64 results rounded once)."""
    L = _check_xyz(xyz, lmax)
    flags = (SOLID if solid else 0) | (ZERO_AS_ZERO if zero_as_zero else 0)
    flat = xyz.dim() == 2  # [n, 3]: no reshape (view) on either side
    x = contiguous_c(xyz)
    if not flat:
        x = x.reshape(-1, 3)
    # no autograd: only x's data pointer is read (no detach needed: the output is a new tensor)
    y = _Sph.apply(x, L, flags) if torch.is_grad_enabled() and xyz.requires_grad else _values(x, L, flags)
    return y if flat else y.reshape(tuple(xyz.shape[:-1]) + ((L + 1) ** 2,))


def sph_harm_real_grad(xyz, lmax, hessian=False, solid=False, zero_as_zero=False):
    """(values [..., K], grad [..., 3, K], hess [..., 3, 3, K] or None): posenc_sph_harm_real_grad_*
    as tensors (no autograd), sphericart's layouts (grad[..., a, k] = d values[..., k] / d x_a)."""
    L = _check_xyz(xyz, lmax)
    flags = (SOLID if solid else 0) | (ZERO_AS_ZERO if zero_as_zero else 0)
    batch = tuple(xyz.shape[:-1])
    K = (L + 1) ** 2
    v, g, h = _grad(contiguous_c(xyz.detach()).reshape(-1, 3), L, flags, hessian=hessian)
    return v.reshape(batch + (K,)), g.reshape(batch + (3, K)), (h.reshape(batch + (3, 3, K)) if hessian else None)


def e3nn_factors(lmax, normalization="integral", dtype=torch.float64):
    """The per-output factors that turn posenc's Y_lm (at the permuted point, see
    SphericalHarmonics) into e3nn's: 1 ('integral'), sqrt(4 pi) ('component'), sqrt(4 pi / (2l+1))
    ('norm') for every output of degree l; e3nn's signs and component order are posenc's at the
    permuted point (python/tests/test_torch_sphere.py checks l <= 3 against e3nn's polynomials)."""
    if normalization not in ("integral", "component", "norm"):
        raise ArgumentError(f"normalization must be 'integral', 'component' or 'norm' (got {normalization!r})")
    f = []
    for l in range(int(lmax) + 1):
        c = 1.0 if normalization == "integral" else math.sqrt(4 * math.pi) if normalization == "component" \
            else math.sqrt(4 * math.pi / (2 * l + 1))
        f += [c] * (2 * l + 1)
    return torch.tensor(f, dtype=dtype)


class SphericalHarmonics(torch.nn.Module):
    """Real spherical harmonics as a module, a drop-in for sphericart-torch's calculator:

        sh = posenc.torch.SphericalHarmonics(l_max)        # normalized=True: Y_lm(x/|x|)
        y = sh(xyz)                                        # xyz [n, 3] -> [n, (l_max+1)^2]
        y, dy = sh.compute_with_gradients(xyz)             # dy [n, 3, K]
        y, dy, ddy = sh.compute_with_hessians(xyz)         # ddy [n, 3, 3, K]

    ``normalized=False`` gives solid harmonics |x|^l Y_lm (sphericart's SolidHarmonics /
    ``normalized=False``). forward / compute are differentiable twice (see sph_harm_real).
    Output order l(l+1)+m, m = -l..l, real form Y_l,-|m| ~ sin(|m| phi), Y_l,|m| ~ cos(|m| phi),
    without the Condon-Shortley phase: sphericart's.

    e3nn's conventions (``convention="e3nn"``, as e3nn.o3.SphericalHarmonics(range(l_max+1),
    normalize=normalized, normalization=...)): e3nn's degree-1 harmonics are proportional to
    (x, y, z) themselves, i.e. posenc's (y, z, x)-ordered harmonics evaluated at the permuted
    point (x_2, x_0, x_1) — e3nn's docs: "called with the argument in the order y, z, x"; same
    component order and signs then (checked for l <= 3 against e3nn's polynomials);
    normalization 'integral' (e3nn's default) = posenc's orthonormal values, 'component' = times
    sqrt(4 pi) (|Y^l|^2 = 2l+1 on the sphere), 'norm' = times sqrt(4 pi / (2l+1)).
    ``normalized`` maps to e3nn's ``normalize`` (False: the polynomials = solid harmonics).
    e3nn maps the zero vector to Y_00 and 0 (``zero_as_zero`` defaults to True there)."""

    def __init__(self, l_max, normalized=True, convention="sphericart", normalization="integral", zero_as_zero=None):
        super().__init__()
        if convention not in ("sphericart", "e3nn"):
            raise ArgumentError(f"convention must be 'sphericart' or 'e3nn' (got {convention!r})")
        self.l_max = int(l_max)
        if self.l_max < 0:
            raise ArgumentError(f"l_max must be >= 0 (got {self.l_max})")
        self.normalized = bool(normalized)
        self.convention = convention
        self.normalization = normalization
        self.zero_as_zero = (convention == "e3nn") if zero_as_zero is None else bool(zero_as_zero)
        if convention == "e3nn":
            self.register_buffer("factors", e3nn_factors(self.l_max, normalization), persistent=False)
        else:
            if normalization != "integral":
                raise ArgumentError("normalization applies to convention='e3nn' only (sphericart's harmonics are "
                                    "orthonormal, e3nn's 'integral')")
            self.factors = None

    def _point(self, xyz):
        return xyz[..., [2, 0, 1]] if self.convention == "e3nn" else xyz

    def _scale(self, y, dims=0):
        if self.factors is None or self.normalization == "integral":
            return y
        return y * self.factors.to(y.dtype)

    def forward(self, xyz):
        y = sph_harm_real(self._point(xyz), self.l_max, solid=not self.normalized, zero_as_zero=self.zero_as_zero)
        return self._scale(y)

    compute = forward

    def _derivs(self, xyz, hessian):
        if self.convention == "e3nn":
            raise ArgumentError("compute_with_gradients / compute_with_hessians follow sphericart's layout: use "
                                "convention='sphericart' (or torch.autograd with convention='e3nn')")
        return sph_harm_real_grad(xyz, self.l_max, hessian, solid=not self.normalized, zero_as_zero=self.zero_as_zero)

    def compute_with_gradients(self, xyz):
        """(values [n, K], gradients [n, 3, K]) as sphericart-torch (no autograd through these)."""
        v, g, _ = self._derivs(xyz, False)
        return v, g

    def compute_with_hessians(self, xyz):
        """(values [n, K], gradients [n, 3, K], hessians [n, 3, 3, K]) as sphericart-torch."""
        return self._derivs(xyz, True)

    def extra_repr(self):
        return f"l_max={self.l_max}, normalized={self.normalized}, convention={self.convention!r}" + \
            (f", normalization={self.normalization!r}" if self.convention == "e3nn" else "")


__all__ = ["sph_harm_real", "sph_harm_real_grad", "SphericalHarmonics", "e3nn_factors"]
