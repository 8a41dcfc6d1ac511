// Package greedy implements the greedy and epsilon-greedy contextual
// policies on an online ridge regression oracle (plugins/internal/ridge),
// the exploration-free and the simplest exploring baselines of the
// contextual bandit bake-off (Bietti, Agarwal & Langford, "A contextual
// bandit bake-off", JMLR 22, 2021), for the regretbench SDK.
//
// Each round the oracle predicts every arm's reward, theta_a·x (shared
// contexts: one ridge regression per arm) or theta·x_a (per-arm features:
// one regression for all arms), and the greedy arm g is the argmax, ties to
// the lowest index. Greedy pulls g (probability 1). Epsilon-greedy pulls,
// with probability epsilon, an arm drawn uniformly (g included), else g; it
// reports the probability of the arm it pulled, 1 − epsilon + epsilon/K for
// g and epsilon/K for any other. The pulled arm's regression then adds the
// reward.
//
// Regret: greedy has linear regret in the worst case (it may never try the
// best arm), but Bastani, Bayati & Khosravi ("Mostly exploration-free
// algorithms for contextual bandits", Management Science 67(3), 2021) and
// Kannan, Morgenstern, Roth, Waggoner & Wu ("A smoothed analysis of the
// greedy algorithm for the linear contextual bandit problem", NeurIPS 2018)
// show that it learns when the contexts are diverse enough: rate-optimal,
// O(log T), under the former's covariate diversity; O~(sqrt T) when the
// latter's adversary's contexts are perturbed by Gaussian noise. The
// bake-off found it a strong baseline on real data. Epsilon-greedy with a
// fixed epsilon pays about epsilon·(1 − 1/K)·T times the mean gap to
// explore, linear in T; with epsilon decayed as (K log|F| / t)^(1/3) it has
// O(T^(2/3) (K log|F|)^(1/3)) regret over a finite class F (Langford &
// Zhang, "The epoch-greedy
// algorithm for contextual multi-armed bandits", NeurIPS 2007). The
// epsilon here is fixed, as in the bake-off's epsilon-greedy.
//
// Parameters: lambda (default 1), the ridge penalty; intercept (default
// true), a bias weight on a constant feature appended to the context
// (plugins/internal/ridge.Bank); epsilon (epsilon-greedy only, default
// 0.05). Any reward family is accepted. Epsilon-greedy's
// randomness comes from Replica.Rand only; greedy uses none. Select and
// Observe do not allocate.
package greedy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/plugins/internal/ridge"
	"github.com/regretbench/regretbench/sdk"
)

var lambdaParam = sdk.Param{Name: "lambda", Type: sdk.Float, Default: 1.0, Min: sdk.Exclusive(0),
	Doc: "ridge penalty of the reward regressions: A starts at lambda*I"}

// GreedyParams are the parameters of the greedy policy.
var GreedyParams = []sdk.Param{lambdaParam, ridge.InterceptParam}

// EpsilonParams are the parameters of the epsilon-greedy policy.
var EpsilonParams = []sdk.Param{
	{Name: "epsilon", Type: sdk.Float, Default: 0.05, Min: sdk.Inclusive(0), Max: sdk.Inclusive(1),
		Doc: "probability of pulling a uniformly drawn arm instead of the greedy one"},
	lambdaParam,
	ridge.InterceptParam,
}

// Policy is greedy (epsilon 0, no randomness) or epsilon-greedy for one
// replication.
type Policy struct {
	bank  *ridge.Bank
	eps   float64
	rng   *rand.Rand // nil for greedy
	means []float64
}

// NewGreedy builds the greedy policy of one replication.
func NewGreedy(s sdk.Session, _ sdk.Replica) (sdk.ContextualPolicy, error) {
	return build("lingreedy", s, 0, nil)
}

// NewEpsilon builds the epsilon-greedy policy of one replication.
func NewEpsilon(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) {
	eps := s.Params.Float("epsilon")
	if !(eps >= 0 && eps <= 1) {
		return nil, fmt.Errorf("linepsgreedy: epsilon must be in [0, 1], got %v", eps)
	}
	if r.Rand == nil {
		return nil, fmt.Errorf("linepsgreedy: replica %d has no random source", r.Index)
	}
	return build("linepsgreedy", s, eps, r.Rand)
}

func build(name string, s sdk.Session, eps float64, rng *rand.Rand) (*Policy, error) {
	lambda := s.Params.Float("lambda")
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("%s: lambda must be finite and > 0, got %v", name, lambda)
	}
	bank, err := ridge.NewBank(name, s, lambda)
	if err != nil {
		return nil, err
	}
	return &Policy{bank: bank, eps: eps, rng: rng, means: make([]float64, s.Arms)}, nil
}

// Greedy returns the arm of the largest predicted reward in context x, the
// lowest on ties.
func (p *Policy) Greedy(x []float64) int {
	p.bank.Means(x, p.means)
	best := 0
	for a, m := range p.means {
		if m > p.means[best] {
			best = a
		}
	}
	return best
}

// Probabilities writes the probability of every arm in context x to out.
func (p *Policy) Probabilities(x []float64, out []float64) {
	g, k := p.Greedy(x), float64(p.bank.K)
	for a := range out {
		out[a] = p.eps / k
	}
	out[g] += 1 - p.eps
}

// Select pulls the greedy arm, or with probability epsilon a uniformly
// drawn one, and returns the probability of the arm pulled.
func (p *Policy) Select(t int, x []float64) (int, float64) {
	g := p.Greedy(x)
	if p.rng == nil {
		return g, 1
	}
	arm := g
	if p.rng.Float64() < p.eps {
		arm = p.rng.IntN(p.bank.K)
	}
	prob := p.eps / float64(p.bank.K)
	if arm == g {
		prob += 1 - p.eps
	}
	return arm, prob
}

// Observe adds the reward to the pulled arm's regression.
func (p *Policy) Observe(t int, x []float64, arm int, reward float64) {
	p.bank.Observe(x, arm, reward)
}
