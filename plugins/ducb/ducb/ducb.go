// Package ducb implements discounted UCB (D-UCB) for the regretbench SDK.
//
// Reference: A. Garivier and E. Moulines, "On Upper-Confidence Bound
// Policies for Non-Stationary Bandit Problems", arXiv:0805.3415 (2008;
// ALT 2011), algorithm D-UCB (after Kocsis and Szepesvari's discounted
// UCB): with a discount factor gamma in (0, 1), play the arm maximizing
// Xbar_t(gamma, i) + c_t(gamma, i), where
//
//	N_t(gamma, i)    = sum_{s<=t} gamma^(t-s) 1{I_s = i},
//	Xbar_t(gamma, i) = (1/N_t(gamma, i)) sum_{s<=t} gamma^(t-s) X_s(i) 1{I_s = i},
//	n_t(gamma)       = sum_i N_t(gamma, i),
//	c_t(gamma, i)    = 2B sqrt(xi log n_t(gamma) / N_t(gamma, i)),
//
// B a bound on the rewards and xi a constant of the padding function (the
// analysis takes xi > 1/2). Old rewards fade geometrically, so the index
// follows means that change (the paper's setting: Upsilon_T breakpoints);
// the paper bounds its regret by O(sqrt(T Upsilon_T) log T) for
// gamma = 1 - (4B)^-1 sqrt(Upsilon_T / T).
//
// Round t's index here is the paper's index at time t-1 (the statistics of
// the plays made before round t, as in Lattimore and Szepesvari, Bandit
// Algorithms, section 31.3): the reward of round s weighs gamma^(t-1-s),
//
//	U_i(t) = Xbar_i + 2B sqrt(xi max(ln n, 0) / N_i),
//
// N_i, Xbar_i and n the discounted count, mean and total count of the
// observed rewards of rounds before t, ties to the lowest index. An arm
// with N_i = 0 (never observed, or discounted below the smallest float64)
// has an infinite index: Select returns the lowest-indexed such arm.
// ln n is clamped at 0: under immediate feedback the last reward weighs 1
// so n >= 1, but delays can leave n below 1.
//
// Parameters: gamma (float in [0, 1], default 0 = 1 - 1/(4 sqrt T);
// gamma = 1 discounts nothing) and xi (float, default 0.6). B is the
// reward range as in plugins/ucb1: B = 1 for Bernoulli rewards (the
// paper's rewards in [0, 1]) and B = 2 sd for Gaussian rewards with known
// sd, so B = 2 Session.RewardSD() in both families (sd-Gaussian noise is
// (B/2)-sub-Gaussian, as a reward of range B is). The gaussian family
// requires Session.NoiseKnown.
//
// # Defaults, checked against the paper
//
// The padding is the paper's c_t(gamma, i) = 2B sqrt(xi log n_t(gamma) /
// N_t(gamma, i)) with the B above, and its analysis asks xi > 1/2: the
// default xi = 0.6 is the value of the paper's simulations, just above it.
// The paper's tuning of the discount is gamma = 1 - (4B)^-1 sqrt(Upsilon_T
// / T), Upsilon_T the number of breakpoints, which a policy is not told
// (nor does bench tell it). B there is the range of rewards in [0, B], and
// the formula is not invariant under rescaling the rewards (gaps and range
// together), which leaves the problem unchanged: read in the paper's
// normalised rewards, B = 1, whatever the family. With B = 1 and one
// breakpoint it gives the default, 1 - 1/(4 sqrt T), which is also the
// discount of the paper's simulations; the discount does not depend on
// B, so multiplying every reward by a constant changes no choice. The
// effective memory 1/(1 - gamma) is 4 sqrt T rounds (566 at T = 20000).
// For an expected Upsilon_T set gamma = 1 - sqrt(Upsilon_T / T) / 4.
//
// Delayed feedback: the weight is by pull round. The discounted sums are
// kept relative to the latest round the policy has heard of, decayed by
// gamma^k when it moves k rounds on; a reward of round s that arrives when
// that round is ref enters with weight gamma^(ref-s), so U_i(t) is always
// over the observed rewards with weights gamma^(t-1-s). With {delay: 0}
// the calls, and so the arms, are exactly those of immediate feedback. The
// policy is deterministic: it uses no randomness. Select and Observe do
// not allocate.
package ducb

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the ducb policy.
var Params = []sdk.Param{
	{
		Name:    "gamma",
		Type:    sdk.Float,
		Default: 0.0,
		Min:     sdk.Inclusive(0),
		Max:     sdk.Inclusive(1),
		Doc: "discount factor gamma in (0, 1]: the reward of round s weighs gamma^(t-1-s) in round t (1 = no discount); " +
			"0 (the default) = 1 - 1/(4 sqrt(T)), the paper's tuning",
	},
	{
		Name:    "xi",
		Type:    sdk.Float,
		Default: 0.6,
		Min:     sdk.Inclusive(0),
		Doc:     "constant xi of the padding 2B*sqrt(xi ln(n)/N_i) (the paper's analysis takes xi > 1/2); must be >= 0",
	},
}

