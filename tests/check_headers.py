#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The public headers stand alone.

usage: check_headers.py SOURCE_DIR C_COMPILER CXX_COMPILER

1. include/posenc/posenc.h includes every other include/posenc/*.h, each once, with
   `#include "posenc/<name>.h"`, and declares nothing itself.
2. Each include/posenc/*.h, included alone (twice, so that its include guard is exercised),
   compiles as C99, C11 and C++17 with -Wall -Wextra -Werror -pedantic; include/posenc/posenc.hpp
   compiles alone as C++17.
3. Each per-section header wraps its declarations in `extern "C"` for C++ (the
   `#ifdef __cplusplus` / `extern "C" {` lines before its first declaration and the closing pair
   after its last one) and, except posenc/runtime.h (which defines it), includes
   "posenc/runtime.h" for POSENC_API and posenc_status.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

src, cc, cxx = sys.argv[1:4]
inc = os.path.join(src, "include")
hdir = os.path.join(inc, "posenc")
errors = []

headers = sorted(os.path.basename(p) for p in glob.glob(os.path.join(hdir, "*.h")))
sections = [h for h in headers if h != "posenc.h"]
if "posenc.h" not in headers or "runtime.h" not in sections or len(sections) < 2:
    sys.exit(f"check_headers: expected posenc.h, runtime.h and section headers in {hdir}, found {headers}")


def read(name):
    with open(os.path.join(hdir, name), encoding="utf-8") as f:
        return f.read()


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


# 1. The umbrella.
umbrella = read("posenc.h")
included = re.findall(r'^#include "posenc/(\w+\.h)"\s*$', umbrella, re.M)
for h in sections:
    if included.count(h) != 1:
        errors.append(f"posenc.h: includes posenc/{h} {included.count(h)} times (want once)")
for h in included:
    if h not in sections:
        errors.append(f"posenc.h: includes posenc/{h}, which is not a header of include/posenc")
if included and included[0] != "runtime.h":
    errors.append("posenc.h: posenc/runtime.h must be the first header it includes")
rest = [l for l in strip_comments(umbrella).splitlines()
        if l.strip() and not re.match(r'#(ifndef|define|endif|include "posenc/)', l.strip())]
if rest:
    errors.append(f"posenc.h: holds more than the include guard and the includes: {rest[0]!r}")

# 3. extern "C" guards and the runtime include.
for h in sections:
    code = strip_comments(read(h))
    decl = r"^(typedef|POSENC_API|struct|\}\s*\w+;)"  # a declaration starts / a typedef ends
    first = re.search(decl, code, re.M)
    last = max((m.end() for m in re.finditer(decl, code, re.M)), default=-1)
    opening = [m.start() for m in re.finditer(r'^#ifdef __cplusplus\nextern "C" \{\n#endif', code, re.M)]
    closing = [m.start() for m in re.finditer(r"^#ifdef __cplusplus\n\}\s*\n#endif", code, re.M)]
    opening = opening[0] if opening else -1
    closing = closing[-1] if closing else -1
    if not first:
        errors.append(f"posenc/{h}: declares nothing")
        continue
    if opening < 0 or opening > first.start():
        errors.append(f'posenc/{h}: no `#ifdef __cplusplus` / `extern "C" {{` before the first declaration')
    if closing < 0 or closing < last:
        errors.append(f'posenc/{h}: no closing `#ifdef __cplusplus` / `}}` after the last declaration')
    if h != "runtime.h" and not re.search(r'^#include "posenc/runtime\.h"$', code, re.M):
        errors.append(f'posenc/{h}: does not include "posenc/runtime.h"')

# 2. Each header compiles alone.
flags = ["-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", inc]
runs = [(h, lang, std) for h in headers for lang, std in (("c", "c99"), ("c", "c11"), ("c++", "c++17"))]
runs.append(("posenc.hpp", "c++", "c++17"))
with tempfile.TemporaryDirectory() as d:
    for h, lang, std in runs:
        tu = os.path.join(d, "tu.c" if lang == "c" else "tu.cpp")
        with open(tu, "w") as f:
            f.write(f"#include <posenc/{h}>\n#include <posenc/{h}>\n")
        cmd = [cc if lang == "c" else cxx, f"-std={std}", *flags, tu]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            errors.append(f"posenc/{h} alone does not compile as {std}:\n{r.stderr.strip()}")

for e in errors:
    print("FAIL:", e)
print(f"check_headers: {len(headers)} C headers ({', '.join(headers)}) and posenc.hpp, "
      f"{len(runs)} compilations; {len(errors)} problems")
sys.exit(1 if errors else 0)
