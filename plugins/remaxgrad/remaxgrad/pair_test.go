package remaxgrad

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAbsDiffCols: the dispatched kernel (AVX assembly on amd64) gives the
// same bits as the Go loop, for every length and column count around its
// unrolling, with infinities, NaNs and signed zeros among the values.
func TestAbsDiffCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	specials := []float64{math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), 0, math.MaxFloat64, 5e-324}
	value := func() float64 {
		switch rng.IntN(20) {
		case 0:
			return specials[rng.IntN(len(specials))]
		case 1:
			return math.Ldexp(rng.NormFloat64(), rng.IntN(200)-100)
		}
		return rng.NormFloat64()
	}
	same := func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y))
	}
	for n := 0; n <= 67; n++ {
		for m := 1; m <= 5; m++ {
			stride := n + rng.IntN(3)
			a := make([]float64, n)
			b := make([]float64, (m-1)*stride+n)
			for i := range a {
				a[i] = value()
			}
			for i := range b {
				b[i] = value()
			}
			got, want := make([]float64, m), make([]float64, m)
			absDiffCols(a, b, stride, got)
			absDiffColsGo(a, b, stride, want)
			for i := range got {
				if !same(got[i], want[i]) {
					t.Fatalf("n=%d m=%d column %d: %v (%#x), want %v (%#x)", n, m, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
			// The Go loop itself against a plain sum, on finite values: the
			// interleaving changes the rounding, not the sum.
			var plain float64
			finite := true
			for s := range a {
				plain += math.Abs(a[s] - b[s])
				finite = finite && !math.IsInf(a[s], 0) && !math.IsNaN(a[s]) && !math.IsInf(b[s], 0) && !math.IsNaN(b[s]) && math.Abs(a[s]) < 1e300 && math.Abs(b[s]) < 1e300
			}
			if finite && math.Abs(want[0]-plain) > 1e-12*math.Max(1, plain) {
				t.Fatalf("n=%d: absDiffSum %v, plain sum %v", n, want[0], plain)
			}
		}
	}
}

func TestAbsDiffColsChecksRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for columns beyond b")
		}
	}()
	absDiffCols(make([]float64, 4), make([]float64, 7), 4, make([]float64, 2))
}

func BenchmarkAbsDiffCols(b *testing.B) {
	const n, m = 50, 9 // the paper's S = 50, one arm against nine
	a, cols, out := make([]float64, n), make([]float64, m*n), make([]float64, m)
	for i := range a {
		a[i] = float64(i%7) - 3
	}
	for i := range cols {
		cols[i] = float64(i%5) - 2
	}
	for _, impl := range []struct {
		name string
		f    func(a, b []float64, stride int, out []float64)
	}{{"dispatch", absDiffCols}, {"go", absDiffColsGo}} {
		b.Run(impl.name, func(b *testing.B) {
			for range b.N {
				impl.f(a, cols, n, out)
			}
		})
	}
}

// TestPairGrad: the AVX rows of pairGrad give the Go loop's bits, for
// every K around the groups of four and eight.
func TestPairGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	for k := 1; k <= 19; k++ {
		pair := make([]float64, k*k)
		for i := range k {
			for j := i; j < k; j++ {
				v := rng.NormFloat64() * math.Ldexp(1, rng.IntN(40)-20)
				pair[i*k+j], pair[j*k+i] = v, v
			}
		}
		pi := make([]float64, k)
		for i := range pi {
			pi[i] = rng.Float64()
		}
		dot := rng.NormFloat64()
		got, want := make([]float64, k), make([]float64, k)
		pairGrad(got, pair, pi, dot)
		for i := range want {
			var r float64
			for l := range k {
				r += pair[i*k+l] * pi[l]
			}
			want[i] = r - dot
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("K=%d row %d: %v, want %v", k, i, got[i], want[i])
			}
		}
	}
}
