// Package exp3 implements Exp3 for the regretbench SDK.
//
// Reference: P. Auer, N. Cesa-Bianchi, Y. Freund and R. E. Schapire, "The
// Nonstochastic Multiarmed Bandit Problem", SIAM Journal on Computing 32(1)
// (2002), 48-77, section 3 (algorithm Exp3): with exploration
// rate gamma in (0, 1] and weights w_i(1) = 1, each round t
//
//	p_i(t) = (1 - gamma) w_i(t) / sum_j w_j(t) + gamma / K,
//
// draw i_t from p(t), receive the reward x_{i_t}(t) in [0, 1], and set
// w_{i_t}(t+1) = w_{i_t}(t) exp(gamma xhat / K) with the importance-weighted
// estimate xhat = x_{i_t}(t) / p_{i_t}(t) (the other weights stay).
// Corollary 3.2: with gamma = min(1, sqrt(K ln K / ((e-1) g))) for any
// g >= G_max, the regret against the best arm is at most
// 2 sqrt(e-1) sqrt(g K ln K) <= 2.63 sqrt(g K ln K); rewards in [0, 1] give
// g = T.
//
// The parameter gamma is the paper's; its default 0 means Corollary 3.2's
// choice with g = T (Session.Horizon), min(1, sqrt(K ln K / ((e-1) T))).
// The weights are kept as log-weights S_i = (gamma/K) sum xhat_i, and p(t)
// is computed from S - max S, which is the same distribution without
// overflow. The draw inverts the cumulative sum of p(t) at one uniform of
// Replica.Rand per round (the first arm whose cumulative probability
// exceeds it), so a replication depends only on (policy seed, replication)
// and its rewards: runs are reproducible and do not depend on how bench
// batches or shards replications.
//
// Rewards. Bernoulli rewards are the paper's x = r in [0, 1] (clamped).
// Exp3 needs rewards in [0, 1], and Gaussian rewards are unbounded with
// means the policy does not know, so for Gaussian rewards with known sd
// (Session.RewardSD; the gaussian family requires Session.NoiseKnown) the
// documented mapping is
//
//	x = clip(1/2 + (r - m) / (6 sd), 0, 1),
//
// m the mean of every reward observed so far, this one included (the
// forced rounds' too): the reward standardized around the running mean of
// the observations, a band of +-3 sd mapped onto [0, 1]. Differences of
// means map to differences of expected x divided by 6 sd (for the ~99.7%
// of rewards within the band), so a gap of sd/3 is worth what a gap of
// 1/18 is to Bernoulli rewards, and the common shift m leaves the
// exponential weights' preferences unchanged in expectation. The regret
// bound then holds for the mapped rewards.
//
// Forced rounds and delayed feedback. Exp3's estimate divides by the
// probability with which the arm was drawn, so it is defined only for
// rounds the policy drew: the rewards of host-forced rounds (not drawn
// from p) update the Gaussian centre m but not the weights. Under delayed
// feedback the reward of round s arrives later; the policy remembers
// p_{i_s}(s) of every round whose reward is still pending (8 bytes a round,
// over the span from the oldest pending round to the newest: about D under
// a delay of D rounds) and weighs the reward by it when it arrives, so a
// late reward is the same unbiased estimate it would have been at once.
// With {delay: 0} the calls, and so the arms, are exactly those of
// immediate feedback.
//
// Select and Observe do not allocate under immediate feedback (one round
// is pending at most), nor, once the span of pending rounds has been seen,
// under delays.
package exp3

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the exp3 policy.
var Params = []sdk.Param{
	{
		Name:    "gamma",
		Type:    sdk.Float,
		Default: 0.0,
		Min:     sdk.Inclusive(0),
		Max:     sdk.Inclusive(1),
		Doc: "exploration rate gamma in (0, 1] of Exp3: p_i = (1-gamma) w_i/sum w + gamma/K; " +
			"0 (the default) = Corollary 3.2's min(1, sqrt(K ln K / ((e-1) T)))",
	},
}

