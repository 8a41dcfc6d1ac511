// Package ucb1 implements UCB1 for the regretbench SDK.
//
// Reference: P. Auer, N. Cesa-Bianchi and P. Fischer, "Finite-time
// Analysis of the Multiarmed Bandit Problem", Machine Learning 47 (2002),
// 235-256, Figure 1 (policy UCB1): after playing each machine once, play
// the machine j that maximizes
//
//	xbar_j + sqrt(2 ln n / n_j),
//
// n the overall number of plays done so far and n_j the plays of machine j;
// Theorem 1 bounds its expected regret by 8 sum_i ln n / Delta_i +
// (1 + pi^2/3) sum_i Delta_i for rewards in [0, 1].
//
// Round t's index here is
//
//	U_i(t) = muhat_i + c * R * sqrt(2 ln(t-1) / N_i),
//
// muhat_i and N_i the empirical mean and count of arm i's observed rewards,
// t-1 the rounds played before round t (the paper's n: it counts plays, so
// a pull whose reward is still on its way under delayed feedback counts),
// ties to the lowest index. c (default 1) multiplies the exploration bonus;
// c = 1 is the paper's UCB1.
//
// R is the reward range of the paper's [0, 1] rewards, so for Bernoulli
// rewards R = 1 and the index is exactly UCB1's. Decision for Gaussian
// rewards with known sd: R = 2 sd. The proof of Theorem 1 uses only the
// Chernoff-Hoeffding bound P(mean - mu >= a) <= exp(-2 n a^2 / R^2) of a
// reward of range R, and by Hoeffding's lemma a variable of range R is
// (R/2)-sub-Gaussian: sd-Gaussian noise satisfies that very bound with R =
// 2 sd, so the theorem holds with Delta_i replaced by Delta_i / R in its log
// term (8 R^2 ln n / Delta_i). In both families R = 2 Session.RewardSD()
// (0.5 for Bernoulli), the same choice as plugins moss, swucb and ducb. The
// gaussian family requires Session.NoiseKnown.
//
// Delayed feedback: the SDK calls Observe when a reward arrives, and the
// index uses the rewards observed so far. An arm with no observed reward
// (possible only when the host forces no initial pulls, or while the forced
// pulls' rewards are delayed) has an infinite index: Select returns the
// lowest-indexed such arm. The policy is deterministic: it uses no
// randomness. Select and Observe do not allocate.
package ucb1

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/plugins/internal/armstat"
	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the ucb1 policy.
var Params = []sdk.Param{
	{
		Name:    "c",
		Type:    sdk.Float,
		Default: 1.0,
		Min:     sdk.Inclusive(0),
		Doc: "multiplier of the exploration bonus R*sqrt(2 ln(t-1)/N_i) (1 = the paper's UCB1; " +
			"0 = greedy); R = 1 for bernoulli, 2 sd for gaussian; must be >= 0",
	},
}

// New builds the UCB1 policy of one replication. It never uses r.Rand.
func New(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("ucb1: need at least one arm, got %d", s.Arms)
	}
	c := 1.0
	if _, ok := s.Params["c"]; ok {
		c = s.Params.Float("c")
	}
	if !(c >= 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("ucb1: parameter c must be finite and >= 0, got %v", c)
	}
	sd, err := s.RewardSD()
	if err != nil {
		return nil, fmt.Errorf("ucb1: %w", err)
	}
	p := &policy{scale: c * 2 * sd}
	p.arms = armstat.New(s.Arms, &p.width)
	return p, nil
}

// policy is UCB1 over the running statistics of the observed rewards.
type policy struct {
	scale float64 // c*R
	arms  armstat.Stats
	width []float64 // c*R*sqrt(2/N_i): U_i = Mean_i + width_i*sqrt(ln(t-1))
}

// index returns U_i(t) = muhat_i + c R sqrt(2 ln(t-1) / N_i) from the
// observed rewards, +Inf for an arm without any.
func (p *policy) index(t, i int) float64 {
	if p.arms.N[i] == 0 {
		return math.Inf(1)
	}
	return p.arms.Mean[i] + p.width[i]*math.Sqrt(logPlays(t))
}

// logPlays is ln(t-1), the log of the plays before round t, clamped at 0
// (t <= 2).
func logPlays(t int) float64 {
	if t <= 2 {
		return 0
	}
	return math.Log(float64(t - 1))
}

// Select returns argmax_i U_i(t), the lowest index on ties.
func (p *policy) Select(t int) int {
	if i, ok := p.arms.FirstUnpulled(); ok {
		return i
	}
	return p.arms.ArgmaxBonus(p.width, math.Sqrt(logPlays(t)))
}

// Observe adds the reward of round t to the pulled arm's statistics.
func (p *policy) Observe(t, arm int, reward float64) {
	p.arms.Observe(arm, reward)
	p.width[arm] = p.scale * math.Sqrt(2/p.arms.N[arm])
}
