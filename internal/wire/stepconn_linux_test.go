package wire

import (
	"bytes"
	"golang.org/x/sys/unix"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// socketPair returns both ends of a connected unix socket.
func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	a, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b := <-accepted
	if b == nil {
		t.Fatal("accept failed")
	}
	return a, b
}

// TestStepConn: frames cross either kind of step connection whole,
// Interrupt unblocks a waiting Read, and Close releases the descriptors.
func TestStepConn(t *testing.T) {
	for _, c := range []struct {
		name string
		wrap func(net.Conn) stepConn
	}{
		{"system calls", newStepConn},
		{"poller", func(c net.Conn) stepConn { return netStepConn{c} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			na, nb := socketPair(t)
			a, b := c.wrap(na), c.wrap(nb)
			// A frame larger than the socket's buffer, written while the
			// other side reads.
			rewards := make([]float64, 100000)
			for i := range rewards {
				rewards[i] = float64(i)
			}
			want := appendStepRequest(nil, &Step{Round: 3, PrevArms: make([]int32, len(rewards)), PrevRewards: rewards, WantDiag: true}, false)
			go a.Write(want)
			got, err := readFrame(b, nil, reqFrameLimit(len(rewards), 0))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes (%v), want the frame's %d", len(got), err, len(want))
			}
			done := make(chan error, 1)
			go func() {
				_, err := readFrame(b, got, reqFrameLimit(len(rewards), 0))
				done <- err
			}()
			time.Sleep(20 * time.Millisecond) // best effort: let it block
			select {
			case err := <-done:
				t.Fatalf("Read returned before Interrupt: %v", err)
			default:
			}
			b.Interrupt()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("an interrupted read returned no error")
				}
			case <-time.After(time.Minute):
				t.Fatal("Interrupt did not unblock Read")
			}
			a.Close()
			b.Close()
			if fc, ok := b.(*fdConn); ok {
				interruptAfterClose(t, fc)
			}

			// Close releases every descriptor of the socket: only then
			// does the peer read the end of the stream.
			na, nb = socketPair(t)
			defer na.Close()
			b = c.wrap(nb)
			b.Close()
			na.SetDeadline(time.Now().Add(10 * time.Second))
			if n, err := na.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("the peer of a closed connection read %d bytes, %v; want EOF", n, err)
			}
		})
	}
}

// interruptAfterClose: Interrupt on a closed fdConn leaves alone the
// socket that now has its descriptor number.
func interruptAfterClose(t *testing.T, fc *fdConn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if fds[0] != fc.fd && fds[1] != fc.fd {
		t.Logf("descriptor %d not reused (got %v): nothing to check", fc.fd, fds)
		return
	}
	fc.Interrupt()
	if _, err := unix.Write(fds[0], []byte{7}); err != nil {
		t.Fatalf("Interrupt after Close broke the socket reusing its descriptor: %v", err)
	}
	var p [1]byte
	if n, err := unix.Read(fds[1], p[:]); n != 1 || p[0] != 7 {
		t.Fatalf("Interrupt after Close broke the socket reusing its descriptor: read %d bytes, %v", n, err)
	}
}
