package klucb

import (
	"fmt"
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
	mustNew                   = simtest.MustNewFunc[sdk.Policy](New)
	newPolicy                 = simtest.Deterministic(New)
)

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name    string
		s       sdk.Session
		wantErr bool
	}{
		{"gaussian ok", gaussSession(2, 0.15, 0), false},
		{"bernoulli ok", bernSession(2, 3), false},
		{"noise unknown", func() sdk.Session { s := gaussSession(2, 0.15, 0); s.NoiseKnown = false; return s }(), true},
		{"zero sd", gaussSession(2, 0, 0), true},
		{"negative c", gaussSession(2, 0.15, -1), true},
		{"NaN c", bernSession(2, math.NaN()), true},
		{"no arms", bernSession(0, 0), true},
		{"unknown family", func() sdk.Session { s := bernSession(2, 0); s.Family = "poisson"; return s }(), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.s, sdk.Replica{})
			if (err != nil) != tc.wantErr {
				t.Fatalf("New error = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestParamsResolve(t *testing.T) {
	p, err := sdk.Resolve(Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Float("c"); got != 0 {
		t.Fatalf("default c = %v, want 0", got)
	}
}

func TestLevel(t *testing.T) {
	tests := []struct {
		t    int
		c    float64
		want float64
	}{
		{1, 0, 0},
		{1, 3, 0},        // log log 1 = -Inf, clamped to 0
		{2, 0, math.Ln2}, // c = 0: no log log term at all
		{2, 3, math.Ln2}, // log log 2 < 0, clamped to 0
		{3, 3, math.Log(3) + 3*math.Log(math.Log(3))}, // log log 3 = 0.094 > 0
		{100, 0, math.Log(100)},
		{100, 3, math.Log(100) + 3*math.Log(math.Log(100))},
	}
	for _, tc := range tests {
		if got := level(tc.t, tc.c); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("level(%d, %v) = %.17g, want %.17g", tc.t, tc.c, got, tc.want)
		}
	}
}

// feed plays the given (arm, reward) pairs as host-forced rounds.
func feed(p sdk.Policy, obs [][2]float64) int {
	for i, o := range obs {
		p.Observe(i+1, int(o[0]), o[1])
	}
	return len(obs)
}

// TestGaussianIndexClosedForm checks the policy's choice and index against
// hand-computed values of muhat + sqrt(2 sd^2 (log t + c log log t)/N).
func TestGaussianIndexClosedForm(t *testing.T) {
	tests := []struct {
		name      string
		t         int
		n         float64
		mu, sd, c float64
		want      float64 // hand-computed
	}{
		// log 100 = 4.6051702; sqrt(2*0.0225*4.6051702/4) = sqrt(0.0518082) = 0.2276141
		{"t=100 N=4", 100, 4, 0.5, 0.15, 0, 0.5 + 0.2276141},
		// log 1000 = 6.9077553, loglog = 1.9326447; L = 6.9077553+3*1.9326447 = 12.7056894;
		// sqrt(2*1*12.7056894/10) = sqrt(2.5411379) = 1.5940947
		{"t=1000 N=10 c=3 sd=1", 1000, 10, -0.2, 1, 3, -0.2 + 1.5940947},
		// t = 1: L = 0, index = muhat
		{"t=1", 1, 1, 0.3, 0.5, 0, 0.3},
		// t = 2, c = 3: log log 2 < 0 is clamped: L = log 2; sqrt(2*0.04*0.6931472/2) = 0.1665109
		{"t=2 clamp", 2, 2, 0.7, 0.2, 3, 0.7 + 0.1665109},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := gaussianIndex(tc.mu, tc.n, tc.sd, level(tc.t, tc.c))
			if math.Abs(got-tc.want) > 1e-7 {
				t.Fatalf("index = %.9f, hand-computed %.9f", got, tc.want)
			}
			// The policy's internal mean_i + width_i*sqrt(L) must agree
			// with the closed form.
			p := mustNew(t, gaussSession(1, tc.sd, tc.c)).(*gaussian)
			for i := range int(tc.n) {
				p.Observe(i+1, 0, tc.mu+0.1*float64(2*(i%2)-1)*float64(1-int(tc.n)%2)) // mean exactly mu
			}
			u := p.arms.Mean[0] + p.width[0]*math.Sqrt(level(tc.t, tc.c))
			if math.Abs(u-tc.want) > 1e-7 {
				t.Fatalf("policy index = %.9f, hand-computed %.9f", u, tc.want)
			}
		})
	}
}

