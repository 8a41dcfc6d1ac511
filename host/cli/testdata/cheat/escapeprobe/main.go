//go:build linux

// Command escapeprobe is a plugin for host/cli's sandbox tests
// (sandbox_cheat_linux_test.go), written on the public SDK: it tries one
// way out of its sandbox when bench opens a session, and reports how that
// went as its Open error, the one channel every sandbox must leave open
// (bench records it in the results file). The test links it under one
// name per attempt, bench-plugin-cheat-probe-ATTEMPT, so that each attempt
// runs in a process of its own: a sandbox that kills a process for a
// forbidden system call ends that attempt alone.
//
// The report is "escape-probe ATTEMPT: ok: DETAIL" or
// "escape-probe ATTEMPT: failed: ERROR". Attempts:
//
//	tcp           connect to the TCP address in parameter addr, send the token
//	udp-connect   connect a UDP socket to addr, send the token
//	udp-sendto    send the token to addr from an unconnected UDP socket
//	unix-connect  connect to the unix stream socket at path addr, send the token
//	unix-sendto   send the token as a datagram to the unix socket at path
//	              addr, without connect(2): only the path stands in the way
//	ptrace        ptrace(PTRACE_SEIZE) bench
//	vm-read       process_vm_readv a page of bench's memory
//	environ       find the token in an ancestor's /proc/PID/environ (the
//	              test puts it into bench's environment)
//	proc-scan     find another process whose command line has --scenario
//	read          read the file named by parameter path (the scenario)
//	write         create the file named by parameter path (outside the temp dir)
//	write-beside  create a file beside its own executable (where other
//	              plugins live: it could replace one)
//	launcher-mem  read 64 bytes of the parent's memory through /proc/PPID/mem
//	              (the parent is the sandbox's launcher: bench's executable,
//	              every scenario embedded; PID 1 under strict)
//	launcher-maps, launcher-environ, launcher-exe
//	              read the parent's /proc/PPID/maps, environ, exe
//	launcher-cmdline
//	              read the parent's /proc/PPID/cmdline; ok only if it shows
//	              something of the run: the plugin's directory or a
//	              scenario (--scenario, .yaml) or JSON
//	signal        kill(bench, 0): may it signal bench (or, alike, another
//	              policy's plugin, to stop or kill it)?
//
// Bench is the nearest ancestor whose command line has --scenario, else
// the parent: a sandbox may put a process of its own between bench and
// the plugin, and reaching that one is no escape.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/regretbench/regretbench/sdk"
)

var attempt = strings.TrimPrefix(filepath.Base(os.Args[0]), "bench-plugin-cheat-probe-")

