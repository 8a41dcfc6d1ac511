// Package simtest is the in-process simulated-bandit harness that the
// policy packages' tests and benchmarks share: a replication played the
// host's way, a regret check against uniform play, an allocation check of
// one round and a per-round benchmark.
//
// It imports testing and is meant to be imported only from _test.go files.
package simtest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// NewPolicy builds the policy of session s for the replication with the
// given seed, failing tb if it cannot. Deterministic policies may ignore
// seed.
type NewPolicy func(tb testing.TB, s sdk.Session, seed uint64) sdk.Policy

// envStream is the second PCG word of the reward stream of Simulate.
const envStream = 0x656e76

// reward draws from env the reward of an arm with mean mu: 1 if a uniform
// draw is below mu, else 0, for the bernoulli family; mu + s.NoiseSD times
// a standard normal draw otherwise.
func reward(s sdk.Session, mu float64, env *rand.Rand) float64 {
	if s.Family == sdk.Bernoulli {
		if env.Float64() < mu {
			return 1
		}
		return 0
	}
	return mu + s.NoiseSD*env.NormFloat64()
}

// Simulate runs one replication of s in process, the host's way: forced
// rounds 1..s.InitRounds() pull arm (t-1) mod K, later rounds Select, and
// every round Observes a reward drawn from the arm's mean (Bernoulli for
// the bernoulli family, else Gaussian with sd s.NoiseSD) by a PCG stream
// seeded from seed. It returns the pseudo-regret and the arms pulled.
func Simulate(tb testing.TB, newPolicy NewPolicy, s sdk.Session, means []float64, seed uint64) (float64, []int) {
	tb.Helper()
	return SimulateChanging(tb, newPolicy, s, func(int) []float64 { return means }, seed)
}

// UniformRegret is the expected pseudo-regret of pulling arms uniformly at
// random for horizon rounds: horizon * (max mean - average mean).
func UniformRegret(horizon int, means []float64) float64 {
	best, sum := 0.0, 0.0
	for _, m := range means {
		best = max(best, m)
		sum += m
	}
	return float64(horizon) * (best - sum/float64(len(means)))
}

// MeanRegret simulates s with seeds 0..seeds-1 and returns the mean
// pseudo-regret.
func MeanRegret(tb testing.TB, newPolicy NewPolicy, s sdk.Session, means []float64, seeds int) float64 {
	tb.Helper()
	return MeanDynamicRegret(tb, newPolicy, s, func(int) []float64 { return means }, seeds)
}

// SimulateChanging is Simulate with means that change over time:
// meansAt(round) gives the arms' means in that round. It returns the
// dynamic pseudo-regret, sum over rounds of the round's best mean minus the
// pulled arm's mean, and the arms pulled.
func SimulateChanging(tb testing.TB, newPolicy NewPolicy, s sdk.Session, meansAt func(round int) []float64, seed uint64) (float64, []int) {
	tb.Helper()
	p := newPolicy(tb, s, seed)
	env := rand.New(rand.NewPCG(seed, envStream))
	arms := make([]int, 0, s.Horizon)
	regret := 0.0
	for round := 1; round <= s.Horizon; round++ {
		means := meansAt(round)
		var a int
		if round <= s.InitRounds() {
			a = (round - 1) % s.Arms
		} else {
			a = p.Select(round)
		}
		p.Observe(round, a, reward(s, means[a], env))
		best := means[0]
		for _, m := range means {
			best = max(best, m)
		}
		regret += best - means[a]
		arms = append(arms, a)
	}
	return regret, arms
}

// CheckBeatsUniform simulates s with seeds 0..seeds-1 and fails t unless
// the mean pseudo-regret is below UniformRegret / factor.
func CheckBeatsUniform(t *testing.T, newPolicy NewPolicy, s sdk.Session, means []float64, seeds int, factor float64) {
	t.Helper()
	mean := MeanRegret(t, newPolicy, s, means, seeds)
	uniform := UniformRegret(s.Horizon, means)
	t.Logf("mean regret %.2f, uniform %.1f, ratio %.1f", mean, uniform, uniform/mean)
	if mean > uniform/factor {
		t.Fatalf("mean regret %.2f not below uniform %.1f / %v", mean, uniform, factor)
	}
}

// CheckAllocationFree builds the policy of s (seed 1), observes a reward of
// 0.5 on every arm, and fails t if a Select+Observe round then allocates.
func CheckAllocationFree(t *testing.T, newPolicy NewPolicy, s sdk.Session) {
	t.Helper()
	p := newPolicy(t, s, 1)
	round := 0
	for a := range s.Arms {
		round++
		p.Observe(round, a, 0.5)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		round++
		a := p.Select(round)
		p.Observe(round, a, float64(round&1))
	})
	if allocs != 0 {
		t.Fatalf("Select+Observe allocates %v times per round", allocs)
	}
}

// BenchArms are the arm counts BenchRounds runs.
var BenchArms = []int{2, 10, 80}

// BenchRounds runs BenchRound as one sub-benchmark "K=k" per k in
// BenchArms, on the session session(k).
func BenchRounds(b *testing.B, newPolicy NewPolicy, session func(k int) sdk.Session) {
	for _, k := range BenchArms {
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) { BenchRound(b, newPolicy, session(k)) })
	}
}

// BenchRound measures one Select+Observe round of the policy of s (seed
// 1) on arms with means 0.9, 0.85, ...: after one pull per arm, each
// iteration Selects, draws the reward from a precomputed ring of noise and
// Observes it.
func BenchRound(b *testing.B, newPolicy NewPolicy, s sdk.Session) {
	means := make([]float64, s.Arms)
	for i := range means {
		means[i] = 0.9 - 0.05*float64(i)
	}
	p := newPolicy(b, s, 1)
	env := rand.New(rand.NewPCG(2, 3))
	const ring = 4096
	noise := make([]float64, ring)
	for i := range noise {
		if s.Family == sdk.Bernoulli {
			noise[i] = env.Float64()
		} else {
			noise[i] = s.NoiseSD * env.NormFloat64()
		}
	}
	round := 0
	for a := range s.Arms {
		round++
		p.Observe(round, a, means[a])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		round++
		a := p.Select(round)
		var r float64
		if s.Family == sdk.Bernoulli {
			if noise[i&(ring-1)] < means[a] {
				r = 1
			}
		} else {
			r = means[a] + noise[i&(ring-1)]
		}
		p.Observe(round, a, r)
	}
}
