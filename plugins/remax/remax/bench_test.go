package remax

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/simtest"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
)

// benchInstances are the paper's instances (Table exp-settings) with a
// warm-up of half the paper's horizon, so that the benchmarked rounds see a
// realistic posterior (support size, variances) rather than the first
// rounds.
type benchInstance struct {
	means  []float64
	sd     float64
	warmup int
}

func benchInstances(tb testing.TB) []benchInstance {
	var out []benchInstance
	for _, c := range []struct {
		name   string
		warmup int
	}{{"two_arm", 10000}, {"ten_arm", 10000}, {"movielens", 5000}, {"obd", 1500}} {
		means, sd := simtest.Shipped(tb, c.name)
		out = append(out, benchInstance{means, sd, c.warmup})
	}
	return out
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
	for _, in := range benchInstances(b) {
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
