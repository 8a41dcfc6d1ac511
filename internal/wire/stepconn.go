package wire

import (
	"io"
	"net"
	"time"
)

// The step socket: a session's rounds as binary frames on a unix socket of
// its own, in place of the gRPC Steps stream (policy.proto,
// OpenResponse.step_socket; docs/step-socket.md). Describe, Open and Close
// stay on gRPC. A round trip through gRPC passes each message through two
// more goroutines on each side (the transport's reader and writer), and on
// a 2-core VM every hand-off between threads is a wake-up; on the socket a
// session's goroutine writes and the other side's reads, nothing in
// between, in blocking system calls (stepconn_linux.go) so that the kernel
// wakes the reader's thread itself. Plugins in other languages need not
// offer it: the host then uses Steps. The plugin's half is in server.go,
// the host's in client.go.

// stepConn is a step socket's connection, read and written by one
// goroutine at a time.
type stepConn interface {
	io.ReadWriteCloser
	// Interrupt makes a blocked Read or Write return an error; any
	// goroutine may call it.
	Interrupt()
}

// netStepConn is a stepConn through Go's network poller.
type netStepConn struct{ net.Conn }

func (c netStepConn) Interrupt() { c.SetDeadline(time.Unix(1, 0)) }
