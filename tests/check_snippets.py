#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Runs the code snippets of README.md and docs/*.md, so that they cannot rot.

usage: check_snippets.py SOURCE_DIR BUILD_DIR LIBPOSENC POSENC_CLI WORK_DIR CC CXX [FILE.md ...]

Every fenced block whose info string is c, cpp, python or sh is run:
  c       compiled with CC -std=c99 -pedantic -Wall -Wextra -Werror against include/ and
          LIBPOSENC; a block without `main` becomes the body of `int main(void)` (its #include
          lines go first), then it runs and must exit 0;
  cpp     the same with CXX -std=c++17;
  python  run by /usr/bin/python3 with PYTHONPATH=SOURCE_DIR/python and POSENC_LIBRARY;
  sh      run by bash -e in a fresh folder holding build/release (BUILD_DIR), with the built
          `posenc` first on PATH and HOME set to that folder; a block that would change the
          system (install into /usr, pip, apt) is an error unless it is skipped.
A block the test cannot run carries the line `<!-- snippet: skip: <reason> -->` right before it;
a skip without a reason is an error. Other info strings (text, console, none) are not code.
"""
import os
import re
import shutil
import subprocess
import sys

src, build, lib, cli, work = (os.path.abspath(a) for a in sys.argv[1:6])
cc, cxx = sys.argv[6:8]
files = sys.argv[8:] or ["README.md"] + sorted(
    os.path.join("docs", f) for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
RUN = {"c", "cpp", "python", "sh"}
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
SKIP = re.compile(r"^<!--\s*snippet:\s*skip\b:?\s*(.*?)\s*-->\s*$")


def blocks(path):
    """(line, lang, code, skip_reason or None) for every fenced block of the file."""
    lines = open(os.path.join(src, path), encoding="utf-8").read().split("\n")
    i, out = 0, []
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        skip = None
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0:
            sm = SKIP.match(lines[k].strip())
            if sm:
                skip = sm.group(1) or ""
        out.append((start + 1, lang, "\n".join(lines[start + 1:j]) + "\n", skip))
        i = j + 1
    return out


def wrap_c(code, cpp):
    if re.search(r"\bint\s+main\s*\(", code):
        return code
    head = [l for l in code.split("\n") if l.startswith("#")]
    body = [l for l in code.split("\n") if not l.startswith("#")]
    pre = ["#include <stdio.h>", "#include <stdlib.h>"] + (["#include <vector>"] if cpp else [])
    return "\n".join(pre + head + ["int main(void) {"] + ["  " + l for l in body] + ["  return 0;", "}", ""])


def run(cmd, cwd, env=None, timeout=600):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace", timeout=timeout)
    return r.returncode, (r.stdout + r.stderr)[-3000:]


libdir = os.path.dirname(os.path.realpath(lib))
env = dict(os.environ)
for v in ("POSENC_ISA", "POSENC_NUM_THREADS", "POSENC_DATA"):
    env.pop(v, None)
env.update(PYTHONPATH=os.path.join(src, "python"), POSENC_LIBRARY=lib, PYTHONDONTWRITEBYTECODE="1")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
bindir = os.path.join(work, "bin")
os.makedirs(bindir)
os.symlink(os.path.realpath(cli), os.path.join(bindir, "posenc"))

failures, ran, skipped = 0, 0, []
for path in files:
    for n, (line, lang, code, skip) in enumerate(blocks(path)):
        where = f"{path}:{line} ({lang})"
        if lang not in RUN:
            continue
        if skip is not None:
            if not skip:
                print(f"FAIL {where}: 'snippet: skip' needs a reason")
                failures += 1
            skipped.append(f"{where}: {skip}")
            continue
        d = os.path.join(work, f"{os.path.basename(path)}_{line}")
        os.makedirs(d)
        if lang in ("c", "cpp"):
            cpp = lang == "cpp"
            f = os.path.join(d, "snippet." + ("cpp" if cpp else "c"))
            open(f, "w").write(wrap_c(code, cpp))
            std = ["-std=c++17"] if cpp else ["-std=c99", "-pedantic"]
            rc, out = run([cxx if cpp else cc] + std + ["-Wall", "-Wextra", "-Werror", "-Wno-unused-variable",
                          "-I", os.path.join(src, "include"), f, "-o", os.path.join(d, "a.out"),
                          "-L", libdir, "-lposenc", "-lm", "-Wl,-rpath," + libdir], d)
            if rc == 0:
                rc, out = run([os.path.join(d, "a.out")], d, env)
        elif lang == "python":
            f = os.path.join(d, "snippet.py")
            open(f, "w").write(code)
            rc, out = run(["/usr/bin/python3", f], d, env)
        else:
            if re.search(r"/usr/local|--prefix /usr\b|\bsudo\b|pip install|apt(-get)? install", code):
                failures += 1
                print(f"FAIL {where}: would change the system (install into /usr, pip or apt): mark it skip with a reason")
                continue
            os.makedirs(os.path.join(d, "build"))
            os.symlink(os.path.realpath(build), os.path.join(d, "build", "release"))
            # python3 in a snippet is Debian's /usr/bin/python3 (NumPy), as on the machines the README is for.
            e = dict(env, HOME=d, PATH=os.pathsep.join([bindir, "/usr/bin", env.get("PATH", "")]))
            e.pop("PYTHONPATH")
            e.pop("POSENC_LIBRARY")
            rc, out = run(["bash", "-e", "-o", "pipefail", "-c", code], d, e)
        ran += 1
        if rc != 0:
            failures += 1
            print(f"FAIL {where}: exit {rc}\n{out}\n--- snippet ---\n{code}")
        else:
            print(f"ok   {where}")
for s in skipped:
    print(f"skip {s}")
print(f"doc snippets: {ran} run, {failures} failed, {len(skipped)} skipped with a reason")
sys.exit(1 if failures else 0)
