package remax

import (
	"math"
	"math/rand/v2"
	"testing"
)

const eps = 0x1p-52

// paperG is Equation (pairwise-G) written literally, with math.Erfc:
// mu_i Phi(z) + mu_j Phi(-z) + s phi(z).
func paperG(mui, muj, v float64) float64 {
	s := math.Sqrt(v)
	z := (mui - muj) / s
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return mui*cdf(z) + muj*cdf(-z) + s*math.Exp(-0.5*z*z)/math.Sqrt(2*math.Pi)
}

func TestPosPart(t *testing.T) {
	// 40-digit references from mpmath: npdf(a) - a*ncdf(-a).
	refs := []struct{ a, h float64 }{
		{0, 0.39894228040143267794},
		{0.001, 0.39844247987255625605},
		{0.1, 0.3509353312047146611},
		{0.5, 0.19779655740130602959},
		{1, 0.083315470587686298383},
		{1.7, 0.018287790687363758013},
		{2.5, 0.0020041371791281994447},
		{3.3, 0.00012726926918721546372},
		{4, 7.145258432405666759e-6},
		{5.25, 1.3586671747342338566e-8},
		{6, 1.5635697959709664279e-10},
		{7.5, 4.1151778345837655049e-15},
		{9, 1.2247791808434896568e-20},
		{11, 1.7093721560810266206e-29},
		{11.99, 1.6493426211526783031e-34},
	}
	for _, r := range refs {
		// The table is accurate to < 7 ulp over [0, 12) (checked on a
		// dense grid against mpmath while building it); 16 ulp allows for
		// the rounding of the reference to 20 digits... and then some.
		if got := posPart(r.a); math.Abs(got-r.h) > 16*eps*r.h {
			t.Errorf("h(%v) = %.17g, want %.17g (rel err %.2g)", r.a, got, r.h, (got-r.h)/r.h)
		}
	}
	// Dense comparison against the direct formula, which cancels: its own
	// relative error is about eps (1+a^2)^2 (the subtraction loses a
	// factor ~1+a^2, the rounding of a/sqrt2 inside erfc another ~a^2).
	for a := 0.0; a < 13; a += 0.000731 {
		got, ref := posPart(a), posPartSlow(a)
		tol := 8 * eps * (1 + a*a) * (1 + a*a) * ref
		if math.Abs(got-ref) > tol {
			t.Fatalf("h(%v) = %.17g, direct formula %.17g", a, got, ref)
		}
	}
	// Continuity: neighbouring cells' polynomials agree at their common
	// boundary (each is within a few ulp of h there), and the last cell
	// meets the direct formula at hMax (whose own error is ~1e-11
	// relative there, see posPartSlow).
	for i := 1; i < hMax*hInv; i++ {
		lo := cellPoly(&hTab[i-1], 0.5/hInv)
		hi := cellPoly(&hTab[i], -0.5/hInv)
		if math.Abs(lo-hi) > 16*eps*hi {
			t.Errorf("h jumps at %v: %.17g vs %.17g", float64(i)/hInv, lo, hi)
		}
	}
	if lo, hi := cellPoly(&hTab[hMax*hInv-1], 0.5/hInv), posPartSlow(hMax); math.Abs(lo-hi) > 1e-10*hi {
		t.Errorf("h jumps at %v: %.17g vs %.17g", hMax, lo, hi)
	}
}

func TestExpectedMaxPaperForm(t *testing.T) {
	// ExpectedMax must be Equation (pairwise-G) in a different algebraic
	// form. Both forms round relative to the magnitudes involved: the
	// literal one sums mu Phi terms of size |mu_i|+|mu_j| and s phi(z) of
	// size s, so they agree to a few eps (|mu_i|+|mu_j|+s).
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		mui, muj := rng.NormFloat64(), rng.NormFloat64()
		if n%3 == 0 {
			muj = mui + 1e-6*rng.NormFloat64() // near ties
		}
		v := math.Exp(rng.Float64()*20 - 14) // variances 1e-6 .. 4e2
		got, want := ExpectedMax(mui, muj, v), paperG(mui, muj, v)
		if tol := 8 * eps * (math.Abs(mui) + math.Abs(muj) + math.Sqrt(v)); math.Abs(got-want) > tol {
			t.Fatalf("ExpectedMax(%v, %v, %v) = %.17g, paper form %.17g", mui, muj, v, got, want)
		}
		if ExpectedMax(mui, muj, v) != ExpectedMax(muj, mui, v) {
			t.Fatalf("ExpectedMax not symmetric at (%v, %v, %v)", mui, muj, v)
		}
	}
}

