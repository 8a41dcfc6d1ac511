package protoconv_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire/pb"
	"github.com/regretbench/regretbench/sdk"
)

// TestImmediateOpenUnchanged: under immediate feedback an OpenRequest
// encodes exactly as in protocol 1: no feedback field on the wire.
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
	req.Feedback = sdk.Feedback{Kind: sdk.Geometric, Mean: 2.5}
	m, _ = protoconv.ToOpen(req)
	if f := m.GetFeedback(); f.GetKind() != "geometric" || f.GetMean() != 2.5 || f.GetDelay() != 0 || f.GetBatch() != 0 {
		t.Fatalf("geometric feedback sent as %v", f)
	}
}