// TestGaussianSelect checks the argmax, including the optimism that makes a
// less-pulled arm with a lower mean win, and the lowest-index tie rule.
func TestGaussianSelect(t *testing.T) {
	tests := []struct {
		name string
		obs  [][2]float64 // (arm, reward)
		t    int
		want int
	}{
		// arm0: mu 0.9 N=10, arm1: mu 0.8 N=1; sd 0.15, t=12:
		// U0 = 0.9+sqrt(0.045*log12/10)=0.9+0.1055=1.0055, U1 = 0.8+0.3336 = 1.1336
		{"optimism", append(repeat(0, 0.9, 10), [2]float64{1, 0.8}), 12, 1},
		// with arm1 pulled 10 times too, arm0 wins
		{"exploit", append(repeat(0, 0.9, 10), repeat(1, 0.8, 10)...), 21, 0},
		{"tie lowest index", append(repeat(0, 0.5, 3), repeat(1, 0.5, 3)...), 7, 0},
		{"unpulled first", repeat(1, 0.5, 3), 4, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, gaussSession(2, 0.15, 0))
			feed(p, tc.obs)
			if got := p.Select(tc.t); got != tc.want {
				t.Fatalf("Select(%d) = %d, want %d", tc.t, got, tc.want)
			}
		})
	}
}

func repeat(arm int, r float64, n int) [][2]float64 {
	out := make([][2]float64, n)
	for i := range out {
		out[i] = [2]float64{float64(arm), r}
	}
	return out
}

// TestBernoulliIndex checks q in [muhat, 1], N kl(muhat, q) = L within 1e-8
// when q < 1 (and the root is representable below 1), maximality (q + 1e-8 violates the constraint), and the edge
// cases muhat = 0 (closed form 1 - exp(-L/N)), muhat = 1 (q = 1) and L = 0
// (q = muhat).
func TestBernoulliIndex(t *testing.T) {
	tests := []struct {
		name   string
		mu, n  float64
		t      int
		c      float64
		closed float64 // closed-form index when known, else NaN
	}{
		{"mid", 0.5, 10, 100, 0, math.NaN()},
		{"mid c=3", 0.5, 10, 100, 3, math.NaN()},
		{"large N", 0.37, 5000, 20000, 0, math.NaN()},
		{"huge N", 0.9, 1e6, 1e6, 0, math.NaN()},
		{"near 1", 0.99, 1000, 5000, 0, math.NaN()},
		{"near 1 few pulls", 0.9, 5, 5000, 0, math.NaN()},
		// The exact root is ~1 - 1e-77, beyond float64 resolution: no
		// float q < 1 attains the equation; q must be within 1e-9 of 1.
		{"root unrepresentable", 0.999, 50, 5000, 0, 1},
		{"small mu", 0.01, 200, 5000, 0, math.NaN()},
		{"N=1", 0.3, 1, 3, 0, math.NaN()},
		{"muhat=0", 0, 7, 500, 0, 1 - math.Exp(-math.Log(500)/7)},
		{"muhat=0 c=3", 0, 40, 5000, 3, 1 - math.Exp(-level(5000, 3)/40)},
		{"muhat=1", 1, 7, 500, 0, 1},
		{"t=1 (L=0)", 0.42, 3, 1, 0, 0.42},
		{"t=2 c=3 clamp", 0, 2, 2, 3, 1 - math.Exp(-math.Ln2/2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := level(tc.t, tc.c)
			q := bernoulliIndex(tc.mu, tc.n, l)
			if !(q >= tc.mu && q <= 1) {
				t.Fatalf("q = %v outside [muhat, 1] = [%v, 1]", q, tc.mu)
			}
			if !math.IsNaN(tc.closed) && math.Abs(q-tc.closed) > 1e-9 {
				t.Fatalf("q = %.12f, closed form %.12f", q, tc.closed)
			}
			if tc.n*kl(tc.mu, math.Nextafter(1, 0)) <= l {
				// Root within one ulp of 1: only the 1e-9 accuracy applies.
				if 1-q > bisectTol {
					t.Fatalf("q = %.12f, more than %v below the root ~1", q, bisectTol)
				}
				return
			}
			if q < 1 {
				// 1e-8, unless float64 cannot resolve it: kl' is huge when
				// the index is within ~1e-8 of 1, and the residual of the
				// best float q is then N kl'(q) * ulp(q)/2.
				tol := max(1e-8, 2*tc.n*(q-tc.mu)/(q*(1-q))*(math.Nextafter(q, 2)-q))
				if r := tc.n*kl(tc.mu, q) - l; math.Abs(r) > tol {
					t.Fatalf("N kl(muhat, q) - L = %.3g, want |.| <= %.3g (q = %.12f)", r, tol, q)
				}
				// q is within bisectTol of the exact index.
				if q2 := q + bisectTol; q2 <= 1 && tc.n*kl(tc.mu, q2) <= l {
					t.Fatalf("q = %.12f is not the largest feasible q: %.12f also is", q, q2)
				}
				if q2 := q - bisectTol; q2 >= tc.mu && tc.n*kl(tc.mu, q2) > l {
					t.Fatalf("q = %.12f is more than %v above the index", q, bisectTol)
				}
			} else if tc.n*kl(tc.mu, 1) > l {
				t.Fatalf("q = 1 but N kl(muhat, 1) = %v > L = %v", tc.n*kl(tc.mu, 1), l)
			}
			// The Pinsker bound used for pruning must bound the index.
			if ub := pinsker(tc.mu, tc.n, l); q > ub {
				t.Fatalf("q = %v above its Pinsker bound %v", q, ub)
			}
		})
	}
}

