package swucb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/simtest"
	"github.com/regretbench/regretbench/sdk"
)

// The sessions and policies of these tests, built by simtest: a policy
// gets a Replica without Rand, as it must not need one.
var (
	gaussSession, bernSession = simtest.Sessions2[int64, float64]("tau", "xi")
	mustNew                   = simtest.MustNewFunc[*policy](New)
	newPolicy                 = simtest.Deterministic(New)
)

func TestNewValidates(t *testing.T) {
	simtest.CheckNew(t, New, []simtest.NewCase{
		{Name: "gaussian ok", S: gaussSession(2, 0.15, 0, 0.6), WantErr: false},
		{Name: "bernoulli ok", S: bernSession(2, 100, 0.6), WantErr: false},
		{Name: "xi 0 ok", S: bernSession(2, 100, 0), WantErr: false},
		{Name: "tau above T ok", S: bernSession(2, 10000, 0.6), WantErr: false},
		{Name: "no params: defaults", S: sdk.Session{Arms: 3, Horizon: 10, Family: sdk.Bernoulli}, WantErr: false},
		{Name: "noise unknown", S: func() sdk.Session { s := gaussSession(2, 0.15, 0, 0.6); s.NoiseKnown = false; return s }(), WantErr: true},
		{Name: "zero sd", S: gaussSession(2, 0, 0, 0.6), WantErr: true},
		{Name: "negative tau", S: bernSession(2, -1, 0.6), WantErr: true},
		{Name: "tau above MaxTau", S: bernSession(2, MaxTau+1, 0.6), WantErr: true},
		{Name: "negative xi", S: bernSession(2, 100, -0.1), WantErr: true},
		{Name: "NaN xi", S: bernSession(2, 100, math.NaN()), WantErr: true},
		{Name: "no arms", S: bernSession(0, 100, 0.6), WantErr: true},
		{Name: "no horizon", S: func() sdk.Session { s := bernSession(2, 100, 0.6); s.Horizon = 0; return s }(), WantErr: true},
		{Name: "unknown family", S: func() sdk.Session { s := bernSession(2, 100, 0.6); s.Family = "poisson"; return s }(), WantErr: true},
	})
}

