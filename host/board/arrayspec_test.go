package board_test

import (
	"testing"

	"github.com/regretbench/regretbench/host/board"
)

// TestArraySpec: the Slurm --array of the jobs not staged, consecutive
// numbers as ranges.
func TestArraySpec(t *testing.T) {
	job := func(n int, staged bool) board.Job {
		return board.Job{Run: &board.RunPredicate{Submission: n}, Staged: staged}
	}
	for _, tt := range []struct {
		jobs []board.Job
		want string
	}{
		{nil, ""},
		{[]board.Job{job(0, false)}, "0"},
		{[]board.Job{job(0, false), job(1, false), job(2, false)}, "0-2"},
		{[]board.Job{job(3, false), job(4, true), job(5, false), job(6, false)}, "3,5-6"},
		{[]board.Job{job(3, true), job(4, true)}, ""},
	} {
		if got := board.ArraySpec(tt.jobs); got != tt.want {
			t.Errorf("ArraySpec(%v) = %q, want %q", tt.jobs, got, tt.want)
		}
	}
}
