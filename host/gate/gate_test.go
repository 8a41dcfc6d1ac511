package gate

import (
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// exact returns n values whose sample mean and sample standard deviation
// are exactly mean and sd (up to rounding), so a test's t statistic is
// known in closed form: t = (mean - m) sqrt(n) / sd.
func exact(n int, mean, sd float64) []float64 {
	z := make([]float64, n)
	var ss float64
	for i := range z {
		z[i] = float64(i) - float64(n-1)/2
		ss += z[i] * z[i]
	}
	s := math.Sqrt(ss / float64(n-1))
	for i := range z {
		z[i] = mean + sd*z[i]/s
	}
	return z
}

// baseValues are baseline per-replication values with mean exactly 100 (so
// a 5% margin is 5) and a spread the pairing removes. They are multiples of
// 1/2, so adding a whole-number difference is exact in floating point.
func baseValues(n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = 100 + 3*(float64(i)-float64(n-1)/2)
	}
	// Shuffle deterministically so the differences added below are not
	// aligned with the baseline's order.
	for i := range b {
		j := (i * 7) % n
		b[i], b[j] = b[j], b[i]
	}
	return b
}

func plus(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

func policy(label string, final []float64) *results.Policy {
	return &results.Policy{Label: label, Status: results.StatusOK, Final: map[string][]float64{
		"regret": final, "underestimation": final, "regret_under": final, "regret_not_under": final,
	}}
}

func file(s uint64, n int, pols ...*results.Policy) *results.File {
	return &results.File{
		Schema: results.Schema,
		Scenario: results.Scenario{Name: "s", Family: "gaussian", Arms: 2, Horizon: 1000, Runs: n, Seed: seed.Int(s),
			InitPulls: 1, Means: []float64{0.5, 0.4}, NoiseSD: 0.2},
		Shard:    results.Shard{Count: 1},
		Complete: true,
		Policies: pols,
	}
}

// TestVerdicts: the package doc's verdict rules on data whose t statistics
// are known exactly. n = 50, baseline mean 100, margin 5% (m = 5), alpha
// 0.01, paired.
func TestVerdicts(t *testing.T) {
	const n = 50
	base := baseValues(n)
	zero := make([]float64, n)
	for _, tc := range []struct {
		name string
		rule string
		diff []float64 // current - baseline, per replication
		want Verdict
	}{
		{"identical", "a file against itself: every difference is 0, the CI is the point 0", zero, Same},
		{"clear regression", "delta 20 > m with t = 15 sqrt(50)/10", exact(n, 20, 10), Worse},
		{"clear improvement", "delta -20 < -m", exact(n, -20, 10), Better},
		{"small tight change", "delta 1 with CI about [0.24, 1.76], inside [-5, 5]", exact(n, 1, 2), Same},
		{"significant but within the margin", "delta 4 is significantly > 0 but not > m: no regression", exact(n, 4, 1), Same},
		{"worse than margin but noisy", "delta 8 > m but t = 3 sqrt(50)/40 = 0.53: not significant, CI not inside", exact(n, 8, 40), Inconclusive},
		{"no change but noisy", "delta 0 with a CI wider than the margin", exact(n, 0, 40), Inconclusive},
		{"CI crosses -m only", "delta -3, CI about [-10.6, 4.6]: inside m above, not below -m", exact(n, -3, 20), Inconclusive},
		{"constant shift beyond margin", "SE 0: delta 6 > 5 is known exactly", exact(n, 6, 0), Worse},
		{"constant shift at the margin", "SE 0: delta = m exactly is not beyond the margin", exact(n, 5, 0), Same},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := file(1, n, policy("P", base))
			c := file(1, n, policy("P", plus(base, tc.diff)))
			rep, err := Compare(b, c, DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Paired {
				t.Fatalf("not paired: %s", rep.Pairing)
			}
			if got := rep.Rows[0].Verdict; got != tc.want {
				r := rep.Rows[0]
				t.Errorf("verdict %s, want %s (%s); delta %v CI [%v, %v] pWorse %v pBetter %v", got, tc.want, tc.rule, r.Estimate.Delta, r.Lo, r.Hi, r.PWorse, r.PBetter)
			}
		})
	}
}

