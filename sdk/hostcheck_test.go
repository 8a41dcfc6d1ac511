package sdk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/regretbench/regretbench/sdk/internal/pb"
)

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocSlack is the most a rejected frame may cost in allocations,
// including what the in-process plugin's goroutines allocate meanwhile:
// far below the gigabytes the frames of issue 15 made the host allocate.
const allocSlack = 4 << 20

// serveUnchecked serves p in process like ServeInProcess, but without the
// SDK's validation of p: it stands for a plugin not built on this SDK.
func serveUnchecked(t *testing.T, p plugin.Plugin, opts LaunchOptions) *Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := make(chan *plugin.ReattachConfig, 1)
	go plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{ProtocolVersion: {pluginName: p}},
		GRPCServer:       newGRPCServer,
		Logger:           hclog.NewNullLogger(),
		Test:             &plugin.ServeTestConfig{Context: ctx, ReattachConfigCh: ch},
	})
	var rc *plugin.ReattachConfig
	select {
	case rc = <-ch:
	case <-time.After(time.Minute):
		t.Fatal("the in-process plugin did not start")
	}
	cl, err := Attach(rc, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// uncheckedCore serves p without the SDK's validation of p.
func uncheckedCore(t *testing.T, p Plugin) *Client {
	return serveUnchecked(t, &grpcPlugin{impl: &core{p: p, sessions: map[uint64]*coreSession{}}}, LaunchOptions{})
}

// names returns n distinct names.
func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("d%d", i)
	}
	return out
}

// TestDescribeLimits: the host refuses a Describe answer declaring more,
// or longer, names than bench allows, before it sizes anything by them
// (issue 15, item 2: 20,000 diagnostics made bench allocate 5 GB).
func TestDescribeLimits(t *testing.T) {
	long := strings.Repeat("n", 200)
	many := func(n int) []Param {
		ps := make([]Param, n)
		for i, name := range names(n) {
			ps[i] = Param{Name: name, Type: Float, Default: 1.0}
		}
		return ps
	}
	for _, c := range []struct {
		name string
		p    Plugin
		want string
	}{
		{"20,000 diagnostics", Plugin{Diagnostics: names(20000)}, "declares 20000 diagnostics, more than the 64 allowed"},
		{"empty diagnostic name", Plugin{Diagnostics: []string{"a", ""}}, "diagnostic 2 has an empty name"},
		{"duplicate diagnostic", Plugin{Diagnostics: []string{"a", "b", "a"}}, `diagnostic "a" is declared twice`},
		{"long diagnostic name", Plugin{Diagnostics: []string{long}}, "longer than 64 bytes"},
		{"control character", Plugin{Diagnostics: []string{"a\nb"}}, "control character"},
		{"65 parameters", Plugin{Params: many(65)}, "declares 65 parameters, more than the 64 allowed"},
		{"long parameter name", Plugin{Params: []Param{{Name: long, Type: Float, Default: 1.0}}}, "longer than 64 bytes"},
		{"duplicate parameter", Plugin{Params: []Param{{Name: "c", Type: Float, Default: 1.0}, {Name: "c", Type: Int, Default: int64(1)}}}, `parameter "c" is declared twice`},
		{"long doc", Plugin{Params: []Param{{Name: "c", Type: Float, Default: 1.0, Doc: strings.Repeat("d", 5000)}}}, "doc of parameter \"c\" is longer than 1024 bytes"},
		{"huge version", Plugin{Version: strings.Repeat("v", 300<<10)}, "larger than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.p.Name = "rogue"
			c.p.NewBatch = func(Session, []Replica) (BatchPolicy, error) {
				return stepFunc(func(*BatchStep) error { return nil }), nil
			}
			cl := uncheckedCore(t, c.p)
			var err error
			got := allocated(func() { _, err = cl.Describe(context.Background()) })
			var pe *PluginError
			if !errors.As(err, &pe) || pe.Op != "describe" || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "plugin reattach:") {
				t.Fatalf("Describe: %v; want a describe error containing %q", err, c.want)
			}
			if c.name == "huge version" && got > allocSlack {
				t.Errorf("refusing the Describe answer allocated %d bytes", got)
			}
			// The SDK refuses to serve such a plugin in the first place.
			if _, err := NewLocal(c.p); err == nil && c.name != "huge version" {
				t.Errorf("NewLocal accepted the plugin")
			}
		})
	}
}

