# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc — Python binding (ctypes + NumPy) of the posenc C ABI (include/posenc/posenc.h).

The binding is one module per family (rope, sphere, features, graph, learned) over `posenc._lib`
(loading, signatures, array checks); every public name is re-exported here.

Every C function of the ABI has a Python function here that takes and returns NumPy arrays and
allocates its outputs (in-place functions update the array you pass). Shapes, units and accuracy
are those of the C docstrings in include/posenc/<family>.h (all included by posenc/posenc.h).

``out=``: every function that allocates its result also fills a preallocated array instead (a
tuple of arrays where it returns several), and returns it. Each must have exactly the dtype and
shape of the result, be C-contiguous and writable and share no memory with an input; it is
checked before the C call, like an input, and never converted.

Batch dimensions: where the C function treats rows independently (sinusoidal, rope_cos_sin,
rope_apply*, legendre*, sph_kernel, sph_harm_*, sph_rotate_real, rf_features, learned_add,
learned_grad), inputs take any number of leading dimensions, e.g. xyz [B, N, 3] -> [B, N, (L+1)^2];
the rows are passed to one C call as a view. Per-token arguments broadcast (NumPy rules) against
the batch: positions [T] serve q [B, T, H, D] (rope_apply) and x [B, T, dim] (learned_add).

Arrays are checked, never silently copied: each argument must have the documented dtype and
shape and be C-contiguous, else `posenc.ArgumentError` is raised naming it. Pass
``convert=True`` to have inputs converted instead, never changing a value: an integer argument
(positions, edge lists) takes only whole numbers within its range ([0.9, 1.9] raises, [3.0] is
3), a float argument takes bools, integers and floats rounded to the nearest value of its dtype
but never a finite value that would overflow to inf; complex, strings and objects raise. The
`posenc.ArgumentError` names the first element that would change. In-place arguments are never
converted. A failing C call raises `posenc.Error` carrying ``status`` (a `Status`) and the
library's message.

The shared library is found, in order, at ``$POSENC_LIBRARY``; as a copy bundled in this package
(``posenc/libposenc.so*``, see python/pyproject.toml); in the build tree beside this package
(``build/*/libposenc.so*``); next to an install prefix (``<prefix>/lib*/libposenc.so*`` for
``$POSENC_PREFIX``, the prefix this package is installed under, ``sys.prefix``, ``/usr/local``
and ``/usr``: the CMake install prefix); then by ``ctypes.util.find_library``. Functions of the ABI that this libposenc does not export raise
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
