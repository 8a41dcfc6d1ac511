package cli_test

import (
	"encoding/json"
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
	if !strings.Contains(stdout, "Comparison in obd") || !strings.Contains(stdout, "Comparison across 6 scenarios") {
		t.Errorf("comparison missing from stdout:\n%s", stdout)
	}
	for _, name := range []string{"two_arm", "ten_arm", "obd", "movielens", "failure_mode", "remaxgrad_three_arm"} {
		f := readResults(t, filepath.Join(dir, name+".json"))
		if last := f.Policies[len(f.Policies)-1]; last.Label != "TS x2" {
			t.Errorf("%s: last policy %q, want TS x2", name, last.Label)
		}
		s, err := compare.FromFile(f)
		if err != nil || s == nil || s.Policies[0].Label != "TS x2" || len(s.Policies[0].Diffs) != len(f.Policies)-1 {
			t.Errorf("%s: comparison %v %+v", name, err, s)
		}
		txt, _ := os.ReadFile(filepath.Join(dir, name+".txt"))
		if !strings.Contains(string(txt), "Comparison in "+name) {
			t.Errorf("%s.txt has no comparison section", name)
		}
	}
	var sum compare.Summary
	data, err := os.ReadFile(filepath.Join(dir, "comparison.json"))
	if err != nil || json.Unmarshal(data, &sum) != nil || len(sum.Scenarios) != 6 || len(sum.Totals) != 1 || sum.Totals[0].Scenarios != 6 {
		t.Errorf("comparison.json: %v %+v", err, sum.Totals)
	}
	for _, ext := range []string{"txt", "md", "csv"} {
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
	for _, want := range []string{`<h2>Comparison across 6 experiments</h2>`, `id="exp-5-obd-comparison-table"`, `id="exp-1-two_arm-comparison-table"`, `<th scope="row" rowspan="3">TS x2</th>`} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.html lacks %s", want)
		}
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
	if err := os.Symlink(ucb1Plugin(t), filepath.Join(plugins, "bench-plugin-ucb1")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := bench(t, "--plugin-dir", plugins, "paper", "--runs", "4", "--horizon", "120", "--out", out,
		"--plot-format", "svg", "-q", "--with", "ucb1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Comparison across 6 scenarios") {
		t.Errorf("no comparison across the experiments on stdout:\n%s", stdout)
	}
	plain := filepath.Join(dir, "plain")
	if _, stderr, code := bench(t, "paper", "--runs", "4", "--horizon", "120", "--out", plain, "--plot-format", "svg", "-q"); code != 0 {
		t.Fatalf("plain paper: exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"two_arm", "three_arm", "ten_arm", "obd", "movielens", "failure_mode",
		"remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"} {
		with, base := readResults(t, filepath.Join(out, name+".json")), readResults(t, filepath.Join(plain, name+".json"))
		last := with.Policies[len(with.Policies)-1]
		if last.Label != "ucb1" || last.Status != "ok" {
			t.Errorf("%s: last policy %q (%s), want ucb1, ok", name, last.Label, last.Status)
		}
		if len(with.Policies) != len(base.Policies)+1 {
			t.Errorf("%s: %d policies with --with, %d without", name, len(with.Policies), len(base.Policies))
		}
		for _, p := range base.Policies {
			q := with.Policy(p.Label)
			if q == nil || !reflect.DeepEqual(p.Final, q.Final) || !reflect.DeepEqual(p.Regret, q.Regret) {
				t.Errorf("%s: shipped policy %q changed when ucb1 was added", name, p.Label)
			}
		}
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<h2>Comparison across 6 experiments</h2>`, `id="exp-4-failure_mode-comparison-table"`, `>ucb1</th>`} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
}
