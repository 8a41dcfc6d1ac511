package sdktest_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/sdk"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

// ctxEps is a conforming contextual policy: epsilon-greedy on a score of
// each arm given the context (the arm's mean reward plus a learned weight
// times the context's first feature, or its own first feature with
// per-arm features), drawing from its replica's random source and
// reporting the probability it gave its arm.
type ctxEps struct {
	s      sdk.Session
	rng    *rand.Rand
	sum, n []float64
	w      []float64
}

func newCtxEps(s sdk.Session, r sdk.Replica) *ctxEps {
	return &ctxEps{s: s, rng: r.Rand, sum: make([]float64, s.Arms), n: make([]float64, s.Arms), w: make([]float64, s.Arms)}
}

func (g *ctxEps) feature(x []float64, a int) float64 {
	if g.s.Context.PerArm {
		return x[a*g.s.Context.Dim]
	}
	return x[0]
}

func (g *ctxEps) greedy(x []float64) int {
	best, bv := 0, 0.0
	for a := range g.sum {
		v := 1e9 // unexplored first
		if g.n[a] > 0 {
			v = g.sum[a]/g.n[a] + g.w[a]*g.feature(x, a)
		}
		if a == 0 || v > bv {
			best, bv = a, v
		}
	}
	return best
}

func (g *ctxEps) Select(t int, x []float64) (int, float64) {
	const eps = 0.2
	k := float64(g.s.Arms)
	best := g.greedy(x)
	a := best
	if g.rng.Float64() < eps {
		a = g.rng.IntN(g.s.Arms)
	}
	p := eps / k
	if a == best {
		p += 1 - eps
	}
	return a, p
}

func (g *ctxEps) Observe(t int, x []float64, arm int, reward float64) {
	g.sum[arm] += reward
	g.n[arm]++
	g.w[arm] += 0.01 * (reward - g.sum[arm]/g.n[arm]) * g.feature(x, arm)
}

// ctxBatch is ctxEps as a contextual BatchPolicy; other, when set, picks
// whose context replication i reads (a bug the kit must catch).
type ctxBatch struct {
	pols  []*ctxEps
	other func(i, n int) int
}

func (b *ctxBatch) Step(st *sdk.BatchStep) error {
	n := len(b.pols)
	w := len(st.Contexts) / n
	for i, p := range b.pols {
		if len(st.PrevArms) > 0 {
			p.Observe(st.Round-1, st.PrevContexts[i*w:(i+1)*w], int(st.PrevArms[i]), st.PrevRewards[i])
		}
		j := i
		if b.other != nil {
			j = b.other(i, n)
		}
		a, prob := p.Select(st.Round, st.Contexts[j*w:(j+1)*w])
		st.Arms[i], st.Probs[i] = int32(a), prob
	}
	return nil
}

func goodContextual() sdk.Plugin {
	return sdk.Plugin{
		Name: "ctxeps", Version: "0.1.0",
		New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) { return newEps(s, r), nil },
		Params: []sdk.Param{
			{Name: "eps", Type: sdk.Float, Default: 0.2, Doc: "exploration rate (context-free sessions)"},
		},
		NewContextual: func(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) { return newCtxEps(s, r), nil },
	}
}

func batchContextual(other func(i, n int) int, rnd func(s sdk.Session, r sdk.Replica) *rand.Rand) func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
	return func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
		b := &ctxBatch{other: other}
		for _, r := range reps {
			if rnd != nil {
				r.Rand = rnd(s, r)
			}
			b.pols = append(b.pols, newCtxEps(s, r))
		}
		return b, nil
	}
}

// TestContextualConforming: contextual plugins pass every rule, over
// every transport: one that plays both kinds of session, one that plays
// only contextual ones (whose context-free rules are skipped), and a
// contextual batch policy.
func TestContextualConforming(t *testing.T) {
	t.Parallel()
	only := goodContextual()
	only.New, only.Params = nil, nil
	batch := only
	batch.NewContextual, batch.NewContextualBatch = nil, batchContextual(nil, nil)
	for _, tc := range []struct {
		name string
		p    sdk.Plugin
	}{{"both", goodContextual()}, {"contextual only", only}, {"batch", batch}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sdktest.Run(t, tc.p, sdktest.Quick())
		})
	}
}

// TestContextualViolations: each broken contextual plugin is caught by
// the contextual rule it breaks.
func TestContextualViolations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rule string
		p    func() sdk.Plugin
	}{
		{"global randomness", "contextual-deterministic", func() sdk.Plugin {
			p := goodContextual()
			p.NewContextual = func(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) {
				r.Rand = rand.New(rand.NewPCG(rand.Uint64(), 0))
				return newCtxEps(s, r), nil
			}
			return p
		}},
		{"one random source shared across the batch", "contextual-batch-split", func() sdk.Plugin {
			p := goodContextual()
			p.NewContextual = nil
			p.NewContextualBatch = func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
				shared := sdk.ReplicaRand(s.Seed, 0)
				return batchContextual(nil, func(sdk.Session, sdk.Replica) *rand.Rand { return shared })(s, reps)
			}
			return p
		}},
		{"reads another replication's context", "contextual-batch-split", func() sdk.Plugin {
			p := goodContextual()
			p.NewContextual = nil
			p.NewContextualBatch = batchContextual(func(i, n int) int { return (i + 1) % n }, nil)
			return p
		}},
		{"probability above 1", "contextual-arms", func() sdk.Plugin {
			p := goodContextual()
			p.NewContextual = func(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) {
				return &overOne{newCtxEps(s, r)}, nil
			}
			return p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := sdktest.TestPlugin(tc.p(), sdktest.WithSize(3, 40, 3), sdktest.Quick())
			if err == nil {
				t.Fatalf("TestPlugin found no violation, want one of rule %s", tc.rule)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.rule+"/") || !strings.Contains(msg, "rule: ") {
				t.Errorf("violation report does not name rule %s with its explanation:\n%s", tc.rule, msg)
			}
			// The context-free rules still pass: they play no contexts.
			for _, r := range []string{"valid-arms", "deterministic-seed", "batch-split", "transports-agree"} {
				if strings.Contains(msg, "\n"+r+"/") || strings.HasPrefix(msg, r+"/") {
					t.Errorf("context-free rule %s fails too:\n%s", r, msg)
				}
			}
		})
	}
}

// overOne reports a probability above 1 from round 5 on.
type overOne struct{ *ctxEps }

func (o *overOne) Select(t int, x []float64) (int, float64) {
	a, p := o.ctxEps.Select(t, x)
	if t >= 5 {
		p = 1.5
	}
	return a, p
}
