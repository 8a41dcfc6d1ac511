package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// TestGateSequential runs the sequential gate end to end with the real ts
// and klucb plugins: an unchanged rerun stops at the first look (40 of 200
// replications) with every verdict same, a large regression is caught
// before the last look, and the results file records the replications
// each policy used, which bench gate --sequential replays to the same
// verdicts.
func TestGateSequential(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := gateScenario(t, "base", basePolicies)
	reg := gateScenario(t, "regressed", regressedPolicies)
	saved := filepath.Join(dir, "saved.json")
	if _, stderr, code := bench(t, "-q", "--scenario", base, "--save-baseline", saved); code != 0 {
		t.Fatalf("--save-baseline: exit %d\n%s", code, stderr)
	}
	used := func(t *testing.T, path string) map[string]int {
		t.Helper()
		f, err := results.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, p := range f.Policies {
			n[p.Label] = len(p.Final["regret"])
			if p.Replications != 0 && p.Replications != n[p.Label] {
				t.Errorf("%s: replications %d but %d final values", p.Label, p.Replications, n[p.Label])
			}
			if p.Replications == 0 && n[p.Label] != f.Scenario.Runs {
				t.Errorf("%s: no replications recorded but %d of %d final values", p.Label, n[p.Label], f.Scenario.Runs)
			}
		}
		return n
	}

	t.Run("no change stops at the first look", func(t *testing.T) {
		out := filepath.Join(dir, "same.json")
		stdout, stderr, code := bench(t, "-q", "--scenario", base, "--baseline", saved, "--sequential", "--looks", "5", "--out", out)
		if code != cli.ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		for l, v := range verdicts(t, stdout) {
			if v != "same" {
				t.Errorf("%s: verdict %s, want same", l, v)
			}
		}
		for l, n := range used(t, out) {
			if n != 40 {
				t.Errorf("%s used %d replications, want 40 (the first look of 5 over 200)", l, n)
			}
		}
		if !strings.Contains(stderr, "look 1 of 5, 40 replications") {
			t.Errorf("stderr does not report the first look:\n%s", stderr)
		}
	})
	t.Run("large regression is caught early", func(t *testing.T) {
		out := filepath.Join(dir, "worse.json")
		stdout, stderr, code := bench(t, "-q", "--scenario", reg, "--baseline", saved, "--sequential", "--out", out)
		if code != cli.ExitRegression {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
		}
		v := verdicts(t, stdout)
		if v["TS"] != "worse" || v["KL-UCB"] != "worse" || v["control"] != "same" {
			t.Errorf("verdicts %v\n%s", v, stdout)
		}
		n := used(t, out)
		if n["TS"] >= 200 || n["KL-UCB"] >= 200 || n["control"] != 40 {
			t.Errorf("replications used %v: want the regressions caught before the last look, control at the first", n)
		}
		// bench gate replays the same looks on the files: same verdicts.
		stdout, stderr, code = bench(t, "gate", saved, out, "--sequential")
		if code != cli.ExitRegression {
			t.Fatalf("bench gate --sequential: exit %d, want 1\n%s", code, stderr)
		}
		if v2 := verdicts(t, stdout); v2["TS"] != v["TS"] || v2["KL-UCB"] != v["KL-UCB"] || v2["control"] != v["control"] {
			t.Errorf("bench gate --sequential replays %v, the run decided %v", v2, v)
		}
	})
	t.Run("markdown comment", func(t *testing.T) {
		// The pull-request comment: the verdict sentence, files by name and
		// never by their absolute temporary path, what changed.
		stdout, _, code := bench(t, "gate", saved, filepath.Join(dir, "worse.json"), "--sequential", "--format", "markdown")
		if code != cli.ExitRegression {
			t.Fatalf("exit %d, want 1", code)
		}
		for _, want := range []string{"**Verdict:** fail (exit 1). regression: \"TS\"", "worse.json against baseline saved.json",
			`TS: params {"inflation":1} -> {"inflation":4}`, `KL-UCB: params {"c":0} -> {"c":3}`} {
			if !strings.Contains(stdout, want) {
				t.Errorf("markdown lacks %q:\n%s", want, stdout)
			}
		}
		if strings.Contains(stdout, dir) {
			t.Errorf("markdown names the absolute path %s:\n%s", dir, stdout)
		}
	})
	t.Run("needs a baseline", func(t *testing.T) {
		_, stderr, code := bench(t, "-q", "--scenario", base, "--sequential")
		if code != cli.ExitInput || !strings.Contains(stderr, "--sequential needs --baseline") {
			t.Errorf("exit %d, want 2\n%s", code, stderr)
		}
	})
}
