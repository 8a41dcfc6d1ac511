package exp3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/regretbench/regretbench/plugins/internal/simtest"
	"github.com/regretbench/regretbench/sdk"
)

// replicaStream is the second PCG word of replica's random source.
const replicaStream = 0x657870

func replica(seed uint64) sdk.Replica { return simtest.Replica(seed, replicaStream) }

// The sessions and policies of these tests, built by simtest.
var (
	gaussSession, bernSession = simtest.Sessions1[float64]("gamma")
	newPolicy                 = simtest.Seeded(New, replicaStream)
)

func mustNew(t testing.TB, s sdk.Session, r sdk.Replica) *policy {
	t.Helper()
	return simtest.MustNew[*policy](t, New, s, r)
}

func TestNewValidates(t *testing.T) {
	simtest.CheckNew(t, New, []simtest.NewCase{
		{Name: "gaussian ok", S: gaussSession(2, 0.15, 0), R: replica(1), WantErr: false},
		{Name: "bernoulli ok", S: bernSession(2, 0.1), R: replica(1), WantErr: false},
		{Name: "gamma 1 ok", S: bernSession(2, 1), R: replica(1), WantErr: false},
		{Name: "no params: defaults", S: sdk.Session{Arms: 3, Horizon: 10, Family: sdk.Bernoulli}, R: replica(1), WantErr: false},
		{Name: "no random source", S: bernSession(2, 0), R: sdk.Replica{}, WantErr: true},
		{Name: "noise unknown", S: func() sdk.Session { s := gaussSession(2, 0.15, 0); s.NoiseKnown = false; return s }(), R: replica(1), WantErr: true},
		{Name: "zero sd", S: gaussSession(2, 0, 0), R: replica(1), WantErr: true},
		{Name: "negative gamma", S: bernSession(2, -0.1), R: replica(1), WantErr: true},
		{Name: "gamma above 1", S: bernSession(2, 1.5), R: replica(1), WantErr: true},
		{Name: "NaN gamma", S: bernSession(2, math.NaN()), R: replica(1), WantErr: true},
		{Name: "no arms", S: bernSession(0, 0), R: replica(1), WantErr: true},
		{Name: "no horizon", S: func() sdk.Session { s := bernSession(2, 0); s.Horizon = 0; return s }(), R: replica(1), WantErr: true},
		{Name: "unknown family", S: func() sdk.Session { s := bernSession(2, 0); s.Family = "poisson"; return s }(), R: replica(1), WantErr: true},
	})
}

func TestParamsResolve(t *testing.T) {
	p, err := sdk.Resolve(Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Float("gamma"); got != 0 {
		t.Fatalf("default gamma = %v, want 0 (Corollary 3.2's)", got)
	}
}

// TestGamma checks Corollary 3.2's gamma = min(1, sqrt(K ln K / ((e-1) T)))
// against hand-computed values.
func TestGamma(t *testing.T) {
	tests := []struct {
		gamma   float64
		k, t    int
		want    float64
		comment string
	}{
		{0, 2, 2000, 0.020084708, "sqrt(2*0.693147/(1.718282*2000))"},
		{0, 10, 100, 0.366067055, "sqrt(10*2.302585/(1.718282*100))"},
		{0, 10, 10, 1, "sqrt(13.4) > 1: capped"},
		{0, 1, 100, 0, "ln 1 = 0: one arm needs no exploration"},
		{0.25, 10, 100, 0.25, "given"},
	}
	for _, tc := range tests {
		if got := Gamma(tc.gamma, tc.k, tc.t); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Gamma(%v, K=%d, T=%d) = %.10f, want %.10f (%s)", tc.gamma, tc.k, tc.t, got, tc.want, tc.comment)
		}
	}
}

