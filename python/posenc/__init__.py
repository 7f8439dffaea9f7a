# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc — Python binding (ctypes + NumPy) of the posenc C ABI (include/posenc/posenc.h).

The binding is one module per family (rope, sphere, features, graph, learned) over `posenc._lib`
(loading, signatures, array checks); every public name is re-exported here.

Every C function of the ABI has a Python function here that takes and returns NumPy arrays and
allocates its outputs (in-place functions update the array you pass). Shapes, units and accuracy
are those of the C docstrings in posenc.h.

Arrays are checked, never silently copied: each argument must have the documented dtype and
shape and be C-contiguous, else `posenc.ArgumentError` is raised naming it. Pass
``convert=True`` to have inputs converted with ``numpy.ascontiguousarray`` instead (in-place
arguments are never converted). A failing C call raises `posenc.Error` carrying ``status``
(a `Status`) and the library's message.

The shared library is found, in order, at ``$POSENC_LIBRARY``; in the build tree beside this
package (``build/*/libposenc.so*``); next to an install prefix (``<prefix>/lib*/libposenc.so*``
for the prefix this package is installed under, ``sys.prefix`` and ``/usr/local``); then by
``ctypes.util.find_library``. Functions of the ABI that this libposenc does not export raise
`posenc.Error` (UNSUPPORTED) when called; the module itself always imports.
"""
from __future__ import annotations

from . import _lib
from ._lib import ArgumentError, Error, Isa, Status, has, library_path
from .runtime import *  # noqa: F401,F403
from .rope import *  # noqa: F401,F403
from .sphere import *  # noqa: F401,F403
from .features import *  # noqa: F401,F403
from .graph import *  # noqa: F401,F403
from .learned import *  # noqa: F401,F403
from .verbose import *  # noqa: F401,F403
from . import runtime, rope, sphere, features, graph, learned, verbose

__version__ = "0.1.0"

__all__ = ["Error", "ArgumentError", "Status", "Isa", "library_path", "has", "__version__"]
for _m in (runtime, rope, sphere, features, graph, learned, verbose):
    __all__ += list(_m.__all__)
del _m
