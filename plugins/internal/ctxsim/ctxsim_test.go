package ctxsim

import (
	"math"
	"slices"
	"testing"
)

// recorder pulls a fixed arm and records the contexts it is shown.
type recorder struct {
	arm  int
	seen [][]float64
	obs  int
}

func (r *recorder) Select(t int, x []float64) (int, float64) {
	r.seen = append(r.seen, slices.Clone(x))
	return r.arm, 1
}

func (r *recorder) Observe(t int, x []float64, arm int, reward float64) {
	if !slices.Equal(x, r.seen[t-1]) || arm != r.arm {
		panic("Observe got another context or arm than Select's")
	}
	r.obs++
}

// TestRun: every policy sees the same contexts (common random numbers),
// Observe gets Select's context back and is not called for the last round,
// and the regret is the best expected reward minus the pulled arm's.
func TestRun(t *testing.T) {
	for _, p := range []*Problem{NewLinear(3, 4, false, 0.5, 1), NewLinear(3, 2, true, 0.5, 1), NewLogistic(3, 4, false, 2, 1)} {
		a, b := &recorder{arm: 0}, &recorder{arm: 2}
		ra, rb := p.Run(a, 50, 7), p.Run(b, 50, 7)
		if len(a.seen) != 50 || a.obs != 49 {
			t.Errorf("per-arm %v: %d Selects and %d Observes, want 50 and 49", p.PerArm, len(a.seen), a.obs)
		}
		for i := range a.seen {
			if !slices.Equal(a.seen[i], b.seen[i]) {
				t.Fatalf("round %d: the two policies saw different contexts", i+1)
			}
			means := make([]float64, p.K)
			p.Means(a.seen[i], means)
			best := slices.Max(means)
			if math.Abs(ra.Regret[i]-(best-means[0])) > 1e-15 || math.Abs(rb.Regret[i]-(best-means[2])) > 1e-15 {
				t.Fatalf("round %d: regret %v and %v, want %v and %v", i+1, ra.Regret[i], rb.Regret[i], best-means[0], best-means[2])
			}
			if len(a.seen[i]) != p.Width() {
				t.Fatalf("context of %d values, want %d", len(a.seen[i]), p.Width())
			}
		}
	}
}

// TestMeans: hand-computed expected rewards of both shapes and both links.
func TestMeans(t *testing.T) {
	p := &Problem{K: 2, D: 2, Theta: [][]float64{{1, 0}, {0, 2}}}
	out := make([]float64, 2)
	p.Means([]float64{3, 4}, out)
	if !slices.Equal(out, []float64{3, 8}) {
		t.Errorf("shared: %v, want [3 8]", out)
	}
	p = &Problem{K: 2, D: 2, PerArm: true, Theta: [][]float64{{1, -1}}, Logistic: true, Scale: 2}
	p.Means([]float64{1, 1, 1, 0}, out)
	if want := []float64{0.5, 1 / (1 + math.Exp(-2))}; math.Abs(out[0]-want[0]) > 1e-15 || math.Abs(out[1]-want[1]) > 1e-15 {
		t.Errorf("per-arm logistic: %v, want %v", out, want)
	}
}
