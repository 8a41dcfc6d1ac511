// Package klucb implements KL-UCB for the regretbench SDK.
//
// Every round t it pulls the arm with the largest upper confidence index
// U_i(t) = max{ q : N_i * KL(muhat_i, q) <= L(t) },
// L(t) = log t + c * log log t, ties going to the lowest index.
//
// Gaussian rewards with known sd (the paper's baseline, appendix
// "Experimental protocol notes", paragraph "KL-UCB"): KL(mu, q) =
// (q-mu)^2/(2 sd^2), so U_i = muhat_i + sqrt(2 sd^2 L(t) / N_i) in closed
// form. The gaussian family requires Session.NoiseKnown.
//
// Bernoulli rewards: KL is the Bernoulli divergence
// kl(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q)) with 0 log 0 = 0, and the
// index, the largest q in [muhat_i, 1] with N_i kl(muhat_i, q) <= L(t), is
// found by bisection on q (kl(p, .) is increasing on [p, 1]) down to a
// bracket of width 1e-9, followed by at most 4 Newton steps from the
// bracket's upper end. Because kl(p, .) is convex there the Newton iterates
// decrease monotonically and stay inside the bracket, so the returned q is
// within 1e-9 of the exact index (above it by a rounding-level amount at
// most), and N_i kl(muhat_i, q) matches L(t) to within 1e-8 (or, when the
// index is within ~1e-8 of 1, to the float64 floor N_i kl'(q) * ulp(q))
// instead of the ~N_i kl'(q) * 1e-9 of plain bisection.
// The bisection starts from the Pinsker bound q <= muhat + sqrt(L/(2N)),
// which is also used to skip arms that cannot beat the current best.
// Select solves for an index only when it must: most rounds it shows, with
// one kl evaluation per contending arm at a threshold just above and just
// below the midpoint of the two largest estimated indices, that one arm's
// computed index is strictly above every other's, so that the arm is the one
// the full argmax of the computed indices would pick (see fastSelect); the
// chosen arms are bit for bit those of solving every index.
// Indices closer than ~1e-9 are thus not reliably ordered. When the exact
// index lies within float64 resolution of 1 (muhat near 1 with few pulls,
// e.g. muhat = 0.999, N = 50, t = 5000, where it is ~1 - 1e-77), the
// bisection never leaves q = 1 and the result is the bracket's lower end,
// within 1e-9 of 1.
//
// The log log t term: log log t is -Inf at t = 1 and negative at t = 2, so
// when c != 0 the policy uses c * max(0, log log t); when c == 0 (the
// default, as in the paper) the term is dropped entirely, so L(t) = log t
// exactly and no 0 * (-Inf) arises. c must be finite and >= 0.
//
// The policy is deterministic: it uses no randomness. Select and Observe do
// not allocate. An arm never pulled (possible only if the host forces no
// initial pulls) has an infinite index: Select returns the lowest-indexed
// unpulled arm.
package klucb

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/plugins/internal/armstat"
	"github.com/regretbench/regretbench/sdk"
)

// Params are the parameters of the klucb policy.
var Params = []sdk.Param{
	{
		Name:    "c",
		Type:    sdk.Float,
		Default: 0.0,
		Min:     sdk.Inclusive(0),
		Doc: "exploration constant of L(t) = log t + c*log log t " +
			"(0 = the paper's setting; log log t is clamped at 0 for t < 3 when c != 0); must be >= 0",
	},
}

// New builds the KL-UCB policy of one replication. It never uses r.Rand.
func New(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
	if s.Arms < 1 {
		return nil, fmt.Errorf("klucb: need at least one arm, got %d", s.Arms)
	}
	c := 0.0
	if _, ok := s.Params["c"]; ok {
		c = s.Params.Float("c")
	}
	if !(c >= 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("klucb: c must be finite and >= 0, got %v", c)
	}
	sd, err := s.RewardSD()
	if err != nil {
		return nil, fmt.Errorf("klucb: %w", err)
	}
	if s.Family == sdk.Bernoulli {
		return newBernoulli(s.Arms, c), nil
	}
	return newGaussian(s.Arms, sd, c), nil
}

