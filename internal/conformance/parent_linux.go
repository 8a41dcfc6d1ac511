package conformance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/regretbench/regretbench/internal/client"
)

// launcherEnv, set to a plugin's path, makes a program that calls
// ServeIntermediate first (bench, and the test binaries of host/conform,
// from its init) the intermediate process of the parent-death rule instead
// of itself: it launches the plugin, prints its pid and waits to be
// killed. The rule re-executes its own program this way, so no helper
// executable has to be installed.
const launcherEnv = "REGRETBENCH_SDKTEST_LAUNCH"

// ServeIntermediate makes this process the intermediate process of the
// parent-death rule when the rule re-executed it so (launcherEnv), and
// then never returns: it launches the plugin with start, as bench does,
// completes Describe, prints "pid N" and sleeps until killed. Otherwise it
// returns at once. A program that checks executables (CheckExecutable,
// RunExecutable) calls it before anything else, from an init.
func ServeIntermediate(start Launcher) {
	if path := os.Getenv(launcherEnv); path != "" {
		os.Exit(intermediate(path, start))
	}
}

func intermediate(path string, start Launcher) int {
	os.Unsetenv(launcherEnv) // not for the plugin
	timeout := 10 * time.Second
	if d, err := time.ParseDuration(os.Getenv(launcherEnv + "_TIMEOUT")); err == nil {
		timeout = d
	}
	c, err := start(path, client.StartOptions{StartTimeout: timeout})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := c.Describe(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		c.Close()
		return 1
	}
	kids := descendants(os.Getpid(), true)
	if len(kids) != 1 {
		fmt.Fprintf(os.Stderr, "launched %s, yet this process has %d child processes, want 1\n", path, len(kids))
		c.Close()
		return 1
	}
	fmt.Printf("pid %d\n", kids[0].pid)
	for {
		time.Sleep(time.Hour) // until SIGKILLed; a timer keeps the runtime from declaring a deadlock
	}
}

// checkParentDeath launches the executable through an intermediate process,
// SIGKILLs that process and waits for the plugin to exit. Whatever the
// outcome, it kills the plugin and its descendants itself at the end.
func checkParentDeath(h *Target) error {
	if h.s.exe == "" {
		return skipError("a plugin value served in process has no process of its own; `bench conform` checks its executable")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to re-execute as the intermediate process: %w", err)
	}
	exe, err := filepath.Abs(h.s.exe)
	if err != nil {
		return err
	}
	// The intermediate process dies before it can remove go-plugin's
	// socket directory, and the plugin before it removes its socket:
	// both go to a TMPDIR of the check's own, removed at the end (after
	// the plugin is killed: defers run last in, first out). Its name is
	// short, for the socket paths under it.
	tmp, err := os.MkdirTemp("", "c")
	if err != nil {
		return fmt.Errorf("a temporary directory for the intermediate process: %w", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(h.ctx, h.cfg.startTimeout+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), launcherEnv+"="+exe, launcherEnv+"_TIMEOUT="+h.cfg.startTimeout.String(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the intermediate process %s: %w", self, err)
	}
	waited := false
	defer func() {
		if !waited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	line, _ := bufio.NewReader(out).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid ")))
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		waited = true
		return fmt.Errorf("the intermediate process could not launch the plugin: %s", strings.TrimSpace(stderr.String()))
	}
	plugin := proc{pid: pid, start: startTime(pid)}
	// Whatever happens, leave nothing behind: the plugin and whatever it
	// started, as seen now and at the end.
	before := descendants(pid, false)
	defer func() {
		for _, p := range append(append(before, descendants(pid, false)...), plugin) {
			p.kill()
		}
	}()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing the intermediate process: %w", err)
	}
	cmd.Wait()
	waited = true
	killed := time.Now()
	for plugin.alive() {
		if time.Since(killed) > h.cfg.exitWithin {
			return fmt.Errorf("plugin process %d was still running %v after the process that launched it was SIGKILLed "+
				"(a plugin must exit when its parent dies: poll the parent pid, as the SDKs do)", pid, h.cfg.exitWithin)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// proc is a process, told apart from a later one with its pid by its
// start time.
type proc struct {
	pid   int
	start string
}

// stat returns the fields of /proc/pid/stat after the command name: state,
// ppid, ..., with starttime at index 19.
func stat(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(data)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

func startTime(pid int) string {
	if f := stat(pid); len(f) > 19 {
		return f[19]
	}
	return ""
}

// alive reports whether p runs: it exists, is not a zombie (which the
// process it was re-parented to may be slow to reap) and is the same.
func (p proc) alive() bool {
	f := stat(p.pid)
	return len(f) > 19 && f[0] != "Z" && f[0] != "X" && f[19] == p.start
}

func (p proc) kill() {
	if p.alive() {
		syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// descendants lists the live processes below pid (only its children when
// direct), from /proc.
func descendants(pid int, direct bool) []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := stat(n); len(f) > 1 && f[0] != "Z" {
			pp, _ := strconv.Atoi(f[1])
			parent[n] = pp
		}
	}
	var out []proc
	for n := range parent {
		for p, depth := parent[n], 1; p > 1; p, depth = parent[p], depth+1 {
			if p == pid {
				if !direct || depth == 1 {
					out = append(out, proc{pid: n, start: startTime(n)})
				}
				break
			}
			if _, ok := parent[p]; !ok {
				break
			}
		}
	}
	return out
}
