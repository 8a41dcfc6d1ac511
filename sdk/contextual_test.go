package sdk

import (
	"math"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/feedback"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
)

// The runner's side of contextual sessions (protocol 3), on the core
// itself: what it accepts, refuses, and checks of a policy's answers.
// internal/client's TestContextualOverEveryTransport plays them over
// every transport.

// fixedCtx is a ContextualPolicy that returns a fixed arm and probability
// and counts its calls.
type fixedCtx struct {
	arm            int
	prob           float64
	selects, obs   int
	lastObsRound   int
	lastObsContext []float64
}

func (f *fixedCtx) Select(int, []float64) (int, float64) { f.selects++; return f.arm, f.prob }
func (f *fixedCtx) Observe(t int, x []float64, _ int, _ float64) {
	f.obs++
	f.lastObsRound, f.lastObsContext = t, append(f.lastObsContext[:0], x...)
}

func ctxPlugin(arm int, prob float64, pols *[]*fixedCtx) Plugin {
	return Plugin{Name: "fixed", Version: "1", NewContextual: func(s Session, r Replica) (ContextualPolicy, error) {
		p := &fixedCtx{arm: arm, prob: prob}
		if pols != nil {
			*pols = append(*pols, p)
		}
		return p, nil
	}}
}

func plainNew(s Session, r Replica) (Policy, error) { return &roundRobin{k: s.Arms}, nil }

type roundRobin struct{ k int }

func (p *roundRobin) Select(t int) int          { return t % p.k }
func (p *roundRobin) Observe(int, int, float64) {}

// TestDescribeContextual: Describe reports contextual when the plugin has
// a contextual factory, contextual_only when it has no other.
func TestDescribeContextual(t *testing.T) {
	batch := func(Session, []Replica) (BatchPolicy, error) { return nil, nil }
	for _, c := range []struct {
		name      string
		p         Plugin
		ctx, only bool
	}{
		{"New", Plugin{Name: "a", New: plainNew}, false, false},
		{"NewContextual", ctxPlugin(0, 0, nil), true, true},
		{"NewContextualBatch", Plugin{Name: "b", NewContextualBatch: batch}, true, true},
		{"both", Plugin{Name: "c", NewBatch: batch, NewContextual: ctxPlugin(0, 0, nil).NewContextual}, true, false},
	} {
		core, err := newCore(c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d, err := core.Describe()
		if err != nil {
			t.Fatal(err)
		}
		if d.GetContextual() != c.ctx || d.GetContextualOnly() != c.only || d.GetProtocolVersion() != wire.ContextualVersion {
			t.Errorf("%s: contextual %v, contextual_only %v, protocol %d; want %v, %v, 3", c.name, d.GetContextual(), d.GetContextualOnly(), d.GetProtocolVersion(), c.ctx, c.only)
		}
	}
	if err := (&Plugin{Name: "x", NewContextual: ctxPlugin(0, 0, nil).NewContextual, NewContextualBatch: batch}).validate(); err == nil {
		t.Error("a plugin with both contextual factories validates")
	}
}

func openReq(ctx *pb.Context) *pb.OpenRequest {
	return &pb.OpenRequest{Arms: 3, Horizon: 10, Replications: []uint64{4, 5}, Family: "gaussian", NoiseSd: 1, Context: ctx}
}

// TestContextualOpenRefusals: the runner refuses, as an invalid request
// naming the plugin where it is about the plugin, a session it does not
// play.
func TestContextualOpenRefusals(t *testing.T) {
	plain, _ := newCore(Plugin{Name: "plain", New: plainNew})
	only, _ := newCore(ctxPlugin(0, 1, nil))
	delayed := openReq(&pb.Context{Dim: 2})
	delayed.Feedback = &pb.Feedback{Kind: string(feedback.Delay), Delay: 2}
	huge := openReq(&pb.Context{Dim: 1 << 30, PerArm: true})
	for _, c := range []struct {
		name    string
		core    *core
		req     *pb.OpenRequest
		version int
		want    string
	}{
		{"contextual session, context-free plugin", plain, openReq(&pb.Context{Dim: 2}), 3, "plugin plain plays only context-free sessions"},
		{"context-free session, contextual-only plugin", only, openReq(nil), 3, "plugin fixed plays only contextual sessions"},
		{"protocol 2 connection", only, openReq(&pb.Context{Dim: 2}), 2, "needs protocol version 3, this connection speaks 2"},
		{"dimension 0", only, openReq(&pb.Context{}), 3, "dimension 0"},
		{"delayed feedback", only, delayed, 3, "contextual sessions take immediate feedback"},
		{"beyond the message limit", only, huge, 3, "message limit"},
	} {
		_, err := c.core.Open(c.req, c.version)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), wire.ErrInvalid.Error()) {
			t.Errorf("%s: error %v, want an invalid request containing %q", c.name, err, c.want)
		}
	}
}

