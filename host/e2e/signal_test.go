package e2e_test

import (
	"fmt"
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

// benchProc is the bench executable running in a process group of its own.
type benchProc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
	err            error
}

// startBench starts argv (bench's path and arguments, or a wrapper
// command) with env added to the environment, after BENCH_START_TIMEOUT
// set to testStartTimeout. The test's cleanup kills it.
func startBench(t *testing.T, env []string, argv ...string) *benchProc {
	t.Helper()
	b := &benchProc{cmd: exec.Command(argv[0], argv[1:]...), done: make(chan struct{})}
	b.cmd.Env = append(append(os.Environ(), "BENCH_START_TIMEOUT="+testStartTimeout), env...)
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b.cmd.Stdout, b.cmd.Stderr = &b.stdout, &b.stderr
	// A plugin that outlives bench with its output keeps the wait a
	// minute at most.
	b.cmd.WaitDelay = time.Minute
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		b.err = b.cmd.Wait()
		close(b.done)
	}()
	t.Cleanup(func() {
		b.cmd.Process.Kill()
		<-b.done
	})
	return b
}

// stopLimit is how long a test waits for bench to exit once it was told
// to stop (a signal), or for an event of a running bench: a limit that
// must not fire, so generous on a loaded machine (eight busy loops on two
// cores stretch bench paper's exit past 25 s). The faults these tests
// catch make bench wait for a plugin that never answers, or that answers
// after the step timeout of 10 minutes they set: those still fail.
const stopLimit = 3 * time.Minute

