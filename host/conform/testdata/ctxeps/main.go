// Command bench-plugin-ctxeps is a contextual test plugin for bench
// conform's tests: epsilon-greedy over per-arm means shifted by a learned
// weight on the context's first feature (or each arm's own first feature
// with per-arm features), drawing from its replica's random source and
// reporting the probability it gave its arm. It plays only contextual
// sessions. Built with the tag regretbench_proto2 it speaks protocol 2
// only, as a plugin built before contexts would.
package main

import (
	"math/rand/v2"

	"github.com/regretbench/regretbench/sdk"
)

type ctxEps struct {
	s         sdk.Session
	rng       *rand.Rand
	sum, n, w []float64
}

func (g *ctxEps) feature(x []float64, a int) float64 {
	if g.s.Context.PerArm {
		return x[a*g.s.Context.Dim]
	}
	return x[0]
}

func (g *ctxEps) Select(t int, x []float64) (int, float64) {
	const eps = 0.1
	best, bv := 0, 0.0
	for a := range g.sum {
		v := 1e9
		if g.n[a] > 0 {
			v = g.sum[a]/g.n[a] + g.w[a]*g.feature(x, a)
		}
		if a == 0 || v > bv {
			best, bv = a, v
		}
	}
	arm := best
	if g.rng.Float64() < eps {
		arm = g.rng.IntN(g.s.Arms)
	}
	p := eps / float64(g.s.Arms)
	if arm == best {
		p += 1 - eps
	}
	return arm, p
}

func (g *ctxEps) Observe(t int, x []float64, arm int, reward float64) {
	g.sum[arm] += reward
	g.n[arm]++
	g.w[arm] += 0.01 * (reward - g.sum[arm]/g.n[arm]) * g.feature(x, arm)
}

func main() {
	sdk.Serve(sdk.Plugin{Name: "ctxeps", Version: "0.1.0",
		NewContextual: func(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) {
			k := s.Arms
			return &ctxEps{s: s, rng: r.Rand, sum: make([]float64, k), n: make([]float64, k), w: make([]float64, k)}, nil
		}})
}
