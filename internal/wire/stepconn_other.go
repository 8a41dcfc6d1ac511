//go:build !linux

package wire

import "net"

// newStepConn keeps c: on other systems than Linux the step socket goes
// through Go's network poller (see stepconn_linux.go).
func newStepConn(c net.Conn) stepConn { return netStepConn{c} }
