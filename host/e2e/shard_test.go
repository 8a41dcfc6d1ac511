package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// canonicalFile is a results file with wall-clock timings removed, and
// the bench build: the tests compare files written by the bench binary
// with files written by the test binary, two builds of the same code.
func canonicalFile(t *testing.T, path string) string {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Bench = nil
	for _, p := range f.Policies {
		p.Seconds = 0
	}
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestShardsAsProcesses: 4 shards run as parallel bench processes merge
// into exactly the unsharded run's file (timings aside), and merge refuses
// an incomplete set with exit 2.
func TestShardsAsProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"--scenario", "three_arm", "--runs", "30", "--horizon", "600", "-q"}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := 0; i < 4; i++ {
		cmd := exec.Command(filepath.Join(binDir, "bench"), append(args, "--shard", fmt.Sprintf("%d/4", i), "--out", filepath.Join(dir, fmt.Sprintf("part-%d.json", i)))...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.WaitDelay = time.Minute
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		if err := waitLimited(t, cmd); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i])
		}
	}
	full := filepath.Join(dir, "full.json")
	if _, stderr, code := bench(t, append(args, "--out", full)...); code != 0 {
		t.Fatalf("unsharded run: exit %d\n%s", code, stderr)
	}
	merged := filepath.Join(dir, "all.json")
	parts := []string{"merge", "--out", merged}
	for _, i := range []int{3, 1, 0, 2} {
		parts = append(parts, filepath.Join(dir, fmt.Sprintf("part-%d.json", i)))
	}
	if _, stderr, code := bench(t, parts...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if canonicalFile(t, merged) != canonicalFile(t, full) {
		t.Fatal("merged shards differ from the unsharded run")
	}
	_, stderr, code := bench(t, "merge", "--out", filepath.Join(dir, "x.json"), parts[3], parts[4])
	if code != cli.ExitInput || !strings.Contains(stderr, "missing shard") {
		t.Fatalf("incomplete merge: exit %d, stderr %s", code, stderr)
	}
}

// TestResume: --resume keeps the policies already in --out and runs the
// rest; the result equals a fresh run.
func TestResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"--scenario", "quick", "--runs", "20", "--horizon", "300", "-q"}
	fresh := filepath.Join(dir, "fresh.json")
	if _, stderr, code := bench(t, append(args, "--out", fresh)...); code != 0 {
		t.Fatalf("fresh: exit %d\n%s", code, stderr)
	}
	part := filepath.Join(dir, "part.json")
	if _, stderr, code := bench(t, append(args, "--out", part, "--policy", "KL-UCB")...); code != 0 {
		t.Fatalf("partial: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := bench(t, append(args, "--out", part, "--resume")...); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if canonicalFile(t, part) != canonicalFile(t, fresh) {
		t.Fatal("resumed run differs from a fresh run")
	}
	// A file of another run is refused, not overwritten.
	_, stderr, code := bench(t, "--scenario", "quick", "--runs", "21", "--horizon", "300", "-q", "--out", part, "--resume")
	if code != cli.ExitInput || !strings.Contains(stderr, "another run") {
		t.Fatalf("foreign file: exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(part); err != nil {
		t.Fatal(err)
	}
}
