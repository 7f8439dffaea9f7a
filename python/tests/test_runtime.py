# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_version posenc_sinusoidal_f32
"""Runtime functions, library discovery, argument checks and error reporting of the binding."""
import os
import subprocess
import sys

import numpy as np
import pytest

import posenc


def test_version_and_isa():
    v = posenc.version()
    major, minor, patch = map(int, posenc.version_string().split("."))
    assert v == major * 10000 + minor * 100 + patch
    avail = posenc.isa_available()
    assert posenc.Isa.SCALAR in avail
    assert posenc.isa_active() in avail
    assert posenc.isa_name(posenc.Isa.SCALAR) == "scalar"
    assert posenc.status_string(posenc.Status.ERR_NULL_POINTER) == "POSENC_ERR_NULL_POINTER"


def test_isa_set_roundtrip():
    before = posenc.isa_active()
    try:
        for isa in posenc.isa_available():
            posenc.isa_set(isa)
            assert posenc.isa_active() == isa
        posenc.isa_set("scalar")
        assert posenc.isa_active() == posenc.Isa.SCALAR
    finally:
        posenc.isa_set(before)


def test_isa_set_unavailable_raises():
    missing = [i for i in (posenc.Isa.NEON, posenc.Isa.AVX2, posenc.Isa.AVX512) if i not in posenc.isa_available()]
    if not missing:
        missing = [99]  # not an ISA value at all
    with pytest.raises(posenc.Error) as e:
        posenc.isa_set(missing[0])
    assert e.value.status in (posenc.Status.ERR_UNSUPPORTED, posenc.Status.ERR_INVALID_ARGUMENT)
    assert e.value.message


def test_threads():
    old = posenc.threads_get()
    try:
        posenc.threads_set(1)
        assert posenc.threads_get() == 1
        with pytest.raises(posenc.Error) as e:
            posenc.threads_set(-1)
        assert e.value.status == posenc.Status.ERR_INVALID_ARGUMENT
    finally:
        posenc.threads_set(old)


def test_error_carries_status_and_message():
    with pytest.raises(posenc.Error) as e:
        posenc.sinusoidal(4, 7)  # odd dim
    assert e.value.status == posenc.Status.ERR_INVALID_ARGUMENT
    assert "dim" in e.value.message
    assert posenc.last_error_message() == e.value.message


def test_argument_checks_and_convert():
    pos = [0, 1, 2]
    with pytest.raises(posenc.ArgumentError) as e:
        posenc.sinusoidal(positions=pos, dim=4)  # a list, not an ndarray
    assert "positions" in str(e.value)
    with pytest.raises(posenc.ArgumentError):
        posenc.sinusoidal(positions=np.array(pos, np.int32), dim=4)  # wrong dtype
    big = np.arange(6, dtype=np.int64)
    with pytest.raises(posenc.ArgumentError) as e:
        posenc.sinusoidal(positions=big[::2], dim=4)  # not contiguous
    assert "contiguous" in str(e.value)
    a = posenc.sinusoidal(positions=pos, dim=4, convert=True)
    b = posenc.sinusoidal(positions=big[::2], dim=4, convert=True)
    c = posenc.sinusoidal(n=5, dim=4)
    assert a.shape == (3, 4) and a.dtype == np.float32
    assert np.array_equal(a, c[:3]) and np.array_equal(b, c[[0, 2, 4]])
    assert isinstance(e.value, ValueError) and isinstance(e.value, posenc.Error)


def test_library_from_env(tmp_path):
    """POSENC_LIBRARY points at the library; a wrong path gives a clear OSError."""
    lib = posenc.library_path()
    code = "import posenc; print(posenc.library_path())"
    pkg = os.path.join(os.path.dirname(posenc.__file__), "..")
    env = dict(os.environ, POSENC_LIBRARY=lib, PYTHONPATH=pkg)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == lib
    env["POSENC_LIBRARY"] = str(tmp_path / "nope.so")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0 and "POSENC_LIBRARY" in out.stderr


def test_missing_function_is_an_error():
    with pytest.raises(posenc.Error) as e:
        posenc._lib._fn("posenc_no_such_function")
    assert e.value.status == posenc.Status.ERR_UNSUPPORTED