// TestHandComputed checks the probabilities after one drawn round against
// values computed by hand from the paper's update, whichever arm the draw
// picks (the instance is symmetric), and that forced rounds leave the
// weights alone.
func TestHandComputed(t *testing.T) {
	tests := []struct {
		name   string
		s      sdk.Session
		forced []float64 // rewards of forced rounds (arm = round-1 mod K)
		reward float64   // the drawn round's reward
		want   float64   // hand-computed p of the drawn arm afterwards
	}{
		// gamma = 0.5, K = 2, p = (1/2, 1/2); reward 1: xhat = 1/0.5 = 2,
		// w_a = exp(0.5*2/2) = e^0.5 = 1.648721; p_a = 0.5*1.648721/2.648721
		// + 0.25 = 0.561229666.
		{"bernoulli", bernSession(2, 0.5), nil, 1, 0.561229666},
		// Gaussian sd 0.5 (band 6 sd = 3). Forced rewards 1 and 0 do not
		// touch the weights; the drawn reward 1.3: centre m = (1+0+1.3)/3
		// = 0.766667, x = 0.5 + (1.3-0.766667)/3 = 0.677778, xhat =
		// 1.355556, S_a = 0.25*1.355556 = 0.338889; p_a = 0.5*e^S/(1+e^S)
		// + 0.25 = 0.541960298.
		{"gaussian", gaussSession(2, 0.5, 0.5), []float64{1, 0}, 1.3, 0.541960298},
		// A Bernoulli reward of 0 moves nothing: p_a stays 0.5.
		{"reward 0", bernSession(2, 0.5), []float64{1, 1}, 0, 0.5},
	}
	for _, tc := range tests {
		for seed := range uint64(4) { // both arms get drawn
			t.Run(fmt.Sprintf("%s/seed %d", tc.name, seed), func(t *testing.T) {
				p := mustNew(t, tc.s, replica(seed))
				round := 0
				for _, r := range tc.forced {
					round++
					p.Observe(round, (round-1)%tc.s.Arms, r)
				}
				if prob := p.probabilities(); prob[0] != 0.5 || prob[1] != 0.5 {
					t.Fatalf("after forced rounds p = %v, want uniform", prob)
				}
				round++
				a := p.Select(round)
				p.Observe(round, a, tc.reward)
				if got := p.probabilities()[a]; math.Abs(got-tc.want) > 1e-8 {
					t.Fatalf("p_%d = %.10f, hand-computed %.10f", a, got, tc.want)
				}
			})
		}
	}
}

// reference is Exp3 from the paper's definition, written independently of
// the policy: weights w_i (not log-weights), p_i = (1-gamma) w_i/sum w +
// gamma/K, w_a *= exp(gamma xhat/K) with xhat = x/p_a(s) for the
// probability of the round s the arm was drawn in, and the draw by the
// inverse CDF of a uniform from a copy of the policy's random source.
type reference struct {
	gamma    float64
	w        []float64
	rng      *rand.Rand
	drawn    map[int][2]float64 // round -> (arm, p)
	gaussian bool
	sd       float64
	seen     []float64 // every observed reward, for the Gaussian centre
}

func (r *reference) probs() []float64 {
	total := 0.0
	for _, w := range r.w {
		total += w
	}
	k := float64(len(r.w))
	out := make([]float64, len(r.w))
	for i, w := range r.w {
		out[i] = (1-r.gamma)*w/total + r.gamma/k
	}
	return out
}

func (r *reference) draw(t int) int {
	p := r.probs()
	u := r.rng.Float64()
	arm := len(p) - 1
	for i, cum := 0, 0.0; i < len(p); i++ {
		cum += p[i]
		if u < cum {
			arm = i
			break
		}
	}
	r.drawn[t] = [2]float64{float64(arm), p[arm]}
	return arm
}

func (r *reference) observe(t, arm int, reward float64) {
	x := math.Min(math.Max(reward, 0), 1)
	if r.gaussian {
		r.seen = append(r.seen, reward)
		m := 0.0
		for _, v := range r.seen {
			m += v
		}
		m /= float64(len(r.seen))
		x = math.Min(math.Max(0.5+(reward-m)/(6*r.sd), 0), 1)
	}
	d, ok := r.drawn[t]
	if !ok || int(d[0]) != arm {
		return
	}
	r.w[arm] *= math.Exp(r.gamma * (x / d[1]) / float64(len(r.w)))
}

