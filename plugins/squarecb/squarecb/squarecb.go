// Package squarecb implements SquareCB (Foster & Rakhlin, "Beyond UCB:
// optimal and efficient contextual bandits with regression oracles", ICML
// 2020, Algorithm 1) on an online ridge regression oracle
// (plugins/internal/ridge), for the regretbench SDK.
//
// Each round the oracle predicts every arm's reward yhat_a: theta_a·x with
// shared contexts (one ridge regression per arm) or theta·x_a with per-arm
// features (one regression for all arms). With b the arm of the largest
// prediction (the lowest index on ties), SquareCB's inverse-gap weighting
// gives
//
//	p_a = 1 / (K + gamma_t·(yhat_b − yhat_a))   for a ≠ b,
//	p_b = 1 − sum_{a≠b} p_a,
//
// (the paper's, written for rewards instead of losses, with its mu = K),
// draws the arm from p and reports its probability. The pulled arm's
// regression then adds the reward.
//
// The learning rate: Theorem 1 of the paper sets gamma = sqrt(K T /
// Reg_Sq(T)) for a known horizon T, Reg_Sq the oracle's regret for the
// square loss. This package uses its anytime form gamma_t = gamma·sqrt(K t)
// at round t (T replaced by the rounds so far, the oracle's regret folded
// into the parameter gamma, default 1), which needs no horizon and no
// doubling restarts. Vowpal Wabbit's --squarecb schedule gamma_scale ·
// t^gamma_exponent, by default 10·t^0.5, is gamma = 10/sqrt(K) here.
//
// Regret: with gamma tuned as above SquareCB's regret is O(sqrt(K T
// Reg_Sq(T))) (Theorem 1): O(sqrt(K T log|F|)) for a finite class F, and,
// since online regression over bounded d-dimensional linear predictors
// (Vovk–Azoury–Warmuth, of which online ridge is the close relative used
// here) has Reg_Sq = O(d log T), O(sqrt(K d T log T)) for linear rewards.
// The contexts may be adversarial; only realizability (the mean reward is
// in the class) is assumed.
//
// Parameters: gamma (default 1); lambda (default 1), the ridge penalty;
// intercept (default true), a bias weight on a constant feature appended
// to the context (plugins/internal/ridge.Bank).
// Any reward family is accepted. Randomness comes from Replica.Rand only.
// Select and Observe do not allocate.
package squarecb

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/plugins/internal/ridge"
	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the squarecb policy.
var Params = []sdk.Param{
	{Name: "gamma", Type: sdk.Float, Default: 1.0, Min: sdk.Exclusive(0),
		Doc: "learning-rate scale: round t weighs arms with gamma_t = gamma*sqrt(K t)"},
	{Name: "lambda", Type: sdk.Float, Default: 1.0, Min: sdk.Exclusive(0),
		Doc: "ridge penalty of the reward regressions: A starts at lambda*I"},
	ridge.InterceptParam,
}

// Policy is SquareCB for one replication.
type Policy struct {
	bank  *ridge.Bank
	gamma float64
	rng   *rand.Rand
	means []float64
	probs []float64
}

// New builds the SquareCB policy of one replication.
func New(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) {
	gamma, lambda := s.Params.Float("gamma"), s.Params.Float("lambda")
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return nil, fmt.Errorf("squarecb: gamma must be finite and > 0, got %v", gamma)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("squarecb: lambda must be finite and > 0, got %v", lambda)
	}
	if r.Rand == nil {
		return nil, fmt.Errorf("squarecb: replica %d has no random source", r.Index)
	}
	bank, err := ridge.NewBank("squarecb", s, lambda)
	if err != nil {
		return nil, err
	}
	return &Policy{bank: bank, gamma: gamma, rng: r.Rand, means: make([]float64, s.Arms), probs: make([]float64, s.Arms)}, nil
}

// Probabilities writes the probability of every arm in round t's context
// x to out (K values).
func (p *Policy) Probabilities(t int, x []float64, out []float64) {
	k := p.bank.K
	p.bank.Means(x, p.means)
	b := 0
	for a, m := range p.means {
		if m > p.means[b] {
			b = a
		}
	}
	gt := p.gamma * math.Sqrt(float64(k)*float64(t))
	var rest float64
	for a, m := range p.means {
		if a == b {
			continue
		}
		out[a] = 1 / (float64(k) + gt*(p.means[b]-m))
		rest += out[a]
	}
	out[b] = 1 - rest
}

// Select draws the arm from the inverse-gap weights and returns its
// probability.
func (p *Policy) Select(t int, x []float64) (int, float64) {
	p.Probabilities(t, x, p.probs)
	u := p.rng.Float64()
	arm := len(p.probs) - 1
	for a, q := range p.probs {
		if u < q {
			arm = a
			break
		}
		u -= q
	}
	// The last arm takes any rounding remainder; its probability is
	// still the one reported.
	return arm, p.probs[arm]
}

// Observe adds the reward to the pulled arm's regression.
func (p *Policy) Observe(t int, x []float64, arm int, reward float64) {
	p.bank.Observe(x, arm, reward)
}
