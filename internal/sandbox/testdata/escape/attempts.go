//go:build linux

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inputs are what the attempts reach for: given by the environment
// (main.go) or by a plugin's parameters (plugin.go).
type inputs struct {
	host     int  // the process that stands for bench
	hostSeen bool // host was given or found, not the parent by default
	secret   string
	outside  string // a file it must not write
	tcp, udp string // addresses it must not reach
	// unixStream and unixDgram are paths of unix sockets it must not
	// reach; abstract an abstract socket's name (without the @).
	unixStream, unixDgram, abstract string
	token                           string // what it sends and writes
	hostEnv                         string // what read-host-environ looks for; "": any readable environment
	scan                            string // what proc-scan looks for in another process's command line
	private                         string // its private directory
	marker                          string // in its setsid helper's command line
	hostname                        string // the machine's host name
}

// An attempt is one way out of the sandbox: try returns what it got, or
// the error that stopped it.
type attempt struct {
	name string
	try  func(in *inputs) (string, error)
}

// attempts is the probe's one table: every way out that the sandbox's
// tests and host/cli's try, each under one name, in the order a run as
// itself makes them. What each must do at each level is the tests'
// business (internal/sandbox's sandbox_linux_test.go, docs/threat-model.md).
var attempts = []attempt{
	// The host's files and processes.
	{"read-etc-passwd", func(*inputs) (string, error) { return readFile("/etc/passwd") }},
	{"read-secret", func(in *inputs) (string, error) { return readFile(in.secret) }},
	{"read-host-environ", readHostEnviron},
	{"read-host-cmdline", func(in *inputs) (string, error) { return readFile(procFile(in.host, "cmdline")) }},
	{"read-host-exe", func(in *inputs) (string, error) { return readFile(procFile(in.host, "exe")) }},
	{"write-outside", func(in *inputs) (string, error) { return writeFile(in.outside, in.token) }},
	{"write-beside", func(in *inputs) (string, error) {
		// Where other plugins live: it could replace one.
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		return writeFile(filepath.Join(filepath.Dir(exe), "escaped-"+in.token), in.token)
	}},
	{"write-private", func(in *inputs) (string, error) {
		p := filepath.Join(privateDir(), "mine-"+in.token)
		defer os.Remove(p)
		return writeFile(p, in.token)
	}},
	{"env-leak", func(*inputs) (string, error) {
		if v := os.Getenv("ESCAPE_LEAK"); v != "" {
			return v, nil
		}
		return "", errors.New("not in the environment")
	}},
	{"proc-others", procOthers},
	{"hostname", func(in *inputs) (string, error) {
		// The machine's name, which a UTS namespace of its own hides.
		name, err := os.Hostname()
		if err != nil {
			return "", err
		}
		if in.hostname == "" || name != in.hostname {
			return "", fmt.Errorf("sees host name %q, not the machine's", name)
		}
		return name, nil
	}},
	{"proc-scan", procScan},
	{"signal-host", func(in *inputs) (string, error) {
		if !in.hostSeen {
			return "", fmt.Errorf("no bench in sight (parent %d)", in.host)
		}
		if err := unix.Kill(in.host, 0); err != nil {
			return "", fmt.Errorf("pid %d: %w", in.host, err)
		}
		return fmt.Sprintf("may signal pid %d", in.host), nil
	}},
	{"ptrace-host", func(in *inputs) (string, error) { return seize(in.host) }},
	{"vm-read-host", func(in *inputs) (string, error) { return vmRead(in.host) }},

	// The launcher (the parent: PID 1 of the PID namespace under
	// strict) is bench's executable: nothing of its memory or image may
	// show, nor anything of the run in its command line.
	{"launcher-mem", func(*inputs) (string, error) { return readMem(os.Getppid()) }},
	{"launcher-maps", func(*inputs) (string, error) { return readFile(procFile(os.Getppid(), "maps")) }},
	{"launcher-environ", func(*inputs) (string, error) { return readFile(procFile(os.Getppid(), "environ")) }},
	{"launcher-exe", func(*inputs) (string, error) { return readFile(procFile(os.Getppid(), "exe")) }},
	{"launcher-cmdline", launcherCmdline},
	{"signal-launcher", func(*inputs) (string, error) { return "", unix.Kill(os.Getppid(), 0) }},
	{"ptrace-launcher", func(*inputs) (string, error) { return seize(os.Getppid()) }},
	{"vm-read-launcher", func(*inputs) (string, error) {
		var b [8]byte
		local := []unix.Iovec{{Base: &b[0], Len: 8}}
		remote := []unix.RemoteIovec{{Base: uintptr(unsafe.Pointer(&b[0])), Len: 8}}
		_, err := unix.ProcessVMReadv(os.Getppid(), local, remote, 0)
		return "", err
	}},

	// The network, and sockets.
	{"tcp-connect", func(in *inputs) (string, error) { return dialSend("tcp", in.tcp, in.token) }},
	{"udp-connect", func(in *inputs) (string, error) { return dialSend("udp", in.udp, in.token) }},
	{"udp-sendto", func(in *inputs) (string, error) {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		defer c.Close()
		to, err := net.ResolveUDPAddr("udp", in.udp)
		if err != nil {
			return "", err
		}
		if _, err := c.WriteTo([]byte(in.token), to); err != nil {
			return "", err
		}
		return "sent to " + in.udp, nil
	}},
	{"unix-connect", func(in *inputs) (string, error) { return dialSend("unix", in.unixStream, in.token) }},
	{"unix-sendto", func(in *inputs) (string, error) {
		// A datagram to a path, without connect(2): only the path
		// stands in the way.
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		if err := unix.Sendto(fd, []byte(in.token), 0, &unix.SockaddrUnix{Name: in.unixDgram}); err != nil {
			return "", err
		}
		return "sent to " + in.unixDgram, nil
	}},
	{"socket-inet6", func(*inputs) (string, error) { return "", socket(unix.AF_INET6, unix.SOCK_STREAM) }},
	{"socket-netlink", func(*inputs) (string, error) { return "", socket(unix.AF_NETLINK, unix.SOCK_RAW) }},
	{"socket-unix-dgram", func(*inputs) (string, error) { return "", socket(unix.AF_UNIX, unix.SOCK_DGRAM) }},
	{"listen-unix", func(in *inputs) (string, error) {
		l, err := net.Listen("unix", filepath.Join(privateDir(), "s-"+in.token+".sock"))
		if err == nil {
			l.Close()
		}
		return "", err
	}},

	// The kernel.
	{"unshare-user", func(*inputs) (string, error) {
		// In a child: unshare applies to the calling thread's process.
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
		return "", cmd.Run()
	}},
	{"mount", func(*inputs) (string, error) {
		// On a directory of its own, unmounted at once: unconfined and
		// run as root, the probe shares the machine's mounts, and a
		// tmpfs over its TMPDIR (/tmp) would hide the machine's.
		d, err := os.MkdirTemp(privateDir(), "mnt-")
		if err != nil {
			return "", err
		}
		defer os.Remove(d)
		if err := unix.Mount("tmpfs", d, "tmpfs", 0, ""); err != nil {
			return "", err
		}
		if err := unix.Unmount(d, unix.MNT_DETACH); err != nil {
			return "", fmt.Errorf("mounted a tmpfs on %s, and could not unmount it: %w", d, err)
		}
		return "mounted a tmpfs on " + d, nil
	}},
	{"io-uring", func(*inputs) (string, error) {
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			return "", errno
		}
		unix.Close(int(fd))
		return "", nil
	}},
	{"capabilities", func(*inputs) (string, error) {
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			return "", err
		}
		if data[0].Effective == 0 && data[1].Effective == 0 {
			return "", errors.New("none")
		}
		return fmt.Sprintf("%#x", data[0].Effective), nil
	}},

	// Channels between two policies' plugins (channels.go).
	{"lock-flock", lockFlock},
	{"lock-fcntl", onShared(fcntlLock(unix.F_SETLK))},
	{"lock-fcntl-getlk", onShared(fcntlLock(unix.F_GETLK))},
	{"lock-ofd", onShared(fcntlLock(unix.F_OFD_SETLK))},
	{"lock-fcntl-highbits", onShared(fcntlHighBits)},
	{"lease", onShared(lease)},
	{"dnotify", dnotify},
	{"inotify", inotify},
	{"sysv-shm", sysvShm},
	{"sysv-msg", sysvMsg},
	{"sysv-sem", sysvSem},
	{"mqueue", mqueue},
	{"unix-connect-abstract", func(in *inputs) (string, error) { return dialSend("unix", "@"+in.abstract, "") }},

	// Last, for it must outlive the plugin: a helper in a session of its
	// own, which the tests look for after the plugin's end.
	{"setsid-helper", func(in *inputs) (string, error) {
		cmd := exec.Command(os.Args[0], "escape-helper-"+in.marker)
		cmd.Env = append(os.Environ(), "ESCAPE_ROLE=helper")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return "", err
		}
		return strconv.Itoa(cmd.Process.Pid), nil
	}},
}

