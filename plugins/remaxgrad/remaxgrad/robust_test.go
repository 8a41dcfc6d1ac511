package remaxgrad

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

func robustConfig(m, samples, steps int, tvTol float64) Config {
	return Config{M: m, Samples: samples, Steps: steps, LR: 0.05, Tol: 1e-6, VarianceInflation: 1,
		Variant: VariantRobust, TVTol: tvTol, LogitFloor: DefaultLogitFloor}
}

// TestGuardLogits: the robust warm start shifts the top logit to 0, which
// leaves pi unchanged, and raises the logits below -logit_floor to it.
func TestGuardLogits(t *testing.T) {
	for _, c := range []struct {
		floor float64
		want  []float64
	}{
		{12, []float64{0, -0.5, -12, -12}}, // -20 - 3 and -9.5 - 3 are below -12
		{13, []float64{0, -0.5, -13, -12.5}},
		{0, []float64{0, 0, 0, 0}}, // a cold start
	} {
		cfg := robustConfig(2, 1, 1, 0)
		cfg.LogitFloor = c.floor
		o := NewOptimizer(4, cfg)
		copy(o.Logits(), []float64{3, 2.5, -20, -9.5})
		o.guardLogits()
		if !slices.Equal(o.Logits(), c.want) {
			t.Errorf("floor %v: guarded logits %v, want %v", c.floor, o.Logits(), c.want)
		}
	}
}

// TestRobustRecoversFrozenLogit is the freeze of issue 19: the best arm's
// logit lies 40 below the others, so its logit gradient pi_0 (g_0 - <g,pi>)
// (about 1e-18) is far below Adam's epsilon. The paper variant then never
// moves it, round after round on samples that all favour arm 0; the robust
// variant floors it at -logit_floor and climbs back to the top.
func TestRobustRecoversFrozenLogit(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 1))
	samples := make([][]float64, 50)
	for s := range samples {
		samples[s] = []float64{1 + 0.1*rng.NormFloat64(), 0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64()}
	}
	run := func(c Config) []float64 {
		o := NewOptimizer(3, c)
		copy(o.Logits(), []float64{-40, 0, 0})
		o.Policy()
		o.SetSamples(samples)
		for range 500 { // rounds
			o.Run()
		}
		return o.CurrentPolicy()
	}
	paper := DefaultConfig()
	paper.Samples = len(samples)
	paper.Tol = 0 // no early stop: the freeze is not the stop rule's
	if pi := run(paper); pi[0] > 1e-15 {
		t.Errorf("paper variant: pi_0 = %v after 500 rounds; the test expects it frozen near e^-40", pi[0])
	}
	for _, tv := range []float64{0, DefaultTVTol} {
		if pi := run(robustConfig(2, len(samples), 20, tv)); pi[0] < 0.9 {
			t.Errorf("robust variant, tv_tol %v: pi_0 = %v after 500 rounds, want > 0.9", tv, pi[0])
		}
	}
}

