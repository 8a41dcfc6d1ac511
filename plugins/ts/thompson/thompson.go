// Package thompson implements Thompson Sampling for the regretbench SDK.
//
// Gaussian rewards (the paper's baseline, appendix "Experimental protocol
// notes", paragraph "Thompson Sampling"): under the improper flat prior and
// known noise sd, the posterior of arm i's mean after N_i pulls with
// empirical mean muhat_i is N(muhat_i, sd^2/N_i). Every round draws one
// independent posterior sample per arm and pulls the argmax; ties go to the
// lowest index. The noise sd is Session.NoiseSD, so the gaussian family
// requires Session.NoiseKnown.
//
// Bernoulli rewards: Beta(1+S_i, 1+F_i) posterior sampling (uniform prior),
// S_i and F_i the successes and failures of arm i. The Beta draws use a
// hand-written, allocation-free gamma-ratio sampler (Marsaglia–Tsang); see
// betaRand for why gonum's distuv.Beta is not used.
//
// The float parameter inflation (default 1) multiplies the Gaussian
// posterior variance, N(muhat_i, sd^2*inflation/N_i). It exists to inject a
// deliberate, tunable regression (e.g. in gating tests of the harness);
// inflation = 1 is the paper's TS. The Bernoulli family ignores it: its
// Beta posterior has no free variance to scale.
//
// All randomness comes from Replica.Rand, so a replication is a
// deterministic function of (Session.Seed, Replica.Index) and the observed
// rewards. The Gaussian posterior draws come from a normal.Source seeded
// from it: K normals per round through rand.Rand cost about 10 ns each,
// a normal.Source fills them at about 4 (plugins/internal/normal). Select
// and Observe do not allocate: the per-arm state is preallocated by New.
// An arm that has never been pulled (possible only if the host forces no
// initial pulls) has no posterior under the improper prior; Select then
// returns the lowest-indexed unpulled arm.
package thompson

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/plugins/internal/armstat"
	"github.com/regretbench/regretbench/plugins/internal/normal"
	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the thompson policy.
var Params = []sdk.Param{
	{
		Name:    "inflation",
		Type:    sdk.Float,
		Default: 1.0,
		Min:     sdk.Exclusive(0),
		Doc: "multiplier of the Gaussian posterior variance, sd^2*inflation/N_i " +
			"(1 = the paper's TS). A knob for injecting a deliberate regression, " +
			"e.g. in gating tests; must be > 0. Ignored by the bernoulli family.",
	},
}

// New builds the Thompson Sampling policy of one replication.
func New(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("thompson: need at least one arm, got %d", s.Arms)
	}
	if r.Rand == nil {
		return nil, fmt.Errorf("thompson: replica %d has no random source", r.Index)
	}
	infl := 1.0
	if _, ok := s.Params["inflation"]; ok {
		infl = s.Params.Float("inflation")
	}
	if !(infl > 0) || math.IsInf(infl, 0) {
		return nil, fmt.Errorf("thompson: inflation must be finite and > 0, got %v", infl)
	}
	sd, err := s.RewardSD()
	if err != nil {
		return nil, fmt.Errorf("thompson: %w", err)
	}
	if s.Family == sdk.Bernoulli {
		return newBernoulli(s.Arms, r.Rand), nil
	}
	return newGaussian(s.Arms, sd, infl, r.Rand), nil
}

// gaussian is Gaussian TS with posterior N(sum_i/N_i, varScale/N_i),
// varScale = sd^2*inflation.
type gaussian struct {
	src      *normal.Source
	z        []float64 // a round's standard normals
	varScale float64
	arms     armstat.Stats
	scale    []float64 // posterior sd sqrt(varScale/N_i), refreshed by Observe
}

func newGaussian(k int, sd, infl float64, rng *rand.Rand) *gaussian {
	p := &gaussian{src: normal.New(rng.Uint64()), z: make([]float64, k), varScale: sd * sd * infl}
	p.arms = armstat.New(k, &p.scale)
	return p
}

// Select draws theta_i ~ N(mean_i, scale_i^2) for every arm and returns the
// argmax, lowest index on ties.
func (p *gaussian) Select(t int) int {
	if i, ok := p.arms.FirstUnpulled(); ok {
		return i
	}
	mean := p.arms.Mean
	scale, z := p.scale[:len(mean)], p.z[:len(mean)]
	p.src.Fill(z)
	best := 0
	bestV := mean[0] + scale[0]*z[0]
	for i := 1; i < len(mean); i++ {
		if v := mean[i] + scale[i]*z[i]; v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// Observe adds the reward to the pulled arm's running sum and count.
func (p *gaussian) Observe(t, arm int, reward float64) {
	p.arms.Observe(arm, reward)
	p.scale[arm] = math.Sqrt(p.varScale / p.arms.N[arm])
}

// bernoulli is Beta-Bernoulli TS. For each arm it caches the Marsaglia–Tsang
// constants of its two gamma shapes 1+S and 1+F.
type bernoulli struct {
	rng  *rand.Rand
	succ []float64 // S_i: sum of rewards
	n    []float64 // N_i
	ga   []gammaShape
	gb   []gammaShape
}

func newBernoulli(k int, rng *rand.Rand) *bernoulli {
	buf := make([]float64, 2*k)
	p := &bernoulli{
		rng:  rng,
		succ: buf[0:k:k],
		n:    buf[k : 2*k : 2*k],
		ga:   make([]gammaShape, k),
		gb:   make([]gammaShape, k),
	}
	for i := range k {
		p.ga[i] = newGammaShape(1)
		p.gb[i] = newGammaShape(1)
	}
	return p
}

// Select draws theta_i ~ Beta(1+S_i, 1+F_i) for every arm and returns the
// argmax, lowest index on ties. With the uniform prior every arm has a
// proper posterior, so unpulled arms need no special case.
func (p *bernoulli) Select(t int) int {
	ga := p.ga
	gb := p.gb[:len(ga)]
	best, bestV := 0, -1.0
	for i := range ga {
		x := ga[i].rand(p.rng)
		y := gb[i].rand(p.rng)
		if v := x / (x + y); v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// Observe records a success (reward) and a failure (1-reward) for the arm;
// rewards outside [0, 1] are clamped.
func (p *bernoulli) Observe(t, arm int, reward float64) {
	reward = min(max(reward, 0), 1)
	p.succ[arm] += reward
	p.n[arm]++
	p.ga[arm] = newGammaShape(1 + p.succ[arm])
	p.gb[arm] = newGammaShape(1 + p.n[arm] - p.succ[arm])
}
