// Package protoconv converts the regretbench policy protocol's messages
// between their generated protobuf types (internal/wire/pb) and the Go
// values both ends work with, in both directions and in one place, in the
// manner of terraform-plugin-go's toproto and fromproto: ToX builds the
// message of a Go value, FromX the Go value of a message. The plugin's
// side (package sdk) sends a Description and receives an OpenRequest; the
// host's (internal/client) the reverse. FuzzDescribeRoundTrip and
// FuzzOpenRoundTrip check that every value survives the trip.
//
// Values the protocol cannot carry are errors of To; a message a peer
// built by hand converts as it stands, for the receiver to judge
// (Description.Validate, sdk's Open).
package protoconv

import (
	"fmt"

	"github.com/regretbench/regretbench/internal/feedback"
	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
)

// Description is what a plugin reports about itself (the Describe RPC),
// and, as JSON, what `plugin describe` prints.
type Description struct {
	Name            string
	Version         string
	ProtocolVersion int
	Params          []params.Param
	Diagnostics     []string
	StepStream      bool   // serves the streaming Steps RPC
	SDK             string // implementation, e.g. "regretbench-go/0.1.0"
	// Contextual reports that the plugin plays contextual sessions
	// (protocol 3); ContextualOnly that it plays only those.
	Contextual, ContextualOnly bool
}

// Validate checks the parameters a plugin declares (params.ValidateAll:
// each is valid, and their names are unique), as the Go SDK checks its
// own. A host calls it on what Describe returned: a declaration it cannot
// use is the plugin's fault, not the scenario's.
func (d *Description) Validate() error { return params.ValidateAll(d.Params) }

// OpenRequest starts a session: one policy configuration over a batch of
// replications.
type OpenRequest struct {
	Arms         int
	Horizon      int
	Replications []uint64 // global replication indices, in Step order
	Seed         uint64   // the policy seed (one-way from the scenario seed); the scenario seed never leaves the host
	Family       wire.Family
	NoiseSD      float64
	NoiseKnown   bool
	InitPulls    int
	Params       map[string]any    // values as declared; missing ones take defaults
	Feedback     feedback.Feedback // how rewards arrive; the zero value is immediate feedback (protocol 1's only mode)
	Context      wire.ContextShape // the shape of each round's context; the zero value is a context-free session (protocol 3)
}

// ToDescribe is the Describe answer of d.
func ToDescribe(d *Description) (*pb.DescribeResponse, error) {
	out := &pb.DescribeResponse{
		Name: d.Name, Version: d.Version, ProtocolVersion: uint32(d.ProtocolVersion),
		Diagnostics: d.Diagnostics, StepStream: d.StepStream, Sdk: d.SDK,
		Contextual: d.Contextual, ContextualOnly: d.ContextualOnly,
	}
	for _, p := range d.Params {
		pp, err := ToParam(p)
		if err != nil {
			return nil, err
		}
		out.Params = append(out.Params, pp)
	}
	return out, nil
}

// FromDescribe is the Description a Describe answer carries.
func FromDescribe(r *pb.DescribeResponse) *Description {
	d := &Description{
		Name: r.GetName(), Version: r.GetVersion(), ProtocolVersion: int(r.GetProtocolVersion()),
		Diagnostics: r.GetDiagnostics(), StepStream: r.GetStepStream(), SDK: r.GetSdk(),
		Contextual: r.GetContextual(), ContextualOnly: r.GetContextualOnly(),
	}
	for _, p := range r.GetParams() {
		d.Params = append(d.Params, FromParam(p))
	}
	return d
}

// ToParam is the message of a declared parameter. An allowed value that
// converts to the parameter's type goes in that type (4.0 allowed for an
// int is sent as the int 4), as the receiver will compare it.
func ToParam(p params.Param) (*pb.Param, error) {
	v, err := ToValue(p.Default)
	if err != nil {
		return nil, fmt.Errorf("parameter %q default: %w", p.Name, err)
	}
	out := &pb.Param{Name: p.Name, Type: string(p.Type), Default: v, Doc: p.Doc,
		Min: ToBound(p.Min), Max: ToBound(p.Max)}
	for _, a := range p.Allowed {
		if c, err := params.Coerce(p.Type, a); err == nil {
			a = c
		}
		av, err := ToValue(a)
		if err != nil {
			return nil, fmt.Errorf("parameter %q allowed value: %w", p.Name, err)
		}
		out.Allowed = append(out.Allowed, av)
	}
	return out, nil
}

