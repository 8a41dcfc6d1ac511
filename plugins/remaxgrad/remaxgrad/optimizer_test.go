package remaxgrad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pairwiseG returns the expected-max matrix of independent Gaussians
// N(mu_i, s_i^2) (eq. pairwise-G) with G_ii = mu_i.
func pairwiseG(mu, s []float64) [][]float64 {
	k := len(mu)
	g := make([][]float64, k)
	for i := range g {
		g[i] = make([]float64, k)
		for j := range g[i] {
			if i == j {
				g[i][j] = mu[i]
				continue
			}
			sij := math.Hypot(s[i], s[j])
			zz := (mu[i] - mu[j]) / sij
			cdf := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
			g[i][j] = mu[i]*cdf(zz) + mu[j]*cdf(-zz) + sij*math.Exp(-zz*zz/2)/math.Sqrt(2*math.Pi)
		}
	}
	return g
}

// quadOptimum maximises pi^T G pi over the simplex by support enumeration:
// on each support the stationary point solves G_SS pi = lambda 1, 1^T pi = 1;
// the best feasible one is the global maximum, which is stationary on the
// face of its own support. Independent of the package's code (K <= 4).
func quadOptimum(g [][]float64) []float64 {
	k := len(g)
	var best []float64
	bestJ := math.Inf(-1)
	for mask := 1; mask < 1<<k; mask++ {
		var sup []int
		for i := range k {
			if mask&(1<<i) != 0 {
				sup = append(sup, i)
			}
		}
		n := len(sup) + 1
		a := make([][]float64, n) // unknowns pi_S, lambda
		for r := range a {
			a[r] = make([]float64, n+1)
		}
		for r, i := range sup {
			for c, j := range sup {
				a[r][c] = g[i][j]
			}
			a[r][n-1] = -1
		}
		for c := range sup {
			a[n-1][c] = 1
		}
		a[n-1][n] = 1
		x, ok := solve(a)
		if !ok {
			continue
		}
		pi := make([]float64, k)
		feasible := true
		for r, i := range sup {
			pi[i] = x[r]
			feasible = feasible && x[r] >= -1e-12
		}
		if !feasible {
			continue
		}
		var j float64
		for i := range k {
			for l := range k {
				j += pi[i] * g[i][l] * pi[l]
			}
		}
		if j > bestJ {
			best, bestJ = pi, j
		}
	}
	return best
}

