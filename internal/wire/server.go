package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/regretbench/regretbench/internal/wire/pb"
)

// The plugin's side of the protocol: the gRPC service and the step
// socket's server, over a Server.

// Server is a plugin's policy runner as the transports see it; package sdk
// implements it over an sdk.Plugin. Errors wrapping ErrInvalid are the
// request's fault, other errors the policy's.
type Server interface {
	// Describe answers the Describe RPC; the transport sets the protocol
	// version it negotiated.
	Describe() (*pb.DescribeResponse, error)
	// Open starts a session on a connection speaking protocol version.
	Open(req *pb.OpenRequest, version int) (id uint64, err error)
	// Session returns the open session id.
	Session(id uint64) (Session, error)
	// Close ends session id.
	Close(id uint64) error
}

// Session is one open session of a Server. Its rounds are sequential.
type Session interface {
	// Replications is the number of replications in the session's batch.
	Replications() int
	// Delayed reports whether rewards arrive late (protocol 2).
	Delayed() bool
	// Pending is how many rewards have not arrived before the next
	// round: the bound on its arrivals.
	Pending() int
	// ContextWidth is the number of values of one replication's context
	// in each round of a contextual session (protocol 3), 0 in a
	// context-free one.
	ContextWidth() int
	// Step plays one round. The result aliases the session's buffers and
	// is valid until its next Step.
	Step(st *Step) (StepResult, error)
}

// runner is the policy runner registered by RegisterRunner.
var runner func(plugin any) (Server, error)

// RegisterRunner registers the policy runner: the function that makes a
// Server of a plugin value (an sdk.Plugin). Package sdk, which owns the
// runner and keeps it behind its author API, registers it when it is
// initialised, as a database/sql driver registers itself; the host's
// in-process connections (internal/client's NewLocal and ServeInProcess)
// reach it through InProcess. Registering twice, or nil, panics.
func RegisterRunner(newServer func(plugin any) (Server, error)) {
	if newServer == nil {
		panic("wire: RegisterRunner of a nil runner")
	}
	if runner != nil {
		panic("wire: RegisterRunner called twice")
	}
	runner = newServer
}

// InProcess returns a Server for a plugin value (an sdk.Plugin) in the
// calling process, from the runner package sdk registered: an error when
// no runner is registered (package sdk is not linked in) or the plugin is
// not valid.
func InProcess(plugin any) (Server, error) {
	if runner == nil {
		return nil, errors.New("wire: no policy runner registered: import package sdk")
	}
	return runner(plugin)
}

// grpcServer serves a Server over the generated gRPC service.
type grpcServer struct {
	pb.UnimplementedPolicyServer
	srv     Server
	diags   []string // the declared diagnostics' names, for Step answers
	version int      // the protocol version negotiated with the host
}

func rpcErr(err error) error {
	if errors.Is(err, ErrInvalid) {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

func (s *grpcServer) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	r, err := s.srv.Describe()
	if err != nil {
		return nil, rpcErr(err)
	}
	r.ProtocolVersion = uint32(s.version)
	return r, nil
}

func (s *grpcServer) Open(_ context.Context, req *pb.OpenRequest) (*pb.OpenResponse, error) {
	id, err := s.srv.Open(req, s.version)
	if err != nil {
		return nil, rpcErr(err)
	}
	resp := &pb.OpenResponse{SessionId: id}
	if req.GetStepSocket() {
		// Without a socket (say, TMPDIR's path too long for one) the
		// host plays the session on Steps.
		resp.StepSocket, _ = listenStep(s.srv, id)
	}
	return resp, nil
}

func (s *grpcServer) Step(_ context.Context, req *pb.StepRequest) (*pb.StepResponse, error) {
	resp := &pb.StepResponse{}
	if err := s.step(req, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

func (s *grpcServer) step(req *pb.StepRequest, resp *pb.StepResponse) error {
	// Sessions step concurrently on one server: the arrivals are the
	// call's own. Their count is checked against the session in core.step.
	st := Step{Round: int(req.GetRound()), PrevArms: req.GetPrevArms(), PrevRewards: req.GetPrevRewards(), WantDiag: req.GetWantDiagnostics(),
		Contexts: req.GetContexts()}
	if arr := req.GetArrivals(); len(arr) > 0 {
		st.Arrivals = make([]Arrival, len(arr))
		for i, a := range arr {
			st.Arrivals[i] = Arrival{Index: int(a.GetIndex()), Round: int(a.GetRound()), Arm: a.GetArm(), Reward: a.GetReward()}
		}
	}
	sess, err := s.srv.Session(req.GetSessionId())
	if err != nil {
		return rpcErr(err)
	}
	res, err := sess.Step(&st)
	if err != nil {
		return rpcErr(err)
	}
	if len(res.Diagnostics) > len(s.diags) {
		return rpcErr(fmt.Errorf("the policy returned %d diagnostics, the plugin declares %d", len(res.Diagnostics), len(s.diags)))
	}
	resp.Arms = res.Arms
	resp.Probs = res.Probs
	resp.Diagnostics = resp.Diagnostics[:0]
	for d, vals := range res.Diagnostics {
		resp.Diagnostics = append(resp.Diagnostics, &pb.Diagnostic{Name: s.diags[d], Values: vals})
	}
	return nil
}

// Steps serves a session's rounds on one stream; request and response
// messages are reused across rounds.
func (s *grpcServer) Steps(stream pb.Policy_StepsServer) error {
	req := &pb.StepRequest{}
	resp := &pb.StepResponse{}
	for {
		if err := stream.RecvMsg(req); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := s.step(req, resp); err != nil {
			return err
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

func (s *grpcServer) Close(_ context.Context, req *pb.CloseRequest) (*pb.CloseResponse, error) {
	if err := s.srv.Close(req.GetSessionId()); err != nil {
		return nil, rpcErr(err)
	}
	return &pb.CloseResponse{}, nil
}

// recoverUnary and recoverStream turn a panic in a handler into an Internal
// error with the stack, instead of killing the plugin process.
func recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = status.Errorf(codes.Internal, "plugin panicked in %s: %v\n%s", info.FullMethod, r, debug.Stack())
		}
	}()
	return h(ctx, req)
}

func recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = status.Errorf(codes.Internal, "plugin panicked in %s: %v\n%s", info.FullMethod, r, debug.Stack())
		}
	}()
	return h(srv, ss)
}

