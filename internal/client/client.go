package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
)

// StartOptions tunes Start.
type StartOptions struct {
	// Runner runs the plugin's process (go-plugin's ClientConfig.RunnerFunc):
	// package launch's, which also checks a pinned checksum and confines
	// the process as its sandbox plan says.
	Runner func(hclog.Logger, *exec.Cmd, string) (runner.Runner, error)
	// Process is what the client asks of that process; nil: nothing.
	Process Process
	// StartTimeout bounds the time to the handshake; default 10s.
	StartTimeout time.Duration
	// NoStream forces unary Step even when the plugin serves Steps; it
	// implies NoSocket.
	NoStream bool
	// NoSocket plays rounds on gRPC (Steps, or Step) even when the plugin
	// offers a step socket.
	NoSocket bool
	// Log, when set, receives go-plugin's own log at debug level.
	Log io.Writer
}

// Process is a plugin's process as the launcher that runs it (package
// launch) knows it, which a Client started on it consults: its errors
// name the limit the plugin hit and what its confinement forbids, and
// Close kills what is left of its process group. Its methods are called
// only after Start's Runner was.
type Process interface {
	// Clue reports whether a line of the plugin's stderr may say that it
	// hit a limit: such lines are kept for LimitHit however many follow.
	Clue(line string) bool
	// LimitHit names the limit the plugin hit, judging from out (its
	// stderr, the clues first, and the error seen), or "".
	LimitHit(out string) string
	// StartHint is what an error at start-up adds: what the plugin's
	// confinement lets it do, and how to allow more; "" for none.
	StartHint() string
	// KillGroup kills what is left of the process's group.
	KillGroup()
}

// Client is a plugin process started and spoken to over go-plugin.
type Client struct {
	path         string
	pc           *plugin.Client
	rpc          pb.PolicyClient
	tail         *ringBuffer
	stream       bool
	noStr        bool
	noSock       bool
	startTimeout time.Duration
	cp           plugin.ClientProtocol // set by connect
	attached     bool                  // made by Attach: Close closes the connection
	proc         Process               // the process; nil for Attach

	closeOnce sync.Once
	closeErr  error

	// What the plugin declared in Describe, which sizes and checks every
	// session's answers: set by Describe, read by Open.
	descMu    sync.Mutex
	described bool
	decl      declared
}

// declared is what a plugin's Describe declared that its sessions
// depend on.
type declared struct {
	ndiag          int // declared diagnostics
	protocol       int // the protocol version it reports
	contextual     bool
	contextualOnly bool
}

// declaredBy is what d declares that sessions depend on.
func declaredBy(d *Description) declared {
	return declared{ndiag: len(d.Diagnostics), protocol: d.ProtocolVersion, contextual: d.Contextual, contextualOnly: d.ContextualOnly}
}

// checkOpen checks that a plugin that declared decl plays the session
// req asks for: a contextual one needs protocol 3 and a plugin that
// reports contextual; a context-free one a plugin that does not report
// contextual_only. The host checks this before a run, naming the
// scenario; this is the backstop.
func (decl declared) checkOpen(req *OpenRequest) error {
	if req.Context.Contextual() {
		switch {
		case decl.protocol < wire.ContextualVersion:
			return fmt.Errorf("a contextual session needs protocol version %d, and the plugin speaks %d", wire.ContextualVersion, decl.protocol)
		case !decl.contextual:
			return errors.New("the plugin does not play contextual sessions (its Describe does not report contextual)")
		}
		w := int64(req.Context.Dim)
		if req.Context.PerArm {
			w *= int64(req.Arms)
		}
		if w*int64(len(req.Replications))*8 > wire.MaxMessage {
			return fmt.Errorf("contexts of %d values for %d replications exceed the protocol's %d-byte message limit", w, len(req.Replications), wire.MaxMessage)
		}
		return nil
	}
	if decl.contextualOnly {
		return errors.New("the plugin plays only contextual sessions (its Describe reports contextual_only), and this session has no context")
	}
	return nil
}