// solve solves the augmented system a by Gaussian elimination with partial
// pivoting.
func solve(a [][]float64) ([]float64, bool) {
	n := len(a)
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-14 {
			return nil, false
		}
		a[c], a[p] = a[p], a[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for cc := c; cc <= n; cc++ {
				a[r][cc] -= f * a[c][cc]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := a[r][n]
		for c := r + 1; c < n; c++ {
			s -= a[r][c] * x[c]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}

// sampleG is the M=2 sample-average objective as a quadratic: J = pi^T Ghat
// pi with Ghat_ij = mean_s max(theta_si, theta_sj), Ghat_ii = mean_s theta_si
// (the same theta_i is reused when an arm is drawn twice).
func sampleG(samples [][]float64) [][]float64 {
	k := len(samples[0])
	g := make([][]float64, k)
	for i := range g {
		g[i] = make([]float64, k)
	}
	for _, th := range samples {
		for i := range k {
			for j := range k {
				g[i][j] += max(th[i], th[j]) / float64(len(samples))
			}
		}
	}
	return g
}

// TestConvergesToExactReMax runs the optimizer for M = 2 on many fixed
// posterior samples and compares its pi with the exact ReMax policy
// argmax pi^T G pi of the Gaussian posterior (Algorithm 1's target).
//
// The sample objective is exactly pi^T Ghat pi with E[Ghat] = G (checked
// below to 1e-12), so the optimizer targets pi*(Ghat), which differs from
// pi*(G) by Monte-Carlo error. The test therefore checks (a) the optimizer
// reaches pi*(Ghat) to 2e-3 (Adam with a constant step only approaches an
// optimum to within its step size; lr = 0.01 and 3000 steps leave ~1e-3),
// and (b) |pi - pi*(G)| <= 4 SE + 2e-3, where SE is the Monte-Carlo standard
// error of pi*(Ghat), estimated by batch means over 10 batches: 4 SE bounds
// a normal error with probability > 0.9999.
func TestConvergesToExactReMax(t *testing.T) {
	const S, batches = 20000, 10
	cases := []struct {
		name   string
		mu, sd []float64
	}{
		{"K=2", []float64{0.9, 0.85}, []float64{0.05, 0.1}},
		{"K=3", []float64{0.05, 0.04, 0.03}, []float64{0.01, 0.015, 0.02}},
		{"K=4", []float64{1, 0.9, 0.8, 0.2}, []float64{0.2, 0.25, 0.3, 0.1}}, // arm 3 off the support
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := len(c.mu)
			rng := rand.New(rand.NewPCG(10, uint64(ci)))
			samples := make([][]float64, S)
			for s := range samples {
				samples[s] = make([]float64, k)
				for i := range samples[s] {
					samples[s][i] = c.mu[i] + c.sd[i]*rng.NormFloat64()
				}
			}
			cfg := Config{M: 2, Samples: S, Steps: 3000, LR: 0.01, Tol: 0, VarianceInflation: 1}
			o := NewOptimizer(k, cfg)
			o.SetSamples(samples)
			o.Run()
			pi := slices.Clone(o.CurrentPolicy())

			gh := sampleG(samples)
			q := randSimplex(rng, k)
			var quad float64
			for i := range k {
				for j := range k {
					quad += q[i] * gh[i][j] * q[j]
				}
			}
			if got := o.Objective(q); math.Abs(got-quad) > 1e-12 {
				t.Fatalf("Jhat(q) = %v, q^T Ghat q = %v", got, quad)
			}
			piHat := quadOptimum(gh)
			piExact := quadOptimum(pairwiseG(c.mu, c.sd))
			var mean, m2 []float64 = make([]float64, k), make([]float64, k)
			for b := range batches {
				pb := quadOptimum(sampleG(samples[b*S/batches : (b+1)*S/batches]))
				for i := range k {
					mean[i] += pb[i] / batches
					m2[i] += pb[i] * pb[i] / batches
				}
			}
			for i := range k {
				se := math.Sqrt(max(m2[i]-mean[i]*mean[i], 0) * batches / (batches - 1) / batches)
				if math.Abs(pi[i]-piHat[i]) > 2e-3 {
					t.Errorf("pi[%d] = %.5f, optimum of the sample objective %.5f", i, pi[i], piHat[i])
				}
				if math.Abs(pi[i]-piExact[i]) > 4*se+2e-3 {
					t.Errorf("pi[%d] = %.5f, exact ReMax %.5f (MC standard error %.5f)", i, pi[i], piExact[i], se)
				}
			}
			t.Logf("pi %.4f, pi*(Ghat) %.4f, pi*(G) %.4f, gap %.2e", pi, piHat, piExact, o.ExitGap())
		})
	}
}

// referenceRun is an independent statement of Algorithm 2's inner loop
// from the paper's formulas (reference Gradient per sample, eq. logit-grad,
// the Adam equations with explicit bias corrections). It returns the gaps
// checked before each step and the logits after every step.
func referenceRun(samples [][]float64, z0 []float64, m, steps int, lr float64) (gaps []float64, zs [][]float64) {
	k := len(z0)
	z := slices.Clone(z0)
	mo, ve := make([]float64, k), make([]float64, k)
	pi, g, gs, gz := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	for l := 1; l <= steps; l++ {
		Softmax(pi, z)
		clear(g)
		for _, th := range samples {
			Gradient(gs, th, pi, m)
			for i := range g {
				g[i] += gs[i] / float64(len(samples))
			}
		}
		gaps = append(gaps, KKTGap(g, pi))
		LogitGradient(gz, g, pi)
		for i := range z {
			mo[i] = 0.9*mo[i] + 0.1*gz[i]
			ve[i] = 0.999*ve[i] + 0.001*gz[i]*gz[i]
			mh := mo[i] / (1 - math.Pow(0.9, float64(l)))
			vh := ve[i] / (1 - math.Pow(0.999, float64(l)))
			z[i] += lr * mh / (math.Sqrt(vh) + 1e-8)
		}
		zs = append(zs, slices.Clone(z))
	}
	return gaps, zs
}

func testSamples(rng *rand.Rand, s, k int) [][]float64 {
	out := make([][]float64, s)
	for i := range out {
		out[i] = make([]float64, k)
		for a := range out[i] {
			out[i][a] = 0.02*float64(k-a) + 0.05*rng.NormFloat64()
		}
	}
	return out
}

func closeSlices(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// TestEarlyStop checks the KKT-gap rule of Algorithm 2: the gap is tested
// before each step, a gap <= tol stops with the steps taken so far, and
// otherwise all L steps run. The logits are compared with referenceRun to
// 1e-9: both follow the same arithmetic up to summation order (~1e-15 per
// step), amplified by at most a few orders of magnitude by Adam's
// normalisation over 30 steps.
func TestEarlyStop(t *testing.T) {
	t.Run("zero gradient", func(t *testing.T) {
		// Every arm has the same theta in each sample: g = 0 and gap = 0.
		samples := [][]float64{{1, 1, 1}, {-2, -2, -2}, {0.5, 0.5, 0.5}}
		c := DefaultConfig()
		c.Samples = len(samples)
		o := NewOptimizer(3, c)
		o.SetSamples(samples)
		steps, stopped := o.Run()
		if steps != 0 || !stopped || o.ExitGap() != 0 || !slices.Equal(o.Logits(), []float64{0, 0, 0}) {
			t.Errorf("steps %d, stopped %v, gap %v, z %v; want 0 steps, stopped, gap 0, z 0", steps, stopped, o.ExitGap(), o.Logits())
		}
	})
	rng := rand.New(rand.NewPCG(5, 5))
	const k, L = 6, 30
	samples := testSamples(rng, 40, k)
	gaps, zs := referenceRun(samples, make([]float64, k), 3, L, 0.05)
	// Pick a step l* > 2 whose gap is a new running minimum and stop there.
	stop := -1
	for l := 3; l < L; l++ {
		if gaps[l] < slices.Min(gaps[:l]) {
			stop = l
			break
		}
	}
	if stop < 0 {
		t.Fatalf("gaps %v never reach a new minimum", gaps)
	}
	cases := []struct {
		name      string
		tol       float64
		wantSteps int
		stopped   bool
	}{
		{"stop at a new minimum", gaps[stop], stop, true},
		{"tolerance zero runs all steps", 0, L, false},
		{"huge tolerance stops at once", math.Inf(1), 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewOptimizer(k, Config{M: 3, Samples: len(samples), Steps: L, LR: 0.05, Tol: c.tol, VarianceInflation: 1})
			o.SetSamples(samples)
			steps, stopped := o.Run()
			if steps != c.wantSteps || stopped != c.stopped {
				t.Fatalf("Run() = %d, %v; want %d, %v", steps, stopped, c.wantSteps, c.stopped)
			}
			wantZ := make([]float64, k)
			if steps > 0 {
				wantZ = zs[steps-1]
			}
			if !closeSlices(o.Logits(), wantZ, 1e-9) {
				t.Errorf("z = %v, reference %v", o.Logits(), wantZ)
			}
			if stopped && math.Abs(o.ExitGap()-gaps[steps]) > 1e-12 {
				t.Errorf("exit gap %v, reference %v", o.ExitGap(), gaps[steps])
			}
			if !stopped {
				// The exit gap is evaluated at the final logits.
				g, gs, pi := make([]float64, k), make([]float64, k), make([]float64, k)
				Softmax(pi, wantZ)
				for _, th := range samples {
					Gradient(gs, th, pi, 3)
					for i := range g {
						g[i] += gs[i] / float64(len(samples))
					}
				}
				if want := KKTGap(g, pi); math.Abs(o.ExitGap()-want) > 1e-12 {
					t.Errorf("exit gap %v, want %v", o.ExitGap(), want)
				}
			}
		})
	}
}

// TestWarmStart checks that a round starts from the previous round's logits
// with Adam's moments (and bias corrections) reset: round 2 of a running
// optimizer must equal one fresh round started at round 1's logits, and
// must differ from a round started at z = 0 and from the reference run that
// carries the moments over (so the test can fail either way).
func TestWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const k = 5
	a, b := testSamples(rng, 30, k), testSamples(rng, 30, k)
	c := Config{M: 2, Samples: 30, Steps: 10, LR: 0.05, Tol: 0, VarianceInflation: 1}
	o := NewOptimizer(k, c)
	o.SetSamples(a)
	o.Run()
	z1 := slices.Clone(o.Logits())
	o.SetSamples(b)
	o.Run()
	z2 := slices.Clone(o.Logits())

	fresh := NewOptimizer(k, c)
	copy(fresh.Logits(), z1)
	fresh.SetSamples(b)
	fresh.Run()
	if !slices.Equal(fresh.Logits(), z2) {
		t.Errorf("round 2 logits %v; a fresh round from round 1's logits gives %v", z2, fresh.Logits())
	}
	cold := NewOptimizer(k, c)
	cold.SetSamples(b)
	cold.Run()
	if closeSlices(cold.Logits(), z2, 1e-6) {
		t.Errorf("round 2 logits %v equal a cold start: no warm start", z2)
	}
	// Carrying the moments over is the same as 20 uninterrupted steps when
	// the samples do not change; a reset must differ from that.
	o3 := NewOptimizer(k, c)
	o3.SetSamples(a)
	o3.Run()
	o3.Run()
	_, zs := referenceRun(a, make([]float64, k), 2, 20, 0.05)
	if closeSlices(o3.Logits(), zs[19], 1e-6) {
		t.Errorf("two rounds equal 20 uninterrupted steps: moments not reset")
	}
	if _, zs10 := referenceRun(a, z1, 2, 10, 0.05); !closeSlices(o3.Logits(), zs10[9], 1e-9) {
		t.Errorf("second round %v, reference restart from round 1's logits %v", o3.Logits(), zs10[9])
	}
}