// level returns L(t) = log t + c*max(0, log log t), the c term only when
// c != 0. Rounds t < 1 are treated as t = 1.
func level(t int, c float64) float64 {
	if t <= 1 {
		return 0
	}
	lt := math.Log(float64(t))
	if c != 0 {
		if ll := math.Log(lt); ll > 0 {
			lt += c * ll
		}
	}
	return lt
}

// gaussianIndex is the closed-form Gaussian KL-UCB index.
func gaussianIndex(mu, n, sd, l float64) float64 {
	return mu + math.Sqrt(2*sd*sd*l/n)
}

type gaussian struct {
	c     float64
	sd2x2 float64 // 2 sd^2
	arms  armstat.Stats
	width []float64 // sqrt(2 sd^2 / N_i): U_i = Mean_i + width_i*sqrt(L)
}

func newGaussian(k int, sd, c float64) *gaussian {
	p := &gaussian{c: c, sd2x2: 2 * sd * sd}
	p.arms = armstat.New(k, &p.width)
	return p
}

// Select returns argmax_i mean_i + sqrt(2 sd^2 L(t)/N_i), lowest index on
// ties.
func (p *gaussian) Select(t int) int {
	if i, ok := p.arms.FirstUnpulled(); ok {
		return i
	}
	return p.arms.ArgmaxBonus(p.width, math.Sqrt(level(t, p.c)))
}

// Observe adds the reward to the pulled arm's running sum and count.
func (p *gaussian) Observe(t, arm int, reward float64) {
	p.arms.Observe(arm, reward)
	p.width[arm] = math.Sqrt(p.sd2x2 / p.arms.N[arm])
}

// kl is the Bernoulli KL divergence kl(p, q) with 0 log 0 = 0; p and q in
// [0, 1]. It is +Inf when q is 0 or 1 and p is not.
func kl(p, q float64) float64 {
	var d float64
	if p > 0 {
		d += p * math.Log(p/q)
	}
	if p < 1 {
		d += (1 - p) * math.Log((1-p)/(1-q))
	}
	return d
}

// bisectTol is the bracket width at which the bisection of bernoulliIndex
// stops.
const bisectTol = 1e-9

// pinsker is the Pinsker upper bound on the Bernoulli index, min(1,
// p + sqrt(l/(2n))), which follows from kl(p, q) >= 2 (q-p)^2.
func pinsker(p, n, l float64) float64 {
	return min(1, p+math.Sqrt(l/(2*n)))
}

// bernoulliIndex returns the largest q in [p, 1] with n*kl(p, q) <= l
// (n > 0, l >= 0), to within bisectTol; see the package documentation.
func bernoulliIndex(p, n, l float64) float64 {
	p = min(max(p, 0), 1)
	if p >= 1 || l <= 0 {
		return p
	}
	lo, hi := p, pinsker(p, n, l)
	fhi := n*kl(p, hi) - l
	if fhi <= 0 {
		return hi // only when hi == 1 or up to rounding
	}
	for hi-lo > bisectTol {
		mid := 0.5 * (lo + hi)
		if f := n*kl(p, mid) - l; f <= 0 {
			lo = mid
		} else {
			hi, fhi = mid, f
		}
	}
	if hi >= 1 {
		return lo // the bracket never left q = 1, where f is +Inf
	}
	// Newton polish from hi, where f(hi) > 0 and f'(q) = n (q-p)/(q(1-q)) > 0.
	// f is convex increasing on [p, 1), so the iterates decrease
	// monotonically towards the root and never leave [root, hi].
	q, fq := hi, fhi
	for range newtonSteps {
		next := max(q-fq*q*(1-q)/(n*(q-p)), lo)
		if next >= q {
			break // converged to rounding
		}
		q, fq = next, n*kl(p, next)-l
		if fq <= 0 {
			break
		}
	}
	return q
}

