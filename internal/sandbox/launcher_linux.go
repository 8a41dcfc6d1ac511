package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
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

func fail(code int, format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "regretbench sandbox: "+format+"\n", args...)
	return code
}

// launcherMain makes the launcher non-dumpable, confines a thread of its
// own, starts the plugin from that thread, so that the plugin inherits
// the confinement, and waits: for the plugin to exit, for bench to die or
// to ask (EOF or SIGTERM), then kills every descendant and exits.
func launcherMain() int {
	s, err := readSpec()
	if err != nil {
		return fail(exitSetup, "bad launch spec: %v", err)
	}
	// Limits first: the launcher joins its cgroup and sets the rlimits
	// that apply to the whole process before any thread or child exists.
	if err := applyLimits(s.Limits); err != nil {
		return fail(exitSetup, "%v", err)
	}
	// Non-dumpable: the launcher's /proc/PID/{mem,maps,environ,exe,root,
	// cwd,fd,...} then need CAP_SYS_PTRACE in its user namespace, which
	// the plugin, with every capability dropped, lacks; so does ptrace.
	// The launcher is bench's executable, every scenario embedded in it.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(exitSetup, "making the launcher non-dumpable: %v", err)
	}
	syscall.CloseOnExec(lifelineFD)
	lifeline := os.NewFile(lifelineFD, "lifeline")
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(exitSetup, "becoming a child subreaper: %v", err)
	}
	ns := s.Layers&Namespaces != 0
	if ns {
		if err := setupNamespaces(); err != nil {
			return fail(exitSetup, "%v", err)
		}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)

	// Confinement is per thread (Landlock, seccomp without TSYNC, no new
	// privileges, capabilities). It happens on a thread of its own, not
	// on the thread-group leader, which starts the plugin and then ends:
	// the launcher itself stays outside the plugin's Landlock domain, so
	// that Landlock's signal scope (ABI 6) forbids the plugin to signal
	// it (the scope is checked against the target's domain).
	ch := make(chan launched, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine, and the
		// runtime runs nothing else on it meanwhile.
		runtime.LockOSThread()
		ch <- startConfined(s)
	}()
	st := <-ch
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
	if ns {
		// The PID namespace's init exiting kills all that is left in it.
		return code
	}
	// Without a PID namespace, kill the descendants one generation at a
	// time (this thread is not confined: it may read /proc): each one
	// killed hands its own children to this process.
	killDescendants()
	return code
}

// launched is what startConfined did: the plugin's command, or the
// launcher's exit code when it failed.
type launched struct {
	cmd  *exec.Cmd
	code int // exitSetup or exitStart; 0 when it succeeded
}

// startConfined applies s's layers to the calling thread and starts the
// plugin from it.
func startConfined(s spec) (st launched) {
	if s.Layers != 0 {
		if err := confine(s); err != nil {
			st.code = fail(exitSetup, "%v", err)
			return st
		}
	}
	if s.Probe {
		return st
	}
	// The plugin gets its standard streams and nothing else that bench's
	// own parent may have left open without close-on-exec.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		st.code = fail(exitSetup, "marking inherited descriptors close-on-exec: %v", err)
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

// setupNamespaces makes the mount namespace private and mounts a fresh
// /proc for the new PID namespace, of which this process is init.
func setupNamespaces() error {
	// Never touch the mounts of a namespace that is not the launcher's
	// own: started without its clone flags (by a bug of its caller), a
	// launcher running as root would remount the machine's /proc.
	if os.Getpid() != 1 {
		return fmt.Errorf("namespaces: the launcher is not the init of a new PID namespace (pid %d); refusing to mount", os.Getpid())
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("namespaces: making the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("namespaces: mounting a fresh /proc: %w", err)
	}
	unix.Sethostname([]byte("regretbench-sandbox"))
	return nil
}

// confine applies s's Landlock and seccomp layers to the calling thread,
// and drops every capability, for good: the plugin, started from this
// thread, inherits all of it.
func confine(s spec) error {
	var rulesetFD = -1
	var rulesetFlags uint32
	if s.Layers&Landlock != 0 {
		fd, flags, err := landlockRuleset(s)
		if err != nil {
			return fmt.Errorf("landlock: building the ruleset: %w", err)
		}
		if fd < 0 {
			return errors.New("landlock: not available")
		}
		defer unix.Close(fd)
		rulesetFD, rulesetFlags = fd, flags
	}
	var prog *unix.SockFprog
	if s.Layers&Seccomp != 0 {
		p, err := seccompProgram()
		if err != nil {
			return fmt.Errorf("seccomp: building the filter: %w", err)
		}
		prog = p
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if rulesetFD >= 0 {
		if err := llsys.LandlockRestrictSelf(rulesetFD, rulesetFlags); err != nil {
			return fmt.Errorf("landlock: enforcing the ruleset: %w", err)
		}
	}
	if prog != nil {
		if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafePointer(prog)), 0, 0); err != nil {
			return fmt.Errorf("seccomp: loading the filter: %w", err)
		}
	}
	return nil
}

// dropCapabilities makes sure that the plugin holds no capability: the
// launcher is root in its user namespace (it mounted /proc), and bench may
// run as root. With SECBIT_NOROOT an execve by uid 0 gains none, and the
// bounding and ambient sets are emptied. An unprivileged launcher without
// namespaces has no capability to drop, nor the right to set the bits.
func dropCapabilities() error {
	var hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("reading capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return nil
	}
	const bits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 // NOROOT, NO_SETUID_FIXUP, KEEP_CAPS, each locked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, bits, 0, 0, 0); err != nil {
		return fmt.Errorf("setting the secure bits: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
}

// killDescendants kills every child of this process with SIGKILL and reaps
// it, until none is left. As a child subreaper, this process inherits the
// children of each one killed, however deep they had nested or whatever
// session they had started: the loop ends only when wait reports none.
func killDescendants() {
	self := os.Getpid()
	for {
		for _, pid := range childrenOf(self) {
			unix.Kill(pid, unix.SIGKILL)
		}
		var ws unix.WaitStatus
		_, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.ECHILD) {
			return
		}
		// Reap what has died; a child that is not dead yet (being killed,
		// or just inherited) is found again on the next pass.
		for {
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err != nil || pid <= 0 {
				break
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var kids []int
	for _, n := range names {
		p, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(p); ok && ppid == pid {
			kids = append(kids, p)
		}
	}
	return kids
}

// parentOf reads the parent pid of pid from /proc/pid/stat.
func parentOf(pid int) (int, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(line[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}
