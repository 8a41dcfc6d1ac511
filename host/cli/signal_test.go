package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// TestSignals runs the bench executable on a long scenario, signals it
// once its plugins are busy, and checks what it leaves behind: partial
// results and exit codes 130/143 for SIGINT/SIGTERM, and for every signal,
// SIGKILL included, no plugin process.
func TestSignals(t *testing.T) {
	dir := faultyPlugins(t)
	// Fast answers at once and says when it has played its last round;
	// Slow sleeps 5 ms a round, so it is still running when the signal
	// comes.
	sc := writeFile(t, "long.yaml", `
name: long
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 4000
runs: 2
seed: 1
policies:
  - {plugin: faulty-finisher, label: Fast}
  - {plugin: faulty-slow-steps, label: Slow}
`)
	for _, c := range []struct {
		name  string
		sig   syscall.Signal
		group bool // signal bench's whole process group, as a terminal or a batch scheduler does
		code  int  // -1: killed, no exit code
		rule  string
	}{
		{"SIGINT", syscall.SIGINT, false, cli.ExitInterrupted, "SIGINT writes partial results marked incomplete, exits 130 and stops every plugin"},
		{"Ctrl-C", syscall.SIGINT, true, cli.ExitInterrupted, "Ctrl-C reaches the plugins too, which ignore it and leave the shutdown to bench"},
		{"SIGTERM", syscall.SIGTERM, false, cli.ExitTerminated, "SIGTERM writes partial results marked incomplete, exits 143 and stops every plugin"},
		{"SIGTERM to the group", syscall.SIGTERM, true, cli.ExitTerminated, "when a scheduler terminates the whole group, the plugins die at once and bench still writes the finished policies"},
		{"SIGKILL", syscall.SIGKILL, false, -1, "plugins of a killed bench exit on their own (the SDK's parent watchdog)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Logf("rule: %s", c.rule)
			tmp := t.TempDir()
			out := filepath.Join(tmp, "r.json")
			progress, finished := filepath.Join(tmp, "progress"), filepath.Join(tmp, "done")
			cmd := exec.Command(filepath.Join(binDir, "bench"), "--plugin-dir", dir, "--scenario", sc, "--out", out, "-q")
			cmd.Env = append(os.Environ(), "FAULTY_PROGRESS="+progress, "FAULTY_DONE="+finished)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-done
			})

			// Wait until Fast has played its last round and Slow some of
			// its rounds; both plugins stay up until the run ends.
			deadline := time.Now().Add(60 * time.Second)
			for {
				data, _ := os.ReadFile(progress)
				_, err := os.Stat(finished)
				if r, _ := strconv.Atoi(string(data)); r >= 50 && err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the slow plugin never got going; stderr:\n%s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if n := len(pluginProcs(t)); n != 2 {
				t.Errorf("%d plugin processes running, want 2", n)
			}
			// Fast's plugin has answered its last round; leave the host a
			// moment to close the session and record the policy.
			time.Sleep(200 * time.Millisecond)
			pid := cmd.Process.Pid
			if c.group {
				pid = -pid
			}
			if err := syscall.Kill(pid, c.sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-done:
				done <- err // for the cleanup
			case <-time.After(60 * time.Second):
				t.Fatalf("bench did not exit after %v", c.sig)
			}
			assertNoPlugins(t)
			if c.code < 0 {
				return
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != c.code {
				t.Errorf("exit %v, want %d; stderr:\n%s", err, c.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "partial results written to "+out+", marked incomplete") {
				t.Errorf("stderr does not say partial results were written:\n%s", stderr.String())
			}
			f, rerr := results.ReadFile(out)
			if rerr != nil {
				t.Fatalf("partial results: %v", rerr)
			}
			if f.Complete {
				t.Errorf("partial results are marked complete")
			}
			// Only finished policies are written: Fast, not Slow.
			if len(f.Policies) != 1 || f.Policies[0].Label != "Fast" || f.Policies[0].Status != results.StatusOK ||
				len(f.Policies[0].Final["regret"]) != 2 {
				t.Errorf("partial results hold %d policies, want Fast alone, finished: %+v", len(f.Policies), f.Policies)
			}
			if !strings.Contains(stdout.String(), "Fast") {
				t.Errorf("the finished policy's results are not printed:\n%s", stdout.String())
			}
		})
	}
}