// TestSortPaths checks the sorting used when loading samples, including the
// bucket pass, ties, and degenerate ranges, against slices.Sort.
func TestSortPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, k := range []int{1, 2, 24, 80, 256} {
		for name, gen := range map[string]func(i int) float64{
			"normal": func(int) float64 { return rng.NormFloat64() },
			"ties":   func(int) float64 { return float64(rng.IntN(3)) },
			"equal":  func(int) float64 { return 1 },
			"spread": func(i int) float64 { return math.Ldexp(rng.Float64(), i%60-30) },
		} {
			t.Run(fmt.Sprintf("K=%d/%s", k, name), func(t *testing.T) {
				o := NewOptimizer(k, DefaultConfig())
				keys, ord := make([]float64, k), make([]uint8, k)
				for i := range keys {
					keys[i], ord[i] = gen(i), uint8(i)
				}
				orig := slices.Clone(keys)
				o.sort8(keys, ord)
				want := slices.Clone(orig)
				slices.Sort(want)
				slices.Reverse(want)
				if !slices.Equal(keys, want) {
					t.Fatalf("sorted %v, want %v", keys, want)
				}
				seen := make([]bool, k)
				for r, a := range ord {
					if orig[a] != keys[r] || seen[a] {
						t.Fatalf("ord %v is not the permutation of the keys", ord)
					}
					seen[a] = true
				}
			})
		}
	}
}