// newtonSteps bounds the Newton polish of bernoulliIndex. One step usually
// reaches rounding level; more are needed only when the index is within
// ~1e-8 of 1, where kl is extremely steep.
const newtonSteps = 4

type bernoulli struct {
	c    float64
	arms armstat.Stats // Sum is S_i, the sum of clamped rewards
	est  []float64     // an estimate of each arm's index, for fastSelect
	// kz and kv cache, per arm, the last point z at which fastSelect
	// evaluated kl and kv = n*kl(p, z) as computed; z is NaN (no cache)
	// once the arm's p or n changed.
	kz, kv []float64
}

func newBernoulli(k int, c float64) *bernoulli {
	p := &bernoulli{c: c}
	p.arms = armstat.New(k, &p.est, &p.kz, &p.kv)
	for i := range p.kz {
		p.kz[i] = math.NaN()
	}
	return p
}

// Select returns the argmax of the Bernoulli KL-UCB indices, lowest index on
// ties. fastSelect decides most rounds by evaluating kl at two points around
// the leader instead of solving for every index; when it cannot, the exact
// argmax below decides. Both return the same arm (see fastSelect).
func (p *bernoulli) Select(t int) int {
	if i, ok := p.arms.FirstUnpulled(); ok {
		return i
	}
	l := level(t, p.c)
	for range fastTries {
		if i, ok := p.fastSelect(l); ok {
			return i
		}
	}
	return p.exactSelect(l)
}

