package sdk

import (
	"fmt"

	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
)

// The plugin's half of the conversions between the SDK's types and the
// generated protobuf types (the host's is in internal/client): the wire
// format can grow without changing the SDK's Go API.

func toPBDescribe(d *description) (*pb.DescribeResponse, error) {
	out := &pb.DescribeResponse{
		Name: d.Name, Version: d.Version, ProtocolVersion: uint32(d.ProtocolVersion),
		Diagnostics: d.Diagnostics, StepStream: d.StepStream, Sdk: d.SDK,
	}
	for _, p := range d.Params {
		pp, err := toPBParam(p)
		if err != nil {
			return nil, err
		}
		out.Params = append(out.Params, pp)
	}
	return out, nil
}

func toPBParam(p Param) (*pb.Param, error) {
	v, err := wire.ToValue(p.Default)
	if err != nil {
		return nil, fmt.Errorf("parameter %q default: %w", p.Name, err)
	}
	out := &pb.Param{Name: p.Name, Type: string(p.Type), Default: v, Doc: p.Doc,
		Min: toPBBound(p.Min), Max: toPBBound(p.Max)}
	for _, a := range p.Allowed {
		if c, err := p.Type.Coerce(a); err == nil {
			a = c // send 4.0 allowed for an int as the int 4
		}
		av, err := wire.ToValue(a)
		if err != nil {
			return nil, fmt.Errorf("parameter %q allowed value: %w", p.Name, err)
		}
		out.Allowed = append(out.Allowed, av)
	}
	return out, nil
}

func toPBBound(b *Bound) *pb.Bound {
	if b == nil {
		return nil
	}
	return &pb.Bound{Value: b.Value, Exclusive: b.Exclusive}
}

// openRequest is an Open request as the SDK's runner takes it.
type openRequest struct {
	Arms         int
	Horizon      int
	Replications []uint64 // global replication indices, in Step order
	Seed         uint64   // the policy seed
	Family       Family
	NoiseSD      float64
	NoiseKnown   bool
	InitPulls    int
	Params       map[string]any // values as declared; missing ones take defaults
	Feedback     Feedback       // how rewards arrive; the zero value is immediate feedback
}

func fromPBOpen(r *pb.OpenRequest) *openRequest {
	out := &openRequest{
		Arms: int(r.GetArms()), Horizon: int(r.GetHorizon()), Replications: r.GetReplications(),
		Seed: r.GetSeed(), Family: Family(r.GetFamily()), NoiseSD: r.GetNoiseSd(),
		NoiseKnown: r.GetNoiseKnown(), InitPulls: int(r.GetInitPulls()), Params: map[string]any{},
	}
	if f := r.GetFeedback(); f != nil {
		out.Feedback = Feedback{Kind: FeedbackKind(f.GetKind()), Delay: int(min(f.GetDelay(), 1<<62)),
			Mean: f.GetMean(), Batch: int(min(f.GetBatch(), 1<<62))}
		if out.Feedback.Kind == Immediate {
			out.Feedback.Kind = "(empty)" // a message without a kind: refused by open
		}
	}
	for k, v := range r.GetParams() {
		out.Params[k] = wire.FromValue(v)
	}
	return out
}