// Gamma returns the exploration rate of K arms and horizon T: gamma itself
// when it is > 0, Corollary 3.2's min(1, sqrt(K ln K / ((e-1) T))) when it
// is 0.
func Gamma(gamma float64, k, horizon int) float64 {
	if gamma > 0 {
		return gamma
	}
	kf := float64(k)
	return min(1, math.Sqrt(kf*math.Log(kf)/((math.E-1)*float64(horizon))))
}

// New builds the Exp3 policy of one replication.
func New(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("exp3: need at least one arm, got %d", s.Arms)
	}
	if s.Horizon < 1 {
		return nil, fmt.Errorf("exp3: need a horizon of at least one round, got %d", s.Horizon)
	}
	if r.Rand == nil {
		return nil, fmt.Errorf("exp3: replica %d has no random source", r.Index)
	}
	gamma := 0.0
	if _, ok := s.Params["gamma"]; ok {
		gamma = s.Params.Float("gamma")
	}
	if !(gamma >= 0 && gamma <= 1) {
		return nil, fmt.Errorf("exp3: parameter gamma must be in [0, 1] (0 = Corollary 3.2's), got %v", gamma)
	}
	sd, err := s.RewardSD()
	if err != nil {
		return nil, fmt.Errorf("exp3: %w", err)
	}
	g := Gamma(gamma, s.Arms, s.Horizon)
	buf := make([]float64, 2*s.Arms)
	return &policy{
		rng:      r.Rand,
		gamma:    g,
		eta:      g / float64(s.Arms),
		logW:     buf[:s.Arms:s.Arms],
		prob:     buf[s.Arms:],
		gaussian: s.Family == sdk.Gaussian,
		band:     6 * sd,
	}, nil
}

// policy is Exp3 for one replication.
type policy struct {
	rng        *rand.Rand
	gamma, eta float64   // gamma and gamma/K
	logW       []float64 // S_i = (gamma/K) sum of xhat_i: w_i = exp(S_i)
	prob       []float64 // p(t), filled by Select
	pending    pending   // p_{i_s}(s) of the drawn rounds s whose reward has not arrived

	gaussian bool
	band     float64 // 6 sd: the width mapped onto [0, 1]
	sum, n   float64 // sum and count of every reward observed (the centre m = sum/n)
}

// probabilities fills p.prob with p_i = (1-gamma) w_i / sum w + gamma/K,
// the weights taken relative to the largest.
func (p *policy) probabilities() []float64 {
	logW, prob := p.logW, p.prob[:len(p.logW)]
	top := logW[0]
	for _, s := range logW[1:] {
		top = max(top, s)
	}
	total := 0.0
	for i, s := range logW {
		prob[i] = math.Exp(s - top)
		total += prob[i]
	}
	uniform := p.gamma / float64(len(logW))
	for i := range prob {
		prob[i] = (1-p.gamma)*prob[i]/total + uniform
	}
	return prob
}

// Select draws the arm of round t from p(t) and remembers its probability
// until its reward arrives.
func (p *policy) Select(t int) int {
	prob := p.probabilities()
	u := p.rng.Float64()
	arm, cum := len(prob)-1, 0.0
	for i, q := range prob {
		cum += q
		if u < cum {
			arm = i
			break
		}
	}
	p.pending.put(t, prob[arm])
	return arm
}

// reward maps an observed reward into [0, 1]: clamped for bernoulli,
// clip(1/2 + (r - m)/(6 sd), 0, 1) for gaussian, m the running mean of the
// observed rewards including r.
func (p *policy) reward(r float64) float64 {
	if !p.gaussian {
		return min(max(r, 0), 1)
	}
	p.sum += r
	p.n++
	return min(max(0.5+(r-p.sum/p.n)/p.band, 0), 1)
}

// Observe updates the weight of the arm drawn in round t by its importance-
// weighted reward; the reward of a round the policy did not draw (a forced
// one) only moves the Gaussian centre.
func (p *policy) Observe(t, arm int, reward float64) {
	x := p.reward(reward)
	if q, ok := p.pending.take(t); ok {
		p.logW[arm] += p.eta * x / q
	}
}
