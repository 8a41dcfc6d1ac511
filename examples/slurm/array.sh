#!/bin/bash
# Run one scenario as a Slurm job array: task i runs shard i of N, then a
# dependent job merges the parts.
#
#   sbatch --array=0-7 examples/slurm/array.sh failure_mode 8
#   sbatch --dependency=afterok:<array job id> --wrap \
#     "bin/bench merge results/failure_mode/part-*.json --out results/failure_mode.json"
#
#SBATCH --job-name=regretbench
#SBATCH --cpus-per-task=2
#SBATCH --mem=512M
#SBATCH --time=01:00:00
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail

scenario=${1:?usage: array.sh SCENARIO N}
count=${2:?usage: array.sh SCENARIO N}
index=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array=0-$((count - 1))}

mkdir -p "results/${scenario}"
exec bin/bench --scenario "${scenario}" --quiet \
	--shard "${index}/${count}" \
	--out "results/${scenario}/part-${index}.json"
