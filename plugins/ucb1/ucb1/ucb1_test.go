package ucb1

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/simtest"
	"github.com/regretbench/regretbench/sdk"
)

// The sessions and policies of these tests, built by simtest: a policy
// gets a Replica without Rand, as it must not need one.
var (
	gaussSession, bernSession = simtest.Sessions1[float64]("c")
	mustNew                   = simtest.MustNewFunc[*policy](New)
	newPolicy                 = simtest.Deterministic(New)
)

func TestNewValidates(t *testing.T) {
	simtest.CheckNew(t, New, []simtest.NewCase{
		{Name: "gaussian ok", S: gaussSession(2, 0.15, 1), WantErr: false},
		{Name: "bernoulli ok", S: bernSession(2, 1), WantErr: false},
		{Name: "greedy ok", S: bernSession(2, 0), WantErr: false},
		{Name: "no params: defaults", S: sdk.Session{Arms: 3, Horizon: 10, Family: sdk.Bernoulli}, WantErr: false},
		{Name: "noise unknown", S: func() sdk.Session { s := gaussSession(2, 0.15, 1); s.NoiseKnown = false; return s }(), WantErr: true},
		{Name: "zero sd", S: gaussSession(2, 0, 1), WantErr: true},
		{Name: "negative c", S: gaussSession(2, 0.15, -1), WantErr: true},
		{Name: "NaN c", S: bernSession(2, math.NaN()), WantErr: true},
		{Name: "infinite c", S: bernSession(2, math.Inf(1)), WantErr: true},
		{Name: "no arms", S: bernSession(0, 1), WantErr: true},
		{Name: "unknown family", S: func() sdk.Session { s := bernSession(2, 1); s.Family = "poisson"; return s }(), WantErr: true},
	})
}

