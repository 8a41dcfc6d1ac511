package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/results"
)

// gateScenario is a small two-arm Gaussian scenario: 200 replications of
// T = 500 rounds run in about a second. policies is its YAML list.
func gateScenario(t *testing.T, name, policies string) string {
	t.Helper()
	return writeFile(t, name+".yaml", `
name: gate_two_arm
environment: {family: gaussian, means: [0.5, 0.4], noise_sd: 0.2}
horizon: 500
runs: 200
seed: 3
policies:
`+policies)
}

// The baseline: Thompson sampling and KL-UCB as shipped (KL-UCB's c = 0),
// plus an unchanged control.
const basePolicies = `
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB, params: {c: 0}}
  - {plugin: ts, label: control}
`

// The injected regressions: TS with its posterior variance inflated 4x
// (more exploration), KL-UCB with c = 3 (a wider index, ditto). control is
// unchanged.
const regressedPolicies = `
  - {plugin: ts, label: TS, params: {inflation: 4}}
  - {plugin: klucb, label: KL-UCB, params: {c: 3}}
  - {plugin: ts, label: control}
`

// runTo runs bench and writes the results file to dir/name, failing the
// test unless the run exits 0.
func runTo(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	if _, stderr, code := bench(t, append(args, "-q", "--out", out)...); code != 0 {
		t.Fatalf("bench %v: exit %d\n%s", args, code, stderr)
	}
	return out
}

// verdicts reads the verdict column of every gate table row in stdout.
func verdicts(t *testing.T, stdout string) map[string]string {
	t.Helper()
	i := strings.Index(stdout, "Gate on ")
	if i < 0 {
		t.Fatalf("no gate table in stdout:\n%s", stdout)
	}
	v := map[string]string{}
	row := regexp.MustCompile(`^\| (\S.*?) +\|.*\| +([a-zA-Z][a-zA-Z ]*?) +\|$`)
	for _, line := range strings.Split(stdout[i:], "\n") {
		if m := row.FindStringSubmatch(line); m != nil && m[1] != "policy" {
			v[m[1]] = m[2]
		}
	}
	return v
}

func finalMean(t *testing.T, path, label string) float64 {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Policies {
		if p.Label == label {
			s := 0.0
			for _, x := range p.Final["regret"] {
				s += x
			}
			return s / float64(len(p.Final["regret"]))
		}
	}
	t.Fatalf("%s: no policy %q", path, label)
	return 0
}

type gateFiles struct {
	dir, base, regressed, seed4, seed5, small, horizon400 string
}

// gateFixtures runs each results file the gate tests need once.
func gateFixtures(t *testing.T) gateFiles {
	t.Helper()
	dir := t.TempDir()
	base := gateScenario(t, "base", basePolicies)
	reg := gateScenario(t, "regressed", regressedPolicies)
	return gateFiles{
		dir:        dir,
		base:       runTo(t, dir, "base.json", "--scenario", base),
		regressed:  runTo(t, dir, "regressed.json", "--scenario", reg),
		seed4:      runTo(t, dir, "seed4.json", "--scenario", base, "--seed", "4"),
		seed5:      runTo(t, dir, "seed5.json", "--scenario", base, "--seed", "5"),
		small:      runTo(t, dir, "small.json", "--scenario", base, "--seed", "6", "--runs", "12"),
		horizon400: runTo(t, dir, "horizon400.json", "--scenario", base, "--horizon", "400"),
	}
}