// waitFor polls until ok holds, failing the test if bench exits first or
// nothing happens within stopLimit.
func (b *benchProc) waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(stopLimit)
	for !ok() {
		select {
		case <-b.done:
			t.Fatalf("bench exited (%v) before %s; stderr:\n%s", b.err, what, b.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v; stderr:\n%s", what, stopLimit, b.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFiles waits until every file exists.
func (b *benchProc) waitFiles(t *testing.T, paths ...string) {
	t.Helper()
	b.waitFor(t, "file "+strings.Join(paths, ", "), func() bool {
		for _, p := range paths {
			if _, err := os.Stat(p); err != nil {
				return false
			}
		}
		return true
	})
}

// exit waits for bench to exit, at most limit, and returns its exit code,
// -1 when a signal killed it.
func (b *benchProc) exit(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(limit):
		t.Fatalf("bench did not exit within %v; stderr:\n%s", limit, b.stderr.String())
	}
	if b.err == nil {
		return 0
	}
	if ee, ok := b.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	t.Fatalf("bench: %v", b.err)
	return 0
}

// TestSignals runs the bench executable on a long scenario, signals it
// once its plugins are busy, and checks what it leaves behind: partial
// results and exit codes 130/143 for SIGINT/SIGTERM, and for every signal,
// SIGKILL included, no plugin process.
func TestSignals(t *testing.T) {
	skipShort(t, "SIGINT and SIGTERM to a running bench process")
	t.Parallel() // with plugins of its own: see ownPlugins
	dir := faultyPlugins(t)
	// Fast answers at once and says when the host closes its session, its
	// rounds all played; Slow sleeps 5 ms a round, so it is still running
	// when the signal comes. Hang hangs in Close, Frozen stops itself
	// (SIGSTOP) at round 5.
	scen := func(second string) string {
		return writeFile(t, "long.yaml", fmt.Sprintf(`
name: long
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 4000
runs: 2
seed: 1
policies:
  - {plugin: faulty-finisher, label: Fast}
  - {plugin: %s, label: Slow}
`, second))
	}
	timeout, _ := exec.LookPath("timeout")
	for _, c := range []struct {
		name    string
		second  string // the plugin of the second policy, Slow
		sig     syscall.Signal
		group   bool // signal bench's whole process group, as a terminal or a batch scheduler does
		timeout bool // run bench under coreutils timeout and signal that
		code    int  // -1: killed, no exit code
		rule    string
	}{
		{"SIGINT", "faulty-slow-steps", syscall.SIGINT, false, false, cli.ExitInterrupted, "SIGINT writes partial results marked incomplete, exits 130 and stops every plugin"},
		{"Ctrl-C", "faulty-slow-steps", syscall.SIGINT, true, false, cli.ExitInterrupted, "Ctrl-C reaches bench alone (plugins have process groups of their own), and bench stops them"},
		{"SIGTERM", "faulty-slow-steps", syscall.SIGTERM, false, false, cli.ExitTerminated, "SIGTERM writes partial results marked incomplete, exits 143 and stops every plugin"},
		{"SIGTERM to the group", "faulty-slow-steps", syscall.SIGTERM, true, false, cli.ExitTerminated, "when a scheduler terminates the whole group, bench still writes the finished policies and stops the plugins"},
		{"timeout(1)", "faulty-slow-steps", syscall.SIGTERM, false, true, cli.ExitTerminated, "coreutils timeout signals bench, then its process group: one signal twice is not a second request, and the partial results are written"},
		{"SIGTERM, a plugin hangs in Close", "faulty-hang-close", syscall.SIGTERM, false, false, cli.ExitTerminated, "a plugin hanging in Close does not hold up the exit on SIGTERM"},
		{"SIGTERM, a plugin is frozen", "faulty-sigstop", syscall.SIGTERM, false, false, cli.ExitTerminated, "a frozen plugin (SIGSTOP) is killed and does not hold up the exit on SIGTERM"},
		{"SIGKILL", "faulty-slow-steps", syscall.SIGKILL, false, false, -1, "plugins of a killed bench exit on their own (the SDK's parent watchdog)"},
		{"SIGKILL, a plugin is frozen", "faulty-sigstop", syscall.SIGKILL, false, false, -1, "a frozen plugin of a killed bench goes too: its process group is orphaned, so the kernel sends it SIGHUP and SIGCONT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each case waits for bench to stop its plugins: they run in
			// parallel, each with plugins of its own.
			t.Parallel()
			t.Logf("rule: %s", c.rule)
			if c.timeout && timeout == "" {
				t.Skip("no timeout(1)")
			}
			own := ownPlugins(t, dir, "faulty-finisher", c.second)
			tmp := t.TempDir()
			out := filepath.Join(tmp, "r.json")
			progress, finished, mark := filepath.Join(tmp, "progress"), filepath.Join(tmp, "done"), filepath.Join(tmp, "mark")
			argv := []string{filepath.Join(binDir, "bench"), "--plugin-dir", own, "--scenario", scen(c.second), "--out", out, "-q",
				"--step-timeout", "10m"} // a hang is not cut short by the step timeout
			if c.timeout {
				argv = append([]string{timeout, "600"}, argv...)
			}
			// The fixture marks its progress in the test's files: unconfined.
			b := startBench(t, []string{"BENCH_SANDBOX=off", "FAULTY_PROGRESS=" + progress, "FAULTY_DONE=" + finished, "FAULTY_MARK=" + mark}, argv...)

			// Wait until Fast's session is being closed, its rounds all
			// played, and Slow is busy: some of its rounds played, or
			// its fault happening. Both plugins stay up until the run
			// ends.
			b.waitFiles(t, finished)
			if c.second == "faulty-slow-steps" {
				b.waitFor(t, "50 rounds of Slow", func() bool {
					data, _ := os.ReadFile(progress)
					r, _ := strconv.Atoi(string(data))
					return r >= 50
				})
			} else {
				b.waitFiles(t, mark)
			}
			if n := len(pluginProcsIn(t, own)); n != 2 {
				t.Errorf("%d plugin processes running, want 2", n)
			}
			pid := b.cmd.Process.Pid
			if c.group {
				pid = -pid
			}
			if err := syscall.Kill(pid, c.sig); err != nil {
				t.Fatal(err)
			}
			// Bounded: bench gives its plugins closeGrace (5 s) and
			// kills them, where a hanging or frozen plugin would hold it
			// forever. Not timed against a grace period here: on a
			// loaded machine the wall clock says nothing of bench.
			code := b.exit(t, stopLimit)
			assertNoPluginsIn(t, own)
			if c.code < 0 {
				return
			}
			stderr := b.stderr.String()
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, "partial results written to "+out+", marked incomplete") {
				t.Errorf("stderr does not say partial results were written:\n%s", stderr)
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
			if !strings.Contains(b.stdout.String(), "Fast") {
				t.Errorf("the finished policy's results are not printed:\n%s", b.stdout.String())
			}
		})
	}
}