// Start starts the plugin executable at path with opts.Runner and
// completes the handshake. Errors name the path and quote the plugin's
// last stderr lines. bench and bench conform start plugin executables through
// package launch, which checks the file and chooses the runner.
func Start(path string, opts StartOptions) (*Client, error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 10 * time.Second
	}
	tail := newRingBuffer(64 << 10)
	if opts.Process != nil {
		tail.clue = opts.Process.Clue
	}
	c := &Client{path: path, tail: tail, noStr: opts.NoStream, noSock: opts.NoSocket || opts.NoStream, startTimeout: opts.StartTimeout, proc: opts.Process}
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.PluginSets(nil, wire.HostVersions),
		RunnerFunc:       opts.Runner,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     opts.StartTimeout,
		// The raw stderr (panics, the SDK's log, anything written before
		// Serve) and what a Go plugin writes to os.Stderr after Serve both
		// feed the tail quoted in errors, each whole lines at a time.
		// Stdout after the handshake is not the plugin's to use: drop it
		// (go-plugin drains the raw pipe, whose lines the runner splits).
		Stderr:     tail.lineWriter(),
		SyncStderr: tail.lineWriter(),
		SyncStdout: io.Discard,
		Logger:     hclog.NewNullLogger(),
	}
	if opts.Log != nil {
		cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: "plugin", Level: hclog.Debug, Output: opts.Log})
	}
	c.pc = plugin.NewClient(cfg)
	live.add(c)
	if op, err := c.connect(); err != nil {
		// Close waits for go-plugin's stderr reader, so the tail is whole.
		c.Close()
		return nil, c.fail(op, err)
	}
	return c, nil
}

// Attach connects to a plugin served by ServeInProcess (or a debug-mode
// plugin) instead of starting a process. Of opts only NoStream and NoSocket
// apply.
func Attach(rc *plugin.ReattachConfig, opts StartOptions) (*Client, error) {
	sets := wire.PluginSets(nil, wire.HostVersions)
	tail := newRingBuffer(64 << 10)
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: wire.Handshake,
		Plugins:         sets[rc.ProtocolVersion],
		Reattach:        rc,
		Logger:          hclog.NewNullLogger(),
		Stderr:          tail,
	})
	c := &Client{path: "reattach:" + rc.Addr.String(), pc: pc, tail: tail, noStr: opts.NoStream, noSock: opts.NoSocket || opts.NoStream, startTimeout: 10 * time.Second, attached: true}
	if op, err := c.connect(); err != nil {
		pc.Kill()
		return nil, c.fail(op, err)
	}
	return c, nil
}

// connect completes the handshake and dispenses the policy client; on
// failure it returns the step that failed.
func (c *Client) connect() (string, error) {
	cp, err := c.pc.Client()
	if err != nil {
		return "start", err
	}
	raw, err := cp.Dispense(wire.PluginName)
	if err != nil {
		return "dispense", err
	}
	c.rpc = raw.(pb.PolicyClient)
	c.cp = cp
	return "", nil
}

// handshakeHint explains, after "is it a regretbench plugin?", what a
// plugin must do to start.
const handshakeHint = "is it a regretbench plugin? A plugin must call sdk.Serve, or print the go-plugin handshake line, before writing anything to stdout"

// fail wraps a start-up error with the plugin path, an explanation of the
// common causes in bench's terms, and the plugin's last stderr lines.
// go-plugin's own messages for these cases are long and generic.
func (c *Client) fail(op string, err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, plugin.ErrChecksumsDoNotMatch):
		err = fmt.Errorf("%w (its SHA-256 does not match the pinned sha256)", err)
	case strings.Contains(strings.ToLower(msg), "incompatible api version"):
		err = fmt.Errorf("%s (bench speaks protocol versions %d to %d)", firstLine(msg), wire.MinProtocolVersion, wire.ProtocolVersion)
	case strings.HasPrefix(msg, "Unrecognized remote plugin message: "):
		line := firstLine(strings.TrimPrefix(msg, "Unrecognized remote plugin message: "))
		if line == "" && strings.Contains(msg, "Failed to read any lines") {
			err = fmt.Errorf("it exited or closed its stdout without completing the handshake (%s)", handshakeHint)
		} else {
			err = fmt.Errorf("its first line on stdout, %q, is not the go-plugin handshake (%s)", truncate(line, 200), handshakeHint)
		}
	case strings.Contains(msg, "plugin exited before we could connect"):
		err = fmt.Errorf("it exited before completing the handshake (%s)", handshakeHint)
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		err = fmt.Errorf("it did not complete the handshake within the start timeout %v (raise --start-timeout if it is just slow)", c.startTimeout)
	case strings.Contains(msg, "exec format error"):
		err = fmt.Errorf("%w (the system cannot execute it: a binary for another OS or architecture, or a script without a #! line?)", err)
	}
	if op == "start" && c.proc != nil {
		if hint := c.proc.StartHint(); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
	}
	return &PluginError{Path: c.path, Op: op, Err: err, Stderr: c.StderrTail(tailLines), Limit: c.limitHit(err)}
}

