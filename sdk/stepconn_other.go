//go:build !(linux || darwin)

package sdk

import "net"

// newStepConn keeps c: elsewhere the step socket goes through Go's
// network poller.
func newStepConn(c net.Conn) (stepConn, error) { return netStepConn{c}, nil }