// TestPluginLimits: the SDK tells an author at once, when it checks the
// Plugin value, that a declaration is beyond what bench accepts.
func TestPluginLimits(t *testing.T) {
	ok := func(Session, []Replica) (BatchPolicy, error) { return nil, nil }
	for _, c := range []struct {
		name string
		p    Plugin
		want string
	}{
		{"20,000 diagnostics", Plugin{Diagnostics: names(20000)}, "sdk: plugin p: declares 20000 diagnostics, more than the 64 allowed (sdk.MaxDiagnostics)"},
		{"duplicate diagnostic", Plugin{Diagnostics: []string{"a", "a"}}, `diagnostic "a" is declared twice`},
		{"long name", Plugin{Params: []Param{{Name: strings.Repeat("p", 65), Type: Int, Default: 1}}}, "longer than 64 bytes (sdk.MaxNameLen)"},
		{"empty param name", Plugin{Params: []Param{{Type: Int, Default: 1}}}, "parameter 1 has an empty name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.p.Name, c.p.NewBatch = "p", ok
			_, err := NewLocal(c.p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("NewLocal: %v, want an error containing %q", err, c.want)
			}
		})
	}
	// At the limits exactly, a plugin is fine.
	p := Plugin{Name: strings.Repeat("p", MaxNameLen), NewBatch: ok, Diagnostics: names(MaxDiagnostics)}
	for _, n := range names(MaxParams) {
		p.Params = append(p.Params, Param{Name: n, Type: String, Default: strings.Repeat("s", MaxTextLen), Doc: strings.Repeat("d", MaxTextLen)})
	}
	if _, err := NewLocal(p); err != nil {
		t.Fatalf("a plugin at every limit: %v", err)
	}
}

// rawPeer replaces the step socket of s with a pipe to a fake plugin that
// reads one request frame and answers it with frame, then hangs up.
func rawPeer(t *testing.T, s *clientSession, frame []byte) {
	t.Helper()
	host, peer := net.Pipe()
	s.sock.conn.Close()
	s.sock.conn = netStepConn{host}
	go func() {
		defer peer.Close()
		var hdr [4]byte
		if _, err := io.ReadFull(peer, hdr[:]); err != nil {
			return
		}
		if _, err := io.ReadFull(peer, make([]byte, binary.LittleEndian.Uint32(hdr[:]))); err != nil {
			return
		}
		peer.Write(frame)
	}()
}

// frameOf prefixes payload with its length.
func frameOf(payload ...byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(payload))), payload...)
}

// TestRawResponseFrames: a plugin writing hand-made frames on the step
// socket gets an error naming it and the round, and costs the host no
// more memory than a well-formed frame (issue 15, item 1: 13 bytes made
// bench allocate 100 GB and die).
func TestRawResponseFrames(t *testing.T) {
	for _, c := range []struct {
		name  string
		frame []byte
		want  string
	}{
		// status 0, 0 arms, 0xFFFFFFFF diagnostics: the 13-byte frame.
		{"13 bytes: 0 arms, 2^32-1 diagnostics", frameOf(0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff), "returned 0 arms for 2 replications"},
		{"2 arms, 2^32-1 diagnostics", frameOf(0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff), "returned 4294967295 diagnostics where none were asked for"},
		// A 9-byte frame whose header promises 256 MiB.
		{"9 bytes: a 256 MiB header", []byte{0, 0, 0, 0x10, 0, 0, 0, 0, 0}, "exceeds the limit"},
		{"2^32-1 arms", frameOf(0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0), "returned 4294967295 arms for 2 replications"},
		{"diagnostics not asked for", appendStepResponse(nil, StepResult{Arms: []int32{0, 1}, Diagnostics: [][]float64{{1, 2}}}), "returned 1 diagnostics where none were asked for"},
		{"3 arms", appendStepResponse(nil, StepResult{Arms: []int32{0, 1, 1}}), "returned 3 arms for 2 replications"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, s := attachSocket(t, LaunchOptions{}, func(*BatchStep) error { return nil })
			ctx := context.Background()
			if _, err := s.Step(ctx, 1, nil, nil, false); err != nil {
				t.Fatal(err)
			}
			rawPeer(t, s, c.frame)
			var err error
			got := allocated(func() { _, err = s.Step(ctx, 2, []int32{0, 1}, []float64{0, 0}, false) })
			var pe *PluginError
			if !errors.As(err, &pe) || pe.Op != "step round 2" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Step: %v, want a step round 2 error containing %q", err, c.want)
			}
			if got > allocSlack {
				t.Errorf("refusing the frame allocated %d bytes", got)
			}
		})
	}
}

