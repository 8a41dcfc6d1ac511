package remax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// posterior is a test case: posterior means and variances.
type posterior struct {
	name   string
	mu, s2 []float64
}

// randomPosterior draws a posterior of k arms of one of several kinds that
// stress the solver: well separated, near ties, tiny variances (huge N_i,
// up to 1e12 pulls) and huge variances, and mixtures of scales.
func randomPosterior(rng *rand.Rand, k, kind int) posterior {
	mu := make([]float64, k)
	s2 := make([]float64, k)
	var name string
	switch kind % 6 {
	case 0:
		name = "spread"
		for i := range mu {
			mu[i] = rng.NormFloat64()
			s2[i] = 1 / float64(1+rng.IntN(200))
		}
	case 1:
		name = "near-tie"
		base := rng.NormFloat64()
		for i := range mu {
			mu[i] = base + 1e-9*rng.NormFloat64()
			s2[i] = math.Exp(-6 * rng.Float64())
		}
	case 2:
		name = "tiny-variance" // N_i up to 1e12 with sd = 1
		for i := range mu {
			mu[i] = 0.5 + 0.001*rng.NormFloat64()
			s2[i] = math.Pow(10, -4-8*rng.Float64())
		}
	case 3:
		name = "huge-variance"
		for i := range mu {
			mu[i] = rng.NormFloat64()
			s2[i] = math.Pow(10, 4*rng.Float64())
		}
	case 4:
		name = "mixed-scales" // saturated bandit: a few good arms, long tail
		for i := range mu {
			mu[i] = rng.Float64()
			s2[i] = math.Pow(10, -6*rng.Float64())
		}
		mu[rng.IntN(k)] = 1.2
	case 5:
		name = "exact-ties"
		for i := range mu {
			mu[i] = float64(rng.IntN(3)) * 0.1
			s2[i] = []float64{1e-6, 1e-3, 1}[rng.IntN(3)]
		}
	}
	return posterior{name: fmt.Sprintf("%s/K=%d", name, k), mu: mu, s2: s2}
}

// gScale is the scale of the relative KKT tolerances: max |G_ij|.
func gScale(g []float64) float64 {
	s := 0.0
	for _, x := range g {
		s = max(s, math.Abs(x))
	}
	return s
}

// objective returns pi^T G pi.
func objective(g, pi []float64) float64 {
	k := len(pi)
	v := 0.0
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			v += pi[i] * g[i*k+j] * pi[j]
		}
	}
	return v
}