func TestGMonteCarlo(t *testing.T) {
	// G_ij = E[max(theta_i, theta_j)] off the diagonal and G_ii =
	// E[theta_i] = mu_i on it, against 1e6 posterior draws. The tolerance is
	// 5 standard errors of the Monte Carlo mean (failure probability < 1e-6
	// per entry), the standard error estimated from the same draws.
	cases := []struct {
		name string
		mu   []float64
		s2   []float64
	}{
		{"separated", []float64{0.9, 0.8, 0.2}, []float64{0.01, 0.04, 0.09}},
		{"tied", []float64{0.5, 0.5, 0.5}, []float64{1, 0.25, 1e-4}},
		{"negative-huge-var", []float64{-3, 1, 0}, []float64{25, 4, 0.5}},
	}
	const draws = 1_000_000
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := len(c.mu)
			g := make([]float64, k*k)
			FillG(g, c.mu, c.s2)
			sum := make([]float64, k*k)
			sq := make([]float64, k*k)
			th := make([]float64, k)
			for n := 0; n < draws; n++ {
				for i := range th {
					th[i] = c.mu[i] + math.Sqrt(c.s2[i])*rng.NormFloat64()
				}
				for i := 0; i < k; i++ {
					for j := 0; j < k; j++ {
						x := max(th[i], th[j]) // = theta_i on the diagonal
						sum[i*k+j] += x
						sq[i*k+j] += x * x
					}
				}
			}
			for e := range g {
				mean := sum[e] / draws
				se := math.Sqrt((sq[e]/draws - mean*mean) / draws)
				if math.Abs(g[e]-mean) > 5*se {
					t.Errorf("G[%d][%d] = %.6f, Monte Carlo %.6f ± %.6f", e/k, e%k, g[e], mean, se)
				}
			}
			// The diagonal convention: the pairwise formula applied to two
			// independent copies would be larger by sigma_i/sqrt(pi).
			for i := 0; i < k; i++ {
				twin := ExpectedMax(c.mu[i], c.mu[i], 2*c.s2[i])
				want := c.mu[i] + math.Sqrt(c.s2[i]/math.Pi)
				if math.Abs(twin-want) > 1e-14*(math.Abs(want)+1) || g[i*k+i] != c.mu[i] {
					t.Errorf("arm %d: G_ii = %v (want mu_i = %v); twin formula %v, want %v", i, g[i*k+i], c.mu[i], twin, want)
				}
			}
		})
	}
}

func TestUpdateGMatchesFill(t *testing.T) {
	// The incremental row/column update must reproduce the full
	// recomputation exactly (same arithmetic), after any observation
	// sequence, including one that drives a variance very small.
	for _, k := range []int{2, 3, 10, 31} {
		rng := rand.New(rand.NewPCG(uint64(k), 5))
		mu := make([]float64, k)
		n := make([]float64, k)
		s2 := make([]float64, k)
		for i := range mu {
			mu[i] = rng.NormFloat64()
			n[i] = 1
			s2[i] = 1
		}
		g := make([]float64, k*k)
		full := make([]float64, k*k)
		FillG(g, mu, s2)
		for step := 0; step < 3000; step++ {
			a := rng.IntN(k)
			if step%2 == 0 {
				a = 0 // one heavily sampled arm
			}
			n[a]++
			mu[a] += (mu[a] + 0.3*rng.NormFloat64() - mu[a]) / n[a]
			s2[a] = 2 / n[a]
			UpdateG(g, mu, s2, a)
		}
		FillG(full, mu, s2)
		for e := range g {
			if g[e] != full[e] {
				t.Fatalf("K=%d: G[%d][%d] incremental %.17g, full %.17g", k, e/k, e%k, g[e], full[e])
			}
		}
	}
}
