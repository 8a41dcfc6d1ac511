package sdk

import (
	"fmt"

	"github.com/regretbench/regretbench/sdk/internal/pb"
)

// The generated protobuf types stay behind these conversions, so the wire
// format can grow without changing the SDK's Go API.

func toValue(v any) (*pb.Value, error) {
	switch x := v.(type) {
	case float64:
		return &pb.Value{Kind: &pb.Value_Float{Float: x}}, nil
	case int64:
		return &pb.Value{Kind: &pb.Value_Int{Int: x}}, nil
	case int:
		return &pb.Value{Kind: &pb.Value_Int{Int: int64(x)}}, nil
	case bool:
		return &pb.Value{Kind: &pb.Value_Bool{Bool: x}}, nil
	case string:
		return &pb.Value{Kind: &pb.Value_String_{String_: x}}, nil
	}
	return nil, fmt.Errorf("unsupported parameter value %T %v", v, v)
}

func fromValue(v *pb.Value) any {
	switch x := v.GetKind().(type) {
	case *pb.Value_Float:
		return x.Float
	case *pb.Value_Int:
		return x.Int
	case *pb.Value_Bool:
		return x.Bool
	case *pb.Value_String_:
		return x.String_
	}
	return nil
}

func toPBDescribe(d *Description) (*pb.DescribeResponse, error) {
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
	v, err := toValue(p.Default)
	if err != nil {
		return nil, fmt.Errorf("parameter %q default: %w", p.Name, err)
	}
	out := &pb.Param{Name: p.Name, Type: string(p.Type), Default: v, Doc: p.Doc,
		Min: toPBBound(p.Min), Max: toPBBound(p.Max)}
	for _, a := range p.Allowed {
		if c, err := p.Type.Coerce(a); err == nil {
			a = c // send 4.0 allowed for an int as the int 4
		}
		av, err := toValue(a)
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

// fromPBParam converts a declared parameter as sent; Description.Validate
// judges it.
func fromPBParam(p *pb.Param) Param {
	out := Param{Name: p.GetName(), Type: ParamType(p.GetType()), Default: fromValue(p.GetDefault()), Doc: p.GetDoc(),
		Min: fromPBBound(p.GetMin()), Max: fromPBBound(p.GetMax())}
	for _, a := range p.GetAllowed() {
		out.Allowed = append(out.Allowed, fromValue(a))
	}
	return out
}

func fromPBBound(b *pb.Bound) *Bound {
	if b == nil {
		return nil
	}
	return &Bound{Value: b.GetValue(), Exclusive: b.GetExclusive()}
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
		pv, err := toValue(v)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", k, err)
		}
		out.Params[k] = pv
	}
	return out, nil
}

func fromPBOpen(r *pb.OpenRequest) *OpenRequest {
	out := &OpenRequest{
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
		out.Params[k] = fromValue(v)
	}
	return out
}
