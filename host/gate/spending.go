package gate

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file computes the boundaries of a group-sequential test with
// Lan–DeMets alpha spending (Lan and DeMets, "Discrete sequential boundaries
// for clinical trials", Biometrika 70, 1983), with the spending function
// that mimics O'Brien and Fleming's boundaries:
//
//	alpha(t) = 2 - 2 Phi(z_{1-a/2} / sqrt(t))
//
// for a one-sided test of level a at information fraction t in (0, 1]
// (alpha(1) = a). It spends almost nothing at the early looks, so the
// last look's boundary is close to the fixed-sample one: a sequential gate
// that runs to the end reaches nearly the fixed gate's verdict.
//
// The boundaries come from the recursion of Armitage, McPherson and Rowe
// (1969) for the canonical joint distribution of the statistics
// Z_k = W(t_k)/sqrt(t_k), W a standard Brownian motion (Jennison and
// Turnbull, "Group Sequential Methods with Applications to Clinical
// Trials", 2000, chapter 19): the density of W(t_k) on the continuation
// region is carried from look to look on a grid, by the trapezoid rule.

var stdNormal = distuv.Normal{Mu: 0, Sigma: 1}

// OBFSpending is the Lan–DeMets O'Brien–Fleming-type spending function of
// a one-sided test of level a: the type I error spent by information
// fraction t.
func OBFSpending(a, t float64) float64 {
	switch {
	case t <= 0:
		return 0
	case t >= 1:
		return a
	}
	return 2 * stdNormal.Survival(stdNormal.Quantile(1-a/2)/math.Sqrt(t))
}

// Grid of the recursion: W(t) is carried on [wLow, min(boundary, wHigh)]
// with step at most wStep. W(t) has standard deviation sqrt(t) <= 1, so
// nothing beyond ±10 matters at the levels a gate uses.
const (
	wLow  = -10.0
	wHigh = 10.0
	wStep = 0.01
)

// Boundaries returns the z-scale critical values c_1..c_K of a one-sided
// group-sequential test of level a with O'Brien–Fleming-type Lan–DeMets
// spending at the increasing information fractions t (the last is 1):
// under H0, P(Z_j < c_j for j < k, Z_k >= c_k) = alpha(t_k) - alpha(t_{k-1}),
// so that the probability of ever crossing is a. A look at which nothing is
// left to spend gets +Inf. Only the upper boundary is computed: stopping
// for other reasons (accepting, or the other direction) can only lower the
// error rate (a non-binding futility rule).
func Boundaries(a float64, t []float64) ([]float64, error) {
	if !(a > 0 && a < 1) {
		return nil, fmt.Errorf("boundaries: level %v: must be in (0, 1)", a)
	}
	for k, x := range t {
		if !(x > 0 && x <= 1) || (k > 0 && x <= t[k-1]) {
			return nil, fmt.Errorf("boundaries: information fractions %v: want increasing values in (0, 1]", t)
		}
	}
	c := make([]float64, len(t))
	var grid, dens []float64 // W(t_{k-1}) on the continuation region, and its sub-density
	prevT, spent := 0.0, 0.0
	for k, tk := range t {
		target := OBFSpending(a, tk) - spent
		if k == len(t)-1 {
			target = a - spent
		}
		sq := math.Sqrt(tk)
		if k == 0 {
			if target <= 0 {
				c[0] = math.Inf(1)
			} else {
				c[0] = stdNormal.Quantile(1 - target)
			}
			hi := math.Min(c[0]*sq, wHigh)
			grid = linspace(wLow, hi)
			dens = make([]float64, len(grid))
			for i, w := range grid {
				dens[i] = stdNormal.Prob(w/sq) / sq
			}
			spent = OBFSpending(a, tk)
			prevT = tk
			continue
		}
		sd := math.Sqrt(tk - prevT)
		wts := trapezoid(grid)
		exit := func(ck float64) float64 {
			s := 0.0
			for i, u := range grid {
				s += wts[i] * dens[i] * stdNormal.Survival((ck*sq-u)/sd)
			}
			return s
		}
		if target <= 1e-15 {
			c[k] = math.Inf(1)
		} else {
			lo, hi := -10.0, 40.0
			for range 200 {
				mid := (lo + hi) / 2
				if exit(mid) > target {
					lo = mid
				} else {
					hi = mid
				}
				if hi-lo < 1e-9 {
					break
				}
			}
			c[k] = (lo + hi) / 2
		}
		if k == len(t)-1 {
			break
		}
		spent += exit(c[k])
		next := linspace(wLow, math.Min(c[k]*sq, wHigh))
		nd := make([]float64, len(next))
		for j, w := range next {
			s := 0.0
			for i, u := range grid {
				s += wts[i] * dens[i] * stdNormal.Prob((w-u)/sd)
			}
			nd[j] = s / sd
		}
		grid, dens = next, nd
		prevT = tk
	}
	return c, nil
}

// linspace is a grid from lo to hi (inclusive) with step at most wStep.
func linspace(lo, hi float64) []float64 {
	n := int(math.Ceil((hi - lo) / wStep))
	if n < 1 {
		n = 1
	}
	g := make([]float64, n+1)
	for i := range g {
		g[i] = lo + (hi-lo)*float64(i)/float64(n)
	}
	return g
}

// trapezoid returns the trapezoid-rule weights of an evenly spaced grid.
func trapezoid(g []float64) []float64 {
	w := make([]float64, len(g))
	if len(g) < 2 {
		return w
	}
	h := g[1] - g[0]
	for i := range w {
		w[i] = h
	}
	w[0], w[len(w)-1] = h/2, h/2
	return w
}

// boundaryCache holds the boundaries already computed: a simulation of
// thousands of gate decisions asks for the same few designs.
var boundaryCache sync.Map // key string -> []float64

// cachedBoundaries is Boundaries, computed once per level and fractions.
func cachedBoundaries(a float64, t []float64) ([]float64, error) {
	key := fmt.Sprint(a, t)
	if c, ok := boundaryCache.Load(key); ok {
		return c.([]float64), nil
	}
	c, err := Boundaries(a, t)
	if err != nil {
		return nil, err
	}
	boundaryCache.Store(key, c)
	return c, nil
}