// limitHit says which limit the plugin hit (Process.LimitHit), judging
// from the counters of its cgroup, the watch of its private directory, or
// else err and its last stderr lines; "" when none.
func (c *Client) limitHit(err error) string {
	if c.proc == nil {
		return ""
	}
	// All of the stderr bench keeps, not the lines errors quote: a crash
	// puts its cause first ("pthread_create failed") and a dump after.
	out := c.tail.raw()
	if err != nil {
		out += "\n" + err.Error()
	}
	return c.proc.LimitHit(out)
}

// tailLines is how many of a plugin's last stderr lines errors quote.
const tailLines = 8

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

func truncate(s string, n int) string { return wire.Truncate(s, n) }

// PluginError is an error from or about a plugin process. Its message names
// the plugin and quotes its last stderr lines.
type PluginError struct {
	Path   string
	Op     string
	Err    error
	Stderr string // last lines of the plugin's stderr, may be empty
	Exited bool   // the process had exited when the error was seen
	// Limit names the limit the plugin hit, as package sandbox says it
	// ("hit the memory limit (...; raise with --limit-memory)"), or "".
	Limit string
}

// Error formats the error as one paragraph: the plugin, the operation and
// the cause on the first line, then the plugin's stderr lines indented.
func (e *PluginError) Error() string {
	var b strings.Builder
	if e.Limit != "" {
		fmt.Fprintf(&b, "plugin %s: %s; ", e.Path, e.Limit)
		fmt.Fprintf(&b, "%s: %s", e.Op, noBlankLines(e.Err.Error()))
	} else {
		fmt.Fprintf(&b, "plugin %s: %s: %s", e.Path, e.Op, noBlankLines(e.Err.Error()))
	}
	if e.Exited {
		b.WriteString(" (the plugin process exited)")
	}
	if s := noBlankLines(e.Stderr); s != "" {
		b.WriteString("\n  plugin stderr (last lines):\n    ")
		b.WriteString(strings.ReplaceAll(s, "\n", "\n    "))
	}
	return b.String()
}

// noBlankLines drops the empty lines of s, which would split an error
// message into paragraphs.
func noBlankLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, " \t\r"))
		}
	}
	return strings.Join(out, "\n")
}

func (e *PluginError) Unwrap() error { return e.Err }

// Path returns the executable this client launched.
func (c *Client) Path() string { return c.path }

// Protocol returns the protocol version negotiated with the plugin at the
// handshake.
func (c *Client) Protocol() int { return c.pc.NegotiatedVersion() }

// Exited reports whether the plugin process has exited.
func (c *Client) Exited() bool { return c.pc.Exited() }

// StderrTail returns the last n lines the plugin wrote to stderr.
func (c *Client) StderrTail(n int) string { return c.tail.lastLines(n) }

// How long Close waits for a plugin to go.
const (
	// killGrace is how long Close waits for go-plugin's graceful shutdown
	// (the Shutdown RPC, then up to 2 s for the process to exit) before
	// it kills the process group itself: a frozen plugin (SIGSTOP, a
	// debugger) never answers Shutdown.
	killGrace = 3 * time.Second
	// abandonWait is how long Close waits, after the kill, for go-plugin's
	// goroutines to see the process gone before it gives up on them.
	abandonWait = 5 * time.Second
)

