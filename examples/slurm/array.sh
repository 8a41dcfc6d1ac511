#!/bin/bash
# Run one scenario as a Slurm job array: task i runs shard i of N, then a
# dependent job merges the parts.
#
#   sbatch --array=0-7 examples/slurm/array.sh failure_mode 8
#   sbatch --dependency=afterok:<array job id> --wrap \
#     "bin/bench merge results/failure_mode/part-*.json --out results/failure_mode.json"
#
# A sealed run (docs/reliability.md, Sealed runs): one secret seed, drawn once into a
# file only you can read, shared by every task, so the shards merge
# exactly. The secret never appears on a command line (sbatch's, the
# tasks', /proc/PID/cmdline); a task shows it only once its shard is
# over, in its results file and its tables' title.
#
#   (umask 077 && printf '0x%s\n' "$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')" >sealed.seed)
#   sbatch --array=0-7 examples/slurm/array.sh failure_mode 8 sealed.seed
#   (then the same merge)
#
#SBATCH --job-name=regretbench
#SBATCH --cpus-per-task=2
#SBATCH --mem=512M
#SBATCH --time=01:00:00
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail

usage='usage: array.sh SCENARIO N [SEED_FILE]'
scenario=${1:?$usage}
count=${2:?$usage}
seed_file=${3:-}
index=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array=0-$((count - 1))}

seed_args=()
if [ -n "$seed_file" ]; then
	seed_args=(--seed-file "$seed_file")
fi

mkdir -p "results/${scenario}"
exec bin/bench --scenario "${scenario}" --quiet \
	--shard "${index}/${count}" ${seed_args[@]+"${seed_args[@]}"} \
	--out "results/${scenario}/part-${index}.json"
