package env

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	seedmix "github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/sdk"
)

// TestCommonRandomNumbers: the n-th reward of an arm depends only on (seed,
// replication, arm, n), not on the order in which arms are pulled.
func TestCommonRandomNumbers(t *testing.T) {
	e, err := New(sdk.Gaussian, []float64{1, 0.5, 0}, 1, seedmix.Int(42))
	if err != nil {
		t.Fatal(err)
	}
	a := e.Stream(7)
	b := e.Stream(7)
	var fromA [3][]float64
	for _, arm := range []int{0, 1, 0, 2, 0, 1} {
		fromA[arm] = append(fromA[arm], a.Pull(arm))
	}
	var fromB [3][]float64
	for _, arm := range []int{2, 1, 1, 0, 0, 0} {
		fromB[arm] = append(fromB[arm], b.Pull(arm))
	}
	for arm := range fromA {
		for n := range fromA[arm] {
			if n < len(fromB[arm]) && fromA[arm][n] != fromB[arm][n] {
				t.Fatalf("arm %d pull %d: %v vs %v", arm, n, fromA[arm][n], fromB[arm][n])
			}
		}
	}
	// Different replications and seeds give different streams.
	e43, _ := New(sdk.Gaussian, []float64{1, 0.5, 0}, 1, seedmix.Int(43))
	if e.Stream(8).Pull(0) == e.Stream(7).Pull(0) || e43.Stream(7).Pull(0) == e.Stream(7).Pull(0) {
		t.Fatal("streams of different replications or seeds coincide")
	}
}

// TestRewardMoments: gaussian rewards have the declared mean and sd, and
// bernoulli rewards the declared success rate (tolerance: 5 standard errors).
func TestRewardMoments(t *testing.T) {
	const n = 200000
	g, _ := New(sdk.Gaussian, []float64{0.3, -1}, 2, seedmix.Int(1))
	s := g.Stream(0)
	var sum, ss float64
	for i := 0; i < n; i++ {
		x := s.Pull(1)
		sum += x
		ss += x * x
	}
	mean := sum / n
	sd := math.Sqrt(ss/n - mean*mean)
	if math.Abs(mean+1) > 5*2/math.Sqrt(n) || math.Abs(sd-2) > 5*2/math.Sqrt(2*n) {
		t.Errorf("gaussian: mean %v sd %v, want -1 and 2", mean, sd)
	}
	b, _ := New(sdk.Bernoulli, []float64{0.1, 0.7}, 0, seedmix.Int(1))
	s = b.Stream(0)
	sum = 0
	for i := 0; i < n; i++ {
		x := s.Pull(1)
		if x != 0 && x != 1 {
			t.Fatalf("bernoulli reward %v", x)
		}
		sum += x
	}
	if p := sum / n; math.Abs(p-0.7) > 5*math.Sqrt(0.21/n) {
		t.Errorf("bernoulli: rate %v, want 0.7", p)
	}
}

func TestBestAndSecond(t *testing.T) {
	e, _ := New(sdk.Gaussian, []float64{1, 3, 3, 2, 3}, 1, seedmix.Int(0))
	if e.Best() != 1 || e.Second() != 2 {
		t.Fatalf("best %d second %v, want 1 and 2", e.Best(), e.Second())
	}
	if g := e.Gaps(); g[0] != 2 || g[2] != 0 || g[3] != 1 {
		t.Fatalf("gaps %v", g)
	}
}

// TestStreamsNeedTheEnvironment: the noise of a reward stream is keyed by
// the true means and the noise sd as well as the seed, so knowing the seed
// (shipped scenarios publish theirs) is not enough to rebuild it. Two
// environments that differ in one mean, by one ulp, or in the noise sd
// share no noise, and no stream can be rebuilt from the seed by the
// derivation bench used before (seed.Mix of the seed and a public salt).
func TestStreamsNeedTheEnvironment(t *testing.T) {
	const seed, rep = 1, 3
	noise := func(e *Env, arm int) []float64 {
		s := e.Stream(rep)
		out := make([]float64, 8)
		for i := range out {
			out[i] = (s.Pull(arm) - e.Means[arm]) / e.NoiseSD
		}
		return out
	}
	base, _ := New(sdk.Gaussian, []float64{0.9, 0.8}, 0.15, seedmix.Int(seed))
	variants := map[string]*Env{}
	variants["other mean"], _ = New(sdk.Gaussian, []float64{0.9, 0.7}, 0.15, seedmix.Int(seed))
	variants["one ulp"], _ = New(sdk.Gaussian, []float64{0.9, math.Nextafter(0.8, 1)}, 0.15, seedmix.Int(seed))
	variants["other sd"], _ = New(sdk.Gaussian, []float64{0.9, 0.8}, 0.2, seedmix.Int(seed))
	want := noise(base, 0)
	for name, v := range variants {
		got := noise(v, 0)
		for i := range got {
			if math.Abs(got[i]-want[i]) < 1e-9 {
				t.Errorf("%s: arm 0 draw %d has the same noise (%v) as the base environment", name, i, got[i])
			}
		}
	}
	// The pre-v2 derivation, which any plugin could compute from the seed
	// it was sent: key Mix(Mix(seed ^ salt) ^ rep), arm stream Mix(arm).
	const oldSalt uint64 = 0x7265776172640001
	old := rand.New(rand.NewPCG(seedmix.Mix(seedmix.Mix(seed^oldSalt)^rep), seedmix.Mix(0)))
	for i, w := range want {
		if g := old.NormFloat64(); math.Abs(g-w) < 1e-9 {
			t.Errorf("draw %d of arm 0 is rebuilt from the seed alone by the old derivation", i)
		}
	}
}

