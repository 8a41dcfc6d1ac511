package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/host/board"
)

// boardRecipeSubs are the submissions of the recipe tests' rounds.
var boardRecipeSubs = []struct{ submitter, plugin string }{
	{"alice", "ts"}, {"bob", "klucb"}, {"carol", "ucb1"},
}

// boardRecipeRound makes a board in dir/board with the submissions
// queued, as the recipes' headers say to before they run. Its runs audit
// one replication (the least a board takes): the recipes are at stake
// here, not the audit, whose cheat a board records as failed in
// host/board's TestBoardRound and TestJobsCollect.
func boardRecipeRound(t *testing.T, dir string) string {
	t.Helper()
	b := filepath.Join(dir, "board")
	scenario := filepath.Join(dir, "round.yaml")
	if err := os.WriteFile(scenario, []byte("name: round\nenvironment: {family: gaussian, means: [0.5, 0.45, 0.4], noise_sd: 1}\nhorizon: 200\nruns: 6\nseed: 7\npolicies: [{plugin: ts}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"board", "init", b, "--suite", scenario, "--audit", "1", "--conform=false"},
		{"board", "open", b},
	} {
		if out, stderr, code := runBench(t, dir, nil, args...); code != 0 {
			t.Fatalf("bench %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
		}
	}
	for _, s := range boardRecipeSubs {
		if out, stderr, code := runBench(t, dir, nil, "board", "queue", b, "--submitter", s.submitter, filepath.Join(binDir, "plugins", "bench-plugin-"+s.plugin)); code != 0 {
			t.Fatalf("queue %s: exit %d\n%s%s", s.plugin, code, out, stderr)
		}
	}
	return b
}

// runBench runs the bench executable in dir with env added.
func runBench(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "bench"), args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	return runCmd(t, cmd)
}

func runCmd(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := runLimited(t, cmd)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	return out.String(), errb.String(), code
}

// checkRecipeBoard: after the recipe's jobs and collect, the queue is
// empty, the rows are the queued submissions in their order, and every
// record verifies after the reveal.
func checkRecipeBoard(t *testing.T, b string) {
	t.Helper()
	if out, stderr, code := runBench(t, filepath.Dir(b), nil, "board", "jobs", b); code != 0 || out != "" {
		t.Errorf("the queue after collect: exit %d\n%s%s", code, out, stderr)
	}
	bd, err := board.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := bd.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(boardRecipeSubs) {
		t.Fatalf("%d rows, want %d", len(rows), len(boardRecipeSubs))
	}
	for i, r := range rows {
		if r.Run.Submission != i || r.Index != int64(i+1) || r.Run.Plugin != boardRecipeSubs[i].plugin || r.Run.Outcome != board.OutcomeOK {
			t.Errorf("row %d: submission %d, log record %d, %s %s (%s); want submission %d, record %d, %s ok", i, r.Run.Submission, r.Index, r.Run.Plugin, r.Run.Outcome, r.Run.Reason, i, i+1, boardRecipeSubs[i].plugin)
		}
	}
	if out, stderr, code := runBench(t, filepath.Dir(b), nil, "board", "reveal", b); code != 0 {
		t.Fatalf("reveal: exit %d\n%s%s", code, out, stderr)
	}
	if out, stderr, code := runBench(t, filepath.Dir(b), nil, "verify", b); code != 0 || strings.Count(out, ": verified") != 1+len(boardRecipeSubs) {
		t.Errorf("verify: exit %d\n%s%s", code, out, stderr)
	}
}

// TestBoardSlurmScript runs examples/slurm/board-array.sh as a Slurm
// array would, its tasks at once with SLURM_ARRAY_TASK_ID set by hand
// (examples/slurm/check.sh runs it on a real Slurm), then the collect its
// header gives: every submission is logged in order and verifies. Without
// SLURM_ARRAY_TASK_ID the script refuses, saying how to run it.
func TestBoardSlurmScript(t *testing.T) {
	sandboxArgs(t, "strict")
	dir := t.TempDir()
	if err := os.Symlink(binDir, filepath.Join(dir, "bin")); err != nil {
		t.Fatal(err)
	}
	b := boardRecipeRound(t, dir)
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "slurm", "board-array.sh"))
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runBench(t, dir, nil, "board", "jobs", "board", "--array")
	if code != 0 || strings.TrimSpace(out) != "0-2" {
		t.Fatalf("jobs --array: exit %d, %q, want 0-2\n%s", code, out, stderr)
	}
	cmd := exec.Command("bash", script, "board")
	cmd.Dir = dir
	if out, stderr, code := runCmd(t, cmd); code == 0 || !strings.Contains(stderr, "sbatch --array") {
		t.Errorf("the script without SLURM_ARRAY_TASK_ID: exit %d, want a refusal naming sbatch --array\n%s%s", code, out, stderr)
	}
	var wg sync.WaitGroup
	for i := range boardRecipeSubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("bash", script, "board")
			cmd.Dir, cmd.Env = dir, append(os.Environ(), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i))
			if out, stderr, code := runCmd(t, cmd); code != 0 || !strings.Contains(out, "staged for log record") {
				t.Errorf("task %d: exit %d\n%s%s", i, code, out, stderr)
			}
		}()
	}
	wg.Wait()
	if out, stderr, code := runBench(t, dir, nil, "board", "collect", "board"); code != 0 {
		t.Fatalf("collect: exit %d\n%s%s", code, out, stderr)
	}
	checkRecipeBoard(t, b)
}

