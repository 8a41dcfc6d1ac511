//go:build linux || darwin

package sdk

import (
	"io"
	"net"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// fdConn is a step socket read and written with blocking system calls
// instead of through Go's network poller. A round trip on the poller wakes
// the poller's thread, which hands the goroutine to another thread: two
// thread wake-ups per message, each tens of microseconds on a small VM.
// A thread blocked in read(2) is woken by the kernel directly, usually on
// the core of the writer that is about to wait in turn. The cost is one
// OS thread per session while it waits, as for any blocking system call.
type fdConn struct {
	fd     int
	mu     sync.Mutex // orders Interrupt against Close
	closed bool
}

// newStepConn takes over c's socket: c is closed, its duplicate kept in
// blocking mode.
func newStepConn(c net.Conn) (stepConn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return netStepConn{c}, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(s uintptr) { fd, dupErr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	c.Close()
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &fdConn{fd: fd}, nil
}

func (c *fdConn) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(c.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *fdConn) Write(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		n, err := unix.Write(c.fd, p[w:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return w, err
		}
		w += n
	}
	return w, nil
}

// Interrupt shuts the socket down: a blocked Read returns io.EOF, a Write
// EPIPE, and the peer sees the connection end.
func (c *fdConn) Interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		unix.Shutdown(c.fd, unix.SHUT_RDWR)
	}
}

func (c *fdConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return unix.Close(c.fd)
}
