package remaxgrad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/normal"
)

// randSimplex returns a random point of the simplex with every coordinate
// positive.
func randSimplex(rng *rand.Rand, k int) []float64 {
	pi := make([]float64, k)
	var s float64
	for i := range pi {
		pi[i] = 0.05 + rng.ExpFloat64()
		s += pi[i]
	}
	for i := range pi {
		pi[i] /= s
	}
	return pi
}

// bruteForce returns E_{A_1..A_M iid pi} max_m theta_{A_m} by enumerating
// all K^M tuples.
func bruteForce(theta, pi []float64, m int) float64 {
	k := len(theta)
	tuple := make([]int, m)
	var j float64
	for {
		p, mx := 1.0, math.Inf(-1)
		for _, a := range tuple {
			p *= pi[a]
			mx = max(mx, theta[a])
		}
		j += p * mx
		i := 0
		for ; i < m; i++ {
			tuple[i]++
			if tuple[i] < k {
				break
			}
			tuple[i] = 0
		}
		if i == m {
			return j
		}
	}
}

// TestObjectiveBruteForce checks the sorted form of the objective against
// enumeration of all K^M tuples. Both sides sum at most 4^4 = 256 products
// of magnitude <= max|theta| <= 3, so they agree to ~1e-14; 1e-12 leaves room
// and still catches any wrong weight (each is >= min pi^M ~ 1e-6 here).
func TestObjectiveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for k := 1; k <= 4; k++ {
		for m := 1; m <= 4; m++ {
			t.Run(fmt.Sprintf("K=%d/M=%d", k, m), func(t *testing.T) {
				samples := make([][]float64, 6)
				for s := range samples {
					samples[s] = make([]float64, k)
					for i := range samples[s] {
						samples[s][i] = rng.NormFloat64()
					}
				}
				if k > 1 { // a tie: the order among tied arms must not matter
					samples[5][1] = samples[5][0]
				}
				pi := randSimplex(rng, k)
				var avg float64
				for _, th := range samples {
					want := bruteForce(th, pi, m)
					if got := Objective(th, pi, m); math.Abs(got-want) > 1e-12 {
						t.Errorf("Objective(%v, %v) = %v, brute force %v", th, pi, got, want)
					}
					avg += want / float64(len(samples))
				}
				if m < 2 {
					return // the Optimizer requires M >= 2
				}
				c := DefaultConfig()
				c.M, c.Samples = m, len(samples)
				o := NewOptimizer(k, c)
				o.SetSamples(samples)
				if got := o.Objective(pi); math.Abs(got-avg) > 1e-12 {
					t.Errorf("Optimizer.Objective = %v, brute-force average %v", got, avg)
				}
			})
		}
	}
}

// TestGradientFiniteDifferences checks eq. remax-grad-pi against central
// differences of Objective in free coordinates (pi off the simplex, as the
// formula (1-P_{r-1})^M - (1-P_r)^M defines it), and eq. logit-grad against
// central differences of Objective(softmax(z)). With h = 1e-6 the truncation
// error is O(h^2 * M^3 * max|theta|) ~ 1e-10 and the rounding error
// O(eps * |J| / h) ~ 1e-10, so 1e-6 is a safe bound that an off-by-one in
// the weights (an O(pi) change) would exceed.
func TestGradientFiniteDifferences(t *testing.T) {
	const h, tol = 1e-6, 1e-6
	rng := rand.New(rand.NewPCG(2, 2))
	for _, k := range []int{2, 3, 5, 10} {
		for _, m := range []int{2, 3, 4} {
			t.Run(fmt.Sprintf("K=%d/M=%d", k, m), func(t *testing.T) {
				theta := make([]float64, k)
				for i := range theta {
					theta[i] = rng.NormFloat64()
				}
				z := make([]float64, k)
				for i := range z {
					z[i] = 0.5 * rng.NormFloat64()
				}
				pi := make([]float64, k)
				Softmax(pi, z)
				g := make([]float64, k)
				Gradient(g, theta, pi, m)
				q := make([]float64, k)
				for i := range pi {
					copy(q, pi)
					q[i] = pi[i] + h
					up := Objective(theta, q, m)
					q[i] = pi[i] - h
					fd := (up - Objective(theta, q, m)) / (2 * h)
					if math.Abs(g[i]-fd) > tol {
						t.Errorf("g[%d] = %v, finite difference %v", i, g[i], fd)
					}
				}
				gz := make([]float64, k)
				LogitGradient(gz, g, pi)
				zq := make([]float64, k)
				for i := range z {
					copy(zq, z)
					zq[i] = z[i] + h
					Softmax(q, zq)
					up := Objective(theta, q, m)
					zq[i] = z[i] - h
					Softmax(q, zq)
					fd := (up - Objective(theta, q, m)) / (2 * h)
					if math.Abs(gz[i]-fd) > tol {
						t.Errorf("logit gradient[%d] = %v, finite difference %v", i, gz[i], fd)
					}
				}
			})
		}
	}
}

