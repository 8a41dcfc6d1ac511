package sdktest_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/regretbench/regretbench/sdk"
	"github.com/regretbench/regretbench/sdk/sdktest"
)

// epsGreedy is a conforming policy that uses its replica's random source.
type epsGreedy struct {
	s        sdk.Session
	rng      *rand.Rand
	sum, n   []float64
	explored float64
}

func (g *epsGreedy) Select(t int) int {
	if g.rng.Float64() < g.s.Params.Float("eps") {
		g.explored++
		return g.rng.IntN(g.s.Arms)
	}
	best, bv := 0, math.Inf(-1)
	for i := range g.sum {
		v := math.Inf(1)
		if g.n[i] > 0 {
			v = g.sum[i] / g.n[i]
		}
		if v > bv {
			best, bv = i, v
		}
	}
	return best
}

func (g *epsGreedy) Observe(t, arm int, reward float64) { g.sum[arm] += reward; g.n[arm]++ }

func (g *epsGreedy) Diagnose(out []float64) { out[0] = g.explored }

func newEps(s sdk.Session, r sdk.Replica) *epsGreedy {
	return &epsGreedy{s: s, rng: r.Rand, sum: make([]float64, s.Arms), n: make([]float64, s.Arms)}
}

func good() sdk.Plugin {
	return sdk.Plugin{
		Name: "eps", Version: "0.1.0",
		Params: []sdk.Param{
			{Name: "eps", Type: sdk.Float, Default: 0.2, Doc: "exploration rate"},
			{Name: "spare", Type: sdk.Int, Default: int64(3), Doc: "unused"},
		},
		Diagnostics: []string{"explored"},
		New:         func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) { return newEps(s, r), nil },
	}
}

// batchEps is good() as a BatchPolicy: the kit must accept it too.
type batchEps struct{ pols []*epsGreedy }

func (b *batchEps) Step(st *sdk.BatchStep) error {
	// Under delayed feedback the rewards come as arrivals, ordered by
	// replication.
	for _, a := range st.Arrivals {
		b.pols[a.Index].Observe(a.Round, int(a.Arm), a.Reward)
	}
	for i, p := range b.pols {
		if len(st.PrevRewards) > 0 {
			p.Observe(st.Round-1, int(st.PrevArms[i]), st.PrevRewards[i])
		}
		if st.Round > p.s.InitRounds() {
			st.Arms[i] = int32(p.Select(st.Round))
		}
		if st.Diagnostics != nil {
			st.Diagnostics[0][i] = p.explored
		}
	}
	return nil
}

func TestRunConforming(t *testing.T) {
	t.Parallel()
	sdktest.Run(t, good())
}

