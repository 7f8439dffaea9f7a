# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_sinusoidal_f32 posenc_rope_inv_freq posenc_rope_cos_sin_f32 posenc_rope_apply_f32 posenc_rope_apply_bf16 posenc_rope_apply_cached_f32 posenc_rope_decay_f64 posenc_legendre_f64 posenc_legendre_f32 posenc_legendre_poly_f64 posenc_sph_kernel_f64 posenc_sph_harm_real_f64 posenc_sph_harm_real_f32 posenc_sph_harm_real_grad_f64 posenc_sph_harm_real_lonlat_f64 posenc_sph_harm_complex_f64 posenc_wigner_d_real_f64 posenc_sph_rotate_real_f64 posenc_rf_sample_f32 posenc_rf_features_f32 posenc_linear_attention_f32 posenc_softmax_attention_f32 posenc_rf_features_backward_f32 posenc_linear_attention_backward_f32 posenc_softmax_attention_backward_f32 posenc_linear_attention_mh_f32 posenc_linear_attention_backward_mh_f32 posenc_rf_features_bf16 posenc_linear_attention_bf16 posenc_laplacian_pe_f64 posenc_rwse_f64 posenc_learned_add_f32 posenc_learned_grad_f32 posenc_learned_spectrum_f32 posenc_learned_lowrank_f32 posenc_learned_resample_f32
"""out= on every allocating function (filled in place, bitwise the allocating result, checked like
an input) and leading batch dimensions on the functions whose C ABI treats rows independently
(one C call; bitwise the flat call)."""
import inspect

import numpy as np
import pytest

import posenc

rng = np.random.default_rng(11)
P = posenc.rope_params(posenc.RopeType.DEFAULT, 16, 1e4)
XYZ = rng.standard_normal((6, 3))
XYZ /= np.linalg.norm(XYZ, axis=1, keepdims=True)
OMEGA = posenc.rf_sample(posenc.RfSampling.ORTHOGONAL, 4, 8, seed=1)
X4 = rng.standard_normal((6, 4)).astype(np.float32)
SRC, DST = np.array([0, 1, 2, 3, 4, 5], np.int64), np.array([1, 2, 3, 4, 5, 0], np.int64)
TABLE = rng.standard_normal((12, 8)).astype(np.float32)
V = rng.standard_normal((6, 3)).astype(np.float32)
ROT = np.linalg.qr(rng.standard_normal((3, 3)))[0]
COEF = rng.standard_normal((4, 16))

