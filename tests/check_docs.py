#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The repository stands alone: no file refers to a file outside it.

usage: check_docs.py [SOURCE_DIR]

Scans every text file of the source tree (build folders, .git and binary files skipped) and fails on
  1. a relative path `../x` that, resolved from the file's folder, lands outside the tree or
     names nothing in it,
  2. an absolute path into a developer's machine (/work/..., /home/..., ~/...),
  3. a document named by path (`X.md` with an upper-case name, or `docs/x.md`) that does not
     exist relative to the file's folder or to the repository root (DESIGN.md at the top level
     means ./DESIGN.md; write docs/DESIGN.md),
  4. a Markdown link target `](path)` (not a URL or an anchor) that does not exist.
Prints every finding as `file:line: reason` and the number of files scanned.
"""
import os
import re
import sys

SKIP_DIRS = {".git", "__pycache__", ".pytest_cache"}
BINARY_EXT = {".png", ".gz", ".jpg", ".pdf", ".so", ".a", ".o", ".svg"}

UP = re.compile(r"(?<![\w.])((?:\.\./)+[\w.@+-][\w./@+-]*)")
ABS = re.compile(r"(?<![\w.:/])((?:/work|/home|/Users)/[\w./@+-]*|~/[\w./@+-]+)")
# Documents: an upper-case name (DESIGN.md) or any Markdown file under docs/; lower-case names
# elsewhere are outputs (report.md) rather than documents.
MD = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[A-Z][A-Z0-9_-]*\.md|(?:[\w.-]+/)*docs/[\w./-]+\.md)\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def text_files(root):
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not (rel == "." and x.startswith("build")))
        for f in sorted(files):
            p = os.path.join(d, f)
            if f == ".git" or os.path.splitext(f)[1] in BINARY_EXT or os.path.islink(p):
                continue
            try:
                with open(p, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if b"\0" in data:
                continue
            yield p, data.decode("utf-8", "replace")


def inside(root, path):
    root = os.path.realpath(root)
    path = os.path.realpath(path)
    return path == root or path.startswith(root + os.sep)


def check_file(root, path, text):
    here = os.path.dirname(path)
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        for m in UP.finditer(line):
            t = os.path.join(here, m.group(1))
            if not inside(root, t):
                out.append((no, f"'{m.group(1)}' points outside the repository"))
            elif not os.path.exists(t.rstrip(".")):
                out.append((no, f"'{m.group(1)}' does not exist in the repository"))
        for m in ABS.finditer(line):
            out.append((no, f"'{m.group(1)}' is a path on a developer's machine"))
        for m in MD.finditer(line):
            name = m.group(1)
            if not any(os.path.exists(os.path.join(b, name)) for b in (here, root)):
                out.append((no, f"'{name}' names a document that is not in the repository"))
        if path.endswith(".md"):
            for m in LINK.finditer(line):
                t = m.group(1).split("#", 1)[0]
                if not t or re.match(r"^[a-z][a-z0-9+.-]*:", t):
                    continue
                if not os.path.exists(os.path.join(here, t)):
                    out.append((no, f"link target '{t}' does not exist"))
    return out


def self_test():
    """The check can fail: a scratch tree with one reference of each kind must give 6 findings (one per rule, and a path or link also names a missing document)."""
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, "docs"))
        with open(os.path.join(t, "docs", "A.md"), "w") as f:
            f.write("see ../../outside/X.md and [B](B.md)\nand NOPE.md\n")
        with open(os.path.join(t, "x.c"), "w") as f:
            f.write("/* " + "/wo" + "rk/shared/anchors */\n")
        found = [w for p, text in text_files(t) for w in check_file(t, p, text)]
        if len(found) != 6:
            print("self-test FAIL: expected 6 findings, got", found)
            return False
    return True


def main():
    if not self_test():
        return 1
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    me = os.path.realpath(__file__)
    n = 0
    bad = 0
    for path, text in text_files(root):
        if os.path.realpath(path) == me:
            continue
        n += 1
        for no, why in check_file(root, path, text):
            print(f"{os.path.relpath(path, root)}:{no}: {why}")
            bad += 1
    print(f"check_docs: {n} files scanned, {bad} references outside the repository")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
