# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_sinusoidal_f32 posenc_rope_cos_sin_f32
"""The binding's array rules (posenc._lib): convert=True never changes a value (it converts
exactly or raises), out= arrays are checked like inputs, batch dimensions are views."""
import numpy as np
import pytest

import posenc
from posenc import _lib


# ----------------------------------------------------------------------------- convert=True


def test_convert_refuses_fractional_positions():
    # The table of positions [0.9, 1.9] is not the table of [0, 1]: converting must raise.
    with pytest.raises(posenc.ArgumentError) as e:
        posenc.sinusoidal(positions=[0.9, 1.9], dim=4, convert=True)
    assert "positions[0] = 0.9" in str(e.value) and "not an integer" in str(e.value)
    p = posenc.rope_params(posenc.RopeType.DEFAULT, 8, 1e4)
    with pytest.raises(posenc.ArgumentError) as e:
        posenc.rope_cos_sin(p, np.array([0.0, 3.7]), convert=True)
    assert "positions[1] = 3.7" in str(e.value)


def test_convert_accepts_exact_values():
    ref = posenc.sinusoidal(n=4, dim=4)
    for pos in ([0, 1, 2, 3], [0.0, 1.0, 2.0, 3.0], np.arange(4, dtype=np.int32), np.arange(4.0, dtype=np.float32),
                np.repeat(np.arange(4), 2)[::2], (0, 1, 2, 3)):
        assert np.array_equal(posenc.sinusoidal(positions=pos, dim=4, convert=True), ref)
    p = posenc.rope_params(posenc.RopeType.DEFAULT, 8, 1e4)
    c, s = posenc.rope_cos_sin(p, [3.0], convert=True)
    c3, s3 = posenc.rope_cos_sin(p, np.array([3]))
    assert np.array_equal(c, c3) and np.array_equal(s, s3)


@pytest.mark.parametrize("value,dtype,message", [
    ([np.nan], np.int64, "not an integer"),
    ([np.inf], np.int64, "not an integer"),
    ([2.0 ** 63], np.int64, "outside the range of int64"),
    ([2 ** 63], np.int64, "outside the range of int64"),          # a Python int: numpy makes it uint64
    (np.array([2 ** 64 - 1], np.uint64), np.int64, "outside the range of int64"),
    ([[1, 2], [3, 4.5]], np.int64, "x[1, 1] = 4.5"),
    (3.5, np.int64, "x = 3.5"),
    ([1e300], np.float32, "overflows float32"),
    ([1 + 2j], np.float64, "complex128 does not convert"),
    (["1"], np.float64, "does not convert"),
    ([[1, 2], [3]], np.float64, "cannot be converted"),
    (np.array([-1], np.int64), np.uint8, "outside the range of uint8"),
])
def test_convert_raises_on_value_change(value, dtype, message):
    with pytest.raises(posenc.ArgumentError) as e:
        _lib._in(value, dtype, "x", convert=True)
    assert message in str(e.value)


@pytest.mark.parametrize("value,dtype,expect", [
    ([-2.0 ** 63, 2.0 ** 53], np.int64, [-2 ** 63, 2 ** 53]),
    ([True, False], np.float64, [1.0, 0.0]),
    (np.array([1, 2 ** 40], np.uint64), np.int64, [1, 2 ** 40]),
    ([0.1, -1e30], np.float32, np.float32([0.1, -1e30])),         # rounding to the nearest float32
    ([np.nan, np.inf], np.float32, [np.nan, np.inf]),             # not finite before: passed on
    ([2 ** 60], np.float64, [2.0 ** 60]),
])
def test_convert_keeps_values(value, dtype, expect):
    a = _lib._in(value, dtype, "x", convert=True)
    assert a.dtype == dtype and a.flags.c_contiguous
    np.testing.assert_array_equal(a, np.asarray(expect, dtype))


