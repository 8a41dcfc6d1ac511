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
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

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
	try("ptrace-parent", func() (string, error) {
		err := unix.PtraceSeize(os.Getppid()) // seize: attach without stopping it
		if err == nil {
			unix.PtraceDetach(os.Getppid())
		}
		return "", err
	})
	try("ptrace-host", func() (string, error) {
		err := unix.PtraceSeize(host)
		if err == nil {
			unix.PtraceDetach(host)
		}
		return "", err
	})
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
