#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Release metadata agree with the version in include/posenc/runtime.h (docs/VERSIONING.md).

usage: check_release.py SOURCE_DIR LIBPOSENC READELF

Checks: CHANGELOG.md is in Keep a Changelog form (an [Unreleased] section, then released versions
as '## [X.Y.Z] - YYYY-MM-DD' in descending order) and has a section for the header's version;
the library's SONAME is the one the ABI policy names (libposenc.so.MAJOR, or libposenc.so.0.MINOR
during 0.x); the Python package's __version__ is the header's; README names the license.
"""
import re
import subprocess
import sys

src, lib, readelf = sys.argv[1:4]
errors = []


def read(path):
    with open(f"{src}/{path}", encoding="utf-8") as f:
        return f.read()


h = read("include/posenc/runtime.h")
ver = []
for part in ("MAJOR", "MINOR", "PATCH"):
    m = re.search(rf"^#define POSENC_VERSION_{part} (\d+)$", h, re.M)
    if not m:
        sys.exit(f"posenc/runtime.h: no '#define POSENC_VERSION_{part} N' line")
    ver.append(int(m.group(1)))
major, minor, patch = ver
version = f"{major}.{minor}.{patch}"

# CHANGELOG.md
cl = read("CHANGELOG.md")
heads = re.findall(r"^## (.*)$", cl, re.M)
if not heads or heads[0] != "[Unreleased]":
    errors.append("CHANGELOG.md: the first section must be '## [Unreleased]'")
released = []
for hd in heads[1:]:
    m = re.fullmatch(r"\[(\d+)\.(\d+)\.(\d+)\] - (\d{4})-(\d{2})-(\d{2})", hd)
    if not m:
        errors.append(f"CHANGELOG.md: section '## {hd}' is not '## [X.Y.Z] - YYYY-MM-DD'")
        continue
    released.append(tuple(int(g) for g in m.groups()[:3]))
if released != sorted(released, reverse=True):
    errors.append(f"CHANGELOG.md: released versions are not in descending order: {released}")
if tuple(ver) not in released:
    errors.append(f"CHANGELOG.md: no '## [{version}] - date' section for the header's version")
for sub in re.findall(r"^### (.*)$", cl, re.M):
    if sub not in ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"):
        errors.append(f"CHANGELOG.md: '### {sub}' is not a Keep a Changelog change type")

# SONAME
dyn = subprocess.run([readelf, "-d", lib], check=True, capture_output=True, text=True).stdout
m = re.search(r"\(SONAME\)\s+Library soname: \[(.*)\]", dyn)
soname = m.group(1) if m else None
allowed = {f"libposenc.so.{major}"} | ({f"libposenc.so.0.{minor}"} if major == 0 else set())
if soname not in allowed:
    errors.append(f"{lib}: SONAME {soname!r}, the ABI policy allows {sorted(allowed)}")
elif soname not in read("docs/VERSIONING.md").replace("MAJOR", str(major)):
    errors.append(f"docs/VERSIONING.md does not name the SONAME {soname}")

# Python package and README
m = re.search(r'^__version__ = "([^"]*)"', read("python/posenc/__init__.py"), re.M)
if not m or m.group(1) != version:
    errors.append(f"python/posenc/__init__.py: __version__ {m and m.group(1)!r} != {version}")
if "Apache-2.0 OR MIT" not in read("README.md"):
    errors.append("README.md does not name the license (Apache-2.0 OR MIT)")

for e in errors:
    print("FAIL:", e)
if errors:
    sys.exit(1)
print(f"release metadata of posenc {version}: CHANGELOG, SONAME {soname}, Python, README agree")
