package ducb

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
	gaussSession, bernSession = simtest.Sessions2[float64, float64]("gamma", "xi")
	mustNew                   = simtest.MustNewFunc[*policy](New)
	newPolicy                 = simtest.Deterministic(New)
)

func TestNewValidates(t *testing.T) {
	simtest.CheckNew(t, New, []simtest.NewCase{
		{Name: "gaussian ok", S: gaussSession(2, 0.15, 0, 0.6), WantErr: false},
		{Name: "bernoulli ok", S: bernSession(2, 0.99, 0.6), WantErr: false},
		{Name: "gamma 1 ok", S: bernSession(2, 1, 0.6), WantErr: false},
		{Name: "xi 0 ok", S: bernSession(2, 0.9, 0), WantErr: false},
		{Name: "no params: defaults", S: sdk.Session{Arms: 3, Horizon: 10, Family: sdk.Bernoulli}, WantErr: false},
		{Name: "noise unknown", S: func() sdk.Session { s := gaussSession(2, 0.15, 0, 0.6); s.NoiseKnown = false; return s }(), WantErr: true},
		{Name: "zero sd", S: gaussSession(2, 0, 0, 0.6), WantErr: true},
		{Name: "negative gamma", S: bernSession(2, -0.5, 0.6), WantErr: true},
		{Name: "gamma above 1", S: bernSession(2, 1.01, 0.6), WantErr: true},
		{Name: "NaN gamma", S: bernSession(2, math.NaN(), 0.6), WantErr: true},
		{Name: "negative xi", S: bernSession(2, 0.9, -1), WantErr: true},
		{Name: "infinite xi", S: bernSession(2, 0.9, math.Inf(1)), WantErr: true},
		{Name: "no arms", S: bernSession(0, 0.9, 0.6), WantErr: true},
		{Name: "no horizon", S: func() sdk.Session { s := bernSession(2, 0.9, 0.6); s.Horizon = 0; return s }(), WantErr: true},
		{Name: "unknown family", S: func() sdk.Session { s := bernSession(2, 0.9, 0.6); s.Family = "poisson"; return s }(), WantErr: true},
	})
}