func procFile(pid int, name string) string { return fmt.Sprintf("/proc/%d/%s", pid, name) }

func readFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	return strconv.Itoa(len(b)) + " bytes", err
}

func writeFile(p, data string) (string, error) {
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		return "", err
	}
	return "wrote " + p, nil
}

// privateDir is the plugin's own directory: TMPDIR, or the system's
// temporary directory when it runs unconfined without one (never the
// working directory).
func privateDir() string { return os.TempDir() }

// dialSend connects to addr and, if token is not empty, sends it.
func dialSend(network, addr, token string) (string, error) {
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if token != "" {
		if _, err := c.Write([]byte(token)); err != nil {
			return "", err
		}
	}
	return "connected to " + addr, nil
}

func socket(domain, typ int) error {
	fd, err := unix.Socket(domain, typ, 0)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// readHostEnviron reads the environment of the host, then of each
// ancestor; with in.hostEnv set, it looks there for "=" + in.hostEnv.
func readHostEnviron(in *inputs) (string, error) {
	var errs []error
	for _, pid := range append([]int{in.host}, ancestors()...) {
		data, err := os.ReadFile(procFile(pid, "environ"))
		if err != nil {
			errs = append(errs, fmt.Errorf("pid %d: %w", pid, err))
			continue
		}
		if in.hostEnv == "" {
			return fmt.Sprintf("pid %d: %d bytes", pid, len(data)), nil
		}
		if strings.Contains(string(data), "="+in.hostEnv+"\x00") {
			return fmt.Sprintf("the token is in the environment of pid %d", pid), nil
		}
		errs = append(errs, fmt.Errorf("pid %d: no token", pid))
	}
	return "", errors.Join(errs...)
}

// procOthers counts the processes it sees: more than the launcher,
// itself and its helper.
func procOthers(*inputs) (string, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return "", err
	}
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			n++
		}
	}
	if n <= 3 {
		return "", fmt.Errorf("only %d processes visible", n)
	}
	return strconv.Itoa(n) + " processes", nil
}

