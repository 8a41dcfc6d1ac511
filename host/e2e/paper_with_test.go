package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/compare"
)

// TestPaperWith: bench paper --with adds the policy to every experiment
// (and to the two-, three- and ten-arm files), leaves the shipped rows as a
// plain run computes them, and prints and writes the comparison.
func TestPaperWith(t *testing.T) {
	skipShort(t, "bench paper --with (every scenario of the paper, small scale)")
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := bench(t, "paper", "--runs", "4", "--horizon", "120", "--out", dir, "--plot-format", "svg", "-q", "--with", "ts:inflation=2@TS x2")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Comparison in obd") || !strings.Contains(stdout, "Comparison across 9 scenarios") ||
		!strings.Contains(stdout, "9 experiments (6 scenario runs) in") {
		t.Errorf("comparison missing from stdout:\n%s", stdout)
	}
	var sum compare.Summary
	data, err := os.ReadFile(filepath.Join(dir, "comparison.json"))
	if err != nil || json.Unmarshal(data, &sum) != nil || len(sum.Scenarios) != 9 {
		t.Fatalf("comparison.json: %v %+v", err, sum.Totals)
	}
	found := false
	for _, x := range sum.Totals {
		if x.Label == "TS x2" {
			found = x.Scenarios == 6 && x.Ranked // 9 experiments, the three remaxgrad_* reuse a run
		}
	}
	if !found {
		t.Errorf("comparison.json: TS x2's total in %+v, want 6 scenarios (the runs it was in) and a mean rank", sum.Totals)
	}
	// Each experiment's file holds exactly the comparison that
	// comparison.json shows for it, p-values included (one Holm family per
	// table), every pair of its policies is tested (issue 34), and each
	// pair once across the tables: a sweep leaves its ReMax, TS and KL-UCB
	// rows to its base experiment.
	tested := map[string]string{} // "TS x2 vs TS in two_arm's instance" -> the table
	for i, name := range []string{"two_arm", "three_arm", "ten_arm", "failure_mode", "obd", "movielens", "remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"} {
		f := readResults(t, filepath.Join(dir, name+".json"))
		if last := f.Policies[len(f.Policies)-1]; last.Label != "TS x2" {
			t.Errorf("%s: last policy %q, want TS x2", name, last.Label)
		}
		s, err := compare.FromFile(f)
		if err != nil || s == nil {
			t.Fatalf("%s: comparison %v %+v", name, err, s)
		}
		if got := sum.Scenarios[i]; got.Name != name || !reflect.DeepEqual(got, *s) {
			t.Errorf("comparison.json's %s differs from %s.json's comparison:\n%+v\n%+v", got.Name, name, got, *s)
		}
		k, wantLeft := len(f.Policies), 0
		if strings.HasPrefix(name, "remaxgrad_") {
			k, wantLeft = len(f.Policies)-3, 3
		}
		if len(s.Policies) != k || s.Comparisons != k*(k-1)/2 {
			t.Errorf("%s: %d policies compared, Holm over %d; want %d and all pairs, %d", name, len(s.Policies), s.Comparisons, k, k*(k-1)/2)
		}
		instance := strings.TrimPrefix(name, "remaxgrad_")
		for _, p := range s.Policies {
			if len(p.Diffs) != k-1 || len(p.LeftOut) != wantLeft {
				t.Errorf("%s: %s has %d differences, %d left out; want %d, %d", name, p.Label, len(p.Diffs), len(p.LeftOut), k-1, wantLeft)
			}
			for _, d := range p.Diffs {
				if !d.Tested() || p.Label > d.Baseline {
					continue
				}
				key := p.Label + " vs " + d.Baseline + " in " + instance
				if other, dup := tested[key]; dup {
					t.Errorf("%s is tested in %s and in %s", key, other, name)
				}
				tested[key] = name
			}
		}
		txt, _ := os.ReadFile(filepath.Join(dir, name+".txt"))
		want := fmt.Sprintf("Holm-adjusted over the %d comparisons of this table", s.Comparisons)
		if !strings.Contains(string(txt), "Comparison in "+name) || !strings.Contains(string(txt), want) {
			t.Errorf("%s.txt has no comparison section saying %q", name, want)
		}
		tex, _ := os.ReadFile(filepath.Join(dir, name+".tex"))
		if strings.Count(string(tex), `\begin{tabular}`) != 2 || !strings.Contains(string(tex), "% Comparison in "+name) {
			t.Errorf("%s.tex does not hold the regret table and the comparison:\n%s", name, tex)
		}
	}
	for _, ext := range []string{"txt", "md", "csv", "tex"} {
		if fi, err := os.Stat(filepath.Join(dir, "comparison."+ext)); err != nil || fi.Size() == 0 {
			t.Errorf("comparison.%s: %v", ext, err)
		}
	}
	// index.html shows the comparison: across the six runs and in each
	// experiment's section.
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`9 experiments.`, `<h2>Comparison across 9 experiments</h2>`, `id="exp-5-obd-comparison-table"`, `id="exp-1-two_arm-comparison-table"`, `<th scope="row">TS x2</th>`,
		"TS x2 are not compared with ReMax, TS, KL-UCB (compared in two_arm, the same run)"} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	// index.html has the summary table stdout prints, and the mean ranks
	// of the four policies every instance ran (ReMax, TS, KL-UCB, TS x2)
	// over the six instances, with the test stated; so does stdout, and
	// the figure is written.
	for _, want := range []string{`id="summary-table"`, `<caption>Final values at T (mean ± standard error over replications)</caption>`,
		`<th scope="row">remaxgrad_ten_arm</th><td>ReMaxGrad M=4</td>`, `id="mean-ranks"`, `id="mean-ranks-fig"`,
		"N = 6 experiments (two_arm, three_arm, ten_arm, failure_mode, obd, movielens)", "k = 4 policies", "Nemenyi post-hoc test at α = 0.01"} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	if !strings.Contains(stdout, "Mean ranks across experiments\n") || !strings.Contains(stdout, "k = 4 policies") {
		t.Errorf("stdout lacks the mean ranks:\n%s", stdout)
	}
	if fi, err := os.Stat(filepath.Join(dir, "mean_ranks.svg")); err != nil || fi.Size() == 0 {
		t.Errorf("mean_ranks.svg: %v", err)
	}
	// The shipped rows are those of a plain run.
	single := filepath.Join(t.TempDir(), "fm.json")
	if _, stderr, code := bench(t, "--scenario", "failure_mode", "--runs", "4", "--horizon", "120", "-q", "--policy", "TS", "--policy", "ReMax c2=2", "--out", single); code != 0 {
		t.Fatalf("failure_mode: exit %d\n%s", code, stderr)
	}
	a, b := readResults(t, single), readResults(t, filepath.Join(dir, "failure_mode.json"))
	for _, p := range a.Policies {
		if !reflect.DeepEqual(p.Final, b.Policy(p.Label).Final) {
			t.Errorf("failure_mode %q differs between paper --with and a plain run", p.Label)
		}
	}
	if _, stderr, code := bench(t, "paper", "--out", t.TempDir(), "--with", "ts@ReMax"); code != 2 || !strings.Contains(stderr, `--with "ts@ReMax": label "ReMax" is already used`) {
		t.Errorf("paper --with a taken label: exit %d\n%s", code, stderr)
	}
}

