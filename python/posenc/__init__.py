"""posenc — Python binding (ctypes + NumPy) of the posenc C ABI (include/posenc/posenc.h).

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

import ctypes
import ctypes.util
import enum
import glob
import os
import sys
import threading

import numpy as np

__all__ = ["Error", "ArgumentError", "Status", "Isa", "library_path"]

# --------------------------------------------------------------------------- enums


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


class RopeType(enum.IntEnum):
    DEFAULT = 0
    LINEAR = 1
    NTK = 2
    DYNAMIC = 3
    YARN = 4
    LONGROPE = 5
    LLAMA3 = 6


class RopeLayout(enum.IntEnum):
    NEOX = 0
    INTERLEAVED = 1


class SinusoidalLayout(enum.IntEnum):
    INTERLEAVED = 0
    HALVES = 1


class LegendreNorm(enum.IntEnum):
    NONE = 0
    SCHMIDT = 1
    SPHARM = 2
    FULL = 3


class RfSampling(enum.IntEnum):
    IID = 0
    ORTHOGONAL = 1
    QMC = 2
    PFF = 3


class RfKind(enum.IntEnum):
    TRIG = 0
    POSITIVE = 1
    HYPERBOLIC = 2
    GAUSSIAN_POSITIVE = 3


class Laplacian(enum.IntEnum):
    SYM = 0
    COMBINATORIAL = 1


class Resample(enum.IntEnum):
    BICUBIC_AA = 0
    BICUBIC = 1
    LINEAR = 2


__all__ += ["LapPeMethod", "RopeType", "RopeLayout", "SinusoidalLayout", "LegendreNorm", "RfSampling", "RfKind",
            "Laplacian", "Resample", "RopeParams"]

# --------------------------------------------------------------------------- errors


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


# --------------------------------------------------------------------------- library


def _candidates():
    env = os.environ.get("POSENC_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))  # <repo>/python/posenc -> <repo>
    for pat in ("build/release/libposenc.so*", "build/*/libposenc.so*", "build*/libposenc.so*"):
        for p in sorted(glob.glob(os.path.join(root, pat))):
            yield p
    prefixes = []
    # installed as <prefix>/lib/python3/dist-packages/posenc or <prefix>/lib/python3.X/site-packages/posenc
    p = here
    for _ in range(4):
        p = os.path.dirname(p)
        prefixes.append(p)
    prefixes += [sys.prefix, "/usr/local", "/usr"]
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

_SIGS = {
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
    # rope
    "posenc_rope_params_init": (ctypes.c_int, [_P, ctypes.c_int, _c_i32, _c_d]),
    "posenc_rope_inv_freq": (ctypes.c_int, [_P, _P, _P]),
    "posenc_rope_cos_sin_f32": (ctypes.c_int, [_P, _P, _c_i64, _P, _P]),
    "posenc_rope_apply_f32": (ctypes.c_int, [_P, ctypes.c_int, _P, _c_i64, _c_i64, _P, _c_i64, _c_i64,
                                             _P, _c_i64, _c_i64, _c_i32]),
    "posenc_rope_apply_cached_f32": (ctypes.c_int, [_P, _P, _c_i64, _c_i32, ctypes.c_int, _P, _c_i64, _c_i64,
                                                    _P, _c_i64, _c_i64, _P, _c_i64, _c_i64, _c_i32]),
    "posenc_rope_apply_bf16": (ctypes.c_int, [_P, ctypes.c_int, _P, _c_i64, _c_i64, _P, _c_i64, _c_i64,
                                              _P, _c_i64, _c_i64, _c_i32]),
    "posenc_sinusoidal_f32": (ctypes.c_int, [_P, _c_i64, _c_i32, _c_d, ctypes.c_int, _P]),
    "posenc_rope_decay_f64": (ctypes.c_int, [_P, _c_i32, _c_i64, _c_i64, _c_i64, _P, _P]),
    # sphere
    "posenc_legendre_f64": (ctypes.c_int, [ctypes.c_int, _c_i32, _c_i32, _P, _c_i64, _P]),
    "posenc_legendre_f32": (ctypes.c_int, [ctypes.c_int, _c_i32, _c_i32, _P, _c_i64, _P]),
    "posenc_legendre_poly_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_kernel_f64": (ctypes.c_int, [_c_i32, _P, _P, _c_i64, _P]),
    "posenc_sph_harm_real_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_harm_real_f32": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_harm_real_lonlat_f64": (ctypes.c_int, [_c_i32, _P, _c_i64, _P]),
    "posenc_sph_harm_complex_f64": (ctypes.c_int, [_c_i32, _P, _P, _c_i64, _P]),
    "posenc_wigner_d_real_f64": (ctypes.c_int, [_c_i32, _P, _P]),
    "posenc_sph_rotate_real_f64": (ctypes.c_int, [_c_i32, _P, _P, _c_i64, _P]),
    # features
    "posenc_rf_sample_f32": (ctypes.c_int, [ctypes.c_int, _c_i32, _c_i32, _c_d, _c_u64, _P]),
    "posenc_rf_features_f32": (ctypes.c_int, [ctypes.c_int, _P, _c_i32, _c_i32, _P, _P, _c_i64, _P]),
    "posenc_linear_attention_f32": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P]),
    "posenc_softmax_attention_f32": (ctypes.c_int, [_P, _P, _P, _c_i64, _c_i32, _c_i32, _c_i32, _c_f, _P]),
    # graph
    "posenc_laplacian_pe_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, _c_i32, _P, _P]),
    "posenc_rwse_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, _c_i32, _P]),
    "posenc_laplacian_pe_info_init": (ctypes.c_int, [_P]),
    "posenc_laplacian_pe_ex_f64": (ctypes.c_int, [_c_i64, _P, _P, _P, _c_i64, ctypes.c_int, _c_i32, _P, _P, _P]),
    # learned
    "posenc_learned_add_f32": (ctypes.c_int, [_P, _c_i64, _c_i32, _P, _c_i64, _P]),
    "posenc_learned_grad_f32": (ctypes.c_int, [_P, _P, _c_i64, _c_i32, _P, _c_i64]),
    "posenc_learned_spectrum_f32": (ctypes.c_int, [_P, _c_i64, _c_i32, _P, _P]),
    "posenc_learned_lowrank_f32": (ctypes.c_int, [_P, _c_i64, _c_i32, _c_i32, _P, _P]),
    "posenc_learned_resample_f32": (ctypes.c_int, [_P, _c_i32, _c_i64, _c_i64, _c_i32, _c_i64, _c_i64,
                                                   ctypes.c_int, _P]),
}


def _declare(lib):
    for name, (res, args) in _SIGS.items():
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


def _in(a, dtype, name, shape=None, convert=False, ndim=None):
    """Checks (or, with convert, converts) an input array; returns it."""
    dtype = np.dtype(dtype)
    if convert:
        a = np.ascontiguousarray(a, dtype=dtype)
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


# --------------------------------------------------------------------------- runtime


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


# --------------------------------------------------------------------------- rope (S^1)


class RopeParams(ctypes.Structure):
    """posenc_rope_params (fill with `rope_params`)."""

    _fields_ = [("struct_size", ctypes.c_uint32), ("type", ctypes.c_int), ("rotary_dim", ctypes.c_int32),
                ("theta", ctypes.c_double), ("factor", ctypes.c_double),
                ("original_max_position", ctypes.c_int64), ("seq_len", ctypes.c_int64),
                ("low_freq_factor", ctypes.c_double), ("high_freq_factor", ctypes.c_double),
                ("beta_fast", ctypes.c_double), ("beta_slow", ctypes.c_double), ("mscale", ctypes.c_double),
                ("mscale_all_dim", ctypes.c_double), ("attention_factor", ctypes.c_double),
                ("truncate", ctypes.c_int32), ("short_factor", ctypes.c_void_p),
                ("long_factor", ctypes.c_void_p)]


def rope_params(type=RopeType.DEFAULT, rotary_dim=128, theta=10000.0, short_factor=None, long_factor=None,
                **fields):
    """posenc_rope_params_init, then sets the given fields (factor=, original_max_position=, ...).
    short_factor / long_factor (LONGROPE): float64 arrays [rotary_dim/2], kept alive by the result."""
    p = RopeParams()
    _call("posenc_rope_params_init", ctypes.byref(p), int(type), int(rotary_dim), float(theta))
    for k, v in fields.items():
        if k not in dict(RopeParams._fields_) or k in ("struct_size", "short_factor", "long_factor"):
            raise ArgumentError(f"rope_params: unknown field {k!r}")
        setattr(p, k, v)
    keep = []
    for nm, arr in (("short_factor", short_factor), ("long_factor", long_factor)):
        if arr is not None:
            arr = _in(arr, np.float64, nm, (int(rotary_dim) // 2,), convert=True)
            keep.append(arr)
            setattr(p, nm, arr.ctypes.data)
    p._keep = keep
    return p


def _params(p):
    if not isinstance(p, RopeParams):
        raise ArgumentError("params must be a posenc.RopeParams (see posenc.rope_params)")
    return ctypes.byref(p)


def rope_inv_freq(params):
    """posenc_rope_inv_freq -> (inv_freq float64 [rotary_dim/2], attention_factor float)."""
    out = np.empty(max(params.rotary_dim // 2, 0), np.float64)
    af = ctypes.c_double(0)
    _call("posenc_rope_inv_freq", _params(params), _ptr(out), ctypes.byref(af))
    return out, af.value


def _positions(positions, n, convert):
    if positions is None:
        if n is None:
            raise ArgumentError("give positions or n")
        return None, int(n)
    positions = _in(positions, np.int64, "positions", convert=convert, ndim=1)
    if n is not None and int(n) != positions.shape[0]:
        raise ArgumentError(f"n ({n}) differs from len(positions) ({positions.shape[0]})")
    return positions, positions.shape[0]


def rope_cos_sin(params, positions=None, n=None, convert=False):
    """posenc_rope_cos_sin_f32 -> (cos, sin), float32 [n, rotary_dim/2]. positions: int64 [n] or
    None with n (= 0..n-1)."""
    positions, n = _positions(positions, n, convert)
    h = params.rotary_dim // 2
    c = np.empty((n, h), np.float32)
    s = np.empty((n, h), np.float32)
    _call("posenc_rope_cos_sin_f32", _params(params), _ptr(positions), n, _ptr(c), _ptr(s))
    return c, s


def _qk(q, k, dtype):
    q = _inout(q, dtype, "q", ndim=3)
    tokens, hq, hd = q.shape
    if k is not None:
        k = _inout(k, dtype, "k", ndim=3)
        if k.shape[0] != tokens or k.shape[2] != hd:
            raise ArgumentError(f"k must have shape ({tokens}, *, {hd}) like q (got {k.shape})")
        if np.shares_memory(q, k):
            raise ArgumentError("q and k must not overlap")
    return q, k, tokens, hq, hd, (0 if k is None else k.shape[1])


def rope_apply(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, convert=False):
    """posenc_rope_apply_f32, in place on q [tokens, q_heads, head_dim] and k [tokens, k_heads,
    head_dim] (float32, C-contiguous; k may be None). positions int64 [tokens] (None = 0..tokens-1)."""
    q, k, tokens, hq, hd, hk = _qk(q, k, np.float32)
    if positions is None:
        positions = np.arange(tokens, dtype=np.int64)
    positions = _in(positions, np.int64, "positions", (tokens,), convert)
    _call("posenc_rope_apply_f32", _params(params), int(layout), _ptr(positions), tokens, hd, _ptr(q), hq, 0,
          _ptr(k), hk, 0, int(bool(inverse)))
    return q, k


def rope_apply_bf16(params, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False, convert=False):
    """posenc_rope_apply_bf16: as rope_apply on uint16 arrays holding bfloat16 bit patterns."""
    q, k, tokens, hq, hd, hk = _qk(q, k, np.uint16)
    if positions is None:
        positions = np.arange(tokens, dtype=np.int64)
    positions = _in(positions, np.int64, "positions", (tokens,), convert)
    _call("posenc_rope_apply_bf16", _params(params), int(layout), _ptr(positions), tokens, hd, _ptr(q), hq, 0,
          _ptr(k), hk, 0, int(bool(inverse)))
    return q, k


def rope_apply_cached(cos_table, sin_table, q, k=None, positions=None, layout=RopeLayout.NEOX, inverse=False,
                      convert=False):
    """posenc_rope_apply_cached_f32: rotation from precomputed tables [rows, rotary_dim/2] (float32)."""
    cos_table = _in(cos_table, np.float32, "cos_table", convert=convert, ndim=2)
    sin_table = _in(sin_table, np.float32, "sin_table", cos_table.shape, convert)
    q, k, tokens, hq, hd, hk = _qk(q, k, np.float32)
    if positions is None:
        positions = np.arange(tokens, dtype=np.int64)
    positions = _in(positions, np.int64, "positions", (tokens,), convert)
    _call("posenc_rope_apply_cached_f32", _ptr(cos_table), _ptr(sin_table), cos_table.shape[0],
          2 * cos_table.shape[1], int(layout), _ptr(positions), tokens, hd, _ptr(q), hq, 0, _ptr(k), hk, 0,
          int(bool(inverse)))
    return q, k


def sinusoidal(n=None, dim=128, base=10000.0, layout=SinusoidalLayout.INTERLEAVED, positions=None, convert=False):
    """posenc_sinusoidal_f32 -> float32 [n, dim] (positions int64 [n], or None = 0..n-1)."""
    positions, n = _positions(positions, n, convert)
    out = np.empty((n, int(dim)), np.float32)
    _call("posenc_sinusoidal_f32", _ptr(positions), n, int(dim), float(base), int(layout), _ptr(out))
    return out


def rope_decay(inv_freq, count, n_begin=0, n_step=1, bound=False, convert=False):
    """posenc_rope_decay_f64 -> f float64 [count], or (f, bound) with bound=True."""
    inv_freq = _in(inv_freq, np.float64, "inv_freq", convert=convert, ndim=1)
    f = np.empty(int(count), np.float64)
    b = np.empty(int(count), np.float64) if bound else None
    _call("posenc_rope_decay_f64", _ptr(inv_freq), inv_freq.shape[0], int(n_begin), int(n_step), int(count),
          _ptr(f), _ptr(b))
    return (f, b) if bound else f


# --------------------------------------------------------------------------- sphere (S^2)


def legendre(norm, lmax, x, csphase=1, convert=False):
    """posenc_legendre_f64 / _f32 (by x's dtype) -> [n, (lmax+1)(lmax+2)/2], index l(l+1)/2 + m."""
    if convert and not (isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64)):
        x = np.asarray(x, np.float64)
    dt = x.dtype if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64) else np.float64
    x = _in(x, dt, "x", convert=convert, ndim=1)
    L = int(lmax)
    out = np.empty((x.shape[0], max((L + 1) * (L + 2) // 2, 0)), dt)
    name = "posenc_legendre_f32" if dt == np.float32 else "posenc_legendre_f64"
    _call(name, int(norm), L, int(csphase), _ptr(x), x.shape[0], _ptr(out))
    return out


def legendre_poly(lmax, x, convert=False):
    """posenc_legendre_poly_f64 -> float64 [n, lmax+1] = P_l(x)."""
    x = _in(x, np.float64, "x", convert=convert, ndim=1)
    out = np.empty((x.shape[0], max(int(lmax) + 1, 0)), np.float64)
    _call("posenc_legendre_poly_f64", int(lmax), _ptr(x), x.shape[0], _ptr(out))
    return out


def sph_kernel(lmax, cos_gamma, weights=None, convert=False):
    """posenc_sph_kernel_f64 -> float64 [n] = sum_l w_l (2l+1)/(4 pi) P_l(cos_gamma)."""
    cos_gamma = _in(cos_gamma, np.float64, "cos_gamma", convert=convert, ndim=1)
    if weights is not None:
        weights = _in(weights, np.float64, "weights", (int(lmax) + 1,), convert)
    out = np.empty(cos_gamma.shape[0], np.float64)
    _call("posenc_sph_kernel_f64", int(lmax), _ptr(weights), _ptr(cos_gamma), cos_gamma.shape[0], _ptr(out))
    return out


def sph_harm_real(lmax, xyz, convert=False):
    """posenc_sph_harm_real_f64 / _f32 (by xyz's dtype): xyz [n, 3] -> [n, (lmax+1)^2], index l(l+1)+m."""
    dt = xyz.dtype if isinstance(xyz, np.ndarray) and xyz.dtype in (np.float32, np.float64) else np.float64
    xyz = _in(xyz, dt, "xyz", (None, 3), convert)
    L = int(lmax)
    out = np.empty((xyz.shape[0], max((L + 1) ** 2, 0)), dt)
    name = "posenc_sph_harm_real_f32" if dt == np.float32 else "posenc_sph_harm_real_f64"
    _call(name, L, _ptr(xyz), xyz.shape[0], _ptr(out))
    return out


def sph_harm_real_lonlat(lmax, lonlat, convert=False):
    """posenc_sph_harm_real_lonlat_f64: lonlat [n, 2] degrees -> float64 [n, (lmax+1)^2]."""
    lonlat = _in(lonlat, np.float64, "lonlat", (None, 2), convert)
    L = int(lmax)
    out = np.empty((lonlat.shape[0], max((L + 1) ** 2, 0)), np.float64)
    _call("posenc_sph_harm_real_lonlat_f64", L, _ptr(lonlat), lonlat.shape[0], _ptr(out))
    return out


def sph_harm_complex(lmax, theta, phi, convert=False):
    """posenc_sph_harm_complex_f64: polar theta [n], azimuth phi [n] (radians) -> complex128
    [n, (lmax+1)^2], index l(l+1)+m, Condon-Shortley phase (SciPy's sph_harm)."""
    theta = _in(theta, np.float64, "theta", convert=convert, ndim=1)
    phi = _in(phi, np.float64, "phi", theta.shape, convert)
    L = int(lmax)
    out = np.empty((theta.shape[0], max((L + 1) ** 2, 0), 2), np.float64)
    _call("posenc_sph_harm_complex_f64", L, _ptr(theta), _ptr(phi), theta.shape[0], _ptr(out))
    return out.view(np.complex128)[..., 0]


def wigner_d_real(lmax, rotation, convert=False):
    """posenc_wigner_d_real_f64: rotation [3, 3] -> list of the blocks D^0..D^lmax ((2l+1)x(2l+1))."""
    rotation = _in(rotation, np.float64, "rotation", (3, 3), convert)
    L = int(lmax)
    total = sum((2 * l + 1) ** 2 for l in range(L + 1))
    flat = np.empty(total, np.float64)
    _call("posenc_wigner_d_real_f64", L, _ptr(rotation), _ptr(flat))
    blocks, o = [], 0
    for l in range(L + 1):
        s = 2 * l + 1
        blocks.append(flat[o:o + s * s].reshape(s, s))
        o += s * s
    return blocks


def sph_rotate_real(lmax, rotation, coeffs, convert=False):
    """posenc_sph_rotate_real_f64: coeffs [n, (lmax+1)^2] -> D(R) coeffs_i per row."""
    L = int(lmax)
    rotation = _in(rotation, np.float64, "rotation", (3, 3), convert)
    coeffs = _in(coeffs, np.float64, "coeffs", (None, (L + 1) ** 2), convert)
    out = np.empty_like(coeffs)
    _call("posenc_sph_rotate_real_f64", L, _ptr(rotation), _ptr(coeffs), coeffs.shape[0], _ptr(out))
    return out


# --------------------------------------------------------------------------- features (Bochner)


def rf_sample(sampling, d, m, sigma=1.0, seed=0):
    """posenc_rf_sample_f32 -> omega float32 [m, d]."""
    out = np.empty((int(m), int(d)), np.float32)
    _call("posenc_rf_sample_f32", int(sampling), int(d), int(m), float(sigma), int(seed) & (2**64 - 1), _ptr(out))
    return out


def rf_features(kind, omega, x, weights=None, convert=False):
    """posenc_rf_features_f32: x [n, d] -> [n, m] (POSITIVE, GAUSSIAN_POSITIVE) or [n, 2m]."""
    omega = _in(omega, np.float32, "omega", convert=convert, ndim=2)
    m, d = omega.shape
    x = _in(x, np.float32, "x", (None, d), convert)
    if weights is not None:
        weights = _in(weights, np.float32, "weights", (m,), convert)
    F = 2 * m if int(kind) in (RfKind.TRIG, RfKind.HYPERBOLIC) else m
    out = np.empty((x.shape[0], F), np.float32)
    _call("posenc_rf_features_f32", int(kind), _ptr(omega), m, d, _ptr(weights), _ptr(x), x.shape[0], _ptr(out))
    return out


def linear_attention(phi_q, phi_k, v, causal=False, eps=1e-6, convert=False):
    """posenc_linear_attention_f32: phi_q, phi_k [n, F], v [n, dv] -> [n, dv]."""
    phi_q = _in(phi_q, np.float32, "phi_q", convert=convert, ndim=2)
    n, F = phi_q.shape
    phi_k = _in(phi_k, np.float32, "phi_k", (n, F), convert)
    v = _in(v, np.float32, "v", (n, None), convert)
    out = np.empty((n, v.shape[1]), np.float32)
    _call("posenc_linear_attention_f32", _ptr(phi_q), _ptr(phi_k), _ptr(v), n, F, v.shape[1], int(bool(causal)),
          float(eps), _ptr(out))
    return out


def softmax_attention(q, k, v, causal=False, scale=None, convert=False):
    """posenc_softmax_attention_f32: softmax(scale q k^T) v; scale defaults to 1/sqrt(d)."""
    q = _in(q, np.float32, "q", convert=convert, ndim=2)
    n, d = q.shape
    k = _in(k, np.float32, "k", (n, d), convert)
    v = _in(v, np.float32, "v", (n, None), convert)
    if scale is None:
        scale = 1.0 / np.sqrt(d)
    out = np.empty((n, v.shape[1]), np.float32)
    _call("posenc_softmax_attention_f32", _ptr(q), _ptr(k), _ptr(v), n, d, v.shape[1], int(bool(causal)),
          float(scale), _ptr(out))
    return out


# --------------------------------------------------------------------------- graph


def _edges(src, dst, weights, convert):
    src = _in(src, np.int64, "src", convert=convert, ndim=1)
    dst = _in(dst, np.int64, "dst", src.shape, convert)
    if weights is not None:
        weights = _in(weights, np.float64, "weights", src.shape, convert)
    return src, dst, weights


class LaplacianPeInfo(ctypes.Structure):
    """posenc_laplacian_pe_info (diagnostics of posenc_laplacian_pe_ex_f64)."""

    _fields_ = [("struct_size", ctypes.c_uint32), ("solver", ctypes.c_int), ("method", ctypes.c_int),
                ("components", ctypes.c_int64), ("matvecs", ctypes.c_int64), ("shift_solves", ctypes.c_int64),
                ("max_residual", ctypes.c_double)]


class LapPeMethod(enum.IntEnum):
    AUTO = 0
    DENSE = 1
    SHIFT_INVERT = 2
    LANCZOS = 3


_LAPPE_METHODS = {0: "auto", 1: "dense", 2: "shift_invert", 3: "lanczos"}


def laplacian_pe(num_nodes, src, dst, k, weights=None, laplacian=Laplacian.SYM, info=False,
                 solver=LapPeMethod.AUTO, convert=False):
    """posenc_laplacian_pe_f64 -> (eigvals float64 [k] ascending, eigvecs float64 [num_nodes, k]);
    with info=True (or a solver other than AUTO) posenc_laplacian_pe_ex_f64 -> (eigvals, eigvecs,
    dict of its diagnostics: method, components, matvecs, shift_solves, max_residual)."""
    info = info or int(solver) != LapPeMethod.AUTO
    src, dst, weights = _edges(src, dst, weights, convert)
    vals = np.empty(int(k), np.float64)
    vecs = np.empty((int(num_nodes), int(k)), np.float64)
    if not info:
        _call("posenc_laplacian_pe_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
              int(laplacian), int(k), _ptr(vals), _ptr(vecs))
        return vals, vecs
    inf = LaplacianPeInfo()
    _call("posenc_laplacian_pe_info_init", ctypes.byref(inf))
    inf.solver = int(solver)
    _call("posenc_laplacian_pe_ex_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0],
          int(laplacian), int(k), _ptr(vals), _ptr(vecs), ctypes.byref(inf))
    d = {n: getattr(inf, n) for n, _ in LaplacianPeInfo._fields_ if n not in ("struct_size", "solver")}
    d["method"] = _LAPPE_METHODS.get(d["method"], d["method"])
    return vals, vecs, d


def rwse(num_nodes, src, dst, steps, weights=None, convert=False):
    """posenc_rwse_f64 -> float64 [num_nodes, steps], out[v, t-1] = (P^t)_vv."""
    src, dst, weights = _edges(src, dst, weights, convert)
    out = np.empty((int(num_nodes), int(steps)), np.float64)
    _call("posenc_rwse_f64", int(num_nodes), _ptr(src), _ptr(dst), _ptr(weights), src.shape[0], int(steps), _ptr(out))
    return out


# --------------------------------------------------------------------------- learned


def learned_add(table, positions, x, convert=False):
    """posenc_learned_add_f32: x [n, dim] += table[positions] in place; returns x."""
    table = _in(table, np.float32, "table", convert=convert, ndim=2)
    rows, dim = table.shape
    positions = _in(positions, np.int64, "positions", convert=convert, ndim=1)
    x = _inout(x, np.float32, "x", (positions.shape[0], dim))
    _call("posenc_learned_add_f32", _ptr(table), rows, dim, _ptr(positions), positions.shape[0], _ptr(x))
    return x


def learned_grad(grad_x, positions, grad_table, convert=False):
    """posenc_learned_grad_f32: grad_table [rows, dim] += scatter of grad_x [n, dim]; returns grad_table."""
    grad_table = _inout(grad_table, np.float32, "grad_table", ndim=2)
    rows, dim = grad_table.shape
    positions = _in(positions, np.int64, "positions", convert=convert, ndim=1)
    grad_x = _in(grad_x, np.float32, "grad_x", (positions.shape[0], dim), convert)
    _call("posenc_learned_grad_f32", _ptr(grad_x), _ptr(positions), positions.shape[0], dim, _ptr(grad_table), rows)
    return grad_table


def learned_spectrum(table, convert=False):
    """posenc_learned_spectrum_f32 -> (singular values float64 [min(rows, dim)] descending, effective rank)."""
    table = _in(table, np.float32, "table", convert=convert, ndim=2)
    s = np.empty(min(table.shape), np.float64)
    er = ctypes.c_double(0)
    _call("posenc_learned_spectrum_f32", _ptr(table), table.shape[0], table.shape[1], _ptr(s), ctypes.byref(er))
    return s, er.value


def learned_lowrank(table, r, convert=False):
    """posenc_learned_lowrank_f32 -> (left float32 [rows, r], right float32 [r, dim])."""
    table = _in(table, np.float32, "table", convert=convert, ndim=2)
    left = np.empty((table.shape[0], int(r)), np.float32)
    right = np.empty((int(r), table.shape[1]), np.float32)
    _call("posenc_learned_lowrank_f32", _ptr(table), table.shape[0], table.shape[1], int(r), _ptr(left), _ptr(right))
    return left, right


def learned_resample(table, old_hw, new_hw, prefix=0, mode=Resample.BICUBIC_AA, convert=False):
    """posenc_learned_resample_f32: table [prefix + old_h*old_w, dim] -> [prefix + new_h*new_w, dim].
    old_hw / new_hw: (h, w) tuples, or an int for a 1-D table (h = 1)."""
    oh, ow = (1, int(old_hw)) if np.isscalar(old_hw) else map(int, old_hw)
    nh, nw = (1, int(new_hw)) if np.isscalar(new_hw) else map(int, new_hw)
    table = _in(table, np.float32, "table", (int(prefix) + oh * ow, None), convert)
    out = np.empty((int(prefix) + nh * nw, table.shape[1]), np.float32)
    _call("posenc_learned_resample_f32", _ptr(table), int(prefix), oh, ow, table.shape[1], nh, nw, int(mode), _ptr(out))
    return out


__all__ += [n for n in list(globals()) if not n.startswith("_") and callable(globals()[n])
            and n not in __all__ and n not in ("annotations",) and globals()[n].__module__ == __name__]