// Close kills the plugin process (gracefully first) and waits for it,
// within bounds: a plugin that does not exit within killGrace of being
// asked to (frozen, say) is killed with its whole process group, and
// Close then returns an error saying so. It is safe to call more than
// once and from several goroutines.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

func (c *Client) shutdown() error {
	defer live.remove(c)
	if c.attached {
		// Kill is a no-op for a test-mode reattach: close our connection
		// ourselves, but not through cp.Close, which would also shut down
		// the in-process server.
		if g, ok := c.cp.(*plugin.GRPCClient); ok {
			g.Conn.Close()
		}
	}
	done := make(chan struct{})
	go func() {
		// go-plugin's Kill asks the plugin to shut down (an RPC without a
		// deadline), waits up to 2 s for it to exit, then kills it, and
		// waits for its stdout and stderr to close.
		c.pc.Kill()
		close(done)
	}()
	grace := time.NewTimer(killGrace)
	defer grace.Stop()
	var err error
	select {
	case <-done:
	case <-grace.C:
		err = fmt.Errorf("plugin %s: did not exit within %v of being asked to; killed it", c.path, killGrace)
		if c.proc != nil {
			c.proc.KillGroup()
		}
		// The kill ends the process, then its pipes (pipeGrace), and so
		// Kill's wait; do not hang on go-plugin if it does not.
		select {
		case <-done:
		case <-time.After(abandonWait):
		}
	}
	if c.proc != nil {
		c.proc.KillGroup() // what is left of its process group
	}
	return err
}

func (c *Client) rpcErr(op string, err error) error {
	st, ok := status.FromError(err)
	switch {
	case ok && st.Code() == codes.Unavailable:
		if c.waitExit() {
			err = errors.New("the connection to the plugin broke")
		}
	case ok && st.Code() != codes.Canceled && st.Code() != codes.DeadlineExceeded:
		err = errors.New(st.Message())
	}
	return &PluginError{Path: c.path, Op: op, Err: err, Stderr: c.StderrTail(tailLines), Exited: c.pc.Exited(), Limit: c.limitHit(err)}
}

// waitExit reports whether the plugin process has exited, waiting a little
// for it after a broken connection, most likely because it died: go-plugin
// marks it exited once it has read the last of its stderr, which holds the
// crash message.
func (c *Client) waitExit() bool {
	for deadline := time.Now().Add(2 * time.Second); !c.pc.Exited() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	return c.pc.Exited()
}

// Describe implements Conn. It is part of starting a plugin, so a plugin
// that does not answer within the start timeout fails.
func (c *Client) Describe(ctx context.Context) (*Description, error) {
	if _, ok := ctx.Deadline(); !ok && c.startTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.startTimeout)
		defer cancel()
	}
	r, err := c.rpc.Describe(ctx, &pb.DescribeRequest{}, grpc.MaxCallRecvMsgSize(wire.MaxDescribeMsg))
	if err != nil {
		if st := status.Convert(err); st.Code() == codes.ResourceExhausted {
			return nil, &PluginError{Path: c.path, Op: "describe", Stderr: c.StderrTail(tailLines),
				Err: fmt.Errorf("its answer is larger than the %d bytes bench accepts (%s)", wire.MaxDescribeMsg, st.Message())}
		}
		return nil, c.rpcErr("describe", err)
	}
	if err := wire.CheckDescribe(r); err != nil {
		return nil, &PluginError{Path: c.path, Op: "describe", Err: err, Stderr: c.StderrTail(tailLines)}
	}
	d := protoconv.FromDescribe(r)
	c.descMu.Lock()
	c.stream = d.StepStream && !c.noStr
	c.described, c.decl = true, declaredBy(d)
	c.descMu.Unlock()
	return d, nil
}

// declared returns what the plugin declared that sessions depend on,
// asking it with Describe if no one has yet.
func (c *Client) declared(ctx context.Context) (declared, error) {
	c.descMu.Lock()
	ok, decl := c.described, c.decl
	c.descMu.Unlock()
	if ok {
		return decl, nil
	}
	d, err := c.Describe(ctx)
	if err != nil {
		return declared{}, err
	}
	return declaredBy(d), nil
}