// TestPaperWithExternalPlugin is issue 17's acceptance: a Go plugin built
// outside this module (examples/ucb1, its own module) appears in every
// paper experiment with `bench paper --with NAME`, next to unchanged
// shipped rows, with the comparison printed and written into index.html.
func TestPaperWithExternalPlugin(t *testing.T) {
	skipShort(t, "bench paper --with examples/ucb1 (every scenario of the paper, small scale)")
	t.Parallel()
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range shipped {
		if err := os.Symlink(filepath.Join(binDir, "plugins", "bench-plugin-"+p), filepath.Join(plugins, "bench-plugin-"+p)); err != nil {
			t.Fatal(err)
		}
	}
	// Beside every shipped plugin, ucb1 included: the example's name is
	// its own.
	if err := os.Symlink(ucb1Plugin(t), filepath.Join(plugins, "bench-plugin-ucb1-example")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := bench(t, "--plugin-dir", plugins, "paper", "--runs", "4", "--horizon", "120", "--out", out,
		"--plot-format", "svg", "-q", "--with", "ucb1-example")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Comparison across 9 scenarios") {
		t.Errorf("no comparison across the experiments on stdout:\n%s", stdout)
	}
	plain, _ := plainPaper(t) // the same paper without --with, as TestPaper reads it
	for _, name := range []string{"two_arm", "three_arm", "ten_arm", "obd", "movielens", "failure_mode",
		"remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"} {
		with, base := readResults(t, filepath.Join(out, name+".json")), readResults(t, filepath.Join(plain, name+".json"))
		last := with.Policies[len(with.Policies)-1]
		if last.Label != "ucb1-example" || last.Status != "ok" {
			t.Errorf("%s: last policy %q (%s), want ucb1-example, ok", name, last.Label, last.Status)
		}
		if len(with.Policies) != len(base.Policies)+1 {
			t.Errorf("%s: %d policies with --with, %d without", name, len(with.Policies), len(base.Policies))
		}
		for _, p := range base.Policies {
			q := with.Policy(p.Label)
			if q == nil || !reflect.DeepEqual(p.Final, q.Final) || !reflect.DeepEqual(p.Regret, q.Regret) {
				t.Errorf("%s: shipped policy %q changed when ucb1-example was added", name, p.Label)
			}
		}
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<h2>Comparison across 9 experiments</h2>`, `id="exp-4-failure_mode-comparison-table"`, `>ucb1-example</th>`} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
}

// TestPaperWithIdentical: bench paper --with remaxgrad adds the shipped
// ReMaxGrad M=2 again (the same executable, parameters and seed): in each
// sweep it is reported as identical to ReMaxGrad M=2, neither tested nor
// ranked twice, and the mean rank counts each sweep once with its base
// instance (issue 34).
func TestPaperWithIdentical(t *testing.T) {
	skipShort(t, "bench paper --with remaxgrad (every scenario of the paper, small scale)")
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := bench(t, "paper", "--runs", "4", "--horizon", "120", "--out", dir, "--plot-format", "svg", "-q", "--with", "remaxgrad")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"} {
		s, err := compare.FromFile(readResults(t, filepath.Join(dir, name+".json")))
		if err != nil || s == nil {
			t.Fatalf("%s: %v", name, err)
		}
		ranks := map[string]float64{}
		for _, p := range s.Policies {
			ranks[p.Label] = p.Rank
			if p.Label != "remaxgrad" {
				continue
			}
			if p.IdenticalTo != "ReMaxGrad M=2" {
				t.Errorf("%s: remaxgrad identical to %q, want ReMaxGrad M=2", name, p.IdenticalTo)
			}
			for _, d := range p.Diffs {
				if d.Tested() {
					t.Errorf("%s: remaxgrad tested against %s", name, d.Baseline)
				}
			}
		}
		// Ranked once: the other policies' ranks run 1..k-1 with no
		// gap left for a second copy.
		if s.Ranked != len(s.Policies)+3-1 || ranks["remaxgrad"] != ranks["ReMaxGrad M=2"] {
			t.Errorf("%s: %d ranked of %d policies (+3 left to the base), ranks %v", name, s.Ranked, len(s.Policies), ranks)
		}
		txt, _ := os.ReadFile(filepath.Join(dir, name+".txt"))
		if !strings.Contains(string(txt), "remaxgrad is identical to ReMaxGrad M=2 (the same executable, parameters, seed and feedback)") {
			t.Errorf("%s.txt does not say remaxgrad is identical to ReMaxGrad M=2", name)
		}
	}
	for _, want := range []string{"N = 6 experiments (two_arm, three_arm, ten_arm, failure_mode, obd, movielens)",
		"Counted once: remaxgrad_two_arm (the run of two_arm), remaxgrad_three_arm (the run of three_arm), remaxgrad_ten_arm (the run of ten_arm)."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if n := strings.Count(stdout, "\n| remaxgrad "); n != 1 {
		t.Errorf("remaxgrad has %d rows in the totals, want 1:\n%s", n, stdout)
	}
}