// try makes the attempt and returns what it got.
func try(p sdk.Params) (string, error) {
	addr, path, token := p.String("addr"), p.String("path"), p.String("token")
	bench, seen := benchPid()
	switch attempt {
	case "tcp", "udp-connect", "unix-connect":
		network := map[string]string{"tcp": "tcp", "udp-connect": "udp", "unix-connect": "unix"}[attempt]
		c, err := net.DialTimeout(network, addr, 2*time.Second)
		if err != nil {
			return "", err
		}
		defer c.Close()
		if _, err := c.Write([]byte(token)); err != nil {
			return "", err
		}
		return "connected to " + addr, nil
	case "udp-sendto":
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		defer c.Close()
		to, err := net.ResolveUDPAddr("udp", addr)
		if err != nil {
			return "", err
		}
		if _, err := c.WriteTo([]byte(token), to); err != nil {
			return "", err
		}
		return "sent to " + addr, nil
	case "unix-sendto":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		if err := unix.Sendto(fd, []byte(token), 0, &unix.SockaddrUnix{Name: addr}); err != nil {
			return "", err
		}
		return "sent to " + addr, nil
	case "ptrace":
		// PTRACE_SEIZE needs what PTRACE_ATTACH needs but does not stop
		// bench; the tracer thread ends with the goroutine (it stays
		// locked), which detaches it.
		done := make(chan error)
		go func() {
			runtime.LockOSThread()
			done <- unix.PtraceSeize(bench)
		}()
		if err := <-done; err != nil {
			return "", fmt.Errorf("pid %d: %w", bench, err)
		}
		return fmt.Sprintf("seized pid %d", bench), nil
	case "vm-read":
		addr, err := firstReadable(bench)
		if err != nil {
			return "", err
		}
		buf := make([]byte, 64)
		n, err := unix.ProcessVMReadv(bench, []unix.Iovec{{Base: &buf[0], Len: 64}},
			[]unix.RemoteIovec{{Base: addr, Len: 64}}, 0)
		if err != nil {
			return "", fmt.Errorf("pid %d: %w", bench, err)
		}
		return fmt.Sprintf("read %d bytes of pid %d", n, bench), nil
	case "environ":
		var errs []error
		for _, pid := range ancestors() {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			if err == nil && strings.Contains(string(data), "="+token+"\x00") {
				return fmt.Sprintf("the token is in the environment of pid %d", pid), nil
			}
			errs = append(errs, err)
		}
		return "", fmt.Errorf("the token is in no ancestor's environment (%d ancestors: %v)", len(errs), errors.Join(errs...))
	case "proc-scan":
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return "", err
		}
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if strings.Contains(string(argv), "--scenario\x00") {
				return fmt.Sprintf("pid %d: %s", pid, strings.ReplaceAll(string(argv), "\x00", " ")), nil
			}
		}
		return "", fmt.Errorf("no process with --scenario among %d entries of /proc", len(ents))
	case "read":
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d bytes", len(data)), nil
	case "write", "write-beside":
		if attempt == "write-beside" {
			exe, err := os.Executable()
			if err != nil {
				return "", err
			}
			path = filepath.Join(filepath.Dir(exe), "escaped-"+token)
		}
		if err := os.WriteFile(path, []byte(token), 0o644); err != nil {
			return "", err
		}
		return "wrote " + path, nil
	case "launcher-mem":
		addr, err := firstReadable(os.Getppid())
		if err != nil {
			addr = 0x400000 // amd64's usual text start, when the maps are hidden
		}
		f, err := os.Open(fmt.Sprintf("/proc/%d/mem", os.Getppid()))
		if err != nil {
			return "", err
		}
		defer f.Close()
		buf := make([]byte, 64)
		n, err := f.ReadAt(buf, int64(addr))
		if n == 0 {
			return "", err
		}
		return fmt.Sprintf("read %d bytes of pid %d at %#x", n, os.Getppid(), addr), nil
	case "launcher-maps", "launcher-environ", "launcher-exe":
		p := fmt.Sprintf("/proc/%d/%s", os.Getppid(), strings.TrimPrefix(attempt, "launcher-"))
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %d bytes", p, len(data)), nil
	case "launcher-cmdline":
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", os.Getppid()))
		if err != nil {
			return "", err
		}
		exe, _ := os.Executable()
		argv := string(data)
		if strings.Contains(argv, filepath.Dir(exe)) || strings.Contains(argv, "--scenario") ||
			strings.Contains(argv, ".yaml") || strings.Contains(argv, "{") {
			return fmt.Sprintf("%q", argv), nil
		}
		return "", fmt.Errorf("shows nothing of the run: %q", argv)
	case "signal":
		if !seen {
			return "", fmt.Errorf("no bench in sight (parent %d)", bench)
		}
		if err := unix.Kill(bench, 0); err != nil {
			return "", fmt.Errorf("pid %d: %w", bench, err)
		}
		return fmt.Sprintf("may signal pid %d", bench), nil
	}
	return "", errors.New("unknown attempt")
}

func main() {
	str := func(name, doc string) sdk.Param {
		return sdk.Param{Name: name, Type: sdk.String, Default: "", Doc: doc}
	}
	sdk.Serve(sdk.Plugin{
		Name: "cheat-probe-" + attempt, Version: "0.0.1",
		Params: []sdk.Param{str("addr", "host:port to reach"), str("path", "file to read or write"),
			str("token", "what to send or write")},
		NewBatch: func(s sdk.Session, _ []sdk.Replica) (sdk.BatchPolicy, error) {
			detail, err := try(s.Params)
			if err != nil {
				return nil, fmt.Errorf("escape-probe %s: failed: %v", attempt, err)
			}
			return nil, fmt.Errorf("escape-probe %s: ok: %s", attempt, detail)
		},
	})
}
