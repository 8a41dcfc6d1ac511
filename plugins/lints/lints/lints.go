// Package lints implements linear Thompson sampling (Agrawal & Goyal,
// "Thompson sampling for contextual bandits with linear payoffs", ICML
// 2013, Algorithm 1) for the regretbench SDK.
//
// The reward model is a ridge regression (plugins/internal/ridge): B =
// lambda·I + sum x xᵀ, f = sum r·x, mu = B⁻¹f. Each round draws mu~ from
// N(mu, v²·B⁻¹) and pulls the arm whose features score highest under it,
// ties to the lowest index. The draw is mu + v·U⁻¹z, z standard normal and
// U the Cholesky factor of B (B = UᵀU), updated rank-one each round: the
// same distribution as the Cholesky factor of the covariance would give,
// at O(d²) a draw instead of O(d³) a factorization.
//
// Context shapes: per-arm features (ContextShape.PerArm) are the paper's
// setting, one parameter shared by the arms and one draw a round, arm a
// scoring mu~·x_a. Shared contexts (Dim features for all arms) get one
// model per arm, the disjoint form, and one draw per arm a round, arm a
// scoring mu~_a·x.
//
// The parameter v scales the posterior. The paper's analysis takes v =
// R·sqrt(24 d ln(1/delta)/epsilon) for R-sub-Gaussian noise, far wider
// than works in practice; the default v = 0 means the session's reward sd
// (sdk.Session.RewardSD: the declared noise sd of a gaussian scenario, 0.5
// for Bernoulli rewards), the Bayesian posterior of a Gaussian model with
// known noise and prior N(0, sd²/lambda·I). lambda (default 1, the paper's
// B = I) is the ridge penalty. With intercept (default true) each model
// also has a bias weight on a constant feature 1 appended to the context
// (plugins/internal/ridge.Bank).
//
// Regret: with the paper's v and any epsilon in (0, 1), O(d²/epsilon ·
// sqrt(T^(1+epsilon)) · ln(T d) ln(1/delta)) with probability 1 − delta
// for per-arm features (Theorem 1); Abeille & Lazaric ("Linear Thompson
// sampling revisited", AISTATS 2017) refine it to O~(d^(3/2) sqrt T). The
// disjoint form is exactly the shared model over K·d block features (the
// blocks never share a round, so its posterior is block-diagonal and its
// draws independent per arm), so the bounds hold with d replaced by K·d.
//
// The probability of the chosen arm under the posterior has no closed
// form, so the policy reports 0 ("not said"). Randomness comes from
// Replica.Rand only (a normal.Source seeded from it). Select and Observe do
// not allocate. A replication holds two d×d matrices per model (B⁻¹ and
// U), twice LinUCB's memory.
package lints

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/plugins/internal/normal"
	"github.com/regretbench/regretbench/plugins/internal/ridge"
	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the lints policy.
var Params = []sdk.Param{
	{Name: "v", Type: sdk.Float, Default: 0.0, Min: sdk.Inclusive(0),
		Doc: "posterior scale: mu~ ~ N(mu, v^2 B^-1); 0 = the session's reward sd (the gaussian noise sd, 0.5 for bernoulli)"},
	{Name: "lambda", Type: sdk.Float, Default: 1.0, Min: sdk.Exclusive(0),
		Doc: "ridge penalty (prior precision): B starts at lambda*I"},
	ridge.InterceptParam,
}

// Policy is linear Thompson sampling for one replication.
type Policy struct {
	bank   *ridge.Bank
	v      float64
	src    *normal.Source
	z, smp []float64
}

// New builds the linear Thompson sampling policy of one replication.
func New(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) {
	v, lambda := s.Params.Float("v"), s.Params.Float("lambda")
	if !(v >= 0) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("lints: v must be finite and >= 0, got %v", v)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("lints: lambda must be finite and > 0, got %v", lambda)
	}
	if r.Rand == nil {
		return nil, fmt.Errorf("lints: replica %d has no random source", r.Index)
	}
	if v == 0 {
		sd, err := s.RewardSD()
		if err != nil {
			return nil, fmt.Errorf("lints: v = 0 takes the reward sd, but %w; set v", err)
		}
		v = sd
	}
	bank, err := ridge.NewBank("lints", s, lambda, ridge.WithCholesky())
	if err != nil {
		return nil, err
	}
	d := bank.ModelDim()
	return &Policy{bank: bank, v: v, src: normal.New(r.Rand.Uint64()), z: make([]float64, d), smp: make([]float64, d)}, nil
}

// Select draws the parameters and returns the arm that scores highest
// under them, with probability 0 (not said).
func (p *Policy) Select(t int, x []float64) (int, float64) {
	b := p.bank
	if b.PerArm {
		p.draw(0)
	}
	best, bestV := 0, math.Inf(-1)
	for a := range b.K {
		if !b.PerArm {
			p.draw(a)
		}
		xa := b.X(x, a)
		var s float64
		for i, w := range p.smp {
			s += w * xa[i]
		}
		if s > bestV || a == 0 {
			best, bestV = a, s
		}
	}
	return best, 0
}

// draw fills smp with a draw of arm a's model's parameters.
func (p *Policy) draw(a int) {
	p.src.Fill(p.z)
	p.bank.Model(a).Sample(p.z, p.v, p.smp)
}

// Observe adds the reward to the pulled arm's model.
func (p *Policy) Observe(t int, x []float64, arm int, reward float64) {
	p.bank.Observe(x, arm, reward)
}