// FromParam is the declared parameter a message carries, as sent:
// Description.Validate judges it.
func FromParam(p *pb.Param) params.Param {
	out := params.Param{Name: p.GetName(), Type: params.Type(p.GetType()), Default: FromValue(p.GetDefault()), Doc: p.GetDoc(),
		Min: FromBound(p.GetMin()), Max: FromBound(p.GetMax())}
	for _, a := range p.GetAllowed() {
		out.Allowed = append(out.Allowed, FromValue(a))
	}
	return out
}

// ToBound is the message of a parameter's bound; nil (no bound) is nil.
func ToBound(b *params.Bound) *pb.Bound {
	if b == nil {
		return nil
	}
	return &pb.Bound{Value: b.Value, Exclusive: b.Exclusive}
}

// FromBound is the bound a message carries; nil is nil.
func FromBound(b *pb.Bound) *params.Bound {
	if b == nil {
		return nil
	}
	return &params.Bound{Value: b.GetValue(), Exclusive: b.GetExclusive()}
}

// ToOpen is the Open request of r. Immediate feedback sends no feedback
// message and a context-free session no context message, so that such a
// request encodes exactly as in protocol 1. Negative sizes, which no
// valid request has, are sent as 0.
func ToOpen(r *OpenRequest) (*pb.OpenRequest, error) {
	out := &pb.OpenRequest{
		Arms: uint32(r.Arms), Horizon: uint64(r.Horizon), Replications: r.Replications,
		Seed: r.Seed, Family: string(r.Family), NoiseSd: r.NoiseSD, NoiseKnown: r.NoiseKnown,
		InitPulls: uint32(r.InitPulls), Params: map[string]*pb.Value{}, Feedback: ToFeedback(r.Feedback),
		Context: ToContext(r.Context),
	}
	for k, v := range r.Params {
		pv, err := ToValue(v)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", k, err)
		}
		out.Params[k] = pv
	}
	return out, nil
}

// FromOpen is the OpenRequest a message carries; its Params map is never
// nil.
func FromOpen(r *pb.OpenRequest) *OpenRequest {
	out := &OpenRequest{
		Arms: int(r.GetArms()), Horizon: int(r.GetHorizon()), Replications: r.GetReplications(),
		Seed: r.GetSeed(), Family: wire.Family(r.GetFamily()), NoiseSD: r.GetNoiseSd(),
		NoiseKnown: r.GetNoiseKnown(), InitPulls: int(r.GetInitPulls()), Params: map[string]any{},
		Feedback: FromFeedback(r.GetFeedback()), Context: FromContext(r.GetContext()),
	}
	for k, v := range r.GetParams() {
		out.Params[k] = FromValue(v)
	}
	return out
}

// EmptyKind is the feedback kind FromFeedback gives a feedback message
// without a kind, which no valid request sends (immediate feedback sends
// no message): feedback.Check refuses it, naming it "(empty)".
const EmptyKind feedback.Kind = "(empty)"

// ToFeedback is the feedback message of f: nil for immediate feedback.
func ToFeedback(f feedback.Feedback) *pb.Feedback {
	if !f.Delayed() {
		return nil
	}
	return &pb.Feedback{Kind: string(f.Kind), Delay: uint64(max(f.Delay, 0)),
		Mean: f.Mean, Batch: uint64(max(f.Batch, 0))}
}

// FromFeedback is the feedback mode a message carries: immediate for nil,
// EmptyKind for a message without a kind. Delays and batches beyond an
// int are capped at 2^62.
func FromFeedback(f *pb.Feedback) feedback.Feedback {
	if f == nil {
		return feedback.Feedback{}
	}
	out := feedback.Feedback{Kind: feedback.Kind(f.GetKind()), Delay: int(min(f.GetDelay(), 1<<62)),
		Mean: f.GetMean(), Batch: int(min(f.GetBatch(), 1<<62))}
	if out.Kind == feedback.Immediate {
		out.Kind = EmptyKind
	}
	return out
}

// ToContext is the context message of c: nil for a context-free session
// (Dim 0, or negative, which no valid request has). A Dim beyond uint32
// is sent as the largest uint32, for the receiver to refuse.
func ToContext(c wire.ContextShape) *pb.Context {
	if !c.Contextual() {
		return nil
	}
	return &pb.Context{Dim: uint32(min(c.Dim, 1<<32-1)), PerArm: c.PerArm}
}

// FromContext is the context shape a message carries: the zero value
// (a context-free session) for nil, and for a message with dim 0, which
// no valid request sends: the receiver, which sees the message, refuses
// it (sdk's Open does).
func FromContext(c *pb.Context) wire.ContextShape {
	if c.GetDim() == 0 {
		return wire.ContextShape{}
	}
	return wire.ContextShape{Dim: int(c.GetDim()), PerArm: c.GetPerArm()}
}
