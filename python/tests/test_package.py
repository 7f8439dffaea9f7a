# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_version_string
# needs-modules: venv ensurepip setuptools
"""pip install of python/ (pyproject.toml) into a venv made with --system-site-packages, offline and
without build isolation, then `import posenc` from another directory: with a bundled copy of
libposenc, then with the copy removed and $POSENC_PREFIX naming a prefix that holds it."""
import os
import shutil
import subprocess
import sys

import posenc

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)


def test_pip_install_offline_and_find_the_library(tmp_path):
    lib = posenc.library_path()
    src = tmp_path / "src"
    shutil.copytree(os.path.join(PYDIR, "posenc"), src / "posenc",
                    ignore=shutil.ignore_patterns("__pycache__", "libposenc.so*"))
    for f in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(PYDIR, f), src / f)
    shutil.copy(lib, src / "posenc" / "libposenc.so")  # the bundled copy
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("POSENC_LIBRARY", "PYTHONPATH", "POSENC_PREFIX")}
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index", "--no-deps", str(src)],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    code = ("import posenc, sys; print(posenc.__version__); print(posenc.library_path()); "
            "print(posenc.version_string()); print('torch' in sys.modules)")
    r = subprocess.run([py, "-c", code], env=env, cwd=str(tmp_path), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    version, path, cver, torch_loaded = r.stdout.split("\n")[:4]
    assert version == posenc.__version__
    assert path.startswith(str(venv)) and "site-packages/posenc/libposenc.so" in path
    assert torch_loaded == "False"
    # without the bundled copy: $POSENC_PREFIX/lib
    site = os.path.dirname(path)
    os.remove(path)
    prefix = tmp_path / "prefix"
    (prefix / "lib").mkdir(parents=True)
    shutil.copy(lib, prefix / "lib" / "libposenc.so.0")
    r = subprocess.run([py, "-c", code], env=dict(env, POSENC_PREFIX=str(prefix)), cwd=str(tmp_path),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[1] == str(prefix / "lib" / "libposenc.so.0")
    assert os.path.isfile(os.path.join(site, "torch", "__init__.py"))  # posenc.torch is installed too
