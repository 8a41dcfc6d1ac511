package wire

import (
	"context"
	"fmt"
	"net"
	"time"
)

// The host's side of the step socket (the plugin's is in server.go).

// StepSocket is the host's end of one session's step socket.
type StepSocket struct {
	conn    stepConn
	n       int  // replications of the session
	ndiag   int  // diagnostics the plugin declared
	delayed bool // rounds carry arrivals (delayed feedback)
	width   int  // values of a replication's context per round; 0: a context-free session
	out     []byte
	in      []byte
	reply   stepReply
	// The step's context, watched across rounds: its Done channel, and
	// how to stop watching it. Registering a watch every round would
	// allocate every round.
	done      <-chan struct{}
	stopWatch func() bool
}

// DialStep connects to the step socket at path of a session of n
// replications whose plugin declared ndiag diagnostics; delayed says
// whether its rounds carry arrivals, width how many values each
// replication's context has in a contextual session (protocol 3; 0 in a
// context-free one). The caller checks that every Step carries n x width
// contexts.
func DialStep(path string, n, ndiag int, delayed bool, width int) (*StepSocket, error) {
	conn, err := net.DialTimeout("unix", path, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &StepSocket{conn: newStepConn(conn), n: n, ndiag: ndiag, delayed: delayed, width: width}, nil
}

// RemoteError is an error the plugin answered a round with.
type RemoteError struct {
	Msg     string
	Invalid bool // the plugin judged the request invalid
}

func (e *RemoteError) Error() string { return e.Msg }

// Step plays one round on the socket. A cancelled ctx interrupts it, and
// ends the socket: a session is not resumed after a cancelled round. An
// answer that does not fit the session (counts, sizes) is an error before
// anything is allocated by it; an error the plugin answered with is a
// *RemoteError. The result's slices are the socket's and valid until its
// next Step.
func (ss *StepSocket) Step(ctx context.Context, st *Step) (StepResult, error) {
	ss.watch(ctx)
	ndiag := 0
	if st.WantDiag {
		ndiag = ss.ndiag
	}
	ss.out = appendStepRequest(ss.out, st, ss.delayed)
	_, err := ss.conn.Write(ss.out)
	if err == nil {
		ss.in, err = readFrame(ss.conn, ss.in, respFrameLimit(ss.n, ndiag, ss.width > 0))
	}
	if err == nil {
		err = decodeStepResponse(ss.in[4:], &ss.reply, ss.n, ndiag, ss.width > 0)
	}
	if err != nil {
		return StepResult{}, fmt.Errorf("step socket: %w", err)
	}
	if ss.reply.status != frameOK {
		return StepResult{}, &RemoteError{Msg: ss.reply.msg, Invalid: ss.reply.status == frameInvalid}
	}
	res := StepResult{Arms: ss.reply.arms, Diagnostics: ss.reply.diag}
	if len(ss.reply.probs) > 0 {
		res.Probs = ss.reply.probs
	}
	return res, nil
}

// watch makes a cancellation of ctx interrupt the socket, keeping the
// watch of the previous round when ctx is cancelled by the same channel.
func (ss *StepSocket) watch(ctx context.Context) {
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

// Close stops watching the step's context and closes the socket.
func (ss *StepSocket) Close() error {
	if ss.stopWatch != nil {
		ss.stopWatch()
	}
	return ss.conn.Close()
}
