package remax

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Solver computes the exact M = 2 ReMax policy
//
//	pi = argmax over the simplex of pi^T G pi,
//
// for a symmetric K×K matrix G whose quadratic form is negative definite on
// the sum-zero subspace (true of the Gaussian expected-max matrix of
// Equation (pairwise-G) whenever every posterior variance is positive, so the
// maximiser is unique). It implements the primal-dual active-set method of
// Algorithm 1, warm-started from the previous call's support, with a closed
// form for K = 2 and a convergent fallback; every answer it returns as
// certified satisfies the KKT conditions of Proposition 1.
//
// A Solver keeps the active set of its last call and is not safe for
// concurrent use. It allocates only in NewSolver.
type Solver struct {
	k     int
	in    []bool    // current active set (warm start across calls)
	act   []int     // its members, ascending
	red   []int     // act without the reference arm, in reduced-system order
	m     []float64 // reduced KKT matrix of Equation (remax-kkt), then its Cholesky factor
	x     []float64 // right-hand side, then solution, of the reduced system
	gpi   []float64 // G pi
	p     []float64 // fallback: equality-constrained maximiser on the working set
	warm  bool
	stats SolverStats
}

// SolverStats counts what a Solver did since it was created.
type SolverStats struct {
	Solves      int // calls of Solve
	Iterations  int // active-set solves of Algorithm 1 (about one per call when warm)
	Fallbacks   int // calls in which Algorithm 1 failed and the fallback ran
	Uncertified int // calls whose answer could not be certified (never seen)
}

// NewSolver returns a Solver for K = k arms, with all scratch space
// preallocated.
func NewSolver(k int) *Solver {
	if k < 1 {
		panic("remax: NewSolver: k < 1")
	}
	return &Solver{
		k:   k,
		in:  make([]bool, k),
		act: make([]int, 0, k),
		red: make([]int, 0, k),
		m:   make([]float64, k*k),
		x:   make([]float64, k),
		gpi: make([]float64, k),
		p:   make([]float64, k),
	}
}

// Support returns the arms of the last solution's active set, ascending:
// a superset of the support of pi (it may hold arms with pi_i = 0). The
// slice is owned by the Solver and valid until the next Solve.
func (s *Solver) Support() []int {
	if s.k <= 2 {
		return nil
	}
	return s.act
}

// Stats returns the solver's counters.
func (s *Solver) Stats() SolverStats { return s.stats }

// Reset forgets the warm start, so that the next Solve starts, like
// Algorithm 1, from the active set of all arms.
func (s *Solver) Reset() { s.warm = false }

// Solve writes into pi (length K) the maximiser of pi^T G pi over the
// simplex, for g the row-major K×K matrix G (only read), and returns the
// optimal value lambda = pi^T G pi, which is also the KKT multiplier of the
// simplex constraint: (G pi)_i = lambda on the support of pi and
// (G pi)_i <= lambda off it (Proposition 1; (G pi)_i is the posterior
// expected improvement of arm i plus the constant mu^T pi, Equation
// (EI_weighted_sum)).
//
// fallback reports that Algorithm 1 did not converge to a certified point
// (cycling of the active set, or a numerically indefinite reduced system)
// and the answer came from the fallback, a primal active-set method. The
// returned pi is always a finite point of the simplex.
func (s *Solver) Solve(g, pi []float64) (lambda float64, fallback bool) {
	k := s.k
	_ = g[k*k-1]
	_ = pi[k-1]
	s.stats.Solves++
	switch k {
	case 1:
		pi[0] = 1
		return g[0], false
	case 2:
		return solve2(g, pi), false
	}
	if lambda, ok := s.activeSet(g, pi); ok {
		return lambda, false
	}
	s.stats.Fallbacks++
	lambda, ok := s.primal(g, pi)
	if !ok {
		s.stats.Uncertified++
	}
	return lambda, true
}

