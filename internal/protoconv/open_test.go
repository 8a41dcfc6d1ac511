package protoconv_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire/pb"
	"github.com/regretbench/regretbench/sdk"
)

// TestImmediateOpenUnchanged: under immediate feedback and without a
// context an OpenRequest encodes exactly as in protocol 1: no feedback or
// context field on the wire; a context's shape travels when set.
func TestImmediateOpenUnchanged(t *testing.T) {
	req := &protoconv.OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Seed: 3, Family: sdk.Gaussian, NoiseSD: 1, NoiseKnown: true, InitPulls: 1}
	m, err := protoconv.ToOpen(req)
	if err != nil {
		t.Fatal(err)
	}
	if m.Feedback != nil {
		t.Fatalf("immediate feedback sends %v", m.Feedback)
	}
	old := &pb.OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0, 1}, Seed: 3, Family: "gaussian", NoiseSd: 1, NoiseKnown: true, InitPulls: 1, Params: map[string]*pb.Value{}}
	a, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(old)
	if !bytes.Equal(a, b) {
		t.Fatal("an immediate OpenRequest encodes differently from protocol 1's")
	}
	if m.Context != nil {
		t.Fatalf("a context-free session sends %v", m.Context)
	}
	req.Context = sdk.ContextShape{Dim: 16, PerArm: true}
	m, _ = protoconv.ToOpen(req)
	if c := m.GetContext(); c.GetDim() != 16 || !c.GetPerArm() {
		t.Fatalf("context {16, per arm} sent as %v", c)
	}
	if got := protoconv.FromOpen(m).Context; got != req.Context {
		t.Fatalf("context comes back as %+v", got)
	}
	req.Context = sdk.ContextShape{}
	req.Feedback = sdk.Feedback{Kind: sdk.Geometric, Mean: 2.5}
	m, _ = protoconv.ToOpen(req)
	if f := m.GetFeedback(); f.GetKind() != "geometric" || f.GetMean() != 2.5 || f.GetDelay() != 0 || f.GetBatch() != 0 {
		t.Fatalf("geometric feedback sent as %v", f)
	}
}
