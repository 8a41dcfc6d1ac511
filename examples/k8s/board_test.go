package k8smanifests

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

var (
	boardJobRe     = regexp.MustCompile(`bench board submit (\S+)\s+--job "\$\(\(FIRST \+ JOB_COMPLETION_INDEX\)\)"`)
	boardCollectRe = regexp.MustCompile(`bench board collect (\S+)`)
)

// checkBoardJobs checks the board's Indexed Job and its collect: each pod
// runs job FIRST + its index of one board, FIRST is set, the strict
// sandbox may make its namespaces, and the collect reads that board on
// the same claim with the same image.
func checkBoardJobs(jobs, collect *batchv1.Job) error {
	if err := checkPod(jobs); err != nil {
		return err
	}
	if err := checkPod(collect); err != nil {
		return err
	}
	s := jobs.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil {
		return fmt.Errorf("job %s: not an Indexed Job with completions: pods get no JOB_COMPLETION_INDEX", jobs.Name)
	}
	cmd, err := script(jobs)
	if err != nil {
		return err
	}
	m := boardJobRe.FindStringSubmatch(cmd)
	if m == nil {
		return fmt.Errorf("job %s: command %q has no bench board submit BOARD --job \"$((FIRST + JOB_COMPLETION_INDEX))\"", jobs.Name, cmd)
	}
	board := m[1]
	c := jobs.Spec.Template.Spec.Containers[0]
	first := false
	for _, e := range c.Env {
		if e.Name == "FIRST" {
			if _, err := strconv.Atoi(e.Value); err != nil {
				return fmt.Errorf("job %s: FIRST %q is not a job number", jobs.Name, e.Value)
			}
			first = true
		}
	}
	if !first {
		return fmt.Errorf("job %s: no env FIRST: every pod would run job JOB_COMPLETION_INDEX of the queue from 0", jobs.Name)
	}
	sc := c.SecurityContext
	if sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeUnconfined {
		return fmt.Errorf("job %s: no seccompProfile Unconfined: a runtime's default profile refuses the strict sandbox's namespaces", jobs.Name)
	}
	if collect.Spec.CompletionMode != nil && *collect.Spec.CompletionMode == batchv1.IndexedCompletion {
		return fmt.Errorf("job %s: the collect is Indexed; it must run once", collect.Name)
	}
	ccmd, err := script(collect)
	if err != nil {
		return err
	}
	cm := boardCollectRe.FindStringSubmatch(ccmd)
	if cm == nil || cm[1] != board {
		return fmt.Errorf("job %s: command %q does not collect the board %s the jobs run", collect.Name, ccmd, board)
	}
	a, err := mountedClaim(jobs, "/board")
	if err != nil {
		return err
	}
	b, err := mountedClaim(collect, "/board")
	if err != nil {
		return err
	}
	if a != b {
		return fmt.Errorf("job %s writes to claim %s but job %s reads claim %s", jobs.Name, a, collect.Name, b)
	}
	if x, y := c.Image, collect.Spec.Template.Spec.Containers[0].Image; x != y {
		return fmt.Errorf("job %s runs image %s but job %s runs %s", jobs.Name, x, collect.Name, y)
	}
	return nil
}

// TestBoardManifests decodes board-jobs.yaml and board-collect.yaml
// strictly and checks that they work together; and that the checks have
// teeth: each mistake is caught.
func TestBoardManifests(t *testing.T) {
	jobs := oneJob(t, "board-jobs.yaml")
	collect := oneJob(t, "board-collect.yaml")
	if err := checkBoardJobs(jobs, collect); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		spoil func(j, c *batchv1.Job)
	}{
		{"no FIRST", func(j, c *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Env = nil }},
		{"not indexed", func(j, c *batchv1.Job) { j.Spec.CompletionMode = nil }},
		{"default seccomp", func(j, c *batchv1.Job) { j.Spec.Template.Spec.Containers[0].SecurityContext = nil }},
		{"other board", func(j, c *batchv1.Job) {
			c.Spec.Template.Spec.Containers[0].Args[0] = "/opt/regretbench/bench board collect /board/other"
		}},
		{"other claim", func(j, c *batchv1.Job) {
			c.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName = "other"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, c := oneJob(t, "board-jobs.yaml"), oneJob(t, "board-collect.yaml")
			tc.spoil(j, c)
			if err := checkBoardJobs(j, c); err == nil {
				t.Error("accepted")
			}
		})
	}
}