// manifestScript returns the shell script and environment of the one
// container of the Kubernetes Job in file, the board's directory and
// bench's path replaced by this test's.
func manifestScript(t *testing.T, file, b string) (string, []string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		Spec struct {
			Completions *int `yaml:"completions"`
			Template    struct {
				Spec struct {
					Containers []struct {
						Command []string                       `yaml:"command"`
						Args    []string                       `yaml:"args"`
						Env     []struct{ Name, Value string } `yaml:"env"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &job); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 || len(cs[0].Args) != 1 || strings.Join(cs[0].Command, " ") != "/bin/sh -c" {
		t.Fatalf("%s: want one container running /bin/sh -c SCRIPT", file)
	}
	s := strings.ReplaceAll(cs[0].Args[0], "/opt/regretbench/bench", filepath.Join(binDir, "bench"))
	s = strings.ReplaceAll(s, "/board/round", b)
	var env []string
	for _, e := range cs[0].Env {
		env = append(env, e.Name+"="+e.Value)
	}
	return s, env
}

// TestBoardIndexedJob runs the scripts of examples/k8s/board-jobs.yaml
// as its Indexed Job's pods would, at once, each with its
// JOB_COMPLETION_INDEX and the manifest's environment (FIRST), then
// board-collect.yaml's: every submission is logged in order and
// verifies. (examples/k8s's own test decodes the manifests strictly
// against k8s.io/api; no cluster runs them here.)
func TestBoardIndexedJob(t *testing.T) {
	sandboxArgs(t, "strict")
	dir := t.TempDir()
	b := boardRecipeRound(t, dir)
	k8s := filepath.Join("..", "..", "examples", "k8s")
	jobScript, env := manifestScript(t, filepath.Join(k8s, "board-jobs.yaml"), b)
	if !strings.Contains(strings.Join(env, " "), "FIRST=0") {
		t.Fatalf("board-jobs.yaml's environment %v has no FIRST=0, the first job of this queue", env)
	}
	var wg sync.WaitGroup
	for i := range boardRecipeSubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("/bin/sh", "-c", jobScript)
			cmd.Dir, cmd.Env = dir, append(append(os.Environ(), env...), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
			if out, stderr, code := runCmd(t, cmd); code != 0 || !strings.Contains(out, "staged for log record") {
				t.Errorf("pod %d: exit %d\n%s%s", i, code, out, stderr)
			}
		}()
	}
	wg.Wait()
	collectScript, _ := manifestScript(t, filepath.Join(k8s, "board-collect.yaml"), b)
	cmd := exec.Command("/bin/sh", "-c", collectScript)
	cmd.Dir = dir
	if out, stderr, code := runCmd(t, cmd); code != 0 {
		t.Fatalf("collect: exit %d\n%s%s", code, out, stderr)
	}
	checkRecipeBoard(t, b)
}