// rogueServer is the SDK's gRPC server with its Step answers tampered
// with at round 2, as a plugin not built on this SDK could send them.
type rogueServer struct {
	*grpcServer
	tamper func(*pb.StepResponse)
}

func (r *rogueServer) Open(ctx context.Context, req *pb.OpenRequest) (*pb.OpenResponse, error) {
	req.StepSocket = false // rounds on gRPC
	return r.grpcServer.Open(ctx, req)
}

func (r *rogueServer) Step(ctx context.Context, req *pb.StepRequest) (*pb.StepResponse, error) {
	resp, err := r.grpcServer.Step(ctx, req)
	if err == nil && req.GetRound() == 2 {
		r.tamper(resp)
	}
	return resp, err
}

func (r *rogueServer) Steps(stream pb.Policy_StepsServer) error {
	req, resp := &pb.StepRequest{}, &pb.StepResponse{}
	for {
		if err := stream.RecvMsg(req); err != nil {
			return nil
		}
		if err := r.step(req, resp); err != nil {
			return err
		}
		if req.GetRound() == 2 {
			r.tamper(resp)
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

// roguePlugin registers a rogueServer with go-plugin.
type roguePlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv pb.PolicyServer
}

func (p *roguePlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterPolicyServer(s, p.srv)
	return nil
}

func (p *roguePlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("plugin side only")
}

// TestDiagnosticsChecked: on gRPC, the client refuses diagnostics that
// were not asked for, or other than the plugin declared, naming the round
// (the step socket's are checked by TestRawResponseFrames).
func TestDiagnosticsChecked(t *testing.T) {
	for _, c := range []struct {
		name   string
		diags  []string
		want   bool // ask for diagnostics
		tamper func(*pb.StepResponse)
		err    string
	}{
		{"unasked", nil, false, func(r *pb.StepResponse) {
			r.Diagnostics = []*pb.Diagnostic{{Name: "x", Values: []float64{1, 2}}}
		}, "returned 1 diagnostics where none were asked for"},
		{"unasked with declared", []string{"a"}, false, func(r *pb.StepResponse) {
			r.Diagnostics = []*pb.Diagnostic{{Name: "a", Values: []float64{1, 2}}}
		}, "returned 1 diagnostics where none were asked for"},
		{"fewer than declared", []string{"a", "b"}, true, func(r *pb.StepResponse) { r.Diagnostics = r.Diagnostics[:1] }, "returned 1 diagnostics, it declared 2"},
		{"more than declared", []string{"a"}, true, func(r *pb.StepResponse) {
			r.Diagnostics = append(r.Diagnostics, &pb.Diagnostic{Name: "b", Values: []float64{3, 4}})
		}, "returned 2 diagnostics, it declared 1"},
		{"short diagnostic", []string{"a"}, true, func(r *pb.StepResponse) { r.Diagnostics[0].Values = r.Diagnostics[0].Values[:1] }, `diagnostic "a" has 1 values for 2 replications`},
		{"arms", []string{"a"}, true, func(r *pb.StepResponse) { r.Arms = append(r.Arms, 1) }, "returned 3 arms for 2 replications"},
	} {
		for _, tr := range []struct {
			name string
			opts LaunchOptions
		}{{"stream", LaunchOptions{}}, {"unary", LaunchOptions{NoStream: true}}} {
			t.Run(c.name+"/"+tr.name, func(t *testing.T) {
				p := Plugin{Name: "diag", Version: "0", Diagnostics: c.diags, NewBatch: func(Session, []Replica) (BatchPolicy, error) {
					return stepFunc(func(*BatchStep) error { return nil }), nil
				}}
				core, err := newCore(p)
				if err != nil {
					t.Fatal(err)
				}
				cl := serveUnchecked(t, &roguePlugin{srv: &rogueServer{grpcServer: &grpcServer{c: core}, tamper: c.tamper}}, tr.opts)
				ctx := context.Background()
				if _, err := cl.Describe(ctx); err != nil {
					t.Fatal(err)
				}
				s, err := cl.Open(ctx, &OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Family: Gaussian, NoiseSD: 1})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Step(ctx, 1, nil, nil, false); err != nil {
					t.Fatal(err)
				}
				_, err = s.Step(ctx, 2, []int32{0, 1}, []float64{0, 0}, c.want)
				var pe *PluginError
				if !errors.As(err, &pe) || pe.Op != "step round 2" || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Step: %v, want a step round 2 error containing %q", err, c.err)
				}
			})
		}
	}
}

