package normal

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestNormCDF compares the empirical distribution of 4 million draws with
// the standard normal CDF at points across the body, the layer edges and
// both tails, each within 5 binomial standard errors. The seed is fixed, so
// the test is deterministic; a wrong layer table or a lost sign fails it.
func TestNormCDF(t *testing.T) {
	const n = 4_000_000
	s := New(1)
	x := make([]float64, n)
	for i := range x {
		x[i] = s.Norm()
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			t.Fatalf("draw %d is %v", i, x[i])
		}
	}
	sort.Float64s(x)
	points := []float64{-5, -4, -zigR - 0.3, -zigR, -3, -2, -1.5, -1, -0.5, -0.1, 0, 0.1, 0.5, 1, 1.5, 2, 3, zigR, zigR + 0.3, 4, 5}
	for _, p := range points {
		got := float64(sort.SearchFloat64s(x, p)) / n
		want := distuv.UnitNormal.CDF(p)
		se := math.Sqrt(want * (1 - want) / n)
		if se < 1/float64(n) {
			se = 1 / float64(n)
		}
		if math.Abs(got-want) > 5*se {
			t.Errorf("P(X < %v) = %.7f, want %.7f (5 SE = %.2g)", p, got, want, 5*se)
		}
	}
	// Moments: mean 0, variance 1, kurtosis 3 (SEs 1/sqrt(n), sqrt(2/n), sqrt(96/n)).
	var m1, m2, m4 float64
	for _, v := range x {
		m1 += v
		m2 += v * v
		m4 += v * v * v * v
	}
	m1, m2, m4 = m1/n, m2/n, m4/n
	if math.Abs(m1) > 5/math.Sqrt(n) || math.Abs(m2-1) > 5*math.Sqrt(2.0/n) || math.Abs(m4-3) > 5*math.Sqrt(96.0/n) {
		t.Errorf("moments: mean %v, E[X^2] %v, E[X^4] %v; want 0, 1, 3", m1, m2, m4)
	}
}

// TestTail checks the base layer's tail sampler on its own: the fraction of
// draws beyond zigR and the conditional mean of those draws,
// E[X | X > r] = phi(r) / (1 - Phi(r)).
func TestTail(t *testing.T) {
	const n = 20_000_000
	s := New(3)
	var count, sum float64
	for range n {
		if v := s.Norm(); v > zigR {
			count++
			sum += v
		}
	}
	tail := distuv.UnitNormal.Survival(zigR)
	if se := math.Sqrt(tail / n); math.Abs(count/n-tail) > 5*se {
		t.Errorf("P(X > %v) = %v, want %v", zigR, count/n, tail)
	}
	want := distuv.UnitNormal.Prob(zigR) / tail
	// Var(X | X > r) < 1/r^2 for the normal tail, so this bounds the SE.
	if se := 1 / zigR / math.Sqrt(count); math.Abs(sum/count-want) > 5*se {
		t.Errorf("E[X | X > %v] = %v, want %v", zigR, sum/count, want)
	}
}

// TestUint64 pins the generator to wyrand's published recurrence on its
// first values from seed 0, and checks every bit is fair over many draws.
func TestUint64(t *testing.T) {
	var state uint64
	s := New(0)
	for i := range 1000 {
		state += 0xa0761d6478bd642f
		hi, lo := bits.Mul64(state, state^0xe7037ed1a0b428db)
		if got := s.Uint64(); got != hi^lo {
			t.Fatalf("draw %d = %#x, want %#x", i, got, hi^lo)
		}
	}
	const n = 1 << 20
	var ones [64]int
	s.Seed(12345)
	for range n {
		u := s.Uint64()
		for b := range ones {
			ones[b] += int(u >> b & 1)
		}
	}
	for b, c := range ones { // 5 SE = 5 * sqrt(n/4)
		if d := float64(c) - n/2; math.Abs(d) > 5*math.Sqrt(n/4.0) {
			t.Errorf("bit %d set in %d of %d draws", b, c, n)
		}
	}
}

// TestFloat64 checks the uniform draws' range and mean.
func TestFloat64(t *testing.T) {
	s := New(5)
	const n = 1_000_000
	var sum float64
	for range n {
		u := s.Float64()
		if !(u >= 0 && u < 1) {
			t.Fatalf("Float64 = %v, outside [0, 1)", u)
		}
		sum += u
	}
	if se := math.Sqrt(1.0 / 12 / n); math.Abs(sum/n-0.5) > 5*se {
		t.Errorf("mean of Float64 = %v, want 0.5", sum/n)
	}
}

// TestFill checks that Fill (assembly on amd64) and its Go loop draw, bit for
// bit, what as many calls of Norm would, over buffers of every length
// around the slow path's returns, and leave the same state.
func TestFill(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 100, 500, 100_000} { // 100k passes through normSlow many times
		a, b, c := New(9), New(9), New(9)
		buf, bufGo := make([]float64, n), make([]float64, n)
		for rep := range 3 {
			a.Fill(buf)
			c.fill(bufGo, fillFastGo)
			for i, v := range buf {
				w := b.Norm()
				if math.Float64bits(v) != math.Float64bits(w) || math.Float64bits(bufGo[i]) != math.Float64bits(w) {
					t.Fatalf("n=%d call %d value %d: Fill %v, Go loop %v, Norm %v", n, rep, i, v, bufGo[i], w)
				}
			}
		}
		if x, y, z := a.Uint64(), b.Uint64(), c.Uint64(); x != y || z != y {
			t.Fatalf("n=%d: after Fill the state differs from after Norm", n)
		}
	}
}

// TestDeterministic checks that a seed fixes the stream, and Seed resets it.
func TestDeterministic(t *testing.T) {
	a, b := New(7), New(7)
	first := make([]float64, 100)
	for i := range first {
		first[i] = a.Norm()
		if v := b.Norm(); v != first[i] {
			t.Fatalf("draw %d: %v and %v from the same seed", i, first[i], v)
		}
	}
	a.Seed(7)
	for i, want := range first {
		if v := a.Norm(); v != want {
			t.Fatalf("after Seed, draw %d = %v, want %v", i, v, want)
		}
	}
}

var sink float64

// BenchmarkNorm compares a Source with rand.Rand.NormFloat64 on the same
// generator.
func BenchmarkNorm(b *testing.B) {
	b.Run("Source", func(b *testing.B) {
		s := New(1)
		var x float64
		for range b.N {
			x += s.Norm()
		}
		sink = x
	})
	b.Run("Fill", func(b *testing.B) {
		s := New(1)
		buf := make([]float64, 500)
		for range b.N / len(buf) {
			s.Fill(buf)
		}
		sink = buf[0]
	})
	b.Run("FillGoLoop", func(b *testing.B) {
		s := New(1)
		buf := make([]float64, 500)
		for range b.N / len(buf) {
			s.fill(buf, fillFastGo)
		}
		sink = buf[0]
	})
	b.Run("rand.Rand", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		var x float64
		for range b.N {
			x += r.NormFloat64()
		}
		sink = x
	})
}
