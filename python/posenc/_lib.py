# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc._lib — the shared pieces of the Python binding: status and ISA enums, the exceptions,
finding and loading libposenc, the ctypes signature table, and the array checks every family
module uses. Family modules (rope, sphere, features, graph, learned) register their C signatures
with `register` at import time; the library itself is loaded on first use.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import enum
import glob
import os
import sys
import threading

import numpy as np


class Status(enum.IntEnum):
    OK = 0
    ERR_NULL_POINTER = 1
    ERR_INVALID_ARGUMENT = 2
    ERR_UNSUPPORTED = 3
    ERR_OUT_OF_MEMORY = 4
    ERR_SIZE_OVERFLOW = 5
    ERR_NOT_CONVERGED = 6
    ERR_INTERNAL = 7


class Isa(enum.IntEnum):
    AUTO = 0
    SCALAR = 1
    AVX2 = 2
    AVX512 = 4
    NEON = 8


class Error(Exception):
    """A posenc call failed: ``status`` (a `Status`) and ``message`` (the library's sentence)."""

    def __init__(self, status, message):
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.message = message
        super().__init__(f"{getattr(status, 'name', status)}: {message}")


class ArgumentError(Error, ValueError):
    """An argument failed the binding's dtype / shape / contiguity check (nothing was called)."""

    def __init__(self, message):
        super().__init__(Status.ERR_INVALID_ARGUMENT, message)


