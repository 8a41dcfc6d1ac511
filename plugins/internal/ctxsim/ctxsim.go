// Package ctxsim is the in-process test bench of the contextual
// baselines' packages (linucb, lints, greedy, epsgreedy, squarecb,
// logts): synthetic linear-Gaussian and logistic-Bernoulli problems
// simulated without the SDK or a plugin boundary, the regret a policy
// earns on them, and the checks every contextual plugin's tests share
// (parameter ranges, probabilities, deterministic reruns).
package ctxsim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// Problem is a synthetic contextual bandit: K arms, contexts of dimension
// D drawn N(0, I/D) each round (one shared vector, or one per arm with
// PerArm), and the expected reward of arm a in context x
//
//	theta_a·x          (shared contexts: one parameter per arm), or
//	theta·x_a          (PerArm: one parameter, one feature vector per arm),
//
// observed with N(0, NoiseSD²) noise, or, when Logistic, as a Bernoulli
// reward of mean sigmoid(Scale·(that)). The parameters are unit vectors.
type Problem struct {
	K, D     int
	PerArm   bool
	NoiseSD  float64
	Logistic bool
	Scale    float64 // the logistic model's slope (default 1)
	Theta    [][]float64
}

// NewLinear draws a linear-Gaussian problem's parameters from seed.
func NewLinear(k, d int, perArm bool, sd float64, seed uint64) *Problem {
	p := &Problem{K: k, D: d, PerArm: perArm, NoiseSD: sd}
	rng := rand.New(rand.NewPCG(seed, 0x7e7a))
	n := k
	if perArm {
		n = 1
	}
	for range n {
		th := make([]float64, d)
		var norm float64
		for i := range th {
			th[i] = rng.NormFloat64()
			norm += th[i] * th[i]
		}
		for i := range th {
			th[i] /= math.Sqrt(norm)
		}
		p.Theta = append(p.Theta, th)
	}
	return p
}

// NewLogistic draws a logistic-Bernoulli problem's parameters from seed;
// scale is the slope of its link.
func NewLogistic(k, d int, perArm bool, scale float64, seed uint64) *Problem {
	p := NewLinear(k, d, perArm, 0, seed)
	p.Logistic, p.Scale = true, scale
	return p
}

// Session is the session a policy of this problem gets: horizon T, the
// problem's family and shape, and params (defaults filled in by the
// caller, e.g. with sdk.Resolve).
func (p *Problem) Session(horizon int, params sdk.Params) sdk.Session {
	s := sdk.Session{Arms: p.K, Horizon: horizon, Family: sdk.Gaussian, NoiseSD: p.NoiseSD, NoiseKnown: true,
		Params: params, Context: sdk.ContextShape{Dim: p.D, PerArm: p.PerArm}}
	if p.Logistic {
		s.Family, s.NoiseSD, s.NoiseKnown = sdk.Bernoulli, 0, false
	}
	return s
}

// Width is the number of values of one round's context.
func (p *Problem) Width() int { return sdk.ContextShape{Dim: p.D, PerArm: p.PerArm}.Width(p.K) }

// Means writes the expected reward of every arm in context x to out.
func (p *Problem) Means(x []float64, out []float64) {
	for a := range p.K {
		var m float64
		if p.PerArm {
			m = dot(p.Theta[0], x[a*p.D:(a+1)*p.D])
		} else {
			m = dot(p.Theta[a], x)
		}
		if p.Logistic {
			m = 1 / (1 + math.Exp(-p.scale()*m))
		}
		out[a] = m
	}
}

func (p *Problem) scale() float64 {
	if p.Scale == 0 {
		return 1
	}
	return p.Scale
}

// Result is what a policy did in one simulated run.
type Result struct {
	Arms   []int     // the arm of each round
	Probs  []float64 // the probability the policy reported
	Regret []float64 // each round's regret: best expected reward − the chosen arm's
}

// Cumulative is the total regret of rounds [from, to).
func (r Result) Cumulative(from, to int) float64 {
	var s float64
	for _, v := range r.Regret[from:to] {
		s += v
	}
	return s
}

// Run plays pol on the problem for T rounds, contexts and rewards drawn
// from seed (the same for every policy: common random numbers), and
// passes each round's context to Select and Observe in a buffer it then
// overwrites, as the SDK does. Observe(T, ...) is not called, as in the
// SDK.
func (p *Problem) Run(pol sdk.ContextualPolicy, T int, seed uint64) Result {
	rng := rand.New(rand.NewPCG(seed, 0xc0de))
	x := make([]float64, p.Width())
	means := make([]float64, p.K)
	res := Result{Arms: make([]int, T), Probs: make([]float64, T), Regret: make([]float64, T)}
	sd := 1 / math.Sqrt(float64(p.D))
	for t := 1; t <= T; t++ {
		for i := range x {
			x[i] = sd * rng.NormFloat64()
		}
		p.Means(x, means)
		// The reward draws come before Select, so that a policy's choices
		// do not shift the stream the next round's context comes from.
		u, z := rng.Float64(), rng.NormFloat64()
		arm, prob := pol.Select(t, x)
		best := means[0]
		for _, m := range means[1:] {
			best = math.Max(best, m)
		}
		res.Arms[t-1], res.Probs[t-1], res.Regret[t-1] = arm, prob, best-means[arm]
		if t == T {
			break
		}
		r := means[arm] + p.NoiseSD*z
		if p.Logistic {
			r = 0
			if u < means[arm] {
				r = 1
			}
		}
		pol.Observe(t, x, arm, r)
		for i := range x {
			x[i] = math.NaN() // the SDK owns the buffer: a policy that kept it sees garbage
		}
	}
	return res
}

// Uniform is the expected regret per round of the uniformly random policy
// on the problem, estimated over n contexts drawn from seed.
func (p *Problem) Uniform(n int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 0xface))
	x := make([]float64, p.Width())
	means := make([]float64, p.K)
	sd := 1 / math.Sqrt(float64(p.D))
	var s float64
	for range n {
		for i := range x {
			x[i] = sd * rng.NormFloat64()
		}
		p.Means(x, means)
		best, avg := means[0], 0.0
		for _, m := range means {
			best = math.Max(best, m)
			avg += m / float64(p.K)
		}
		s += best - avg
	}
	return s / float64(n)
}

// Build builds the policy of plugin pl for session s and replication seed
// (its random source PCG(seed, 0x5eed)), failing tb if it refuses.
func Build(tb testing.TB, pl sdk.Plugin, s sdk.Session, seed uint64) sdk.ContextualPolicy {
	tb.Helper()
	p, err := pl.NewContextual(s, sdk.Replica{Index: seed, Rand: rand.New(rand.NewPCG(seed, 0x5eed))})
	if err != nil {
		tb.Fatalf("%s: %v", pl.Name, err)
	}
	return p
}

// Params returns pl's parameters with defaults filled in and values set.
func Params(tb testing.TB, pl sdk.Plugin, values map[string]any) sdk.Params {
	tb.Helper()
	ps, err := sdk.Resolve(pl.Params, values)
	if err != nil {
		tb.Fatalf("%s: %v", pl.Name, err)
	}
	return ps
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
