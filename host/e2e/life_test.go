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

// TestPanicStack: the error paragraph of a panicking policy is short; the
// full stack is on stderr and in the results file's error.
func TestPanicStack(t *testing.T) {
	t.Parallel()
	dir := faultyPlugins(t)
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, code := bench(t, "--plugin-dir", dir, "--scenario", faultScenario(t, "faulty-panic"), "--out", out, "-q")
	if code != cli.ExitPolicy {
		t.Fatalf("exit %d, want %d\n%s", code, cli.ExitPolicy, stderr)
	}
	head, msg, ok := strings.Cut(stderr, "bench: policy failed")
	if !ok {
		t.Fatalf("no error paragraph:\n%s", stderr)
	}
	if n := strings.Count(strings.TrimSpace(msg), "\n") + 1; n > 8 {
		t.Errorf("the error paragraph has %d lines:\n%s", n, msg)
	}
	for _, w := range []string{"policy panicked: faulty panic: boom at round 5", "at main.(*batch).boom ("} {
		if !strings.Contains(msg, w) {
			t.Errorf("the error paragraph lacks %q:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, "goroutine ") {
		t.Errorf("the error paragraph holds the stack:\n%s", msg)
	}
	broken := policyByLabel(readResults(t, out), "Broken")
	for where, text := range map[string]string{"stderr": head, "the results file's error": broken.Error} {
		for _, w := range []string{`policy "Broken"`, "goroutine ", "main.(*batch).boom(", "main.(*batch).Step("} {
			if where != "stderr" && w == `policy "Broken"` {
				continue
			}
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q:\n%s", where, w, text)
			}
		}
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestStrayProcesses: what a plugin starts ends with it, and nothing that
// holds its stdout or stderr makes bench wait.
func TestStrayProcesses(t *testing.T) {
	faulty := faultyPlugins(t)
	ts := filepath.Join(binDir, "plugins", "bench-plugin-ts")
	for _, c := range []struct {
		name   string
		plugin string // a script written into the plugin directory, or a faulty mode
		script string // %[1]s: the pid file, %[2]s: the real ts plugin
		rule   string
	}{
		{"wrapper with a background job", "wrapped", "#!/bin/sh\nsleep 600 &\necho $! > %[1]s\nexec %[2]s\n",
			"a wrapper script's background job, which holds the plugin's pipes, is killed with the plugin and does not make bench wait"},
		{"stray in a session of its own", "escaped", "#!/bin/sh\nsetsid sleep 600 &\necho $! > %[1]s\nexec %[2]s\n",
			"a process that left the plugin's process group (setsid) and holds its pipes is killed with the plugin, at every sandbox level, and does not make bench wait"},
		{"helper process", "faulty-helper", "",
			"a helper process a plugin starts does not outlive bench"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Logf("rule: %s", c.rule)
			tmp := t.TempDir()
			pidFile := filepath.Join(tmp, "pid")
			dir := faulty
			if c.script != "" {
				dir = filepath.Join(tmp, "plugins")
				os.Mkdir(dir, 0o755)
				if err := os.WriteFile(filepath.Join(dir, "bench-plugin-"+c.plugin), []byte(fmt.Sprintf(c.script, pidFile, ts)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Link(ts, filepath.Join(dir, "bench-plugin-ts")); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(tmp, "r.json")
			sc := writeFile(t, "s.yaml", fmt.Sprintf(`
name: stray
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 50
runs: 3
seed: 1
policies: [{plugin: %s, label: Wrapped}, {plugin: ts, label: TS}]
`, c.plugin))
			// The plugins write their helper's pid to the test's file:
			// unconfined, which still reaps every descendant.
			b := startBench(t, []string{"BENCH_SANDBOX=off", "FAULTY_HELPER_PID=" + pidFile}, filepath.Join(binDir, "bench"), "--plugin-dir", dir, "--audit", "0", "--scenario", sc, "--out", out, "-q")
			// Before the fix bench waited for the stray, 600 s.
			code := b.exit(t, 60*time.Second)
			data, err := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil || pid <= 0 {
				t.Fatalf("no stray pid: %v %q", err, data)
			}
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, b.stderr.String())
			}
			for _, p := range readResults(t, out).Policies {
				if p.Status != results.StatusOK {
					t.Errorf("%s: %s %s", p.Label, p.Status, p.Error)
				}
			}
			if alive(pid) {
				t.Errorf("the plugin's process %d outlived bench", pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
			assertNoPlugins(t)
		})
	}
}

// TestPaperInterrupted: bench paper stopped by a signal exits 130 or 143
// and writes the scenarios that finished, and only those.
func TestPaperInterrupted(t *testing.T) {
	skipShort(t, "bench paper interrupted by SIGINT and SIGTERM (every scenario of the paper)")
	t.Parallel() // with plugins of its own: see ownPlugins
	faulty := faultyPlugins(t)
	// The shipped plugins, but KL-UCB hangs on two arms: with one job at
	// a time, cheapest last, it is the last job to run (remaxgrad_two_arm's
	// KL-UCB), so every other scenario has finished when it hangs.
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, cli.ExitInterrupted}, {syscall.SIGTERM, cli.ExitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			t.Parallel()
			// Under binDir (see ownPlugins): assertNoPluginsIn checks
			// these plugins, as it could not in a t.TempDir().
			dir := ownPlugins(t, filepath.Join(binDir, "plugins"), "ts", "remax", "remaxgrad")
			if err := os.Link(filepath.Join(faulty, "faulty.bin"), filepath.Join(dir, "bench-plugin-klucb")); err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			out, mark := filepath.Join(tmp, "paper"), filepath.Join(tmp, "mark")
			b := startBench(t, []string{"BENCH_SANDBOX=off", "FAULTY_MODE=hang-k2", "FAULTY_PROGRESS=" + mark},
				filepath.Join(binDir, "bench"), "--plugin-dir", dir, "paper", "--runs", "2", "--horizon", "120",
				"--jobs", "1", "--plot-format", "png", "--out", out)
			b.waitFiles(t, mark)
			syscall.Kill(b.cmd.Process.Pid, c.sig)
			// KL-UCB hangs forever: bench exits because it stops it.
			// 25 s fired under load (bench paper then writes its
			// figures): the limit is stopLimit's.
			code := b.exit(t, stopLimit)
			stderr := b.stderr.String()
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, "not finished: remaxgrad_two_arm") {
				t.Errorf("stderr does not name the scenario left unfinished:\n%s", stderr)
			}
			for _, name := range []string{"remaxgrad_ten_arm", "ten_arm", "remaxgrad_three_arm", "three_arm", "failure_mode", "obd", "movielens"} {
				f := readResults(t, filepath.Join(out, name+".json"))
				if !f.Complete || len(f.Policies) == 0 {
					t.Errorf("%s: complete %v, %d policies", name, f.Complete, len(f.Policies))
				}
				if _, err := os.Stat(filepath.Join(out, name+"_regret.png")); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			for _, name := range []string{"remaxgrad_two_arm", "two_arm"} {
				if _, err := os.Stat(filepath.Join(out, name+".json")); err == nil {
					t.Errorf("the unfinished %s was written", name)
				}
			}
			assertNoPluginsIn(t, dir)
		})
	}
}

// TestOutUnwritable: when --out cannot be written (here: the file size
// limit, as a full disk would), the tables are printed all the same and
// bench fails naming --out.
func TestOutUnwritable(t *testing.T) {
	t.Parallel()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit(1)")
	}
	out := filepath.Join(t.TempDir(), "r.json")
	b := startBench(t, nil, prlimit, "--fsize=1024", filepath.Join(binDir, "bench"), "--plugin-dir", filepath.Join(binDir, "plugins"),
		"--scenario", "quick", "--runs", "4", "--horizon", "200", "-q", "--out", out)
	code := b.exit(t, 60*time.Second)
	stdout, stderr := b.stdout.String(), b.stderr.String()
	if code != cli.ExitFailure {
		t.Errorf("exit %d, want %d", code, cli.ExitFailure)
	}
	if !strings.Contains(stdout, "Regret at T=200") {
		t.Errorf("the tables were not printed:\n%s", stdout)
	}
	if !strings.Contains(stderr, "--out "+out) || !strings.Contains(stderr, "file too large") {
		t.Errorf("stderr does not name --out and the cause:\n%s", stderr)
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