// NewGRPCServer is the plugin's gRPC server (go-plugin's
// ServeConfig.GRPCServer): messages up to MaxMessage, and a handler's
// panic answered as an error instead of killing the process.
func NewGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts,
		grpc.MaxRecvMsgSize(MaxMessage), grpc.MaxSendMsgSize(MaxMessage),
		grpc.ChainUnaryInterceptor(recoverUnary), grpc.ChainStreamInterceptor(recoverStream))
	return grpc.NewServer(opts...)
}

// grpcPlugin is the go-plugin glue: it registers the server on the plugin
// side and builds the client on the host side.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl    Server // nil on the host side
	version int    // the protocol version of this plugin set
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.impl == nil {
		return fmt.Errorf("sdk: no policy to serve")
	}
	ps, err := NewPolicyServer(p.impl, p.version)
	if err != nil {
		return err
	}
	pb.RegisterPolicyServer(s, ps)
	return nil
}

// NewPolicyServer returns the gRPC service of srv on a connection speaking
// protocol version: what a plugin registers. Tests wrap it to play a
// hostile plugin.
func NewPolicyServer(srv Server, version int) (pb.PolicyServer, error) {
	d, err := srv.Describe()
	if err != nil {
		return nil, err
	}
	return &grpcServer{srv: srv, diags: d.GetDiagnostics(), version: version}, nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return pb.NewPolicyClient(cc), nil
}

// PluginSets returns one go-plugin plugin set per protocol version: on the
// host side (impl nil) every version bench speaks (HostVersions), each
// dispensing a pb.PolicyClient; on the plugin side the versions served.
func PluginSets(impl Server, versions []int) map[int]plugin.PluginSet {
	sets := map[int]plugin.PluginSet{}
	for _, v := range versions {
		sets[v] = plugin.PluginSet{PluginName: &grpcPlugin{impl: impl, version: v}}
	}
	return sets
}

// stepAcceptTimeout bounds how long an offered socket waits for the host.
const stepAcceptTimeout = time.Minute

// listenStep opens the step socket of session id in a fresh private
// directory and serves its one connection in the background. It returns
// the socket's path.
func listenStep(srv Server, id uint64) (string, error) {
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
		serveStep(srv, id, sc)
	}()
	return path, nil
}

// serveStep answers request frames on conn until the host closes it. A
// frame that does not fit the session is answered with an error and ends
// the connection.
func serveStep(srv Server, id uint64, conn io.ReadWriter) {
	s, err := srv.Session(id)
	if err != nil {
		return
	}
	var (
		f       stepFrame
		in, out []byte
		n       = s.Replications()
		width   = s.ContextWidth()
		limit   = reqFrameLimit(n, width)
		delayed = s.Delayed()
		pending int
	)
	for {
		if delayed {
			// Rounds of a session are sequential: nothing else moves
			// its count of pending rewards while this one waits.
			pending = s.Pending()
			limit = reqFrameLimitDelayed(n, pending, width)
		}
		if in, err = readFrame(conn, in, limit); err != nil {
			if _, ok := err.(*frameSizeError); ok {
				conn.Write(appendErrorResponse(out, frameInvalid, "step socket: "+err.Error()))
			}
			return
		}
		if err := decodeStepRequest(in[4:], &f, n, pending, width); err != nil {
			conn.Write(appendErrorResponse(out, frameInvalid, "step socket: "+err.Error()))
			return
		}
		res, err := s.Step(&f.Step)
		switch {
		case errors.Is(err, ErrInvalid):
			out = appendErrorResponse(out, frameInvalid, err.Error())
		case err != nil:
			out = appendErrorResponse(out, frameFailed, err.Error())
		default:
			out = appendStepResponse(out, res, width > 0)
		}
		if _, err := conn.Write(out); err != nil {
			return
		}
	}
}
