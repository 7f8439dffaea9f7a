# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Draws the roofline plot of `posenc profile` (arithmetic intensity against achieved rate, one
dot per kernel, under the measured memcpy and multiply-add ceilings) from the roofline.csv the
CLI writes into its output folder.

    python3 -m posenc.roofline_plot [--quiet] DIR/roofline.csv DIR/roofline.png

Exit status: 0 drawn, 2 bad usage or unreadable CSV, 3 matplotlib is not installed (nothing is
drawn; the CSV is left as it is; the message is left to the caller with --quiet).
"""
from __future__ import annotations

import csv
import sys

COLUMNS = ("family", "kernel", "isa", "threads", "path", "intensity_flops_per_byte", "gflops_per_s",
           "gbytes_per_s", "flops_precision", "memcpy_gbytes_per_s", "fma_gflops_per_s_f64",
           "fma_gflops_per_s_f32")


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and set(COLUMNS) - set(rows[0]):
        raise ValueError(f"{path}: missing columns {sorted(set(COLUMNS) - set(rows[0]))}")
    return rows


def draw(rows, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    placed = [r for r in rows if float(r["intensity_flops_per_byte"]) > 0 and float(r["gflops_per_s"]) > 0]
    unplaced = [r["kernel"] for r in rows if r not in placed]
    fig, ax = plt.subplots(figsize=(9, 6))
    if rows:
        bw = float(rows[0]["memcpy_gbytes_per_s"])
        f64 = float(rows[0]["fma_gflops_per_s_f64"])
        f32 = float(rows[0]["fma_gflops_per_s_f32"])
        xs = [float(r["intensity_flops_per_byte"]) for r in placed] or [1.0]
        lo, hi = min(xs + [f64 / bw]) / 8, max(xs + [f32 / bw]) * 8
        top = max(f64, f32)
        ax.plot([lo, top / bw], [bw * lo, top], "-", color="0.3", lw=1.2, label=f"memcpy {bw:.3g} GB/s")
        for peak, name, style in ((f64, "FMA peak f64", "-."), (f32, "FMA peak f32", "--")):
            ax.plot([peak / bw, hi], [peak, peak], style, color="0.3", lw=1.2, label=f"{name} {peak:.3g} GFLOP/s")
        for r in placed:
            x, y = float(r["intensity_flops_per_byte"]), float(r["gflops_per_s"])
            marker = "o" if r["flops_precision"] == "f64" else "s"
            ax.plot([x], [y], marker, ms=7)
            ax.annotate(r["kernel"], (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
        ax.set_xlim(lo, hi)
        ax.set_title(f"posenc roofline: ISA {rows[0]['isa']}, {rows[0]['threads']} thread(s)"
                     " (circles f64, squares f32)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop / byte read + written)")
    ax.set_ylabel("achieved GFLOP/s")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    if unplaced:
        fig.text(0.01, 0.01, "no flop or byte model: " + ", ".join(unplaced), fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    quiet = "--quiet" in argv
    argv = [a for a in argv if a != "--quiet"]
    if len(argv) != 2:
        print("usage: python3 -m posenc.roofline_plot [--quiet] roofline.csv roofline.png", file=sys.stderr)
        return 2
    try:
        rows = read(argv[0])
    except (OSError, ValueError) as e:
        print(f"posenc.roofline_plot: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if not quiet:
            print("posenc.roofline_plot: matplotlib is not installed: no plot drawn", file=sys.stderr)
        return 3
    draw(rows, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
