package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
)

// pyResidue is a Python plugin for TestNoResidueInTMPDIR: epsilon-greedy
// on the repository's SDK (%q: its directory), which, run as
// bench-plugin-pykill, SIGKILLs its own process at round 5, so
// that nothing of it (atexit, a signal handler, the Close RPC) can clean
// up. Its sessions play in the plugin's one process (no fork per
// session), the one that made the socket.
const pyResidue = `#!/usr/bin/python3
import os
import signal
import sys

sys.path.insert(0, %q)
os.environ["REGRETBENCH_PY_FORK"] = "0"
import regretbench as rb  # noqa: E402

KILL = os.path.basename(sys.argv[0]) == "bench-plugin-pykill"


class Greedy(rb.Policy):
    def __init__(self, s, replica):
        self.k, self.rng = s.arms, replica.rng
        self.sum, self.n = [0.0] * s.arms, [0] * s.arms

    def select(self, t):
        if KILL and t == 5:
            sys.stderr.write("pykill: killing myself at round 5\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        if self.rng.random() < 0.1 or 0 in self.n:
            return int(self.rng.integers(self.k))
        means = [s / n for s, n in zip(self.sum, self.n)]
        return means.index(max(means))

    def observe(self, t, arm, reward):
        self.sum[arm] += reward
        self.n[arm] += 1


rb.serve(rb.Plugin(os.path.basename(sys.argv[0])[len("bench-plugin-"):], "1.0.0", new=Greedy))
`

// TestNoResidueInTMPDIR: a run of bench leaves nothing in the machine's
// temporary directory (TMPDIR), at any sandbox level, whatever its
// plugins are (Go or Python) and however they end: cleanly, crashing
// (os.Exit) or SIGKILLed mid-run. Each plugin gets a private directory,
// its TMPDIR, made by bench and removed once the plugin's process is gone.
// Before, an unconfined Go plugin that died left go-plugin's socket
// TMPDIR/pluginN and an unconfined Python plugin its socket directory
// TMPDIR/plugin-NAME-xxxxxxxx.
func TestNoResidueInTMPDIR(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	faulty := faultyPlugins(t)
	sdk := filepath.Join(repoRoot(t), "sdk", "python")
	python := pythonSkipReason()
	type plugin struct {
		name string // bench-plugin-NAME
		die  bool   // it dies mid-run: exit ExitPolicy, not 0
		py   bool
	}
	for _, level := range []string{"off", "default"} {
		for _, c := range []struct {
			name    string
			plugins []plugin
		}{
			{"Go, one crashes", []plugin{{"faulty-crash-exit", true, false}, {"ts", false, false}}},
			{"Python, one SIGKILLed", []plugin{{"pykill", true, true}, {"pyok", false, true}}},
		} {
			t.Run(level+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				var names []string
				py, die := false, false
				for _, p := range c.plugins {
					py, die = py || p.py, die || p.die
					if !p.py {
						names = append(names, p.name)
					}
				}
				if py {
					skipShort(t, "runs of Python plugins")
					if python != "" {
						t.Skip(python)
					}
				}
				dir := ownPlugins(t, faulty, names...)
				args := []string{filepath.Join(binDir, "bench"), "--plugin-dir", dir, "-q", "--step-timeout", "5m"}
				if py {
					src := fmt.Sprintf(pyResidue, sdk)
					for _, p := range c.plugins {
						if err := os.WriteFile(filepath.Join(dir, "bench-plugin-"+p.name), []byte(src), 0o755); err != nil {
							t.Fatal(err)
						}
					}
					if level == "default" {
						args = append(args, "--sandbox-read", sdk)
					}
				}
				if level == "off" {
					args = append(args, "--sandbox", "off")
				}
				var scen strings.Builder
				scen.WriteString("name: residue\nenvironment: {means: [0.7, 0.4], noise_sd: 1}\nhorizon: 20\nruns: 3\nseed: 1\npolicies:\n")
				for _, p := range c.plugins {
					fmt.Fprintf(&scen, "  - {plugin: %s}\n", p.name)
				}
				args = append(args, "--scenario", writeFile(t, "residue.yaml", scen.String()), "--out", filepath.Join(t.TempDir(), "r.json"))

				// Short: a Python plugin's socket,
				// TMPDIR/plugin-dirN/plugin-NAME-xxxxxxxx/plugin.sock,
				// must fit a unix socket's path.
				tmp, err := os.MkdirTemp("", "rs")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(tmp) })
				b := startBench(t, []string{"TMPDIR=" + tmp}, args...)
				code := b.exit(t, cmdLimit)
				stderr := b.stderr.String()
				want := cli.ExitOK
				if die {
					want = cli.ExitPolicy
				}
				if code != want {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, want, stderr)
				}
				if die && !strings.Contains(stderr, "round 5") {
					t.Errorf("the plugin did not die at round 5, as the test means it to; stderr:\n%s", stderr)
				}
				assertNoPluginsIn(t, dir)
				left, err := filepath.Glob(filepath.Join(tmp, "*"))
				if err != nil {
					t.Fatal(err)
				}
				if len(left) > 0 {
					t.Errorf("bench left %d entries in its TMPDIR %s: %v", len(left), tmp, left)
				}
			})
		}
	}
}

// pythonSkipReason says why the Python plugins cannot run here (no
// /usr/bin/python3, or one without grpc, protobuf or numpy); "" when they
// can. Unlike pythonWithGRPC, it sets no environment, so that a test
// using it may run in parallel.
func pythonSkipReason() string {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		return fmt.Sprintf("Python plugins run under %s, which is missing: %v", python, err)
	}
	if out, err := exec.Command(python, "-c", "import grpc, google.protobuf, numpy").CombinedOutput(); err != nil {
		return fmt.Sprintf("%s cannot import grpc, protobuf and numpy (install Debian's python3-grpcio, python3-protobuf and python3-numpy): %s",
			python, strings.TrimSpace(lastLine(string(out))))
	}
	return ""
}
