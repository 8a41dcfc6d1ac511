#!/usr/bin/env bash
# Prove examples/slurm/array.sh on a real, single-node Slurm: run a small
# scenario as the 4-task array plus the dependent `bench merge`, exactly as
# array.sh's header says, and check that the merged results equal an
# unsharded run's bit for bit (the summed `seconds` aside). Twice: with the
# scenario's integer seed, and sealed, every task reading one secret seed
# from a file (array.sh's third argument); the secret must then be the
# merged file's seed and appear on no job's command line nor in its output.
#
# Then a board round as examples/slurm/board-array.sh's header says: three
# submissions (two shipped plugins and the end-to-end tests' audit cheat,
# built with go) queued, run as an array, logged by a dependent
# `bench board collect`, and compared with the same submissions run one
# after another on a copy of the board taken when its round opened (same
# key, same seed): the same rows at the same log records (but for the
# submission time, the results files' SHA-256, which cover their timing
# and provenance, and the audit's random draw), the same results but for
# timing and provenance, and after the reveal `bench verify --rerun`
# passes on every row of the array's board.
#
#   sudo bash examples/slurm/check.sh
#
# Needs root and Debian's apt: it installs slurm-wlm and munge if missing
# (they stay installed), builds bin/ with `make build` if missing, and runs
# its own munged, slurmctld and slurmd from a temporary directory (own
# munge key and socket, ports 16817/16818, no systemd, no cgroups), so that
# a munge or Slurm already on the machine is neither used nor disturbed.
# Everything it started is stopped and the directory removed on exit.
#
# Environment: CHECK_RUNS (40), CHECK_HORIZON (400) size the scenario;
# CHECK_WAIT (240) bounds the wait for the jobs in seconds; CHECK_KEEP=1
# keeps the temporary directory; SLURMCTLD_PORT, SLURMD_PORT.
set -euo pipefail

runs=${CHECK_RUNS:-40}
horizon=${CHECK_HORIZON:-400}
wait_s=${CHECK_WAIT:-240}
ctld_port=${SLURMCTLD_PORT:-16817}
slurmd_port=${SLURMD_PORT:-16818}
shards=4 # the README's example: four array tasks

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
array_sh=$repo/examples/slurm/array.sh
start=$SECONDS

