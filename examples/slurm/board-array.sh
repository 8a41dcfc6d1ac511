#!/bin/bash
# Run a board round's queued submissions as a Slurm job array: task N runs
# submission N (`bench board submit BOARD --job N`) and stages its outcome
# in the board's directory, which every node shares; a dependent job then
# logs the outcomes in submission order (`bench board collect`).
#
#   bin/bench board queue board --submitter alice ./bench-plugin-mine ...
#   array=$(sbatch --parsable --array="$(bin/bench board jobs board --array)" \
#     examples/slurm/board-array.sh board)
#   sbatch --dependency=afterany:"${array%%;*}" --wrap "bin/bench board collect board"
#
# Tasks take no lock and write only their own files (a working directory
# renamed into place when done), so any number may run at once; a task
# that Slurm requeues after its first attempt staged finds it staged and
# exits 0. A task exits 0 when it staged an outcome, a failed run's
# included: the failure is the row's. `afterany`, not `afterok`: collect
# logs what was staged and names, exit 1, any submission whose task died
# before staging; run `bench board submit board --job N` for it and
# collect again. The board's seed and key stay in board/private (mode
# 0700): no secret is on a command line.
#
#SBATCH --job-name=regretbench-board
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=01:00:00
#SBATCH --output=slurm-board-%A_%a.out
set -euo pipefail

board=${1:?usage: board-array.sh BOARD}
job=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array=\$(bench board jobs BOARD --array)}

exec bin/bench board submit "$board" --job "$job"