// Gamma returns the discount factor of horizon T: gamma itself when it is
// > 0, else 1 - 1/(4 sqrt(T)).
func Gamma(gamma float64, horizon int) float64 {
	if gamma > 0 {
		return gamma
	}
	return 1 - 1/(4*math.Sqrt(float64(horizon)))
}

// New builds the D-UCB policy of one replication. It never uses r.Rand.
func New(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("ducb: need at least one arm, got %d", s.Arms)
	}
	if s.Horizon < 1 {
		return nil, fmt.Errorf("ducb: need a horizon of at least one round, got %d", s.Horizon)
	}
	gamma, xi := 0.0, 0.6
	if _, ok := s.Params["gamma"]; ok {
		gamma = s.Params.Float("gamma")
	}
	if _, ok := s.Params["xi"]; ok {
		xi = s.Params.Float("xi")
	}
	if !(gamma >= 0 && gamma <= 1) {
		return nil, fmt.Errorf("ducb: parameter gamma must be in [0, 1] (0 = 1 - 1/(4 sqrt T)), got %v", gamma)
	}
	if !(xi >= 0) || math.IsInf(xi, 0) {
		return nil, fmt.Errorf("ducb: parameter xi must be finite and >= 0, got %v", xi)
	}
	sd, err := s.RewardSD()
	if err != nil {
		return nil, fmt.Errorf("ducb: %w", err)
	}
	buf := make([]float64, 2*s.Arms)
	return &policy{
		gamma: Gamma(gamma, s.Horizon), xi: xi, b: 2 * sd,
		sum: buf[:s.Arms:s.Arms],
		n:   buf[s.Arms:],
	}, nil
}

// policy is D-UCB for one replication.
type policy struct {
	gamma, xi, b float64
	// ref is the round the weights are relative to: the reward of round s
	// weighs gamma^(ref-s) in sum and n.
	ref    int
	sum, n []float64 // per arm: discounted reward sum and discounted count
}

// decay moves the weights' reference round on to round to.
func (p *policy) decay(to int) {
	if to <= p.ref {
		return
	}
	f := math.Pow(p.gamma, float64(to-p.ref))
	for i := range p.sum {
		p.sum[i] *= f
		p.n[i] *= f
	}
	p.ref = to
}

// bonus is 2B sqrt(xi max(ln n, 0)): U_i = Xbar_i + bonus/sqrt(N_i). The
// weights must be relative to round t-1 (decay(t-1)).
func (p *policy) bonus() float64 {
	total := 0.0
	for _, c := range p.n {
		total += c
	}
	return 2 * p.b * math.Sqrt(p.xi*max(math.Log(total), 0))
}

// value is Xbar_i + bonus/sqrt(N_i), for an arm with N_i > 0.
func (p *policy) value(i int, bonus float64) float64 {
	return p.sum[i]/p.n[i] + bonus/math.Sqrt(p.n[i])
}

// index returns U_i(t), +Inf for an arm with N_i = 0. The weights must be
// relative to round t-1 (decay(t-1)).
func (p *policy) index(i int) float64 {
	if p.n[i] == 0 {
		return math.Inf(1)
	}
	return p.value(i, p.bonus())
}

// Select returns argmax_i U_i(t), the lowest index on ties: the first arm
// with N_i = 0 if there is one.
func (p *policy) Select(t int) int {
	p.decay(t - 1)
	for i, c := range p.n {
		if c == 0 {
			return i
		}
	}
	bonus := p.bonus()
	best, bestV := 0, p.value(0, bonus)
	for i := 1; i < len(p.n); i++ {
		if v := p.value(i, bonus); v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// Observe adds the reward of round t with weight gamma^(ref-t), ref the
// latest round the policy has heard of (t itself under immediate
// feedback).
func (p *policy) Observe(t, arm int, reward float64) {
	p.decay(t)
	w := 1.0
	if t < p.ref {
		w = math.Pow(p.gamma, float64(p.ref-t))
	}
	p.sum[arm] += w * reward
	p.n[arm] += w
}