// TestHolmAcrossPolicies: a regression significant on its own (raw p
// between alpha/2 and alpha) is not flagged when a second, equally
// significant comparison shares the call: Holm multiplies the smallest p
// by 2.
func TestHolmAcrossPolicies(t *testing.T) {
	const n = 50
	base := baseValues(n)
	// exact's differences are symmetric, so the tail-guarded SE of the
	// worse test is TailGuard/sqrt(2) = sqrt(2) times the plain SE
	// 10/sqrt(50): t = (mean - 5) / (sqrt(2) 10 / sqrt(50)) = 2.5, raw
	// one-sided p about 0.008.
	d := exact(n, 5+2.5*math.Sqrt2*10/math.Sqrt(n), 10)
	e, _ := PairedT(base, plus(base, d))
	if p := e.PAbove(5); !(p > 0.005 && p < 0.01) {
		t.Fatalf("precondition: raw p %v not in (0.005, 0.01)", p)
	}
	one, err := Compare(file(1, n, policy("A", base)), file(1, n, policy("A", plus(base, d))), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if one.Rows[0].Verdict != Worse || one.Comparisons != 1 {
		t.Fatalf("alone: verdict %s over %d comparisons, want worse over 1", one.Rows[0].Verdict, one.Comparisons)
	}
	two, err := Compare(file(1, n, policy("A", base), policy("B", base)),
		file(1, n, policy("A", plus(base, d)), policy("B", plus(base, d))), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range two.Rows {
		if r.Verdict == Worse || !close(r.PWorse, 2*e.PAbove(5), 1e-12) {
			t.Errorf("%s: verdict %s, adjusted p %v; want not worse with p = 2 x %v", r.Label, r.Verdict, r.PWorse, e.PAbove(5))
		}
	}
}

func TestRowsNotCompared(t *testing.T) {
	const n = 40
	base := baseValues(n)
	failed := policy("F", nil)
	failed.Status, failed.Error = results.StatusFailed, "plugin crashed at round 17"
	baseFailed := policy("BF", nil)
	baseFailed.Status, baseFailed.Error = results.StatusFailed, "boom"
	b := file(1, n, policy("OK", base), policy("F", base), policy("GONE", base), baseFailed)
	c := file(1, n, policy("OK", base), failed, policy("BF", base), policy("EXTRA", base))
	rep, err := Compare(b, c, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Verdict{"OK": Same, "F": Failed, "GONE": Missing, "BF": NoBaseline, "EXTRA": New}
	if len(rep.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rep.Rows), len(want))
	}
	for _, r := range rep.Rows {
		if r.Verdict != want[r.Label] {
			t.Errorf("%s: verdict %s, want %s", r.Label, r.Verdict, want[r.Label])
		}
	}
	if rep.Comparisons != 1 {
		t.Errorf("%d comparisons in the Holm family, want 1 (only OK was tested)", rep.Comparisons)
	}
	if f := rep.Failures(); len(f) != 2 || f[0].Label != "F" || f[0].Note != "plugin crashed at round 17" || f[1].Label != "GONE" {
		t.Errorf("failures %+v, want F (with its error) and GONE", f)
	}
}

func TestPairingAndCompatibility(t *testing.T) {
	const n = 40
	base := baseValues(n)
	mk := func(mod func(f *results.File)) *results.File {
		f := file(1, n, policy("P", base))
		if mod != nil {
			mod(f)
		}
		return f
	}
	for _, tc := range []struct {
		name      string
		mod       func(f *results.File)
		force     bool
		wantDiffs []string // substrings of the incompatibility; nil: compatible
		paired    bool
		reason    string
	}{
		{name: "same", paired: true, reason: "common random numbers"},
		{name: "other seed", mod: func(f *results.File) { f.Scenario.Seed = seed.Int(2) }, reason: "seeds differ (baseline 1, current 2)"},
		{name: "other replications", mod: func(f *results.File) {
			f.Shard.Replications = make([]uint64, n)
			for i := range f.Shard.Replications {
				f.Shard.Replications[i] = uint64(i + n)
			}
		}, reason: "replications differ (baseline 0..39, current 40..79)"},
		{name: "full set spelled out is still paired", mod: func(f *results.File) {
			f.Shard.Replications = make([]uint64, n)
			for i := range f.Shard.Replications {
				f.Shard.Replications[i] = uint64(i)
			}
		}, paired: true, reason: "common random numbers"},
		{name: "other name only", mod: func(f *results.File) { f.Scenario.Name = "t" }, paired: true, reason: "common random numbers"},
		{name: "means", mod: func(f *results.File) { f.Scenario.Means = []float64{0.5, 0.3} },
			wantDiffs: []string{"means: baseline [0.5 0.4], current [0.5 0.3]"}},
		{name: "horizon and family", mod: func(f *results.File) { f.Scenario.Horizon = 2000; f.Scenario.Family = "bernoulli" },
			wantDiffs: []string{"family: baseline gaussian, current bernoulli", "horizon: baseline 1000, current 2000"}},
		{name: "noise", mod: func(f *results.File) { f.Scenario.NoiseSD = 1 }, wantDiffs: []string{"noise_sd: baseline 0.2, current 1"}},
		{name: "init pulls", mod: func(f *results.File) { f.Scenario.InitPulls = 2 }, wantDiffs: []string{"init_pulls: baseline 1, current 2"}},
		{name: "forced means", mod: func(f *results.File) { f.Scenario.Means = []float64{0.5, 0.3} }, force: true, reason: "the scenarios differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := DefaultOptions
			opt.Force = tc.force
			rep, err := Compare(mk(nil), mk(tc.mod), opt)
			if tc.wantDiffs != nil {
				var ie *IncompatibleError
				if !errors.As(err, &ie) {
					t.Fatalf("err %v, want *IncompatibleError", err)
				}
				for _, d := range tc.wantDiffs {
					if !strings.Contains(err.Error(), d) {
						t.Errorf("error %q lacks %q", err, d)
					}
				}
				if len(ie.Differences) != len(tc.wantDiffs) {
					t.Errorf("differences %q, want exactly %q", ie.Differences, tc.wantDiffs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Paired != tc.paired || !strings.Contains(rep.Pairing, tc.reason) {
				t.Errorf("paired %v (%s), want %v (%s)", rep.Paired, rep.Pairing, tc.paired, tc.reason)
			}
			if tc.force && len(rep.Differences) == 0 {
				t.Error("forced comparison does not record the differences")
			}
		})
	}
}

// TestPairingSecretSeeds: secret seeds pair like integers, by equality:
// the same secret pairs, another secret or an integer does not. Verdicts
// name a secret by its first 8 hex digits, in every format, never in full:
// a verdict is often published while its secret is kept.
func TestPairingSecretSeeds(t *testing.T) {
	const n = 40
	secret := func(b byte) seed.Seed {
		var k [seed.SecretLen]byte
		for i := range k {
			k[i] = b ^ byte(i*37)
		}
		return seed.FromKey(k)
	}
	a, b := secret(0xa1), secret(0xb2)
	mk := func(s seed.Seed) *results.File {
		f := file(1, n, policy("P", baseValues(n)))
		f.Scenario.Seed = s
		return f
	}
	for _, tc := range []struct {
		name      string
		base, cur seed.Seed
		paired    bool
		reason    string
	}{
		{"same secret", a, a, true, "common random numbers: same scenario, seed " + a.Abbrev() + ", replications 0..39"},
		{"other secret", a, b, false, "seeds differ (baseline " + a.Abbrev() + ", current " + b.Abbrev() + ")"},
		{"secret and integer", a, seed.Int(1), false, "seeds differ (baseline " + a.Abbrev() + ", current 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Compare(mk(tc.base), mk(tc.cur), DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Paired != tc.paired || rep.Pairing != tc.reason {
				t.Errorf("paired %v (%s), want %v (%s)", rep.Paired, rep.Pairing, tc.paired, tc.reason)
			}
			for _, format := range Formats {
				var sb strings.Builder
				if err := Write(&sb, rep, "base.json", "new.json", format); err != nil {
					t.Fatal(err)
				}
				for _, s := range []seed.Seed{tc.base, tc.cur} {
					if full := s.String(); s.Secret() && strings.Contains(sb.String(), full[10:]) {
						t.Errorf("%s verdict shows the secret %s in full:\n%s", format, s.Abbrev(), sb.String())
					}
				}
			}
		})
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Options)
	}{
		{"metric", func(o *Options) { o.Metric = "regrets" }},
		{"negative margin", func(o *Options) { o.Margin = -0.1 }},
		{"alpha 0", func(o *Options) { o.Alpha = 0 }},
		{"alpha 1", func(o *Options) { o.Alpha = 1 }},
	} {
		o := DefaultOptions
		tc.mod(&o)
		if _, err := Compare(file(1, 2, policy("P", []float64{1, 2})), file(1, 2, policy("P", []float64{1, 2})), o); err == nil {
			t.Errorf("%s: no error for %+v", tc.name, o)
		}
	}
	dup := file(1, 2, policy("P", []float64{1, 2}), policy("P", []float64{1, 2}))
	if _, err := Compare(file(1, 2, policy("P", []float64{1, 2})), dup, DefaultOptions); err == nil || !strings.Contains(err.Error(), `"P" appears twice`) {
		t.Errorf("duplicate label: err %v", err)
	}
}