// solve2 is the closed form for K = 2, Equation (ratio-balance):
// pi_2/pi_1 = E[(theta_2-theta_1)_+] / E[(theta_1-theta_2)_+], where the
// expected improvements are G_12 - G_11 and G_12 - G_22. Both are positive
// for positive variances, so the optimum is interior.
func solve2(g, pi []float64) float64 {
	p21 := g[1] - g[0] // E[(theta_2 - theta_1)_+]
	p12 := g[1] - g[3] // E[(theta_1 - theta_2)_+]
	if p21 < 0 {       // only through rounding
		p21 = 0
	}
	if p12 < 0 {
		p12 = 0
	}
	den := p12 + p21
	switch {
	case den > 0 && den <= math.MaxFloat64:
		pi[1] = p21 / den
		pi[0] = 1 - pi[1]
	case g[0] >= g[3]: // degenerate (zero variance): a vertex is optimal
		pi[0], pi[1] = 1, 0
	default:
		pi[0], pi[1] = 0, 1
	}
	if pi[0] > 0 {
		return pi[0]*g[0] + pi[1]*g[1] // (G pi)_1 = lambda on the support
	}
	return g[3]
}

// kktTol is the relative tolerance of the KKT tests. The rounding error of
// (G pi)_i is below |S| eps sum_j |G_ij| pi_j <= 2 |S| eps scale (for an
// expected-max matrix G_ij >= max(G_ii, G_jj), which bounds its negative
// part by max|G_jj|), at most 3.6e-14 scale for |S| <= 80; the stationarity
// residual of a backward-stable Cholesky solve of the reduced system adds
// a few times |S| eps max|M| <= 8 |S| eps scale. 1e-11 leaves a margin of
// two orders of magnitude over both, and an arm whose violation is below it
// changes the objective by less than violation^2/curvature, far below 1e-15.
const kktTol = 1e-11

// maxIter caps the active-set iterations of Algorithm 1 before the
// fallback takes over. Warm-started, one iteration is the rule and two or
// three the exception; the simultaneous drop/add step can cycle when G is
// not an M-matrix, and the cap bounds the time lost to that.
func (s *Solver) maxIter() int { return 8 + s.k/4 }

// activeSet runs Algorithm 1 from the warm-start active set and reports
// whether it reached a certified KKT point.
func (s *Solver) activeSet(g, pi []float64) (float64, bool) {
	k := s.k
	if !s.warm {
		for i := range s.in {
			s.in[i] = true // Algorithm 1, line 4
		}
		s.warm = true
	}
	s.collect()
	for it := 0; it < s.maxIter(); it++ {
		s.stats.Iterations++
		if !s.eqp(g, s.act, pi) {
			break
		}
		lambda, scale := s.evalGpi(g, pi, s.act)
		tol := kktTol * scale
		if !(tol <= math.MaxFloat64) {
			return 0, false // non-finite G
		}
		// Multiplier estimate for the update rule: the mean of (G pi)_i on
		// the active set (all equal up to rounding by construction).
		var mean float64
		for _, i := range s.act {
			mean += s.gpi[i]
		}
		mean /= float64(len(s.act))
		changed := false
		for i := 0; i < k; i++ {
			if s.in[i] {
				if pi[i] < 0 { // primal infeasible: drop
					s.in[i] = false
					changed = true
				}
			} else if s.gpi[i] > mean+tol { // dual infeasible: re-add
				s.in[i] = true
				changed = true
			}
		}
		if !changed {
			// pi >= 0 on the support and dual feasible; certify
			// stationarity (guards against an ill-conditioned solve).
			for _, i := range s.act {
				if math.Abs(s.gpi[i]-lambda) > tol {
					return 0, false
				}
			}
			return lambda, true
		}
		s.collect()
		if len(s.act) == 0 {
			// Every arm was primal infeasible (only possible through
			// rounding): restart from the best-mean arm.
			s.in[argmaxDiag(g, k)] = true
			s.collect()
		}
	}
	return 0, false
}

// collect rebuilds s.act from s.in.
func (s *Solver) collect() {
	s.act = s.act[:0]
	for i, a := range s.in {
		if a {
			s.act = append(s.act, i)
		}
	}
}