// checkKKT verifies the optimality conditions of Proposition 1 for pi with
// multiplier lambda:
//   - pi >= 0 and sum pi = 1 within 1e-12 (a few hundred ulp: the sum of up
//     to 80 rounded entries, the last computed as 1 - sum of the others);
//   - (G pi)_i = lambda on the support and (G pi)_i <= lambda off it,
//     within 1e-9 relative to max |G_ij| — two orders of magnitude above
//     the solver's own acceptance tolerance kktTol = 1e-11 and far above the
//     rounding of G pi (~K eps), so a failure is a wrong answer, not noise.
func checkKKT(g, pi []float64, lambda float64) error {
	k := len(pi)
	sum := 0.0
	for i, p := range pi {
		if !(p >= 0) || math.IsInf(p, 0) {
			return fmt.Errorf("pi[%d] = %v", i, p)
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-12 {
		return fmt.Errorf("sum pi = %.17g", sum)
	}
	tol := 1e-9 * gScale(g)
	for i := 0; i < k; i++ {
		gp := 0.0
		for j := 0; j < k; j++ {
			gp += g[i*k+j] * pi[j]
		}
		if pi[i] > 0 && math.Abs(gp-lambda) > tol {
			return fmt.Errorf("support arm %d: (G pi)_i - lambda = %.3g (pi_i = %.3g)", i, gp-lambda, pi[i])
		}
		if pi[i] == 0 && gp-lambda > tol {
			return fmt.Errorf("arm %d off the support: (G pi)_i - lambda = %.3g > 0", i, gp-lambda)
		}
	}
	return nil
}

func TestSolverKKT(t *testing.T) {
	// Proposition 1 on 2400 random posteriors, K from 2 to 80, every kind
	// of randomPosterior. Each case is solved cold (Algorithm 1 from all
	// arms) and warm (after the previous, unrelated case, the harshest warm
	// start), and the answers must satisfy the KKT conditions.
	rng := rand.New(rand.NewPCG(11, 12))
	warm := map[int]*Solver{}
	var cold, warmStats SolverStats
	for n := 0; n < 2400; n++ {
		k := 2 + n%79
		c := randomPosterior(rng, k, n/79)
		g := make([]float64, k*k)
		FillG(g, c.mu, c.s2)
		pi := make([]float64, k)

		s := NewSolver(k)
		lambda, _ := s.Solve(g, pi)
		if err := checkKKT(g, pi, lambda); err != nil {
			t.Fatalf("case %d %s, cold: %v", n, c.name, err)
		}
		addStats(&cold, s.Stats())

		if warm[k] == nil {
			warm[k] = NewSolver(k)
		}
		before := warm[k].Stats()
		lambda, _ = warm[k].Solve(g, pi)
		if err := checkKKT(g, pi, lambda); err != nil {
			t.Fatalf("case %d %s, warm: %v", n, c.name, err)
		}
		after := warm[k].Stats()
		warmStats.Solves++
		warmStats.Iterations += after.Iterations - before.Iterations
		warmStats.Fallbacks += after.Fallbacks - before.Fallbacks
		warmStats.Uncertified += after.Uncertified - before.Uncertified
	}
	t.Logf("cold: %+v", cold)
	t.Logf("warm: %+v", warmStats)
	if cold.Uncertified+warmStats.Uncertified > 0 {
		t.Errorf("uncertified answers: cold %d, warm %d", cold.Uncertified, warmStats.Uncertified)
	}
}

func addStats(dst *SolverStats, s SolverStats) {
	dst.Solves += s.Solves
	dst.Iterations += s.Iterations
	dst.Fallbacks += s.Fallbacks
	dst.Uncertified += s.Uncertified
}

// enumerate is an independent exact solver for small K: for every subset S
// of arms it solves the bordered KKT system [G_SS -1; 1^T 0][pi; lambda] =
// [0; 1] with gonum's LU (partial pivoting, no elimination of the equality,
// no Cholesky), keeps the feasible (pi >= 0) solutions and returns the
// best objective. The optimum is among them, because it solves that system
// for its own support.
func enumerate(g []float64, k int) (best float64, bestPi []float64) {
	best = math.Inf(-1)
	pi := make([]float64, k)
	for mask := 1; mask < 1<<k; mask++ {
		var set []int
		for i := 0; i < k; i++ {
			if mask&(1<<i) != 0 {
				set = append(set, i)
			}
		}
		n := len(set)
		a := mat.NewDense(n+1, n+1, nil)
		rhs := mat.NewVecDense(n+1, nil)
		for p, i := range set {
			for q, j := range set {
				a.Set(p, q, g[i*k+j])
			}
			a.Set(p, n, -1)
			a.Set(n, p, 1)
		}
		rhs.SetVec(n, 1)
		var x mat.VecDense
		if err := x.SolveVec(a, rhs); err != nil {
			continue // singular: this support has no isolated KKT point
		}
		feasible := true
		for i := range pi {
			pi[i] = 0
		}
		for p, i := range set {
			pi[i] = x.AtVec(p)
			if pi[i] < -1e-12 {
				feasible = false
			}
			pi[i] = max(pi[i], 0)
		}
		if !feasible {
			continue
		}
		if v := objective(g, pi); v > best {
			best, bestPi = v, append([]float64(nil), pi...)
		}
	}
	return best, bestPi
}

// projectedGradient maximises pi^T G pi over the simplex by accelerated
// projected gradient ascent (FISTA with restarts), an independent method
// used as a lower bound for larger K.
func projectedGradient(g []float64, k, iters int) float64 {
	x := make([]float64, k)
	y := make([]float64, k)
	prev := make([]float64, k)
	grad := make([]float64, k)
	for i := range x {
		x[i] = 1 / float64(k)
	}
	copy(y, x)
	// Step 1/L with L = 2 max row sum of |G| bounds the gradient's
	// Lipschitz constant.
	l := 0.0
	for i := 0; i < k; i++ {
		r := 0.0
		for j := 0; j < k; j++ {
			r += math.Abs(g[i*k+j])
		}
		l = max(l, 2*r)
	}
	tk := 1.0
	best := objective(g, x)
	for it := 0; it < iters; it++ {
		for i := 0; i < k; i++ {
			s := 0.0
			for j := 0; j < k; j++ {
				s += g[i*k+j] * y[j]
			}
			grad[i] = 2 * s
		}
		copy(prev, x)
		for i := range x {
			x[i] = y[i] + grad[i]/l
		}
		projectSimplex(x)
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		v := objective(g, x)
		if v < best { // restart the momentum
			tn = 1
		}
		best = max(best, v)
		for i := range y {
			y[i] = x[i] + (tk-1)/tn*(x[i]-prev[i])
		}
		tk = tn
	}
	return best
}

// projectSimplex projects x onto the probability simplex (sort-free
// bisection on the threshold, to 1e-15).
func projectSimplex(x []float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	lo -= 1
	for it := 0; it < 200; it++ {
		mid := (lo + hi) / 2
		s := 0.0
		for _, v := range x {
			s += max(v-mid, 0)
		}
		if s > 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	s := 0.0
	for i, v := range x {
		x[i] = max(v-hi, 0)
		s += x[i]
	}
	for i := range x {
		x[i] /= s
	}
}

func TestSolverOptimal(t *testing.T) {
	// The objective must match an independent exact solver (support
	// enumeration, K <= 8) within 1e-10 relative to max|G|: both are exact
	// up to rounding (~1e-15 relative), the slack covers the 1e-12
	// feasibility clipping in enumerate. For larger K, no feasible point
	// found by projected gradient may beat it by more than 1e-10.
	rng := rand.New(rand.NewPCG(21, 22))
	for n := 0; n < 600; n++ {
		k := 2 + n%7
		c := randomPosterior(rng, k, n/7)
		g := make([]float64, k*k)
		FillG(g, c.mu, c.s2)
		pi := make([]float64, k)
		lambda, _ := NewSolver(k).Solve(g, pi)
		got := objective(g, pi)
		want, wantPi := enumerate(g, k)
		tol := 1e-10 * gScale(g)
		if math.Abs(got-want) > tol || math.Abs(got-lambda) > tol {
			t.Fatalf("case %d %s: objective %.17g (lambda %.17g), enumeration %.17g\npi   %v\nenum %v", n, c.name, got, lambda, want, pi, wantPi)
		}
	}
	for n := 0; n < 60; n++ {
		k := 9 + 7*(n%10)
		c := randomPosterior(rng, k, n)
		g := make([]float64, k*k)
		FillG(g, c.mu, c.s2)
		pi := make([]float64, k)
		NewSolver(k).Solve(g, pi)
		got := objective(g, pi)
		pg := projectedGradient(g, k, 300)
		if pg > got+1e-10*gScale(g) {
			t.Fatalf("case %d %s: projected gradient %.17g beats the solver's %.17g", n, c.name, pg, got)
		}
	}
}

func TestSolve2ClosedForm(t *testing.T) {
	// The K = 2 closed form (Equation (ratio-balance)) must equal the
	// active-set answer of Algorithm 1. Both compute pi from the expected
	// improvements G_12 - G_ii, each carrying a rounding error of ~eps
	// max|G|; pi_2 = p21/(p12+p21) then differs by at most ~4 eps max|G| /
	// (p12+p21), which the tolerance allows 4-fold.
	rng := rand.New(rand.NewPCG(31, 32))
	for n := 0; n < 3000; n++ {
		c := randomPosterior(rng, 2, n)
		g := make([]float64, 4)
		FillG(g, c.mu, c.s2)
		closed := make([]float64, 2)
		solve2(g, closed)
		s := NewSolver(2)
		as := make([]float64, 2)
		if _, ok := s.activeSet(g, as); !ok {
			t.Fatalf("case %d %s: active set did not converge", n, c.name)
		}
		den := (g[1] - g[0]) + (g[1] - g[3])
		tol := 16*eps*gScale(g)/den + 4*eps
		if math.Abs(closed[1]-as[1]) > tol || math.Abs(closed[0]-as[0]) > tol {
			t.Fatalf("case %d %s: closed form %v, active set %v (tol %.3g)", n, c.name, closed, as, tol)
		}
		if err := checkKKT(g, closed, objective(g, closed)); err != nil {
			t.Fatalf("case %d %s: closed form: %v", n, c.name, err)
		}
	}
}

func TestFallbackAgrees(t *testing.T) {
	// The fallback (primal active-set method) must reach the same,
	// certified optimum as Algorithm 1 on its own, from a cold start.
	rng := rand.New(rand.NewPCG(41, 42))
	for n := 0; n < 400; n++ {
		k := 3 + n%40
		c := randomPosterior(rng, k, n/40)
		g := make([]float64, k*k)
		FillG(g, c.mu, c.s2)
		pi := make([]float64, k)
		s := NewSolver(k)
		lambda, ok := s.primal(g, pi)
		if !ok {
			t.Fatalf("case %d %s: fallback not certified", n, c.name)
		}
		if err := checkKKT(g, pi, lambda); err != nil {
			t.Fatalf("case %d %s: fallback: %v", n, c.name, err)
		}
		ref := make([]float64, k)
		NewSolver(k).Solve(g, ref)
		if d := objective(g, pi) - objective(g, ref); math.Abs(d) > 1e-12*gScale(g) {
			t.Fatalf("case %d %s: fallback objective differs by %.3g", n, c.name, d)
		}
	}
}

func TestSolverNoAlloc(t *testing.T) {
	k := 31
	rng := rand.New(rand.NewPCG(51, 52))
	c := randomPosterior(rng, k, 0)
	g := make([]float64, k*k)
	FillG(g, c.mu, c.s2)
	pi := make([]float64, k)
	s := NewSolver(k)
	if a := testing.AllocsPerRun(100, func() { s.Reset(); s.Solve(g, pi); s.primal(g, pi) }); a != 0 {
		t.Errorf("Solve allocates %v times per call", a)
	}
}

func TestCheckKKTDetectsWrongAnswers(t *testing.T) {
	// The KKT checker used above must reject perturbed answers, or the
	// tests built on it could not fail: shifting 1e-6 of mass between
	// support arms breaks the balance, mass on a worse arm off the support
	// breaks it too, and a negative entry breaks feasibility.
	rng := rand.New(rand.NewPCG(71, 72))
	for n := 0; n < 200; n++ {
		k := 3 + n%20
		c := randomPosterior(rng, k, 0)
		g := make([]float64, k*k)
		FillG(g, c.mu, c.s2)
		pi := make([]float64, k)
		lambda, _ := NewSolver(k).Solve(g, pi)
		if err := checkKKT(g, pi, lambda); err != nil {
			t.Fatal(err)
		}
		var in, out []int
		for i, p := range pi {
			if p > 1e-3 {
				in = append(in, i)
			} else if p == 0 {
				out = append(out, i)
			}
		}
		try := func(what string, edit func(q []float64)) {
			q := append([]float64(nil), pi...)
			edit(q)
			if checkKKT(g, q, objective(g, q)) == nil {
				t.Errorf("case %d %s: checkKKT accepted %s", n, c.name, what)
			}
		}
		if len(in) >= 2 {
			try("shifted mass", func(q []float64) { q[in[0]] -= 1e-6; q[in[1]] += 1e-6 })
		}
		if len(in) >= 1 && len(out) >= 1 {
			try("mass off the support", func(q []float64) { q[in[0]] -= 1e-6; q[out[0]] += 1e-6 })
		}
		try("negative entry", func(q []float64) { q[0] -= 1e-3; q[1] += 1e-3; q[0] = min(q[0], -1e-3) })
	}
}

func TestSolverDegenerateInputs(t *testing.T) {
	// Whatever G is, pi must be a finite point of the simplex; garbage in
	// must be reported as a fallback and not be certified.
	nan := math.NaN()
	cases := []struct {
		name          string
		g             []float64
		wantCertified bool
	}{
		// Convex instead of concave on the simplex (Cholesky fails); the
		// fallback still finds the optimal vertex, which it can certify.
		{"identity", []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, true},
		{"NaN entry", []float64{0, 1, 1, 1, nan, 1, 1, 1, 0}, false},
		{"all NaN", []float64{nan, nan, nan, nan, nan, nan, nan, nan, nan}, false},
		{"Inf entry", []float64{0, math.Inf(1), 0, math.Inf(1), 0, 0, 0, 0, 0}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSolver(3)
			pi := make([]float64, 3)
			_, fb := s.Solve(c.g, pi)
			sum := 0.0
			for _, p := range pi {
				if !(p >= 0) || math.IsInf(p, 0) {
					t.Fatalf("pi = %v", pi)
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("pi = %v sums to %v", pi, sum)
			}
			st := s.Stats()
			if !fb || st.Fallbacks != 1 {
				t.Errorf("fallback = %v, stats %+v: want the fallback to run", fb, st)
			}
			if certified := st.Uncertified == 0; certified != c.wantCertified {
				t.Errorf("certified = %v, want %v", certified, c.wantCertified)
			}
		})
	}
}
