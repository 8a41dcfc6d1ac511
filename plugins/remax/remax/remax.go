// Package remax implements the exact ReMax bandit policy with M = 2 virtual
// trials (Algorithm 1 of the paper, "Experimental protocol notes"), with the
// variance inflation of "Discussion: variance inflation".
//
// # Posterior
//
// After N_i pulls of arm i with empirical mean muhat_i, its posterior is
//
//	N(muhat_i, s_i^2),  s_i^2 = c2 sd^2 / N_i,
//
// the improper-prior conjugate Gaussian posterior of Algorithm 1 (whose
// update mu <- (tau_old mu + sd^-2 r)/tau_new is the running mean), with its
// variance multiplied by c2 = variance_inflation (the paper's c^2; c2 = 1 is
// plain ReMax, the paper's experiments use c2 in {2, 3, 4}). sd is the
// session's known noise standard deviation. For Bernoulli rewards sd = 0.5,
// the largest standard deviation a Bernoulli reward can have, so the
// posterior is never narrower than a Gaussian one with the worst-case noise.
// A Gaussian session without known noise is rejected.
//
// # Policy
//
// Each round the policy forms the pairwise expected-max matrix of
// Equation (pairwise-G),
//
//	G_ij = E[max(theta_i, theta_j)],  G_ii = muhat_i,
//
// and samples the arm from pi = argmax over the simplex of pi^T G pi
// (Equation (remax-policy) with M = 2). The maximiser is unique and is
// characterised by the expected-improvement balance of Proposition 1:
// (G pi)_i is equal on the support and no larger off it. See Solver.
//
// Only the pulled arm's posterior changes in a round, so only its row and
// column of G are recomputed (UpdateG), and the solver is warm-started from
// the previous round's support: a round costs O(K) transcendental
// evaluations plus one Cholesky solve of the size of the support. Nothing
// is allocated after New.
//
// # Diagnostics
//
// support_size is the number of arms with positive probability at the last
// Select; fallbacks counts, over the replication so far, the rounds in which
// Algorithm 1 failed to converge to a certified KKT point and the fallback
// solver was used.
package remax

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/sdk"
)

// Params declares the policy's parameters.
var Params = []sdk.Param{{
	Name:    "variance_inflation",
	Type:    sdk.Float,
	Default: 1.0,
	Min:     sdk.Exclusive(0),
	Doc:     "factor c2 > 0 on the posterior variance, s_i^2 = c2 sd^2/N_i (1 = plain ReMax; the paper uses 2-4)",
}}

// Diagnostics names the diagnostics the policy reports, in Diagnose order.
var Diagnostics = []string{"support_size", "fallbacks"}

// New returns the ReMax policy of one replication. It implements
// sdk.Policy and sdk.Diagnoser and draws its arms with r.Rand.
func New(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("remax: %d arms, need at least 1", s.Arms)
	}
	if r.Rand == nil {
		return nil, errors.New("remax: replica has no random source")
	}
	sd, err := s.RewardSD()
	if err != nil {
		return nil, fmt.Errorf("remax: %w", err)
	}
	c2 := 1.0
	if _, ok := s.Params["variance_inflation"]; ok {
		c2 = s.Params.Float("variance_inflation")
	}
	if !(c2 > 0) || math.IsInf(c2, 0) {
		return nil, fmt.Errorf("remax: parameter \"variance_inflation\" = %v, want a positive finite value", c2)
	}
	k := s.Arms
	return &policy{
		k:      k,
		scale:  c2 * sd * sd,
		n:      make([]int, k),
		mu:     make([]float64, k),
		s2:     make([]float64, k),
		g:      make([]float64, k*k),
		pi:     make([]float64, k),
		solver: NewSolver(k),
		rng:    r.Rand,
	}, nil
}

// policy is the ReMax policy of one replication (see the package
// documentation).
type policy struct {
	k         int
	scale     float64   // c2 sd^2: s_i^2 = scale / N_i
	n         []int     // pulls per arm
	mu        []float64 // empirical means
	s2        []float64 // posterior variances
	g         []float64 // pairwise matrix G, row-major K×K, valid when ready
	pi        []float64 // the ReMax distribution of the last Select
	ready     bool      // every arm pulled once and g built
	solver    *Solver
	rng       *rand.Rand
	fallbacks int // rounds in which the solver fell back
}

// Select returns the arm for round t, drawn from the ReMax distribution pi
// of the current posterior.
func (p *policy) Select(t int) int {
	if !p.ready {
		// The host forces one pull per arm first; should it not, an
		// unpulled arm (improper prior, infinite variance) goes first.
		for i, n := range p.n {
			if n == 0 {
				return i
			}
		}
		FillG(p.g, p.mu, p.s2)
		p.ready = true
	}
	if _, fb := p.solver.Solve(p.g, p.pi); fb {
		p.fallbacks++
	}
	// Inverse-CDF draw over the arms in increasing order; only the active
	// set can carry mass, so only it is scanned (all arms for K <= 2).
	u := p.rng.Float64()
	last := 0
	if set := p.solver.Support(); set != nil {
		for _, i := range set {
			if w := p.pi[i]; w > 0 {
				u -= w
				last = i
				if u < 0 {
					return i
				}
			}
		}
	} else {
		for i, w := range p.pi {
			if w > 0 {
				u -= w
				last = i
				if u < 0 {
					return i
				}
			}
		}
	}
	return last // u within rounding of 1
}

// Observe records the reward of the arm pulled in round t and updates that
// arm's posterior (Algorithm 1, conjugate update) and its row and column of
// G.
func (p *policy) Observe(t, arm int, reward float64) {
	p.n[arm]++
	n := float64(p.n[arm])
	p.mu[arm] += (reward - p.mu[arm]) / n
	p.s2[arm] = p.scale / n
	if p.ready {
		UpdateG(p.g, p.mu, p.s2, arm)
	}
}

// Diagnose reports support_size and fallbacks (see Diagnostics).
func (p *policy) Diagnose(out []float64) {
	support := 0
	if p.ready {
		for _, w := range p.pi {
			if w > 0 {
				support++
			}
		}
	}
	if len(out) > 0 {
		out[0] = float64(support)
	}
	if len(out) > 1 {
		out[1] = float64(p.fallbacks)
	}
}

var (
	_ sdk.Policy    = (*policy)(nil)
	_ sdk.Diagnoser = (*policy)(nil)
)
