# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Torch references for the spherical-harmonics tests and benchmarks (not posenc):

- `e3nn_sh(lmax, x, y, z)`: e3nn's "component"-normalized polynomial spherical harmonics for
  lmax <= 3 (e3nn.o3.spherical_harmonics, e3nn 0.5), expanded into monomials; e3nn itself is not
  installable here (no Debian package).
- `legendre_sh(lmax, xyz)`: real orthonormal SH by the textbook associated-Legendre recurrence in
  cos theta and cos / sin (m phi), phi = atan2(y, x) (Wikipedia "Spherical harmonics, real form",
  no Condon-Shortley phase), any lmax, torch ops only so that torch autograd differentiates it.
"""
import math

import torch


def e3nn_sh(lmax, x, y, z):
    """e3nn's component-normalized harmonics of degree <= 3 at (x, y, z) (not normalized: the
    polynomials), written out as monomials from e3nn.o3.spherical_harmonics' definition; order
    and signs as e3nn's output."""
    assert 0 <= lmax <= 3
    r3, r5, r15 = math.sqrt(3), math.sqrt(5), math.sqrt(15)
    x2, y2, z2 = x * x, y * y, z * z
    blocks = [[torch.ones_like(x)],
              [r3 * x, r3 * y, r3 * z],
              [r15 * x * z, r15 * x * y, r5 * (y2 - 0.5 * (x2 + z2)), r15 * y * z, 0.5 * r15 * (z2 - x2)]]
    a, b, c = math.sqrt(630) / 12, math.sqrt(105), math.sqrt(168) / 8
    blocks.append([a * x * (3 * z2 - x2), b * x * y * z, c * x * (4 * y2 - x2 - z2),
                   0.5 * math.sqrt(7) * y * (2 * y2 - 3 * (x2 + z2)), c * z * (4 * y2 - x2 - z2),
                   0.5 * b * y * (z2 - x2), a * z * (z2 - 3 * x2)])
    return torch.stack([t for blk in blocks[:lmax + 1] for t in blk], dim=-1)


def e3nn_module_sh(lmax, xyz):
    """e3nn.o3.spherical_harmonics(range(lmax+1), xyz, normalize=True, normalization='integral')
    for lmax <= 3: normalize, polynomials, divide by sqrt(4 pi)."""
    u = torch.nn.functional.normalize(xyz, dim=-1)
    return e3nn_sh(lmax, u[..., 0], u[..., 1], u[..., 2]) / math.sqrt(4 * math.pi)


def legendre_sh(lmax, xyz):
    """Real orthonormal SH [..., (lmax+1)^2] of xyz [..., 3] (any nonzero length), index l(l+1)+m."""
    x, y, z = xyz[..., 0], xyz[..., 1], xyz[..., 2]
    r = torch.sqrt(x * x + y * y + z * z)
    ct = z / r
    st = torch.sqrt(x * x + y * y) / r
    phi = torch.atan2(y, x)
    P = {}  # unnormalized P_l^m(ct), no Condon-Shortley phase
    for m in range(lmax + 1):
        pmm = torch.ones_like(ct)
        for i in range(1, m + 1):
            pmm = pmm * (2 * i - 1) * st
        P[(m, m)] = pmm
        if m + 1 <= lmax:
            P[(m + 1, m)] = (2 * m + 1) * ct * pmm
        for l in range(m + 2, lmax + 1):
            P[(l, m)] = ((2 * l - 1) * ct * P[(l - 1, m)] - (l + m - 1) * P[(l - 2, m)]) / (l - m)
    out = []
    for l in range(lmax + 1):
        for m in range(-l, l + 1):
            a = abs(m)
            N = math.sqrt((2 * l + 1) / (4 * math.pi) * math.factorial(l - a) / math.factorial(l + a))
            if m == 0:
                out.append(N * P[(l, 0)])
            elif m > 0:
                out.append(math.sqrt(2) * N * P[(l, a)] * torch.cos(a * phi))
            else:
                out.append(math.sqrt(2) * N * P[(l, a)] * torch.sin(a * phi))
    return torch.stack(out, dim=-1)


def poly_sh(lmax, xyz):
    """Real orthonormal SH by a generic polynomial recurrence in torch (sphericart's scheme, the
    e3nn-style way to go past e3nn's generated degrees): u = xyz / |xyz|, (x + iy)^m for the
    azimuth, Q_m^m = (2m-1)!!, Q_{m+1}^m = (2m+1) z Q_m^m,
    Q_l^m = ((2l-1) z Q_{l-1}^m - (l+m-1) Q_{l-2}^m) / (l-m); Y_l0 = N_l0 Q_l^0,
    Y_l,+-m = sqrt(2) N_lm Q_l^m Re / Im (x + iy)^m. Only products and sums: torch autograd
    differentiates it like e3nn's polynomials."""
    u = torch.nn.functional.normalize(xyz, dim=-1)
    x, y, z = u[..., 0], u[..., 1], u[..., 2]
    c = [torch.ones_like(x)]
    s = [torch.zeros_like(x)]
    for m in range(1, lmax + 1):
        cm, sm = c[-1], s[-1]
        c.append(cm * x - sm * y)
        s.append(sm * x + cm * y)
    Q = {}
    for m in range(lmax + 1):
        dfact = 1.0
        for i in range(1, m + 1):
            dfact *= 2 * i - 1
        Q[(m, m)] = torch.full_like(x, dfact)
        if m + 1 <= lmax:
            Q[(m + 1, m)] = (2 * m + 1) * z * Q[(m, m)]
        for l in range(m + 2, lmax + 1):
            Q[(l, m)] = ((2 * l - 1) * z * Q[(l - 1, m)] - (l + m - 1) * Q[(l - 2, m)]) / (l - m)
    out = []
    for l in range(lmax + 1):
        for m in range(-l, l + 1):
            a = abs(m)
            N = math.sqrt((2 * l + 1) / (4 * math.pi) * math.factorial(l - a) / math.factorial(l + a))
            if m == 0:
                out.append(N * Q[(l, 0)])
            elif m > 0:
                out.append(math.sqrt(2) * N * Q[(l, a)] * c[a])
            else:
                out.append(math.sqrt(2) * N * Q[(l, a)] * s[a])
    return torch.stack(out, dim=-1)