func TestKL(t *testing.T) {
	tests := []struct{ p, q, want float64 }{
		{0.5, 0.5, 0},
		{0, 0.5, math.Ln2},
		{1, 0.5, math.Ln2},
		{0, 0, 0},
		{1, 1, 0},
		{0.5, 1, math.Inf(1)},
		{0.3, 0.6, 0.3*math.Log(0.3/0.6) + 0.7*math.Log(0.7/0.4)},
	}
	for _, tc := range tests {
		if got := kl(tc.p, tc.q); !(got == tc.want || math.Abs(got-tc.want) < 1e-15) {
			t.Errorf("kl(%v, %v) = %v, want %v", tc.p, tc.q, got, tc.want)
		}
	}
}

// TestBernoulliSelectMatchesBruteForce checks that the Pinsker pruning in
// Select does not change the argmax: compare to the unpruned argmax on
// random states.
func TestBernoulliSelectMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 2000 {
		k := 2 + rng.IntN(9)
		p := mustNew(t, bernSession(k, float64(trial%2)*3)).(*bernoulli)
		round := 0
		for a := range k {
			mu := rng.Float64()
			for range 1 + rng.IntN(30) {
				round++
				r := 0.0
				if rng.Float64() < mu {
					r = 1
				}
				p.Observe(round, a, r)
			}
		}
		tt := round + 1 + rng.IntN(1000)
		l := level(tt, p.c)
		want, wantV := 0, math.Inf(-1)
		for i := range k {
			if v := bernoulliIndex(p.arms.Mean[i], p.arms.N[i], l); v > wantV {
				want, wantV = i, v
			}
		}
		if got := p.Select(tt); got != want {
			t.Fatalf("trial %d: Select = %d, brute-force argmax %d", trial, got, want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, s := range []sdk.Session{gaussSession(3, 0.3, 0), bernSession(3, 0)} {
		t.Run(string(s.Family), func(t *testing.T) {
			s.Horizon = 2000
			means := []float64{0.5, 0.45, 0.4}
			_, a := simtest.Simulate(t, newPolicy, s, means, 3)
			_, b := simtest.Simulate(t, newPolicy, s, means, 3)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatal("same rewards gave different arm sequences")
			}
		})
	}
}

func TestRegretBeatsUniform(t *testing.T) {
	tests := []struct {
		name   string
		s      sdk.Session
		means  []float64
		factor float64 // mean regret must be below uniform regret / factor
	}{
		{"gaussian 0.9/0.8 sd 0.15", gaussSession(2, 0.15, 0), []float64{0.9, 0.8}, 20},
		{"gaussian 0.9/0.8 sd 0.15 c=3", gaussSession(2, 0.15, 3), []float64{0.9, 0.8}, 10},
		{"bernoulli 0.9/0.8", bernSession(2, 0), []float64{0.9, 0.8}, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			simtest.CheckBeatsUniform(t, newPolicy, tc.s, tc.means, 20, tc.factor)
		})
	}
}

