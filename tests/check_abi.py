#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The four faces of the C ABI agree: posenc.h, the exported symbols, posenc.hpp and the Python
ctypes signatures. "posenc.h" is the umbrella include/posenc/posenc.h with the per-section headers
it includes (include/posenc/<section>.h), read in its include order.

usage: check_abi.py NM LIBPOSENC_SO SOURCE_DIR

1. Every function declared `POSENC_API` in the C headers (include/posenc/*.h) is exported by the library, and
   the library exports no posenc_* function the header does not declare.
2. Every declared function is registered in the Python binding (posenc._lib._SIGS, filled by
   `_lib.register` in python/posenc/*.py) with the same number of arguments, and each argument and
   the return value have the C type's width and kind (pointer, integer, float, double).
3. Every declared function is called by include/posenc/posenc.hpp with the declared number of
   arguments, except the functions listed in HPP_C_ONLY (the list must be exact: a wrapped
   function still listed there is an error too).
Importing the binding does not load the library, so this runs wherever NumPy imports.
"""
import ctypes
import os
import re
import subprocess
import sys

# Profiling and tracing switches: C only, not wrapped by posenc.hpp (posenc.hpp covers the
# computing families and the runtime).
HPP_C_ONLY = {
    "posenc_call_info_init", "posenc_last_call_info", "posenc_roofline_init",
    "posenc_roofline_measure", "posenc_trace_start", "posenc_trace_stop",
    "posenc_verbose_callback_set", "posenc_verbose_get", "posenc_verbose_set",
}

INT_TYPES = {
    "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
    "int": 4, "unsigned": 4, "int64_t": 8, "uint64_t": 8, "size_t": 8, "char": 1,
}


def strip_comments(s):
    s = re.sub(r"/\*.*?\*/", " ", s, flags=re.S)
    return re.sub(r"//[^\n]*", " ", s)


def split_top(args):
    """Splits an argument list on commas outside parentheses / brackets / braces."""
    out, depth, cur = [], 0, ""
    for ch in args:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_header(text):
    s = strip_comments(text)
    enums = set(re.findall(r"typedef\s+enum\s*\w*\s*\{[^}]*\}\s*(\w+)\s*;", s))
    fnptrs = set(re.findall(r"typedef\s+[^;]*\(\s*\*\s*(\w+)\s*\)\s*\([^;]*\)\s*;", s))
    decls = {}
    for ret, name, args in re.findall(r"POSENC_API\s+([^;(]*?)\b(posenc_\w+)\s*\(([^)]*)\)\s*;", s):
        params = [] if args.strip() in ("", "void") else split_top(args)
        decls[name] = (ret.strip(), params)
    return decls, enums, fnptrs


def c_kind(decl, enums, fnptrs):
    """('ptr'|'int'|'float'|'double'|'void', width) of a parameter or return type declaration."""
    t = re.sub(r"\b(const|volatile|restrict|struct)\b", " ", decl)
    if "*" in t or "[" in t:
        return ("ptr", 8)
    words = t.split()
    if not words:
        return ("void", 0)
    # The type is the parameter's words minus its name: try the longest known prefix.
    for w in words:
        if w in fnptrs:
            return ("ptr", 8)
        if w in enums:
            return ("int", 4)
        if w in INT_TYPES:
            return ("int", INT_TYPES[w])
        if w == "double":
            return ("double", 8)
        if w == "float":
            return ("float", 4)
        if w == "void":
            return ("void", 0)
    return ("unknown:" + " ".join(words), 0)


def py_kind(ct):
    if ct is None:
        return ("void", 0)
    if ct in (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_wchar_p):
        return ("ptr", 8)
    if isinstance(ct, type) and issubclass(ct, (ctypes._Pointer, ctypes._CFuncPtr)):
        return ("ptr", 8)
    if ct is ctypes.c_double:
        return ("double", 8)
    if ct is ctypes.c_float:
        return ("float", 4)
    if isinstance(ct, type) and issubclass(ct, ctypes._SimpleCData):
        return ("int", ctypes.sizeof(ct))
    return ("unknown:" + repr(ct), 0)


def exported(nm, so):
    out = subprocess.run([nm, "-D", "--defined-only", so], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "TtWi" and parts[2].startswith("posenc_"):
            names.add(parts[2].split("@")[0])
    return names


def hpp_calls(text):
    """{name: [argument counts of every call]} of posenc_* calls in posenc.hpp."""
    s = strip_comments(text)
    calls = {}
    for m in re.finditer(r"\b(posenc_\w+)\s*\(", s):
        i, depth = m.end(), 1
        while i < len(s) and depth:
            depth += {"(": 1, ")": -1}.get(s[i], 0)
            i += 1
        args = s[m.end():i - 1]
        calls.setdefault(m.group(1), []).append(len(split_top(args)) if args.strip() else 0)
    return calls


def c_header_text(src):
    """posenc.h with each `#include "posenc/<section>.h"` replaced by that header's text."""
    inc = os.path.join(src, "include")
    with open(os.path.join(inc, "posenc/posenc.h")) as f:
        umbrella = f.read()

    def expand(m):
        with open(os.path.join(inc, m.group(1))) as f:
            return f.read()
    return re.sub(r'^#include "(posenc/\w+\.h)"$', expand, umbrella, flags=re.M)


def main():
    nm, so, src = sys.argv[1], sys.argv[2], sys.argv[3]
    decls, enums, fnptrs = parse_header(c_header_text(src))
    with open(os.path.join(src, "include/posenc/posenc.hpp")) as f:
        calls = hpp_calls(f.read())
    sys.path.insert(0, os.path.join(src, "python"))
    import posenc  # noqa: F401  (imports every family module, each registers its signatures)
    from posenc import _lib
    sigs = _lib._SIGS

    errors = []
    if len(decls) < 40:
        errors.append(f"posenc.h: only {len(decls)} POSENC_API declarations parsed")
    exp = exported(nm, so)
    for n in sorted(set(decls) - exp):
        errors.append(f"{n}: declared in posenc.h, not exported by {os.path.basename(so)}")
    for n in sorted(exp - set(decls)):
        errors.append(f"{n}: exported, not declared in posenc.h")

    for n, (ret, params) in sorted(decls.items()):
        want = [c_kind(p, enums, fnptrs) for p in params]
        for k, p in zip(want, params):
            if k[0].startswith("unknown"):
                errors.append(f"{n}: cannot classify parameter type '{p}' (teach check_abi.py)")
        if n not in sigs:
            errors.append(f"{n}: no ctypes signature in python/posenc (_lib.register)")
        else:
            res, args = sigs[n]
            if len(args) != len(params):
                errors.append(f"{n}: {len(params)} arguments in posenc.h, {len(args)} in the Python signature")
            else:
                for i, (w, a) in enumerate(zip(want, args)):
                    if w != py_kind(a):
                        errors.append(f"{n}: argument {i} ('{params[i]}') is {w} in posenc.h, "
                                      f"{py_kind(a)} ({getattr(a, '__name__', a)}) in the Python signature")
            rk, pk = c_kind(ret, enums, fnptrs), py_kind(res)
            if rk != pk:
                errors.append(f"{n}: returns {rk} in posenc.h, {pk} in the Python signature")
        if n in HPP_C_ONLY:
            if n in calls:
                errors.append(f"{n}: wrapped in posenc.hpp but listed in HPP_C_ONLY (remove it there)")
        elif n not in calls:
            errors.append(f"{n}: not called by posenc.hpp (add a wrapper, or list it in HPP_C_ONLY)")
        else:
            bad = [c for c in calls[n] if c != len(params)]
            if bad:
                errors.append(f"{n}: called in posenc.hpp with {bad[0]} arguments, declared with {len(params)}")
    for n in sorted(set(sigs) - set(decls)):
        errors.append(f"{n}: Python signature for a function posenc.h does not declare")
    for n in sorted(set(calls) - set(decls)):
        errors.append(f"{n}: called by posenc.hpp, not declared in posenc.h")
    for n in sorted(HPP_C_ONLY - set(decls)):
        errors.append(f"{n}: listed in HPP_C_ONLY, not declared in posenc.h")

    for e in errors:
        print("FAIL:", e)
    print(f"check_abi: {len(decls)} functions in posenc.h, {len(exp)} exported, {len(sigs)} Python "
          f"signatures, {len(calls)} called by posenc.hpp; {len(errors)} disagreements")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