func TestParamsResolve(t *testing.T) {
	p, err := sdk.Resolve(Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tau, xi := p.Int("tau"), p.Float("xi"); tau != 0 || xi != 0.6 {
		t.Fatalf("defaults tau = %v, xi = %v; want 0 (floor(4 sqrt(T ln T))) and 0.6", tau, xi)
	}
}

// TestTau checks the default window floor(4 sqrt(T ln T)) against
// hand-computed values.
func TestTau(t *testing.T) {
	tests := []struct{ tau, horizon, want int }{
		{0, 20000, 1780}, // 4*sqrt(20000*9.903488) = 4*445.05 = 1780.2
		{0, 1000, 332},   // 4*sqrt(1000*6.907755) = 4*83.11 = 332.5
		{0, 1, 1},        // ln 1 = 0: at least 1
		{50, 1000, 50},
	}
	for _, tc := range tests {
		if got := Tau(tc.tau, tc.horizon); got != tc.want {
			t.Errorf("Tau(%d, T=%d) = %d, want %d", tc.tau, tc.horizon, got, tc.want)
		}
	}
}

// obs is one observation fed to a policy: the round pulled, the arm, the
// reward.
type obs struct {
	t, arm int
	r      float64
}

// TestIndexHandComputed checks U_i(t) on hand-made observations against
// values computed by hand from the paper's formula, and the arm Select
// picks.
func TestIndexHandComputed(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		s    sdk.Session
		obs  []obs // in arrival order
		t    int
		want []float64 // hand-computed U_i(t)
		arm  int
	}{
		// Bernoulli (B = 1), tau = 4, xi = 0.6, round 7: the window is
		// rounds 3..6; arm 0 has rounds 3 (0) and 5 (1), arm 1 rounds 4 (1)
		// and 6 (1). ln(min(6, 4)) = ln 4 = 1.386294; bonus sqrt(0.6*1.386294/2)
		// = 0.644894029: U0 = 0.5 + 0.644894 = 1.144894029, U1 = 1.644894029.
		{"window", bernSession(2, 4, 0.6),
			[]obs{{1, 0, 1}, {2, 1, 0}, {3, 0, 0}, {4, 1, 1}, {5, 0, 1}, {6, 1, 1}}, 7,
			[]float64{1.144894029, 1.644894029}, 1},
		// Gaussian sd 0.25 (B = 0.5), tau = 3, xi = 1, round 5: the window
		// is rounds 2..4, all of arm 0 (0.4, 0.6, 0.5: mean 0.5); arm 1's
		// round 1 has left it, so U1 = +Inf and Select returns arm 1.
		// U0 = 0.5 + 0.5*sqrt(ln(3)/3) = 0.5 + 0.5*0.605148 = 0.802573998.
		{"arm left alone", gaussSession(2, 0.25, 3, 1),
			[]obs{{1, 1, 0.2}, {2, 0, 0.4}, {3, 0, 0.6}, {4, 0, 0.5}}, 5,
			[]float64{0.802573998, inf}, 1},
		// Delayed, Bernoulli, tau = 4, xi = 0.6, round 9 (window 5..8):
		// round 8 (arm 0, 1) arrives first, then round 2 (arm 1, 1), too
		// late for the window, then rounds 5 (arm 1, 0) and 7 (arm 0, 0).
		// U0 = 0.5 + sqrt(0.6 ln 4/2) = 1.144894029, U1 = 0 + sqrt(0.6 ln 4)
		// = 0.912017882.
		{"delayed", bernSession(2, 4, 0.6),
			[]obs{{8, 0, 1}, {2, 1, 1}, {5, 1, 0}, {7, 0, 0}}, 9,
			[]float64{1.144894029, 0.912017882}, 0},
		// A window longer than the horizon forgets nothing: tau = 100, T =
		// 10, round 4, ln(min(3, 100)) = ln 3 = 1.098612; U0 = 1 +
		// sqrt(0.6*1.098612/2) = 1.574093796, U1 = 0 + sqrt(0.6*1.098612)
		// = 0.811891232.
		{"tau > T", func() sdk.Session { s := bernSession(2, 100, 0.6); s.Horizon = 10; return s }(),
			[]obs{{1, 0, 1}, {2, 1, 0}, {3, 0, 1}}, 4,
			[]float64{1.574093796, 0.811891232}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.s)
			for _, o := range tc.obs {
				p.Observe(o.t, o.arm, o.r)
			}
			p.advance(tc.t - 1)
			for i, w := range tc.want {
				if got := p.index(tc.t, i); !(got == w || math.Abs(got-w) < 1e-8) {
					t.Errorf("U_%d(%d) = %.10f, hand-computed %.10f", i, tc.t, got, w)
				}
			}
			if got := p.Select(tc.t); got != tc.arm {
				t.Errorf("Select(%d) = %d, want %d", tc.t, got, tc.arm)
			}
		})
	}
}

// refIndex is SW-UCB's index from its definition, independent of the
// policy's ring: the observations so far, the round t, tau, xi and B.
func refIndex(seen []obs, arm, t, tau int, xi, b float64) float64 {
	sum, n := 0.0, 0.0
	for _, o := range seen {
		if o.arm == arm && o.t >= t-tau && o.t <= t-1 {
			sum += o.r
			n++
		}
	}
	if n == 0 {
		return math.Inf(1)
	}
	return sum/n + b*math.Sqrt(xi*math.Log(float64(min(t-1, tau)))/n)
}

// TestIndexMatchesDefinition plays random sessions with random delays
// (rewards arriving late and out of order, some never) and checks every
// index and every choice against refIndex over the list of observations.
func TestIndexMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 150 {
		k := 2 + rng.IntN(4)
		fam, sd := sdk.Gaussian, 0.1+rng.Float64()
		if trial%2 == 1 {
			fam, sd = sdk.Bernoulli, 0.5
		}
		horizon := 30 + rng.IntN(200)
		tau := []int{1, 2, 5, 17, 60, 1000}[rng.IntN(6)]
		xi := []float64{0, 0.6, 2}[trial%3]
		s := sdk.Session{Arms: k, Horizon: horizon, Family: fam, NoiseSD: sd, NoiseKnown: true,
			InitPulls: 1, Params: sdk.Params{"tau": int64(tau), "xi": xi}}
		p := mustNew(t, s)
		maxDelay := []int{0, 0, 2, 10, 40}[rng.IntN(5)]
		due := map[int][]obs{}
		var seen []obs
		for round := 1; round <= horizon; round++ {
			for _, o := range due[round] {
				p.Observe(o.t, o.arm, o.r)
				seen = append(seen, o)
			}
			var a int
			if round <= s.InitRounds() {
				a = (round - 1) % k
			} else {
				a = p.Select(round)
				want, wantV := 0, math.Inf(-1)
				refs := make([]float64, k)
				for i := range k {
					ref := refIndex(seen, i, round, tau, xi, 2*sd)
					if got := p.index(round, i); !(got == ref || math.Abs(got-ref) <= 1e-9*(1+math.Abs(ref))) {
						t.Fatalf("trial %d (tau %d): U_%d(%d) = %.17g, definition %.17g", trial, tau, i, round, got, ref)
					}
					refs[i] = ref
					if ref > wantV {
						want, wantV = i, ref
					}
				}
				// The argmax, up to ties the rounding of the running sums
				// may break either way (Bernoulli rewards tie often).
				if refs[a] < wantV-1e-9*(1+math.Abs(wantV)) {
					t.Fatalf("trial %d (tau %d): Select(%d) = %d, argmax of the definition %d", trial, tau, round, a, want)
				}
			}
			r := float64(rng.IntN(2))
			if fam == sdk.Gaussian {
				r = float64(a)*0.3 + sd*rng.NormFloat64()
			}
			d := rng.IntN(maxDelay + 1)
			due[round+d+1] = append(due[round+d+1], obs{round, a, r})
		}
	}
}

