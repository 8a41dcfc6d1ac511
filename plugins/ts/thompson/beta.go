package thompson

import (
	"math"
	"math/rand/v2"
)

// gammaShape holds the precomputed constants of a Gamma(alpha, 1) sampler.
//
// Why not gonum's distuv.Beta{Alpha, Beta, Src: rng}.Rand(): each of its two
// Gamma draws calls rand.New(Src) and binds three method values, which costs
// heap allocations on every draw (Select must be allocation-free) and
// recomputes d and c = 1/sqrt(9d) every time. BenchmarkBeta in beta_test.go
// compares the two; the results are quoted in the package README-free docs of
// the report. The algorithm is the same Marsaglia–Tsang method gonum uses for
// alpha >= 0.2, so the two agree in distribution.
type gammaShape struct {
	d, c  float64 // Marsaglia–Tsang d = a' - 1/3, c = 1/sqrt(9d), a' = max(a, a+1 if a < 1)
	invA  float64 // 1/alpha when alpha < 1 (boost by U^(1/alpha)), else 0
	alpha float64
}

func newGammaShape(alpha float64) gammaShape {
	g := gammaShape{alpha: alpha}
	a := alpha
	if a < 1 {
		g.invA = 1 / a
		a++
	}
	g.d = a - 1.0/3
	g.c = 1 / math.Sqrt(9*g.d)
	return g
}

// rand draws from Gamma(alpha, 1) with the Marsaglia–Tsang squeeze method
// ("A simple method for generating gamma variables", ACM TOMS 26(3), 2000);
// shapes below 1 use the boost Gamma(a) = Gamma(a+1) * U^(1/a).
func (g *gammaShape) rand(rng *rand.Rand) float64 {
	for {
		x := rng.NormFloat64()
		v := 1 + g.c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+g.d*(1-v+math.Log(v)) {
			r := g.d * v
			if g.invA != 0 {
				r *= math.Pow(rng.Float64(), g.invA)
			}
			return r
		}
	}
}

// betaRand draws from Beta(a, b) as X/(X+Y), X ~ Gamma(a), Y ~ Gamma(b).
func betaRand(rng *rand.Rand, a, b float64) float64 {
	ga, gb := newGammaShape(a), newGammaShape(b)
	x := ga.rand(rng)
	y := gb.rand(rng)
	return x / (x + y)
}
