package remaxgrad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/normal"
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

func newBandit(tb testing.TB, inst instance, m int, seed uint64, variant string) *bandit {
	tb.Helper()
	s := sdk.Session{
		Arms: len(inst.means), Horizon: 20000, Family: sdk.Gaussian,
		NoiseSD: inst.sd, NoiseKnown: true, InitPulls: 1, Seed: seed,
		Params: sdk.Params{"m": int64(m), "samples": int64(50), "steps": int64(20),
			"lr": 0.05, "tol": 1e-6, "variance_inflation": 1.0, "variant": variant, "tv_tol": DefaultTVTol,
			"logit_floor": DefaultLogitFloor},
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
// their horizons, for the paper variant and (",robust") the robust one.
// steps/op is the mean number of Adam steps per round.
func BenchmarkRound(b *testing.B) {
	type cfg struct {
		inst    instance
		m       int
		variant string
	}
	var cases []cfg
	for _, v := range []string{VariantPaper, VariantRobust} {
		for _, in := range paperInstances(b) {
			cases = append(cases, cfg{in, 2, v})
		}
		cases = append(cases, cfg{paperInstances(b)[1], 4, v})
	}
	for _, c := range cases {
		name := c.inst.name
		if c.m != 2 {
			name += fmt.Sprintf(",M=%d", c.m)
		}
		if c.variant != VariantPaper {
			name += "," + c.variant
		}
		b.Run(name, func(b *testing.B) {
			bd := newBandit(b, c.inst, c.m, 7, c.variant)
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

// BenchmarkHorizon plays whole replications of the paper's ReMaxGrad
// sweeps (two_arm, three_arm, ten_arm; T = 20000) for M = 2, 3, 4, so that
// rounds are weighted as in a full run: ns/round times 2e7 is the CPU time
// of one policy of `bench paper`. The ",robust" cases, and failure_mode
// with M = 2, are those of the remaxgrad_robust_* scenarios.
func BenchmarkHorizon(b *testing.B) {
	for _, v := range []string{VariantPaper, VariantRobust} {
		for _, sc := range []string{"two_arm", "three_arm", "ten_arm", "failure_mode"} {
			horizonCases(b, sc, v)
		}
	}
}

// horizonCases runs BenchmarkHorizon's cases of one scenario and variant.
func horizonCases(b *testing.B, sc, variant string) {
	means, sd := simtest.Shipped(b, sc)
	in := instance{sc, means, sd, 0}
	ms := []int{2, 3, 4}
	if sc == "failure_mode" {
		ms = ms[:1]
	}
	suffix := ""
	if variant != VariantPaper {
		suffix = "," + variant
	}
	for _, m := range ms {
		b.Run(fmt.Sprintf("%s,M=%d%s", sc, m, suffix), func(b *testing.B) {
			const horizon = 20000
			steps := 0
			for i := range b.N {
				bd := newBandit(b, in, m, uint64(i), variant)
				for range horizon {
					bd.round()
					steps += bd.pol.steps
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*horizon), "ns/round")
			b.ReportMetric(float64(steps)/float64(b.N*horizon), "steps/round")
		})
	}
}

// tenArmState loads an optimizer with the ten-arm instance's posterior at
// about round 5000 (pull counts typical of ReMax there) and logits that
// spread pi over several arms.
func tenArmState(m int) (o *Optimizer, src *normal.Source, mean, sd []float64) {
	cfg := DefaultConfig()
	cfg.M = m
	mean = []float64{0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01}
	pulls := []float64{4000, 200, 200, 200, 100, 100, 50, 50, 50, 50}
	sd = make([]float64, len(mean))
	for i, n := range pulls {
		sd[i] = 0.05 / math.Sqrt(n)
	}
	o, src = NewOptimizer(len(mean), cfg), normal.New(1)
	o.DrawSamples(src, mean, sd)
	z := o.Logits()
	for i := range z {
		z[i] = -0.3 * float64(i%4)
	}
	o.Policy()
	return o, src, mean, sd
}

// BenchmarkDrawSamples measures the sampling part of a ten-arm round: S*K
// normals, then the pairwise sums (M = 2) or the sorted orderings (M > 2).
func BenchmarkDrawSamples(b *testing.B) {
	for _, m := range []int{2, 3} {
		b.Run(fmt.Sprintf("K=10,M=%d", m), func(b *testing.B) {
			o, src, mean, sd := tenArmState(m)
			for range b.N {
				o.DrawSamples(src, mean, sd)
			}
		})
	}
}

// BenchmarkGradient measures one gradient evaluation (one Adam step's
// main cost) on a ten-arm round's samples.
func BenchmarkGradient(b *testing.B) {
	for _, m := range []int{2, 3, 4} {
		b.Run(fmt.Sprintf("K=10,M=%d", m), func(b *testing.B) {
			o, _, _, _ := tenArmState(m)
			pi, g := o.CurrentPolicy(), make([]float64, 10)
			for range b.N {
				o.Gradient(g, pi)
			}
		})
	}
}
