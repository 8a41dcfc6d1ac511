package sdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// The step socket: a session's rounds as binary frames on a unix socket of
// its own, in place of the gRPC Steps stream (policy.proto,
// OpenResponse.step_socket). Describe, Open and Close stay on gRPC. A round
// trip through gRPC passes each message through two more goroutines on
// each side (the transport's reader and writer), and on a 2-core VM every
// hand-off between threads is a wake-up; on the socket a session's
// goroutine writes and the other side's reads, nothing in between, in
// blocking system calls (stepconn_linux.go) so that the kernel wakes the
// reader's thread itself. Plugins in other languages need not offer it:
// the host then uses Steps.

// stepAcceptTimeout bounds how long an offered socket waits for the host.
const stepAcceptTimeout = time.Minute

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

// listenStep opens the step socket of session id in a fresh private
// directory and serves its one connection in the background. It returns
// the socket's path.
func (c *core) listenStep(id uint64) (string, error) {
	dir, err := os.MkdirTemp("", "regretbench-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "step.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	go func() {
		ln.SetDeadline(time.Now().Add(stepAcceptTimeout))
		conn, err := ln.Accept()
		ln.Close()
		os.RemoveAll(dir)
		if err != nil {
			return // the host never came: the session is still served on gRPC
		}
		sc := newStepConn(conn)
		defer sc.Close()
		c.serveStep(id, sc)
	}()
	return path, nil
}

// serveStep answers request frames on conn until the host closes it. A
// frame that does not fit the session is answered with an error and ends
// the connection.
func (c *core) serveStep(id uint64, conn io.ReadWriter) {
	s, err := c.session(id)
	if err != nil {
		return
	}
	var (
		f       stepFrame
		in, out []byte
		limit   = reqFrameLimit(s.n)
		delayed = s.spec.Feedback.Delayed()
		pending int
	)
	for {
		if delayed {
			// Rounds of a session are sequential: nothing else moves
			// its count of pending rewards while this one waits.
			s.mu.Lock()
			pending = s.pending()
			s.mu.Unlock()
			limit = reqFrameLimitDelayed(s.n, pending)
		}
		if in, err = readFrame(conn, in, limit); err != nil {
			if _, ok := err.(*frameSizeError); ok {
				conn.Write(appendErrorResponse(out, frameInvalid, "step socket: "+err.Error()))
			}
			return
		}
		if err := decodeStepRequest(in[4:], &f, s.n, pending); err != nil {
			conn.Write(appendErrorResponse(out, frameInvalid, "step socket: "+err.Error()))
			return
		}
		var arrivals []Arrival
		if f.delayed {
			arrivals = f.arrivals
		}
		res, err := c.step(id, f.round, f.arms, f.rewards, arrivals, f.wantDiag)
		switch {
		case errors.Is(err, errInvalid):
			out = appendErrorResponse(out, frameInvalid, err.Error())
		case err != nil:
			out = appendErrorResponse(out, frameFailed, err.Error())
		default:
			out = appendStepResponse(out, res)
		}
		if _, err := conn.Write(out); err != nil {
			return
		}
	}
}

// sockSession is the host's end of a step socket.
type sockSession struct {
	conn  stepConn
	out   []byte
	in    []byte
	reply stepReply
	// The step's context, watched across rounds: its Done channel, and
	// how to stop watching it. Registering a watch every round would
	// allocate every round.
	done      <-chan struct{}
	stopWatch func() bool
}

// watch makes a cancellation of ctx interrupt the socket, keeping the
// watch of the previous round when ctx is cancelled by the same channel.
func (ss *sockSession) watch(ctx context.Context) {
	d := ctx.Done()
	if d == ss.done {
		return
	}
	if ss.stopWatch != nil {
		ss.stopWatch()
		ss.stopWatch = nil
	}
	ss.done = d
	if d != nil {
		ss.stopWatch = context.AfterFunc(ctx, ss.conn.Interrupt)
	}
}

// close stops watching the step's context and closes the socket.
func (ss *sockSession) close() {
	if ss.stopWatch != nil {
		ss.stopWatch()
	}
	ss.conn.Close()
}

// dialStep connects to the step socket at path.
func dialStep(path string) (*sockSession, error) {
	conn, err := net.DialTimeout("unix", path, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &sockSession{conn: newStepConn(conn)}, nil
}

// stepSocket plays one round on the session's step socket. A cancelled ctx
// interrupts it, and ends the socket: a session is not resumed after a
// cancelled round.
func (s *clientSession) stepSocket(ctx context.Context, round int, prevArms []int32, prevRewards []float64, arrivals []Arrival, delayed, wantDiag bool) (*stepReply, error) {
	ss := s.sock
	ss.watch(ctx)
	ndiag := 0
	if wantDiag {
		ndiag = s.ndiag
	}
	if delayed {
		ss.out = appendStepRequestArrivals(ss.out, round, prevArms, arrivals, wantDiag)
	} else {
		ss.out = appendStepRequest(ss.out, round, prevArms, prevRewards, wantDiag)
	}
	_, err := ss.conn.Write(ss.out)
	if err == nil {
		ss.in, err = readFrame(ss.conn, ss.in, respFrameLimit(s.n, ndiag))
	}
	if err == nil {
		err = decodeStepResponse(ss.in[4:], &ss.reply, s.n, ndiag)
	}
	if err != nil {
		err = fmt.Errorf("step socket: %w", err)
		return nil, s.sockErr(ctx, stepOp(round), err)
	}
	if ss.reply.status != frameOK {
		return nil, &PluginError{Path: s.c.path, Op: stepOp(round), Err: errors.New(ss.reply.msg), Stderr: s.c.StderrTail(tailLines)}
	}
	return &ss.reply, nil
}

// sockErr is rpcErr for a step socket's errors.
func (s *clientSession) sockErr(ctx context.Context, op string, err error) error {
	c := s.c
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("%w: %v", ctx.Err(), err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		c.waitExit() // as for gRPC's Unavailable: let the crash message arrive
		err = errors.New("the connection to the plugin broke")
	}
	return &PluginError{Path: c.path, Op: op, Err: err, Stderr: c.StderrTail(tailLines), Exited: c.pc.Exited()}
}
