package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/htmlreport/htmlcheck"
	"github.com/regretbench/regretbench/host/results"
)

// Hostile names, as bench takes them: a scenario's name and a policy's
// label from a scenario file or --with (labels may hold no control), and
// diagnostic names from a plugin (testdata/faulty's xml-names mode:
// U+FFFE and markup, and two names whose file-safe forms collide).
const (
	hostileLabel    = "TS \uFFFE</text>]]>&\"'<b>"
	hostileDiag     = "gap\uFFFE</text>]]>&\"'"
	hostileRunLabel = "H ]]>&amp;\"'\uFFFF"
	hostileScenario = "hostile \uFFFE</text>]]>&\"'<b>"
)

// checkSVGs parses every SVG under dir with encoding/xml in strict mode,
// and returns how many there were.
func checkSVGs(t *testing.T, dir string) int {
	t.Helper()
	svgs, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range svgs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := htmlcheck.WellFormed(data); err != nil {
			t.Errorf("%s is not well-formed XML: %v", filepath.Base(p), err)
		}
	}
	return len(svgs)
}

// checkHTML checks the page at path with htmlcheck.Page.
func checkHTML(t *testing.T, path string) string {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := htmlcheck.Page(page); len(errs) > 0 {
		for _, err := range errs {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
	}
	return string(page)
}

// noJSONEscapes fails when data shows < > & as \u003c \u003e \u0026.
func noJSONEscapes(t *testing.T, what string, data []byte) {
	t.Helper()
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
		if bytes.Contains(data, []byte(esc)) {
			t.Errorf("%s holds %s", what, esc)
		}
	}
}

// TestHostileNamesOutputs: a run whose scenario name, labels and a
// plugin's diagnostic names hold what XML cannot carry as it is, and
// markup, writes well-formed SVG figures (--plot) and JSON that writes
// < > & as they are and reads back to the same names; bench plot and bench
// report on its results file, with control characters and invalid UTF-8
// added to the names (a results file may hold anything), write
// well-formed SVG and a valid page, and exit 0.
func TestHostileNamesOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := writeFile(t, "hostile.yaml", `
name: `+strconv.QuoteToASCII(hostileScenario)+`
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 60
runs: 4
seed: 1
policies:
  - {plugin: ts, label: `+strconv.QuoteToASCII(hostileLabel)+`}
  - {plugin: faulty-xml-names, label: `+strconv.QuoteToASCII(hostileRunLabel)+`}
`)
	figs := filepath.Join(dir, "figs")
	out := filepath.Join(dir, "r.json")
	stdout, stderr, code := bench(t, "--plugin-dir", faultyPlugins(t), "--scenario", sc, "-q", "--format", "json",
		"--out", out, "--plot", figs, "--plot-format", "svg,png", "--with", "ts@W <i>&</i>")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	noJSONEscapes(t, "--format json", []byte(stdout))
	f, err := results.Decode([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, `"label": "W <i>&</i>"`) || !strings.Contains(stdout, `"name": "hostile `) {
		t.Errorf("--format json does not write the names as they are:\n%.2000s", stdout)
	}
	var labels []string
	for _, p := range f.Policies {
		labels = append(labels, p.Label)
	}
	if want := []string{hostileLabel, hostileRunLabel, "W <i>&</i>"}; strings.Join(labels, "|") != strings.Join(want, "|") || f.Scenario.Name != hostileScenario {
		t.Errorf("read back %q %q, want %q", f.Scenario.Name, labels, want)
	}
	if _, ok := f.Policies[1].Diagnostics[hostileDiag]; !ok {
		t.Errorf("no diagnostic %q in %v", hostileDiag, f.Policies[1].Diagnostics)
	}
	s, err := compare.FromFile(f)
	// All pairs; W is ts as the first row is: identical to it.
	if err != nil || s == nil || len(s.Policies) != 3 || s.Policies[2].Label != "W <i>&</i>" || s.Policies[2].IdenticalTo != hostileLabel {
		t.Errorf("comparison read back: %v %+v", err, s)
	}
	saved, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	noJSONEscapes(t, "--out", saved)
	// Three figures and one per diagnostic, all told apart.
	if n := checkSVGs(t, figs); n != 7 {
		t.Errorf("--plot wrote %d SVG figures, want 7", n)
	}

	// Names a results file may hold but a run refuses.
	f = readResults(t, out)
	f.Scenario.Name = "ctl\x01\x1b[2J\x7f\u0085 </text>]]>&"
	f.Scenario.Description = "desc\x00\x07 <p>&amp;"
	f.Policies[0].Label = "T\x1b[31mS\x01 </text>"
	if _, err := compare.Attach(f, compare.Spec{Policies: []string{"W <i>&</i>"}, Baselines: []string{f.Policies[0].Label, hostileRunLabel}}, compare.DefaultOptions); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, "edited.json")
	if err := f.WriteFile(edited); err != nil {
		t.Fatal(err)
	}
	figs2 := filepath.Join(dir, "figs2")
	if _, stderr, code := bench(t, "plot", edited, "--out", figs2, "--format", "svg,pdf"); code != 0 {
		t.Fatalf("bench plot: exit %d\n%s", code, stderr)
	}
	if n := checkSVGs(t, figs2); n != 7 {
		t.Errorf("bench plot wrote %d SVG figures, want 7", n)
	}
	page := filepath.Join(dir, "r.html")
	if _, stderr, code := bench(t, "report", edited, out, edited, "--out", page); code != 0 {
		t.Fatalf("bench report: exit %d\n%s", code, stderr)
	}
	html := checkHTML(t, page)
	for _, want := range []string{`ctl\x01\x1b[2J\x7f\u0085 &lt;/text&gt;]]&gt;&amp;`, `T\x1b[31mS\x01 &lt;/text&gt;`, `gap\ufffe&lt;/text&gt;`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(html, "<svg"); n != 21 {
		t.Errorf("the page has %d figures, want 21", n)
	}
}

