package greedy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/ctxsim"
	"github.com/regretbench/regretbench/sdk"
)

func session(k, d int, perArm bool, params sdk.Params) sdk.Session {
	return sdk.Session{Arms: k, Horizon: 100, Family: sdk.Gaussian, NoiseSD: 1, NoiseKnown: true,
		Params: params, Context: sdk.ContextShape{Dim: d, PerArm: perArm}}
}

func newEps(t testing.TB, k, d int, perArm bool, eps float64, seed uint64) *Policy {
	t.Helper()
	p, err := NewEpsilon(session(k, d, perArm, sdk.Params{"epsilon": eps, "lambda": 1.0}),
		sdk.Replica{Index: seed, Rand: rand.New(rand.NewPCG(seed, 1))})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Policy)
}

// TestHandGreedy: the greedy arm after hand-computed ridge updates.
func TestHandGreedy(t *testing.T) {
	p, err := NewGreedy(session(2, 1, false, sdk.Params{"lambda": 1.0, "intercept": false}), sdk.Replica{})
	if err != nil {
		t.Fatal(err)
	}
	// Arm 1 at x = 1, reward 2: A1 = 2, theta1 = 1; arm 0: theta0 = 0.
	p.Observe(1, []float64{1}, 1, 2)
	for _, tc := range []struct {
		x   float64
		arm int
	}{{1, 1}, {-1, 0}, {0, 0}} {
		if arm, prob := p.Select(2, []float64{tc.x}); arm != tc.arm || prob != 1 {
			t.Errorf("x = %v: Select = (%d, %v), want (%d, 1)", tc.x, arm, prob, tc.arm)
		}
	}
}

// TestProbabilities: epsilon-greedy's probabilities sum to 1 over the
// arms, are 1 − eps + eps/K for the greedy arm and eps/K for the others,
// Select reports its arm's, and the empirical frequencies match them.
func TestProbabilities(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k, d   int
		perArm bool
		eps    float64
	}{
		{"shared", 4, 3, false, 0.05},
		{"per-arm", 5, 2, true, 0.3},
		{"eps 1", 3, 2, false, 1},
		{"eps 0", 3, 2, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prob := ctxsim.NewLinear(tc.k, tc.d, tc.perArm, 0.1, 1)
			p := newEps(t, tc.k, tc.d, tc.perArm, tc.eps, 3)
			prob.Run(p, 50, 2) // learn something first
			x := make([]float64, prob.Width())
			for i := range x {
				x[i] = math.Cos(float64(i))
			}
			probs := make([]float64, tc.k)
			p.Probabilities(x, probs)
			g := p.Greedy(x)
			var sum float64
			for a, q := range probs {
				sum += q
				want := tc.eps / float64(tc.k)
				if a == g {
					want += 1 - tc.eps
				}
				if math.Abs(q-want) > 1e-15 {
					t.Errorf("arm %d: probability %v, want %v", a, q, want)
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("probabilities sum to %v, want 1", sum)
			}
			const n = 40000
			count := make([]float64, tc.k)
			for range n {
				a, q := p.Select(51, x)
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

// TestRegret: on well-conditioned linear problems (isotropic Gaussian
// contexts: diverse, in Bastani et al.'s sense) greedy learns: the
// second half of 2,000 rounds costs less than the first and the whole run
// far less than uniform play; epsilon-greedy too, at its exploration cost.
func TestRegret(t *testing.T) {
	for _, tc := range []struct {
		name   string
		eps    float64
		perArm bool
	}{
		{"lingreedy", -1, false},
		{"greedy per-arm", -1, true},
		{"linepsgreedy", 0.05, false},
		{"epsgreedy per-arm", 0.05, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const T, k, d = 2000, 5, 6
			prob := ctxsim.NewLinear(k, d, tc.perArm, 0.1, 4)
			var p sdk.ContextualPolicy
			if tc.eps < 0 {
				var err error
				p, err = NewGreedy(session(k, d, tc.perArm, sdk.Params{"lambda": 1.0}), sdk.Replica{})
				if err != nil {
					t.Fatal(err)
				}
			} else {
				p = newEps(t, k, d, tc.perArm, tc.eps, 5)
			}
			res := prob.Run(p, T, 6)
			first, second := res.Cumulative(0, T/2), res.Cumulative(T/2, T)
			uniform := prob.Uniform(20000, 9) * T
			t.Logf("regret: first half %.1f, second half %.1f, uniform %.1f", first, second, uniform)
			if !(second < first) {
				t.Errorf("second half's regret %.1f is not below the first's %.1f", second, first)
			}
			if limit := 0.25 * uniform; first+second > limit {
				t.Errorf("regret %.1f, want below a quarter of the uniform policy's (%.1f)", first+second, limit)
			}
		})
	}
}

// TestNoAllocs: a round allocates nothing.
func TestNoAllocs(t *testing.T) {
	p := newEps(t, 26, 16, false, 0.5, 1)
	x := make([]float64, 16)
	for i := range x {
		x[i] = float64(i%7)/7 - 0.4
	}
	if n := testing.AllocsPerRun(200, func() {
		a, _ := p.Select(1, x)
		p.Observe(1, x, a, 0.5)
	}); n != 0 {
		t.Errorf("%v allocations a round, want 0", n)
	}
}

// BenchmarkRound is one round of epsilon-greedy, Select and Observe, in
// process, at d = 16, K = 26 with the default intercept.
func BenchmarkRound(b *testing.B) {
	p, err := NewEpsilon(session(26, 16, false, sdk.Params{"epsilon": 0.05, "lambda": 1.0, "intercept": true}),
		sdk.Replica{Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		b.Fatal(err)
	}
	ctxsim.BenchRound(b, p, 16)
}