// Open implements Conn.
func (c *Client) Open(ctx context.Context, req *OpenRequest) (SessionConn, error) {
	preq, err := protoconv.ToOpen(req)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: open: %w", c.path, err)
	}
	preq.StepSocket = !c.noSock
	decl, err := c.declared(ctx)
	if err != nil {
		return nil, err
	}
	if decl.protocol != c.Protocol() {
		// Describe reports the version the handshake negotiated (host/run
		// checks that they agree): trust the handshake.
		decl.protocol = min(decl.protocol, c.Protocol())
	}
	if err := decl.checkOpen(req); err != nil {
		return nil, &PluginError{Path: c.path, Op: "open", Err: err}
	}
	r, err := c.rpc.Open(ctx, preq, grpc.MaxCallRecvMsgSize(wire.MaxOpenMsg))
	if err != nil {
		return nil, c.rpcErr("open", err)
	}
	n, ndiag := len(req.Replications), decl.ndiag
	delayed := req.Feedback.Delayed()
	width := 0
	if req.Context.Contextual() {
		width = req.Context.Width(req.Arms)
	}
	s := &clientSession{c: c, id: r.GetSessionId(), n: n, ndiag: ndiag, delayed: delayed, width: width,
		callOpts: []grpc.CallOption{grpc.MaxCallRecvMsgSize(wire.StepMsgLimit(n, ndiag, width > 0))}}
	s.req.SessionId = s.id
	if path := r.GetStepSocket(); path != "" {
		// A socket we cannot dial leaves the session on gRPC.
		if sock, err := wire.DialStep(path, n, ndiag, delayed, width); err == nil {
			s.sock = sock
		}
	}
	return s, nil
}

type clientSession struct {
	closed bool
	c      *Client
	id     uint64
	n      int
	req    pb.StepRequest
	resp   pb.StepResponse
	stream pb.Policy_StepsClient
	cancel context.CancelFunc
	diag   [][]float64
	sock   *wire.StepSocket // nil: rounds go over gRPC
	// delayed: the session's rounds carry arrivals (delayed feedback).
	delayed bool
	// arrivals are the messages of delayed rewards, reused across rounds.
	arrivals []*pb.Arrival
	// width is the number of values of one replication's context in a
	// contextual session (protocol 3), 0 in a context-free one.
	width int

	// What the session expects of the plugin's answers: the diagnostics
	// it declared, and a bound on the size of gRPC answers.
	ndiag    int
	callOpts []grpc.CallOption
}

// Step implements SessionConn.
func (s *clientSession) Step(ctx context.Context, st *Step) (StepResult, error) {
	if len(st.Contexts) != s.n*s.width {
		return StepResult{}, contextsErr(st, s.n, s.width)
	}
	if s.sock != nil {
		r, err := s.sock.Step(ctx, st)
		if err != nil {
			return StepResult{}, s.sockErr(ctx, stepOp(st.Round), err)
		}
		return s.result(st.Round, r.Arms, r.Diagnostics, st.WantDiag, r.Probs)
	}
	s.setRequest(st)
	resp, err := s.roundTrip(ctx)
	if err != nil {
		return StepResult{}, s.c.rpcErr(stepOp(st.Round), err)
	}
	return s.grpcResult(st.Round, resp, st.WantDiag)
}

// setRequest fills the session's reused gRPC request with st: like the
// step socket, it carries the fields of the session's feedback mode only,
// the previous rewards under immediate feedback and the arrivals under
// delayed. Arrival messages are reused across rounds.
func (s *clientSession) setRequest(st *Step) {
	s.req.Round = uint64(st.Round)
	s.req.PrevArms = st.PrevArms
	s.req.PrevRewards = nil
	s.req.WantDiagnostics = st.WantDiag
	s.req.Contexts = st.Contexts
	s.req.Arrivals = s.req.Arrivals[:0]
	if !s.delayed {
		s.req.PrevRewards = st.PrevRewards
		return
	}
	for j, a := range st.Arrivals {
		if j == len(s.arrivals) {
			s.arrivals = append(s.arrivals, &pb.Arrival{})
		}
		*s.arrivals[j] = pb.Arrival{Index: uint32(a.Index), Round: uint64(a.Round), Arm: a.Arm, Reward: a.Reward}
		s.req.Arrivals = append(s.req.Arrivals, s.arrivals[j])
	}
}

