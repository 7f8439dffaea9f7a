# SPDX-License-Identifier: Apache-2.0 OR MIT
"""posenc.torch._common — tensor checks shared by the torch ops: CPU, strided layout, dtype, and
the C function lookup (cached per name) with posenc's error reporting."""
from __future__ import annotations

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
    if t.device.type != "cpu":
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