// TestFollowsAChange is the policy's purpose: when the best arm drops
// midway below another (0.9/0.6, then 0.1/0.6 from round 2001), SW-UCB with
// a window of 300 rounds has a dynamic regret far below that of the same
// index over the whole history (a window longer than the horizon), which
// keeps pulling the arm that used to be best until its long average sinks
// below the other's.
func TestFollowsAChange(t *testing.T) {
	ss := []sdk.Session{bernSession(2, 0, 0.6), gaussSession(2, 0.2, 0, 0.6)}
	for i := range ss {
		ss[i].Horizon = 4000
	}
	simtest.CheckFollowsAChange(t, newPolicy, 2000, sdk.Params{"tau": int64(300), "xi": 0.6}, sdk.Params{"tau": int64(4000), "xi": 0.6}, 3, ss...)
}

func TestRegretBeatsUniform(t *testing.T) {
	simtest.CheckBeatsUniformAll(t, newPolicy, []simtest.BeatsUniformCase{
		{Name: "gaussian 0.9/0.8 sd 0.15", S: gaussSession(2, 0.15, 0, 0.6), Means: []float64{0.9, 0.8}, Factor: 4},
		{Name: "bernoulli 0.8/0.5/0.2", S: bernSession(3, 0, 0.6), Means: []float64{0.8, 0.5, 0.2}, Factor: 4},
	})
}

func TestDeterministic(t *testing.T) {
	simtest.CheckDeterministic(t, newPolicy, false, gaussSession(3, 0.3, 0, 0.6), bernSession(3, 50, 0.6))
}

func TestSelectObserveAllocationFree(t *testing.T) {
	simtest.CheckAllocationFreeAll(t, newPolicy, gaussSession(10, 0.15, 0, 0.6), bernSession(10, 20, 0.6))
}

// BenchmarkRound measures one Select+Observe round of a gaussian K-armed
// replication.
func BenchmarkRound(b *testing.B) {
	simtest.BenchRounds(b, newPolicy, func(k int) sdk.Session { return gaussSession(k, 0.15, 0, 0.6) })
}

// TestScaleInvariant: the default window does not depend on B (see the
// package doc), so multiplying every reward and the noise sd by 4 changes
// no choice.
func TestScaleInvariant(t *testing.T) {
	simtest.CheckScaleInvariant(t, newPolicy, gaussSession(3, 0.2, 0, 0.6))
}

// TestDefaultTauReading checks the package doc's reading of the default
// window against the paper's tuning tau = 2B sqrt(T log T / Upsilon_T):
// with B = 1 it is that window for Upsilon_T = 1/4, twice the window for
// one breakpoint, and 1780 rounds at T = 20000.
func TestDefaultTauReading(t *testing.T) {
	theorem := func(b, horizon, upsilon float64) float64 {
		return 2 * b * math.Sqrt(horizon*math.Log(horizon)/upsilon)
	}
	for _, T := range []int{1000, 20000, 100000} {
		if got, want := Tau(0, T), int(theorem(1, float64(T), 0.25)); got != want {
			t.Errorf("T=%d: default tau %d, the tuning with B=1, Upsilon_T=1/4 gives %d", T, got, want)
		}
	}
	if got := Tau(0, 20000); got != 1780 {
		t.Errorf("default tau at T=20000: %d, the doc says 1780", got)
	}
	if got := int(theorem(1, 20000, 2)); got != 629 {
		t.Errorf("the tuning at T=20000, Upsilon_T=2: %d, the doc says 629", got)
	}
}
