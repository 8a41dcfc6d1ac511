package squarecb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/ctxsim"
	"github.com/regretbench/regretbench/sdk"
)

func newPolicy(t testing.TB, k, d int, perArm bool, gamma float64, seed uint64) *Policy {
	t.Helper()
	s := sdk.Session{Arms: k, Horizon: 100, Family: sdk.Bernoulli,
		Params:  sdk.Params{"gamma": gamma, "lambda": 1.0, "intercept": false},
		Context: sdk.ContextShape{Dim: d, PerArm: perArm}}
	p, err := New(s, sdk.Replica{Index: seed, Rand: rand.New(rand.NewPCG(seed, 1))})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Policy)
}

// TestHandProbabilities: the inverse-gap weights of 3 arms in dimension
// 1 after hand-computed ridge updates.
func TestHandProbabilities(t *testing.T) {
	p := newPolicy(t, 3, 1, false, 2, 1)
	// Arm 0 at x = 1, reward 2: theta0 = 1; arm 1 at x = 1, reward 1:
	// theta1 = 1/2; arm 2 never: theta2 = 0.
	p.Observe(1, []float64{1}, 0, 2)
	p.Observe(2, []float64{1}, 1, 1)
	// Round t = 6, x = 1: gamma_t = 2·sqrt(3·6) = 6·sqrt(2); predictions
	// (1, 1/2, 0), b = 0; p1 = 1/(3 + gamma_t/2), p2 = 1/(3 + gamma_t).
	gt := 6 * math.Sqrt2
	want := []float64{0, 1 / (3 + gt/2), 1 / (3 + gt)}
	want[0] = 1 - want[1] - want[2]
	got := make([]float64, 3)
	p.Probabilities(6, []float64{1}, got)
	for a := range want {
		if math.Abs(got[a]-want[a]) > 1e-15 {
			t.Errorf("arm %d: probability %v, want %v", a, got[a], want[a])
		}
	}
	// At x = 0 every prediction is 0: uniform.
	p.Probabilities(6, []float64{0}, got)
	for a := range got {
		if math.Abs(got[a]-1.0/3) > 1e-15 {
			t.Errorf("x = 0: arm %d probability %v, want 1/3", a, got[a])
		}
	}
}

// TestProbabilities: on learned models the weights sum to 1, the best arm
// has at least 1/K, Select reports its arm's weight, and the empirical
// frequencies match the weights.
func TestProbabilities(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k, d   int
		perArm bool
		gamma  float64
		round  int
	}{
		{"shared", 4, 3, false, 1, 60},
		{"per-arm", 6, 2, true, 0.5, 60},
		{"late round", 5, 3, false, 3, 100000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prob := ctxsim.NewLinear(tc.k, tc.d, tc.perArm, 0.1, 1)
			p := newPolicy(t, tc.k, tc.d, tc.perArm, tc.gamma, 3)
			prob.Run(p, 60, 2)
			x := make([]float64, prob.Width())
			for i := range x {
				x[i] = math.Cos(float64(i)) / 2
			}
			probs := make([]float64, tc.k)
			p.Probabilities(tc.round, x, probs)
			var sum, most float64
			for _, q := range probs {
				if !(q > 0 && q <= 1) {
					t.Errorf("probability %v outside (0, 1]", q)
				}
				sum += q
				most = math.Max(most, q)
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("probabilities %v sum to %v, want 1", probs, sum)
			}
			if most < 1/float64(tc.k) {
				t.Errorf("largest probability %v below 1/K", most)
			}
			const n = 40000
			count := make([]float64, tc.k)
			for range n {
				a, q := p.Select(tc.round, x)
				if q != probs[a] {
					t.Fatalf("Select reported %v for arm %d, Probabilities %v", q, a, probs[a])
				}
				count[a]++
			}
			for a := range count {
				f, q := count[a]/n, probs[a]
				if se := math.Sqrt(q * (1 - q) / n); math.Abs(f-q) > 5*se+1e-12 {
					t.Errorf("arm %d pulled with frequency %v, want %v (±%v)", a, f, q, 5*se)
				}
			}
		})
	}
}

// TestRegret: on synthetic linear problems SquareCB's regret is sublinear
// over 4,000 rounds (the second half costs less than the first) and far
// below uniform play's.
func TestRegret(t *testing.T) {
	for _, perArm := range []bool{false, true} {
		const T, k, d = 4000, 5, 6
		prob := ctxsim.NewLinear(k, d, perArm, 0.1, 4)
		res := prob.Run(newPolicy(t, k, d, perArm, 1, 5), T, 6)
		first, second := res.Cumulative(0, T/2), res.Cumulative(T/2, T)
		uniform := prob.Uniform(20000, 9) * T
		t.Logf("per-arm %v: regret first half %.1f, second half %.1f, uniform %.1f", perArm, first, second, uniform)
		if !(second < first) {
			t.Errorf("per-arm %v: second half's regret %.1f is not below the first's %.1f", perArm, second, first)
		}
		if limit := 0.25 * uniform; first+second > limit {
			t.Errorf("per-arm %v: regret %.1f, want below a quarter of the uniform policy's (%.1f)", perArm, first+second, limit)
		}
	}
}

// TestNoAllocs: a round allocates nothing.
func TestNoAllocs(t *testing.T) {
	p := newPolicy(t, 26, 16, false, 1, 1)
	x := make([]float64, 16)
	for i := range x {
		x[i] = float64(i%7)/7 - 0.4
	}
	r := 0
	if n := testing.AllocsPerRun(200, func() {
		r++
		a, _ := p.Select(r, x)
		p.Observe(r, x, a, 0.5)
	}); n != 0 {
		t.Errorf("%v allocations a round, want 0", n)
	}
}

// BenchmarkRound is one round, Select and Observe, in process, at d = 16,
// K = 26 with the default intercept.
func BenchmarkRound(b *testing.B) {
	s := sdk.Session{Arms: 26, Horizon: 100, Family: sdk.Bernoulli,
		Params: sdk.Params{"gamma": 1.0, "lambda": 1.0, "intercept": true}, Context: sdk.ContextShape{Dim: 16}}
	p, err := New(s, sdk.Replica{Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		b.Fatal(err)
	}
	ctxsim.BenchRound(b, p, 16)
}
