#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: profile_json.sh WORKDIR COMMAND... — runs `COMMAND --json WORKDIR/p.json --out DIR`, where
# DIR has a quote and a backslash in its name (the JSON must escape it), and checks the JSON
# (/usr/bin/python3's json module): the command line kept, per-round machine peaks, per-round
# fractions, the flops of the path actually taken (rope_decay_f64 without a bound: the f-only
# path, 3 flops a term), roofline.csv, and the plot (or the one message saying why there is none).
# Then runs it again with a matplotlib that cannot be imported: one message, the data kept, exit 0.
set -euo pipefail
work=$1; shift
rm -rf "$work"; mkdir -p "$work"
out="$work/out\"dir\\x"
json="$work/p.json"
"$@" --json "$json" --out "$out" > "$work/stdout.txt" 2> "$work/stderr.txt" || { cat "$work/stderr.txt"; exit 1; }
cat "$work/stdout.txt"
test -s "$json" && test -s "$out/profile.json" && test -s "$out/roofline.csv"
/usr/bin/python3 - "$json" "$out" "$work/stderr.txt" "$@" <<'PY'
import json, os, sys
path, out, err = sys.argv[1:4]
d = json.load(open(path))
assert json.load(open(os.path.join(out, "profile.json"))) == d
assert d["command"][-4:] == ["--json", path, "--out", out], d["command"]
assert d["isa"] == "scalar" and d["threads"] == 1, (d["isa"], d["threads"])
assert d["memcpy_bytes_per_s"] > 0 and d["fma_peak_flops_per_s_f64"] > 0
R = d["rounds"]
assert [len(m["rounds"]) for m in d["machine"]] == [R] * len(d["machine"])
ks = d["kernels"]
assert ks and all(k["family"] == "rope" and k["seconds_per_call"] > 0 and k["items_per_s"] > 0 for k in ks), ks
for k in d["results"]:
    assert len(k["seconds_per_round"]) == R
    for f in ("memcpy_fraction_per_round", "fma_peak_fraction_per_round"):
        assert k[f] is None or len(k[f]) == R, k
decay = [k for k in ks if k["kernel"] == "rope_decay_f64"][0]
terms = decay["items_per_call"]
assert decay["path"] == "rope.decay.f", decay["path"]
assert decay["flops_per_call"] == 3 * terms, (decay["flops_per_call"], terms)  # the f-only path: 3 flops a term
apply = [k for k in ks if k["kernel"] == "rope_apply_f32"][0]
assert apply["path"] == "rope.apply.neox" and apply["flops_precision"] == "f32"
lines = open(os.path.join(out, "roofline.csv")).read().splitlines()
assert lines[0].startswith("family,kernel,isa,threads,path,intensity_flops_per_byte") and len(lines) == len(ks) + 1
msg = open(err).read()
if os.path.exists(os.path.join(out, "roofline.png")):
    assert open(os.path.join(out, "roofline.png"), "rb").read(8) == b"\x89PNG\r\n\x1a\n"
else:
    assert msg.count("no roofline plot") == 1, msg
print("profile_json: ok,", len(ks), "kernels,", R, "round(s)")
PY
# matplotlib missing: a package that fails to import shadows it.
mkdir -p "$work/nompl/matplotlib"
echo 'raise ImportError("matplotlib hidden by the posenc test")' > "$work/nompl/matplotlib/__init__.py"
rm -rf "$work/out2"
PYTHONPATH="$work/nompl" "$@" --out "$work/out2" > /dev/null 2> "$work/stderr2.txt"
n=$(grep -c "matplotlib is not installed" "$work/stderr2.txt" || true)
if [ "$n" != 1 ]; then cat "$work/stderr2.txt"; echo "profile_json: expected one matplotlib message, got $n" >&2; exit 1; fi
test -s "$work/out2/roofline.csv" && test -s "$work/out2/profile.json" && test ! -e "$work/out2/roofline.png"
echo "profile_json: ok without matplotlib"