// edit writes a copy of the results file src changed by mod.
func edit(t *testing.T, src, name string, mod func(f *results.File)) string {
	t.Helper()
	f, err := results.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	mod(f)
	out := filepath.Join(filepath.Dir(src), name)
	if err := f.WriteFile(out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGateCodesAreExitCodes: bench exits with the code of a gate
// decision, which are the exit codes its help documents.
func TestGateCodesAreExitCodes(t *testing.T) {
	for _, c := range []struct {
		code gate.Code
		exit int
	}{{gate.Pass, cli.ExitOK}, {gate.Regression, cli.ExitRegression}, {gate.Regression, cli.ExitFailure}, {gate.Failure, cli.ExitPolicy}, {gate.InconclusiveCode, cli.ExitInconclusive}} {
		if int(c.code) != c.exit {
			t.Errorf("gate code %d, exit code %d", c.code, c.exit)
		}
	}
}

func TestGate(t *testing.T) {
	t.Parallel()
	fx := gateFixtures(t)

	// The injected regressions are real: both regressed policies' mean
	// regret is far above the baseline's (by the data alone, before any
	// test), and the control is bit-identical.
	for _, l := range []string{"TS", "KL-UCB"} {
		b, c := finalMean(t, fx.base, l), finalMean(t, fx.regressed, l)
		if c < 1.3*b {
			t.Fatalf("%s: regressed mean regret %.3f is not clearly above the baseline's %.3f; the fixture injects no regression", l, c, b)
		}
	}
	if b, c := finalMean(t, fx.base, "control"), finalMean(t, fx.regressed, "control"); b != c {
		t.Fatalf("control: %v vs %v, want identical (common random numbers)", b, c)
	}

	failed := edit(t, fx.regressed, "failed.json", func(f *results.File) {
		for _, p := range f.Policies {
			if p.Label == "control" {
				p.Status, p.Error = results.StatusFailed, "plugin bench-plugin-ts exited at round 17"
			}
		}
	})
	missing := edit(t, fx.base, "missing.json", func(f *results.File) { f.Policies = f.Policies[:2] })
	otherMeans := edit(t, fx.base, "means.json", func(f *results.File) { f.Scenario.Means = []float64{0.5, 0.3} })
	otherHorizonFamily := edit(t, fx.horizon400, "horizon.json", func(f *results.File) { f.Scenario.Family = "bernoulli" })
	badSchema := edit(t, fx.base, "schema.json", func(f *results.File) { f.Schema = "regretbench/results/v0" })
	truncated := filepath.Join(fx.dir, "truncated.json")
	data, err := os.ReadFile(fx.base)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		verdicts map[string]string // expected verdicts by policy; nil: no table expected
		stdout   []string
		stderr   []string
	}{
		{
			name: "regression flagged", args: []string{"gate", fx.base, fx.regressed}, code: cli.ExitRegression,
			verdicts: map[string]string{"TS": "worse", "KL-UCB": "worse", "control": "same"},
			stdout:   []string{"PAIRED t-test", "seed 3, replications 0..199", "Holm-adjusted over 3 comparison(s)"},
			stderr:   []string{`regression: "TS" regret`, `regression: "KL-UCB" regret`},
		},
		{
			name: "gated against itself", args: []string{"gate", fx.base, fx.base}, code: cli.ExitOK,
			verdicts: map[string]string{"TS": "same", "KL-UCB": "same", "control": "same"},
			stdout:   []string{"PAIRED"},
		},
		{
			name: "other seed is unpaired and passes", args: []string{"gate", fx.base, fx.seed4}, code: cli.ExitOK,
			stdout: []string{"UNPAIRED Welch t-test", "seeds differ (baseline 3, current 4)"},
		},
		{
			name: "another seed passes too", args: []string{"gate", fx.seed4, fx.seed5}, code: cli.ExitOK,
			stdout: []string{"UNPAIRED"},
		},
		{
			name: "inconclusive passes by default", args: []string{"gate", fx.base, fx.small}, code: cli.ExitOK,
			verdicts: map[string]string{"TS": "inconclusive", "KL-UCB": "inconclusive", "control": "inconclusive"},
			stdout:   []string{"fewer than 30 replications", "n=200 baseline, 12 current"},
		},
		{
			name: "inconclusive with --require-conclusive", args: []string{"gate", fx.base, fx.small, "--require-conclusive"}, code: cli.ExitInconclusive,
			stderr: []string{"inconclusive (--require-conclusive)", `"TS"`},
		},
		{
			name: "failed policy in current", args: []string{"gate", fx.base, failed}, code: cli.ExitPolicy,
			verdicts: map[string]string{"TS": "worse", "KL-UCB": "worse", "control": "FAILED"},
			stderr:   []string{`policy "control" failed in ` + failed, "exited at round 17", `regression: "TS"`},
		},
		{
			name: "policy missing from current", args: []string{"gate", fx.base, missing}, code: cli.ExitPolicy,
			verdicts: map[string]string{"control": "MISSING"},
			stderr:   []string{`policy "control" is missing from ` + missing},
		},
		{
			name: "different means refused", args: []string{"gate", fx.base, otherMeans}, code: cli.ExitInput,
			stderr: []string{"different experiments", "means: baseline [0.5 0.4], current [0.5 0.3]", "--force"},
		},
		{
			name: "different horizon and family refused", args: []string{"gate", fx.base, otherHorizonFamily}, code: cli.ExitInput,
			stderr: []string{"family: baseline gaussian, current bernoulli", "horizon: baseline 500, current 400"},
		},
		{
			// Same data, but unpaired: the Welch CI is wider than ±5%.
			name: "--force compares unpaired", args: []string{"gate", fx.base, otherMeans, "--force"}, code: cli.ExitOK,
			verdicts: map[string]string{"TS": "inconclusive", "KL-UCB": "inconclusive", "control": "inconclusive"},
			stdout:   []string{"UNPAIRED", "because the scenarios differ", "compared anyway (--force)", "means: baseline [0.5 0.4], current [0.5 0.3]"},
		},
		{name: "missing file", args: []string{"gate", fx.base, filepath.Join(fx.dir, "nope.json")}, code: cli.ExitInput, stderr: []string{"current: results", "nope.json"}},
		{name: "truncated file", args: []string{"gate", truncated, fx.base}, code: cli.ExitInput, stderr: []string{"baseline: results", "truncated.json", "not valid JSON"}},
		{name: "invalid file", args: []string{"gate", fx.base, badSchema}, code: cli.ExitInput, stderr: []string{"schema.json", `schema "regretbench/results/v0"`}},
		{name: "one argument", args: []string{"gate", fx.base}, code: cli.ExitInput, stderr: []string{"accepts 2 arg(s)"}},
		{name: "bad metric", args: []string{"gate", fx.base, fx.base, "--metric", "regrets"}, code: cli.ExitInput, stderr: []string{`unknown metric "regrets"`}},
		{name: "bad margin", args: []string{"gate", fx.base, fx.base, "--margin", "-5%"}, code: cli.ExitInput, stderr: []string{"--margin", "-5%"}},
		{name: "bad alpha", args: []string{"gate", fx.base, fx.base, "--alpha", "1.5"}, code: cli.ExitInput, stderr: []string{"alpha 1.5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := bench(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if tc.verdicts != nil {
				got := verdicts(t, stdout)
				for l, v := range tc.verdicts {
					if got[l] != v {
						t.Errorf("%s: verdict %q, want %q\n%s", l, got[l], v, stdout)
					}
				}
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if code == cli.ExitRegression && strings.Contains(stderr, "--help") {
				t.Errorf("a regression is reported as a usage error:\n%s", stderr)
			}
		})
	}

	// The exit codes reach the operating system through the real binary.
	exe := filepath.Join(binDir, "bench")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"gate", fx.base, fx.base}, cli.ExitOK},
		{[]string{"gate", fx.base, fx.regressed}, cli.ExitRegression},
		{[]string{"gate", fx.base, otherMeans}, cli.ExitInput},
		{[]string{"gate", fx.base, failed}, cli.ExitPolicy},
		{[]string{"gate", fx.base, fx.small, "--require-conclusive"}, cli.ExitInconclusive},
	} {
		out, err := combinedOutput(t, exec.Command(exe, tc.args...))
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code {
			t.Errorf("bench %v: process exit %d, want %d\n%s", tc.args[1:], code, tc.code, out)
		}
	}
}

