package client

import (
	"fmt"

	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
	"github.com/regretbench/regretbench/sdk"
)

// The host's half of the conversions between Go types and the generated
// protobuf types (the plugin's is in package sdk).

// fromPBParam converts a declared parameter as sent; Description.Validate
// judges it.
func fromPBParam(p *pb.Param) sdk.Param {
	out := sdk.Param{Name: p.GetName(), Type: sdk.ParamType(p.GetType()), Default: wire.FromValue(p.GetDefault()), Doc: p.GetDoc(),
		Min: fromPBBound(p.GetMin()), Max: fromPBBound(p.GetMax())}
	for _, a := range p.GetAllowed() {
		out.Allowed = append(out.Allowed, wire.FromValue(a))
	}
	return out
}

func fromPBBound(b *pb.Bound) *sdk.Bound {
	if b == nil {
		return nil
	}
	return &sdk.Bound{Value: b.GetValue(), Exclusive: b.GetExclusive()}
}

func fromPBDescribe(r *pb.DescribeResponse) *Description {
	d := &Description{
		Name: r.GetName(), Version: r.GetVersion(), ProtocolVersion: int(r.GetProtocolVersion()),
		Diagnostics: r.GetDiagnostics(), StepStream: r.GetStepStream(), SDK: r.GetSdk(),
	}
	for _, p := range r.GetParams() {
		d.Params = append(d.Params, fromPBParam(p))
	}
	return d
}

func toPBOpen(r *OpenRequest) (*pb.OpenRequest, error) {
	out := &pb.OpenRequest{
		Arms: uint32(r.Arms), Horizon: uint64(r.Horizon), Replications: r.Replications,
		Seed: r.Seed, Family: string(r.Family), NoiseSd: r.NoiseSD, NoiseKnown: r.NoiseKnown,
		InitPulls: uint32(r.InitPulls), Params: map[string]*pb.Value{},
	}
	if r.Feedback.Delayed() {
		out.Feedback = &pb.Feedback{Kind: string(r.Feedback.Kind), Delay: uint64(max(r.Feedback.Delay, 0)),
			Mean: r.Feedback.Mean, Batch: uint64(max(r.Feedback.Batch, 0))}
	}
	for k, v := range r.Params {
		pv, err := wire.ToValue(v)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", k, err)
		}
		out.Params[k] = pv
	}
	return out, nil
}