func TestParamsResolve(t *testing.T) {
	p, err := sdk.Resolve(Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gamma, xi := p.Float("gamma"), p.Float("xi"); gamma != 0 || xi != 0.6 {
		t.Fatalf("defaults gamma = %v, xi = %v; want 0 (1 - 1/(4 sqrt T)) and 0.6", gamma, xi)
	}
}

// TestGamma checks the default discount 1 - 1/(4 sqrt T) against
// hand-computed values.
func TestGamma(t *testing.T) {
	tests := []struct {
		gamma   float64
		horizon int
		want    float64
	}{
		{0, 20000, 0.998232233}, // 1 - 1/(4*141.421356)
		{0, 1000, 0.992094306},  // 1 - 1/(4*31.622777)
		{0, 1, 0.75},
		{0.9, 1000, 0.9},
	}
	for _, tc := range tests {
		if got := Gamma(tc.gamma, tc.horizon); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Gamma(%v, T=%d) = %.10f, want %.10f", tc.gamma, tc.horizon, got, tc.want)
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
		// Bernoulli (B = 1), gamma = 0.5, xi = 0.6, round 4: round s weighs
		// 0.5^(3-s). Arm 0: rounds 1 (1, weight 0.25) and 3 (0, weight 1):
		// N0 = 1.25, mean 0.2; arm 1: round 2 (0, weight 0.5): N1 = 0.5,
		// mean 0; n = 1.75, ln n = 0.559615788.
		// U0 = 0.2 + 2 sqrt(0.6*0.559616/1.25) = 0.2 + 1.036562739 = 1.236562739
		// U1 = 0 + 2 sqrt(0.6*0.559616/0.5) = 1.638949597
		{"bernoulli", bernSession(2, 0.5, 0.6),
			[]obs{{1, 0, 1}, {2, 1, 0}, {3, 0, 0}}, 4,
			[]float64{1.236562739, 1.638949597}, 1},
		// Gaussian sd 0.25 (B = 0.5), gamma = 0.9, xi = 1, round 5: weights
		// 1, 0.9, 0.81, 0.729 for rounds 4, 3, 2, 1. Arm 0: rounds 1 (0.4),
		// 2 (0.6), 4 (0.2): N0 = 2.539, sum 0.9776, mean 0.385033478;
		// arm 1: round 3 (0.5): N1 = 0.9, mean 0.5; n = 3.439, ln n =
		// 1.235180. U0 = 0.385033 + 2*0.5*sqrt(1.235180/2.539) = 1.082516922,
		// U1 = 0.5 + sqrt(1.235180/0.9) = 1.671504603.
		{"gaussian", gaussSession(2, 0.25, 0.9, 1),
			[]obs{{1, 0, .4}, {2, 0, .6}, {3, 1, .5}, {4, 0, .2}}, 5,
			[]float64{1.082516922, 1.671504603}, 1},
		// Delayed, Bernoulli, gamma = 0.5, xi = 0.6, round 6 (weights
		// 0.5^(5-s)): round 5 (arm 0, 1) arrives first, then round 3 (arm
		// 1, 1, weight 0.25), then round 2 (arm 0, 0, weight 0.125).
		// N0 = 1.125, mean 0.888889; N1 = 0.25, mean 1; n = 1.375,
		// ln n = 0.318454. U0 = 0.888889 + 2 sqrt(0.6*0.318454/1.125) =
		// 1.713126694, U1 = 1 + 2 sqrt(0.6*0.318454/0.25) = 2.748472424.
		{"delayed", bernSession(2, 0.5, 0.6),
			[]obs{{5, 0, 1}, {3, 1, 1}, {2, 0, 0}}, 6,
			[]float64{1.713126694, 2.748472424}, 1},
		// Delays can leave n below 1: rounds 1 and 2 only, seen at round
		// 8 with gamma = 0.5, weigh 0.5^6 and 0.5^5: n = 0.046875, ln n < 0
		// is clamped to 0 and each index is its mean.
		{"n below 1", bernSession(2, 0.5, 0.6),
			[]obs{{1, 0, 1}, {2, 1, 0}}, 8,
			[]float64{1, 0}, 0},
		// An arm never observed has an infinite index. Round 3, gamma =
		// 0.5: arm 0 has round 1 (1, weight 0.5), arm 2 round 2 (1, weight
		// 1); n = 1.5, ln n = 0.405465. U0 = 1 + 2 sqrt(0.6*0.405465/0.5)
		// = 2.395074378, U2 = 1 + 2 sqrt(0.6*0.405465) = 1.986466553.
		{"unobserved arm", bernSession(3, 0.5, 0.6),
			[]obs{{1, 0, 1}, {2, 2, 1}}, 3,
			[]float64{2.395074378, inf, 1.986466553}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.s)
			for _, o := range tc.obs {
				p.Observe(o.t, o.arm, o.r)
			}
			p.decay(tc.t - 1)
			for i, w := range tc.want {
				if got := p.index(i); !(got == w || math.Abs(got-w) < 1e-8) {
					t.Errorf("U_%d(%d) = %.10f, hand-computed %.10f", i, tc.t, got, w)
				}
			}
			if got := p.Select(tc.t); got != tc.arm {
				t.Errorf("Select(%d) = %d, want %d", tc.t, got, tc.arm)
			}
		})
	}
}

// refIndices are D-UCB's indices from their definition, independent of the
// policy's decayed sums: the observations so far, K, the round t, gamma, xi
// and B, each weight computed as gamma^(t-1-s) directly.
func refIndices(seen []obs, k, t int, gamma, xi, b float64) []float64 {
	sum, n := make([]float64, k), make([]float64, k)
	total := 0.0
	for _, o := range seen {
		w := math.Pow(gamma, float64(t-1-o.t))
		total += w
		sum[o.arm] += w * o.r
		n[o.arm] += w
	}
	out := make([]float64, k)
	for i := range out {
		out[i] = math.Inf(1)
		if n[i] > 0 {
			out[i] = sum[i]/n[i] + 2*b*math.Sqrt(xi*math.Max(math.Log(total), 0)/n[i])
		}
	}
	return out
}