// TestOptimizerGradient checks the Optimizer's fast gradient (merged
// orderings, interleaved loops, byte indices, bucket sort, the K > 256
// fallback) against the average of the reference Gradient. Both are sums of
// the same O(S*K) terms in different orders: 1e-10 relative to max|g| covers
// the rounding, and a wrong weight or order would be off by O(1e-2).
func TestOptimizerGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, k := range []int{2, 3, 4, 7, 30, 80, 300} {
		for _, m := range []int{2, 3, 4} {
			t.Run(fmt.Sprintf("K=%d/M=%d", k, m), func(t *testing.T) {
				c := DefaultConfig()
				c.M, c.Samples = m, 23 // odd: exercises the loop remainders
				mean, sd := make([]float64, k), make([]float64, k)
				for i := range mean {
					mean[i] = 0.1 * rng.NormFloat64()
					sd[i] = 0.02 + 0.1*rng.Float64()
				}
				o := NewOptimizer(k, c)
				o.DrawSamples(normal.New(uint64(k)), mean, sd)
				// Redraw the same normals in the same (mean-sorted) order.
				samples := make([][]float64, c.Samples)
				nsrc := normal.New(uint64(k))
				for s := range samples {
					samples[s] = make([]float64, k)
					for _, a := range o.rank {
						samples[s][a] = mean[a] + sd[a]*nsrc.Norm()
					}
				}
				pi := randSimplex(rng, k)
				want, g := make([]float64, k), make([]float64, k)
				var wantJ float64
				for _, th := range samples {
					Gradient(g, th, pi, m)
					for i := range want {
						want[i] += g[i] / float64(len(samples))
					}
					wantJ += Objective(th, pi, m) / float64(len(samples))
				}
				o.Gradient(g, pi)
				scale := 0.0
				for _, x := range want {
					scale = max(scale, math.Abs(x))
				}
				for i := range g {
					if math.Abs(g[i]-want[i]) > 1e-10*scale {
						t.Fatalf("g[%d] = %v, reference %v", i, g[i], want[i])
					}
				}
				if got := o.Objective(pi); math.Abs(got-wantJ) > 1e-12 {
					t.Errorf("Objective = %v, reference %v", got, wantJ)
				}
				// SetSamples loads the same samples: same merged state.
				o2 := NewOptimizer(k, c)
				o2.SetSamples(samples)
				g2 := make([]float64, k)
				o2.Gradient(g2, pi)
				for i := range g2 {
					if math.Abs(g2[i]-want[i]) > 1e-10*scale {
						t.Fatalf("after SetSamples g[%d] = %v, reference %v", i, g2[i], want[i])
					}
				}
			})
		}
	}
}

// TestExpFast compares expFast with math.Exp over its whole range, at the
// ends, and at points where the reduction changes k. Each is within 1 ulp
// of e^x (math.Exp's documented bound; expFast runs the algorithm of the
// portable math.Exp), so they must agree within 2 ulp; at 0 both give 1.
func TestExpFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	xs := []float64{0, math.Copysign(0, -1), -1e-300, -1e-9, -0.5 * math.Ln2, -math.Ln2, -1, -20, -700, expFastMin}
	for range 200000 {
		xs = append(xs, expFastMin*rng.Float64(), -rng.ExpFloat64())
	}
	for _, x := range xs {
		got, want := expFast(x), math.Exp(x)
		if ulp := math.Nextafter(want, math.Inf(1)) - want; math.Abs(got-want) > 2*ulp {
			t.Fatalf("expFast(%v) = %v, math.Exp = %v: %.2g ulp apart", x, got, want, math.Abs(got-want)/ulp)
		}
	}
	if got := expFast(0); got != 1 {
		t.Errorf("expFast(0) = %v, want 1", got)
	}
}

// TestSoftmaxEdges checks Softmax where expFast does not apply: logits far
// below the maximum (math.Exp's subnormal range and underflow) and NaN.
func TestSoftmaxEdges(t *testing.T) {
	pi := make([]float64, 3)
	Softmax(pi, []float64{0, -720, -1e6})
	if want := math.Exp(-720) / (1 + math.Exp(-720)); pi[0] != 1/(1+math.Exp(-720)) || pi[1] != want || pi[2] != 0 {
		t.Errorf("Softmax(0, -720, -1e6) = %v", pi)
	}
	Softmax(pi, []float64{0, math.NaN(), 1})
	if !math.IsNaN(pi[1]) {
		t.Errorf("Softmax with a NaN logit = %v, want NaN there", pi)
	}
}