def test_convert_passes_a_fitting_array_through():
    a = np.arange(5, dtype=np.int64)
    assert _lib._in(a, np.int64, "x", convert=True) is a


# ----------------------------------------------------------------------------- out=


def test_out_new_and_checked():
    o = _lib._out(None, (2, 3), np.float32)
    assert o.shape == (2, 3) and o.dtype == np.float32
    assert _lib._out(None, (-1, 3), np.float32).shape == (0, 3)   # the C function names the bad size
    good = np.empty((2, 3), np.float32)
    assert _lib._out(good, (2, 3), np.float32) is good
    bad = [([[0.0] * 3] * 2, "numpy.ndarray"), (np.empty((2, 3), np.float64), "dtype float32"),
           (np.empty((3, 2), np.float32), "shape (2, 3)"), (np.empty((2, 6), np.float32)[:, ::2], "C-contiguous")]
    ro = np.empty((2, 3), np.float32)
    ro.flags.writeable = False
    bad.append((ro, "writable"))
    for arr, msg in bad:
        with pytest.raises(posenc.ArgumentError) as e:
            _lib._out(arr, (2, 3), np.float32, "out")
        assert "out" in str(e.value) and msg in str(e.value)


def test_out_overlap():
    buf = np.zeros(12, np.float64)
    x, out = buf[:6], buf[6:]
    assert _lib._out(out, (6,), np.float64, inputs={"x": x}) is out
    with pytest.raises(posenc.ArgumentError, match="must not overlap x"):
        _lib._out(buf[3:9], (6,), np.float64, inputs={"x": x})
    assert _lib._out(x, (6,), np.float64, inputs={"x": x}, alias="x") is x       # exactly x: allowed
    with pytest.raises(posenc.ArgumentError, match="it may be x itself"):
        _lib._out(buf[1:7], (6,), np.float64, inputs={"x": x}, alias="x")


def test_outs():
    assert _lib._outs(None, 2) == (None, None)
    a, b = np.empty(1), np.empty(1)
    assert _lib._outs((a, b), 2) == (a, b)
    for bad in (a, (a,), [a, b, a]):
        with pytest.raises(posenc.ArgumentError, match="tuple of 2 arrays"):
            _lib._outs(bad, 2)


def test_out_sinusoidal_into_preallocated():
    ref = posenc.sinusoidal(n=6, dim=8)
    out = np.full((6, 8), np.nan, np.float32)
    assert posenc.sinusoidal(n=6, dim=8, out=out) is out
    assert np.array_equal(out, ref)
    with pytest.raises(posenc.ArgumentError, match=r"out must have shape \(6, 8\)"):
        posenc.sinusoidal(n=6, dim=8, out=np.empty((6, 4), np.float32))


# ----------------------------------------------------------------------------- batch dimensions


def test_rows_is_a_view_with_batch_shape():
    a = np.zeros((2, 5, 3))
    v, batch = _lib._rows(a, np.float64, "xyz", (3,))
    assert batch == (2, 5) and v.shape == (10, 3) and np.shares_memory(v, a)
    v, batch = _lib._rows(np.zeros(3), np.float64, "xyz", (3,))
    assert batch == () and v.shape == (1, 3)
    v, batch = _lib._rows(np.zeros((4, 7)), np.float64, "x")
    assert batch == (4, 7) and v.shape == (28,)
    with pytest.raises(posenc.ArgumentError, match=r"xyz must have shape \(\.\.\., 3\)"):
        _lib._rows(np.zeros((4, 2)), np.float64, "xyz", (3,))


def test_broadcast():
    p = np.arange(3, dtype=np.int64)
    b = _lib._broadcast(p, (2, 3), "positions")
    assert b.shape == (6,) and np.array_equal(b, [0, 1, 2, 0, 1, 2])
    with pytest.raises(posenc.ArgumentError, match="does not broadcast"):
        _lib._broadcast(p, (2, 4), "positions")
