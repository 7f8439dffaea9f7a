# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_learned_add_f32 posenc_learned_grad_f32 posenc_learned_spectrum_f32 posenc_learned_lowrank_f32 posenc_learned_resample_f32
# needs-modules: torch
"""learned family against NumPy float64 on the same inputs."""
import numpy as np
import pytest

import posenc

rng = np.random.default_rng(5)


def test_add_and_grad_vs_numpy():
    rows, dim, n = 50, 24, 200
    table = rng.standard_normal((rows, dim)).astype(np.float32)
    pos = rng.integers(0, rows, n).astype(np.int64)
    x = rng.standard_normal((n, dim)).astype(np.float32)
    ref = x + table[pos]
    out = posenc.learned_add(table, pos, x)
    assert out is x and np.array_equal(x, ref)
    g = rng.standard_normal((n, dim)).astype(np.float32)
    gt = np.zeros((rows, dim), np.float32)
    posenc.learned_grad(g, pos, gt)
    want = np.zeros((rows, dim), np.float64)
    np.add.at(want, pos, g.astype(np.float64))
    np.testing.assert_allclose(gt, want, rtol=1e-5, atol=1e-5)
    seq = np.zeros((rows, dim), np.float32)  # documented: equals the sequential float32 loop
    for i in range(n):
        seq[pos[i]] += g[i]
    assert np.array_equal(gt, seq)


def test_spectrum_and_lowrank_vs_numpy():
    t = rng.standard_normal((40, 16)).astype(np.float32)
    s, er = posenc.learned_spectrum(t)
    ref = np.linalg.svd(t.astype(np.float64), compute_uv=False)
    np.testing.assert_allclose(s, ref, rtol=1e-12)
    p = ref / ref.sum()
    assert abs(er - np.exp(-(p * np.log(p)).sum())) < 1e-12
    left, right = posenc.learned_lowrank(t, 5)
    U, S, Vt = np.linalg.svd(t.astype(np.float64), full_matrices=False)
    best = (U[:, :5] * S[:5]) @ Vt[:5]
    np.testing.assert_allclose(left.astype(np.float64) @ right, best, atol=1e-5)


def test_resample_linear_1d_vs_numpy():
    old, new, dim = 10, 17, 3
    t = rng.standard_normal((old, dim)).astype(np.float32)
    out = posenc.learned_resample(t, old, new, mode=posenc.Resample.LINEAR)
    scale = old / new
    src = np.maximum(scale * (np.arange(new) + 0.5) - 0.5, 0)
    i0 = np.floor(src).astype(int)
    i1 = np.minimum(i0 + 1, old - 1)
    w = src - i0
    ref = t[i0] * (1 - w)[:, None] + t[i1] * w[:, None]
    np.testing.assert_allclose(out, ref, atol=1e-6)
    same = posenc.learned_resample(t, old, old, mode=posenc.Resample.BICUBIC_AA)
    assert np.array_equal(same, t)


def test_resample_2d_prefix_copied():
    t = rng.standard_normal((1 + 4 * 4, 8)).astype(np.float32)
    out = posenc.learned_resample(t, (4, 4), (6, 6), prefix=1)
    assert out.shape == (37, 8) and np.array_equal(out[0], t[0])


def test_learned_errors():
    t = np.zeros((4, 2), np.float32)
    x = np.zeros((1, 2), np.float32)
    with pytest.raises(posenc.Error) as e:
        posenc.learned_add(t, np.array([4], np.int64), x)
    assert e.value.status == posenc.Status.ERR_INVALID_ARGUMENT and "position" in e.value.message
    assert np.all(x == 0)
    with pytest.raises(posenc.ArgumentError):
        posenc.learned_add(t, np.array([0], np.int64), np.zeros((1, 2)))  # float64 in place


@pytest.mark.parametrize("old,new", [(4096, 1000), (1024, 1536), (8192, 32768), (2048, 512)])
@pytest.mark.parametrize("mode", ["BICUBIC_AA", "BICUBIC", "LINEAR"])
def test_resample_1d_within_1e7_of_torch_float64(old, new, mode):
    """The header's figure: posenc's float32 resampling is within 1.1e-7 * max|table| of torch's
    F.interpolate evaluated in float64 on long 1-D tables, where torch's own float32 result is
    off by up to 2.9e-4 * max|table| (its float32 source coordinates)."""
    import torch
    import torch.nn.functional as F

    t = np.random.default_rng(old + new).standard_normal((old, 16)).astype(np.float32)
    out = posenc.learned_resample(t, old, new, mode=getattr(posenc.Resample, mode))
    x = torch.from_numpy(t.T.copy())[None, :, None, :].double()  # [1, C, 1, W]
    kw = dict(size=(1, new), mode="bilinear" if mode == "LINEAR" else "bicubic", align_corners=False)
    if mode == "BICUBIC_AA":
        kw["antialias"] = True
    ref = F.interpolate(x, **kw)[0, :, 0, :].T.numpy()
    err = np.abs(out.astype(np.float64) - ref).max() / np.abs(t).max()
    assert err <= 2e-7, err
