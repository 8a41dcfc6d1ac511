package linucb

import (
	"fmt"
	"math"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/ctxsim"
	"github.com/regretbench/regretbench/sdk"
)

func newPolicy(t testing.TB, k, d int, perArm bool, alpha, lambda float64) *Policy {
	return newPolicyIcpt(t, k, d, perArm, alpha, lambda, false)
}

func newPolicyIcpt(t testing.TB, k, d int, perArm bool, alpha, lambda float64, icpt bool) *Policy {
	t.Helper()
	s := sdk.Session{Arms: k, Horizon: 100, Family: sdk.Bernoulli,
		Params:  sdk.Params{"alpha": alpha, "lambda": lambda, "intercept": icpt},
		Context: sdk.ContextShape{Dim: d, PerArm: perArm}}
	p, err := New(s, sdk.Replica{})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Policy)
}

// TestHandIndex: the indices of 2 arms in dimension 1, worked out by hand.
func TestHandIndex(t *testing.T) {
	p := newPolicy(t, 2, 1, false, 1, 1)
	// Arm 0 pulled at x = 1 with reward 1: A0 = 2, b0 = 1, theta0 = 1/2;
	// arm 1 never: A1 = 1, theta1 = 0.
	p.Observe(1, []float64{1}, 0, 1)
	for _, tc := range []struct {
		x          float64
		idx0, idx1 float64
		arm        int
	}{
		{2, 0.5*2 + math.Sqrt(4.0/2), 2, 0}, // 2.414 > 2
		{1, 0.5 + math.Sqrt(1.0/2), 1, 0},   // 1.207 > 1
		{-1, -0.5 + math.Sqrt(1.0/2), 1, 1}, // 0.207 < 1
		{0, 0, 0, 0},                        // a tie goes to the lowest index
	} {
		x := []float64{tc.x}
		if got := p.Index(x, 0); math.Abs(got-tc.idx0) > 1e-15 {
			t.Errorf("x = %v: index of arm 0 = %v, want %v", tc.x, got, tc.idx0)
		}
		if got := p.Index(x, 1); math.Abs(got-tc.idx1) > 1e-15 {
			t.Errorf("x = %v: index of arm 1 = %v, want %v", tc.x, got, tc.idx1)
		}
		if arm, prob := p.Select(2, x); arm != tc.arm || prob != 1 {
			t.Errorf("x = %v: Select = (%d, %v), want (%d, 1)", tc.x, arm, prob, tc.arm)
		}
	}
	// Arm 0 again at x = 1, reward 0: A0 = 3, b0 = 1, theta0 = 1/3; at
	// x = 1 its index 1/3 + sqrt(1/3) = 0.911 falls below arm 1's 1.
	p.Observe(2, []float64{1}, 0, 0)
	if got, want := p.Index([]float64{1}, 0), 1.0/3+math.Sqrt(1.0/3); math.Abs(got-want) > 1e-15 {
		t.Errorf("after the second pull: index of arm 0 = %v, want %v", got, want)
	}
	if arm, _ := p.Select(3, []float64{1}); arm != 1 {
		t.Errorf("after the second pull: Select = %d, want 1", arm)
	}
}

// TestHandIndexPerArm: per-arm features share one regression.
func TestHandIndexPerArm(t *testing.T) {
	p := newPolicy(t, 2, 1, true, 2, 1)
	// Arm 1 pulled with x_1 = 1, reward 1: A = 2, theta = 1/2, which arm 0
	// uses too.
	p.Observe(1, []float64{5, 1}, 1, 1)
	x := []float64{1, -1}
	if got, want := p.Index(x, 0), 0.5+2*math.Sqrt(0.5); math.Abs(got-want) > 1e-15 {
		t.Errorf("index of arm 0 = %v, want %v", got, want)
	}
	if got, want := p.Index(x, 1), -0.5+2*math.Sqrt(0.5); math.Abs(got-want) > 1e-15 {
		t.Errorf("index of arm 1 = %v, want %v", got, want)
	}
	if arm, _ := p.Select(2, x); arm != 0 {
		t.Errorf("Select = %d, want 0", arm)
	}
}

