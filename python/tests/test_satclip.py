# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_sph_harm_real_lonlat_f64
# needs-modules: sympy
"""posenc's lon/lat real SH against SatCLIP's location encoder (Russwurm et al., ICLR 2024).

SatCLIP evaluates its harmonics at phi' = radians(lon + 180), theta' = radians(lat + 90), for
l = 0 .. L-1 (its "L = 10" is lmax 9), m = -l..l in posenc's order. Its two implementations:
  closed-form  sqrt(2) N_l|m| P_l^|m|(cos theta') {cos m phi' | sin |m| phi'}, P with the
               Condon-Shortley phase (N_l0 P_l for m = 0)             = (-1)^(l+m) posenc
  analytic     (its default) the expressions sympy generates from
               (-1)^m sqrt(2) N_l|m| assoc_legendre(l, |m|, cos theta') {cos | sin}, and
               sqrt((2l+1)/4*pi) P_l for m = 0                        = (-1)^l posenc (m != 0),
                                                                        pi (-1)^l posenc (m = 0)
The formulas are written out here independently (SciPy lpmv, sympy assoc_legendre) for L <= 4
and compared with posenc.sph_harm_real_lonlat and its convention="satclip" option.
"""
import math

import numpy as np
import pytest
import scipy.special as sp

import posenc

rng = np.random.default_rng(28)
LON = np.concatenate([rng.uniform(-180, 180, 40), [-180.0, 0.0, 90.0, 179.5, 12.3]])
LAT = np.concatenate([rng.uniform(-90, 90, 40), [0.0, 90.0, -90.0, 45.0, -33.3]])
LONLAT = np.stack([LON, LAT], axis=1)


def norm(l, m):
    return math.sqrt((2 * l + 1) / (4 * math.pi) * math.factorial(l - m) / math.factorial(l + m))


def satclip_closed_form(L, lon, lat):
    """SatCLIP's closed-form encoder for l < L: SciPy's lpmv carries the Condon-Shortley phase."""
    phi, theta = np.radians(lon + 180.0), np.radians(lat + 90.0)
    x = np.cos(theta)
    cols = []
    for l in range(L):
        for m in range(-l, l + 1):
            a = abs(m)
            p = norm(l, a) * sp.lpmv(a, l, x)
            if m == 0:
                cols.append(p)
            elif m > 0:
                cols.append(math.sqrt(2) * np.cos(m * phi) * p)
            else:
                cols.append(math.sqrt(2) * np.sin(a * phi) * p)
    return np.stack(cols, axis=-1)


def satclip_analytic(L, lon, lat):
    """SatCLIP's default 'analytic' encoder: the sympy expressions of its generator, for l < L."""
    import sympy
    th, ph = sympy.Symbol("theta"), sympy.Symbol("phi")
    phi, theta = np.radians(lon + 180.0), np.radians(lat + 90.0)
    cols = []
    for l in range(L):
        for m in range(-l, l + 1):
            a = abs(m)
            if m == 0:
                expr = sympy.sqrt((2 * l + 1) / 4 * sympy.pi) * sympy.assoc_legendre(l, 0, sympy.cos(th))
            else:
                nbar = sympy.sqrt(((2 * l + 1) / (4 * sympy.pi)) * (sympy.factorial(l - a) / sympy.factorial(l + a)))
                trig = sympy.cos(m * ph) if m > 0 else sympy.sin(a * ph)
                expr = (-1) ** m * sympy.sqrt(2) * nbar * sympy.assoc_legendre(l, a, sympy.cos(th)) * trig
            f = sympy.lambdify((th, ph), expr.evalf(), "numpy")
            cols.append(np.broadcast_to(np.asarray(f(theta, phi), dtype=np.float64), lon.shape))
    return np.stack(cols, axis=-1)


def signs(L, rule):
    out = []
    for l in range(L):
        for m in range(-l, l + 1):
            out.append(rule(l, m))
    return np.array(out)


@pytest.mark.parametrize("L", [1, 2, 3, 4])
def test_closed_form_is_sign_l_plus_m_times_posenc(L):
    ref = satclip_closed_form(L, LON, LAT)
    ours = posenc.sph_harm_real_lonlat(L - 1, LONLAT)  # SatCLIP's L is lmax + 1
    assert ours.shape == ref.shape
    np.testing.assert_allclose(signs(L, lambda l, m: (-1) ** (l + m)) * ours, ref, rtol=0, atol=1e-13)
    # The option gives SatCLIP's convention directly.
    np.testing.assert_allclose(posenc.sph_harm_real_lonlat(L - 1, LONLAT, convention="satclip"), ref, rtol=0, atol=1e-13)
    # Without the sign the two differ (the mapping is not the identity for L > 1).
    if L > 1:
        assert np.max(np.abs(ours - ref)) > 0.1


@pytest.mark.parametrize("L", [1, 2, 3, 4])
def test_analytic_is_sign_l_times_posenc_and_pi_at_m0(L):
    ref = satclip_analytic(L, LON, LAT)
    ours = posenc.sph_harm_real_lonlat(L - 1, LONLAT)
    scale = signs(L, lambda l, m: (-1) ** l * (math.pi if m == 0 else 1.0))
    np.testing.assert_allclose(scale * ours, ref, rtol=0, atol=1e-12)


def test_convention_option_is_checked_and_fills_out():
    out = np.full((LONLAT.shape[0], 16), np.nan)
    r = posenc.sph_harm_real_lonlat(3, LONLAT, convention="satclip", out=out)
    assert r is out
    np.testing.assert_allclose(out, satclip_closed_form(4, LON, LAT), rtol=0, atol=1e-13)
    with pytest.raises(posenc.ArgumentError, match="convention"):
        posenc.sph_harm_real_lonlat(3, LONLAT, convention="SatCLIP-ish")
