package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/internal/procrun"
)

// TestSweepPrivateDirs: a bench SIGKILLed mid-run leaves its plugins'
// private directories in TMPDIR (it removes nothing); the next bench
// removes them, as their owner is gone, and keeps a directory whose owner
// runs (one marked with this test's own pid): never a live bench's.
func TestSweepPrivateDirs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	privates := func() []string {
		ents, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "plugin-dir") && e.IsDir() {
				out = append(out, e.Name())
			}
		}
		return out
	}
	// A long run, SIGKILLed once its plugins run.
	b := startBench(t, env, filepath.Join(binDir, "bench"), "--plugin-dir", filepath.Join(binDir, "plugins"),
		"--scenario", "quick", "--runs", "100000", "--horizon", "100000", "-q")
	b.waitFor(t, "a private directory and its owner marker in TMPDIR", func() bool {
		for _, d := range privates() {
			if _, err := os.Stat(filepath.Join(tmp, d+".bench-owner")); err == nil {
				return true
			}
		}
		return false
	})
	if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	b.exit(t, time.Minute)
	left := privates()
	if len(left) == 0 {
		t.Fatal("the SIGKILLed bench left no private directory: this test proves nothing")
	}
	t.Logf("the SIGKILLed bench left %v", left)

	// A directory whose owner, this test, runs.
	live := filepath.Join(tmp, "plugin-dir-live")
	if err := os.Mkdir(live, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := procrun.MarkOwner(live); err != nil {
		t.Fatal(err)
	}

	next := startBench(t, env, filepath.Join(binDir, "bench"), "--plugin-dir", filepath.Join(binDir, "plugins"),
		"--scenario", "quick", "--runs", "2", "--horizon", "40", "--policy", "TS", "-q")
	if code := next.exit(t, 5*time.Minute); code != 0 {
		t.Fatalf("the next bench: exit %d\n%s", code, next.stderr.String())
	}
	if got := privates(); len(got) != 1 || got[0] != "plugin-dir-live" {
		t.Errorf("after the next bench, TMPDIR holds the private directories %v, want only plugin-dir-live", got)
	}
	for _, d := range left {
		if _, err := os.Lstat(filepath.Join(tmp, d+".bench-owner")); err == nil {
			t.Errorf("the owner marker of %s is left", d)
		}
	}
	if _, err := os.Stat(live + ".bench-owner"); err != nil {
		t.Errorf("the live directory's marker is gone: %v", err)
	}
}
