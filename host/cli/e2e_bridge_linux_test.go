package cli_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/testbin"
)

// This file holds, for the two end-to-end test files that still live in
// host/cli (sandbox_cheat_linux_test.go and audit_linux_test.go, with
// their fixtures in testdata/cheat), copies of the helpers of host/e2e
// that they use. When they move to host/e2e this file is deleted.

// binDir holds bench and the real plugin executables, built once by
// TestMain exactly as `make build` lays them out (linked from the cache of
// internal/testbin, which other test processes share).
var binDir string

var shipped = []string{"ts", "klucb", "remax", "remaxgrad", "ucb1", "moss", "exp3", "swucb", "ducb"}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "regretbench-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	mains := []testbin.Main{{Pkg: "github.com/regretbench/regretbench/cmd/bench", Name: "bench"}}
	for _, p := range shipped {
		mains = append(mains, testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-" + p, Name: "plugins/bench-plugin-" + p})
	}
	if err := testbin.Build(dir, testbin.Options{}, mains...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Much of this package's time is spent waiting: for plugins to start,
	// for timeouts (--step-timeout, close grace, parent death) to expire.
	// Its tests run in parallel unless they set environment variables or
	// look at every plugin process (those that check processes while
	// others run use plugins of their own: ownPlugins), and more of them
	// at once than the default of one per core, unless -parallel is given.
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", strconv.Itoa(max(4, runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// skipShort skips the test under -short (make test-short), naming what it
// covers; go test without -short (make test, CI) runs it.
func skipShort(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: skips %s; go test without -short (make test) runs it", what)
	}
}

// bench runs the CLI in process (the plugins are still real processes) and
// returns stdout, stderr and the exit code. A command that starts plugins
// gets --start-timeout testStartTimeout unless args set one. In process,
// no shipped plugins are beside bench (the test executable): the shipped
// ones of binDir are given as --plugin-dir unless args give a --plugin-dir
// of their own, and then they are not found at all, so that a test's own
// directory is all a test sees.
func bench(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	args = testArgs(args)
	err := cli.Run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), cli.ExitCode(err)
}

// testArgs gives args bench's test defaults: a generous --start-timeout
// (generousStart) and the shipped plugins of binDir as --plugin-dir
// unless args give a --plugin-dir of their own.
func testArgs(args []string) []string {
	args = generousStart(args)
	for _, a := range args {
		if a == "--plugin-dir" || strings.HasPrefix(a, "--plugin-dir=") {
			return args
		}
	}
	return append([]string{"--plugin-dir", filepath.Join(binDir, "plugins")}, args...)
}

// testStartTimeout is the start timeout of the tests' plugins, unless a
// test sets its own: bench's default, 10 s, is short of what a Python
// plugin takes to start (import numpy and grpc) on a loaded machine, and
// the tests must not depend on how busy the machine is. startBench passes
// it as BENCH_START_TIMEOUT.
const testStartTimeout = "2m"

// startingCommands are the commands with --start-timeout ("" is bench
// itself, a run).
var startingCommands = map[string]bool{"": true, "run": true, "paper": true, "plugins": true, "conform": true}

// generousStart inserts --start-timeout testStartTimeout right after the
// command of args (at the start for bench itself) when it starts plugins
// and args do not set the flag: there it cannot become the value of a
// flag a test leaves without one. A test that checks the command line a
// run records sets the flag itself.
func generousStart(args []string) []string {
	at, cmd := 0, ""
	for i, a := range args {
		if a == "--start-timeout" || strings.HasPrefix(a, "--start-timeout=") || a == "--" {
			return args
		}
		if cmd == "" && knownCommand[a] {
			at, cmd = i+1, a // no test gives a flag a command's name as its value
		}
	}
	if !startingCommands[cmd] {
		return args
	}
	return append(append(append([]string(nil), args[:at]...), "--start-timeout", testStartTimeout), args[at:]...)
}

// knownCommand are bench's commands, to find the one args name.
var knownCommand = map[string]bool{"run": true, "paper": true, "plugins": true, "conform": true, "plot": true, "gate": true,
	"merge": true, "report": true, "scenarios": true, "show": true, "version": true, "help": true, "completion": true}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runExit runs cmd to its end and returns its stdout, stderr and exit
// code; an error other than a non-zero exit (the executable could not
// start) fails the test.
func runExit(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return out.String(), errb.String(), code
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

func readResults(t *testing.T, path string) *results.File {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func policyByLabel(f *results.File, label string) *results.Policy {
	for _, p := range f.Policies {
		if p.Label == label {
			return p
		}
	}
	return nil
}

// pluginProc is a live process started from a plugin file.
type pluginProc struct {
	pid  int
	ppid int
	path string
}

// pluginProcsIn lists live (non-zombie) processes whose program, or
// script run by an interpreter, is a bench-plugin-* file under dir.
func pluginProcsIn(t *testing.T, dir string) []pluginProc {
	t.Helper()
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("cannot list the processes of plugins left behind without /proc: %v", err)
	}
	var out []pluginProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		for _, a := range append([]string{exe}, argv[:min(2, len(argv))]...) {
			if strings.HasPrefix(filepath.Base(a), "bench-plugin-") &&
				(strings.HasPrefix(a, root+"/") || strings.HasPrefix(a, dir+"/")) {
				out = append(out, pluginProc{pid, ppid, a})
				break
			}
		}
	}
	return out
}

// assertNoPluginsIn is assertNoPlugins for the plugins under dir alone: a
// test that runs in parallel with others checks its own directory (see
// ownPlugins), not the processes of the others.
func assertNoPluginsIn(t *testing.T, dir string) {
	t.Helper()
	// Generous: the processes are usually gone at once, but a loaded
	// machine may take seconds to end them; the loop returns as soon as
	// they are.
	deadline := time.Now().Add(time.Minute)
	for {
		left := pluginProcsIn(t, dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				t.Errorf("plugin process left behind: pid %d (parent %d) %s", p.pid, p.ppid, p.path)
				syscallKill(p.pid)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func syscallKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// repoRoot is the module root, from this file's location.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test source")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// linkOrCopy puts a copy of src at dst with src's mode, by a hard link when
// the file system allows one.
func linkOrCopy(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(src, dst) == nil {
		return
	}
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, st.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of go-plugin's
// logger.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

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