# name -> a call taking out=; each returns an array or a tuple whose arrays are the outputs.
CASES = {
    "sinusoidal": lambda out=None: posenc.sinusoidal(n=5, dim=8, out=out),
    "rope_inv_freq": lambda out=None: posenc.rope_inv_freq(P, out=out)[0],
    "rope_cos_sin": lambda out=None: posenc.rope_cos_sin(P, n=5, out=out),
    "rope_decay": lambda out=None: posenc.rope_decay(posenc.rope_inv_freq(P)[0], 7, out=out),
    "rope_decay_bound": lambda out=None: posenc.rope_decay(posenc.rope_inv_freq(P)[0], 7, bound=True, out=out),
    "legendre": lambda out=None: posenc.legendre(posenc.LegendreNorm.SPHARM, 4, XYZ[:, 2].copy(), out=out),
    "legendre_f32": lambda out=None: posenc.legendre(posenc.LegendreNorm.FULL, 4, XYZ[:, 2].astype(np.float32),
                                                     out=out),
    "legendre_poly": lambda out=None: posenc.legendre_poly(5, XYZ[:, 0].copy(), out=out),
    "sph_kernel": lambda out=None: posenc.sph_kernel(5, XYZ[:, 1].copy(), out=out),
    "sph_harm_real": lambda out=None: posenc.sph_harm_real(3, XYZ, out=out),
    "sph_harm_real_f32": lambda out=None: posenc.sph_harm_real(3, XYZ.astype(np.float32), out=out),
    "sph_harm_real_grad": lambda out=None: posenc.sph_harm_real_grad(3, XYZ, hessian=True, out=out),
    "sph_harm_real_lonlat": lambda out=None: posenc.sph_harm_real_lonlat(3, np.array([[2.35, 48.86], [0, -90.0]]),
                                                                         out=out),
    "sph_harm_complex": lambda out=None: posenc.sph_harm_complex(3, np.arccos(XYZ[:, 2]), XYZ[:, 0].copy(), out=out),
    "wigner_d_real": lambda out=None: posenc.wigner_d_real(2, ROT, out=out)[0].base,
    "sph_rotate_real": lambda out=None: posenc.sph_rotate_real(3, ROT, COEF, out=out),
    "rf_sample": lambda out=None: posenc.rf_sample(posenc.RfSampling.IID, 4, 8, seed=3, out=out),
    "rf_features": lambda out=None: posenc.rf_features(posenc.RfKind.TRIG, OMEGA, X4, out=out),
    "linear_attention": lambda out=None: posenc.linear_attention(np.abs(X4), np.abs(X4), V, out=out),
    "softmax_attention": lambda out=None: posenc.softmax_attention(X4, X4, V, out=out),
    "rf_features_backward": lambda out=None: posenc.rf_features_backward(
        posenc.RfKind.TRIG, OMEGA, X4, np.ones((6, 16), np.float32), grad_omega=True, out=out),
    "linear_attention_backward": lambda out=None: posenc.linear_attention_backward(
        np.abs(X4), np.abs(X4), V, np.ones((6, 3), np.float32), out=out),
    "softmax_attention_backward": lambda out=None: posenc.softmax_attention_backward(
        X4, X4, V, np.ones((6, 3), np.float32), out=out),
    "linear_attention_mh": lambda out=None: posenc.linear_attention_mh(
        np.abs(X4).reshape(1, 2, 3, 4), np.abs(X4).reshape(1, 2, 3, 4), V.reshape(1, 2, 3, 3), out=out),
    "linear_attention_backward_mh": lambda out=None: posenc.linear_attention_backward_mh(
        np.abs(X4).reshape(1, 2, 3, 4), np.abs(X4).reshape(1, 2, 3, 4), V.reshape(1, 2, 3, 3),
        np.ones((1, 2, 3, 3), np.float32), out=out),
    "rf_features_bf16": lambda out=None: posenc.rf_features_bf16(
        posenc.RfKind.TRIG, OMEGA, (X4.view(np.uint32) >> 16).astype(np.uint16), out=out),
    "linear_attention_bf16": lambda out=None: posenc.linear_attention_bf16(
        *((np.abs(a).view(np.uint32) >> 16).astype(np.uint16) for a in (X4, X4, V)), out=out),
    "laplacian_pe": lambda out=None: posenc.laplacian_pe(6, SRC, DST, 2, out=out),
    "rwse": lambda out=None: posenc.rwse(6, SRC, DST, 3, out=out),
    "learned_spectrum": lambda out=None: posenc.learned_spectrum(TABLE, out=out)[0],
    "learned_lowrank": lambda out=None: posenc.learned_lowrank(TABLE, 3, out=out),
    "learned_resample": lambda out=None: posenc.learned_resample(TABLE, (3, 4), (2, 2), out=out),
}
# out= is the tuple of these outputs (a single array otherwise).
TUPLE = {"rope_cos_sin", "rope_decay_bound", "laplacian_pe", "learned_lowrank", "sph_harm_real_grad",
         "rf_features_backward", "linear_attention_backward", "softmax_attention_backward",
         "linear_attention_backward_mh"}


def _arrays(r):
    return list(r) if isinstance(r, tuple) else [r]


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_is_filled_and_returned(name):
    ref = _arrays(CASES[name]())
    bufs = []
    for a in ref:
        b = np.empty_like(a)
        b.view(np.uint8)[...] = 0xA5  # poison: every byte must be overwritten
        bufs.append(b)
    got = _arrays(CASES[name](out=tuple(bufs) if name in TUPLE else bufs[0]))
    for g, b, a in zip(got, bufs, ref):
        assert g is b
        assert np.array_equal(g, a, equal_nan=True), name


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_is_checked_before_the_call(name):
    ref = _arrays(CASES[name]())
    wrong_shape = [np.zeros(a.shape + (1,), a.dtype) for a in ref]
    wrong_dtype = [np.zeros(a.shape, np.float16) for a in ref]
    for bad, msg in ((wrong_shape, "must have shape"), (wrong_dtype, "must have dtype")):
        with pytest.raises(posenc.ArgumentError, match=msg):
            CASES[name](out=tuple(bad) if name in TUPLE else bad[0])
        assert all(not b.any() for b in bad)  # untouched
    if name in TUPLE:
        with pytest.raises(posenc.ArgumentError, match="tuple"):
            CASES[name](out=np.empty_like(ref[0]))