// exactSelect is the argmax of the indices bernoulliIndex computes, lowest
// index on ties. An arm whose Pinsker bound (an upper bound on its computed
// index) does not exceed the best index so far cannot win and is skipped.
// It refreshes the estimates of fastSelect.
func (p *bernoulli) exactSelect(l float64) int {
	mean := p.arms.Mean
	n := p.arms.N[:len(mean)]
	est := p.est[:len(mean)]
	best, bestV := 0, bernoulliIndex(mean[0], n[0], l)
	est[0] = bestV
	for i := 1; i < len(mean); i++ {
		if b := pinsker(mean[i], n[i], l); b <= bestV {
			est[i] = newtonFrom(mean[i], n[i], l, b)
			continue
		}
		v := bernoulliIndex(mean[i], n[i], l)
		est[i] = v
		if v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// fastTries is how many times Select tries fastSelect, whose failed tries
// improve its estimates, before exactSelect.
const fastTries = 3

// fastDelta is the half-width of the window around the threshold x in which
// fastSelect does not decide: 10 times bisectTol, so that an index computed
// by bernoulliIndex lies within bisectTol of points where kl was evaluated.
const fastDelta = 10 * bisectTol

// fErr bounds the rounding error of the computed n*kl(p, q) - l at any q in
// [p, 1) with n*kl(p, q) <= l + 1: a few ulps of n*(1 + kl) + l (terms of
// magnitude at most n/e + n*kl each, logs accurate to 1 ulp), times 1000.
func fErr(n, l float64) float64 { return 1e-12 * (n + 2*l + 1) }

// fastSelect tries to show that one arm a has a computed index
// (bernoulliIndex, as exactSelect computes it) strictly above a threshold x
// and every other arm one strictly below x; then a is exactSelect's argmax,
// ties impossible. The threshold is the midpoint between the two largest
// estimates. Proof of the bounds, f(q) = n*kl(p, q) - l as computed, E =
// fErr(n, l), the computed index v in a final bracket [lo, hi] of width
// <= bisectTol < fastDelta with f(lo) <= 0 (or lo = p) and f(hi) > 0:
//
//   - v > x if p > x (v >= p), or if f(z) < -2E at a z in
//     [x+fastDelta, pinsker): else v <= x gives hi < x+fastDelta <= z, so
//     the true f(z) exceeds the true f(hi) > -E, and the computed one
//     exceeds -2E; hi = 1 is impossible (z < 1), and the early return of
//     pinsker itself gives v = pinsker > z > x.
//   - v < x if pinsker < x (v <= pinsker), or if f(z) > 2E at a z in
//     (p, x-fastDelta]: else v >= x gives lo > x-fastDelta >= z, so the
//     true f(z) is below the true f(lo) <= E, the computed one below 2E.
//
// z is x+fastDelta or x-fastDelta, a point a little further from x, or the
// point of the arm's last evaluation if its p and n did not change since:
// f(z) = n*kl(p, z) - l computed from the cached n*kl(p, z) is the very
// value evaluating it again gives.
//
// It returns false, deciding nothing, when a bound fails.
func (p *bernoulli) fastSelect(l float64) (int, bool) {
	mean := p.arms.Mean
	k := len(mean)
	if k == 1 {
		return 0, true
	}
	if !(l > 0) {
		return 0, false
	}
	n := p.arms.N[:k]
	est := p.est[:k]
	a := 0
	for i := 1; i < k; i++ {
		if est[i] > est[a] {
			a = i
		}
	}
	second := math.Inf(-1)
	for i, e := range est {
		if i != a && e > second {
			second = e
		}
	}
	x := 0.5 * (est[a] + second)
	if !(x > 0 && x < 1) {
		return 0, false
	}
	// The leader: v_a > x.
	if mean[a] <= x {
		up := x + fastDelta
		pk := pinsker(mean[a], n[a], l)
		if !(up < pk) {
			return 0, false
		}
		// A cached n*kl at z >= up gives the same computed f at z as
		// evaluating it again, and f at z < -2E proves v_a > x as at up.
		if z := p.kz[a]; !(z >= up && z < pk && p.kv[a]-l < -2*fErr(n[a], l)) {
			nkl := n[a] * kl(mean[a], up)
			p.kz[a], p.kv[a] = up, nkl
			f := nkl - l
			est[a] = newton(mean[a], n[a], l, up, f)
			if !(f < -2*fErr(n[a], l)) {
				return 0, false
			}
		}
	}
	// Every other arm: v_i < x.
	down := x - fastDelta
	for i := range k {
		if i == a || pinsker(mean[i], n[i], l) < x {
			continue
		}
		if !(mean[i] < down) {
			return 0, false
		}
		// The same for a cached point z in (p, down]: f at z > 2E proves
		// v_i < x as at down.
		if z := p.kz[i]; z <= down && z > mean[i] && p.kv[i]-l > 2*fErr(n[i], l) {
			continue
		}
		// Evaluate a little below down, so that the point stays usable
		// while x moves down a little; at down if that fails.
		y := down - 0.25*max(0, down-max(est[i], mean[i]))
		for {
			nkl := n[i] * kl(mean[i], y)
			p.kz[i], p.kv[i] = y, nkl
			f := nkl - l
			est[i] = newton(mean[i], n[i], l, y, f)
			if f > 2*fErr(n[i], l) {
				break
			}
			if y == down {
				return 0, false
			}
			y = down
		}
	}
	return a, true
}

// newton is one Newton step from q towards the root of n*kl(p, .) = l, given
// f = n*kl(p, q) - l, kept in [p, pinsker]: an estimate for fastSelect only.
func newton(p, n, l, q, f float64) float64 {
	hi := pinsker(p, n, l)
	if !(q > p && q < 1) {
		return hi
	}
	next := q - f*q*(1-q)/(n*(q-p))
	if !(next >= p) { // also NaN
		return p
	}
	return min(next, hi)
}

// newtonFrom is newton from q, evaluating f there.
func newtonFrom(p, n, l, q float64) float64 {
	return newton(p, n, l, q, n*kl(p, q)-l)
}

// Observe adds the reward, clamped to [0, 1], to the pulled arm.
func (p *bernoulli) Observe(t, arm int, reward float64) {
	p.arms.Observe(arm, min(max(reward, 0), 1))
	p.kz[arm] = math.NaN()
}
