# SPDX-License-Identifier: Apache-2.0 OR MIT
# requires: posenc_verbose_set posenc_trace_start posenc_last_call_info posenc_sinusoidal_f32 posenc_sph_harm_real_f64
"""Verbose lines (parser, capture, POSENC_VERBOSE), the call record, the roofline and the trace
file (POSENC_TRACE: Python's json module, fields, nesting, 8 threads, exit without calls)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import posenc
from posenc import verbose


def _env(**kw):
    pkg = os.path.join(os.path.dirname(posenc.__file__), "..")
    env = dict(os.environ, PYTHONPATH=pkg, POSENC_LIBRARY=posenc.library_path())
    env.pop("POSENC_VERBOSE", None)
    env.pop("POSENC_TRACE", None)
    env.update(kw)
    return env


def _run(code, **env):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=_env(**env), capture_output=True,
                          text=True, timeout=300)


SAMPLE = """\
hello from the application
posenc_verbose,info,version=0.1.0,isa=avx2,available=scalar avx2,threads=2
posenc_verbose,exec,posenc_rope_apply_f32,avx2,rope.apply.neox,threads=2,tokens=1 q=32x128 k=8x128 rotary=128,0.00195,19.1GB/s,47.5%
posenc_verbose,exec,posenc_learned_spectrum_f32,scalar,learned_spectrum_f32,threads=1,-,1.5,-,-
posenc_verbose,exec,posenc_rope_decay_f64,avx512,rope.decay.f,threads=2,freqs=4096 count=200000,300,8.2e+01GFLOP/s,51.0%
posenc_verbose,error,posenc_sinusoidal_f32,avx2,POSENC_ERR_INVALID_ARGUMENT,posenc_sinusoidal_f32: dim must be even, > 0 (got 7)
"""


def test_parse_sample():
    rows = verbose.parse(SAMPLE)
    assert [r.kind for r in rows] == ["exec", "exec", "exec", "error"]
    a = rows[0]
    assert (a.function, a.isa, a.path, a.threads) == ("posenc_rope_apply_f32", "avx2", "rope.apply.neox", 2)
    assert a.shape == {"tokens": 1, "q": "32x128", "k": "8x128", "rotary": 128}
    assert a.ms == pytest.approx(0.00195) and a.rate == pytest.approx(19.1) and a.rate_unit == "GB/s"
    assert a.roofline_pct == pytest.approx(47.5)
    b = rows[1]
    assert b.shape == {} and b.rate is None and b.rate_unit is None and b.roofline_pct is None
    assert rows[2].rate == pytest.approx(82.0) and rows[2].rate_unit == "GFLOP/s"
    e = rows[3]
    assert e.status == "POSENC_ERR_INVALID_ARGUMENT"
    assert e.message == "posenc_sinusoidal_f32: dim must be even, > 0 (got 7)"  # commas kept


@pytest.mark.parametrize("bad", [
    "posenc_verbose,exec,posenc_x,avx2,p,threads=1,-,1.0,-",             # 9 fields
    "posenc_verbose,exec,posenc_x,avx2,p,threads=1,-,1.0,3GB,-",         # bad unit
    "posenc_verbose,exec,posenc_x,avx2,p,threads=1,-,1.0,-,50",          # no %
    "posenc_verbose,exec,posenc_x,avx2,p,threads=1,n=1 junk,1.0,-,-",    # bad shape item
    "posenc_verbose,error,posenc_x,avx2,POSENC_ERR_INTERNAL",            # 5 fields
])
def test_parse_rejects_malformed_lines(bad):
    with pytest.raises(ValueError):
        verbose.parse(bad)


def test_capture_every_isa():
    for isa in sorted(posenc.isa_available()):
        posenc.isa_set(isa)
        with verbose.capture(2) as rows:
            posenc.sinusoidal(n=4096, dim=64)
            with pytest.raises(posenc.Error):
                posenc.sinusoidal(n=4, dim=7)
        ex = [r for r in rows if r.kind == "exec" and r.function == "posenc_sinusoidal_f32"]
        er = [r for r in rows if r.kind == "error"]
        assert len(ex) == 1 and len(er) == 1, rows.lines
        r = ex[0]
        assert r.isa == posenc.isa_name(isa) and r.path == "sinusoidal.consecutive"
        assert r.shape == {"n": 4096, "dim": 64, "layout": "interleaved"}
        assert r.ms > 0 and r.rate_unit in ("GB/s", "GFLOP/s") and r.rate > 0 and r.roofline_pct > 0
        assert r.threads == posenc.threads_get()
        assert er[0].function == "posenc_sinusoidal_f32" and "dim" in er[0].message
        assert any(x.startswith("posenc_verbose,info,version=") for x in rows.lines)
    posenc.isa_set("auto")
    assert posenc.verbose_get() == 0  # restored


def test_level_zero_and_one_write_nothing_for_successful_calls():
    with verbose.capture(0) as rows:
        posenc.sinusoidal(n=8, dim=8)
        with pytest.raises(posenc.Error):
            posenc.sinusoidal(n=4, dim=7)
    assert rows.lines == []
    with verbose.capture(1) as rows:
        posenc.sinusoidal(n=8, dim=8)
    assert rows.lines == []


def test_last_call_info_and_roofline():
    with verbose.capture(1):
        xyz = np.tile(np.array([[0.0, 0.6, 0.8]]), (64, 1))
        posenc.sph_harm_real(3, xyz)
        info = verbose.last_call_info()
    assert info["function"] == "posenc_sph_harm_real_f64" and info["path"].startswith(("sh_real.", "sh_low."))
    assert info["status"] == posenc.Status.OK and info["seconds"] > 0
    assert info["bytes"] == 8.0 * 64 * (3 + 16) and info["flops"] > 0 and info["shape"].startswith("n=64 lmax=3")
    r = verbose.roofline_measure("auto", 1)
    assert r["threads"] == 1 and r["memcpy_bytes_per_s"] > 1e8 and r["fma_flops_per_s_f64"] > 1e8
    assert r["fma_flops_per_s_f32"] >= 0.9 * r["fma_flops_per_s_f64"]
    with pytest.raises(posenc.Error):
        verbose.verbose_set(3)


def test_environment_level_two_on_stderr():
    out = _run("""
        import posenc
        posenc.sinusoidal(n=16, dim=8)
        print("level", posenc.verbose_get())
    """, POSENC_VERBOSE="2")
    assert out.returncode == 0, out.stderr
    assert "level 2" in out.stdout
    rows = verbose.parse(out.stderr)
    assert [r.function for r in rows] == ["posenc_sinusoidal_f32"], out.stderr


def test_environment_default_off_and_bad_value():
    out = _run("import posenc; posenc.sinusoidal(n=16, dim=8); print(posenc.verbose_get())")
    assert out.returncode == 0 and out.stdout.strip() == "0" and out.stderr == ""
    out = _run("import posenc; posenc.sinusoidal(n=16, dim=8); print(posenc.verbose_get())", POSENC_VERBOSE="loud")
    assert out.returncode == 0 and out.stdout.strip() == "0"
    assert "POSENC_VERBOSE='loud'" in out.stderr and "posenc_verbose,exec" not in out.stderr


def _check_trace(path):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    for e in events:
        for k in ("ph", "ts", "dur", "pid", "tid", "name"):
            assert k in e, e
    calls = {e["args"]["call"]: e for e in events if e.get("cat") == "posenc"}
    tiles = [e for e in events if e["name"] == "tile"]
    for t in tiles:
        c = calls[t["args"]["call"]]
        assert t["args"]["function"] == c["name"]
        assert round(t["ts"] * 1000) >= round(c["ts"] * 1000)
        assert round((t["ts"] + t["dur"]) * 1000) <= round((c["ts"] + c["dur"]) * 1000)
    return events, calls, tiles


def test_trace_from_eight_python_threads_completed_at_exit(tmp_path):
    path = tmp_path / "trace.json"
    out = _run("""
        import threading, numpy as np, posenc
        posenc.threads_set(2)
        def work():
            for i in range(10):
                posenc.sinusoidal(n=4096, dim=64)
        ts = [threading.Thread(target=work) for _ in range(8)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    """, POSENC_TRACE=str(path))
    assert out.returncode == 0, out.stderr
    events, calls, tiles = _check_trace(path)
    sin = [c for c in calls.values() if c["name"] == "posenc_sinusoidal_f32"]
    assert len(sin) == 80
    assert len({c["tid"] for c in sin}) == 8
    assert len(tiles) == 80 * 16
    assert all(c["args"]["path"] == "sinusoidal.consecutive" and c["args"]["status"] == "POSENC_OK" for c in sin)


def test_trace_valid_without_calls_and_in_process(tmp_path):
    path = tmp_path / "empty.json"
    out = _run("import posenc; posenc.library_path()", POSENC_TRACE=str(path))  # loads it, calls nothing
    assert out.returncode == 0, out.stderr
    events, calls, tiles = _check_trace(path)
    assert calls == {} and tiles == [] and events
    path2 = tmp_path / "inproc.json"
    with verbose.trace(path2):
        posenc.sinusoidal(n=64, dim=8)
    events, calls, tiles = _check_trace(path2)
    assert [c["name"] for c in calls.values()] == ["posenc_sinusoidal_f32"]


def test_roofline_plot_script(tmp_path):
    from posenc import roofline_plot
    csv = tmp_path / "roofline.csv"
    head = ",".join(roofline_plot.COLUMNS)
    csv.write_text(head + "\n"
                   "rope,rope_apply_f32,avx2,2,rope.apply.neox,0.375,11.4,30.4,f32,29.9,24.3,50.4\n"
                   "graph,rwse_f64,avx2,2,rwse_f64,0,0,0,f64,29.9,24.3,50.4\n")
    png = tmp_path / "roofline.png"
    assert roofline_plot.main([str(csv), str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = tmp_path / "bad.csv"
    bad.write_text("family,kernel\nrope,x\n")
    assert roofline_plot.main([str(bad), str(png)]) == 2
    assert roofline_plot.main([str(csv)]) == 2
    # matplotlib missing: exit 3, one message (none with --quiet), nothing drawn
    fake = tmp_path / "nompl" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('hidden')\n")
    script = roofline_plot.__file__
    for quiet, msgs in (([], 1), (["--quiet"], 0)):
        png2 = tmp_path / f"none{len(quiet)}.png"
        out = subprocess.run([sys.executable, script] + quiet + [str(csv), str(png2)], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(fake.parent)))
        assert out.returncode == 3 and out.stderr.count("matplotlib is not installed") == msgs, out.stderr
        assert not png2.exists()