def test_out_must_not_overlap_an_input():
    x = XYZ[:, 2].copy()
    buf = np.zeros(x.size * 15)
    with pytest.raises(posenc.ArgumentError, match="overlap x"):
        posenc.legendre(posenc.LegendreNorm.SPHARM, 4, buf[:x.size], out=buf.reshape(x.size, 15))
    c = np.empty((5, 8), np.float32)
    with pytest.raises(posenc.ArgumentError, match="overlap out"):
        posenc.rope_cos_sin(P, n=5, out=(c, c))


def test_sph_rotate_real_in_place():
    ref = posenc.sph_rotate_real(3, ROT, COEF)
    c = COEF.reshape(2, 2, 16).copy()
    assert posenc.sph_rotate_real(3, ROT, c, out=c) is c
    assert np.array_equal(c.reshape(4, 16), ref)
    with pytest.raises(posenc.ArgumentError, match="may be coeffs itself"):
        buf = np.concatenate([COEF.ravel(), np.zeros(16)])
        posenc.sph_rotate_real(3, ROT, buf[:64].reshape(4, 16), out=buf[16:].reshape(4, 16))


def test_every_allocating_function_takes_out():
    """A family function either takes out= or works in place (documented so, or listed here)."""
    in_place = {"rope_apply", "rope_apply_bf16", "rope_apply_cached", "learned_add", "learned_grad"}
    no_arrays = {"rope_params"}
    missing = []
    for mod in (posenc.rope, posenc.sphere, posenc.features, posenc.graph, posenc.learned):
        for name in mod.__all__:
            fn = getattr(mod, name)
            if not inspect.isfunction(fn) or name in in_place | no_arrays or "in place" in (fn.__doc__ or ""):
                continue
            if "out" not in inspect.signature(fn).parameters:
                missing.append(f"{mod.__name__}.{name}")
    assert not missing, f"allocating functions without out=: {missing}"


# ----------------------------------------------------------------------------- batch dimensions

# name -> (call on the batched input, call on the flat input), and the batch shape.
B = (2, 3)


def test_batch_sphere():
    L = 3
    for dt in (np.float64, np.float32):
        xyz = XYZ.astype(dt)
        flat = posenc.sph_harm_real(L, xyz)
        got = posenc.sph_harm_real(L, xyz.reshape(B + (3,)))
        assert got.shape == B + (16,) and np.array_equal(got.reshape(6, 16), flat)
        assert np.array_equal(posenc.sph_harm_real(L, xyz[4]), flat[4])  # one point: no batch dimension
        z = np.ascontiguousarray(xyz[:, 2])
        assert np.array_equal(posenc.legendre(posenc.LegendreNorm.FULL, L, z.reshape(B)).reshape(6, -1),
                              posenc.legendre(posenc.LegendreNorm.FULL, L, z))
    z = XYZ[:, 2].copy()
    assert np.array_equal(posenc.legendre_poly(L, z.reshape(B)).reshape(6, -1), posenc.legendre_poly(L, z))
    assert np.array_equal(posenc.sph_kernel(L, z.reshape(B)).reshape(6), posenc.sph_kernel(L, z))
    ll = np.stack([rng.uniform(-180, 180, 6), rng.uniform(-90, 90, 6)], 1)
    assert np.array_equal(posenc.sph_harm_real_lonlat(L, ll.reshape(B + (2,))).reshape(6, -1),
                          posenc.sph_harm_real_lonlat(L, ll))
    assert np.array_equal(posenc.sph_rotate_real(L, ROT, COEF.reshape(2, 2, 16)).reshape(4, 16),
                          posenc.sph_rotate_real(L, ROT, COEF))
    theta, phi = rng.uniform(0, np.pi, 3), rng.uniform(-np.pi, np.pi, 2)
    got = posenc.sph_harm_complex(L, theta[None, :], phi[:, None])  # broadcast to [2, 3]
    tt, pp = np.broadcast_arrays(theta[None, :], phi[:, None])
    assert got.shape == (2, 3, 16)
    assert np.array_equal(got.reshape(6, 16), posenc.sph_harm_complex(L, tt.ravel().copy(), pp.ravel().copy()))
    with pytest.raises(posenc.ArgumentError, match="do not broadcast"):
        posenc.sph_harm_complex(L, theta, phi)


