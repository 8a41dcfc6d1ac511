package run_test

import (
	"bytes"
	goflag "flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/htmlreport/htmlcheck"
	"github.com/regretbench/regretbench/host/internal/latextest"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report/reporttest"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
)

var updateSuite = goflag.Bool("update-suite", false, "rewrite the suite's golden files in testdata/")

// suiteFiles are three contextual scenarios where LinUCB errs least and
// Uniform most, each replication's errors a fixed function of the
// replication (reporttest.Contextual), and Broken failed in the first.
func suiteFiles() []*results.File {
	var files []*results.File
	for i, name := range []string{"ctx_a", "ctx_b", "ctx_c"} {
		ps := slices.Clone(reporttest.ContextualPolicies)
		if i > 0 {
			ps = ps[:3]
		}
		ps[1].Err += 0.05 * float64(i) // Greedy does worse on later scenarios
		files = append(files, reporttest.Contextual(name, 6, 100, ps...))
	}
	return files
}

// TestWriteSuite: a suite's outputs, as bench run --suite writes them
// into its directory: per scenario its results file, tables and figures
// (as bench paper writes an experiment); the suite's tables (final
// pv_loss per policy and scenario, the bake-off's matrix) in text,
// Markdown, CSV and LaTeX, golden files all, with the mean ranks and
// their critical difference; the mean-rank figure; and index.html, a
// valid page with the suite's tables. The LaTeX compiles.
func TestWriteSuite(t *testing.T) {
	files := suiteFiles()
	dir := t.TempDir()
	tabs := run.SuiteTables(files)
	ranks := ranktest.Across(files, run.SuiteRankOptions.Metric, run.SuiteRankOptions.Alpha)
	var stderr bytes.Buffer
	if n := run.WriteSuite(dir, files, tabs, ranks, []string{"svg"}, &stderr); n != 0 {
		t.Fatalf("%d outputs not written: %s", n, stderr.String())
	}
	var want []string
	for _, f := range files {
		n := f.Scenario.Name
		want = append(want, n+".json", n+".txt", n+".tex", n+"_regret.svg", n+"_pv_loss.svg", n+"_regret_distribution.svg")
	}
	want = append(want, "bakeoff.csv", "index.html", "mean_ranks.svg", "suite.csv", "suite.md", "suite.tex", "suite.txt")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("wrote %v\nwant %v", got, want)
	}
	for _, name := range []string{"suite.txt", "suite.md", "suite.csv", "bakeoff.csv", "suite.tex"} {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		suiteGolden(t, name, body)
	}
	// LinUCB beats Greedy and Uniform on all three scenarios.
	bake, _ := os.ReadFile(filepath.Join(dir, "bakeoff.csv"))
	if !strings.Contains(string(bake), "LinUCB,,+3 (3/0),+3 (3/0)") {
		t.Errorf("bake-off:\n%s", bake)
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "suite.txt"))
	for _, w := range []string{"Final pv_loss per policy and scenario", "0.0850 ± 0.0076", "Friedman", "critical difference"} {
		if !strings.Contains(string(txt), w) {
			t.Errorf("suite.txt lacks %q:\n%s", w, txt)
		}
	}
	back, err := results.ReadFile(filepath.Join(dir, "ctx_a.json"))
	if err != nil || back.Scenario.Context == nil {
		t.Errorf("ctx_a.json: %v", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := htmlcheck.Page(page); len(errs) > 0 {
		t.Errorf("index.html: %v", errs)
	}
	for _, w := range []string{`id="across-0"`, `id="across-1"`, "Across scenarios", `id="mean-ranks"`, "exp-3-ctx_c-fig-pv_loss"} {
		if !strings.Contains(string(page), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	tex, _ := os.ReadFile(filepath.Join(dir, "suite.tex"))
	text := latextest.Compile(t, string(tex))
	latextest.Contains(t, text, "Table 1", "Table 2", "Table 3", "Table 4", "0.0850 ± 0.0076", "+3 (3/0)", "Mean rank")
}

// TestWriteSuiteNoOutputsOfOneScenario: a suite of one scenario has no
// mean ranks (a ranking needs two), and still writes its tables and page.
func TestWriteSuiteOneScenario(t *testing.T) {
	files := suiteFiles()[:1]
	dir := t.TempDir()
	ranks := ranktest.Across(files, run.SuiteRankOptions.Metric, run.SuiteRankOptions.Alpha)
	var stderr bytes.Buffer
	if n := run.WriteSuite(dir, files, run.SuiteTables(files), ranks, []string{"svg"}, &stderr); n != 0 {
		t.Fatalf("%d outputs not written: %s", n, stderr.String())
	}
	for _, name := range []string{"suite.md", "suite.tex", "index.html", "ctx_a.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "mean_ranks.svg")); err == nil {
		t.Error("a mean-rank figure of one scenario")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "suite.md")); strings.Contains(string(b), "Mean ranks") {
		t.Errorf("suite.md has mean ranks of one scenario:\n%s", b)
	}
}

// suiteGolden compares got with testdata/name, or rewrites it with
// -update-suite.
func suiteGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *updateSuite {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./host/run -run TestWriteSuite -update-suite writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test ./host/run -run TestWriteSuite -update-suite rewrites it); got:\n%s", name, path, got)
	}
}