// roundTrip sends the request on the session's Steps stream, opened at
// its first round, or as a unary Step when the plugin serves no stream,
// and returns the answer. A cancelled ctx ends the stream.
func (s *clientSession) roundTrip(ctx context.Context) (*pb.StepResponse, error) {
	if !s.c.stream {
		return s.c.rpc.Step(ctx, &s.req, s.callOpts...)
	}
	if s.stream == nil {
		sctx, cancel := context.WithCancel(context.Background())
		stream, err := s.c.rpc.Steps(sctx, s.callOpts...)
		if err != nil {
			cancel()
			return nil, err
		}
		s.stream, s.cancel = stream, cancel
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, s.cancel)
		defer stop()
	}
	err := s.stream.Send(&s.req)
	if err == nil {
		err = s.stream.RecvMsg(&s.resp)
	}
	if err != nil {
		if err == io.EOF {
			_, err = s.stream.Recv()
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %v", ctx.Err(), err)
		}
		return nil, err
	}
	return &s.resp, nil
}

// grpcResult checks a plugin's answer to a Step on gRPC: the counts as on
// the step socket, and every diagnostic's values.
func (s *clientSession) grpcResult(round int, resp *pb.StepResponse, wantDiag bool) (StepResult, error) {
	ndiag := 0
	if wantDiag {
		ndiag = s.ndiag
	}
	if err := wire.CheckCounts(len(resp.Arms), s.n, len(resp.Diagnostics), ndiag); err != nil {
		return StepResult{}, &PluginError{Path: s.c.path, Op: stepOp(round), Err: err, Stderr: s.c.StderrTail(tailLines)}
	}
	s.diag = s.diag[:0]
	for _, d := range resp.Diagnostics {
		if len(d.Values) != s.n {
			return StepResult{}, &PluginError{Path: s.c.path, Op: stepOp(round),
				Err: fmt.Errorf("diagnostic %q has %d values for %d replications", truncate(d.Name, wire.MaxNameLen), len(d.Values), s.n), Stderr: s.c.StderrTail(tailLines)}
		}
		s.diag = append(s.diag, d.Values)
	}
	var probs []float64
	if s.width > 0 {
		probs = resp.Probs
	}
	return s.result(round, resp.Arms, s.diag, wantDiag, probs)
}

// stepOp names a round in errors; it is built only when one occurs, not
// on every round.
func stepOp(round int) string { return fmt.Sprintf("step round %d", round) }

// result checks a plugin's answer to a Step, whichever way it came: an
// arm per replication and, in a contextual session, none or one valid
// probability per replication.
func (s *clientSession) result(round int, arms []int32, diag [][]float64, wantDiag bool, probs []float64) (StepResult, error) {
	if len(arms) != s.n {
		return StepResult{}, &PluginError{Path: s.c.path, Op: stepOp(round),
			Err: fmt.Errorf("returned %d arms for %d replications", len(arms), s.n), Stderr: s.c.StderrTail(tailLines)}
	}
	res := StepResult{Arms: arms}
	if wantDiag {
		res.Diagnostics = diag
	}
	if len(probs) > 0 {
		if err := CheckProbs(probs, s.n); err != nil {
			return StepResult{}, &PluginError{Path: s.c.path, Op: stepOp(round), Err: err, Stderr: s.c.StderrTail(tailLines)}
		}
		res.Probs = probs
	}
	return res, nil
}

// CheckProbs checks the probabilities a plugin returned with its arms in
// a contextual session: none, or one per replication of n, each 0 (not
// said) or in (0, 1].
func CheckProbs(probs []float64, n int) error {
	if len(probs) != 0 && len(probs) != n {
		return fmt.Errorf("returned %d probabilities for %d replications (want %d or none)", len(probs), n, n)
	}
	for i, p := range probs {
		if !(p == 0 || p > 0 && p <= 1) {
			return fmt.Errorf("returned probability %v for replication %d (position %d in the batch), want 0 (not said) or a value in (0, 1]", p, i, i)
		}
	}
	return nil
}

