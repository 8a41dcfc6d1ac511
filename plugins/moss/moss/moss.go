// Package moss implements MOSS (Minimax Optimal Strategy in the Stochastic
// case) for the regretbench SDK.
//
// Reference: J.-Y. Audibert and S. Bubeck, "Minimax Policies for
// Adversarial and Stochastic Bandits", COLT 2009, policy MOSS: with
// horizon n and K arms, play the arm maximizing
//
//	Xbar_{i,T_i} + sqrt(max(log(n / (K T_i)), 0) / T_i),
//
// T_i the plays of arm i; for rewards in [0, 1] its expected regret is at
// most 49 sqrt(nK), the minimax rate without the log factor of UCB1.
//
// Round t's index here is
//
//	U_i = muhat_i + c * R * sqrt(max(ln(T / (K N_i)), 0) / N_i),
//
// T the horizon (Session.Horizon), muhat_i and N_i the empirical mean and
// count of arm i's observed rewards, ties to the lowest index. The index
// does not depend on t. c (default 1) multiplies the bonus; c = 1 is the
// paper's MOSS. Once N_i >= T/K the bonus is 0 and arm i is judged by its
// mean alone.
//
// R is the reward range, as in plugins/ucb1: R = 1 for Bernoulli rewards
// (the paper's index exactly) and R = 2 sd for Gaussian rewards with known
// sd, so R = 2 Session.RewardSD() in both families: sd-Gaussian noise is
// (R/2)-sub-Gaussian like a reward of range R, which is what the paper's
// concentration arguments use. The gaussian family requires
// Session.NoiseKnown.
//
// Delayed feedback: the SDK calls Observe when a reward arrives, and the
// index uses the rewards observed so far. An arm with no observed reward
// has an infinite index: Select returns the lowest-indexed such arm. The
// policy is deterministic: it uses no randomness. Select and Observe do not
// allocate: the bonus of an arm changes only when it is observed, so
// Observe refreshes that arm's index and Select is an argmax.
package moss

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/plugins/internal/armstat"
	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the moss policy.
var Params = []sdk.Param{
	{
		Name:    "c",
		Type:    sdk.Float,
		Default: 1.0,
		Min:     sdk.Inclusive(0),
		Doc: "multiplier of the exploration bonus R*sqrt(max(ln(T/(K N_i)), 0)/N_i) (1 = the paper's MOSS; " +
			"0 = greedy); R = 1 for bernoulli, 2 sd for gaussian; must be >= 0",
	},
}

// New builds the MOSS policy of one replication. It never uses r.Rand.
func New(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("moss: need at least one arm, got %d", s.Arms)
	}
	if s.Horizon < 1 {
		return nil, fmt.Errorf("moss: need a horizon of at least one round, got %d", s.Horizon)
	}
	c := 1.0
	if _, ok := s.Params["c"]; ok {
		c = s.Params.Float("c")
	}
	if !(c >= 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("moss: parameter c must be finite and >= 0, got %v", c)
	}
	sd, err := s.RewardSD()
	if err != nil {
		return nil, fmt.Errorf("moss: %w", err)
	}
	p := &policy{scale: c * 2 * sd, perArm: float64(s.Horizon) / float64(s.Arms)}
	p.arms = armstat.New(s.Arms, &p.u)
	return p, nil
}

// policy is MOSS over the running statistics of the observed rewards.
type policy struct {
	scale  float64 // c*R
	perArm float64 // T/K
	arms   armstat.Stats
	u      []float64 // U_i, refreshed by Observe
}

// index returns U_i = muhat_i + c R sqrt(max(ln(T/(K N_i)), 0) / N_i) from
// the observed rewards, +Inf for an arm without any.
func (p *policy) index(i int) float64 {
	n := p.arms.N[i]
	if n == 0 {
		return math.Inf(1)
	}
	return p.arms.Mean[i] + p.scale*math.Sqrt(max(math.Log(p.perArm/n), 0)/n)
}

// Select returns argmax_i U_i, the lowest index on ties.
func (p *policy) Select(t int) int {
	if i, ok := p.arms.FirstUnpulled(); ok {
		return i
	}
	return armstat.Argmax(p.u)
}

// Observe adds the reward of round t to the pulled arm's statistics and
// refreshes its index.
func (p *policy) Observe(t, arm int, reward float64) {
	p.arms.Observe(arm, reward)
	p.u[arm] = p.index(arm)
}