// TestRobustStopRule: the robust variant stops after the first Adam step
// that moves pi by at most tv_tol in total variation, takes no step at a
// stationary point, and runs all L steps with tv_tol 0.
func TestRobustStopRule(t *testing.T) {
	t.Run("stationary", func(t *testing.T) {
		samples := [][]float64{{1, 1, 1}, {-2, -2, -2}}
		o := NewOptimizer(3, robustConfig(3, len(samples), 20, 0))
		o.SetSamples(samples)
		if steps, stopped := o.Run(); steps != 0 || !stopped || !slices.Equal(o.Logits(), []float64{0, 0, 0}) {
			t.Errorf("Run() = %d, %v, z %v; want 0 steps, stopped, z 0", steps, stopped, o.Logits())
		}
	})
	rng := rand.New(rand.NewPCG(5, 7))
	const k, L = 6, 30
	samples := testSamples(rng, 40, k)
	// pis[l] is pi after l steps: a run capped at l steps never stops early
	// with tv_tol 0, and its first l steps are those of a longer run.
	pis := make([][]float64, L+1)
	for l := 0; l <= L; l++ {
		o := NewOptimizer(k, robustConfig(3, len(samples), l, 0))
		o.SetSamples(samples)
		if steps, stopped := o.Run(); steps != l || stopped {
			t.Fatalf("tv_tol 0, L=%d: Run() = %d, %v; want all %d steps", l, steps, stopped, l)
		}
		pis[l] = slices.Clone(o.CurrentPolicy())
	}
	tvs := make([]float64, L+1) // tvs[l]: the move of step l
	for l := 1; l <= L; l++ {
		for i := range pis[l] {
			tvs[l] += math.Abs(pis[l][i]-pis[l-1][i]) / 2
		}
	}
	stop := -1 // a step l > 1 whose move is a new running minimum
	for l := 2; l <= L; l++ {
		if tvs[l] < slices.Min(tvs[1:l]) {
			stop = l
			break
		}
	}
	if stop < 0 {
		t.Fatalf("moves %v never reach a new minimum", tvs)
	}
	for _, c := range []struct {
		name      string
		tol       float64
		wantSteps int
	}{
		{"stops at the first small move", tvs[stop], stop},
		{"a huge tolerance stops after one step", 0.99, 1},
	} {
		o := NewOptimizer(k, robustConfig(3, len(samples), L, c.tol))
		o.SetSamples(samples)
		steps, stopped := o.Run()
		if steps != c.wantSteps || !stopped || !slices.Equal(o.CurrentPolicy(), pis[steps]) {
			t.Errorf("%s: Run() = %d, %v, pi %v; want %d, stopped, pi %v", c.name, steps, stopped, o.CurrentPolicy(), c.wantSteps, pis[c.wantSteps])
		}
	}
}

// playScaled is play with every reward, and the noise sd the policy is
// told, multiplied by scale.
func playScaled(t *testing.T, s sdk.Session, scale float64, rounds int) (arms []int, steps []float64) {
	t.Helper()
	s.NoiseSD *= scale
	pol, err := New(s, sdk.Replica{Index: 3, Rand: rand.New(rand.NewPCG(3, 0))})
	if err != nil {
		t.Fatal(err)
	}
	env := rand.New(rand.NewPCG(8, 0))
	for tt := 1; tt <= rounds; tt++ {
		arm := (tt - 1) % s.Arms
		if tt > s.Arms {
			arm = pol.Select(tt)
			var d [3]float64
			pol.(sdk.Diagnoser).Diagnose(d[:])
			steps = append(steps, d[1])
		}
		arms = append(arms, arm)
		pol.Observe(tt, arm, scale*(0.1*float64(arm%3)+0.1*env.NormFloat64()))
	}
	return arms, steps
}

// TestRobustScaleInvariance: multiplying every reward by a power of two
// (exact in floating point) leaves the robust variant's Adam steps and arms
// unchanged, while the paper variant's absolute stop rule takes other
// numbers of steps.
func TestRobustScaleInvariance(t *testing.T) {
	scales := []float64{0x1p-20, 0x1p-6, 1, 0x1p6, 0x1p20}
	for _, c := range []struct {
		k     int
		m     int64
		tvTol float64 // ten arms with ties move pi more than the default in 600 rounds
	}{{2, 2, DefaultTVTol}, {5, 3, DefaultTVTol}, {4, 2, DefaultTVTol}, {10, 2, 1e-3}, {10, 3, 1e-3}} {
		robust := session(t, c.k, map[string]any{"m": c.m, "variant": VariantRobust, "tv_tol": c.tvTol})
		arms1, steps1 := playScaled(t, robust, 1, 600)
		if slices.Min(steps1) == slices.Max(steps1) {
			t.Errorf("K=%d M=%d robust: every round took %v steps; the test needs the stop rule to act", c.k, c.m, steps1[0])
		}
		paper := session(t, c.k, map[string]any{"m": c.m})
		_, pSteps1 := playScaled(t, paper, 1, 600)
		paperMoved := false
		for _, sc := range scales {
			arms, steps := playScaled(t, robust, sc, 600)
			if !slices.Equal(arms, arms1) || !slices.Equal(steps, steps1) {
				t.Errorf("K=%d M=%d robust, rewards x %v: the arms or steps differ from scale 1", c.k, c.m, sc)
			}
			if _, ps := playScaled(t, paper, sc, 600); !slices.Equal(ps, pSteps1) {
				paperMoved = true
			}
		}
		if !paperMoved {
			t.Errorf("K=%d M=%d: the paper variant's steps did not depend on the scale either", c.k, c.m)
		}
	}
}

