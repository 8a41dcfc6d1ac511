package moss

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
	gaussSession, bernSession = simtest.Sessions1[float64]("c")
	mustNew                   = simtest.MustNewFunc[*policy](New)
	newPolicy                 = simtest.Deterministic(New)
)

func TestNewValidates(t *testing.T) {
	simtest.CheckNew(t, New, []simtest.NewCase{
		{Name: "gaussian ok", S: gaussSession(2, 0.15, 1), WantErr: false},
		{Name: "bernoulli ok", S: bernSession(2, 1), WantErr: false},
		{Name: "no params: defaults", S: sdk.Session{Arms: 3, Horizon: 10, Family: sdk.Bernoulli}, WantErr: false},
		{Name: "noise unknown", S: func() sdk.Session { s := gaussSession(2, 0.15, 1); s.NoiseKnown = false; return s }(), WantErr: true},
		{Name: "zero sd", S: gaussSession(2, 0, 1), WantErr: true},
		{Name: "negative c", S: gaussSession(2, 0.15, -1), WantErr: true},
		{Name: "NaN c", S: bernSession(2, math.NaN()), WantErr: true},
		{Name: "no arms", S: bernSession(0, 1), WantErr: true},
		{Name: "no horizon", S: func() sdk.Session { s := bernSession(2, 1); s.Horizon = 0; return s }(), WantErr: true},
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

// refIndex is MOSS's index from its definition, independent of the
// policy's running statistics: the arm's observed rewards, the horizon T,
// the number of arms K, the multiplier c and the range R.
func refIndex(rewards []float64, horizon, k int, c, r float64) float64 {
	if len(rewards) == 0 {
		return math.Inf(1)
	}
	sum := 0.0
	for _, x := range rewards {
		sum += x
	}
	n := float64(len(rewards))
	return sum/n + c*r*math.Sqrt(math.Max(math.Log(float64(horizon)/(float64(k)*n)), 0)/n)
}

// observe feeds the policy n rewards of arm, rounds numbered on from
// *round, so that their mean is mean (alternating mean-d and mean+d, and
// mean itself last when n is odd).
func observe(p *policy, round *int, arm, n int, mean, d float64) {
	for i := range n {
		r := mean
		if i < n-n%2 {
			r += d * float64(1-2*(i%2))
		}
		*round++
		p.Observe(*round, arm, r)
	}
}

// TestIndexHandComputed checks U_i on hand-made observations against
// values computed by hand from the paper's formula, and the arm Select
// picks.
func TestIndexHandComputed(t *testing.T) {
	type arm struct {
		n       int
		mean, d float64
	}
	tests := []struct {
		name    string
		s       sdk.Session
		horizon int
		arms    []arm
		want    []float64 // hand-computed U_i
		pick    int
	}{
		// Rewards alternate mean+d, mean-d. Bernoulli, R = 1, T = 100,
		// K = 2: arm 0 has N = 4, mean 0.75: ln(100/8) = 2.525728644,
		// U0 = 0.75 + sqrt(2.525729/4) = 0.75 + 0.794627058 = 1.544627058;
		// arm 1 has N = 50 = T/K, mean 0.5: ln 1 = 0, U1 = 0.5.
		{"bernoulli", bernSession(2, 1), 100, []arm{{4, 0.75, 0.25}, {50, 0.5, 0.5}},
			[]float64{1.544627058, 0.5}, 0},
		// Gaussian sd 0.2 (R = 0.4), T = 300, K = 3, T/K = 100:
		// U0 = 0.4 + 0.4*sqrt(ln(25)/4) = 0.4 + 0.4*0.897061 = 0.758824516
		// U1 = 0.6 + 0.4*sqrt(ln(100)/1) = 0.6 + 0.4*2.145966 = 1.458386411
		// U2: N = 150 > T/K, bonus 0: U2 = 0.7.
		{"gaussian", gaussSession(3, 0.2, 1), 300, []arm{{4, 0.4, 0.1}, {1, 0.6, 0}, {150, 0.7, 0.3}},
			[]float64{0.758824516, 1.458386411, 0.7}, 1},
		// c = 0.5, Bernoulli, T = 100, K = 2: U0 = 0.3 + 0.5*sqrt(ln(25)/2)
		// = 0.3 + 0.5*1.268636 = 0.934318121; arm 1 unobserved: +Inf.
		{"c=0.5, one arm unobserved", bernSession(2, 0.5), 100, []arm{{2, 0.3, 0.3}, {0, 0, 0}},
			[]float64{0.934318121, math.Inf(1)}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Horizon = tc.horizon
			p := mustNew(t, tc.s)
			round := 0
			for i, a := range tc.arms {
				observe(p, &round, i, a.n, a.mean, a.d)
			}
			for i, w := range tc.want {
				if got := p.index(i); !(got == w || math.Abs(got-w) < 1e-8) {
					t.Errorf("U_%d = %.10f, hand-computed %.10f", i, got, w)
				}
			}
			if got := p.Select(round + 1); got != tc.pick {
				t.Errorf("Select = %d, want %d", got, tc.pick)
			}
		})
	}
}

// TestIndexMatchesDefinition plays random observation sequences, some
// arriving late and out of order, and checks every index and every choice
// against refIndex computed from the list of observed rewards.
func TestIndexMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		k := 2 + rng.IntN(5)
		fam, sd := sdk.Gaussian, 0.1+rng.Float64()
		if trial%2 == 1 {
			fam, sd = sdk.Bernoulli, 0.5
		}
		c := []float64{0, 0.5, 1, 2}[trial%4]
		horizon := 20 + rng.IntN(400)
		s := sdk.Session{Arms: k, Horizon: horizon, Family: fam, NoiseSD: sd, NoiseKnown: true, Params: sdk.Params{"c": c}}
		p := mustNew(t, s)
		seen := make([][]float64, k)
		rounds := 1 + rng.IntN(min(horizon-1, 120))
		order := rng.Perm(rounds) // arrival order: delays of any length
		for _, j := range order[:rounds-rng.IntN(rounds)] {
			a, r := rng.IntN(k), rng.NormFloat64()*sd
			if fam == sdk.Bernoulli {
				r = float64(rng.IntN(2))
			}
			p.Observe(j+1, a, r)
			seen[a] = append(seen[a], r)
		}
		want, wantV := 0, math.Inf(-1)
		for i := range k {
			ref := refIndex(seen[i], horizon, k, c, 2*sd)
			got := p.index(i)
			if !(got == ref || math.Abs(got-ref) <= 1e-12*(1+math.Abs(ref))) {
				t.Fatalf("trial %d: U_%d = %.17g, definition %.17g", trial, i, got, ref)
			}
			if ref > wantV {
				want, wantV = i, ref
			}
		}
		if got := p.Select(rounds + 1); got != want {
			t.Fatalf("trial %d: Select = %d, argmax of the definition %d", trial, got, want)
		}
	}
}

// TestRegretWithinBound checks the mean regret of 20 replications against
// the paper's minimax bound, 49 R sqrt(T K) (R the reward range: 1 for
// Bernoulli, 2 sd for Gaussian), and, since that bound is loose at these
// horizons, against uniform play on the same instance.
func TestRegretWithinBound(t *testing.T) {
	tests := []struct {
		name   string
		s      sdk.Session
		r      float64
		means  []float64
		factor float64 // mean regret must be below uniform regret / factor
	}{
		{"gaussian 0.9/0.8 sd 0.15", gaussSession(2, 0.15, 1), 0.3, []float64{0.9, 0.8}, 15},
		{"bernoulli 0.8/0.5/0.2", bernSession(3, 1), 1, []float64{0.8, 0.5, 0.2}, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Horizon = 3000
			bound := 49 * tc.r * math.Sqrt(float64(tc.s.Horizon*tc.s.Arms))
			mean := simtest.MeanRegret(t, newPolicy, tc.s, tc.means, 20)
			t.Logf("mean regret %.2f, minimax bound %.1f", mean, bound)
			if mean > bound {
				t.Fatalf("mean regret %.2f above the minimax bound %.2f", mean, bound)
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
