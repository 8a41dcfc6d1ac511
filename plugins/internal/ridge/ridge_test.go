package ridge

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestHandComputed: one and two observations in dimension 1 and 2, the
// inverse, b and theta worked out by hand.
func TestHandComputed(t *testing.T) {
	// d = 1, lambda = 1: x = 2, r = 3 gives A = 1 + 4 = 5, b = 6,
	// theta = 6/5; then x = 1, r = 0: A = 6, b = 6, theta = 1.
	m, err := New(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.Observe([]float64{2}, 3)
	if got := m.Inverse().At(0, 0); !close(got, 0.2, 1e-15) {
		t.Errorf("d=1 after (2, 3): A⁻¹ = %v, want 0.2", got)
	}
	if got := m.Theta()[0]; !close(got, 1.2, 1e-15) {
		t.Errorf("d=1 after (2, 3): theta = %v, want 1.2", got)
	}
	m.Observe([]float64{1}, 0)
	if got := m.Theta()[0]; !close(got, 1, 1e-15) {
		t.Errorf("d=1 after (1, 0): theta = %v, want 1", got)
	}
	if got := m.Width([]float64{3}); !close(got, 9.0/6, 1e-15) {
		t.Errorf("d=1: Width(3) = %v, want 9/6", got)
	}

	// d = 2, lambda = 2: x = (1, 1), r = 4 gives A = [[3,1],[1,3]],
	// A⁻¹ = [[3,-1],[-1,3]]/8, b = (4, 4), theta = (1, 1); Mean(1, 2) = 3,
	// Width(1, 0) = 3/8.
	m, err = New(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	m.Observe([]float64{1, 1}, 4)
	want := [][]float64{{3.0 / 8, -1.0 / 8}, {-1.0 / 8, 3.0 / 8}}
	inv := m.Inverse()
	for i := range 2 {
		for j := range 2 {
			if !close(inv.At(i, j), want[i][j], 1e-15) {
				t.Errorf("d=2: A⁻¹[%d][%d] = %v, want %v", i, j, inv.At(i, j), want[i][j])
			}
		}
	}
	if th := m.Theta(); !close(th[0], 1, 1e-15) || !close(th[1], 1, 1e-15) {
		t.Errorf("d=2: theta = %v, want (1, 1)", th)
	}
	if got := m.Mean([]float64{1, 2}); !close(got, 3, 1e-15) {
		t.Errorf("d=2: Mean(1, 2) = %v, want 3", got)
	}
	if got := m.Width([]float64{1, 0}); !close(got, 3.0/8, 1e-15) {
		t.Errorf("d=2: Width(1, 0) = %v, want 3/8", got)
	}
}

// TestAgainstDirectSolve: after thousands of Sherman–Morrison updates the
// kept A⁻¹, theta and Cholesky factor agree with gonum's direct inverse,
// solve and factorization of A to 1e-9.
func TestAgainstDirectSolve(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d, n   int
		lambda float64
		scale  float64 // feature scale
		binary bool    // 0/1 features, each 1 with probability 1/4 (as DNA's 180)
	}{
		{"d4", 4, 5000, 1, 1, false},
		{"d16", 16, 5000, 1, 1, false},
		{"d16 small lambda", 16, 3000, 0.01, 1, false},
		{"d50 scaled", 50, 2000, 1, 3, false},
		{"d180 binary", 180, 3000, 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.d)))
			m, err := New(tc.d, tc.lambda, WithCholesky())
			if err != nil {
				t.Fatal(err)
			}
			a := mat.NewSymDense(tc.d, nil)
			for i := range tc.d {
				a.SetSym(i, i, tc.lambda)
			}
			b := mat.NewVecDense(tc.d, nil)
			x := make([]float64, tc.d)
			for range tc.n {
				for i := range x {
					x[i] = tc.scale * rng.NormFloat64()
					if tc.binary {
						x[i] = 0
						if rng.IntN(4) == 0 {
							x[i] = 1
						}
					}
				}
				r := rng.NormFloat64()
				m.Observe(x, r)
				xv := mat.NewVecDense(tc.d, x)
				a.SymRankOne(a, 1, xv)
				b.AddScaledVec(b, r, xv)
			}
			var inv mat.Dense
			if err := inv.Inverse(a); err != nil {
				t.Fatal(err)
			}
			got := m.Inverse()
			if d := maxRelDiff(got, &inv); d > 1e-9 {
				t.Errorf("Sherman–Morrison A⁻¹ differs from the direct inverse by %g (relative to its largest entry)", d)
			}
			var theta mat.VecDense
			if err := theta.SolveVec(a, b); err != nil {
				t.Fatal(err)
			}
			for i, v := range m.Theta() {
				if !close(v, theta.AtVec(i), 1e-9) {
					t.Errorf("theta[%d] = %v, direct solve %v", i, v, theta.AtVec(i))
				}
			}
			var utu mat.Dense
			u := m.CholeskyFactor()
			utu.Mul(u.T(), u)
			if d := maxRelDiff(&utu, a); d > 1e-9 {
				t.Errorf("UᵀU differs from A by %g (relative)", d)
			}
		})
	}
}