say() { printf 'check.sh: %s\n' "$*"; }
fail() {
	printf 'check.sh: FAIL: %s\n' "$*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || fail "run me as root: I install slurm-wlm and munge and start munged, slurmctld and slurmd"

# 1. Install what is missing.
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
need=()
for p in slurm-wlm munge python3; do
	installed "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	command -v apt-get >/dev/null || fail "need ${need[*]} and there is no apt-get; install them and rerun"
	say "installing ${need[*]}"
	# Keep the packages' init scripts from starting system daemons: this
	# check runs its own, and must leave no service running.
	policy=/usr/sbin/policy-rc.d
	own_policy=
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
	fi
	ok=1
	aptlog=$(mktemp /tmp/regretbench-apt.XXXXXX)
	apt-get update -qq >"$aptlog" 2>&1 || ok=
	if [ -n "$ok" ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >>"$aptlog" 2>&1 || ok=
	fi
	[ -z "$own_policy" ] || rm -f "$policy"
	if [ -z "$ok" ]; then
		tail -n 30 "$aptlog" >&2
		rm -f "$aptlog"
		fail "apt-get could not install ${need[*]} (its output above)"
	fi
	rm -f "$aptlog"
	say "installed ${need[*]} in $((SECONDS - start)) s"
fi
for c in munged sbatch squeue scontrol scancel slurmctld slurmd; do
	command -v "$c" >/dev/null || fail "$c is not on PATH after installing slurm-wlm and munge"
done

# 2. Build bench and the plugins if missing.
export PATH="/usr/local/go/bin:$PATH"
if [ ! -x "$repo/bin/bench" ] || [ ! -x "$repo/bin/plugins/bench-plugin-ts" ] || [ ! -x "$repo/bin/plugins/bench-plugin-klucb" ]; then
	say "building bin/ (make build)"
	make -C "$repo" build >/dev/null || fail "make build failed in $repo"
	say "built bin/ after $((SECONDS - start)) s"
fi

# 3. A private Slurm: everything under $tmp.
tmp=$(mktemp -d /tmp/regretbench-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()   # munged, slurmctld, slurmd, in start order
jobs_=()  # submitted job ids
cleanup() {
	local rc=$?
	set +e
	if [ ${#jobs_[@]} -gt 0 ]; then
		scancel "${jobs_[@]}" 2>/dev/null
		# Let slurmd's step daemons see the cancel before slurmd goes.
		local ids
		ids=$(IFS=, && echo "${jobs_[*]}")
		for _ in $(seq 1 20); do
			[ -z "$(squeue -h -t running,completing -j "$ids" 2>/dev/null)" ] && break
			sleep 0.5
		done
	fi
	local i
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill "${pids[i]}" 2>/dev/null
	done
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		for _ in $(seq 1 40); do
			kill -0 "${pids[i]}" 2>/dev/null || break
			sleep 0.25
		done
		kill -KILL "${pids[i]}" 2>/dev/null
		wait "${pids[i]}" 2>/dev/null
	done
	if [ -n "${CHECK_KEEP:-}" ]; then
		say "kept $tmp"
	else
		rm -rf "$tmp"
	fi
	if [ "$rc" -eq 0 ]; then
		say "PASS in $((SECONDS - start)) s"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

logs() {
	local f
	for f in "$tmp"/work/*/slurm-*.out "$tmp"/munged.log "$tmp"/slurmctld.log "$tmp"/slurmd.log; do
		[ -f "$f" ] || continue
		printf '\n----- %s (last 40 lines) -----\n' "${f#"$tmp"/}" >&2
		tail -n 40 "$f" >&2
	done
}
fail_logs() {
	printf 'check.sh: FAIL: %s\n' "$*" >&2
	logs
	exit 1
}

host=$(hostname -s)
cpus=$(nproc)
# array.sh asks for 2 CPUs and 512M a task: declare at least that much, and
# let slurmd accept the declaration on a smaller machine.
[ "$cpus" -ge 2 ] || cpus=2
mem=$(awk '/^MemTotal:/ {print int($2 / 1024 / 2)}' /proc/meminfo)
[ "$mem" -ge 1024 ] || mem=1024

mkdir -p "$tmp"/munge "$tmp"/state "$tmp"/spool "$tmp"/work
chmod 755 "$tmp"/munge # clients need to reach the socket
dd if=/dev/urandom of="$tmp"/munge/munge.key bs=1024 count=1 status=none
chmod 400 "$tmp"/munge/munge.key
socket=$tmp/munge/munge.socket

cat >"$tmp"/slurm.conf <<EOF
# One node, this host; written by examples/slurm/check.sh.
ClusterName=regretbench-check
SlurmctldHost=${host}(127.0.0.1)
SlurmctldPort=${ctld_port}
SlurmdPort=${slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=${socket}
CredType=cred/munge
StateSaveLocation=${tmp}/state
SlurmdSpoolDir=${tmp}/spool
SlurmctldPidFile=${tmp}/slurmctld.pid
SlurmdPidFile=${tmp}/slurmd.pid
SlurmctldLogFile=${tmp}/slurmctld.log
SlurmdLogFile=${tmp}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# A container: no systemd, no cgroups.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SlurmdParameters=config_overrides
ReturnToService=2
# A failed array task cancels the merge instead of leaving it pending.
DependencyParameters=kill_invalid_depend
MinJobAge=600
MailProg=/bin/true
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${mem} State=UNKNOWN
PartitionName=check Nodes=${host} Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf

for port in "$ctld_port" "$slurmd_port"; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		fail "port $port is in use (another Slurm?); set SLURMCTLD_PORT and SLURMD_PORT to free ports"
	fi
done

say "starting munged, slurmctld and slurmd on $host ($cpus CPUs, ${mem} MB) in $tmp"
munged --foreground --force --key-file="$tmp"/munge/munge.key --socket="$socket" \
	--pid-file="$tmp"/munge/munged.pid --seed-file="$tmp"/munge/munged.seed \
	--log-file="$tmp"/munged.log >>"$tmp"/munged.log 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do
	[ -S "$socket" ] && break
	kill -0 "${pids[0]}" 2>/dev/null || fail_logs "munged exited"
	sleep 0.1
done
[ -S "$socket" ] || fail_logs "munged made no socket $socket in 5 s"
echo probe | munge --socket="$socket" | unmunge --socket="$socket" >/dev/null ||
	fail_logs "munge cannot encode and decode a credential with $socket"

slurmctld -D -c -f "$SLURM_CONF" >>"$tmp"/slurmctld.log 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >>"$tmp"/slurmd.log 2>&1 &
pids+=($!)

state=
for _ in $(seq 1 120); do
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null || fail_logs "a daemon exited while starting (pid $p)"
	done
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
	case $state in idle*) break ;; esac
	sleep 0.5
done
case $state in
idle*) ;;
*)
	scontrol show node "$host" >&2 || true
	fail_logs "node $host is '${state:-unknown}', not idle, 60 s after starting slurmd"
	;;
esac

# 4. The scenario, the arrays and the dependent merges, as array.sh
# documents: in plain/ with the scenario's seed, in sealed/ with a secret
# seed file (drawn as array.sh's header shows, readable only by us).
work=$tmp/work
modes=(plain sealed)
declare -A array_ids merge_ids
for mode in "${modes[@]}"; do
	dir=$work/$mode
	mkdir -p "$dir"/results
	ln -s "$repo/bin" "$dir/bin"
	cat >"$dir/check.yaml" <<EOF
name: check
description: small three-arm scenario for examples/slurm/check.sh
environment:
  family: gaussian
  means: [0.5, 0.4, 0.3]
  noise_sd: 0.2
horizon: ${horizon}
runs: ${runs}
seed: 15
init_pulls: 1
policies:
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB}
EOF
	seed_arg=()
	if [ "$mode" = sealed ]; then
		(cd "$dir" && umask 077 && printf '0x%s\n' "$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')" >sealed.seed)
		seed_arg=(sealed.seed)
	fi
	id=$(sbatch --parsable --chdir="$dir" --array=0-$((shards - 1)) "$array_sh" check.yaml "$shards" ${seed_arg[@]+"${seed_arg[@]}"}) ||
		fail_logs "sbatch of $array_sh ($mode) was refused"
	array_ids[$mode]=${id%%;*}
	jobs_+=("${array_ids[$mode]}")
	id=$(sbatch --parsable --chdir="$dir" --dependency=afterok:"${array_ids[$mode]}" \
		--job-name=regretbench-merge --output=slurm-merge-%j.out --wrap \
		"bin/bench merge results/check.yaml/part-*.json --out results/check.json") ||
		fail_logs "sbatch of the $mode merge was refused"
	merge_ids[$mode]=${id%%;*}
	jobs_+=("${merge_ids[$mode]}")
	say "submitted the $mode array job ${array_ids[$mode]} (tasks 0-$((shards - 1))) and merge job ${merge_ids[$mode]}"
done

# A board round, as board-array.sh's header says: the submissions queued,
# the array and the dependent collect; the copy taken at the open takes
# the same submissions one after another, while Slurm works.
bdir=$work/board
mkdir -p "$bdir" "$tmp/cheat"
ln -s "$repo/bin" "$bdir/bin"
(cd "$repo" && go build -o "$tmp/cheat/bench-plugin-cheat-pool" ./host/e2e/testdata/cheat/pool) ||
	fail "could not build the audit cheat (host/e2e/testdata/cheat/pool)"
cat >"$bdir/round.yaml" <<EOF
name: round
description: a small board round for examples/slurm/check.sh
environment: {family: gaussian, means: [0.5, 0.45, 0.4], noise_sd: 1}
horizon: 300
runs: 8
seed: 7
policies: [{plugin: ts, label: TS}]
EOF
board_subs=("alice $repo/bin/plugins/bench-plugin-ts" "mallory $tmp/cheat/bench-plugin-cheat-pool" "bob $repo/bin/plugins/bench-plugin-klucb")
(
	cd "$bdir"
	bin/bench board init board --suite round.yaml --audit 2 --limit 1 --conform=false >/dev/null
	bin/bench board open board >/dev/null
	cp -a board seq
	for s in "${board_subs[@]}"; do
		bin/bench board queue board --submitter "${s%% *}" "${s#* }"
	done
) >"$tmp"/board.log 2>&1 || fail_logs "setting up the board failed: $(cat "$tmp"/board.log)"
board_array=$(cd "$bdir" && bin/bench board jobs board --array)
[ "$board_array" = 0-2 ] || fail "bench board jobs --array says '$board_array', want 0-2"
id=$(sbatch --parsable --chdir="$bdir" --array="$board_array" "$repo/examples/slurm/board-array.sh" board) ||
	fail_logs "sbatch of examples/slurm/board-array.sh was refused"
board_array_id=${id%%;*}
jobs_+=("$board_array_id")
id=$(sbatch --parsable --chdir="$bdir" --dependency=afterany:"$board_array_id" \
	--job-name=regretbench-collect --output=slurm-collect-%j.out --wrap "bin/bench board collect board") ||
	fail_logs "sbatch of the board's collect was refused"
board_collect_id=${id%%;*}
jobs_+=("$board_collect_id")
say "submitted the board's array job $board_array_id (tasks $board_array) and collect job $board_collect_id"
submitted=$SECONDS

# The submissions one after another on the copy, while Slurm works (the
# cheat's is recorded as failed: exit 3).
for s in "${board_subs[@]}"; do
	code=0
	(cd "$bdir" && bin/bench board submit seq --submitter "${s%% *}" "${s#* }") >>"$tmp"/board.log 2>&1 || code=$?
	case "$code:${s%% *}" in
	0:alice | 0:bob | 3:mallory) ;;
	*) fail_logs "bench board submit seq (${s%% *}) exited $code: $(cat "$tmp"/board.log)" ;;
	esac
done

# The unsharded runs, while Slurm works.
(cd "$work/plain" && bin/bench --scenario check.yaml --quiet --out results/unsharded.json) >"$tmp"/unsharded.log 2>&1 ||
	fail_logs "the unsharded run failed: $(cat "$tmp"/unsharded.log)"
(cd "$work/sealed" && bin/bench --scenario check.yaml --quiet --seed-file sealed.seed --out results/unsharded.json) >"$tmp"/unsharded.log 2>&1 ||
	fail_logs "the unsharded sealed run failed: $(cat "$tmp"/unsharded.log)"

job_state() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }
deadline=$((SECONDS + wait_s))
for mode in "${modes[@]}"; do
	array_id=${array_ids[$mode]}
	merge_id=${merge_ids[$mode]}
	while :; do
		st=$(job_state "$merge_id")
		case $st in
		COMPLETED) break ;;
		FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
			scontrol -o show job "$array_id" >&2 || true
			fail_logs "$mode merge job $merge_id ended $st"
			;;
		esac
		if [ $SECONDS -ge $deadline ]; then
			squeue >&2 || true
			fail_logs "$mode merge job $merge_id is still ${st:-unknown} after ${wait_s} s (CHECK_WAIT)"
		fi
		sleep 1
	done
	for i in $(seq 0 $((shards - 1))); do
		st=$(job_state "${array_id}_${i}")
		[ "$st" = COMPLETED ] || fail_logs "$mode array task ${array_id}_${i} is $st, want COMPLETED"
		[ -f "$work/$mode/results/check.yaml/part-$i.json" ] || fail_logs "$mode array task $i wrote no results/check.yaml/part-$i.json"
	done
done
say "arrays and merges completed $((SECONDS - submitted)) s after submission"

# The sealed run's secret is on no job's command line, and in the jobs'
# output only where a shard's tables end its run: in their title line.
secret=$(tr -d ' \n' <"$work/sealed/sealed.seed")
for id in "${array_ids[sealed]}" "${merge_ids[sealed]}"; do
	if scontrol -o show job "$id" 2>/dev/null | grep -qF "$secret"; then
		fail "the sealed run's secret shows in 'scontrol show job $id'"
	fi
done
title="^check: K=3, T=${horizon}, [0-9]+ runs, seed ${secret}, shard [0-9]+/${shards}(, sandbox [a-z+]+)?\$"
if cat "$work"/sealed/slurm-*.out | grep -F "$secret" | grep -qvE "$title"; then
	grep -HnF "$secret" "$work"/sealed/slurm-*.out >&2
	fail "the sealed run's secret shows in the job output above, not only in a shard's title"
fi

# 5. Compare: identical but for the policies' summed seconds and the
# provenance (bench.command, host, date) of the command that wrote each
# file. The plain files record seed 15 and the SHA-256 streams, the sealed
# ones the seed file's secret and the keyed streams.
for mode in "${modes[@]}"; do
	want_seed=15
	if [ "$mode" = sealed ]; then
		want_seed=$secret
	fi
	python3 - "$work/$mode/results/check.json" "$work/$mode/results/unsharded.json" "$runs" "$horizon" "$mode" "$want_seed" <<'EOF' ||
import json, sys

merged_path, whole_path, runs, horizon, mode, want_seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
merged, whole = (json.load(open(p)) for p in (merged_path, whole_path))
sealed = want_seed.startswith("0x")
if not sealed:
    want_seed = int(want_seed)
want_streams = "hmac-sha256-v1" if sealed else "sha256-v2"

def strip(f):
    for p in f["policies"]:
        p.pop("seconds")  # wall time: summed over the shards
    for k in ("command", "host", "date"):  # provenance of the command that wrote the file
        (f.get("bench") or {}).pop(k, None)
    return f

def diff(a, b, at):
    if type(a) is not type(b):
        return f"{at}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{at}.{k}: only in {'merged' if k in a else 'unsharded'}"
            d = diff(a[k], b[k], f"{at}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{at}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, f"{at}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{at}: merged {a!r}, unsharded {b!r}"

errors = []
for name, f in (("merged", merged), ("unsharded", whole)):
    sc = f["scenario"]
    if not f.get("complete") or sc["runs"] != runs or sc["horizon"] != horizon:
        errors.append(f"{name}: complete={f.get('complete')} runs={sc['runs']} horizon={sc['horizon']}, want complete, {runs}, {horizon}")
    if sc["seed"] != want_seed or sc.get("streams") != want_streams:
        want = "the seed file's secret" if sealed else want_seed
        errors.append(f"{name}: seed {sc['seed']!r}, streams {sc.get('streams')!r}; want {want} and {want_streams}")
    for p in f["policies"]:
        if p["status"] != "ok":
            errors.append(f"{name}: policy {p['label']} status {p['status']}: {p.get('error', '')}")
        for metric, finals in p["final"].items():
            if len(finals) != runs:
                errors.append(f"{name}: policy {p['label']} final.{metric} has {len(finals)} replications, want {runs}")
d = diff(strip(merged), strip(whole), "$")
if d:
    errors.append("first difference at " + d)
if errors:
    print("\n".join(f"{mode}: {e}" for e in errors), file=sys.stderr)
    sys.exit(1)
pols = ", ".join(p["label"] for p in merged["policies"])
seed = "a secret seed from a file" if sealed else f"seed {want_seed}"
print(f"check.sh: {mode}: merged == unsharded: {pols}; {runs} replications x T={horizon}, {seed}, every field but the summed seconds and the provenance identical, per-replication finals included")
EOF
		fail "the $mode merged results differ from the unsharded run (above)"
done

# 6. The board: the array's tasks and the collect completed, the queue is
# empty, and the rows are the sequential board's.
while :; do
	st=$(job_state "$board_collect_id")
	case $st in
	COMPLETED) break ;;
	FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
		fail_logs "the board's collect job $board_collect_id ended $st"
		;;
	esac
	if [ $SECONDS -ge $deadline ]; then
		squeue >&2 || true
		fail_logs "the board's collect job $board_collect_id is still ${st:-unknown} after ${wait_s} s (CHECK_WAIT)"
	fi
	sleep 1
done
for i in 0 1 2; do
	st=$(job_state "${board_array_id}_${i}")
	[ "$st" = COMPLETED ] || fail_logs "board array task ${board_array_id}_${i} is $st, want COMPLETED"
done
left=$(cd "$bdir" && bin/bench board jobs board)
[ -z "$left" ] || fail "after the collect, the queue still holds: $left"
(
	cd "$bdir"
	bin/bench board reveal board >/dev/null
	bin/bench board reveal seq >/dev/null
	bin/bench verify --rerun board
) >"$tmp"/verify.log 2>&1 || fail_logs "bench verify --rerun on the array's board failed: $(cat "$tmp"/verify.log)"
[ "$(grep -c ': verified$' "$tmp"/verify.log)" -eq 4 ] || fail "bench verify --rerun did not verify the 4 records: $(cat "$tmp"/verify.log)"
python3 - "$bdir/board" "$bdir/seq" <<'EOF' ||
import base64, glob, json, os, re, sys

array, seq = sys.argv[1], sys.argv[2]
draw = re.compile(r"replication \d+ gives final regret [0-9.e+-]+ alone but [0-9.e+-]+")

def records(board):
    out = []
    for path in sorted(glob.glob(os.path.join(board, "log", "entries", "*.json"))):
        env = json.load(open(path))
        out.append(json.loads(base64.b64decode(env["payload"])))
    return out

def strip_run(p):
    p.pop("submitted")  # when it was submitted
    p["reason"] = draw.sub("the drawn replication", p.get("reason", ""))
    for sc in p["scenarios"]:
        sc.pop("results_sha256", None)  # the results files hold their timing and provenance
        sc["error"] = draw.sub("the drawn replication", sc.get("error", ""))
        (sc.get("audit") or {}).pop("replications", None)  # drawn at random by each run
    return p

def strip_results(f):
    for k in ("command", "host", "date"):
        (f.get("bench") or {}).pop(k, None)
    for p in f["policies"]:
        p.pop("seconds")
        (p.get("audit") or {}).pop("replications", None)
        if "error" in p:
            p["error"] = draw.sub("the drawn replication", p["error"])
    return f

errors = []
a, b = records(array), records(seq)
if len(a) != 4 or len(b) != 4:
    errors.append(f"{len(a)} log records in the array's board, {len(b)} in the sequential one; want 4 each")
elif a[0] != b[0]:
    errors.append("the round's commitment records differ: the copy is not of the same round")
else:
    for i in range(1, 4):
        pa, pb = a[i]["predicate"], b[i]["predicate"]
        if pa["submission"] != i - 1 or pa["log_index"] != i:
            errors.append(f"log record {i} is submission {pa['submission']} (log_index {pa['log_index']}): not in submission order")
        for sc in pa["scenarios"]:
            ra = os.path.join(array, "runs", str(i - 1), "results", sc["name"] + ".json")
            rb = os.path.join(seq, "runs", str(i - 1), "results", sc["name"] + ".json")
            if strip_results(json.load(open(ra))) != strip_results(json.load(open(rb))):
                errors.append(f"{ra} and {rb} differ beyond timing, provenance and the audit's draw")
        if strip_run(pa) != strip_run(pb):
            errors.append(f"log record {i} differs:\n  array:      {json.dumps(pa, sort_keys=True)}\n  sequential: {json.dumps(pb, sort_keys=True)}")
    outcomes = [r["predicate"]["outcome"] for r in a[1:]]
    if outcomes != ["ok", "failed", "ok"]:
        errors.append(f"outcomes {outcomes}, want ok, failed (the audit cheat), ok")
if errors:
    print("\n".join("board: " + e for e in errors), file=sys.stderr)
    sys.exit(1)
print("check.sh: board: the array's rows == the sequential rows: 3 submissions at the same log records, the cheat recorded as failed by its audit, the same results but for timing and provenance, every row verified with --rerun")
EOF
	fail "the board's array rows differ from the sequential ones (above)"
