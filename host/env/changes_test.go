package env

import (
	"math"
	"slices"
	"testing"

	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/sdk"
)

// walk advances a fresh path of replication rep through rounds 1..T and
// returns the means of every round ([t-1][arm]).
func walk(t *testing.T, e *Env, rep uint64, T int) [][]float64 {
	t.Helper()
	p := e.NewPath(rep)
	out := make([][]float64, T)
	for r := 1; r <= T; r++ {
		p.Advance(r)
		out[r-1] = slices.Clone(p.Means())
		best, mu2 := bestSecond(out[r-1])
		if p.Best() != best || p.Second() != mu2 {
			t.Fatalf("round %d: best %d mu2 %v, want %d %v", r, p.Best(), p.Second(), best, mu2)
		}
		for i, g := range p.Gaps() {
			if g != out[r-1][best]-out[r-1][i] {
				t.Fatalf("round %d: gap %d = %v", r, i, g)
			}
		}
	}
	return out
}

// TestPathSteps: piecewise-stationary means hold from each point's round
// on, and the best arm and gaps follow them.
func TestPathSteps(t *testing.T) {
	e, err := NewChanging(sdk.Bernoulli, []float64{0.9, 0.5, 0.1}, 0, seed.Int(1), &Changes{Kind: Steps, Points: []Point{
		{At: 3, Means: []float64{0.1, 0.5, 0.9}}, {At: 5, Means: []float64{0.5, 0.9, 0.1}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := walk(t, e, 0, 6)
	want := [][]float64{{0.9, 0.5, 0.1}, {0.9, 0.5, 0.1}, {0.1, 0.5, 0.9}, {0.1, 0.5, 0.9}, {0.5, 0.9, 0.1}, {0.5, 0.9, 0.1}}
	for r := range want {
		if !slices.Equal(got[r], want[r]) {
			t.Errorf("round %d: %v, want %v", r+1, got[r], want[r])
		}
	}
	if !slices.Equal(e.Means, []float64{0.9, 0.5, 0.1}) {
		t.Errorf("the environment's own means moved: %v", e.Means)
	}
}

// TestPathDrift: drifting means are exactly the points' at their rounds,
// on the line between them in between, and constant after the last.
func TestPathDrift(t *testing.T) {
	e, err := NewChanging(sdk.Gaussian, []float64{0.1, 0.7}, 1, seed.Int(1), &Changes{Kind: Drift, Points: []Point{
		{At: 5, Means: []float64{0.7, 0.1}}, {At: 7, Means: []float64{0.3, 0.3}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := walk(t, e, 0, 9)
	for r, m := range got {
		t0, t1, a, b := 1, 5, []float64{0.1, 0.7}, []float64{0.7, 0.1}
		if r+1 > 5 {
			t0, t1, a, b = 5, 7, b, []float64{0.3, 0.3}
		}
		for i := range m {
			want := a[i] + (b[i]-a[i])*float64(r+1-t0)/float64(t1-t0)
			if r+1 >= 7 {
				want = 0.3
			}
			if math.Abs(m[i]-want) > 1e-15 {
				t.Errorf("round %d arm %d: %v, want %v", r+1, i, m[i], want)
			}
		}
	}
	if !slices.Equal(got[4], []float64{0.7, 0.1}) || !slices.Equal(got[6], []float64{0.3, 0.3}) || !slices.Equal(got[8], []float64{0.3, 0.3}) {
		t.Errorf("means at the points: %v %v %v", got[4], got[6], got[8])
	}
}

// TestPathPoisson: random breakpoints are common random numbers (a
// replication's path is the same every time it is built, whatever else
// was built before), differ between replications, come at the stated
// rate, never in round 1, and draw means within the bounds.
func TestPathPoisson(t *testing.T) {
	const T, reps, rate = 2000, 200, 0.01
	for _, s := range []seed.Seed{seed.Int(9), mustSecret(t)} {
		e, err := NewChanging(sdk.Bernoulli, []float64{0.5, 0.5, 0.5}, 0, s, &Changes{Kind: Poisson, Rate: rate, Low: 0.2, High: 0.6})
		if err != nil {
			t.Fatal(err)
		}
		breaks := 0
		first := walk(t, e, 0, T)
		for rep := uint64(reps - 1); rep < reps; rep-- {
			got := walk(t, e, rep, T)
			if rep == 0 && !slices.EqualFunc(got, first, slices.Equal) {
				t.Fatal("replication 0's path differs when built again")
			}
			if rep == 1 && slices.EqualFunc(got, first, slices.Equal) {
				t.Fatal("replications 0 and 1 have the same path")
			}
			if !slices.Equal(got[0], []float64{0.5, 0.5, 0.5}) {
				t.Fatalf("round 1 means %v", got[0])
			}
			for r := 1; r < T; r++ {
				if !slices.Equal(got[r], got[r-1]) {
					breaks++
					for _, m := range got[r] {
						if m < 0.2 || m >= 0.6 {
							t.Fatalf("mean %v outside [0.2, 0.6)", m)
						}
					}
				}
			}
		}
		// About rate x (T-1) breakpoints a replication (a few arrivals
		// share a round): 19.99 expected, 200 replications, sd of the
		// mean about 0.32.
		if mean := float64(breaks) / reps; math.Abs(mean-rate*(T-1)) > 1.5 {
			t.Errorf("%v breakpoints per replication, want about %v", mean, rate*(T-1))
		}
	}
}

func mustSecret(t *testing.T) seed.Seed {
	s, err := seed.Parse("0x" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestChangingRewards: changes move the means, not the noise. The n-th
// reward of an arm comes from the deviate the stationary environment of
// the same initial means draws (design §4): a gaussian reward is the
// stationary one shifted by the change of mean, a bernoulli one is 1 when
// the stationary environment's uniform falls below the mean of the round.
func TestChangingRewards(t *testing.T) {
	for _, fam := range []sdk.Family{sdk.Gaussian, sdk.Bernoulli} {
		sd := 0.0
		if fam == sdk.Gaussian {
			sd = 0.5
		}
		means := []float64{0.2, 0.8}
		ch := &Changes{Kind: Drift, Points: []Point{{At: 200, Means: []float64{0.8, 0.2}}}}
		moving, err := NewChanging(fam, means, sd, seed.Int(4), ch)
		if err != nil {
			t.Fatal(err)
		}
		still, _ := New(fam, means, sd, seed.Int(4))
		for rep := range uint64(3) {
			a, b := moving.Stream(rep), still.Stream(rep)
			u := still.Stream(rep) // the same uniforms, read directly
			ones := 0
			for r := 1; r <= 300; r++ {
				a.Path().Advance(r)
				arm := (r + int(rep)) % 2
				x, y := a.Pull(arm), b.Pull(arm)
				mu := a.Path().Means()[arm]
				switch fam {
				case sdk.Gaussian:
					if d := (x - mu) - (y - means[arm]); math.Abs(d) > 1e-12 {
						t.Fatalf("round %d: noise %v, stationary %v", r, x-mu, y-means[arm])
					}
				case sdk.Bernoulli:
					want := 0.0
					if u.arms[arm].Float64() < mu {
						want = 1
					}
					if x != want {
						t.Fatalf("round %d: reward %v, want %v", r, x, want)
					}
					ones += int(x)
				}
			}
			if fam == sdk.Bernoulli && (ones < 100 || ones > 200) {
				t.Errorf("%d ones in 300 rewards of mean 0.5 on average", ones)
			}
		}
	}
}

// TestNewChangingRefuses: changes that no scenario passes are refused.
func TestNewChangingRefuses(t *testing.T) {
	for _, ch := range []*Changes{
		{Kind: Steps},
		{Kind: Steps, Points: []Point{{At: 1, Means: []float64{1, 2}}}},
		{Kind: Drift, Points: []Point{{At: 5, Means: []float64{1, 2}}, {At: 5, Means: []float64{1, 2}}}},
		{Kind: Drift, Points: []Point{{At: 5, Means: []float64{1}}}},
		{Kind: Poisson, Rate: 0, Low: 0, High: 1},
		{Kind: Poisson, Rate: 1, Low: 1, High: 0},
		{Kind: 42},
	} {
		if _, err := NewChanging(sdk.Gaussian, []float64{0, 1}, 1, seed.Int(1), ch); err == nil {
			t.Errorf("%+v accepted", ch)
		}
	}
}