// TestRobustDiagnostics checks the robust variant's diagnostics' ranges and
// that it allocates nothing per round.
func TestRobustDiagnostics(t *testing.T) {
	s := session(t, 4, map[string]any{"variant": VariantRobust})
	_, diags := play(t, s, 1, 2, 300)
	for i, d := range diags {
		gap, steps, support := d[0], d[1], d[2]
		if gap < -1e-12 || steps < 0 || steps > 20 || support < 1 || support > 4 || steps != float64(int(steps)) {
			t.Fatalf("round %d: diagnostics %v out of range", i, d)
		}
	}
	pol, err := NewPolicy(s, sdk.Replica{Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	for a := range 4 {
		pol.Observe(a+1, a, 0.1*float64(a))
	}
	tt := 4
	if n := testing.AllocsPerRun(50, func() {
		tt++
		a := pol.Select(tt)
		pol.Observe(tt, a, 0.1*float64(a))
	}); n != 0 {
		t.Errorf("%v allocations per round", n)
	}
}

// TestThompsonDraw: the robust variant's Thompson draw plays arm i with
// the posterior probability that it is the best, for two arms
// Phi((mu_i - mu_j) / sqrt(sd_i^2 + sd_j^2)), within 5 standard errors of
// 100,000 draws.
func TestThompsonDraw(t *testing.T) {
	s := session(t, 2, map[string]any{"variant": VariantRobust})
	pol, err := NewPolicy(s, sdk.Replica{Rand: rand.New(rand.NewPCG(4, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if pol.tsShare != DefaultTSShare {
		t.Fatalf("robust variant: Thompson share %v, want %v", pol.tsShare, DefaultTSShare)
	}
	for _, c := range []struct{ mean, sd [2]float64 }{
		{[2]float64{1, 0.9}, [2]float64{0.05, 0.1}},
		{[2]float64{-1.79, 1.01}, [2]float64{1, 0.02}}, // issue 26's stuck arm 0
		{[2]float64{0.5, 0.5}, [2]float64{0.3, 0.01}},
	} {
		copy(pol.mean, c.mean[:])
		copy(pol.sd, c.sd[:])
		const n = 100000
		zeros := 0
		for range n {
			if pol.thompson() == 0 {
				zeros++
			}
		}
		want := 0.5 * math.Erfc(-(c.mean[0]-c.mean[1])/math.Hypot(c.sd[0], c.sd[1])/math.Sqrt2)
		se := math.Sqrt(want * (1 - want) / n)
		if got := float64(zeros) / n; math.Abs(got-want) > 5*se+1e-9 {
			t.Errorf("means %v, sds %v: arm 0 drawn %.5f of the time, posterior probability it is the best %.5f", c.mean, c.sd, got, want)
		}
	}
	paper, err := NewPolicy(session(t, 2, nil), sdk.Replica{Rand: rand.New(rand.NewPCG(4, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if paper.tsShare != 0 {
		t.Errorf("paper variant: Thompson share %v, want 0", paper.tsShare)
	}
}
