# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.runtime — status strings, version, ISA dispatch and threads (include/posenc/runtime.h)."""
from __future__ import annotations

from ._lib import Isa, _call, _fn


def status_string(status):
    """posenc_status_string: name of a status code."""
    return _fn("posenc_status_string")(int(status)).decode()


def last_error_message():
    """posenc_last_error_message: message of the last failed call on this thread ("" if none)."""
    return _fn("posenc_last_error_message")().decode()


def version():
    """posenc_version: MAJOR*10000 + MINOR*100 + PATCH."""
    return int(_fn("posenc_version")())


def version_string():
    """posenc_version_string: "MAJOR.MINOR.PATCH"."""
    return _fn("posenc_version_string")().decode()


def isa_available():
    """posenc_isa_available: set of the ISA paths compiled in and runnable here."""
    m = int(_fn("posenc_isa_available")())
    return {i for i in Isa if i != Isa.AUTO and m & int(i)}


def isa_active():
    """posenc_isa_active: the ISA path in use."""
    return Isa(_fn("posenc_isa_active")())


def isa_set(isa):
    """posenc_isa_set: select an ISA path (Isa or "scalar"/"avx2"/"avx512"/"neon"/"auto")."""
    if isinstance(isa, str):
        isa = Isa[isa.upper()]
    _call("posenc_isa_set", int(isa))


def isa_name(isa):
    """posenc_isa_name."""
    return _fn("posenc_isa_name")(int(isa)).decode()


def threads_set(n):
    """posenc_threads_set: worker threads for later calls (0 = all hardware threads)."""
    _call("posenc_threads_set", int(n))


def threads_get():
    """posenc_threads_get."""
    return int(_fn("posenc_threads_get")())


__all__ = ['status_string', 'last_error_message', 'version', 'version_string', 'isa_available', 'isa_active', 'isa_set', 'isa_name', 'threads_set', 'threads_get']
