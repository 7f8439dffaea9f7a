#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Thread scaling of posenc's kernels: runs posenc_bench once per thread count and prints each
benchmark's wall-clock median, the speed-up over 1 thread and the parallel efficiency.

    /usr/bin/python3 bench/thread_scaling.py [--bench build/release/bench/posenc_bench]
        [--threads 1 2 4 8 16] [--reps 3] [--min-time 0.2] [--filter REGEX] [--json OUT.json]

Each thread count is one posenc_bench process (`--threads=N`, the library's TBB arena) running
the same filter; the benchmarks report real (wall) time, since CPU time sums the workers. The
rounds run in the order given, then again in reverse, so a machine that speeds up or slows down
during the run biases no thread count; the median over both rounds' repetitions is reported.
The default filter is one representative large problem per family, plus memcpy-bound anchors
(learned add vs memcpy) that show where memory bandwidth, not compute, caps the speed-up.
Standard library only, so it runs under any Python 3."""
import argparse
import json
import os
import statistics
import subprocess
import sys

DEFAULT_FILTER = "|".join([
    r"BM_rope_apply_f32/4096/0/0/",
    r"BM_rope_apply_memcpy/4096/4/",
    r"BM_sh_real_posenc_f64/L:(10|40)/resident:1/",
    r"BM_sh_real_posenc_f32/L:10/resident:1/",
    r"BM_sph_grad_posenc<double>/L:10/mode:1/",
    r"BM_rf_features/kind:0/",
    r"BM_linear_attention/n:65536/F:256/dv:64/causal:(0|1)/",
    r"BM_softmax_attention/n:16384/d:64/dv:64/causal:0/",
    r"BM_learned_add/4096/768/",
    r"BM_learned_add_memcpy_anchor/4096/768/",
    r"BM_rwse/0/100000/",
    r"BM_lappe/0/100000/",
])


def run_round(bench, threads, reps, min_time, flt):
    cmd = [bench, f"--threads={threads}", f"--benchmark_filter={flt}",
           f"--benchmark_repetitions={reps}", f"--benchmark_min_time={min_time}",
           "--benchmark_format=json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        times.setdefault(b["run_name"], []).append(b["real_time"] * scale)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/release/bench/posenc_bench")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--min-time", default="0.2")
    ap.add_argument("--filter", default=DEFAULT_FILTER)
    ap.add_argument("--json", help="also write {benchmark: {threads: [seconds...]}} here")
    a = ap.parse_args()
    if not os.access(a.bench, os.X_OK):
        sys.exit(f"thread_scaling: {a.bench} is not an executable posenc_bench")
    samples = {}
    for t in a.threads + a.threads[::-1]:
        for name, ts in run_round(a.bench, t, a.reps, a.min_time, a.filter).items():
            samples.setdefault(name, {}).setdefault(t, []).extend(ts)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(samples, f, indent=1)
    base_t = a.threads[0]
    head = f"{'benchmark (wall-clock median, ms)':60s}" + "".join(f"{'t=' + str(t):>10s}" for t in a.threads)
    print(head)
    for name, by_t in samples.items():
        med = {t: statistics.median(v) for t, v in by_t.items()}
        print(f"{name[:60]:60s}" + "".join(f"{med[t] * 1e3:10.3f}" for t in a.threads))
        print(f"{'  speed-up / efficiency':60s}" + "".join(
            f"{med[base_t] / med[t]:6.2f}/{med[base_t] / med[t] / (t / base_t):3.1f}"[:10].rjust(10)
            for t in a.threads))


if __name__ == "__main__":
    main()
