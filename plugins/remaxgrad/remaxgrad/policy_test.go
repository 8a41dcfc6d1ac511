package remaxgrad

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

func session(t *testing.T, k int, values map[string]any) sdk.Session {
	t.Helper()
	p, err := sdk.Resolve(Params, values)
	if err != nil {
		t.Fatal(err)
	}
	return sdk.Session{Arms: k, Horizon: 1000, Family: sdk.Gaussian, NoiseSD: 0.1, NoiseKnown: true, InitPulls: 1, Params: p}
}

// TestParamsVariant: variant accepts exactly paper and robust, and bench
// can refuse anything else before a run (Allowed).
func TestParamsVariant(t *testing.T) {
	for v, ok := range map[string]bool{"paper": true, "robust": true, "Robust": false, "": false} {
		p, err := sdk.Resolve(Params, map[string]any{"variant": v})
		if (err == nil) != ok {
			t.Errorf("variant %q: Resolve error %v, want accepted %v", v, err, ok)
			continue
		}
		if ok {
			if c, err := ConfigFromParams(p); err != nil || c.Variant != v {
				t.Errorf("variant %q: config %+v, %v", v, c, err)
			}
		}
	}
}

func TestParamsDefaults(t *testing.T) {
	p, err := sdk.Resolve(Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ConfigFromParams(p)
	if err != nil || c != DefaultConfig() {
		t.Errorf("defaults give %+v, %v; want %+v", c, err, DefaultConfig())
	}
}

// TestNewErrors lists the sessions New must reject, each with the reason.
func TestNewErrors(t *testing.T) {
	rep := sdk.Replica{Rand: rand.New(rand.NewPCG(1, 1))}
	cases := []struct {
		name   string
		modify func(*sdk.Session)
		want   string
	}{
		{"gaussian noise unknown: no posterior variance", func(s *sdk.Session) { s.NoiseKnown = false }, "known noise"},
		{"M below 2 is not a ReMax objective", func(s *sdk.Session) { s.Params["m"] = int64(1) }, `"m"`},
		{"no samples", func(s *sdk.Session) { s.Params["samples"] = int64(0) }, `"samples"`},
		{"M beyond MaxM stalls every round", func(s *sdk.Session) { s.Params["m"] = int64(MaxM + 1) }, `parameter "m": want m <= 100, got 101`},
		{"samples beyond MaxSamples exhaust the memory", func(s *sdk.Session) { s.Params["samples"] = int64(MaxSamples + 1) }, `parameter "samples": want <= 1000, got 1001`},
		{"steps beyond MaxSteps stall every round", func(s *sdk.Session) { s.Params["steps"] = int64(MaxSteps + 1) }, `parameter "steps": want <= 1000, got 1001`},
		{"steps 1e9", func(s *sdk.Session) { s.Params["steps"] = int64(1e9) }, `parameter "steps": want <= 1000, got 1000000000`},
		{"non-positive learning rate", func(s *sdk.Session) { s.Params["lr"] = 0.0 }, `"lr"`},
		{"negative tolerance", func(s *sdk.Session) { s.Params["tol"] = -1.0 }, `"tol"`},
		{"non-positive variance inflation", func(s *sdk.Session) { s.Params["variance_inflation"] = 0.0 }, `"variance_inflation"`},
		{"unknown variant", func(s *sdk.Session) { s.Params["variant"] = "fast" }, `"variant"`},
		{"total-variation tolerance of 1 never lets a step count", func(s *sdk.Session) { s.Params["tv_tol"] = 1.0 }, `"tv_tol"`},
		{"unknown family", func(s *sdk.Session) { s.Family = "poisson" }, "poisson"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := session(t, 3, nil)
			c.modify(&s)
			if _, err := New(s, rep); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New: error %v, want one mentioning %s", err, c.want)
			}
		})
	}
	s := session(t, 3, nil)
	s.Family, s.NoiseKnown = sdk.Bernoulli, false
	if _, err := New(s, rep); err != nil {
		t.Errorf("bernoulli: %v", err)
	}
}

// play runs a policy for rounds rounds on a gaussian bandit whose rewards
// come from envSeed, returning the arms and the diagnostics of each round.
func play(t *testing.T, s sdk.Session, seed, envSeed uint64, rounds int) ([]int, [][3]float64) {
	t.Helper()
	pol, err := New(s, sdk.Replica{Index: seed, Rand: rand.New(rand.NewPCG(seed, 0))})
	if err != nil {
		t.Fatal(err)
	}
	env := rand.New(rand.NewPCG(envSeed, 0))
	mean := func(a int) float64 { return 0.1 * float64(a%3) }
	var arms []int
	var diags [][3]float64
	for tt := 1; tt <= rounds; tt++ {
		arm := (tt - 1) % s.Arms
		if tt > s.Arms {
			arm = pol.Select(tt)
			var d [3]float64
			pol.(sdk.Diagnoser).Diagnose(d[:])
			diags = append(diags, d)
		}
		arms = append(arms, arm)
		pol.Observe(tt, arm, mean(arm)+s.NoiseSD*env.NormFloat64())
	}
	return arms, diags
}

// TestDeterminism: a fixed replica seed and reward stream give the same
// arms and diagnostics; another seed gives other arms.
func TestDeterminism(t *testing.T) {
	s := session(t, 5, map[string]any{"m": int64(3)})
	a1, d1 := play(t, s, 42, 9, 300)
	a2, d2 := play(t, s, 42, 9, 300)
	for i := range a1 {
		if a1[i] != a2[i] {
			t.Fatalf("round %d: arm %d then %d", i+1, a1[i], a2[i])
		}
	}
	for i := range d1 {
		if d1[i] != d2[i] {
			t.Fatalf("diagnostics %d: %v then %v", i, d1[i], d2[i])
		}
	}
	a3, _ := play(t, s, 43, 9, 300)
	same := true
	for i := range a1 {
		same = same && a1[i] == a3[i]
	}
	if same {
		t.Error("seeds 42 and 43 chose the same 300 arms")
	}
}

// TestDiagnostics checks the ranges of the reported diagnostics.
func TestDiagnostics(t *testing.T) {
	s := session(t, 4, nil)
	_, diags := play(t, s, 1, 2, 200)
	for i, d := range diags {
		gap, steps, support := d[0], d[1], d[2]
		if gap < -1e-12 || steps < 0 || steps > 20 || support < 1 || support > 4 || steps != float64(int(steps)) {
			t.Fatalf("round %d: diagnostics %v out of range", i, d)
		}
		if steps < 20 && gap > 1e-6 {
			t.Fatalf("round %d: stopped after %v steps with gap %v > tol", i, steps, gap)
		}
	}
}

// TestSelectAllocs: a warmed-up round allocates nothing.
func TestSelectAllocs(t *testing.T) {
	for _, c := range []struct{ k, m int }{{2, 2}, {10, 2}, {10, 4}, {80, 2}} {
		inst := instance{means: make([]float64, c.k), sd: 0.2}
		for i := range inst.means {
			inst.means[i] = 0.01 * float64(i)
		}
		bd := newBandit(t, inst, c.m, 3, VariantPaper)
		for range 50 {
			bd.round()
		}
		if n := testing.AllocsPerRun(50, func() { bd.round() }); n != 0 {
			t.Errorf("K=%d M=%d: %v allocations per round", c.k, c.m, n)
		}
		var d [3]float64
		if n := testing.AllocsPerRun(10, func() { bd.pol.Diagnose(d[:]) }); n != 0 {
			t.Errorf("K=%d M=%d: Diagnose allocates %v", c.k, c.m, n)
		}
	}
}
