package remaxgrad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// obdCTR lists the Open Bandit Dataset click-through rates of the paper's
// Table tab:obd-arm-means, in arm order.
var obdCTR = []float64{
	0.0029265, 0.0014464, 0.0021134, 0.0026464, 0.0018947, 0.0032350, 0.0024874, 0.0052780,
	0.0037272, 0.0025919, 0.0015018, 0.0033327, 0.0018368, 0.0020283, 0.0029336, 0.0030222,
	0.0032011, 0.0036364, 0.0036137, 0.0018426, 0.0017718, 0.0023036, 0.0028038, 0.0025506,
	0.0024710, 0.0019308, 0.0021782, 0.0016784, 0.0037885, 0.0015287, 0.0045120, 0.0041963,
	0.0036784, 0.0032292, 0.0055569, 0.0055678, 0.0028800, 0.0035584, 0.0044478, 0.0053337,
	0.0026211, 0.0055760, 0.0035852, 0.0048702, 0.0024826, 0.0051337, 0.0039318, 0.0055106,
	0.0044275, 0.0057023, 0.0034024, 0.0056714, 0.0049135, 0.0028941, 0.0026866, 0.0038009,
	0.0026913, 0.0037623, 0.0049876, 0.0055036, 0.0048012, 0.0059725, 0.0044809, 0.0056396,
	0.0033993, 0.0041044, 0.0038471, 0.0019121, 0.0018957, 0.0035998, 0.0022913, 0.0030215,
	0.0027332, 0.0025879, 0.0020447, 0.0026221, 0.0036932, 0.0024460, 0.0052332, 0.0056697,
}

// instance is a gaussian bandit of the paper's experiments.
type instance struct {
	name  string
	means []float64
	sd    float64
	warm  int // rounds played before measuring, about a quarter of the horizon
}

func paperInstances() []instance {
	obd := make([]float64, len(obdCTR))
	for i, c := range obdCTR {
		obd[i] = c * math.Sqrt(1e3) / 0.057774753125 // Appendix "Real-data arm means"
	}
	return []instance{
		{"K=2", []float64{0.9, 0.8}, 0.15, 5000},
		{"K=10", []float64{0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01}, 0.05, 5000},
		{"K=80", obd, 1, 750},
	}
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
	for _, in := range paperInstances() {
		cases = append(cases, cfg{in, 2})
	}
	cases = append(cases, cfg{paperInstances()[1], 4})
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
