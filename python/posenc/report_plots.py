# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Draws the plots of `posenc report` with matplotlib, as PNG and SVG, from the plot
descriptions the CLI writes into its output folder (DIR/<name>.plot.json: title, axis labels,
log axes, legend corner and the curves, whose data are also in DIR/<name>.csv).

    python3 -m posenc.report_plots [--quiet] DIR

Exit status: 0 all drawn, 2 bad usage or an unreadable description, 3 matplotlib is not installed
(nothing is drawn; the CSVs and report.md stay as they are; with --quiet the message is left to
the caller, which says it once).
"""
from __future__ import annotations

import glob
import json
import math
import os
import sys

LEGEND = {0: "upper right", 1: "lower right", 2: "upper left", 3: "lower left"}


def _clean(values, log):
    out = []
    for v in values:
        v = float("nan") if v is None else float(v)
        if not math.isfinite(v) or (log and v <= 0):
            v = float("nan")  # a gap in the line, as the report's CSV has it
        out.append(v)
    return out


def draw(desc, stem):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(desc.get("width", 900) / 100, desc.get("height", 560) / 100), dpi=100)
    logx, logy = bool(desc.get("logx")), bool(desc.get("logy"))
    for s in desc.get("series", []):
        x, y = _clean(s.get("x", []), logx), _clean(s.get("y", []), logy)
        if s.get("points"):
            ax.plot(x, y, linestyle="none", marker="o", markersize=3, label=s.get("name") or None)
        else:
            ax.plot(x, y, linewidth=1.5, label=s.get("name") or None)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_title(desc.get("title", ""))
    ax.set_xlabel(desc.get("xlabel", ""))
    ax.set_ylabel(desc.get("ylabel", ""))
    ax.grid(True, which="major", alpha=0.3)
    if any(s.get("name") for s in desc.get("series", [])):
        ax.legend(loc=LEGEND.get(int(desc.get("legend", 0)), "best"), fontsize="small")
    fig.tight_layout()
    fig.savefig(stem + ".png")
    fig.savefig(stem + ".svg")
    plt.close(fig)


def main(argv):
    quiet = "--quiet" in argv
    args = [a for a in argv if a != "--quiet"]
    if len(args) != 1 or not os.path.isdir(args[0]):
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if not quiet:
            print("posenc.report_plots: matplotlib is not installed; the CSVs are left as they are",
                  file=sys.stderr)
        return 3
    paths = sorted(glob.glob(os.path.join(args[0], "*.plot.json")))
    for p in paths:
        try:
            with open(p) as f:
                desc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"posenc.report_plots: {p}: {e}", file=sys.stderr)
            return 2
        draw(desc, p[: -len(".plot.json")])
    if not quiet:
        print(f"posenc.report_plots: {len(paths)} plots drawn in {args[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
