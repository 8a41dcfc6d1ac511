package remax

import "math"

// ExpectedMax returns E[max(theta_i, theta_j)] for independent Gaussians
// theta_i ~ N(mui, .) and theta_j ~ N(muj, .) whose variances sum to v > 0:
// the off-diagonal entry of the pairwise matrix of Equation (pairwise-G),
//
//	G_ij = mu_i Phi(z) + mu_j Phi(-z) + s phi(z),  z = (mu_i-mu_j)/s,  s^2 = v.
//
// It is evaluated in the algebraically equal, cancellation-free form
// max(mu_i, mu_j) + s h(|z|) with h(a) = phi(a) - a Phi(-a) = E[(Z-a)_+]
// (Appendix, Gaussian positive-part identity), so the large common part
// max(mu_i, mu_j) is never formed as a difference of two products. For v == 0
// it returns max(mui, muj).
func ExpectedMax(mui, muj, v float64) float64 {
	d := mui - muj
	m := mui
	if d < 0 {
		d, m = -d, muj
	}
	if !(v > 0) {
		return m
	}
	s := math.Sqrt(v)
	return m + s*posPart(d/s)
}

// FillG writes into g (row-major K×K, K = len(mu)) the pairwise matrix of
// Equation (pairwise-G) for the posteriors N(mu[i], s2[i]): G_ij =
// E[max(theta_i, theta_j)] for i != j and, by the paper's diagonal convention,
// G_ii = mu_i = E[theta_i] (the formula itself would give E max of two
// independent copies, too large by sigma_i/sqrt(pi)). G is symmetric.
func FillG(g, mu, s2 []float64) {
	k := len(mu)
	_ = g[k*k-1]
	_ = s2[k-1]
	for i := 0; i < k; i++ {
		g[i*k+i] = mu[i]
		for j := i + 1; j < k; j++ {
			x := ExpectedMax(mu[i], mu[j], s2[i]+s2[j])
			g[i*k+j] = x
			g[j*k+i] = x
		}
	}
}

// UpdateG recomputes row and column a of the pairwise matrix g after the
// posterior of arm a changed (one observation changes only mu[a] and
// s2[a]): K-1 entries instead of K(K-1)/2. The result is bit-for-bit the
// matrix FillG would produce.
//
// This is the hot loop of a round, so ExpectedMax, posPart and cellPoly
// are inlined by hand (the compiler does not: they exceed its budget); the
// arithmetic is the same, operation for operation, which
// TestUpdateGMatchesFill checks bit for bit.
func UpdateG(g, mu, s2 []float64, a int) {
	k := len(mu)
	row := g[a*k : a*k+k]
	mu, s2 = mu[:k], s2[:k]
	mua, s2a := mu[a], s2[a]
	for j := 0; j < k; j++ {
		if j == a {
			row[j] = mua
			continue
		}
		// ExpectedMax(mua, mu[j], s2a+s2[j]). Argument order does not
		// matter: |mu_i - mu_j|, max(mu_i, mu_j) and s2_i + s2_j are exact
		// or correctly rounded in either order, so FillG agrees bit for bit.
		m, d := mua, mua-mu[j]
		if d < 0 {
			m, d = mu[j], -d
		}
		v := s2a + s2[j]
		x := m
		if v > 0 {
			s := math.Sqrt(v)
			z := d / s
			var h float64
			if z < hMax {
				i := int(z * hInv)
				c := &hTab[i]
				t := z - (float64(i)+0.5)*(1.0/hInv)
				// cellPoly, inlined.
				t2 := t * t
				t4 := t2 * t2
				t8 := t4 * t4
				q0 := (c[0] + c[1]*t) + (c[2]+c[3]*t)*t2
				q1 := (c[4] + c[5]*t) + (c[6]+c[7]*t)*t2
				q2 := (c[8] + c[9]*t) + (c[10]+c[11]*t)*t2
				q3 := (c[12] + c[13]*t) + (c[14]+c[15]*t)*t2
				h = (q0 + q1*t4) + (q2+q3*t4)*t8
			} else {
				h = posPartSlow(z)
			}
			x = m + s*h
		}
		row[j] = x
		g[j*k+a] = x
	}
}

// posPart returns h(a) = E[(Z-a)_+] = phi(a) - a Phi(-a) for a >= 0, Z
// standard normal. This is the only transcendental function needed per
// entry of G, evaluated K-1 times per round, so it is tabulated: on
// [0, hMax) by Taylor polynomials of degree hDeg around the midpoints of
// cells of width 1/hInv (see hTab). Checked against a 40-digit mpmath
// reference on 24,000 points, the relative error is below 7 ulp on the
// whole table range; TestPosPart checks it against math.Erfc.
//
// Why not math.Erfc: h by math.Erfc + math.Exp (posPartSlow) is ~7 times
// slower than the table (BenchmarkPosPart, 80 arguments in [0, 8): 20184 vs
// 2917 ns/op in one run on a heavily shared 2-core machine; 6638 vs 1049 on
// a quieter run), and at K = 80 the row update of G needs 79 of them per
// round against a budget of ~3.9 us for the whole round.
func posPart(a float64) float64 {
	if a < hMax {
		i := int(a * hInv)
		return cellPoly(&hTab[i], a-(float64(i)+0.5)*(1.0/hInv))
	}
	return posPartSlow(a)
}

