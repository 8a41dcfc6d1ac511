package sdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/regretbench/regretbench/sdk/internal/pb"
)

// grpcServer serves a core over the generated gRPC service.
type grpcServer struct {
	pb.UnimplementedPolicyServer
	c       *core
	version int // the protocol version negotiated with the host
}

func rpcErr(err error) error {
	if errors.Is(err, errInvalid) {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

func (s *grpcServer) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	d := s.c.describe()
	d.ProtocolVersion = s.version
	r, err := toPBDescribe(d)
	if err != nil {
		return nil, rpcErr(err)
	}
	return r, nil
}

func (s *grpcServer) Open(_ context.Context, req *pb.OpenRequest) (*pb.OpenResponse, error) {
	oreq := fromPBOpen(req)
	if oreq.Feedback.Delayed() && s.version < DelayedFeedbackVersion {
		return nil, rpcErr(fmt.Errorf("%w: delayed feedback (%s) needs protocol version %d, this connection speaks %d",
			errInvalid, oreq.Feedback, DelayedFeedbackVersion, s.version))
	}
	id, err := s.c.open(oreq)
	if err != nil {
		return nil, rpcErr(err)
	}
	resp := &pb.OpenResponse{SessionId: id}
	if req.GetStepSocket() {
		// Without a socket (say, TMPDIR's path too long for one) the
		// host plays the session on Steps.
		resp.StepSocket, _ = s.c.listenStep(id)
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
	var arrivals []Arrival
	if arr := req.GetArrivals(); len(arr) > 0 {
		arrivals = make([]Arrival, len(arr))
		for i, a := range arr {
			arrivals[i] = Arrival{Index: int(a.GetIndex()), Round: int(a.GetRound()), Arm: a.GetArm(), Reward: a.GetReward()}
		}
	}
	res, err := s.c.step(req.GetSessionId(), int(req.GetRound()), req.GetPrevArms(), req.GetPrevRewards(), arrivals, req.GetWantDiagnostics())
	if err != nil {
		return rpcErr(err)
	}
	resp.Arms = res.Arms
	resp.Diagnostics = resp.Diagnostics[:0]
	for d, vals := range res.Diagnostics {
		resp.Diagnostics = append(resp.Diagnostics, &pb.Diagnostic{Name: s.c.p.Diagnostics[d], Values: vals})
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
	if err := s.c.close(req.GetSessionId()); err != nil {
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

// maxMessage bounds gRPC messages in both directions; the default 4 MiB
// server limit would cap diagnostics of very large batches.
const maxMessage = 256 << 20

func newGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts,
		grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage),
		grpc.ChainUnaryInterceptor(recoverUnary), grpc.ChainStreamInterceptor(recoverStream))
	return grpc.NewServer(opts...)
}

// grpcPlugin is the go-plugin glue: it registers the server on the plugin
// side and builds the client on the host side.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl    *core // nil on the host side
	version int   // the protocol version of this plugin set
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.impl == nil {
		return fmt.Errorf("sdk: no policy to serve")
	}
	pb.RegisterPolicyServer(s, &grpcServer{c: p.impl, version: p.version})
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return pb.NewPolicyClient(cc), nil
}

// pluginSets returns one plugin set per protocol version: on the host side
// (impl nil) every version bench speaks, on the plugin side the versions
// served.
func pluginSets(impl *core, versions []int) map[int]plugin.PluginSet {
	sets := map[int]plugin.PluginSet{}
	for _, v := range versions {
		sets[v] = plugin.PluginSet{pluginName: &grpcPlugin{impl: impl, version: v}}
	}
	return sets
}

// hostVersions are the protocol versions the host offers.
var hostVersions = []int{1, 2}
