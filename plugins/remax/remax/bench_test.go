package remax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
)

// obdMeans returns the K = 80 Open Bandit Dataset instance of the paper
// (Table obd-arm-means): mu_i = CTR_i sqrt(1000) / 0.057774753125, sd 1.
func obdMeans() []float64 {
	ctr := []float64{
		0.0029265, 0.0014464, 0.0021134, 0.0026464, 0.0018947, 0.0032350, 0.0024874, 0.0052780,
		0.0037272, 0.0025919, 0.0015018, 0.0033327, 0.0018368, 0.0020283, 0.0029336, 0.0030222,
		0.0032011, 0.0036364, 0.0036137, 0.0018426, 0.0017718, 0.0023036, 0.0028038, 0.0025506,
		0.0024710, 0.0019308, 0.0021782, 0.0016784, 0.0037885, 0.0015287, 0.0045120, 0.0041963,
		0.0036784, 0.0032292, 0.0055569, 0.0055678, 0.0028800, 0.0035584, 0.0044478, 0.0053337,
		0.0026211, 0.0055760, 0.0035852, 0.0048702, 0.0024826, 0.0051337, 0.0039318, 0.0055106,
		0.0044275, 0.0057023, 0.0034024, 0.0056714, 0.0049135, 0.0028941, 0.0026866, 0.0038009,
		0.0026913, 0.0037623, 0.0049876, 0.0055036, 0.0048012, 0.0059725, 0.0044809, 0.0056396,
		0.0033993, 0.0041044, 0.0038471, 0.0019121, 0.0018957, 0.0035998, 0.0022913, 0.0030215,
		0.0027332, 0.0025879, 0.0020447, 0.0026221, 0.0036932, 0.0024460, 0.0052332, 0.0056697,
	}
	mu := make([]float64, len(ctr))
	for i, c := range ctr {
		mu[i] = c * math.Sqrt(1000) / 0.057774753125
	}
	return mu
}

// movieLensMeans is the K = 31 MovieLens 1M instance (Table
// movielens-arm-means), sd 1.
var movieLensMeans = []float64{
	0.86074, 0.79806, 0.90208, 0.79304, 0.88125, 0.82937, 0.89074, 0.86747,
	0.85094, 0.68196, 0.80458, 0.84699, 0.81170, 0.86348, 0.75277, 0.79061,
	0.85860, 0.89554, 0.87036, 0.86317, 0.82550, 0.91091, 0.81759, 0.82508,
	0.74799, 0.83192, 0.83041, 0.85564, 0.84388, 0.78111, 0.90499,
}

// benchInstances are the paper's instances (Table exp-settings) with a
// warm-up of half the paper's horizon, so that the benchmarked rounds see a
// realistic posterior (support size, variances) rather than the first
// rounds.
var benchInstances = []struct {
	means  []float64
	sd     float64
	warmup int
}{
	{[]float64{0.9, 0.8}, 0.15, 10000},
	{[]float64{0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01}, 0.05, 10000},
	{movieLensMeans, 1, 5000},
	{obdMeans(), 1, 1500},
}

// snapshot copies the mutable state of p into q (same K), so that the
// benchmark can replay the same window of rounds without allocating.
func (q *policy) restore(p *policy) {
	copy(q.n, p.n)
	copy(q.mu, p.mu)
	copy(q.s2, p.s2)
	copy(q.g, p.g)
	copy(q.pi, p.pi)
	q.ready = p.ready
	copy(q.solver.in, p.solver.in)
	q.solver.act = append(q.solver.act[:0], p.solver.act...)
	q.solver.warm = p.solver.warm
}

// BenchmarkRound measures one full round (Select + Observe) in a realistic
// state: after the warm-up, it replays a window of 1000 rounds from a
// snapshot, over and over (the restore, ~K^2 copies per 1000 rounds, is
// included and negligible). Rewards come from a precomputed normal table.
func BenchmarkRound(b *testing.B) {
	for _, in := range benchInstances {
		k := len(in.means)
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			s := gaussianSession(k, in.sd, 1)
			p := newPolicy(b, s, 1)
			simulate(p, in.means, in.sd, in.warmup, 1)
			snap := newPolicy(b, s, 1)
			snap.restore(p)
			z := make([]float64, 4096)
			rng := rand.New(rand.NewPCG(3, 3))
			for i := range z {
				z[i] = in.sd * rng.NormFloat64()
			}
			const window = 1000
			support := 0.0
			b.ReportAllocs()
			b.ResetTimer()
			t := in.warmup
			for i := 0; i < b.N; i++ {
				if i%window == 0 {
					p.restore(snap)
					t = in.warmup
				}
				t++
				a := p.Select(t)
				p.Observe(t, a, in.means[a]+z[i&4095])
				support += float64(len(p.solver.act))
			}
			b.StopTimer()
			st := p.solver.Stats()
			b.ReportMetric(support/float64(b.N), "support")
			b.ReportMetric(float64(st.Iterations)/float64(max(st.Solves, 1)), "iters/solve")
		})
	}
}

// BenchmarkPosPart compares the tabulated h with math.Erfc + math.Exp, over
// 80 independent arguments in [0, 8) (the row update of G at K = 80).
func BenchmarkPosPart(b *testing.B) {
	xs := make([]float64, 80)
	for i := range xs {
		xs[i] = 0.1 * float64(i)
	}
	out := make([]float64, 80)
	b.Run("table", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for j, x := range xs {
				out[j] = posPart(x)
			}
		}
	})
	b.Run("erfc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for j, x := range xs {
				out[j] = posPartSlow(x)
			}
		}
	})
}

// BenchmarkCholesky compares cholSolve with gonum's Dpotrf + Dpotrs on the
// reduced KKT matrix of a realistic posterior, at the sizes of the reduced
// system (support size - 1).
func BenchmarkCholesky(b *testing.B) {
	for _, n := range []int{4, 9, 20, 30, 79} {
		k := n + 1
		rng := rand.New(rand.NewPCG(7, 7))
		mu := make([]float64, k)
		s2 := make([]float64, k)
		for i := range mu {
			mu[i] = 0.5 + 0.05*rng.NormFloat64()
			s2[i] = 0.01
		}
		g := make([]float64, k*k)
		FillG(g, mu, s2)
		a0 := make([]float64, n*n)
		b0 := make([]float64, n)
		for p := 0; p < n; p++ {
			for q := 0; q < n; q++ {
				a0[p*n+q] = g[p*k+n] + g[n*k+q] - g[p*k+q] - g[n*k+n]
			}
			b0[p] = g[p*k+n] - g[n*k+n]
		}
		a := make([]float64, n*n)
		x := make([]float64, n)
		b.Run(fmt.Sprintf("hand/n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				copy(a, a0)
				copy(x, b0)
				if !cholSolve(a, n, x) {
					b.Fatal("not positive definite")
				}
			}
		})
		b.Run(fmt.Sprintf("gonum/n=%d", n), func(b *testing.B) {
			var impl gonum.Implementation
			for i := 0; i < b.N; i++ {
				copy(a, a0)
				copy(x, b0)
				if !impl.Dpotrf(blas.Upper, n, a, n) {
					b.Fatal("not positive definite")
				}
				impl.Dpotrs(blas.Upper, n, 1, a, n, x, 1)
			}
		})
	}
}
