# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.verbose — verbose lines, the call record, the machine roofline and the trace
(include/posenc/profiling.h; docs/PROFILING.md).

    with posenc.verbose.capture(2) as rows:     # lines through the library's callback, parsed
        posenc.sinusoidal(n=4096, dim=64)
    rows[0].path, rows[0].ms, rows[0].rate, rows[0].rate_unit, rows[0].roofline_pct

    posenc.verbose.parse(text)                   # lines captured elsewhere (POSENC_VERBOSE=2 stderr)
"""
from __future__ import annotations

import contextlib
import ctypes
import re
import threading
from typing import NamedTuple, Optional

from ._lib import Isa, Status, _c_d, _c_i32, _c_i64, _c_u32, _call, _fn, register

# --------------------------------------------------------------------------- C structures


class CallInfo(ctypes.Structure):
    """posenc_call_info."""
    _fields_ = [("struct_size", _c_u32), ("status", ctypes.c_int), ("isa", ctypes.c_int), ("threads", _c_i32),
                ("tiles", _c_i64), ("seconds", _c_d), ("bytes", _c_d), ("flops", _c_d), ("flops_f32", _c_i32),
                ("function", ctypes.c_char_p), ("path", ctypes.c_char_p), ("shape", ctypes.c_char * 128)]


class Roofline(ctypes.Structure):
    """posenc_roofline."""
    _fields_ = [("struct_size", _c_u32), ("isa", ctypes.c_int), ("threads", _c_i32),
                ("memcpy_bytes_per_s", _c_d), ("fma_flops_per_s_f64", _c_d), ("fma_flops_per_s_f32", _c_d),
                ("seconds", _c_d)]


_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)

register({
    "posenc_verbose_set": (ctypes.c_int, [_c_i32]),
    "posenc_verbose_get": (_c_i32, []),
    "posenc_verbose_callback_set": (ctypes.c_int, [_CALLBACK, ctypes.c_void_p]),
    "posenc_call_info_init": (ctypes.c_int, [ctypes.POINTER(CallInfo)]),
    "posenc_last_call_info": (ctypes.c_int, [ctypes.POINTER(CallInfo)]),
    "posenc_roofline_init": (ctypes.c_int, [ctypes.POINTER(Roofline)]),
    "posenc_roofline_measure": (ctypes.c_int, [ctypes.c_int, _c_i32, ctypes.POINTER(Roofline)]),
    "posenc_trace_start": (ctypes.c_int, [ctypes.c_char_p]),
    "posenc_trace_stop": (ctypes.c_int, []),
})

# --------------------------------------------------------------------------- the parser


class VerboseRow(NamedTuple):
    """One parsed verbose line. exec lines fill function..roofline_pct; error lines fill
    function, isa, status and message (the other fields are None)."""
    kind: str                      # "exec" or "error"
    function: str
    isa: str
    path: Optional[str]
    threads: Optional[int]
    shape: Optional[dict]          # {"n": 4096, "layout": "halves", ...}; {} when the line has "-"
    ms: Optional[float]
    rate: Optional[float]          # in rate_unit
    rate_unit: Optional[str]       # "GB/s", "GFLOP/s" or None ("-": no roofline model)
    roofline_pct: Optional[float]  # % of the attainable rate, or None
    status: Optional[str]          # error lines: e.g. "POSENC_ERR_INVALID_ARGUMENT"
    message: Optional[str]         # error lines: the library's message


_RATE = re.compile(r"^([0-9.]+(?:[eE][-+]?[0-9]+)?)(GB/s|GFLOP/s)$")


def _value(v):
    try:
        return int(v)
    except ValueError:
        return v


def _shape(field, line):
    if field == "-":
        return {}
    out = {}
    for item in field.split(" "):
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise ValueError(f"posenc.verbose.parse: bad shape item {item!r} in {line!r}")
        out[name] = _value(value)
    return out


def parse_line(line):
    """Parses one line: a VerboseRow for exec and error lines, None for info lines and other text.
    Raises ValueError for a posenc_verbose exec/error line that does not have the documented form."""
    line = line.rstrip("\r\n")
    if not line.startswith("posenc_verbose,"):
        return None
    kind = line.split(",", 2)[1]
    if kind == "exec":
        f = line.split(",")
        if len(f) != 10 or not f[5].startswith("threads="):
            raise ValueError(f"posenc.verbose.parse: an exec line has 10 fields: {line!r}")
        rate = unit = None
        if f[8] != "-":
            m = _RATE.match(f[8])
            if not m:
                raise ValueError(f"posenc.verbose.parse: bad rate {f[8]!r} in {line!r}")
            rate, unit = float(m.group(1)), m.group(2)
        roof = None
        if f[9] != "-":
            if not f[9].endswith("%"):
                raise ValueError(f"posenc.verbose.parse: bad roofline {f[9]!r} in {line!r}")
            roof = float(f[9][:-1])
        return VerboseRow("exec", f[2], f[3], f[4], int(f[5][len("threads="):]), _shape(f[6], line), float(f[7]),
                          rate, unit, roof, None, None)
    if kind == "error":
        f = line.split(",", 5)
        if len(f) != 6:
            raise ValueError(f"posenc.verbose.parse: an error line has 6 fields: {line!r}")
        return VerboseRow("error", f[2], f[3], None, None, None, None, None, None, None, f[4], f[5])
    return None  # info lines


def parse(text):
    """Rows of every exec and error line in `text` (a str, or an iterable of lines); other lines
    (info lines, the program's own output) are skipped."""
    lines = text.splitlines() if isinstance(text, str) else text
    return [r for r in (parse_line(x) for x in lines) if r is not None]


# --------------------------------------------------------------------------- level and capture

def verbose_set(level):
    """posenc_verbose_set: 0 off, 1 error lines, 2 also one exec line per successful call."""
    _call("posenc_verbose_set", int(level))


def verbose_get():
    """posenc_verbose_get: the current verbose level."""
    return int(_fn("posenc_verbose_get")())


_capture_lock = threading.Lock()
_active = []  # stack of (callback object, lines list) of the running captures


def _install(entry):
    _call("posenc_verbose_callback_set", entry[0] if entry is not None else _CALLBACK(), None)


@contextlib.contextmanager
def capture(level=2):
    """Sends verbose lines to a list while the block runs (posenc_verbose_callback_set) and sets
    the level; yields the list of parsed VerboseRow, filled as calls return (`.lines` on the list
    holds the raw lines, info lines included). The previous level and sink are restored after."""
    rows = _Rows()

    def on_line(line, _user):
        text = line.decode("utf-8", "replace")
        rows.lines.append(text)
        r = parse_line(text)
        if r is not None:
            rows.append(r)

    entry = (_CALLBACK(on_line), rows)
    with _capture_lock:
        before = verbose_get()
        _active.append(entry)
        _install(entry)
    try:
        verbose_set(level)
        yield rows
    finally:
        with _capture_lock:
            verbose_set(before)
            _active.remove(entry)
            _install(_active[-1] if _active else None)


class _Rows(list):
    def __init__(self):
        super().__init__()
        self.lines = []


# --------------------------------------------------------------------------- call record, roofline

def last_call_info():
    """posenc_last_call_info: the record of the last call this thread made while verbose level >= 1
    or a trace ran, as a dict (function, path, status, isa, threads, tiles, seconds, bytes, flops,
    flops_precision, shape)."""
    info = CallInfo()
    info.struct_size = ctypes.sizeof(CallInfo)
    _call("posenc_last_call_info", ctypes.byref(info))
    return {
        "function": info.function.decode(), "path": info.path.decode(), "status": Status(info.status),
        "isa": Isa(info.isa), "threads": info.threads, "tiles": info.tiles, "seconds": info.seconds,
        "bytes": info.bytes, "flops": info.flops, "flops_precision": "f32" if info.flops_f32 else "f64",
        "shape": info.shape.decode(),
    }


def roofline_measure(isa="auto", threads=0):
    """posenc_roofline_measure: memcpy bandwidth and multiply-add peaks of `isa` (an Isa or its
    name) with `threads` threads at once (0: posenc_threads_get()), as a dict."""
    if isinstance(isa, str):
        isa = Isa[isa.upper()]
    r = Roofline()
    _call("posenc_roofline_init", ctypes.byref(r))
    _call("posenc_roofline_measure", int(isa), int(threads), ctypes.byref(r))
    return {"isa": Isa(r.isa), "threads": r.threads, "memcpy_bytes_per_s": r.memcpy_bytes_per_s,
            "fma_flops_per_s_f64": r.fma_flops_per_s_f64, "fma_flops_per_s_f32": r.fma_flops_per_s_f32,
            "seconds": r.seconds}


# --------------------------------------------------------------------------- trace

def trace_start(path):
    """posenc_trace_start: write a Chrome trace-event JSON file (open it in ui.perfetto.dev)."""
    _call("posenc_trace_start", str(path).encode())


def trace_stop():
    """posenc_trace_stop: complete and close the trace file."""
    _call("posenc_trace_stop")


@contextlib.contextmanager
def trace(path):
    """Traces the calls made while the block runs into `path`."""
    trace_start(path)
    try:
        yield path
    finally:
        trace_stop()


__all__ = ["verbose_set", "verbose_get", "last_call_info", "roofline_measure", "trace_start", "trace_stop"]