// TestZeroBaselineMean: with a baseline mean of 0 the margin is 0, and the
// table prints absolute deltas.
func TestZeroBaselineMean(t *testing.T) {
	const n = 30
	base := exact(n, 0, 1)
	rep, err := Compare(file(1, n, policy("P", base)), file(1, n, policy("P", plus(base, exact(n, 0.5, 0.1)))), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Margin != 0 || r.Verdict != Worse {
		t.Errorf("margin %v verdict %s, want 0 and worse", r.Margin, r.Verdict)
	}
}

// TestWriteTable compares the rendered table with testdata/table.golden
// (go test -update rewrites it).
func TestWriteTable(t *testing.T) {
	const n = 50
	base := baseValues(n)
	failed := policy("Crashy", nil)
	failed.Status, failed.Error = results.StatusFailed, "plugin exited at round 12"
	b := file(1, n, policy("TS", base), policy("KL-UCB", base), policy("Crashy", base))
	c := file(1, n, policy("TS", plus(base, exact(n, 20, 10))), policy("KL-UCB", base), failed)
	rep, err := Compare(b, c, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := WriteTable(&sb, rep, "base.json", "new.json"); err != nil {
		t.Fatal(err)
	}
	// Unpaired as well, for the footnote.
	c.Scenario.Seed = seed.Int(2)
	rep, err = Compare(b, c, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&sb, rep, "base.json", "new.json"); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "table.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := sb.String(); got != string(want) {
		t.Errorf("table differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
}

// TestEmptyBaseline: a baseline without a policy that ran (none at all,
// all failed, or too few replications for a t-test) is an error, not a
// gate that compares nothing and passes.
func TestEmptyBaseline(t *testing.T) {
	const n = 40
	cur := file(1, n, policy("A", baseValues(n)), policy("B", baseValues(n)))
	failed := &results.Policy{Label: "A", Status: results.StatusFailed, Error: "crashed"}
	for _, tc := range []struct {
		name string
		base *results.File
		want string
	}{
		{"no policy", file(1, n), "the baseline has no policy to compare with: it holds no policy"},
		{"every policy failed", file(1, n, failed), `none of its policies ("A") ran with two or more replications of regret`},
		{"one replication", file(1, 1, policy("A", []float64{3})), `none of its policies ("A")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Compare(tc.base, cur, DefaultOptions)
			if !errors.Is(err, ErrEmptyBaseline) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v (report %+v), want ErrEmptyBaseline with %q", err, rep, tc.want)
			}
		})
	}
	// One policy that ran is enough; the others may have failed.
	if _, err := Compare(file(1, n, failed, policy("B", baseValues(n))), cur, DefaultOptions); err != nil {
		t.Errorf("a baseline with one comparable policy: %v", err)
	}
}
