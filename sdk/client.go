package sdk

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/regretbench/regretbench/sdk/internal/pb"
)

// Conn is the host's view of a plugin, over go-plugin (Client) or in
// process (Local).
type Conn interface {
	// Describe asks the plugin what it is and which parameters it takes.
	Describe(ctx context.Context) (*Description, error)
	// Open starts a session.
	Open(ctx context.Context, req *OpenRequest) (SessionConn, error)
	// Close releases the plugin; for a Client it kills the process.
	Close() error
}

// SessionConn is the host's handle on an open session.
type SessionConn interface {
	// Step plays round (1-based) given the previous round's arms and rewards
	// (nil for round 1). The result is valid until the next Step.
	Step(ctx context.Context, round int, prevArms []int32, prevRewards []float64, wantDiag bool) (StepResult, error)
	// Close ends the session.
	Close(ctx context.Context) error
}

// LaunchOptions tunes Launch.
type LaunchOptions struct {
	// SHA256, when set, pins the executable's checksum: a mismatch refuses
	// to start it (go-plugin SecureConfig).
	SHA256 []byte
	// StartTimeout bounds the time to the handshake; default 10s.
	StartTimeout time.Duration
	// NoStream forces unary Step even when the plugin serves Steps.
	NoStream bool
	// Log, when set, receives go-plugin's own log at debug level.
	Log io.Writer
}

// Client is a plugin process launched and spoken to over go-plugin.
type Client struct {
	path   string
	pc     *plugin.Client
	rpc    pb.PolicyClient
	tail   *ringBuffer
	stream bool
	noStr  bool
}

// Launch starts the plugin executable at path and completes the handshake.
// Errors name the path and quote the plugin's last stderr lines.
func Launch(path string, opts LaunchOptions) (*Client, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("plugin %s: not an executable file (mode %v)", path, st.Mode())
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 10 * time.Second
	}
	tail := newRingBuffer(64 << 10)
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: pluginSets(nil),
		Cmd:              exec.Command(path),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Managed:          true,
		StartTimeout:     opts.StartTimeout,
		Stderr:           tail,
		SyncStdout:       tail,
		SyncStderr:       tail,
		Logger:           hclog.NewNullLogger(),
	}
	if opts.Log != nil {
		cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: "plugin", Level: hclog.Debug, Output: opts.Log})
	}
	if len(opts.SHA256) > 0 {
		cfg.SecureConfig = &plugin.SecureConfig{Checksum: opts.SHA256, Hash: sha256.New()}
	}
	c := &Client{path: path, pc: plugin.NewClient(cfg), tail: tail, noStr: opts.NoStream}
	if err := c.connect(); err != nil {
		c.pc.Kill()
		return nil, err
	}
	return c, nil
}

// Attach connects to a plugin served by ServeInProcess (or a debug-mode
// plugin) instead of launching a process. Of opts only NoStream applies.
func Attach(rc *plugin.ReattachConfig, opts LaunchOptions) (*Client, error) {
	sets := pluginSets(nil)
	tail := newRingBuffer(64 << 10)
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: Handshake,
		Plugins:         sets[rc.ProtocolVersion],
		Reattach:        rc,
		Logger:          hclog.NewNullLogger(),
		Stderr:          tail,
	})
	c := &Client{path: "reattach:" + rc.Addr.String(), pc: pc, tail: tail, noStr: opts.NoStream}
	if err := c.connect(); err != nil {
		pc.Kill()
		return nil, err
	}
	return c, nil
}

func (c *Client) connect() error {
	cp, err := c.pc.Client()
	if err != nil {
		return c.fail("start", err)
	}
	raw, err := cp.Dispense(pluginName)
	if err != nil {
		return c.fail("dispense", err)
	}
	c.rpc = raw.(pb.PolicyClient)
	return nil
}

// fail wraps err with the plugin path, a hint for the common causes and the
// plugin's last stderr lines.
func (c *Client) fail(op string, err error) error {
	msg := err.Error()
	hint := ""
	switch {
	case errors.Is(err, plugin.ErrChecksumsDoNotMatch):
		hint = " (its SHA-256 does not match the pinned sha256)"
	case strings.Contains(msg, "Incompatible API version"):
		hint = fmt.Sprintf(" (bench speaks protocol version %d)", ProtocolVersion)
	case strings.Contains(msg, "Unrecognized remote plugin message"), strings.Contains(msg, "plugin exited before we could connect"):
		hint = " (is it a regretbench plugin? it must call sdk.Serve, or print the go-plugin handshake first on stdout)"
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		hint = " (it did not complete the handshake in time; raise --start-timeout if it is just slow)"
	}
	return &PluginError{Path: c.path, Op: op, Err: fmt.Errorf("%w%s", err, hint), Stderr: c.StderrTail(8)}
}

// PluginError is an error from or about a plugin process. Its message names
// the plugin and quotes its last stderr lines.
type PluginError struct {
	Path   string
	Op     string
	Err    error
	Stderr string // last lines of the plugin's stderr, may be empty
	Exited bool   // the process had exited when the error was seen
}

func (e *PluginError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s: %s: %v", e.Path, e.Op, e.Err)
	if e.Exited {
		b.WriteString(" (the plugin process exited)")
	}
	if e.Stderr != "" {
		b.WriteString("\n  plugin stderr (last lines):\n    ")
		b.WriteString(strings.ReplaceAll(strings.TrimRight(e.Stderr, "\n"), "\n", "\n    "))
	}
	return b.String()
}

func (e *PluginError) Unwrap() error { return e.Err }

// Path returns the executable this client launched.
func (c *Client) Path() string { return c.path }

// Exited reports whether the plugin process has exited.
func (c *Client) Exited() bool { return c.pc.Exited() }