// contextsErr is the error of a Step whose contexts do not fit its
// session: the host's fault, not the plugin's.
func contextsErr(st *Step, n, width int) error {
	if width == 0 {
		return fmt.Errorf("step round %d: %d context values in a context-free session", st.Round, len(st.Contexts))
	}
	return fmt.Errorf("step round %d: %d context values, want %d (%d replications of width %d)", st.Round, len(st.Contexts), n*width, n, width)
}

func (s *clientSession) Close(ctx context.Context) error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.sock != nil {
		s.sock.Close()
		s.sock = nil
	}
	if s.stream != nil {
		s.stream.CloseSend()
		s.cancel()
		s.stream = nil
	}
	if _, err := s.c.rpc.Close(ctx, &pb.CloseRequest{SessionId: s.id}, grpc.MaxCallRecvMsgSize(wire.MaxOpenMsg)); err != nil {
		return s.c.rpcErr("close", err)
	}
	return nil
}

// ringBuffer keeps the last size bytes written to it; it is safe for
// concurrent use. It also keeps, apart, the start of the last Go panic or
// fatal error written to it (crashLines), which a dump of every goroutine
// would push out of the last lines and even out of the buffer.
type ringBuffer struct {
	mu   sync.Mutex
	buf  []byte
	size int

	line    []byte                 // the line being written, up to maxLineLen bytes
	prev    string                 // the last whole line
	crash   []string               // the last crash's first lines, see endLine
	inCrash bool                   // crash is still being collected
	gs      int                    // goroutine headers in crash
	writers []*lineWriter          // whose partial lines lastLines quotes
	clue    func(line string) bool // Process.Clue; nil: none
	clues   []string               // the last lines that may say a limit was hit (clue)
}

// maxLineLen bounds a line as ringBuffer and lineWriter keep it.
const maxLineLen = 4096

// crashLines bounds the lines kept of a crash: its header and the first
// goroutine's frames (Go prints at most 100 frames of a goroutine, two
// lines each, but the frame that called panic is near the top).
const crashLines = 60

func newRingBuffer(size int) *ringBuffer { return &ringBuffer{size: size} }

func (r *ringBuffer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	r.buf = append(r.buf, p...)
	if len(r.buf) > r.size {
		r.buf = append(r.buf[:0], r.buf[len(r.buf)-r.size:]...)
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.line = append(r.line, p[:min(len(p), maxLineLen-len(r.line))]...)
			break
		}
		r.line = append(r.line, p[:min(i, maxLineLen-len(r.line))]...)
		r.endLine(string(r.line))
		r.line, p = r.line[:0], p[i+1:]
	}
	return n, nil
}

// endLine notes the crash that line starts or continues: a Go panic's or
// fatal error's header ("panic: ", "fatal error: ", after the runtime's
// "runtime: out of memory: cannot allocate ..." if it precedes it), and
// the dump's lines up to the second goroutine: the goroutine that failed
// (after the runtime stack of a fatal error) comes first.
func (r *ringBuffer) endLine(line string) {
	if r.clue != nil && r.clue(line) {
		r.clues = append(r.clues[max(len(r.clues)-3, 0):], line)
	}
	prev := r.prev
	r.prev = line
	if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
		r.crash, r.inCrash, r.gs = r.crash[:0], true, 0
		if strings.HasPrefix(prev, "runtime: ") {
			r.crash = append(r.crash, prev)
		}
		r.crash = append(r.crash, line)
		return
	}
	if !r.inCrash {
		return
	}
	if goroutineHeader.MatchString(strings.TrimSpace(line)) {
		r.gs++
	}
	if r.gs > 1 || len(r.crash) >= crashLines {
		r.inCrash = false
		return
	}
	r.crash = append(r.crash, line)
}

// lineWriter returns a writer into r that passes on whole lines only, so
// that two sources writing into r at once do not interleave mid-line;
// lastLines quotes the line it holds back, if any.
func (r *ringBuffer) lineWriter() io.Writer {
	w := &lineWriter{r: r}
	r.mu.Lock()
	r.writers = append(r.writers, w)
	r.mu.Unlock()
	return w
}

