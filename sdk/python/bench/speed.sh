#!/bin/sh
# The Python SDK's speed benchmark (`make bench-python`) on ten_arm at
# RUNS x HORIZON (default 1000 x 20000), REPEAT times (default 3), with
# the Go ts plugin, tsnp (Python, batch API) and epsgreedy (Python,
# per-replication policies). It prints two measurements:
#
# - end to end: the whole `bench` process's wall time of Go ts alone and of
#   tsnp alone (`--policy`), the two run alternately, best of REPEAT: what a
#   user waits, interpreter start, imports and the plugin's exit included;
# - per round: each policy's seconds in the results file of one run of all
#   three, one policy at a time (--jobs 1: each has the machine's cores to
#   itself, with bench's default two sessions), as ns per
#   replication-round: seconds * 1e9 / (runs * horizon).
#
# Both are wall times: on a shared machine run it when it is quiet (it
# prints the load average), and trust the best of several runs.
# Needs bin/bench and bin/plugins/bench-plugin-ts (`make build`) and
# /usr/bin/python3 with numpy, grpcio and protobuf.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
runs=${RUNS:-1000}
horizon=${HORIZON:-20000}
repeat=${REPEAT:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/plugins"
cp "$root/bin/plugins/bench-plugin-ts" "$tmp/plugins/"
for p in tsnp epsgreedy; do
	ln -s "$root/examples/python/bench-plugin-$p" "$tmp/plugins/"
done
/usr/bin/python3 - "$root" "$tmp" "$runs" "$horizon" "$repeat" <<'PY'
import json, os, subprocess, sys, time
root, tmp, runs, horizon, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
bench = [os.path.join(root, "bin", "bench"), "--plugin-dir", os.path.join(tmp, "plugins"),
         "--sandbox-read", os.path.join(root, "sdk", "python"),
         "--scenario", os.path.join(root, "sdk", "python", "bench", "ten_arm_python.yaml"),
         "--runs", str(runs), "--horizon", str(horizon), "-q"]


def run(*args):
    t = time.perf_counter()
    subprocess.run(bench + list(args), check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def load():
    return "%.2f %.2f %.2f" % os.getloadavg()


print("ten_arm %d x %d, %d runs each; load average at the start: %s" % (runs, horizon, repeat, load()))
wall = {"TS (Go)": [], "tsnp (Python batch)": []}
rows = {}
for i in range(repeat):
    for label in wall:  # alternating
        wall[label].append(run("--policy", label))
    out = os.path.join(tmp, "r%d.json" % i)
    run("--jobs", "1", "--out", out)
    for p in json.load(open(out))["policies"]:
        rows.setdefault(p["label"], []).append(p["seconds"] * 1e9 / (runs * horizon))
go = min(wall["TS (Go)"])
print("end to end, whole bench process, seconds (best; all):")
for label, v in wall.items():
    print("  %-38s %6.2f s   %5.2fx Go ts   (%s)" % (label, min(v), min(v) / go, ", ".join("%.2f" % x for x in v)))
go = min(rows.get("TS (Go)", [float("nan")]))
print("per round, the results file's seconds, ns per replication-round (best; all):")
for label, v in rows.items():
    print("  %-38s %6.0f ns  %5.2fx Go ts   (%s)" % (label, min(v), min(v) / go, ", ".join("%.0f" % x for x in v)))
print("load average at the end: %s" % load())
PY