// StderrTail returns the last n lines the plugin wrote to stderr.
func (c *Client) StderrTail(n int) string { return c.tail.lastLines(n) }

// Close kills the plugin process (gracefully first) and waits for it.
func (c *Client) Close() error {
	c.pc.Kill()
	return nil
}

func (c *Client) rpcErr(op string, err error) error {
	if st, ok := status.FromError(err); ok && st.Code() != codes.Unavailable && st.Code() != codes.Canceled {
		err = errors.New(st.Message())
	}
	if c.pc.Exited() {
		// Give the stderr copier a moment to drain the crash message.
		time.Sleep(50 * time.Millisecond)
	}
	return &PluginError{Path: c.path, Op: op, Err: err, Stderr: c.StderrTail(8), Exited: c.pc.Exited()}
}

// Describe implements Conn.
func (c *Client) Describe(ctx context.Context) (*Description, error) {
	r, err := c.rpc.Describe(ctx, &pb.DescribeRequest{})
	if err != nil {
		return nil, c.rpcErr("describe", err)
	}
	d := fromPBDescribe(r)
	c.stream = d.StepStream && !c.noStr
	return d, nil
}

// Open implements Conn.
func (c *Client) Open(ctx context.Context, req *OpenRequest) (SessionConn, error) {
	preq, err := toPBOpen(req)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: open: %w", c.path, err)
	}
	r, err := c.rpc.Open(ctx, preq)
	if err != nil {
		return nil, c.rpcErr("open", err)
	}
	s := &clientSession{c: c, id: r.GetSessionId(), n: len(req.Replications)}
	s.req.SessionId = s.id
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
}

func (s *clientSession) Step(ctx context.Context, round int, prevArms []int32, prevRewards []float64, wantDiag bool) (StepResult, error) {
	s.req.Round = uint64(round)
	s.req.PrevArms = prevArms
	s.req.PrevRewards = prevRewards
	s.req.WantDiagnostics = wantDiag
	op := fmt.Sprintf("step round %d", round)
	var resp *pb.StepResponse
	if s.c.stream {
		if s.stream == nil {
			sctx, cancel := context.WithCancel(context.Background())
			st, err := s.c.rpc.Steps(sctx)
			if err != nil {
				cancel()
				return StepResult{}, s.c.rpcErr(op, err)
			}
			s.stream, s.cancel = st, cancel
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
			return StepResult{}, s.c.rpcErr(op, err)
		}
		resp = &s.resp
	} else {
		r, err := s.c.rpc.Step(ctx, &s.req)
		if err != nil {
			return StepResult{}, s.c.rpcErr(op, err)
		}
		resp = r
	}
	if len(resp.Arms) != s.n {
		return StepResult{}, &PluginError{Path: s.c.path, Op: op,
			Err: fmt.Errorf("returned %d arms for %d replications", len(resp.Arms), s.n), Stderr: s.c.StderrTail(8)}
	}
	res := StepResult{Arms: resp.Arms}
	if wantDiag {
		s.diag = s.diag[:0]
		for _, d := range resp.Diagnostics {
			if len(d.Values) != s.n {
				return StepResult{}, &PluginError{Path: s.c.path, Op: op,
					Err: fmt.Errorf("diagnostic %q has %d values for %d replications", d.Name, len(d.Values), s.n)}
			}
			s.diag = append(s.diag, d.Values)
		}
		res.Diagnostics = s.diag
	}
	return res, nil
}

func (s *clientSession) Close(ctx context.Context) error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.stream != nil {
		s.stream.CloseSend()
		s.cancel()
		s.stream = nil
	}
	if _, err := s.c.rpc.Close(ctx, &pb.CloseRequest{SessionId: s.id}); err != nil {
		return s.c.rpcErr("close", err)
	}
	return nil
}

// ringBuffer keeps the last size bytes written to it; it is safe for
// concurrent use.
type ringBuffer struct {
	mu   sync.Mutex
	buf  []byte
	size int
}

func newRingBuffer(size int) *ringBuffer { return &ringBuffer{size: size} }

func (r *ringBuffer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if len(r.buf) > r.size {
		r.buf = append(r.buf[:0], r.buf[len(r.buf)-r.size:]...)
	}
	return len(p), nil
}

func (r *ringBuffer) lastLines(n int) string {
	r.mu.Lock()
	s := strings.TrimRight(string(r.buf), "\n")
	r.mu.Unlock()
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Local runs a Plugin in the calling process with no RPC at all: the
// reference against which transport overhead is measured.
type Local struct{ c *core }

// NewLocal returns an in-process Conn for p.
func NewLocal(p Plugin) (*Local, error) {
	c, err := newCore(p)
	if err != nil {
		return nil, err
	}
	return &Local{c: c}, nil
}

// Describe implements Conn.
func (l *Local) Describe(context.Context) (*Description, error) { return l.c.describe(), nil }

// Open implements Conn.
func (l *Local) Open(_ context.Context, req *OpenRequest) (SessionConn, error) {
	id, err := l.c.open(req)
	if err != nil {
		return nil, err
	}
	return &localSession{c: l.c, id: id}, nil
}

// Close implements Conn.
func (l *Local) Close() error { return nil }

type localSession struct {
	c  *core
	id uint64
}

func (s *localSession) Step(_ context.Context, round int, prevArms []int32, prevRewards []float64, wantDiag bool) (StepResult, error) {
	return s.c.step(s.id, round, prevArms, prevRewards, wantDiag)
}

func (s *localSession) Close(context.Context) error { return s.c.close(s.id) }

// Cleanup kills every plugin process this process launched and has not yet
// closed. Hosts call it on exit, including after a signal.
func Cleanup() { plugin.CleanupClients() }
