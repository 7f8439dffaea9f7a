# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch._common — tensor checks shared by the torch ops: CPU, strided layout, dtype, and
the C function lookup (cached per name) with posenc's error reporting."""
from __future__ import annotations

import ctypes
import os
import sys

import torch

from .. import _lib
from .._lib import ArgumentError, Error

_FNS = {}


def cfn(name):
    """The ctypes function `name` of libposenc (looked up once)."""
    f = _FNS.get(name)
    if f is None:
        f = _FNS[name] = _lib._fn(name)
    return f


def check(status):
    """Raises posenc.Error for a non-zero status of a C call (with the library's message)."""
    if status != 0:
        msg = cfn("posenc_last_error_message")()
        raise Error(status, msg.decode() if msg else "")


def tensor(t, name, dtypes, what=None):
    """Checks that `t` is a CPU strided torch.Tensor of one of `dtypes` (a tuple of torch dtypes);
    the message names the argument, the rule and the fix."""
    if not isinstance(t, torch.Tensor):
        raise ArgumentError(f"{name} must be a torch.Tensor (got {type(t).__name__})")
    if not t.is_cpu:
        raise ArgumentError(f"{name} is on device {t.device}: posenc.torch runs on the CPU only (libposenc has "
                            f"no GPU kernels); move it with {name}.cpu() or use a GPU implementation")
    if t.layout != torch.strided:
        raise ArgumentError(f"{name} has layout {t.layout}: the posenc C ABI takes dense strided tensors only "
                            f"(convert with {name}.to_dense())")
    if t.dtype not in dtypes:
        names = ", ".join(str(d).replace("torch.", "") for d in dtypes)
        raise ArgumentError(f"{name} must have dtype {names} (got {str(t.dtype).replace('torch.', '')})"
                            + (f"; {what}" if what else ""))
    if t.is_conj() or t.is_neg():
        raise ArgumentError(f"{name} is a lazy conj/neg view: call {name}.resolve_conj().resolve_neg() first")
    return t


def contiguous_c(t):
    """A C-contiguous tensor holding t's values (t itself when it already is): the C ABI's
    row-major arrays. Only inputs are passed through this; outputs are always fresh tensors."""
    return t if t.is_contiguous() else t.contiguous()


def positions_tensor(p, name="positions"):
    """Integer positions as a C-contiguous int64 CPU tensor (int32 / int16 / uint8 / int8 widen
    exactly; floating and bool positions are rejected)."""
    tensor(p, name, (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8),
           "positions are token indices (use .long())")
    if p.dtype != torch.int64:
        p = p.to(torch.int64)
    return contiguous_c(p)


# --------------------------------------------------------------------------- new large tensors

_HUGE = 1 << 21  # the x86-64 / aarch64 (4 KiB granule) transparent huge page
HUGE_PAGES_MIN_BYTES = 4 << 20


def _madvise():
    if not sys.platform.startswith("linux") or os.environ.get("POSENC_TORCH_HUGEPAGES", "1") == "0":
        return None
    try:
        f = ctypes.CDLL(None).madvise
    except (OSError, AttributeError):
        return None
    f.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    f.restype = ctypes.c_int
    return f


_MADVISE = _madvise()
_MADV_HUGEPAGE = 14


def huge_page_hint(t):
    """Asks Linux for transparent huge pages (madvise MADV_HUGEPAGE) over the whole 2 MiB pages
    inside a new, not yet written, dense tensor of at least HUGE_PAGES_MIN_BYTES, so that its first
    touch takes one page fault per 2 MiB instead of one per 4 KiB (torch >= 2.1 does the same
    for its large CPU allocations with THP_MEM_ALLOC_ENABLE=1). A hint: no effect where THP is
    disabled, on other systems, or with POSENC_TORCH_HUGEPAGES=0; the values are unaffected.
    Returns t."""
    if _MADVISE is None:
        return t
    n = t.numel() * t.element_size()
    if n < HUGE_PAGES_MIN_BYTES:
        return t
    a = t.data_ptr()
    lo, hi = (a + _HUGE - 1) & -_HUGE, (a + n) & -_HUGE
    if hi > lo:
        _MADVISE(lo, hi - lo, _MADV_HUGEPAGE)  # a hint: a failure changes nothing
    return t
