// Package env is the bandit environment the host owns: true arm means and
// the reward streams, drawn with common random numbers (DESIGN §4).
package env

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/sdk"
)

// Env is a stochastic K-armed bandit with fixed means.
type Env struct {
	Family  sdk.Family
	Means   []float64
	NoiseSD float64 // gaussian only

	best int
	mu2  float64
	gaps []float64
}

// New returns the environment with the given means.
func New(family sdk.Family, means []float64, noiseSD float64) (*Env, error) {
	if len(means) < 2 {
		return nil, fmt.Errorf("env: need at least two arms, got %d", len(means))
	}
	if family != sdk.Gaussian && family != sdk.Bernoulli {
		return nil, fmt.Errorf("env: unknown family %q", family)
	}
	e := &Env{Family: family, Means: append([]float64(nil), means...), NoiseSD: noiseSD}
	for i, m := range means {
		if m > means[e.best] {
			e.best = i
		}
	}
	mb := means[e.best]
	e.mu2 = math.Inf(-1)
	e.gaps = make([]float64, len(means))
	for i, m := range means {
		e.gaps[i] = mb - m
		if m < mb && m > e.mu2 {
			e.mu2 = m
		}
	}
	return e, nil
}

// Best is the best arm: the first index among the maxima.
func (e *Env) Best() int { return e.best }

// Second is mu2, the largest mean strictly below the best one (-Inf when
// every arm ties, in which case no round counts as underestimated).
func (e *Env) Second() float64 { return e.mu2 }

// Gaps returns mu_b - mu_i per arm.
func (e *Env) Gaps() []float64 { return e.gaps }

// Stream holds the reward streams of one replication: one independent
// random stream per arm, keyed by (seed, replication, arm). The n-th pull of
// arm i therefore gets the same reward whatever policy pulls it and however
// replications are batched or sharded.
type Stream struct {
	e    *Env
	arms []*rand.Rand
}

// Stream returns the reward streams of replication rep under seed.
func (e *Env) Stream(seed, rep uint64) *Stream {
	s := &Stream{e: e, arms: make([]*rand.Rand, len(e.Means))}
	key := sdk.Mix(sdk.Mix(seed^sdk.SaltReward) ^ rep)
	for i := range s.arms {
		s.arms[i] = rand.New(rand.NewPCG(key, sdk.Mix(uint64(i))))
	}
	return s
}

// Pull returns the next reward of arm i.
func (s *Stream) Pull(i int) float64 {
	r := s.arms[i]
	if s.e.Family == sdk.Bernoulli {
		if r.Float64() < s.e.Means[i] {
			return 1
		}
		return 0
	}
	return s.e.Means[i] + s.e.NoiseSD*r.NormFloat64()
}