// procScan looks for another process whose command line holds in.scan.
func procScan(in *inputs) (string, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		argv, _ := os.ReadFile(procFile(pid, "cmdline"))
		if in.scan != "" && strings.Contains(string(argv), in.scan) {
			return fmt.Sprintf("pid %d: %s", pid, strings.ReplaceAll(string(argv), "\x00", " ")), nil
		}
	}
	return "", fmt.Errorf("no process with %q among %d entries of /proc", in.scan, len(ents))
}

// launcherCmdline reads the launcher's command line, which stays
// readable; it counts as an escape only if it shows something of the
// run: the plugin's directory or private directory, a scenario
// (--scenario, .yaml), or JSON.
func launcherCmdline(in *inputs) (string, error) {
	data, err := os.ReadFile(procFile(os.Getppid(), "cmdline"))
	if err != nil {
		return "", err
	}
	exe, _ := os.Executable()
	argv := string(data)
	for _, s := range []string{filepath.Dir(exe), in.private, "--scenario", ".yaml", "{"} {
		if s != "" && strings.Contains(argv, s) {
			return strconv.Quote(argv), nil
		}
	}
	return "", fmt.Errorf("shows nothing of the run: %q", argv)
}

// seize ptrace-seizes pid from a thread that then ends, which detaches
// it: PTRACE_DETACH needs the tracee in a ptrace-stop, which a seize
// without an interrupt never brings, and a tracee left attached to a
// live tracer would report its exit to it, not to its parent.
func seize(pid int) (string, error) {
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		done <- unix.PtraceSeize(pid)
	}()
	if err := <-done; err != nil {
		return "", fmt.Errorf("pid %d: %w", pid, err)
	}
	return fmt.Sprintf("seized pid %d", pid), nil
}

// vmRead reads 64 bytes of pid's memory with process_vm_readv, at the
// start of its first readable mapping (or at amd64's usual text start
// when its maps are hidden: the call is made either way).
func vmRead(pid int) (string, error) {
	addr, err := firstReadable(pid)
	if err != nil {
		addr = 0x400000
	}
	buf := make([]byte, 64)
	n, err := unix.ProcessVMReadv(pid, []unix.Iovec{{Base: &buf[0], Len: 64}},
		[]unix.RemoteIovec{{Base: addr, Len: 64}}, 0)
	if err != nil {
		return "", fmt.Errorf("pid %d: %w", pid, err)
	}
	return fmt.Sprintf("read %d bytes of pid %d", n, pid), nil
}

// readMem reads 64 bytes of pid's memory through /proc/PID/mem, at the
// start of its first readable mapping (or at amd64's usual text start
// when its maps are hidden).
func readMem(pid int) (string, error) {
	f, err := os.Open(procFile(pid, "mem"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	addr, err := firstReadable(pid)
	if err != nil {
		addr = 0x400000
	}
	b := make([]byte, 64)
	n, err := f.ReadAt(b, int64(addr))
	if n == 0 && err != nil {
		return "", err
	}
	return fmt.Sprintf("%d bytes of pid %d at %#x", n, pid, addr), nil
}
