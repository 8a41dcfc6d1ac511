package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/internal/launch"
)

// TestLongTMPDIR: a TMPDIR too long for a plugin's unix socket is exit 2
// before any plugin starts, naming TMPDIR and what to do; before, every
// plugin failed with a hint that blamed the plugin ("is it a regretbench
// plugin?"). A TMPDIR at the limit runs.
func TestLongTMPDIR(t *testing.T) {
	t.Parallel()
	// The longest TMPDIR a confined plugin's socket fits under.
	room := launch.MaxSocketPath - len("/plugin-dir") - 10 - len("/plugin") - 10
	base := t.TempDir()
	if len(base)+2 > room {
		t.Skipf("the test's temporary directory %s is already too long to test with", base)
	}
	dirOf := func(n int) string {
		d := base + "/" + strings.Repeat("d", n-len(base)-1)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	args := []string{filepath.Join(binDir, "bench"), "--plugin-dir", filepath.Join(binDir, "plugins"),
		"--scenario", "quick", "--runs", "2", "--horizon", "40", "-q", "--start-timeout", "2m"}
	for _, c := range []struct {
		name    string
		n       int
		sandbox string
		ok      bool
	}{
		{"at the limit", room, "auto", true},
		{"a byte longer", room + 1, "auto", false},
		{"unconfined, far longer", room + 30, "off", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := dirOf(c.n)
			b := startBench(t, []string{"TMPDIR=" + dir, "BENCH_SANDBOX=" + c.sandbox}, args...)
			code := b.exit(t, 5*time.Minute)
			stderr := b.stderr.String()
			if c.ok {
				if code != 0 {
					t.Errorf("exit %d with TMPDIR of %d bytes; stderr:\n%s", code, len(dir), stderr)
				}
				return
			}
			want := "bench: TMPDIR " + dir + " is too long for a unix socket path ("
			if code != cli.ExitInput || !strings.Contains(stderr, want) || !strings.Contains(stderr, "set TMPDIR to a shorter directory") {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, cli.ExitInput, want, stderr)
			}
			if strings.Contains(stderr, "plugin") && !strings.Contains(stderr, "a plugin's socket") {
				t.Errorf("the error blames a plugin:\n%s", stderr)
			}
		})
	}
}
