package armstat

import (
	"math"
	"testing"
)

func TestNewLayout(t *testing.T) {
	var a, b []float64
	s := New(3, &a, &b)
	cols := map[string][]float64{"Sum": s.Sum, "N": s.N, "Mean": s.Mean, "extra 0": a, "extra 1": b}
	for name, c := range cols {
		if len(c) != 3 || cap(c) != 3 {
			t.Fatalf("%s: len %d cap %d, want 3 and 3", name, len(c), cap(c))
		}
		for i, v := range c {
			if v != 0 {
				t.Fatalf("%s[%d] = %v, want 0", name, i, v)
			}
		}
	}
	// The columns must not overlap: write a distinct value through each.
	order := [][]float64{s.Sum, s.N, s.Mean, a, b}
	for j, c := range order {
		for i := range c {
			c[i] = float64(10*j + i)
		}
	}
	for j, c := range order {
		for i, v := range c {
			if v != float64(10*j+i) {
				t.Fatalf("column %d[%d] = %v after writes, want %v: columns overlap", j, i, v, 10*j+i)
			}
		}
	}
	if s.Unpulled() != 3 {
		t.Fatalf("Unpulled = %d, want 3", s.Unpulled())
	}
}

func TestNewNoArms(t *testing.T) {
	var w []float64
	s := New(0, &w)
	if len(s.Sum)+len(s.N)+len(s.Mean)+len(w) != 0 {
		t.Fatal("New(0) returned non-empty columns")
	}
	if i, ok := s.FirstUnpulled(); ok || i != 0 {
		t.Fatalf("FirstUnpulled = %d, %v on no arms, want 0, false", i, ok)
	}
}

// TestObserveArithmetic pins the exact floating-point operations: the sum
// is accumulated left to right, the count by increments, and the mean is
// Sum/N (not an incremental update, which rounds differently on these
// rewards).
func TestObserveArithmetic(t *testing.T) {
	rewards := []float64{0.1, 0.2, 0.3, 1e16, -1e16, 0.7, math.Pi, -2.5}
	s := New(2)
	var sum, n float64
	incremental := 0.0 // mean += (r-mean)/n
	differs := false
	for i, r := range rewards {
		s.Observe(1, r)
		sum += r
		n++
		incremental += (r - incremental) / n
		if s.Sum[1] != sum || s.N[1] != n {
			t.Fatalf("after %d rewards: Sum %v N %v, want %v %v", i+1, s.Sum[1], s.N[1], sum, n)
		}
		if want := sum / n; math.Float64bits(s.Mean[1]) != math.Float64bits(want) {
			t.Fatalf("after %d rewards: Mean %.17g, want Sum/N = %.17g", i+1, s.Mean[1], want)
		}
		differs = differs || incremental != sum/n
	}
	if !differs {
		t.Fatal("test rewards cannot tell Sum/N from an incremental mean")
	}
	if s.Sum[0] != 0 || s.N[0] != 0 || s.Mean[0] != 0 {
		t.Fatalf("arm 0 changed: Sum %v N %v Mean %v", s.Sum[0], s.N[0], s.Mean[0])
	}
}

func TestFirstUnpulled(t *testing.T) {
	s := New(4)
	steps := []struct {
		observe  int
		want     int
		wantOK   bool
		unpulled int
	}{
		{-1, 0, true, 4},
		{2, 0, true, 3},
		{0, 1, true, 2},
		{0, 1, true, 2}, // a second pull of arm 0 changes nothing
		{2, 1, true, 2},
		{1, 3, true, 1},
		{3, 0, false, 0},
		{3, 0, false, 0},
	}
	for i, st := range steps {
		if st.observe >= 0 {
			s.Observe(st.observe, 0) // a zero reward still counts as a pull
		}
		got, ok := s.FirstUnpulled()
		if got != st.want || ok != st.wantOK {
			t.Fatalf("step %d: FirstUnpulled = %d, %v, want %d, %v", i, got, ok, st.want, st.wantOK)
		}
		if s.Unpulled() != st.unpulled {
			t.Fatalf("step %d: Unpulled = %d, want %d", i, s.Unpulled(), st.unpulled)
		}
	}
}

func TestAllocationFree(t *testing.T) {
	s := New(10)
	arm := 0
	allocs := testing.AllocsPerRun(1000, func() {
		s.Observe(arm, 0.5)
		if i, ok := s.FirstUnpulled(); ok {
			arm = i
		} else {
			arm = (arm + 3) % 10
		}
	})
	if allocs != 0 {
		t.Fatalf("Observe+FirstUnpulled allocates %v times", allocs)
	}
}

// TestArgmax: the index policies' argmax takes the largest value, the
// lowest index on ties, and never a NaN.
func TestArgmax(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		u    []float64
		want int
	}{
		{[]float64{1}, 0},
		{[]float64{1, 3, 2}, 1},
		{[]float64{2, 3, 3}, 1},
		{[]float64{math.Inf(1), math.Inf(1)}, 0},
		{[]float64{0, nan, 1}, 2},
		{[]float64{-1, -0.5, -2}, 1},
	} {
		if got := Argmax(c.u); got != c.want {
			t.Errorf("Argmax(%v) = %d, want %d", c.u, got, c.want)
		}
	}
	s := New(3)
	for i, r := range []float64{0.5, 0.2, 0.4} {
		s.Observe(i, r)
	}
	width := []float64{0.1, 0.4, 0.2}
	for _, c := range []struct {
		scale float64
		want  int
	}{{0, 0}, {1, 1}, {0.5, 0}, {2.0 / 3, 0}} { // 0.5+0.1/1.5 ties 0.2+0.4/1.5 up to rounding
		if got, want := s.ArgmaxBonus(width, c.scale), Argmax([]float64{0.5 + 0.1*c.scale, 0.2 + 0.4*c.scale, 0.4 + 0.2*c.scale}); got != want || (c.scale != 2.0/3 && got != c.want) {
			t.Errorf("ArgmaxBonus(scale %v) = %d, want %d", c.scale, got, c.want)
		}
	}
}
