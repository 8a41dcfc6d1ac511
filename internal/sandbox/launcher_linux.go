package sandbox

// The launcher: bench re-executed under launcherName. It reads its spec,
// confines itself and the thread that starts the plugin (confine, in
// confine_linux.go), starts the plugin, and waits.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// launcherName is the launcher's argv[0]: bench re-executes itself under
// this name, and init then runs the launcher instead of the program.
const launcherName = "regretbench-sandbox"

// lifelineFD is the launcher's file descriptor of the pipe whose other end
// bench holds: when it reads EOF, bench has died or wants the plugin gone.
const lifelineFD = 3

// specFD is the launcher's file descriptor of a memfd that holds its spec
// as JSON. The spec is not in argv: /proc/PID/cmdline, unlike the rest of
// a non-dumpable process's /proc entries, stays readable to the plugin
// (the launcher is PID 1 of its PID namespace), and the spec names paths
// (--sandbox-read) a plugin has no business knowing.
const specFD = 4

// spec is what bench tells the launcher, as JSON on specFD.
type spec struct {
	Path   string   `json:"path"`            // the plugin executable
	Dir    string   `json:"dir"`             // the plugin's private directory: HOME, TMPDIR, cwd
	Layers Layers   `json:"layers"`          // the confinement to apply
	Read   []string `json:"read,omitempty"`  // paths it may read and execute
	Write  []string `json:"write,omitempty"` // paths it may also write
	Probe  bool     `json:"probe,omitempty"` // confine, report, exit: no plugin

	// Limits are the cgroup to join and the rlimits to set, first thing
	// (limits_linux.go).
	Limits *launchLimits `json:"limits,omitempty"`
}

func init() {
	if len(os.Args) == 1 && os.Args[0] == launcherName {
		os.Exit(launcherMain())
	}
}

// readSpec reads the launcher's spec from specFD and closes it.
func readSpec() (spec, error) {
	var s spec
	f := os.NewFile(specFD, "spec")
	if f == nil {
		return s, errors.New("no spec descriptor")
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<26))
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(data, &s)
}

// Exit codes of the launcher itself; a plugin's own exit code is passed
// on, and a plugin killed by signal N gives 128+N.
const (
	exitSetup = 125 // the sandbox could not be set up
	exitStart = 126 // the plugin could not be started
)

// failPrefix begins every error the launcher writes on stderr; the probe
// (detect_linux.go) reads what follows it.
const failPrefix = "regretbench sandbox: "

func fail(code int, format string, args ...any) int {
	fmt.Fprintf(os.Stderr, failPrefix+format+"\n", args...)
	return code
}

// launcherMain confines the launcher and a thread of its own, starts the
// plugin from that thread, so that the plugin inherits the confinement,
// and waits: for the plugin to exit, for bench to die or to ask (EOF or
// SIGTERM), then kills every descendant and exits.
func launcherMain() int {
	s, err := readSpec()
	if err != nil {
		return fail(exitSetup, "bad launch spec: %v", err)
	}
	syscall.CloseOnExec(lifelineFD)
	lifeline := os.NewFile(lifelineFD, "lifeline")
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)

	st := confine(s, func() launched { return startPlugin(s) })
	if st.code != 0 || s.Probe {
		return st.code
	}
	cmd := st.cmd
	done := make(chan int, 1)
	go func() {
		cmd.Wait()
		done <- exitCode(cmd.ProcessState)
	}()
	ended := make(chan struct{})
	go func() {
		io.Copy(io.Discard, lifeline) // returns at EOF: bench is gone or done
		close(ended)
	}()
	code := 0
	select {
	case code = <-done:
	case <-ended:
		code = 128 + int(syscall.SIGKILL)
	case sig := <-sigs:
		code = 128 + int(sig.(syscall.Signal))
	}
	if s.Layers&Namespaces != 0 {
		// The PID namespace's init exiting kills all that is left in it.
		return code
	}
	// Without a PID namespace, kill the descendants one generation at a
	// time (this thread is not confined: it may read /proc): each one
	// killed hands its own children to this process (reaper_linux.go).
	killDescendants()
	return code
}

// nonDumpable makes the launcher non-dumpable: its /proc/PID/{mem,maps,
// environ,exe,root,cwd,fd,...} then need CAP_SYS_PTRACE in its user
// namespace, which the plugin, with every capability dropped, lacks; so
// does ptrace. The launcher is bench's executable, every scenario
// embedded in it (package doc).
func nonDumpable(*setup) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("making the launcher non-dumpable: %w", err)
	}
	return nil
}

// launched is what the launcher's setup and start did: the plugin's
// command, or the launcher's exit code when it failed.
type launched struct {
	cmd  *exec.Cmd
	code int // exitSetup or exitStart; 0 when it succeeded
}

// startPlugin starts the plugin of s from the calling thread, which
// confine has confined; in probe mode it starts nothing.
func startPlugin(s spec) (st launched) {
	if s.Probe {
		return st
	}
	cmd := exec.Command(s.Path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if s.Layers != 0 {
		cmd.Dir = s.Dir
	}
	if err := cmd.Start(); err != nil {
		st.code = fail(exitStart, "starting plugin %s: %v", s.Path, err)
		return st
	}
	st.cmd = cmd
	return st
}

// exitCode is the exit code that passes st on: its own, or 128+N for a
// process killed by signal N.
func exitCode(st *os.ProcessState) int {
	if st == nil {
		return exitStart
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// closeInherited marks every descriptor above the standard streams
// close-on-exec: the plugin gets its standard streams and nothing else
// that bench's own parent may have left open without close-on-exec.
func closeInherited(*setup) error {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("marking inherited descriptors close-on-exec: %w", err)
	}
	return nil
}