// TestHandIndexIntercept: with the intercept the models see (x, 1).
func TestHandIndexIntercept(t *testing.T) {
	p := newPolicyIcpt(t, 2, 1, false, 1, 1, true)
	// Arm 0 at x = 1, reward 1: features (1, 1), A0 = [[2,1],[1,2]],
	// A0⁻¹ = [[2,−1],[−1,2]]/3, b0 = (1, 1), theta0 = (1/3, 1/3). At x = 0
	// (features (0, 1)) arm 0's index is 1/3 + sqrt(2/3), arm 1's sqrt(1).
	p.Observe(1, []float64{1}, 0, 1)
	if got, want := p.Index([]float64{0}, 0), 1.0/3+math.Sqrt(2.0/3); math.Abs(got-want) > 1e-15 {
		t.Errorf("index of arm 0 = %v, want %v", got, want)
	}
	if got := p.Index([]float64{0}, 1); got != 1 {
		t.Errorf("index of arm 1 = %v, want 1", got)
	}
	// At x = −1 (features (−1, 1)): mean 0, width (2 + 2 + 2)/3 = 2.
	if got, want := p.Index([]float64{-1}, 0), math.Sqrt2; math.Abs(got-want) > 1e-15 {
		t.Errorf("x = −1: index of arm 0 = %v, want %v", got, want)
	}
}

// TestRegret: on synthetic linear-Gaussian problems LinUCB's regret is
// sublinear (the second half of 2,000 rounds costs less than the first)
// and far below the uniform policy's.
func TestRegret(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k, d   int
		perArm bool
	}{
		{"shared", 5, 8, false},
		{"per-arm", 10, 8, true},
		{"letter-sized", 26, 16, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const T = 2000
			prob := ctxsim.NewLinear(tc.k, tc.d, tc.perArm, 0.1, 3)
			p := newPolicyIcpt(t, tc.k, tc.d, tc.perArm, 1, 1, true)
			res := prob.Run(p, T, 5)
			first, second := res.Cumulative(0, T/2), res.Cumulative(T/2, T)
			uniform := prob.Uniform(20000, 9) * T
			t.Logf("regret: first half %.1f, second half %.1f, uniform %.1f", first, second, uniform)
			if !(second < first) {
				t.Errorf("second half's regret %.1f is not below the first's %.1f", second, first)
			}
			if limit := 0.5 * uniform; first+second > limit {
				t.Errorf("regret %.1f, want below half the uniform policy's (%.1f)", first+second, limit)
			}
			// In the last quarter the per-round regret is a small
			// fraction of uniform's.
			if last, u := res.Cumulative(3*T/4, T)/(T/4), uniform/T; last > 0.2*u {
				t.Errorf("last quarter's regret per round %.4f, want below a fifth of uniform's %.4f", last, u)
			}
		})
	}
}

// TestNoAllocs: a round allocates nothing.
func TestNoAllocs(t *testing.T) {
	for _, perArm := range []bool{false, true} {
		const k, d = 26, 16
		p := newPolicy(t, k, d, perArm, 1, 1)
		ctxsim.CheckNoAllocs(t, fmt.Sprintf("per-arm %v", perArm), p, sdk.ContextShape{Dim: d, PerArm: perArm}.Width(k), 0.5)
	}
}

// BenchmarkRound is one round of LinUCB, Select and Observe, in process
// (no plugin boundary), at the size of letter recognition: d = 16, K = 26,
// with the default parameters (so with the intercept: models of dimension
// 17). The end-to-end plugin run is measured against it. Besides ns/op
// (wall) it reports cpu-ns/op, the process's CPU time a round, which a
// loaded machine inflates less than the wall time.
func BenchmarkRound(b *testing.B) {
	for _, tc := range []struct {
		name   string
		k, d   int
		perArm bool
		noIcpt bool
	}{
		{"d16_K26", 26, 16, false, false},
		{"d16_K26_nointercept", 26, 16, false, true},
		{"d16_K26_perarm", 26, 16, true, false},
		{"d180_K3", 3, 180, false, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := newPolicyIcpt(b, tc.k, tc.d, tc.perArm, 1, 1, !tc.noIcpt)
			ctxsim.BenchRound(b, p, sdk.ContextShape{Dim: tc.d, PerArm: tc.perArm}.Width(tc.k))
		})
	}
}