func TestSelectObserveAllocationFree(t *testing.T) {
	for _, s := range []sdk.Session{gaussSession(10, 0.15, 0), bernSession(10, 0)} {
		t.Run(string(s.Family), func(t *testing.T) { simtest.CheckAllocationFree(t, newPolicy, s) })
	}
}

// BenchmarkRound measures one Select+Observe round of a gaussian K-armed
// replication.
func BenchmarkRound(b *testing.B) {
	simtest.BenchRounds(b, newPolicy, func(k int) sdk.Session { return gaussSession(k, 0.15, 0) })
}

// BenchmarkRoundBernoulli is BenchmarkRound for the bisection index.
func BenchmarkRoundBernoulli(b *testing.B) {
	simtest.BenchRounds(b, newPolicy, func(k int) sdk.Session { return bernSession(k, 0) })
}

// changingAbrupt plays one replication of the changing_abrupt scenario's
// environment (3 Bernoulli arms whose means switch at rounds 3000 and 6000,
// T = 10000, one initial pull per arm) on p, with rewards from rng, and
// calls check (if not nil) with each round and the arm Select chose.
func changingAbrupt(p *bernoulli, rng *rand.Rand, check func(t, arm int)) {
	means := [][]float64{{0.9, 0.5, 0.1}, {0.1, 0.5, 0.9}, {0.5, 0.9, 0.1}}
	for t := 1; t <= 10000; t++ {
		a := p.Select(t)
		if check != nil {
			check(t, a)
		}
		r := 0.0
		if rng.Float64() < means[min(t/3000, 2)][a] {
			r = 1
		}
		p.Observe(t, a, r)
	}
}