// cellPoly evaluates a table polynomial at offset t from its cell centre
// by Estrin's scheme: a shorter dependency chain than Horner, which matters
// for K = 2, where one h is on the critical path of a round.
func cellPoly(c *[hDeg + 1]float64, t float64) float64 {
	t2 := t * t
	t4 := t2 * t2
	t8 := t4 * t4
	q0 := (c[0] + c[1]*t) + (c[2]+c[3]*t)*t2
	q1 := (c[4] + c[5]*t) + (c[6]+c[7]*t)*t2
	q2 := (c[8] + c[9]*t) + (c[10]+c[11]*t)*t2
	q3 := (c[12] + c[13]*t) + (c[14]+c[15]*t)*t2
	return (q0 + q1*t4) + (q2+q3*t4)*t8
}

// posPartSlow evaluates h(a) = phi(a) - a Phi(-a) directly, for a beyond
// the table. There the cancellation costs relative accuracy (~1e-11), but
// h(12) < 1e-34, so the absolute error is negligible next to
// max(mu_i, mu_j) in G.
func posPartSlow(a float64) float64 {
	if a > 40 {
		return 0 // phi(40) underflows
	}
	h := math.Exp(-0.5*a*a)/math.Sqrt(2*math.Pi) - a*0.5*math.Erfc(a/math.Sqrt2)
	return max(h, 0)
}

const (
	hInv = 8  // cells per unit of a
	hMax = 12 // the table covers a in [0, hMax)
	hDeg = 15 // polynomial degree per cell
)

// hTab[i] holds the Taylor coefficients of h around c_i = (i+0.5)/hInv.
//
// The two leading coefficients, h(c) and h'(c) = -Phi(-c), are not computed
// as phi(c) - c Phi(-c) and math.Erfc(c/sqrt2)/2: the first cancels, and the
// rounding of c/sqrt2 costs the second ~c^2 ulp (both reach 1e-14 relative
// near a = 8). Instead both are propagated downwards from far in the tail,
// h(c-w) = h(c) + integral of Phi(-x) and Phi(-(c-w)) = Phi(-c) + integral
// of phi over [c-w, c], w = 1/hInv, by evaluating the Taylor polynomials at
// t = -w: every term adds with the same sign, so the relative error stays at
// a few ulp per cell, and the (crude) asymptotic start values at a = 30 are
// damped by factors below exp(-300) before they reach the stored cells.
// Only phi(c) = exp(-c^2/2)/sqrt(2 pi), with c^2 exact, is computed
// directly.
var hTab = func() (tab [hMax * hInv][hDeg + 1]float64) {
	const top = 30 * hInv // start of the downward recursion
	// The propagation step evaluates at a whole cell width, not half of it,
	// so it uses more terms than the stored polynomials (degree 40: the
	// remainder (c w)^41/41! is below 1e-30 relative for c <= 30).
	const deg = 40
	var h, q, p [deg + 2]float64
	c := (float64(top) + 0.5) / hInv
	r := 1 / (c * c)
	phi := math.Exp(-0.5*c*c) / math.Sqrt(2*math.Pi)
	hc := phi * r * (1 - 3*r*(1-5*r)) // h(a) ~ phi(a)(a^-2 - 3a^-4 + ...)
	qc := phi / c * (1 - r*(1-3*r))   // Phi(-a) ~ phi(a)(a^-1 - a^-3 + ...)
	for i := top; i >= 0; i-- {
		c := (float64(i) + 0.5) / hInv
		phi := math.Exp(-0.5*c*c) / math.Sqrt(2*math.Pi)
		// p[n] = phi^(n)(c)/n!: (n+1) p[n+1] = -c p[n] - p[n-1], from
		// phi' = -a phi.
		p[0], p[1] = phi, -c*phi
		for n := 1; n+1 < len(p); n++ {
			p[n+1] = (-c*p[n] - p[n-1]) / float64(n+1)
		}
		// h' = -Phi(-a), h'' = phi: h^(n+2)/(n+2)! = p[n]/((n+1)(n+2)).
		h[0], h[1] = hc, -qc
		for n := 0; n+2 <= deg; n++ {
			h[n+2] = p[n] / float64((n+1)*(n+2))
		}
		// Phi(-a)' = -phi: q[n+1] = -p[n]/(n+1).
		q[0] = qc
		for n := 0; n+1 <= deg; n++ {
			q[n+1] = -p[n] / float64(n+1)
		}
		if i < len(tab) {
			copy(tab[i][:], h[:hDeg+1])
		}
		t := -1.0 / hInv
		hc, qc = 0, 0
		for n := deg; n >= 0; n-- {
			hc = hc*t + h[n]
			qc = qc*t + q[n]
		}
	}
	return tab
}()