def test_batch_rope_tables():
    pos = rng.integers(0, 1 << 20, 6).astype(np.int64)
    flat = posenc.sinusoidal(positions=pos, dim=8)
    assert np.array_equal(posenc.sinusoidal(positions=pos.reshape(B), dim=8), flat.reshape(B + (8,)))
    c, s = posenc.rope_cos_sin(P, pos.reshape(B))
    c0, s0 = posenc.rope_cos_sin(P, pos)
    assert c.shape == B + (8,) and np.array_equal(c.reshape(6, 8), c0) and np.array_equal(s.reshape(6, 8), s0)


@pytest.mark.parametrize("fn", ["f32", "bf16", "cached"])
def test_batch_rope_apply_broadcasts_positions(fn):
    """q [batch, tokens, heads, dim] with positions [tokens]: one call equals a call per batch row."""
    T, H, D = 4, 2, 16
    q = rng.standard_normal((3, T, H, D)).astype(np.float32)
    k = rng.standard_normal((3, T, 1, D)).astype(np.float32)
    pos = np.array([5, 0, 7, 100], np.int64)
    if fn == "bf16":
        q, k = (a.view(np.uint32)[..., None].view(np.uint16)[..., 1].copy() for a in (q, k))
    ct, st = posenc.rope_cos_sin(P, n=128)

    def apply(q, k, positions):
        if fn == "f32":
            return posenc.rope_apply(P, q, k, positions)
        if fn == "bf16":
            return posenc.rope_apply_bf16(P, q, k, positions)
        return posenc.rope_apply_cached(ct, st, q, k, positions)

    rows = [(q[b].copy(), k[b].copy()) for b in range(3)]
    for qb, kb in rows:
        apply(qb, kb, pos)
    qa, ka = q.copy(), k.copy()
    assert apply(qa, ka, pos)[0] is qa
    for b in range(3):
        assert np.array_equal(qa[b], rows[b][0]) and np.array_equal(ka[b], rows[b][1])
    # positions None = 0..T-1 in every batch row
    qn, q0 = q.copy(), q[1].copy()
    apply(qn, None, None)
    apply(q0, None, np.arange(T, dtype=np.int64))
    assert np.array_equal(qn[1], q0)
    with pytest.raises(posenc.ArgumentError, match="does not broadcast"):
        apply(q.copy(), None, np.arange(T + 1, dtype=np.int64))
    with pytest.raises(posenc.ArgumentError, match="like q"):
        apply(q.copy(), k[:2].copy(), pos)


def test_batch_features_and_learned():
    xb = X4.reshape(B + (4,))
    for kind in posenc.RfKind:
        flat = posenc.rf_features(kind, OMEGA, X4)
        assert np.array_equal(posenc.rf_features(kind, OMEGA, xb).reshape(6, -1), flat)
    pos = np.array([3, 0, 11], np.int64)
    x = rng.standard_normal((2, 3, 8)).astype(np.float32)
    want = x + TABLE[pos][None]
    got = x.copy()
    assert posenc.learned_add(TABLE, pos, got) is got
    assert np.array_equal(got, want)
    g = np.zeros_like(TABLE)
    posenc.learned_grad(x, pos, g)
    g0 = np.zeros_like(TABLE)
    posenc.learned_grad(x.reshape(6, 8), np.tile(pos, 2), g0)
    assert np.array_equal(g, g0) and np.abs(g[pos] - x.sum(0)).max() < 1e-6