// TestPolicySeed: the policy seed is a fixed, one-way function of the seed:
// it differs from the seed and from the seeds' SplitMix images, and
// neighbouring seeds give unrelated policy seeds.
func TestPolicySeed(t *testing.T) {
	seen := map[uint64]uint64{}
	for s := uint64(0); s < 1000; s++ {
		p := PolicySeed(seedmix.Int(s))
		if p == s || p == seedmix.Mix(s) || p == seedmix.Mix(s^seedmix.SaltPolicy) {
			t.Fatalf("PolicySeed(%d) = %d is an invertible image of the seed", s, p)
		}
		if q, dup := seen[p]; dup {
			t.Fatalf("PolicySeed(%d) == PolicySeed(%d)", s, q)
		}
		seen[p] = s
	}
	// Pinned: changing the derivation changes every shipped result, which
	// needs a new StreamsVersion.
	if got, want := PolicySeed(seedmix.Int(1)), uint64(0xa41827810ebb99ce); got != want {
		t.Fatalf("PolicySeed(1) = %#x, want %#x: a changed derivation needs a new StreamsVersion", got, want)
	}
}

// TestDelayStreams: a replication's delays depend on the environment and
// the replication only: the same for every draw of the same stream, not
// moved by reward pulls, different across replications and environments,
// and geometric with the declared mean.
func TestDelayStreams(t *testing.T) {
	means := []float64{0.9, 0.8}
	e, _ := New(sdk.Gaussian, means, 0.15, seedmix.Int(1))
	e2, _ := New(sdk.Gaussian, means, 0.15, seedmix.Int(1))
	other, _ := New(sdk.Gaussian, means, 0.15, seedmix.Int(2))
	draw := func(e *Env, rep uint64, pulls bool) []int {
		d := e.Delays(rep)
		s := e.Stream(rep)
		out := make([]int, 200)
		for i := range out {
			if pulls {
				s.Pull(i % 2) // a policy's pulls do not move the delays
			}
			out[i] = GeometricDelay(d, 10)
		}
		return out
	}
	a := draw(e, 3, false)
	if b := draw(e2, 3, true); !slices.Equal(a, b) {
		t.Error("the same replication draws different delays")
	}
	if slices.Equal(a, draw(e, 4, false)) {
		t.Error("replications 3 and 4 draw the same delays")
	}
	if slices.Equal(a, draw(other, 3, false)) {
		t.Error("seeds 1 and 2 draw the same delays")
	}
	// The delay stream is not the reward stream of any arm.
	d, s := e.Delays(0), e.Stream(0)
	if d.Float64() == s.arms[0].Float64() {
		t.Error("the delay stream repeats arm 0's reward stream")
	}
	for _, mean := range []float64{0, 0.5, 3, 100} {
		r := e.Delays(9)
		const n = 200_000
		sum, zeros := 0.0, 0
		for range n {
			v := GeometricDelay(r, mean)
			if v < 0 {
				t.Fatalf("mean %v: negative delay %d", mean, v)
			}
			sum += float64(v)
			if v == 0 {
				zeros++
			}
		}
		got := sum / n
		// sd of a geometric with mean m is sqrt(m(m+1)): 5 standard errors.
		if tol := 5*math.Sqrt(mean*(mean+1)/n) + 1e-12; math.Abs(got-mean) > tol {
			t.Errorf("mean %v: sample mean %v (tolerance %v)", mean, got, tol)
		}
		if p, f := 1/(1+mean), float64(zeros)/n; math.Abs(f-p) > 5*math.Sqrt(p*(1-p)/n)+1e-12 {
			t.Errorf("mean %v: P(delay 0) = %v, want %v", mean, f, p)
		}
	}
}