// TestIndexMatchesDefinition plays random sessions with random delays
// (rewards arriving late and out of order, some never) and checks every
// index and every choice against refIndices over the list of observations.
func TestIndexMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 150 {
		k := 2 + rng.IntN(4)
		fam, sd := sdk.Gaussian, 0.1+rng.Float64()
		if trial%2 == 1 {
			fam, sd = sdk.Bernoulli, 0.5
		}
		horizon := 30 + rng.IntN(200)
		gamma := []float64{0.5, 0.9, 0.99, 1, 0}[rng.IntN(5)]
		xi := []float64{0, 0.6, 2}[trial%3]
		s := sdk.Session{Arms: k, Horizon: horizon, Family: fam, NoiseSD: sd, NoiseKnown: true,
			InitPulls: 1, Params: sdk.Params{"gamma": gamma, "xi": xi}}
		p := mustNew(t, s)
		g := Gamma(gamma, horizon)
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
				refs := refIndices(seen, k, round, g, xi, 2*sd)
				for i, ref := range refs {
					if got := p.index(i); !(got == ref || math.Abs(got-ref) <= 1e-9*(1+math.Abs(ref))) {
						t.Fatalf("trial %d (gamma %v): U_%d(%d) = %.17g, definition %.17g", trial, g, i, round, got, ref)
					}
					if ref > wantV {
						want, wantV = i, ref
					}
				}
				// The argmax, up to ties the rounding of the running sums
				// may break either way (Bernoulli rewards tie often).
				if refs[a] < wantV-1e-9*(1+math.Abs(wantV)) {
					t.Fatalf("trial %d (gamma %v): Select(%d) = %d, argmax of the definition %d", trial, g, round, a, want)
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
// below another (0.9/0.6, then 0.1/0.6 from round 4001 of 6000), D-UCB
// with gamma = 0.998 has a dynamic regret well below that of the same
// index without discount (gamma = 1), which keeps pulling the arm that used
// to be best until its long average sinks below the other's. (D-UCB's
// padding, twice SW-UCB's, explores more: hence half, not a third.)
func TestFollowsAChange(t *testing.T) {
	ss := []sdk.Session{bernSession(2, 0, 0.6), gaussSession(2, 0.2, 0, 0.6)}
	for i := range ss {
		ss[i].Horizon = 6000
	}
	simtest.CheckFollowsAChange(t, newPolicy, 4000, sdk.Params{"gamma": 0.998, "xi": 0.6}, sdk.Params{"gamma": 1.0, "xi": 0.6}, 2, ss...)
}

func TestRegretBeatsUniform(t *testing.T) {
	simtest.CheckBeatsUniformAll(t, newPolicy, []simtest.BeatsUniformCase{
		// With the default discount (memory ~ 4 sqrt(T) rounds) and its
		// padding, D-UCB keeps exploring on a stationary instance.
		{Name: "gaussian 0.9/0.8 sd 0.15", S: gaussSession(2, 0.15, 0, 0.6), Means: []float64{0.9, 0.8}, Factor: 2},
		{Name: "bernoulli 0.8/0.5/0.2", S: bernSession(3, 0, 0.6), Means: []float64{0.8, 0.5, 0.2}, Factor: 2},
	})
}

func TestDeterministic(t *testing.T) {
	simtest.CheckDeterministic(t, newPolicy, false, gaussSession(3, 0.3, 0, 0.6), bernSession(3, 0.99, 0.6))
}

func TestSelectObserveAllocationFree(t *testing.T) {
	simtest.CheckAllocationFreeAll(t, newPolicy, gaussSession(10, 0.15, 0, 0.6), bernSession(10, 0.9, 0.6))
}

// BenchmarkRound measures one Select+Observe round of a gaussian K-armed
// replication.
func BenchmarkRound(b *testing.B) {
	simtest.BenchRounds(b, newPolicy, func(k int) sdk.Session { return gaussSession(k, 0.15, 0, 0.6) })
}

// TestScaleInvariant: the default discount does not depend on B (see the
// package doc), so multiplying every reward and the noise sd by 4 changes
// no choice.
func TestScaleInvariant(t *testing.T) {
	simtest.CheckScaleInvariant(t, newPolicy, gaussSession(3, 0.2, 0, 0.6))
}

// TestDefaultGammaReading checks the package doc's reading of the default
// discount against the paper's tuning gamma = 1 - (4B)^-1 sqrt(Upsilon_T /
// T): with B = 1 and one breakpoint it is the default, a memory
// 1/(1-gamma) of 4 sqrt T rounds.
func TestDefaultGammaReading(t *testing.T) {
	for _, T := range []int{1000, 20000, 100000} {
		want := 1 - math.Sqrt(1/float64(T))/(4*1)
		if got := Gamma(0, T); math.Abs(got-want) > 1e-15 {
			t.Errorf("T=%d: default gamma %v, the tuning with B=1, Upsilon_T=1 gives %v", T, got, want)
		}
	}
	if mem := 1 / (1 - Gamma(0, 20000)); math.Abs(mem-565.685) > 0.01 {
		t.Errorf("memory at T=20000: %v rounds, the doc says 566", mem)
	}
}