// evalGpi computes s.gpi = G pi for pi supported on set, and returns
// lambda = pi^T G pi and the scale of the KKT tolerance,
// max(max_i |G_ii|, max_i |(G pi)_i|), or NaN if either is not finite, so
// that no KKT test can pass.
func (s *Solver) evalGpi(g, pi []float64, set []int) (lambda, scale float64) {
	k := s.k
	gpi := s.gpi
	for i := range gpi {
		gpi[i] = 0
	}
	// G is symmetric, so G pi is a sum of the support's rows: contiguous
	// axpys instead of K gathers.
	for _, j := range set {
		floats.AddScaled(gpi, pi[j], g[j*k:j*k+k])
	}
	for _, j := range set {
		lambda += pi[j] * gpi[j]
	}
	var sum float64
	for i := 0; i < k; i++ {
		// Plain comparisons: the builtin max's NaN and -0 handling costs
		// more than the loop body; non-finite values are caught by sum.
		if a := math.Abs(g[i*k+i]); a > scale {
			scale = a
		}
		if a := math.Abs(gpi[i]); a > scale {
			scale = a
		}
		sum += gpi[i] + g[i*k+i]
	}
	if sum-sum != 0 { // a NaN or Inf in G pi or on the diagonal
		return lambda, math.NaN()
	}
	return lambda, scale
}

// eqp solves the equality part of the KKT system on the arm set `set`:
// (G pi)_i = lambda for i in set, pi_i = 0 off it, sum pi = 1. Following
// Equation (remax-kkt), it eliminates pi_r = 1 - sum_{i != r} pi_i for a
// reference arm r in set (the one with the largest mean, which is the last
// to leave the support) and solves
//
//	A x = b,  A_ij = G_ij + G_rr - G_ir - G_rj,  b_i = G_rr - G_ir.
//
// A = V^T G V with V = [e_i - e_r] is the restriction of G's quadratic form
// to the sum-zero subspace, so -A is symmetric positive definite and is
// solved by Cholesky (no pivoting needed, no indefinite bordered system).
// eqp writes pi (zero off set) and reports false if -A is numerically not
// positive definite.
func (s *Solver) eqp(g []float64, set []int, pi []float64) bool {
	k := s.k
	for i := range pi {
		pi[i] = 0
	}
	r := set[0]
	for _, i := range set[1:] {
		if g[i*k+i] > g[r*k+r] {
			r = i
		}
	}
	if len(set) == 1 {
		pi[r] = 1
		return true
	}
	red := s.red[:0]
	for _, i := range set {
		if i != r {
			red = append(red, i)
		}
	}
	n := len(red)
	grow := g[r*k : r*k+k] // row r = column r
	grr := grow[r]
	m, x := s.m[:n*n], s.x[:n]
	for p, i := range red {
		gri := grow[i]
		gi := g[i*k : i*k+k]
		mp := m[p*n : p*n+p+1]
		for q, j := range red[:p+1] {
			mp[q] = gri + grow[j] - gi[j] - grr // -A, lower triangle
		}
		x[p] = gri - grr // -b
	}
	if !cholSolve(m, n, x) {
		return false
	}
	sum := 0.0
	for p, i := range red {
		pi[i] = x[p]
		sum += x[p]
	}
	pi[r] = 1 - sum
	return true
}

// cholSolve overwrites the lower triangle of the n×n symmetric matrix a
// (row-major, stride n) with its Cholesky factor L and b with the solution
// of a x = b. It reports false if a is not numerically positive definite.
//
// Hand-written rather than gonum's lapack Dpotrf + Dpotrs because it is
// measurably faster at these sizes (BenchmarkCholesky, same run, best of 3,
// ns/op; the machine was shared, so the ratios are the information):
// n=4: 653 vs 1821, n=9: 2422 vs 6355, n=20: 5909 vs 14617, n=30: 13241 vs
// 43150, n=79: 165346 vs 295239. In the benchmarked bandit states the
// reduced system has n = support-1 <= ~10, where gonum's per-call overhead
// dominates. It is also allocation-free without interface conversions.
func cholSolve(a []float64, n int, b []float64) bool {
	for j := 0; j < n; j++ {
		rj := a[j*n : j*n+j+1]
		d := rj[j] - dot(rj[:j], rj[:j])
		if !(d > 0) || math.IsInf(d, 0) {
			return false
		}
		d = math.Sqrt(d)
		rj[j] = d
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			ri := a[i*n : i*n+j+1]
			ri[j] = (ri[j] - dot(ri[:j], rj[:j])) * inv
		}
	}
	// L y = b.
	for i := 0; i < n; i++ {
		ri := a[i*n : i*n+i+1]
		b[i] = (b[i] - dot(ri[:i], b[:i])) / ri[i]
	}
	// L^T x = y.
	for i := n - 1; i >= 0; i-- {
		v := b[i]
		for j := i + 1; j < n; j++ {
			v -= a[j*n+i] * b[j]
		}
		b[i] = v / a[i*n+i]
	}
	return true
}

