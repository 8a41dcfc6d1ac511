package client

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
	"github.com/regretbench/regretbench/sdk"
)

// The host's defences against a hostile plugin, one not built on the SDK
// (which refuses to send any of this): Describe answers beyond bench's
// limits, step socket frames and gRPC answers that do not fit the
// session. The frames themselves are checked in internal/wire; here, that
// the host refuses them as the plugin's error, naming the plugin and the
// round, at no more cost than a well-formed answer.

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// allocSlack is the most a rejected answer may cost in allocations,
// including what the in-process plugin's goroutines allocate meanwhile:
// far below the gigabytes the frames of issue 15 made the host allocate.
const allocSlack = 4 << 20

// rogueGRPC registers a hand-written policy service with go-plugin: a
// plugin that does not go through the SDK's checks.
type rogueGRPC struct {
	plugin.NetRPCUnsupportedPlugin
	srv pb.PolicyServer
}

func (p *rogueGRPC) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterPolicyServer(s, p.srv)
	return nil
}

func (p *rogueGRPC) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("plugin side only")
}

// serveRogue serves srv in process, as ServeInProcess serves a
// Plugin, and attaches a Client to it.
func serveRogue(t *testing.T, srv pb.PolicyServer, opts StartOptions) *Client {
	t.Helper()
	return serveRogueVersion(t, srv, wire.ProtocolVersion, opts)
}

// serveRogueVersion is serveRogue speaking protocol version.
func serveRogueVersion(t *testing.T, srv pb.PolicyServer, version int, opts StartOptions) *Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := make(chan *plugin.ReattachConfig, 1)
	go plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{version: {wire.PluginName: &rogueGRPC{srv: srv}}},
		GRPCServer:       wire.NewGRPCServer,
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

// sdkServer is the SDK's policy service for p, to be tampered with.
func sdkServer(t *testing.T, p sdk.Plugin) pb.PolicyServer {
	t.Helper()
	srv, err := wire.InProcess(p)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := wire.NewPolicyServer(srv, wire.ProtocolVersion)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// describer answers Describe with d, whatever it holds.
type describer struct {
	pb.UnimplementedPolicyServer
	d *pb.DescribeResponse
}

func (s *describer) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	return s.d, nil
}

// describeOf is p's Describe answer as the SDK would send it, without the
// SDK's checks of p.
func describeOf(t testing.TB, p sdk.Plugin) *pb.DescribeResponse {
	t.Helper()
	d := &pb.DescribeResponse{Name: p.Name, Version: p.Version, ProtocolVersion: wire.ProtocolVersion,
		Diagnostics: p.Diagnostics, StepStream: true, Sdk: sdk.SDKVersion}
	for _, pp := range p.Params {
		v, err := protoconv.ToValue(pp.Default)
		if err != nil {
			t.Fatal(err)
		}
		d.Params = append(d.Params, &pb.Param{Name: pp.Name, Type: string(pp.Type), Default: v, Doc: pp.Doc})
	}
	return d
}

// names returns n distinct names.
func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("d%d", i)
	}
	return out
}

// nopBatch is a BatchPolicy that leaves the arms as they are.
type nopBatch struct{}

func (nopBatch) Step(*sdk.BatchStep) error { return nil }

func newNopBatch(sdk.Session, []sdk.Replica) (sdk.BatchPolicy, error) { return nopBatch{}, nil }

// TestDescribeLimits: the host refuses a Describe answer declaring more,
// or longer, names than bench allows, before it sizes anything by them
// (issue 15, item 2: 20,000 diagnostics made bench allocate 5 GB).
func TestDescribeLimits(t *testing.T) {
	long := strings.Repeat("n", 200)
	many := func(n int) []sdk.Param {
		ps := make([]sdk.Param, n)
		for i, name := range names(n) {
			ps[i] = sdk.Param{Name: name, Type: sdk.Float, Default: 1.0}
		}
		return ps
	}
	for _, c := range []struct {
		name string
		p    sdk.Plugin
		want string
	}{
		{"20,000 diagnostics", sdk.Plugin{Diagnostics: names(20000)}, "declares 20000 diagnostics, more than the 64 allowed"},
		{"empty diagnostic name", sdk.Plugin{Diagnostics: []string{"a", ""}}, "diagnostic 2 has an empty name"},
		{"duplicate diagnostic", sdk.Plugin{Diagnostics: []string{"a", "b", "a"}}, `diagnostic "a" is declared twice`},
		{"long diagnostic name", sdk.Plugin{Diagnostics: []string{long}}, "longer than 64 bytes"},
		{"control character", sdk.Plugin{Diagnostics: []string{"a\nb"}}, "control character"},
		{"65 parameters", sdk.Plugin{Params: many(65)}, "declares 65 parameters, more than the 64 allowed"},
		{"long parameter name", sdk.Plugin{Params: []sdk.Param{{Name: long, Type: sdk.Float, Default: 1.0}}}, "longer than 64 bytes"},
		{"duplicate parameter", sdk.Plugin{Params: []sdk.Param{{Name: "c", Type: sdk.Float, Default: 1.0}, {Name: "c", Type: sdk.Int, Default: int64(1)}}}, `parameter "c" is declared twice`},
		{"long doc", sdk.Plugin{Params: []sdk.Param{{Name: "c", Type: sdk.Float, Default: 1.0, Doc: strings.Repeat("d", 5000)}}}, "doc of parameter \"c\" is longer than 1024 bytes"},
		{"huge version", sdk.Plugin{Version: strings.Repeat("v", 300<<10)}, "larger than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.p.Name = "rogue"
			c.p.NewBatch = newNopBatch
			cl := serveRogue(t, &describer{d: describeOf(t, c.p)}, StartOptions{})
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

// frameOf prefixes payload with its length.
func frameOf(payload ...byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(payload))), payload...)
}