// TestContextualStepChecks: the runner refuses contexts that do not fit
// the session, and a policy's arm or probability out of range, naming the
// replication and the call in the author's terms; it calls Observe in
// forced rounds and Select only after them, and sends no probabilities
// when no policy says any.
func TestContextualStepChecks(t *testing.T) {
	open := func(p Plugin, ctx *pb.Context, initPulls uint32) *coreSession {
		t.Helper()
		c, err := newCore(p)
		if err != nil {
			t.Fatal(err)
		}
		req := openReq(ctx)
		req.InitPulls = initPulls
		id, err := c.Open(req, wire.ProtocolVersion)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := c.session(id)
		return s
	}
	x := []float64{1, 2, 3, 4}
	s := open(ctxPlugin(0, 1, nil), &pb.Context{Dim: 2}, 0)
	if _, err := s.Step(&wire.Step{Round: 1, Contexts: x[:3]}); err == nil || !strings.Contains(err.Error(), "3 context values, want 4") {
		t.Errorf("short contexts: %v", err)
	}
	s = open(Plugin{Name: "plain", New: plainNew}, nil, 0)
	if _, err := s.Step(&wire.Step{Round: 1, Contexts: x}); err == nil || !strings.Contains(err.Error(), "context-free session") {
		t.Errorf("contexts in a context-free session: %v", err)
	}
	for _, c := range []struct {
		arm  int
		prob float64
		want string
	}{
		{3, 1, "Select(1, x) returned arm 3, want 0..2"},
		{1, 1.5, "Select(1, x) returned probability 1.5 for arm 1"},
		{1, math.NaN(), "returned probability NaN"},
		{1, -0.5, "returned probability -0.5"},
	} {
		s := open(ctxPlugin(c.arm, c.prob, nil), &pb.Context{Dim: 2}, 0)
		if _, err := s.Step(&wire.Step{Round: 1, Contexts: x}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("arm %d prob %v: %v, want %q", c.arm, c.prob, err, c.want)
		}
	}
	// A batch policy's probabilities are checked after its Step.
	bad := Plugin{Name: "b", NewContextualBatch: func(Session, []Replica) (BatchPolicy, error) {
		return batchFunc(func(st *BatchStep) error { st.Probs[1] = 2; return nil }), nil
	}}
	s = open(bad, &pb.Context{Dim: 2}, 0)
	if _, err := s.Step(&wire.Step{Round: 1, Contexts: x}); err == nil || !strings.Contains(err.Error(), "replication 5: the policy reported probability 2 for arm 0") {
		t.Errorf("batch probability 2: %v", err)
	}
	// Forced rounds: Observe, never Select, no probabilities; then a
	// policy that says nothing sends none.
	var pols []*fixedCtx
	s = open(ctxPlugin(2, 0, &pols), &pb.Context{Dim: 1, PerArm: true}, 1)
	ctx := []float64{1, 2, 3, 4, 5, 6}
	var prev []int32
	var rewards []float64
	for round := 1; round <= 4; round++ {
		for i := range ctx {
			ctx[i] = float64(10*round + i) // the same buffer, rewritten: the SDK keeps its copy
		}
		res, err := s.Step(&wire.Step{Round: round, PrevArms: prev, PrevRewards: rewards, Contexts: ctx})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if res.Probs != nil {
			t.Errorf("round %d: probabilities %v", round, res.Probs)
		}
		prev, rewards = []int32{res.Arms[0], res.Arms[1]}, []float64{1, 1}
	}
	for i, p := range pols {
		if p.selects != 1 || p.obs != 3 || p.lastObsRound != 3 || p.lastObsContext[0] != float64(30+3*i) || len(p.lastObsContext) != 3 {
			t.Errorf("replication %d: %d selects, %d observes, last Observe(%d, %v); want 1, 3, Observe(3, [%d ...])",
				i, p.selects, p.obs, p.lastObsRound, p.lastObsContext, 30+3*i)
		}
	}
}

// batchFunc is a BatchPolicy that runs a function each round.
type batchFunc func(st *BatchStep) error

func (f batchFunc) Step(st *BatchStep) error { return f(st) }
