package lints

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/ctxsim"
	"github.com/regretbench/regretbench/plugins/internal/normal"
	"github.com/regretbench/regretbench/sdk"
)

func session(k, d int, perArm bool, v float64) sdk.Session {
	return sdk.Session{Arms: k, Horizon: 100, Family: sdk.Gaussian, NoiseSD: 0.5, NoiseKnown: true,
		Params: sdk.Params{"v": v, "lambda": 1.0, "intercept": false}, Context: sdk.ContextShape{Dim: d, PerArm: perArm}}
}

func newPolicy(t testing.TB, s sdk.Session, seed uint64) *Policy {
	t.Helper()
	p, err := New(s, sdk.Replica{Index: seed, Rand: rand.New(rand.NewPCG(seed, 1))})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Policy)
}

// TestHandDraws: in dimension 1 the draws are mu_a + v·z/sqrt(B_a), with
// z the normals of the policy's source (replayed here from the same
// seed), and Select pulls the arm of the largest draw times its features.
func TestHandDraws(t *testing.T) {
	for _, perArm := range []bool{false, true} {
		const v, seed = 0.8, 5
		p := newPolicy(t, session(2, 1, perArm, v), seed)
		src := normal.New(rand.New(rand.NewPCG(seed, 1)).Uint64())
		// Arm 0 at x = 1, reward 1, then arm 1 at x = 2, reward −1.
		// Shared contexts: B0 = 2, mu0 = 1/2; B1 = 5, mu1 = −2/5.
		// Per-arm: B = 1 + 1 + 4 = 6, f = 1 − 2 = −1, mu = −1/6.
		p.Observe(1, []float64{1, 2}[:sdk.ContextShape{Dim: 1, PerArm: perArm}.Width(2)], 0, 1)
		if perArm {
			p.Observe(2, []float64{9, 2}, 1, -1)
		} else {
			p.Observe(2, []float64{2}, 1, -1)
		}
		z := make([]float64, 1)
		for round := range 50 {
			x := []float64{1.5, -0.5}
			var s0, s1 float64
			if perArm {
				src.Fill(z)
				mu := -1.0/6 + v*z[0]/math.Sqrt(6)
				s0, s1 = mu*x[0], mu*x[1]
			} else {
				x = x[:1]
				src.Fill(z)
				m0 := 0.5 + v*z[0]/math.Sqrt(2)
				src.Fill(z)
				m1 := -0.4 + v*z[0]/math.Sqrt(5)
				s0, s1 = m0*x[0], m1*x[0]
			}
			want := 0
			if s1 > s0 {
				want = 1
			}
			if arm, prob := p.Select(3+round, x); arm != want || prob != 0 {
				t.Fatalf("per-arm %v, round %d: Select = (%d, %v), want (%d, 0) (scores %v, %v)", perArm, round, arm, prob, want, s0, s1)
			}
		}
	}
}

// TestPosteriorProbability: in dimension 1 with shared contexts, arm 0 is
// pulled with the posterior probability that its draw is the larger,
// Phi((mu0 − mu1)/(v·sqrt(1/B0 + 1/B1))): the draws have the posterior's
// scale, not just its mean.
func TestPosteriorProbability(t *testing.T) {
	const v = 0.5
	p := newPolicy(t, session(2, 1, false, v), 9)
	// B0 = 1 + 4·1 = 5, f0 = 4·0.5 = 2 → mu0 = 0.4; B1 = 1 + 2 = 3,
	// f1 = 2·0.3 = 0.6 → mu1 = 0.2.
	for range 4 {
		p.Observe(1, []float64{1}, 0, 0.5)
	}
	for range 2 {
		p.Observe(1, []float64{1}, 1, 0.3)
	}
	want := 0.5 * math.Erfc(-(0.4-0.2)/(v*math.Sqrt(1.0/5+1.0/3))/math.Sqrt2)
	const n = 100000
	var hits float64
	for range n {
		if a, _ := p.Select(10, []float64{1}); a == 0 {
			hits++
		}
	}
	if f, se := hits/n, math.Sqrt(want*(1-want)/n); math.Abs(f-want) > 5*se {
		t.Errorf("arm 0 pulled with frequency %v, want the posterior probability %v (±%v)", f, want, 5*se)
	}
}

// TestDefaultScale: v = 0 takes the reward sd, and is refused where there
// is none.
func TestDefaultScale(t *testing.T) {
	s := session(2, 1, false, 0)
	if p := newPolicy(t, s, 1); p.v != 0.5 {
		t.Errorf("gaussian, noise sd 0.5: v = %v, want 0.5", p.v)
	}
	s.Family = sdk.Bernoulli
	if p := newPolicy(t, s, 1); p.v != 0.5 {
		t.Errorf("bernoulli: v = %v, want 0.5", p.v)
	}
	s.Family, s.NoiseKnown = sdk.Gaussian, false
	if _, err := New(s, sdk.Replica{Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
		t.Error("v = 0 with an unknown gaussian noise sd was accepted")
	}
}

// TestRegret: on synthetic linear-Gaussian problems linear TS's regret is
// sublinear over 2,000 rounds and far below uniform play's.
func TestRegret(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k, d   int
		perArm bool
	}{
		{"shared", 5, 8, false},
		{"per-arm", 10, 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const T = 2000
			prob := ctxsim.NewLinear(tc.k, tc.d, tc.perArm, 0.1, 3)
			p := newPolicy(t, prob.Session(T, sdk.Params{"v": 0.0, "lambda": 1.0}), 4)
			res := prob.Run(p, T, 5)
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
	for _, perArm := range []bool{false, true} {
		const k, d = 26, 16
		p := newPolicy(t, session(k, d, perArm, 1), 1)
		ctxsim.CheckNoAllocs(t, fmt.Sprintf("per-arm %v", perArm), p, sdk.ContextShape{Dim: d, PerArm: perArm}.Width(k), 0.5)
	}
}

// BenchmarkRound is one round, Select and Observe, in process, at d = 16,
// K = 26 with the default intercept.
func BenchmarkRound(b *testing.B) {
	for _, perArm := range []bool{false, true} {
		name := "d16_K26"
		if perArm {
			name += "_perarm"
		}
		b.Run(name, func(b *testing.B) {
			s := session(26, 16, perArm, 1)
			s.Params["intercept"] = true
			ctxsim.BenchRound(b, newPolicy(b, s, 1), s.Context.Width(26))
		})
	}
}