// TestPaperWithHostileLabel: bench paper --with a policy whose label holds
// U+FFFE and markup writes every figure as well-formed SVG, index.html as
// a valid page, the comparison's JSON with the label as it is, prints the
// summary, and exits 0 (it ran every experiment, then exited 1 with no
// index.html and no summary).
func TestPaperWithHostileLabel(t *testing.T) {
	skipShort(t, "bench paper --with a hostile label (every scenario of the paper, small scale)")
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := bench(t, "paper", "--runs", "4", "--horizon", "120", "--out", dir, "--plot-format", "svg", "-q", "--with", "ts@"+hostileLabel)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"Final values at T", "Comparison across 9 scenarios", hostileLabel} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if n := checkSVGs(t, dir); n < 9*3 {
		t.Errorf("%d SVG figures, want at least 27", n)
	}
	html := checkHTML(t, filepath.Join(dir, "index.html"))
	if n := strings.Count(html, `<section class="experiment"`); n != 9 {
		t.Errorf("index.html has %d experiments, want 9", n)
	}
	if !strings.Contains(html, `TS \ufffe&lt;/text&gt;]]&gt;&amp;&#34;&#39;&lt;b&gt;`) { // U+FFFE as an escape
		t.Errorf("index.html does not show the label")
	}
	data, err := os.ReadFile(filepath.Join(dir, "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	noJSONEscapes(t, "comparison.json", data)
	var sum compare.Summary
	err = json.Unmarshal(data, &sum)
	hostile := false
	for _, x := range sum.Totals {
		hostile = hostile || x.Label == hostileLabel
	}
	if err != nil || !hostile {
		t.Errorf("comparison.json read back: %v %+v", err, sum.Totals)
	}
}

// TestPaperFigureFailureGoesOn: a figure bench paper cannot write (a
// directory stands where its file goes) costs only itself: bench names it
// on stderr, writes every other figure, report and index.html, prints the
// summary, and exits 1.
func TestPaperFigureFailureGoesOn(t *testing.T) {
	skipShort(t, "bench paper with a figure it cannot write (every scenario of the paper, small scale)")
	t.Parallel()
	dir := t.TempDir()
	blocked := filepath.Join(dir, "obd_separated.svg")
	if err := os.Mkdir(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := bench(t, "paper", "--runs", "4", "--horizon", "120", "--out", dir, "--plot-format", "svg", "-q")
	if code != 1 || !strings.Contains(stderr, "figure "+blocked) || !strings.Contains(stderr, "1 outputs could not be written") {
		t.Errorf("exit %d, want 1 naming %s\n%s", code, blocked, stderr)
	}
	if !strings.Contains(stdout, "Final values at T") {
		t.Errorf("no summary on stdout:\n%s", stdout)
	}
	for _, name := range []string{"obd_regret.svg", "obd_underestimation.svg", "obd.json", "obd.txt", "movielens_separated.svg", "two_arm_separated.svg", "index.html"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	checkHTML(t, filepath.Join(dir, "index.html"))
}

// TestRunPlotFailureGoesOn: a figure that --plot cannot write costs only
// itself: the tables are printed, the other figures and --out written,
// and bench names the figure and exits 1.
func TestRunPlotFailureGoesOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	figs := filepath.Join(dir, "figs")
	blocked := filepath.Join(figs, "quick_regret.png")
	if err := os.MkdirAll(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	stdout, stderr, code := bench(t, "--scenario", "quick", "--runs", "4", "--horizon", "50", "-q", "--out", out, "--plot", figs, "--plot-format", "png,svg")
	if code != 1 || !strings.Contains(stderr, "figure "+blocked) {
		t.Errorf("exit %d, want 1 naming %s\n%s", code, blocked, stderr)
	}
	if !strings.Contains(stdout, "Regret at T=50") || !strings.Contains(stdout, "quick_regret.svg") || strings.Contains(stdout, "quick_regret.png\n") {
		t.Errorf("stdout: want the tables and the figures written:\n%s", stdout)
	}
	readResults(t, out)
	if n := checkSVGs(t, figs); n < 3 {
		t.Errorf("%d SVG figures written, want every one", n)
	}
}
