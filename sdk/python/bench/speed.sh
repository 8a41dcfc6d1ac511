#!/bin/sh
# The Python SDK's speed benchmark (`make bench-python`): runs ten_arm at
# RUNS x HORIZON (default 1000 x 20000) with the Go ts plugin, tsnp and
# epsgreedy, one policy at a time (--jobs 1: each has the machine's cores
# to itself, with bench's default two sessions), REPEAT times (default 2),
# and prints each policy's wall time per replication-round:
# seconds * 1e9 / (runs * horizon), from the results file.
# Needs bin/bench and bin/plugins/bench-plugin-ts (`make build`) and
# /usr/bin/python3 with numpy, grpcio and protobuf.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
runs=${RUNS:-1000}
horizon=${HORIZON:-20000}
repeat=${REPEAT:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/plugins"
cp "$root/bin/plugins/bench-plugin-ts" "$tmp/plugins/"
for p in tsnp epsgreedy; do
	ln -s "$root/examples/python/bench-plugin-$p" "$tmp/plugins/"
done
export PYTHONPATH="$root/sdk/python"
i=1
while [ "$i" -le "$repeat" ]; do
	"$root/bin/bench" --plugin-dir "$tmp/plugins" --scenario "$root/sdk/python/bench/ten_arm_python.yaml" \
		--runs "$runs" --horizon "$horizon" --jobs 1 -q --out "$tmp/r$i.json" >/dev/null
	i=$((i + 1))
done
/usr/bin/python3 - "$runs" "$horizon" "$tmp"/r*.json <<'PY'
import json, sys
runs, horizon, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rows = {}
for f in files:
    for p in json.load(open(f))["policies"]:
        rows.setdefault(p["label"], []).append(p["seconds"] * 1e9 / (runs * horizon))
go = min(rows.get("TS (Go)", [float("nan")]))
print("ten_arm %d x %d, %d runs each, ns per replication-round (best; all):" % (runs, horizon, len(files)))
for label, v in rows.items():
    print("  %-38s %8.0f ns  %5.1fx Go ts   (%s)" % (label, min(v), min(v) / go, ", ".join("%.0f" % x for x in v)))
PY
