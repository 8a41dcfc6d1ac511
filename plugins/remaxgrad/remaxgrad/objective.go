package remaxgrad

import (
	"math"
	"slices"
)

// The functions of this file are the plain, allocating statements of the
// paper's formulas for a single posterior sample. The Optimizer evaluates the
// same quantities averaged over S samples without allocating; tests hold the
// two against each other and against brute force and finite differences.

// sortedDesc returns the arm indices of theta in decreasing order of theta,
// ties broken by index.
func sortedDesc(theta []float64) []int {
	idx := make([]int, len(theta))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case theta[a] > theta[b]:
			return -1
		case theta[a] < theta[b]:
			return 1
		}
		return 0
	})
	return idx
}

// Objective returns the ReMax objective of one posterior sample,
// E_{A_1..A_M iid pi}[max_m theta_{A_m}] (eq. remax-objective given theta),
// in the sorted form sum_r theta_(r) [(1-P_{r-1})^M - (1-P_r)^M] with
// P_r = sum_{j<=r} pi_(j): the maximum is theta_(r) exactly when every draw
// has rank >= r and not every draw has rank > r. As a function of free
// coordinates pi it is the extension whose gradient is eq. remax-grad-pi.
func Objective(theta, pi []float64, m int) float64 {
	var j, p float64
	for _, a := range sortedDesc(theta) {
		q := p + pi[a]
		j += theta[a] * (math.Pow(1-p, float64(m)) - math.Pow(1-q, float64(m)))
		p = q
	}
	return j
}

// Gradient writes into g the gradient of Objective with respect to pi at a
// point of the simplex (eq. remax-grad-pi):
// g_(r) = sum_{r'>=r} M (theta_(r') - theta_(r'+1)) (1 - P_{r'})^{M-1},
// whose r' = K term vanishes.
func Gradient(g, theta, pi []float64, m int) {
	idx := sortedDesc(theta)
	k := len(idx)
	w := make([]float64, k) // w[r] = (1 - P_r)^{M-1}
	var p float64
	for r, a := range idx {
		p += pi[a]
		w[r] = math.Pow(1-p, float64(m-1))
	}
	var acc float64
	for r := k - 1; r >= 0; r-- {
		if r < k-1 {
			acc += float64(m) * (theta[idx[r]] - theta[idx[r+1]]) * w[r]
		}
		g[idx[r]] = acc
	}
}

// LogitGradient writes into gz the gradient with respect to softmax logits
// z of a function whose pi-gradient is g, pi = softmax(z) (eq. logit-grad):
// gz = pi * (g - <g,pi>).
func LogitGradient(gz, g, pi []float64) {
	gp := dot(g, pi)
	for i := range gz {
		gz[i] = pi[i] * (g[i] - gp)
	}
}

// KKTGap returns the simplex KKT gap max_i g_i - <g,pi> (eq. kkt-gap). It is
// non-negative on the simplex and zero exactly at stationary points.
func KKTGap(g, pi []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range g {
		mx = max(mx, x)
	}
	return mx - dot(g, pi)
}

// Softmax writes softmax(z) into pi, shifting by max(z) for stability.
func Softmax(pi, z []float64) {
	mx := math.Inf(-1)
	for _, x := range z {
		mx = max(mx, x)
	}
	var s float64
	for i, x := range z {
		e := math.Exp(x - mx)
		pi[i] = e
		s += e
	}
	inv := 1 / s
	for i := range pi {
		pi[i] *= inv
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
