#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# usage: profile_json.sh JSON_OUT COMMAND... — runs `posenc profile ... --json JSON_OUT` and
# checks the JSON: parses (with /usr/bin/python3 when present), has kernels with positive times.
set -euo pipefail
json=$1; shift
rm -f "$json"
"$@" --json "$json"
test -s "$json"
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["isa"] == "scalar" and d["threads"] == 1, d
assert d["memcpy_bytes_per_s"] > 0 and d["fma_peak_flops_per_s_f64"] > 0
ks = d["kernels"]
assert ks and all(k["family"] == "rope" and k["seconds_per_call"] > 0 and k["items_per_s"] > 0 for k in ks), ks
print("profile_json: ok,", len(ks), "kernels")
PY
else
  grep -q '"kernels"' "$json" && grep -q '"seconds_per_call"' "$json"
  echo "profile_json: ok (grep)"
fi
