#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""MagLapPE sparse route on random directed graphs (deg * n random arcs plus a directed path, one
connected component above the dense limit; the LDL^H fills in, so the route is plain Lanczos on
the real embedding), L_sym, q = 1/4, k = 8: CPU-time median, eigvals[0..2].

usage: POSENC_NUM_THREADS=1 /usr/bin/python3 bench/maglap_sparse_random.py [--sizes 5000,20000] [--deg 4] [--reps 1]
           [--baseline-lib OLD.so [--timeout S]]
--baseline-lib: A/B against another libposenc build. Every run is then a child process (this
library, i.e. the one the posenc package finds or $POSENC_LIBRARY, and OLD.so through
POSENC_LIBRARY, alternating); reported per library: CPU-time median, the children's peak resident
set (largest over the runs) and whether the outputs are bitwise equal. A run past --timeout
seconds of wall time is stopped and reported as such."""
import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))


def graph(n, deg):
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, n, deg * n), rng.integers(0, n, deg * n)
    path = np.arange(n - 1)
    return (np.concatenate([src, path]).astype(np.int64), np.concatenate([dst, path + 1]).astype(np.int64))


def child(n, deg):
    import posenc
    src, dst = graph(n, deg)
    c = time.process_time()
    vals, vre, vim = posenc.maglap_pe(n, src, dst, 8, q=0.25)
    cpu = time.process_time() - c
    digest = hashlib.sha1(b"".join(np.ascontiguousarray(x).tobytes() for x in (vals, vre, vim))).hexdigest()[:16]
    print(json.dumps({"cpu": cpu, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                      "vals": [float(v) for v in vals[:3]], "hash": digest}))


def run_child(n, deg, lib, timeout):
    env = dict(os.environ)
    if lib:
        env["POSENC_LIBRARY"] = lib
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(n), "--deg", str(deg)], env=env,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {timeout:g} s"}
    if r.returncode != 0:
        lines = (r.stderr.strip() or "exit %d" % r.returncode).splitlines()
        return {"error": lines[-1] if lines else "exit %d" % r.returncode}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="5000,20000")
    ap.add_argument("--deg", type=int, default=4)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--baseline-lib", default=None)
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child is not None:
        child(a.child, a.deg)
        return
    if a.baseline_lib:
        print("| nodes | arcs | baseline CPU s, peak RSS MB | this CPU s, peak RSS MB | CPU ratio this / baseline | outputs |")
        print("|---|---|---|---|---|---|")
        for n in (int(float(s)) for s in a.sizes.split(",")):
            runs = {"baseline": [], "this": []}
            for rep in range(a.reps):
                order = [("baseline", a.baseline_lib), ("this", None)]
                for label, lib in order if rep % 2 == 0 else order[::-1]:
                    runs[label].append(run_child(n, a.deg, lib, a.timeout))

            def cell(rs):
                ok = [r for r in rs if "error" not in r]
                if not ok:
                    return rs[0]["error"], None
                return (f"{np.median([r['cpu'] for r in ok]):.2f}, {max(r['rss_mb'] for r in ok):.0f}"
                        + (f" ({len(rs) - len(ok)} failed)" if len(ok) < len(rs) else "")), ok
            cb, okb = cell(runs["baseline"])
            ct, okt = cell(runs["this"])
            ratio = same = "—"
            if okb and okt:
                ratio = f"{np.median([r['cpu'] for r in okt]) / np.median([r['cpu'] for r in okb]):.2f}"
                same = "bitwise equal" if {r["hash"] for r in okb} == {r["hash"] for r in okt} else "DIFFER"
            print(f"| {n} | {a.deg * n + n - 1} | {cb} | {ct} | {ratio} | {same} |", flush=True)
        return
    import posenc
    print("| nodes | arcs | posenc CPU s | eigvals[0..2] |")
    print("|---|---|---|---|")
    for n in (int(float(s)) for s in a.sizes.split(",")):
        src, dst = graph(n, a.deg)
        ts = []
        for _ in range(a.reps):
            c = time.process_time()
            vals, _, _ = posenc.maglap_pe(n, src, dst, 8, q=0.25)
            ts.append(time.process_time() - c)
        print(f"| {n} | {src.size} | {np.median(ts):.2f} | {', '.join(f'{v:.8f}' for v in vals[:3])} |")


if __name__ == "__main__":
    main()