// BenchmarkBernoulliChanging measures a round of the changing_abrupt
// scenario's environment (ns per Select + Observe over whole replications),
// where the arms' indices cross after each change.
func BenchmarkBernoulliChanging(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	b.ReportAllocs()
	for b.Loop() {
		changingAbrupt(newBernoulli(3, 0), rng, nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/round")
}

// bruteArgmax is the unpruned argmax of the computed indices, lowest index
// on ties: what Select must return once every arm is pulled.
func bruteArgmax(p *bernoulli, l float64) int {
	want, wantV := 0, math.Inf(-1)
	for i := range p.arms.Mean {
		if v := bernoulliIndex(p.arms.Mean[i], p.arms.N[i], l); v > wantV {
			want, wantV = i, v
		}
	}
	return want
}

// setArms gives p the arms (sum, n), every n >= 1.
func setArms(p *bernoulli, arms [][2]float64) {
	for i, a := range arms {
		p.arms.Observe(i, 0) // counts the arm as pulled
		p.arms.Sum[i], p.arms.N[i] = a[0], a[1]
		p.arms.Mean[i] = a[0] / a[1]
	}
}

// TestFastSelectMatchesExact checks fastSelect's argmax against the
// unpruned one on edge cases (p = 0, p = 1, tied arms, a single arm, l = 0)
// and on random states, each with several kinds of estimates: none, random,
// the exact indices, and the exact indices moved by a few ulps or by about
// fastDelta, which put the threshold right at an index.
func TestFastSelectMatchesExact(t *testing.T) {
	type state struct {
		name string
		arms [][2]float64 // (sum, n) per arm
		t    int
	}
	states := []state{
		{"p=0 and p=1", [][2]float64{{0, 10}, {10, 10}, {5, 10}}, 100},
		{"all p=0", [][2]float64{{0, 3}, {0, 50}, {0, 7}}, 100},
		{"all p=1", [][2]float64{{3, 3}, {50, 50}}, 1000},
		{"p=1 few pulls", [][2]float64{{999, 1000}, {1, 1}}, 5000},
		{"tie of identical arms", [][2]float64{{30, 100}, {60, 100}, {60, 100}}, 500},
		{"tie first", [][2]float64{{60, 100}, {60, 100}, {10, 100}}, 500},
		{"tie behind", [][2]float64{{6, 10}, {60, 100}, {60, 100}}, 500},
		{"single arm", [][2]float64{{3, 7}}, 50},
		{"t=1, l=0", [][2]float64{{1, 2}, {1, 3}}, 1},
		{"t=2", [][2]float64{{1, 1}, {0, 1}}, 2},
		{"near 1 with many pulls", [][2]float64{{9999, 10000}, {9998, 9999}}, 20000},
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 3000 {
		k := 2 + rng.IntN(5)
		arms := make([][2]float64, k)
		for a := range arms {
			n := float64(1 + rng.IntN([]int{5, 100, 5000}[rng.IntN(3)]))
			switch rng.IntN(8) {
			case 0:
				arms[a] = [2]float64{0, n}
			case 1:
				arms[a] = [2]float64{n, n}
			case 2:
				if a > 0 {
					arms[a] = arms[rng.IntN(a)] // an exact tie
					continue
				}
				fallthrough
			default:
				arms[a] = [2]float64{float64(rng.IntN(int(n) + 1)), n}
			}
		}
		states = append(states, state{fmt.Sprint("random ", i), arms, 2 + rng.IntN(20000)})
	}
	fastDecided := 0
	for _, st := range states {
		for c := range 2 {
			p := newBernoulli(len(st.arms), float64(c)*3)
			setArms(p, st.arms)
			l := level(st.t, p.c)
			want := bruteArgmax(p, l)
			v := make([]float64, len(st.arms))
			for i := range v {
				v[i] = bernoulliIndex(p.arms.Mean[i], p.arms.N[i], l)
			}
			ests := map[string]func(i int) float64{
				"zero":   func(int) float64 { return 0 },
				"random": func(int) float64 { return rng.Float64() },
				"exact":  func(i int) float64 { return v[i] },
				"ulps": func(i int) float64 {
					return math.Float64frombits(math.Float64bits(v[i]) + uint64(rng.IntN(7)) - 3)
				},
				"delta": func(i int) float64 { return v[i] + (rng.Float64()*4-2)*fastDelta },
			}
			for name, est := range ests {
				for i := range p.est {
					p.est[i] = est(i)
				}
				for try := range fastTries {
					if got, ok := p.fastSelect(l); ok {
						fastDecided++
						if got != want {
							t.Fatalf("%s, c=%d, estimates %s, try %d: fastSelect = %d, exact argmax %d (indices %v)",
								st.name, c, name, try, got, want, v)
						}
						break
					}
				}
				if got := p.Select(st.t); got != want {
					t.Fatalf("%s, c=%d, estimates %s: Select = %d, exact argmax %d (indices %v)",
						st.name, c, name, got, want, v)
				}
			}
		}
	}
	// The test has teeth only if the fast path decides most states.
	if total := len(states) * 2 * 5; fastDecided < total/3 {
		t.Fatalf("fastSelect decided only %d of %d cases", fastDecided, total)
	}
	t.Logf("fastSelect decided %d of %d cases", fastDecided, len(states)*2*5)
}

// TestSelectUnpulledFirst checks that arms never pulled (n = 0, possible
// when the host forces no initial pulls) are played first, lowest first,
// whatever the estimates say.
func TestSelectUnpulledFirst(t *testing.T) {
	p := newBernoulli(3, 0)
	p.Observe(1, 1, 1)
	for i := range p.est {
		p.est[i] = 0.9
	}
	if got := p.Select(2); got != 0 {
		t.Fatalf("Select = %d, want the unpulled arm 0", got)
	}
	p.Observe(2, 0, 0)
	if got := p.Select(3); got != 2 {
		t.Fatalf("Select = %d, want the unpulled arm 2", got)
	}
}

// TestChangingMatchesExact replays the changing_abrupt environment and
// checks every round's Select against the unpruned argmax.
func TestChangingMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for rep := range 3 {
		p := newBernoulli(3, 0)
		changingAbrupt(p, rng, func(tt, got int) {
			if tt <= 3 {
				return // the initial pulls
			}
			if want := bruteArgmax(p, level(tt, 0)); got != want {
				t.Fatalf("replication %d, round %d: Select %d, brute force %d", rep, tt, got, want)
			}
		})
	}
}
