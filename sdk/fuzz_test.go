package sdk

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
)

// The fuzz target of the SDK's runner behind the gRPC service; its seed
// corpus is in testdata/fuzz/FuzzStepRequestPB/ and runs with every
// `go test`. The step socket's frames are fuzzed in internal/wire, the
// host's checks of a plugin's answers in internal/client. To fuzz:
//
//	go test -run '^$' -fuzz FuzzStepRequestPB -fuzztime 60s ./sdk/

// FuzzStepRequestPB (plugin side): whatever gRPC Step request follows
// round 1, the plugin answers it in the session's shape or refuses it,
// and never panics.
func FuzzStepRequestPB(f *testing.F) {
	seed := func(r *pb.StepRequest) []byte {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(seed(&pb.StepRequest{Round: 2, PrevArms: []int32{0, 1, 2}, PrevRewards: []float64{1, 2, 3}, WantDiagnostics: true}), true)
	f.Add(seed(&pb.StepRequest{Round: 2, PrevArms: []int32{0, 1, 7}, PrevRewards: []float64{1, 2}}), true)
	c, err := newCore(Plugin{Name: "fuzz", Diagnostics: []string{"a"}, New: func(s Session, r Replica) (Policy, error) {
		return &diagPolicy{k: s.Arms}, nil
	}})
	if err != nil {
		f.Fatal(err)
	}
	srv, err := wire.NewPolicyServer(c, wire.ProtocolVersion)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	const n = 3
	f.Fuzz(func(t *testing.T, b []byte, ours bool) {
		var req pb.StepRequest
		if proto.Unmarshal(b, &req) != nil {
			return
		}
		id, err := c.Open(&pb.OpenRequest{Arms: 4, Horizon: 20, InitPulls: 1, Replications: []uint64{0, 1, 2}, Family: string(Gaussian), NoiseSd: 1}, wire.ProtocolVersion)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(id)
		if _, err := srv.Step(ctx, &pb.StepRequest{SessionId: id, Round: 1}); err != nil {
			t.Fatal(err)
		}
		if ours {
			req.SessionId = id
		}
		resp, err := srv.Step(ctx, &req)
		if err != nil {
			return
		}
		if len(resp.Arms) != n {
			t.Fatalf("answered %d arms for %d replications", len(resp.Arms), n)
		}
		for _, d := range resp.Diagnostics {
			if len(d.Values) != n {
				t.Fatalf("answered %d values of %q for %d replications", len(d.Values), d.Name, n)
			}
		}
	})
}

// diagPolicy is a constPolicy with a diagnostic.
type diagPolicy struct{ k int }

func (p *diagPolicy) Select(t int) int          { return t % p.k }
func (p *diagPolicy) Observe(int, int, float64) {}
func (p *diagPolicy) Diagnose(out []float64)    { out[0] = 1 }

// FuzzContextualStepRequestPB (plugin side): whatever gRPC Step request
// follows round 1 of a contextual session, the plugin answers it in the
// session's shape (an arm and at most one valid probability per
// replication) or refuses it, and never panics, whatever contexts it
// carries (NaN and infinities included: the policy reports them as its
// probability, which the runner must refuse, not pass on).
func FuzzContextualStepRequestPB(f *testing.F) {
	seed := func(r *pb.StepRequest) []byte {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(seed(&pb.StepRequest{Round: 2, PrevArms: []int32{0, 1, 2}, PrevRewards: []float64{1, 2, 3}, Contexts: []float64{0.5, 1, 0.25, 0, 1, 1}}), true)
	f.Add(seed(&pb.StepRequest{Round: 2, PrevArms: []int32{0, 1, 2}, PrevRewards: []float64{1, 2, 3}, Contexts: []float64{0.5, 1, 0.25}}), true)
	f.Add(seed(&pb.StepRequest{Round: 2, PrevArms: []int32{0, 1, 2}, PrevRewards: []float64{1, 2, 3}, Contexts: []float64{2, 1, -1, 0, 1, 1}}), true)
	c, err := newCore(Plugin{Name: "fuzz", NewContextual: func(s Session, r Replica) (ContextualPolicy, error) {
		return echoProb{k: s.Arms}, nil
	}})
	if err != nil {
		f.Fatal(err)
	}
	srv, err := wire.NewPolicyServer(c, wire.ProtocolVersion)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	const n = 3
	f.Fuzz(func(t *testing.T, b []byte, ours bool) {
		var req pb.StepRequest
		if proto.Unmarshal(b, &req) != nil {
			return
		}
		id, err := c.Open(&pb.OpenRequest{Arms: 4, Horizon: 20, Replications: []uint64{0, 1, 2}, Family: string(Gaussian), NoiseSd: 1, Context: &pb.Context{Dim: 2}}, wire.ProtocolVersion)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(id)
		if _, err := srv.Step(ctx, &pb.StepRequest{SessionId: id, Round: 1, Contexts: make([]float64, n*2)}); err != nil {
			t.Fatal(err)
		}
		if ours {
			req.SessionId = id
		}
		resp, err := srv.Step(ctx, &req)
		if err != nil {
			return
		}
		if len(resp.Arms) != n || len(resp.Probs) != 0 && len(resp.Probs) != n {
			t.Fatalf("answered %d arms and %d probabilities for %d replications", len(resp.Arms), len(resp.Probs), n)
		}
		for i, p := range resp.Probs {
			if !validProb(p) || resp.Arms[i] < 0 || resp.Arms[i] >= 4 {
				t.Fatalf("answered arm %d with probability %v", resp.Arms[i], p)
			}
		}
	})
}

// echoProb plays arm t mod K and reports its context's first value as the
// arm's probability, whatever it is.
type echoProb struct{ k int }

func (p echoProb) Select(t int, x []float64) (int, float64)     { return t % p.k, x[0] }
func (p echoProb) Observe(t int, x []float64, _ int, _ float64) {}
