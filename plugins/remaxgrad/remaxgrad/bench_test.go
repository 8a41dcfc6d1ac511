package remaxgrad

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/simtest"

	"github.com/regretbench/regretbench/sdk"
)

// instance is a gaussian bandit of the paper's experiments.
type instance struct {
	name  string
	means []float64
	sd    float64
	warm  int // rounds played before measuring, about a quarter of the horizon
}

// paperInstances are the shipped two_arm, ten_arm and obd scenarios.
func paperInstances(tb testing.TB) []instance {
	var out []instance
	for _, c := range []struct {
		scenario string
		warm     int
	}{{"two_arm", 5000}, {"ten_arm", 5000}, {"obd", 750}} {
		means, sd := simtest.Shipped(tb, c.scenario)
		out = append(out, instance{fmt.Sprintf("K=%d", len(means)), means, sd, c.warm})
	}
	return out
}

// bandit drives a policy the way the host does: forced initial pulls, then
// Select and Observe with gaussian rewards from its own source.
type bandit struct {
	inst instance
	pol  *Policy
	env  *rand.Rand
	t    int
}

func newBandit(tb testing.TB, inst instance, m int, seed uint64) *bandit {
	tb.Helper()
	s := sdk.Session{
		Arms: len(inst.means), Horizon: 20000, Family: sdk.Gaussian,
		NoiseSD: inst.sd, NoiseKnown: true, InitPulls: 1, Seed: seed,
		Params: sdk.Params{"m": int64(m), "samples": int64(50), "steps": int64(20),
			"lr": 0.05, "tol": 1e-6, "variance_inflation": 1.0},
	}
	p, err := NewPolicy(s, sdk.Replica{Index: 0, Rand: rand.New(rand.NewPCG(seed, 1))})
	if err != nil {
		tb.Fatal(err)
	}
	b := &bandit{inst: inst, pol: p, env: rand.New(rand.NewPCG(seed, 2))}
	for i := range inst.means {
		b.t++
		b.pol.Observe(b.t, i, b.reward(i))
	}
	return b
}

func (b *bandit) reward(arm int) float64 {
	return b.inst.means[arm] + b.inst.sd*b.env.NormFloat64()
}

// round plays one Select + Observe and returns the arm.
func (b *bandit) round() int {
	b.t++
	arm := b.pol.Select(b.t)
	b.pol.Observe(b.t, arm, b.reward(arm))
	return arm
}

// BenchmarkRound measures one Select + Observe in a warmed-up state: the
// paper's two-arm, ten-arm and OBD (K=80) instances after about a quarter of
// their horizons. steps/op is the mean number of Adam steps per round.
func BenchmarkRound(b *testing.B) {
	type cfg struct {
		inst instance
		m    int
	}
	var cases []cfg
	for _, in := range paperInstances(b) {
		cases = append(cases, cfg{in, 2})
	}
	cases = append(cases, cfg{paperInstances(b)[1], 4})
	for _, c := range cases {
		name := c.inst.name
		if c.m != 2 {
			name += fmt.Sprintf(",M=%d", c.m)
		}
		b.Run(name, func(b *testing.B) {
			bd := newBandit(b, c.inst, c.m, 7)
			for range c.inst.warm {
				bd.round()
			}
			steps := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				bd.round()
				steps += bd.pol.steps
			}
			b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
		})
	}
}
