#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Symbol audit of the built library (docs/DESIGN.md, "Dispatch").

usage: check_symbols.py NM LIBPOSENC_SO ISA=OBJ[,OBJ...] [ISA=OBJ...]

1. The shared library exports only posenc_* functions (plus the version node).
2. No symbol is defined in the objects of more than one ISA: code compiled with different ISA
   flags must never be merged by the linker (a weak inline function from the AVX2 objects would
   otherwise run on a CPU without AVX2).
"""
import subprocess
import sys


def defined_symbols(nm, path, dynamic=False):
    args = [nm, "--defined-only"] + (["-D"] if dynamic else []) + [path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2]
        syms.append((kind, name))
    return syms


def main():
    nm, so = sys.argv[1], sys.argv[2]
    failures = 0
    exported = [(k, n) for k, n in defined_symbols(nm, so, dynamic=True) if k not in ("A",)]
    bad = [n for k, n in exported if not n.startswith("posenc_")]
    print(f"exported symbols: {len(exported)}")
    if bad:
        print("FAIL: non-posenc symbols exported:", bad[:20])
        failures += 1
    owners = {}
    for spec in sys.argv[3:]:
        isa, objs = spec.split("=", 1)
        for obj in filter(None, objs.split(",")):
            for kind, name in defined_symbols(nm, obj):
                # Global (T, D, B, R, W, V, u, i) symbols only; local ones (lowercase t/d/b/r) cannot clash.
                if kind in "tdbrsn" or kind == "?":
                    continue
                # DW.ref.__gxx_personality_v0: a hidden data word pointing at the C++ EH
                # personality routine; identical in every object, not code.
                if name.startswith("DW.ref."):
                    continue
                owners.setdefault(name, set()).add(isa)
    clashes = sorted(n for n, isas in owners.items() if len(isas) > 1)
    print(f"global symbols in ISA objects: {len(owners)}; defined by more than one ISA: {len(clashes)}")
    if clashes:
        print("FAIL: symbols defined by several ISA objects:")
        for n in clashes[:40]:
            print("   ", n, sorted(owners[n]))
        failures += 1
    print(f"check_symbols: {2 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