// TestMatchesDefinition plays random sessions with rewards that arrive
// late and out of order (and forced rounds first) through the policy and
// through reference, and checks that every round's probabilities and drawn
// arm agree.
func TestMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 100 {
		k := 2 + rng.IntN(5)
		fam, sd := sdk.Gaussian, 0.1+rng.Float64()
		if trial%2 == 1 {
			fam, sd = sdk.Bernoulli, 0.5
		}
		gamma := []float64{0, 0.05, 0.3, 1}[trial%4]
		horizon := 50 + rng.IntN(150)
		s := sdk.Session{Arms: k, Horizon: horizon, Family: fam, NoiseSD: sd, NoiseKnown: true,
			InitPulls: rng.IntN(2), Params: sdk.Params{"gamma": gamma}}
		seed := rng.Uint64()
		p := mustNew(t, s, sdk.Replica{Rand: rand.New(rand.NewPCG(seed, 1))})
		ref := &reference{gamma: Gamma(gamma, k, horizon), w: make([]float64, k),
			rng: rand.New(rand.NewPCG(seed, 1)), drawn: map[int][2]float64{}, gaussian: fam == sdk.Gaussian, sd: sd}
		for i := range ref.w {
			ref.w[i] = 1
		}
		maxDelay := []int{0, 0, 3, 20}[rng.IntN(4)]
		due := map[int][]int{} // arrival round -> rounds arriving then
		arms := map[int]int{}
		for round := 1; round <= horizon; round++ {
			for _, s := range due[round] {
				var r float64
				if fam == sdk.Bernoulli {
					r = float64(rng.IntN(2))
				} else {
					r = float64(arms[s]) + sd*rng.NormFloat64()
				}
				p.Observe(s, arms[s], r)
				ref.observe(s, arms[s], r)
			}
			var a int
			if round <= s.InitRounds() {
				a = (round - 1) % k
			} else {
				want := ref.probs()
				got := p.probabilities()
				for i := range want {
					if math.Abs(got[i]-want[i]) > 1e-12 {
						t.Fatalf("trial %d round %d: p = %v, definition %v", trial, round, got, want)
					}
				}
				a = p.Select(round)
				if w := ref.draw(round); a != w {
					t.Fatalf("trial %d round %d: drew arm %d, the inverse CDF of the same uniform gives %d", trial, round, a, w)
				}
			}
			arms[round] = a
			d := rng.IntN(maxDelay + 1)
			due[round+d+1] = append(due[round+d+1], round)
		}
	}
}

// TestRegretWithinBound checks the mean regret of 20 replications against
// Corollary 3.2's bound 2.63 sqrt(T K ln K) for rewards in [0, 1] (for
// Gaussian rewards the bound of the mapped rewards, times the band 6 sd),
// and against uniform play on an instance with a large gap.
func TestRegretWithinBound(t *testing.T) {
	tests := []struct {
		name   string
		s      sdk.Session
		scale  float64 // reward units per unit of mapped reward
		means  []float64
		factor float64 // mean regret must be below uniform regret / factor
	}{
		{"bernoulli 0.9/0.8", bernSession(2, 0), 1, []float64{0.9, 0.8}, 1.4},
		{"bernoulli 0.9/0.3/0.1", bernSession(3, 0), 1, []float64{0.9, 0.3, 0.1}, 5},
		{"gaussian 0.9/0.8 sd 0.15", gaussSession(2, 0.15, 0), 0.9, []float64{0.9, 0.8}, 1.4},
		{"gaussian 1/0 sd 0.3", gaussSession(2, 0.3, 0), 1.8, []float64{1, 0}, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Horizon = 3000
			k := float64(tc.s.Arms)
			bound := tc.scale * 2.63 * math.Sqrt(float64(tc.s.Horizon)*k*math.Log(k))
			mean := simtest.MeanRegret(t, newPolicy, tc.s, tc.means, 20)
			t.Logf("mean regret %.2f, Corollary 3.2 bound %.1f", mean, bound)
			if mean > bound {
				t.Fatalf("mean regret %.2f above Corollary 3.2's bound %.2f", mean, bound)
			}
			if uniform := simtest.UniformRegret(tc.s.Horizon, tc.means); mean > uniform/tc.factor {
				t.Fatalf("mean regret %.2f not below uniform play's %.1f / %v", mean, uniform, tc.factor)
			}
		})
	}
}

func TestDeterministicGivenSeed(t *testing.T) {
	simtest.CheckDeterministic(t, newPolicy, true, gaussSession(3, 0.3, 0), bernSession(3, 0))
}

func TestSelectObserveAllocationFree(t *testing.T) {
	simtest.CheckAllocationFreeAll(t, newPolicy, gaussSession(10, 0.15, 0), bernSession(10, 0))
}

// BenchmarkRound measures one Select+Observe round of a gaussian K-armed
// replication.
func BenchmarkRound(b *testing.B) {
	simtest.BenchRounds(b, newPolicy, func(k int) sdk.Session { return gaussSession(k, 0.15, 0) })
}