// dot is a plain dot product; for the short rows of the reduced system it
// beats a call into an assembly kernel.
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1 float64
	i := 0
	for ; i+1 < len(x); i += 2 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
	}
	if i < len(x) {
		s0 += x[i] * y[i]
	}
	return s0 + s1
}

// argmaxDiag returns the arm with the largest G_ii (posterior mean).
func argmaxDiag(g []float64, k int) int {
	b := 0
	for i := 1; i < k; i++ {
		if g[i*k+i] > g[b*k+b] {
			b = i
		}
	}
	return b
}

// primal is the fallback: a primal active-set method for the concave QP
// (Nocedal & Wright, Algorithm 16.3, on the simplex). It starts at the
// vertex of the best-mean arm and keeps pi feasible throughout; each
// working-set maximiser is found with the same reduced solve as eqp. A
// step towards an infeasible maximiser stops at the first blocking bound,
// which leaves the working set; at a feasible maximiser the most violated
// dual condition (G pi)_j > lambda adds arm j. Since the objective is
// strictly concave on the simplex, the objective increases strictly between
// distinct working-set maximisers, so no working set repeats and the method
// terminates (finitely, without the cycling risk of the simultaneous
// primal-dual update). Its end point is certified by the same KKT test.
// It reports whether it reached a certified point; pi is a finite point of
// the simplex either way.
func (s *Solver) primal(g, pi []float64) (float64, bool) {
	k := s.k
	b := argmaxDiag(g, k)
	for i := range pi {
		pi[i] = 0
		s.in[i] = false
	}
	pi[b] = 1
	s.in[b] = true
	s.collect()
	certified := false
	for it := 0; it < 4*k+20; it++ {
		if !s.eqp(g, s.act, s.p) {
			break
		}
		// Step length to the working-set maximiser.
		alpha, block := 1.0, -1
		for _, i := range s.act {
			if s.p[i] < 0 {
				if a := pi[i] / (pi[i] - s.p[i]); a < alpha {
					alpha, block = a, i
				}
			}
		}
		if block >= 0 {
			for _, i := range s.act {
				pi[i] += alpha * (s.p[i] - pi[i])
			}
			pi[block] = 0
			s.in[block] = false
			for _, i := range s.act {
				if pi[i] <= 0 { // blocked at the same time
					pi[i] = 0
					s.in[i] = false
				}
			}
			s.collect()
			continue
		}
		copy(pi, s.p)
		lambda, scale := s.evalGpi(g, pi, s.act)
		tol := kktTol * scale
		if !(tol <= math.MaxFloat64) {
			break // non-finite G: nothing can be certified
		}
		add, worst := -1, tol
		for i := 0; i < k; i++ {
			if !s.in[i] && s.gpi[i]-lambda > worst {
				add, worst = i, s.gpi[i]-lambda
			}
		}
		if add < 0 {
			certified = true
			for _, i := range s.act {
				if math.Abs(s.gpi[i]-lambda) > tol {
					certified = false
				}
			}
			break
		}
		s.in[add] = true
		s.collect()
	}
	// pi is feasible by construction; make sure it is finite and sums to 1
	// exactly enough even if the loop broke down.
	sum := 0.0
	for _, v := range pi {
		sum += v
	}
	if !(sum > 0) || math.IsInf(sum, 0) || math.IsNaN(sum) {
		for i := range pi {
			pi[i] = 0
			s.in[i] = false
		}
		pi[b], s.in[b] = 1, true
		certified = false
	} else if !certified {
		for i := range pi {
			pi[i] /= sum
		}
	}
	// The support of the answer is the next call's warm start.
	for i := range pi {
		s.in[i] = pi[i] > 0
	}
	s.collect()
	s.warm = true
	lambda, _ := s.evalGpi(g, pi, s.act)
	return lambda, certified
}
