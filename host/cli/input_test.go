package cli_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// benchProcess runs the bench executable with args and returns stdout,
// stderr and the exit code, failing the test when it is still running
// after two minutes (a hang check, not a timing assertion: each call here
// takes a second or two). A process, not bench in process, so that a hang
// can be ended.
func benchProcess(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "bench"), args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("bench %v: still running after two minutes (hung); stderr:\n%s", args, stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatalf("bench %v: %v", args, err)
	return "", "", 0
}

// TestPluginNotRegularFile: a plugin directory entry that is not a regular
// executable file once its links are resolved (a FIFO, a link to
// /dev/zero, a dangling link, a link loop, a link to a directory) is
// refused without being opened: bench plugins lists it as FAILED naming
// the path and what it is, the others as usual, and a run naming it fails
// that policy alone (exit 3), as a file without an exec bit does. Before,
// computing the SHA-256 opened the FIFO (blocking until a writer came) or
// read /dev/zero without end, and a dangling link was "plugin : stat :
// no such file or directory", without its path.
func TestPluginNotRegularFile(t *testing.T) {
	t.Parallel()
	dir := freshPluginDir(t, "ts")
	entry := func(name string) string { return filepath.Join(dir, "bench-plugin-"+name) }
	if err := syscall.Mkfifo(entry("fifo"), 0o755); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	target := t.TempDir() // of the link to a directory
	for name, target := range map[string]string{
		"zero":     "/dev/zero",
		"dangling": "gone/bench-plugin-x",
		"loop":     "bench-plugin-loop",
		"dir":      target,
	} {
		if err := os.Symlink(target, entry(name)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"fifo":     ": a named pipe (FIFO), not a regular executable file",
		"zero":     ": a symbolic link to /dev/zero, a character device, not a regular executable file",
		"dangling": ": a dangling symbolic link to gone/bench-plugin-x (which does not exist)",
		"loop":     ": a symbolic link loop (to bench-plugin-loop)",
		"dir":      ": a symbolic link to " + target + ", a directory, not a regular executable file",
	}

	t.Run("plugins", func(t *testing.T) {
		stdout, stderr, code := benchProcess(t, "plugins", "--plugin-dir", dir)
		if code != cli.ExitPolicy {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitPolicy, stderr)
		}
		for name, w := range want {
			if line := "\n" + name + "  FAILED  (" + entry(name) + ")\n  error: plugin " + entry(name) + w; !strings.Contains(stdout, line) {
				t.Errorf("stdout lacks %q:\n%s", line, stdout)
			}
		}
		if !strings.Contains(stdout, "\nts ") || !strings.Contains(stderr, "5 of 6 plugin(s) FAILED") {
			t.Errorf("ts not listed, or the failures not counted; stdout:\n%s\nstderr:\n%s", stdout, stderr)
		}
	})

	for name, w := range want {
		t.Run("run "+name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "r.json")
			_, stderr, code := benchProcess(t, "--plugin-dir", dir, "--scenario", faultScenario(t, name), "--out", out, "-q")
			if code != cli.ExitPolicy {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitPolicy, stderr)
			}
			if msg := "plugin " + entry(name) + w; !strings.Contains(stderr, msg) {
				t.Errorf("stderr lacks %q:\n%s", msg, stderr)
			}
			f, err := results.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if p := policyByLabel(f, "TS"); p == nil || p.Status != results.StatusOK {
				t.Errorf("TS did not run beside the refused plugin: %+v", p)
			}
			if p := policyByLabel(f, "Broken"); p == nil || p.Status != results.StatusFailed {
				t.Errorf("Broken: %+v, want failed", p)
			}
		})
	}
}