def _candidates():
    """Paths to try, in order: $POSENC_LIBRARY (only that, when set); a copy bundled in this
    package; the build tree of a source checkout; <prefix>/lib*/libposenc.so* for $POSENC_PREFIX,
    the prefix this package is installed under, sys.prefix, sys.base_prefix, /usr/local and /usr;
    then ctypes.util.find_library."""
    env = os.environ.get("POSENC_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    for p in sorted(glob.glob(os.path.join(here, "libposenc.so*"))):  # bundled (pip install with a copy)
        yield p
    root = os.path.dirname(os.path.dirname(here))  # <repo>/python/posenc -> <repo>
    for pat in ("build/release/libposenc.so*", "build/*/libposenc.so*", "build*/libposenc.so*"):
        for p in sorted(glob.glob(os.path.join(root, pat))):
            yield p
    prefixes = [os.environ["POSENC_PREFIX"]] if os.environ.get("POSENC_PREFIX") else []
    # installed as <prefix>/lib/python3/dist-packages/posenc or <prefix>/lib/python3.X/site-packages/posenc
    p = here
    for _ in range(4):
        p = os.path.dirname(p)
        prefixes.append(p)
    prefixes += [sys.prefix, getattr(sys, "base_prefix", sys.prefix), "/usr/local", "/usr"]
    for pre in prefixes:
        for sub in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
            for p in sorted(glob.glob(os.path.join(pre, sub, "libposenc.so*"))):
                yield p
    found = ctypes.util.find_library("posenc")
    if found:
        yield found


_lib = None
_lib_path = None
_lock = threading.Lock()


def _load():
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            if os.path.sep in path and not os.path.exists(path):
                tried.append(path + " (missing)")
                continue
            if os.path.isdir(path) or path.endswith((".a", ".la")):
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append(f"{path} ({e})")
                continue
            _lib, _lib_path = lib, path
            _declare(lib)
            return lib
        raise OSError("posenc: cannot find libposenc (set POSENC_LIBRARY); tried: " + "; ".join(tried or ["nothing"]))


def library_path():
    """Path of the libposenc that this module uses (loads it if needed)."""
    _load()
    return _lib_path


_c_i32, _c_i64, _c_u32, _c_u64, _c_d, _c_f = (ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32,
                                               ctypes.c_uint64, ctypes.c_double, ctypes.c_float)
_P = ctypes.c_void_p

_SIGS = {}


def register(sigs):
    """Adds C signatures {name: (restype, [argtypes])}; declares them at once if the library is loaded."""
    _SIGS.update(sigs)
    if _lib is not None:
        _declare(_lib, sigs)




def _declare(lib, sigs=None):
    for name, (res, args) in (_SIGS if sigs is None else sigs).items():
        fn = getattr(lib, name, None)  # functions of families not in this build stay missing
        if fn is not None:
            fn.restype = res
            fn.argtypes = args


def has(name):
    """True if this libposenc exports the C function `name` (e.g. "posenc_sph_harm_real_f64")."""
    return getattr(_load(), name, None) is not None


def _fn(name):
    f = getattr(_load(), name, None)
    if f is None:
        raise Error(Status.ERR_UNSUPPORTED, f"{name} is not exported by {_lib_path} (family not built in)")
    return f


def _call(name, *args):
    st = _fn(name)(*args)
    if st != 0:
        msg = _fn("posenc_last_error_message")()
        raise Error(st, msg.decode() if msg else "")
    return st


# --------------------------------------------------------------------------- array checks


def _ptr(a):
    return None if a is None else a.ctypes.data


def _where(a, bad, name):
    """Text `name[i] = value` of the first True of `bad` (same shape as a), for a message."""
    if a.ndim == 0:
        return f"{name} = {a[()].item()!r}"
    i = np.unravel_index(int(np.flatnonzero(bad)[0]), a.shape)
    return f"{name}[{', '.join(map(str, i))}] = {a[i].item()!r}"


def _convert(a, dtype, name):
    """convert=True: `a` as a C-contiguous array of `dtype`, or ArgumentError if that would change
    a value. Integer dtypes take only exact integers within their range (bool, integers, and floats
    that are whole numbers); float dtypes take bool, integers and floats, rounded to the nearest
    representable value, but never a finite value that overflows to inf. Complex, strings and
    objects never convert."""
    try:
        src = np.asarray(a)
    except (ValueError, TypeError) as e:
        raise ArgumentError(f"{name} cannot be converted to an array of {dtype} ({e})") from None
    if src.dtype == dtype:
        return np.ascontiguousarray(src)
    kind = src.dtype.kind
    if kind not in "biuf" or dtype.kind not in "iuf":
        raise ArgumentError(f"{name}: dtype {src.dtype} does not convert to {dtype} without changing values")
    if dtype.kind == "f":
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.ascontiguousarray(src, dtype=dtype)
        bad = np.isinf(out) & np.isfinite(src) if kind == "f" else np.isinf(out)
        if bad.any():
            raise ArgumentError(f"{_where(src, bad, name)} overflows {dtype}")
        return out
    info = np.iinfo(dtype)
    if kind == "f":
        bad = ~np.isfinite(src) | (src != np.trunc(src))
        if bad.any():
            raise ArgumentError(f"{_where(src, bad, name)} is not an integer: {dtype} takes whole numbers only "
                                f"(round it yourself, e.g. numpy.rint)")
        # [min, max + 1) in float64: both ends are exact powers of two (float(max) + 1 also where
        # float(max) already rounds up to 2**63).
        bad = (src < float(info.min)) | (src >= float(info.max) + 1.0)
    elif kind in "iu" and src.size and (int(src.min()) < info.min or int(src.max()) > info.max):
        bad = np.fromiter((not info.min <= int(v) <= info.max for v in src.flat), bool, src.size).reshape(src.shape)
    else:  # bool, integers within range, or empty
        bad = np.zeros(src.shape, bool)
    if bad.any():
        raise ArgumentError(f"{_where(src, bad, name)} is outside the range of {dtype}")
    return np.ascontiguousarray(src, dtype=dtype)


def _in(a, dtype, name, shape=None, convert=False, ndim=None):
    """Checks an input array (ndarray, exact dtype, C-contiguous, `shape` / `ndim` if given) and
    returns it; with convert=True, converts it instead by the value-preserving rules of
    `_convert` (raising ArgumentError naming the first element that would change)."""
    dtype = np.dtype(dtype)
    if convert:
        if not (isinstance(a, np.ndarray) and a.dtype == dtype and a.flags.c_contiguous):
            a = _convert(a, dtype, name)
    else:
        if not isinstance(a, np.ndarray):
            raise ArgumentError(f"{name} must be a numpy.ndarray of {dtype} (got {type(a).__name__}; "
                                "pass convert=True to convert)")
        if a.dtype != dtype:
            raise ArgumentError(f"{name} must have dtype {dtype} (got {a.dtype}; pass convert=True to convert)")
        if not a.flags.c_contiguous:
            raise ArgumentError(f"{name} must be C-contiguous (pass convert=True to copy)")
    _shape(a, name, shape, ndim)
    return a


def _inout(a, dtype, name, shape=None, ndim=None):
    """In-place argument: must already be a writable C-contiguous array of the dtype (no conversion)."""
    a = _in(a, dtype, name, shape, False, ndim)
    if not a.flags.writeable:
        raise ArgumentError(f"{name} must be writable (it is updated in place)")
    return a


def _shape(a, name, shape, ndim):
    if ndim is not None and a.ndim != ndim:
        raise ArgumentError(f"{name} must have {ndim} dimension(s) (got shape {a.shape})")
    if shape is not None:
        if a.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, a.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ArgumentError(f"{name} must have shape {want} (got {a.shape})")


def _out(out, shape, dtype, name="out", inputs=None, alias=None):
    """The output array of an allocating function. out None: a new numpy.empty(shape, dtype).
    Otherwise `out` itself after the checks of an input (ndarray, exact dtype and shape,
    C-contiguous; never converted), writable, and sharing no memory with the arrays of `inputs`
    ({name: array or None}); `alias` names one input that `out` may be exactly (the same memory:
    the C function allows it), but not partly overlap. A negative size in `shape` is left
    for the C function to report (the new array gets size 0 there)."""
    dtype = np.dtype(dtype)
    shape = tuple(int(s) for s in shape)
    if out is None:
        return np.empty(tuple(max(s, 0) for s in shape), dtype)
    if not isinstance(out, np.ndarray):
        raise ArgumentError(f"{name} must be a numpy.ndarray of {dtype} with shape {shape} (got {type(out).__name__})")
    if out.dtype != dtype:
        raise ArgumentError(f"{name} must have dtype {dtype} (got {out.dtype}); outputs are never converted")
    if min(shape, default=0) >= 0 and out.shape != shape:
        raise ArgumentError(f"{name} must have shape {shape} (got {out.shape})")
    if not out.flags.c_contiguous:
        raise ArgumentError(f"{name} must be C-contiguous")
    if not out.flags.writeable:
        raise ArgumentError(f"{name} must be writable")
    for nm, a in (inputs or {}).items():
        if a is None or not np.may_share_memory(out, a):  # both C-contiguous: bounds overlap = overlap
            continue
        if nm == alias and out.ctypes.data == a.ctypes.data and out.nbytes == a.nbytes:
            continue
        raise ArgumentError(f"{name} must not overlap {nm}" + (f" (it may be {nm} itself)" if nm == alias else ""))
    return out


def _outs(out, count, name="out"):
    """The `out` argument of a function with `count` outputs: None -> (None,) * count, else a tuple
    (or list) of `count` arrays or Nones, each then checked by `_out`."""
    if out is None:
        return (None,) * count
    if not isinstance(out, (tuple, list)) or len(out) != count:
        raise ArgumentError(f"{name} must be a tuple of {count} arrays (got {type(out).__name__}"
                            + (f" of length {len(out)})" if isinstance(out, (tuple, list)) else ")"))
    return tuple(out)


def _rows(a, dtype, name, tail=(), convert=False):
    """An input whose rows the C function treats independently: shape batch + tail, with any
    number of leading batch dimensions (tail: the trailing shape, None = any size). Returns
    (a viewed as [prod(batch), *tail] — a view, never a copy — and the batch shape)."""
    a = _in(a, dtype, name, convert=convert)
    k = len(tail)
    if a.ndim < k or any(s is not None and s != t for s, t in zip(tail, a.shape[a.ndim - k:])):
        want = "(..., " + ", ".join("*" if s is None else str(s) for s in tail) + ")" if k else "(...)"
        raise ArgumentError(f"{name} must have shape {want} (got {a.shape})")
    batch = a.shape[:a.ndim - k]
    return a.reshape((int(np.prod(batch, dtype=np.int64)),) + a.shape[a.ndim - k:]), batch


def _broadcast(a, batch, name):
    """A checked per-row input (e.g. positions) broadcast to the batch shape `batch` of another
    argument and flattened to [prod(batch)]: a view when the shapes are equal, else a new array
    (numpy broadcasting rules: positions [T] serve every row of a batch [B, T])."""
    try:
        b = np.broadcast_to(a, batch)
    except ValueError:
        raise ArgumentError(f"{name} of shape {a.shape} does not broadcast to the batch shape {batch}") from None
    return np.ascontiguousarray(b).reshape(-1)


register({
    "posenc_status_string": (ctypes.c_char_p, [ctypes.c_int]),
    "posenc_last_error_message": (ctypes.c_char_p, []),
    "posenc_version": (_c_u32, []),
    "posenc_version_string": (ctypes.c_char_p, []),
    "posenc_isa_available": (_c_u32, []),
    "posenc_isa_active": (ctypes.c_int, []),
    "posenc_isa_set": (ctypes.c_int, [ctypes.c_int]),
    "posenc_isa_name": (ctypes.c_char_p, [ctypes.c_int]),
    "posenc_threads_set": (ctypes.c_int, [_c_i32]),
    "posenc_threads_get": (_c_i32, []),
})