func TestConformingVariants(t *testing.T) {
	t.Parallel()
	batch := good()
	batch.New = nil
	batch.NewBatch = func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
		b := &batchEps{}
		for _, r := range reps {
			b.pols = append(b.pols, newEps(s, r))
		}
		return b, nil
	}
	for _, tc := range []struct {
		name string
		p    sdk.Plugin
		opts []sdktest.Option
	}{
		{"batch policy", batch, nil},
		{"bernoulli", good(), []sdktest.Option{sdktest.WithFamily(sdk.Bernoulli)}},
		{"params and size", good(), []sdktest.Option{sdktest.WithParams(map[string]any{"eps": 0.5}),
			sdktest.WithSize(3, 30, 2), sdktest.WithNoise(0.5, false), sdktest.WithSeed(9)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := sdktest.TestPlugin(tc.p, tc.opts...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestViolations: each broken plugin is caught by the rule it breaks, and
// the report names the rule and explains it.
func TestViolations(t *testing.T) {
	t.Parallel()
	var global atomic.Int64 // state shared across sessions and instances
	for _, tc := range []struct {
		name   string
		rule   string
		break_ func(p *sdk.Plugin)
	}{
		{"arm out of range", "valid-arms", func(p *sdk.Plugin) {
			p.NewBatch = func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
				return stepFunc(func(st *sdk.BatchStep) {
					for i := range st.Arms {
						st.Arms[i] = int32(s.Arms) // one past the last arm
					}
				}), nil
			}
			p.New = nil
		}},
		{"global randomness", "deterministic-seed", func(p *sdk.Plugin) {
			p.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
				r.Rand = rand.New(rand.NewPCG(rand.Uint64(), 0))
				return newEps(s, r), nil
			}
		}},
		{"state shared across sessions", "independent-sessions", func(p *sdk.Plugin) {
			p.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
				return &sharedCount{newEps(s, r), &global}, nil
			}
		}},
		{"randomness from the batch position", "batch-split", func(p *sdk.Plugin) {
			p.New = nil
			p.NewBatch = func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
				b := &batchEps{}
				for i := range reps {
					b.pols = append(b.pols, newEps(s, sdk.Replica{Index: uint64(i), Rand: sdk.ReplicaRand(s.Seed, uint64(i))}))
				}
				return b, nil
			}
		}},
		{"int default declared as int", "describe-round-trip", func(p *sdk.Plugin) {
			p.Params[1].Default = 3
		}},
		{"int default sent as a float", "describe", func(p *sdk.Plugin) {
			p.Params[1].Default = 3.0
		}},
		{"randomness ignores the seed", "seed-used", func(p *sdk.Plugin) {
			p.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
				r.Rand = sdk.ReplicaRand(42, r.Index) // a constant instead of s.Seed
				return newEps(s, r), nil
			}
		}},
		{"one random source shared across the batch", "batch-split", func(p *sdk.Plugin) {
			p.New = nil
			p.NewBatch = func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
				shared := sdk.ReplicaRand(s.Seed, 0)
				b := &batchEps{}
				for _, r := range reps {
					b.pols = append(b.pols, newEps(s, sdk.Replica{Index: r.Index, Rand: shared}))
				}
				return b, nil
			}
		}},
		{"batch policy that ignores arrivals", "delayed-feedback", func(p *sdk.Plugin) {
			// Written for protocol 1: it learns only from PrevRewards,
			// so under delayed feedback it never learns anything.
			p.New = nil
			p.NewBatch = func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
				b := &batchEps{}
				for _, r := range reps {
					b.pols = append(b.pols, newEps(s, r))
				}
				return stepFunc(func(st *sdk.BatchStep) {
					st.Arrivals = nil
					b.Step(st)
				}), nil
			}
		}},
		{"diagnostics consume randomness", "diagnostics-passive", func(p *sdk.Plugin) {
			p.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
				return &noisyDiag{newEps(s, r)}, nil
			}
		}},
		{"needs a round to select", "edge-horizon-equals-arms", func(p *sdk.Plugin) {
			p.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
				if s.Horizon <= s.InitRounds() {
					return nil, errTooShort
				}
				return newEps(s, r), nil
			}
		}},
		{"cannot do two arms", "edge-two-arms", func(p *sdk.Plugin) {
			p.New = func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
				if s.Arms == 2 {
					return nil, errTooShort
				}
				return newEps(s, r), nil
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good()
			p.Params = append([]sdk.Param(nil), p.Params...)
			tc.break_(&p)
			err := sdktest.TestPlugin(p, sdktest.WithSize(3, 40, 3))
			if err == nil {
				t.Fatalf("TestPlugin found no violation, want one of rule %s", tc.rule)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.rule+"/") && !strings.Contains(msg, tc.rule+": ") || !strings.Contains(msg, "rule: ") {
				t.Errorf("violation report does not name rule %s with its explanation:\n%s", tc.rule, msg)
			}
			// These break one rule only: no other may fail.
			if only := map[string]bool{"seed-used": true, "batch-split": tc.name != "randomness from the batch position", "delayed-feedback": true}; only[tc.rule] {
				for _, r := range sdktest.Rules() {
					if r.Name != tc.rule && strings.Contains(msg, "\n"+r.Name+"/") || strings.Contains(msg, "\n"+r.Name+": ") && r.Name != tc.rule {
						t.Errorf("rule %s fails too, want only %s:\n%s", r.Name, tc.rule, msg)
					}
				}
			}
		})
	}
}

type stepFunc func(st *sdk.BatchStep)

func (f stepFunc) Step(st *sdk.BatchStep) error { f(st); return nil }

// sharedCount explores every third Select of the whole process.
type sharedCount struct {
	*epsGreedy
	n *atomic.Int64
}

func (c *sharedCount) Select(t int) int {
	if c.n.Add(1)%3 == 0 {
		return c.rng.IntN(c.s.Arms)
	}
	return c.epsGreedy.Select(t)
}

type noisyDiag struct{ *epsGreedy }

func (n *noisyDiag) Diagnose(out []float64) { out[0] = n.rng.Float64() }

var errTooShort = errorString("this policy needs at least one round of its own")

type errorString string

func (e errorString) Error() string { return string(e) }