// TestSample: Sample(z, s) returns theta + s·U⁻¹z, so U(out − theta)/s
// gives z back; and its empirical covariance is s²·A⁻¹.
func TestSample(t *testing.T) {
	const d = 3
	m, err := New(d, 1, WithCholesky())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	x := make([]float64, d)
	for range 20 {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		m.Observe(x, rng.NormFloat64())
	}
	z := []float64{0.3, -1.2, 2}
	zc := append([]float64(nil), z...)
	out := make([]float64, d)
	const s = 0.7
	m.Sample(zc, s, out)
	diff := mat.NewVecDense(d, nil)
	for i := range d {
		diff.SetVec(i, (out[i]-m.Theta()[i])/s)
	}
	diff.MulVec(m.CholeskyFactor(), diff)
	for i := range d {
		if !close(diff.AtVec(i), z[i], 1e-12) {
			t.Errorf("U(out − theta)/s = %v, want z = %v", mat.Formatted(diff.T()), z)
			break
		}
	}

	const n = 200000
	cov := mat.NewSymDense(d, nil)
	for range n {
		for i := range zc {
			zc[i] = rng.NormFloat64()
		}
		m.Sample(zc, s, out)
		for i := range d {
			for j := i; j < d; j++ {
				cov.SetSym(i, j, cov.At(i, j)+(out[i]-m.Theta()[i])*(out[j]-m.Theta()[j])/n)
			}
		}
	}
	want := m.Inverse()
	want.ScaleSym(s*s, want)
	for i := range d {
		for j := range d {
			se := 5 * math.Sqrt((want.At(i, i)*want.At(j, j)+want.At(i, j)*want.At(i, j))/n)
			if math.Abs(cov.At(i, j)-want.At(i, j)) > se {
				t.Errorf("empirical cov[%d][%d] = %v, want s²A⁻¹ = %v (±%v)", i, j, cov.At(i, j), want.At(i, j), se)
			}
		}
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		d      int
		lambda float64
	}{{0, 1}, {3, 0}, {3, -1}, {3, math.NaN()}, {3, math.Inf(1)}} {
		if _, err := New(tc.d, tc.lambda); err == nil {
			t.Errorf("New(%d, %v) accepted", tc.d, tc.lambda)
		}
	}
}

// TestNoAllocs: the per-round calls allocate nothing.
func TestNoAllocs(t *testing.T) {
	const d = 16
	m, err := New(d, 1, WithCholesky())
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, d)
	z := make([]float64, d)
	out := make([]float64, d)
	for i := range x {
		x[i] = float64(i%5) - 2
	}
	m.Observe(x, 1) // warm gonum's workspace pools
	if n := testing.AllocsPerRun(100, func() {
		m.Observe(x, 0.5)
		_ = m.Mean(x) + m.Width(x)
		m.Sample(z, 1, out)
	}); n != 0 {
		t.Errorf("Observe+Mean+Width+Sample: %v allocations a round, want 0", n)
	}
}

func BenchmarkObserve(b *testing.B) {
	for _, chol := range []bool{false, true} {
		name := "ainv"
		var opts []Option
		if chol {
			name, opts = "ainv+chol", []Option{WithCholesky()}
		}
		b.Run(name, func(b *testing.B) {
			m, _ := New(16, 1, opts...)
			x := make([]float64, 16)
			for i := range x {
				x[i] = float64(i%5) - 2
			}
			b.ReportAllocs()
			for b.Loop() {
				m.Observe(x, 0.5)
			}
		})
	}
}

func BenchmarkWidth(b *testing.B) {
	m, _ := New(16, 1)
	x := make([]float64, 16)
	for i := range x {
		x[i] = float64(i%5) - 2
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = m.Width(x)
	}
}

func close(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// maxRelDiff is max |a_ij − b_ij| over the largest |b_ij|.
func maxRelDiff(a, b mat.Matrix) float64 {
	r, c := b.Dims()
	var d, big float64
	for i := range r {
		for j := range c {
			d = math.Max(d, math.Abs(a.At(i, j)-b.At(i, j)))
			big = math.Max(big, math.Abs(b.At(i, j)))
		}
	}
	return d / big
}