// okFrame is a step socket answer with status OK, as docs/step-socket.md
// specifies it: the arms, then the diagnostics' rows.
func okFrame(arms []int32, diags ...[]float64) []byte {
	p := []byte{0}
	p = binary.LittleEndian.AppendUint32(p, uint32(len(arms)))
	for _, a := range arms {
		p = binary.LittleEndian.AppendUint32(p, uint32(a))
	}
	p = binary.LittleEndian.AppendUint32(p, uint32(len(diags)))
	for _, row := range diags {
		for _, v := range row {
			p = binary.LittleEndian.AppendUint64(p, math.Float64bits(v))
		}
	}
	return frameOf(p...)
}

// rawSocket is the SDK's policy service, except that it offers a step
// socket of its own, which answers round 1 well and then round 2 with a
// hand-made frame, and hangs up.
type rawSocket struct {
	pb.PolicyServer
	dir   string // where to put the socket: a short path, as unix sockets need
	frame []byte
}

func (r *rawSocket) Open(ctx context.Context, req *pb.OpenRequest) (*pb.OpenResponse, error) {
	want := req.GetStepSocket()
	req.StepSocket = false
	resp, err := r.PolicyServer.Open(ctx, req)
	if err != nil || !want {
		return resp, err
	}
	path := filepath.Join(r.dir, "step.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	n := len(req.GetReplications())
	go func() {
		defer ln.Close()
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		for _, answer := range [][]byte{okFrame(make([]int32, n)), r.frame} {
			var hdr [4]byte
			if _, err := io.ReadFull(conn, hdr[:]); err != nil {
				return
			}
			if _, err := io.ReadFull(conn, make([]byte, binary.LittleEndian.Uint32(hdr[:]))); err != nil {
				return
			}
			if _, err := conn.Write(answer); err != nil {
				return
			}
		}
	}()
	resp.StepSocket = path
	return resp, nil
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
		{"diagnostics not asked for", okFrame([]int32{0, 1}, []float64{1, 2}), "returned 1 diagnostics where none were asked for"},
		{"3 arms", okFrame([]int32{0, 1, 1}), "returned 3 arms for 2 replications"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "rb-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			p := sdk.Plugin{Name: "raw", Version: "0.0.1", NewBatch: newNopBatch}
			cl := serveRogue(t, &rawSocket{PolicyServer: sdkServer(t, p), dir: dir, frame: c.frame}, StartOptions{})
			ctx := context.Background()
			sc, err := cl.Open(ctx, &OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Family: sdk.Gaussian, NoiseSD: 1})
			if err != nil {
				t.Fatal(err)
			}
			s := sc.(*clientSession)
			if s.sock == nil {
				t.Fatal("the session does not use the plugin's step socket")
			}
			if _, err := s.Step(ctx, &Step{Round: 1}); err != nil {
				t.Fatal(err)
			}
			got := allocated(func() {
				_, err = s.Step(ctx, &Step{Round: 2, PrevArms: []int32{0, 1}, PrevRewards: []float64{0, 0}})
			})
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

// rogueServer is the SDK's policy service with its Step answers tampered
// with at round 2, as a plugin not built on this SDK could send them.
type rogueServer struct {
	pb.PolicyServer
	tamper func(*pb.StepResponse)
}

func (r *rogueServer) Open(ctx context.Context, req *pb.OpenRequest) (*pb.OpenResponse, error) {
	req.StepSocket = false // rounds on gRPC
	return r.PolicyServer.Open(ctx, req)
}

func (r *rogueServer) Step(ctx context.Context, req *pb.StepRequest) (*pb.StepResponse, error) {
	resp, err := r.PolicyServer.Step(ctx, req)
	if err == nil && req.GetRound() == 2 {
		r.tamper(resp)
	}
	return resp, err
}

func (r *rogueServer) Steps(stream pb.Policy_StepsServer) error {
	req := &pb.StepRequest{}
	for {
		if err := stream.RecvMsg(req); err != nil {
			return nil
		}
		resp, err := r.Step(stream.Context(), req)
		if err != nil {
			return err
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
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
			opts StartOptions
		}{{"stream", StartOptions{}}, {"unary", StartOptions{NoStream: true}}} {
			t.Run(c.name+"/"+tr.name, func(t *testing.T) {
				p := sdk.Plugin{Name: "diag", Version: "0", Diagnostics: c.diags, NewBatch: newNopBatch}
				cl := serveRogue(t, &rogueServer{PolicyServer: sdkServer(t, p), tamper: c.tamper}, tr.opts)
				ctx := context.Background()
				if _, err := cl.Describe(ctx); err != nil {
					t.Fatal(err)
				}
				s, err := cl.Open(ctx, &OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Family: sdk.Gaussian, NoiseSD: 1})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Step(ctx, &Step{Round: 1}); err != nil {
					t.Fatal(err)
				}
				_, err = s.Step(ctx, &Step{Round: 2, PrevArms: []int32{0, 1}, PrevRewards: []float64{0, 0}, WantDiag: c.want})
				var pe *PluginError
				if !errors.As(err, &pe) || pe.Op != "step round 2" || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Step: %v, want a step round 2 error containing %q", err, c.err)
				}
			})
		}
	}
}