// TestGateOneCall: bench --scenario X --baseline BASE.json runs, prints the
// run tables, then the gate table, with gate's exit codes.
func TestGateOneCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := gateScenario(t, "base", basePolicies)
	reg := gateScenario(t, "regressed", regressedPolicies)

	saved := filepath.Join(dir, "saved.json")
	stdout, stderr, code := bench(t, "-q", "--scenario", base, "--save-baseline", saved)
	if code != 0 {
		t.Fatalf("--save-baseline: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout, "Gate on") {
		t.Errorf("a run without --baseline printed a gate table:\n%s", stdout)
	}
	if _, err := results.ReadFile(saved); err != nil {
		t.Fatalf("--save-baseline wrote no readable results file: %v", err)
	}

	t.Run("same run passes", func(t *testing.T) {
		stdout, stderr, code := bench(t, "-q", "--scenario", base, "--baseline", saved)
		if code != cli.ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if r, g := strings.Index(stdout, "Regret at T=500"), strings.Index(stdout, "Gate on regret"); r < 0 || g < r {
			t.Errorf("want the run tables, then the gate table:\n%s", stdout)
		}
		for l, v := range verdicts(t, stdout) {
			if v != "same" {
				t.Errorf("%s: verdict %s, want same (bit-identical rerun)", l, v)
			}
		}
	})
	t.Run("regression exits 1 and saves no baseline", func(t *testing.T) {
		notSaved := filepath.Join(dir, "not-saved.json")
		stdout, stderr, code := bench(t, "-q", "--scenario", reg, "--baseline", saved, "--save-baseline", notSaved)
		if code != cli.ExitRegression {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
		}
		if v := verdicts(t, stdout); v["TS"] != "worse" || v["KL-UCB"] != "worse" || v["control"] != "same" {
			t.Errorf("verdicts %v\n%s", v, stdout)
		}
		if _, err := os.Stat(notSaved); err == nil || !strings.Contains(stderr, "not written") {
			t.Errorf("--save-baseline written despite the regression (stat err %v)\n%s", err, stderr)
		}
	})
	t.Run("margin and metric flags apply", func(t *testing.T) {
		// A margin of 1000% tolerates the injected regressions.
		stdout, stderr, code := bench(t, "-q", "--scenario", reg, "--baseline", saved, "--margin", "1000%", "--metric", "regret_not_under")
		if code != cli.ExitOK || !strings.Contains(stdout, "Gate on regret_not_under") {
			t.Errorf("exit %d, want 0 with the regret_not_under table\n%s\n%s", code, stdout, stderr)
		}
	})
	t.Run("--policy gates only the policies run", func(t *testing.T) {
		// The regressed TS and KL-UCB are not run, so neither regressed nor
		// missing.
		stdout, stderr, code := bench(t, "-q", "--scenario", reg, "--baseline", saved, "--policy", "control")
		if v := verdicts(t, stdout); code != cli.ExitOK || len(v) != 1 || v["control"] != "same" {
			t.Errorf("exit %d, verdicts %v; want 0 and only control, same\n%s\n%s", code, v, stdout, stderr)
		}
	})
	t.Run("incompatible baseline refused before the run", func(t *testing.T) {
		stdout, stderr, code := bench(t, "-q", "--scenario", base, "--horizon", "400", "--baseline", saved)
		if code != cli.ExitInput || !strings.Contains(stderr, "horizon: baseline 500, current 400") {
			t.Errorf("exit %d, want 2 naming the horizon\n%s", code, stderr)
		}
		if strings.Contains(stdout, "Regret at") {
			t.Errorf("ran despite the incompatible baseline:\n%s", stdout)
		}
		stdout, stderr, code = bench(t, "-q", "--scenario", base, "--horizon", "400", "--baseline", saved, "--force")
		if code == cli.ExitInput || !strings.Contains(stdout, "UNPAIRED") {
			t.Errorf("--force: exit %d, want a gate table with an unpaired test\n%s\n%s", code, stdout, stderr)
		}
	})
	t.Run("unreadable baseline", func(t *testing.T) {
		_, stderr, code := bench(t, "-q", "--scenario", base, "--baseline", filepath.Join(dir, "nope.json"))
		if code != cli.ExitInput || !strings.Contains(stderr, "--baseline") {
			t.Errorf("exit %d, want 2\n%s", code, stderr)
		}
	})
}