func TestParamsResolve(t *testing.T) {
	p, err := sdk.Resolve(Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Float("c"); got != 1 {
		t.Fatalf("default c = %v, want 1", got)
	}
}

// refIndex is UCB1's index from its definition, independent of the
// policy's running statistics: the arm's observed rewards, the round t
// (t-1 plays before it), the multiplier c and the range R.
func refIndex(rewards []float64, t int, c, r float64) float64 {
	if len(rewards) == 0 {
		return math.Inf(1)
	}
	sum := 0.0
	for _, x := range rewards {
		sum += x
	}
	n := float64(len(rewards))
	return sum/n + c*r*math.Sqrt(2*math.Log(float64(t-1))/n)
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
	tests := []struct {
		name string
		s    sdk.Session
		obs  []obs
		t    int
		want []float64 // hand-computed U_i(t)
		arm  int
	}{
		// Bernoulli, R = 1: arm 0 saw 1,0,1,1 (0.75, N=4), arm 1 saw 0,1
		// (0.5, N=2); round 7, 6 plays before: ln 6 = 1.791759469.
		// U0 = 0.75 + sqrt(2*1.791759/4) = 0.75 + 0.946509236 = 1.696509236
		// U1 = 0.5 + sqrt(2*1.791759/2) = 0.5 + 1.338566199 = 1.838566199
		{"bernoulli", bernSession(2, 1),
			[]obs{{1, 0, 1}, {2, 1, 0}, {3, 0, 0}, {4, 1, 1}, {5, 0, 1}, {6, 0, 1}}, 7,
			[]float64{1.696509236, 1.838566199}, 1},
		// Gaussian sd 0.2 (R = 0.4), c = 0.5: arm 0 saw .3,.5,.4 (0.4,
		// N=3), arm 1 saw .6 (N=1), arm 2 saw .1,.2 (0.15, N=2); round 8
		// and ln 7 = 1.945910149; c*R = 0.2.
		// U0 = 0.4 + 0.2*sqrt(2*1.945910/3) = 0.4 + 0.2*1.138978 = 0.627795824
		// U1 = 0.6 + 0.2*sqrt(2*1.945910/1) = 0.6 + 0.2*1.972770 = 0.994553940
		// U2 = 0.15 + 0.2*sqrt(2*1.945910/2) = 0.15 + 0.2*1.394959 = 0.428991767
		{"gaussian", gaussSession(3, 0.2, 0.5),
			[]obs{{1, 0, .3}, {2, 1, .6}, {3, 2, .1}, {4, 0, .5}, {5, 2, .2}, {6, 0, .4}}, 8,
			[]float64{0.627795824, 0.994553940, 0.428991767}, 1},
		// Delayed feedback: round 10, but only rounds 1, 2 and 4 have
		// arrived. n counts plays (9), not observations: ln 9 = 2.197224577;
		// U0 = 1 + sqrt(2*2.197225/1) = 1 + 2.096294148 = 3.096294148,
		// U1 = 0.5 + sqrt(2*2.197225/2) = 0.5 + 1.482303807 = 1.982303807.
		{"delayed: n counts plays", bernSession(2, 1),
			[]obs{{4, 1, 1}, {1, 0, 1}, {2, 1, 0}}, 10,
			[]float64{3.096294148, 1.982303807}, 0},
		// t = 2: ln 1 = 0, so U_i is the mean.
		{"t=2", bernSession(2, 1), []obs{{1, 1, 1}}, 2, []float64{math.Inf(1), 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.s)
			for _, o := range tc.obs {
				p.Observe(o.t, o.arm, o.r)
			}
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

// TestIndexMatchesDefinition plays random observation sequences, some
// arriving late and out of order, and checks every index and every choice
// against refIndex computed from the list of observed rewards.
func TestIndexMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		k := 2 + rng.IntN(5)
		fam, sd := sdk.Gaussian, 0.1+rng.Float64()
		if trial%2 == 1 {
			fam, sd = sdk.Bernoulli, 0.5
		}
		c := []float64{0, 0.5, 1, 2}[trial%4]
		s := sdk.Session{Arms: k, Horizon: 1000, Family: fam, NoiseSD: sd, NoiseKnown: true, Params: sdk.Params{"c": c}}
		p := mustNew(t, s)
		seen := make([][]float64, k)
		rounds := 1 + rng.IntN(60)
		order := rng.Perm(rounds) // arrival order: delays of any length
		for _, j := range order[:rounds-rng.IntN(rounds)] {
			a, r := rng.IntN(k), rng.NormFloat64()*sd
			if fam == sdk.Bernoulli {
				r = float64(rng.IntN(2))
			}
			p.Observe(j+1, a, r)
			seen[a] = append(seen[a], r)
		}
		tt := rounds + 1 + rng.IntN(5)
		want, wantV := 0, math.Inf(-1)
		for i := range k {
			ref := refIndex(seen[i], tt, c, 2*sd)
			got := p.index(tt, i)
			if !(got == ref || math.Abs(got-ref) <= 1e-12*(1+math.Abs(ref))) {
				t.Fatalf("trial %d: U_%d(%d) = %.17g, definition %.17g", trial, i, tt, got, ref)
			}
			if ref > wantV {
				want, wantV = i, ref
			}
		}
		if got := p.Select(tt); got != want {
			t.Fatalf("trial %d: Select(%d) = %d, argmax of the definition %d", trial, tt, got, want)
		}
	}
}

// TestRegretWithinBound checks the mean regret of 20 replications against
// Theorem 1's bound, 8 R^2 sum_i ln T / Delta_i + (1 + pi^2/3) sum_i
// Delta_i (R the reward range: 1 for Bernoulli, 2 sd for Gaussian), and
// against uniform play on the same instance.
func TestRegretWithinBound(t *testing.T) {
	tests := []struct {
		name   string
		s      sdk.Session
		r      float64
		means  []float64
		factor float64 // mean regret must be below uniform regret / factor
	}{
		{"gaussian 0.9/0.8 sd 0.15", gaussSession(2, 0.15, 1), 0.3, []float64{0.9, 0.8}, 7},
		{"bernoulli 0.8/0.5/0.2", bernSession(3, 1), 1, []float64{0.8, 0.5, 0.2}, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Horizon = 3000
			best := slices.Max(tc.means)
			bound := 0.0
			for _, m := range tc.means {
				if d := best - m; d > 0 {
					bound += 8*tc.r*tc.r*math.Log(float64(tc.s.Horizon))/d + (1+math.Pi*math.Pi/3)*d
				}
			}
			mean := simtest.MeanRegret(t, newPolicy, tc.s, tc.means, 20)
			t.Logf("mean regret %.2f, Theorem 1 bound %.1f", mean, bound)
			if mean > bound {
				t.Fatalf("mean regret %.2f above Theorem 1's bound %.2f", mean, bound)
			}
			if uniform := simtest.UniformRegret(tc.s.Horizon, tc.means); mean > uniform/tc.factor {
				t.Fatalf("mean regret %.2f not below uniform play's %.1f / %v", mean, uniform, tc.factor)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	simtest.CheckDeterministic(t, newPolicy, false, gaussSession(3, 0.3, 1), bernSession(3, 1))
}

func TestSelectObserveAllocationFree(t *testing.T) {
	simtest.CheckAllocationFreeAll(t, newPolicy, gaussSession(10, 0.15, 1), bernSession(10, 1))
}

// BenchmarkRound measures one Select+Observe round of a gaussian K-armed
// replication.
func BenchmarkRound(b *testing.B) {
	simtest.BenchRounds(b, newPolicy, func(k int) sdk.Session { return gaussSession(k, 0.15, 1) })
}
