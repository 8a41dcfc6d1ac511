package wire

import (
	"io"
	"net"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fdConn is a step socket read and written with blocking system calls
// instead of through Go's network poller. A round trip on the poller wakes
// the poller's thread, which hands the goroutine to another thread: two
// thread wake-ups per message, each tens of microseconds on a small VM.
// A thread blocked in read(2) is woken by the kernel directly, usually on
// the core of the writer that is about to wait in turn. The cost is one
// OS thread per session while it waits, as for any blocking system call,
// and the Ps those threads hold (see SpareP).
//
// Linux only for now: cancellation relies on shutdown(2) waking a thread
// blocked in read(2), which the tests check here and nothing checks on
// other systems.
type fdConn struct {
	fd        int
	mu        sync.Mutex // orders Interrupt against Close
	closed    bool
	cleanup   runtime.Cleanup // closes fd if the conn is dropped unclosed
	lastYield time.Time
}

// yieldEvery is how often a goroutine reading an fdConn passes through the
// Go scheduler. One that only blocks in system calls and computes in
// between never does; after 10 ms of that, the runtime's monitor thread
// takes its P back at its next system call, as if it were stuck, and then
// wakes every 20 us for a millisecond, each wake-up a context switch. A
// runtime.Gosched every few milliseconds costs one switch instead of
// about fifty: on ReMax K=10 (1000 x 4000, alternating runs) the monitor's
// sleeps fell from 12,000 to 800, the context switches from 41,000 to
// 33,000 and the wall time by 9%.
const yieldEvery = 5 * time.Millisecond

// newStepConn takes over c's socket: c is closed and a duplicate of its
// descriptor kept in blocking mode. Should that fail, c is kept as it is,
// on the poller.
func newStepConn(c net.Conn) stepConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return netStepConn{c}
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return netStepConn{c}
	}
	fd := -1
	raw.Control(func(s uintptr) {
		if d, err := unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0); err == nil {
			fd = d
		}
	})
	if fd < 0 {
		return netStepConn{c}
	}
	// The duplicate shares c's open file description, and so its flags:
	// c is closed right after, and never used again.
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return netStepConn{c}
	}
	c.Close()
	fc := &fdConn{fd: fd}
	fc.cleanup = runtime.AddCleanup(fc, func(fd int) { unix.Close(fd) }, fd)
	return fc
}

func (c *fdConn) Read(p []byte) (int, error) {
	if now := time.Now(); now.Sub(c.lastYield) >= yieldEvery {
		c.lastYield = now
		runtime.Gosched()
	}
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
// EPIPE, and the peer sees the connection end. After Close it does
// nothing, so it never touches a descriptor number reused since.
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
	c.cleanup.Stop()
	return unix.Close(c.fd)
}
