package e2e_test

// sandboxArgs: the flags that run bench at a sandbox level, for the
// sandbox, cheat and limits tests.

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	sandboxOnce   sync.Once
	sandboxFlag   bool   // bench has --sandbox
	strictMissing string // why --sandbox strict cannot run here, "" when it can
)

// sandboxArgs returns the flags that run bench at level: "off", "strict"
// or "default" (no flag). Before bench has --sandbox, off is no flag and
// strict fails the test; where the machine cannot sandbox strictly,
// strict and default (auto, which then falls back) skip, naming what is
// missing.
func sandboxArgs(t *testing.T, level string) []string {
	t.Helper()
	sandboxOnce.Do(func() {
		bench := filepath.Join(binDir, "bench")
		help, _ := combinedOutput(t, exec.Command(bench, "run", "--help"))
		if sandboxFlag = bytes.Contains(help, []byte("--sandbox")); !sandboxFlag {
			return
		}
		var stderr bytes.Buffer
		cmd := exec.Command(bench, "plugins", "--sandbox", "strict", "--plugin-dir", filepath.Join(binDir, "plugins"))
		cmd.Stderr = &stderr
		if err := runLimited(t, cmd); err != nil {
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
				strictMissing = strings.TrimSpace(stderr.String())
			}
		}
	})
	switch level {
	case "off":
		if !sandboxFlag {
			return nil
		}
		return []string{"--sandbox", "off"}
	case "strict":
		if !sandboxFlag {
			t.Fatal("bench has no --sandbox flag: this half fails until the sandbox lands")
		}
		if strictMissing != "" {
			t.Skipf("this machine cannot sandbox strictly: %s", strictMissing)
		}
		return []string{"--sandbox", "strict"}
	case "default":
		if sandboxFlag && strictMissing != "" {
			t.Skipf("--sandbox auto cannot be strict on this machine: %s", strictMissing)
		}
		return nil
	}
	t.Fatalf("unknown sandbox level %q", level)
	return nil
}