// TestPolicyDiagnosticsChecked: the SDK checks a BatchPolicy's
// diagnostics against the Plugin's declaration, and names the Plugin
// field, instead of sending them (or panicking on them).
func TestPolicyDiagnosticsChecked(t *testing.T) {
	for _, c := range []struct {
		name  string
		diags []string
		want  bool
		step  func(st *BatchStep)
		err   string
	}{
		{"unasked", []string{"a"}, false, func(st *BatchStep) { st.Diagnostics = [][]float64{{1, 2}} }, "the policy returned 1 diagnostics where none were asked for"},
		{"none declared", nil, true, func(st *BatchStep) { st.Diagnostics = [][]float64{{1, 2}} }, "the policy returned 1 diagnostics, the plugin declares 0 (Plugin.Diagnostics)"},
		{"fewer", []string{"a", "b"}, true, func(st *BatchStep) { st.Diagnostics = st.Diagnostics[:1] }, "the policy returned 1 diagnostics, the plugin declares 2"},
		{"short row", []string{"a", "b"}, true, func(st *BatchStep) { st.Diagnostics[1] = st.Diagnostics[1][:1] }, `the policy returned 1 values of diagnostic "b" for 2 replications`},
	} {
		for _, tr := range []struct {
			name string
			opts LaunchOptions
		}{{"local", LaunchOptions{}}, {"socket", LaunchOptions{}}, {"stream", LaunchOptions{NoSocket: true}}, {"unary", LaunchOptions{NoStream: true}}} {
			t.Run(c.name+"/"+tr.name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				p := Plugin{Name: "diag", Version: "0", Diagnostics: c.diags, NewBatch: func(Session, []Replica) (BatchPolicy, error) {
					return stepFunc(func(st *BatchStep) error {
						if st.Round == 2 {
							c.step(st)
						}
						return nil
					}), nil
				}}
				var conn Conn
				if tr.name == "local" {
					conn, _ = NewLocal(p)
				} else {
					rc, err := ServeInProcess(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					cl, err := Attach(rc, tr.opts)
					if err != nil {
						t.Fatal(err)
					}
					defer cl.Close()
					conn = cl
				}
				s, err := conn.Open(ctx, &OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Family: Gaussian, NoiseSD: 1})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Step(ctx, 1, nil, nil, false); err != nil {
					t.Fatal(err)
				}
				_, err = s.Step(ctx, 2, []int32{0, 1}, []float64{0, 0}, c.want)
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Step: %v, want an error containing %q", err, c.err)
				}
			})
		}
	}
}

// TestServeStepFrameLimit: the plugin side refuses a request frame longer
// than its session can need before allocating it, and says so.
func TestServeStepFrameLimit(t *testing.T) {
	c, err := newCore(Plugin{Name: "p", NewBatch: func(Session, []Replica) (BatchPolicy, error) {
		return stepFunc(func(*BatchStep) error { return nil }), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.open(&OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Family: Gaussian, NoiseSD: 1})
	if err != nil {
		t.Fatal(err)
	}
	host, plug := socketPair(t)
	defer host.Close()
	done := make(chan struct{})
	var got uint64
	go func() {
		defer close(done)
		defer plug.Close()
		got = allocated(func() { c.serveStep(id, plug) })
	}()
	// A header promising 200 MiB, 5 bytes, and the end of the stream.
	host.Write([]byte{0, 0, 0x80, 0x0c, 1, 0, 0, 0, 0})
	host.(*net.UnixConn).CloseWrite()
	reply, err := io.ReadAll(host)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	var r stepReply
	if len(reply) < 4 || decodeStepResponse(reply[4:], &r, 2, 0) != nil || r.status != frameInvalid || !strings.Contains(r.msg, "exceeds the limit") {
		t.Fatalf("reply %q, want an invalid-request frame naming the limit", reply)
	}
	if got > allocSlack {
		t.Errorf("refusing the frame allocated %d bytes", got)
	}
}
