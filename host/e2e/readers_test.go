package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// reportFixture is the report package's small results file: three ok
// policies, one with diagnostics, and a failed one.
const reportFixture = "../report/testdata/small.json"

// rewriteFile writes a copy of the file at src to dir/name with the first
// n occurrences of old replaced by new (all when n < 0).
func rewriteFile(t *testing.T, src, dir, name, old, new string, n int) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.Contains(s, old) {
		t.Fatalf("%s lacks %q", src, old)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Replace(s, old, new, n)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlotRefusesOverflow: bench plot of a file holding a number that
// overflows float64, or one so large that mean + SE does, exits 2 naming
// the file and the field, and draws nothing. Before, 1.7e308 made it loop
// forever.
func TestPlotRefusesOverflow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := results.ReadFile(reportFixture)
	if err != nil {
		t.Fatal(err)
	}
	ok := f.Policies[0]
	ok.Regret.Mean[len(ok.Regret.Mean)-1], ok.Regret.SE[len(ok.Regret.SE)-1] = 1.5e308, 1.5e308
	huge := filepath.Join(dir, "huge.json")
	if err := f.WriteFile(huge); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file string
		want       []string
	}{
		{"mean + SE overflows", huge, []string{"huge.json", `policies[0] "ReMaxGrad M=2": regret.mean[5] = 1.5e+308`, "finite and within"}},
		{"1e309", rewriteFile(t, reportFixture, dir, "e309.json", `"noise_sd": 0.5`, `"noise_sd": 1e309`, 1),
			[]string{"e309.json", "number 1e309", "noise_sd"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			figs := filepath.Join(t.TempDir(), "figs")
			stdout, stderr, code := bench(t, "plot", c.file, "--out", figs)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d\n%s", code, cli.ExitInput, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if stdout != "" {
				t.Errorf("figures written:\n%s", stdout)
			}
		})
	}
}

// TestGateEmptyBaseline: a baseline with no policy to compare is exit 2
// naming the baseline file, in bench gate and, before anything runs, in
// the one-call form. Before, the gate compared nothing and exited 0.
func TestGateEmptyBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cur := reportFixture
	f, err := results.ReadFile(reportFixture)
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.json")
	f.Policies = nil
	if err := f.WriteFile(empty); err != nil {
		t.Fatal(err)
	}
	f, _ = results.ReadFile(reportFixture)
	for _, p := range f.Policies {
		*p = results.Policy{Label: p.Label, Plugin: p.Plugin, Params: p.Params, Status: results.StatusFailed, Error: "crashed"}
	}
	allFailed := filepath.Join(dir, "all-failed.json")
	if err := f.WriteFile(allFailed); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, base, want string }{
		{"no policy", empty, "it holds no policy"},
		{"every policy failed", allFailed, `none of its policies ("ReMaxGrad M=2", "TS", "KL-UCB, c=0", "Broken") ran`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := bench(t, "gate", c.base, cur)
			if code != cli.ExitInput || !strings.Contains(stderr, "baseline "+c.base+": the baseline has no policy to compare with") ||
				!strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 naming %s and %q\n%s", code, c.base, c.want, stderr)
			}
		})
	}

	t.Run("one-call form with --policy", func(t *testing.T) {
		args := []string{"--scenario", "quick", "--runs", "4", "--horizon", "60"}
		base := runTo(t, dir, "ts.json", append(args, "--policy", "TS")...)
		stdout, stderr, code := bench(t, append(args, "-q", "--baseline", base, "--policy", "KL-UCB")...)
		if code != cli.ExitInput || !strings.Contains(stderr, "--baseline "+base+": the baseline has no policy to compare with") ||
			!strings.Contains(stderr, "--policy selects: KL-UCB") {
			t.Errorf("exit %d, want 2 naming the baseline and --policy\n%s", code, stderr)
		}
		if strings.Contains(stdout, "Regret at") {
			t.Errorf("ran despite the empty baseline:\n%s", stdout)
		}
	})
}
