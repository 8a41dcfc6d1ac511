// Command escape tries, one by one, what a hostile plugin would try to
// learn about or reach beyond itself, and prints one line per attempt:
// "NAME ok [detail]" when it worked, "NAME denied: ERROR" when it did not.
// The sandbox's tests run it confined and unconfined. Its inputs come from
// ESCAPE_* environment variables, which the tests let through.
package main

import (
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

// seize ptrace-seizes pid from a thread that then ends, which detaches
// it: PTRACE_DETACH needs the tracee in a ptrace-stop, which a seize
// without an interrupt never brings, and a tracee left attached to a
// live tracer would report its exit to it, not to its parent.
func seize(pid int) error {
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		done <- unix.PtraceSeize(pid)
	}()
	return <-done
}

// readMem reads 64 bytes of pid's memory through /proc/PID/mem, at the
// start of its first readable mapping (or at amd64's usual text start
// when its maps are hidden).
func readMem(pid int) (string, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return "", err
	}
	defer f.Close()
	addr := int64(0x400000)
	if maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid)); err == nil {
		for _, line := range strings.Split(string(maps), "\n") {
			f := strings.Fields(line)
			if len(f) > 1 && strings.HasPrefix(f[1], "r") {
				lo, _, _ := strings.Cut(f[0], "-")
				if a, err := strconv.ParseInt(lo, 16, 64); err == nil {
					addr = a
					break
				}
			}
		}
	}
	b := make([]byte, 64)
	n, err := f.ReadAt(b, addr)
	if n == 0 && err != nil {
		return "", err
	}
	return fmt.Sprintf("%d bytes at %#x", n, addr), nil
}

func main() {
	if os.Getenv("ESCAPE_ROLE") == "helper" {
		for {
			time.Sleep(time.Hour) // a helper that wants to outlive its plugin
		}
	}
	host, _ := strconv.Atoi(os.Getenv("ESCAPE_HOSTPID"))
	tmp := os.Getenv("TMPDIR")
	try := func(name string, f func() (string, error)) {
		detail, err := f()
		if err != nil {
			fmt.Printf("%s denied: %v\n", name, err)
			return
		}
		fmt.Printf("%s ok %s\n", name, detail)
	}
	read := func(p string) func() (string, error) {
		return func() (string, error) {
			b, err := os.ReadFile(p)
			return strconv.Itoa(len(b)) + " bytes", err
		}
	}
	try("read-etc-passwd", read("/etc/passwd"))
	try("read-secret", read(os.Getenv("ESCAPE_SECRET")))
	try("read-host-environ", read(fmt.Sprintf("/proc/%d/environ", host)))
	try("read-host-cmdline", read(fmt.Sprintf("/proc/%d/cmdline", host)))
	try("read-host-exe", read(fmt.Sprintf("/proc/%d/exe", host)))
	try("write-outside", func() (string, error) {
		return "", os.WriteFile(filepath.Join(os.Getenv("ESCAPE_OUTDIR"), "escaped"), []byte("x"), 0o644)
	})
	try("write-private", func() (string, error) {
		return "", os.WriteFile(filepath.Join(tmp, "mine"), []byte("x"), 0o644)
	})
	try("env-leak", func() (string, error) {
		if v := os.Getenv("ESCAPE_LEAK"); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("not in the environment")
	})
	try("proc-others", func() (string, error) {
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
		if n <= 3 { // the launcher, this process, its helper
			return "", fmt.Errorf("only %d processes visible", n)
		}
		return strconv.Itoa(n) + " processes", nil
	})
	try("signal-host", func() (string, error) { return "", syscall.Kill(host, 0) })
	// The launcher (the parent: PID 1 of the PID namespace under strict)
	// is bench's executable: nothing of its memory or image may show.
	launcher := os.Getppid()
	lp := func(name string) string { return fmt.Sprintf("/proc/%d/%s", launcher, name) }
	try("launcher-mem", func() (string, error) { return readMem(launcher) })
	try("launcher-maps", read(lp("maps")))
	try("launcher-environ", read(lp("environ")))
	try("launcher-exe", read(lp("exe")))
	try("launcher-cmdline", func() (string, error) {
		b, err := os.ReadFile(lp("cmdline"))
		return strconv.Quote(string(b)), err // the test checks what it shows
	})
	try("signal-launcher", func() (string, error) { return "", syscall.Kill(launcher, 0) })
	try("ptrace-parent", func() (string, error) { return "", seize(launcher) })
	try("ptrace-host", func() (string, error) { return "", seize(host) })
	try("process-vm-readv", func() (string, error) {
		var b [8]byte
		local := []unix.Iovec{{Base: &b[0], Len: 8}}
		remote := []unix.RemoteIovec{{Base: uintptr(unsafe.Pointer(&b[0])), Len: 8}}
		_, err := unix.ProcessVMReadv(os.Getppid(), local, remote, 0)
		return "", err
	})
	try("tcp-connect", func() (string, error) {
		c, err := net.DialTimeout("tcp", os.Getenv("ESCAPE_TCP"), 5*time.Second)
		if err == nil {
			c.Close()
		}
		return "", err
	})
	try("udp-send", func() (string, error) {
		c, err := net.Dial("udp", os.Getenv("ESCAPE_UDP"))
		if err != nil {
			return "", err
		}
		defer c.Close()
		_, err = c.Write([]byte("escaped"))
		return "", err
	})
	try("unix-connect", func() (string, error) {
		c, err := net.Dial("unix", os.Getenv("ESCAPE_UNIX"))
		if err == nil {
			c.Close()
		}
		return "", err
	})
	try("socket-inet6", func() (string, error) {
		fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM, 0)
		unix.Close(fd)
		return "", err
	})
	try("socket-netlink", func() (string, error) {
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW, 0)
		unix.Close(fd)
		return "", err
	})
	try("socket-unix-dgram", func() (string, error) {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		unix.Close(fd)
		return "", err
	})
	try("listen-unix", func() (string, error) {
		l, err := net.Listen("unix", filepath.Join(tmp, "s.sock"))
		if err == nil {
			l.Close()
		}
		return "", err
	})
	try("unshare-user", func() (string, error) {
		// In a child: unshare applies to the calling thread's process.
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
		return "", cmd.Run()
	})
	try("mount", func() (string, error) { return "", unix.Mount("tmpfs", tmp, "tmpfs", 0, "") })
	try("io-uring", func() (string, error) {
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			return "", errno
		}
		unix.Close(int(fd))
		return "", nil
	})
	try("capabilities", func() (string, error) {
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			return "", err
		}
		if data[0].Effective == 0 && data[1].Effective == 0 {
			return "", fmt.Errorf("none")
		}
		return fmt.Sprintf("%#x", data[0].Effective), nil
	})
	channels(try, os.Getenv("ESCAPE_MARKER"))
	try("setsid-helper", func() (string, error) {
		cmd := exec.Command(os.Args[0], "escape-helper-"+os.Getenv("ESCAPE_MARKER"))
		cmd.Env = append(os.Environ(), "ESCAPE_ROLE=helper")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return "", err
		}
		return strconv.Itoa(cmd.Process.Pid), nil
	})
	fmt.Println("done")
	if strings.Contains(os.Getenv("ESCAPE_STAY"), "1") {
		for {
			time.Sleep(time.Hour)
		}
	}
}