// lineWriter's lock is taken before its ring's, by Write and lastLines
// alike.
type lineWriter struct {
	mu      sync.Mutex
	r       *ringBuffer
	partial []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	if i := bytes.LastIndexByte(w.partial, '\n'); i >= 0 {
		w.r.Write(w.partial[:i+1])
		w.partial = append(w.partial[:0], w.partial[i+1:]...)
	}
	if len(w.partial) > maxLineLen {
		w.r.Write(append(w.partial, '\n'))
		w.partial = w.partial[:0]
	}
	return len(p), nil
}

// lastLines returns the last n lines, a last line without a newline
// included; or, when a Go panic or fatal error was written, its header and
// the first goroutine of its dump, however many lines followed (the other
// goroutines). go-plugin's JSON log lines are shown as "level: message".
// raw returns what the buffer holds, as written, the line being written
// included, after the last lines that may say a limit was hit, kept
// apart.
func (r *ringBuffer) raw() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.clues, "\n") + "\n" + string(r.buf) + string(r.line)
}

func (r *ringBuffer) lastLines(n int) string {
	r.mu.Lock()
	writers := r.writers
	r.mu.Unlock()
	for _, w := range writers {
		w.mu.Lock()
		defer w.mu.Unlock()
	}
	r.mu.Lock()
	s := strings.TrimRight(string(r.buf), "\n")
	crash := slices.Clone(r.crash)
	var partials []string
	if len(r.line) > 0 {
		partials = append(partials, string(r.line))
	}
	for _, w := range writers {
		if len(w.partial) > 0 {
			partials = append(partials, string(w.partial))
		}
	}
	r.mu.Unlock()
	var lines []string
	switch {
	case len(crash) > 0:
		lines = crash
	case s == "" && len(partials) == 0:
		return ""
	default:
		if s != "" {
			lines = strings.Split(s, "\n")
		}
		lines = append(lines, partials...)
		lines = lines[max(len(lines)-n, 0):]
	}
	for i, l := range lines {
		lines[i] = plainLogLine(l)
	}
	return strings.Join(lines, "\n")
}

// plainLogLine renders an hclog JSON line as "level: message key=value...";
// other lines are returned as they are.
func plainLogLine(l string) string {
	if !strings.HasPrefix(l, "{") {
		return l
	}
	var m map[string]any
	if json.Unmarshal([]byte(l), &m) != nil {
		return l
	}
	msg, ok := m["@message"].(string)
	if !ok {
		return l
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %s", m["@level"], msg)
	keys := make([]string, 0, len(m))
	for k := range m {
		if !strings.HasPrefix(k, "@") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, m[k])
	}
	return b.String()
}

// Cleanup closes every Client that Start returned and nobody closed yet,
// at once, each within Close's bounds. Hosts call it on exit, including
// after a signal.
func Cleanup() {
	var wg sync.WaitGroup
	for _, c := range live.list() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
}

// live is the set of started Clients not yet closed, for Cleanup.
var live liveSet

type liveSet struct {
	mu sync.Mutex
	m  map[*Client]struct{}
}

func (s *liveSet) add(c *Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[*Client]struct{}{}
	}
	s.m[c] = struct{}{}
}

func (s *liveSet) remove(c *Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, c)
}

func (s *liveSet) list() []*Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Client, 0, len(s.m))
	for c := range s.m {
		out = append(out, c)
	}
	return out
}

// sockErr is rpcErr for a step socket's errors.
func (s *clientSession) sockErr(ctx context.Context, op string, err error) error {
	c := s.c
	if re, ok := errors.AsType[*wire.RemoteError](err); ok {
		return &PluginError{Path: c.path, Op: op, Err: errors.New(re.Msg), Stderr: c.StderrTail(tailLines), Limit: c.limitHit(errors.New(re.Msg))}
	}
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("%w: %v", ctx.Err(), err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		c.waitExit() // as for gRPC's Unavailable: let the crash message arrive
		err = errors.New("the connection to the plugin broke")
	}
	return &PluginError{Path: c.path, Op: op, Err: err, Stderr: c.StderrTail(tailLines), Exited: c.pc.Exited(), Limit: c.limitHit(err)}
}
