package compare

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/internal/latextest"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestLatexGolden: the comparison as booktabs tabulars (testdata/
// comparison.tex): per scenario the paired differences, CIs, Holm p and
// outcomes with a feedback column and a failed policy, then the wins,
// ties and losses across scenarios; labels that hold LaTeX's specials
// come out escaped.
func TestLatexGolden(t *testing.T) {
	withFeedback := func(p *results.Policy, mode string) *results.Policy { p.Feedback = mode; return p }
	f := file(
		pol(`TS_{old} & 50%`, 5, 6, 7, 6, 8),
		withFeedback(pol("A d=100", 50, 60, 70, 65, 55), "delay 100"),
		// Mine tracks the others' bad fifth replication, so its wins are
		// clear even to the paired test's tail guard at n = 5.
		pol(`Mine~v2 #1 $\alpha$`, 1, 2, 3, 2, 4),
		pol("Same", 5.1, 6, 6.9, 6.2, 7.8),
		failed("Broken^2"),
	)
	f.Scenario.Name, f.Scenario.Runs = "two_arm", 5
	s1, err := Compute(f, Spec{Policies: []string{`Mine~v2 #1 $\alpha$`, "Same", "Broken^2"}, Baselines: []string{`TS_{old} & 50%`, "A d=100"}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	g := file(pol(`TS_{old} & 50%`, 1, 2, 3), pol(`Mine~v2 #1 $\alpha$`, 2, 3, 5), pol("Same", 1, 2, 3), failed("Broken^2"))
	g.Scenario.Name = "ten_arm"
	s2, err := Compute(g, Spec{Policies: []string{`Mine~v2 #1 $\alpha$`, "Same", "Broken^2"}, Baselines: []string{`TS_{old} & 50%`}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, Summarize([]*Scenario{s1, s2}, nil), report.FormatLatex); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`TS\_\{old\} \& 50\%`, `Mine\textasciitilde{}v2 \#1 \$\textbackslash{}alpha\$`, `Broken\textasciicircum{}2`,
		`\toprule`, `\midrule`, `\bottomrule`, `\caption{two\_arm:`, `\label{tab:comparison-two-arm}`, `S[table-format=`, `\bfseries 2.40 +- 0.51`, "delay 100"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count(out, `\begin{table}`); n != 3 || strings.Count(out, `\end{tabular}`) != 3 {
		t.Errorf("%d tables, want 3 (one per scenario and the totals)", n)
	}
	text := latextest.Compile(t, out)
	latextest.Contains(t, text, "2.40 ± 0.51", "6.40 ± 0.51", "3.33 ± 0.88", "60.00 ± 3.54", "#1 $\\alpha$", "{old} & 50%", "Table 3", "Same – 2 0 3 1")
	path := filepath.Join("testdata", "comparison.tex")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./host/compare -run TestLatexGolden -update writes it)", err)
	}
	if out != string(want) {
		t.Errorf("differs from %s (go test ./host/compare -run TestLatexGolden -update rewrites it); got:\n%s", path, out)
	}
}

// TestPaperLatexSameRunColumn: the wide table gives an experiment that
// reuses another's run (as remaxgrad_two_arm reuses two_arm's) no column
// of its own: its policies join that run's column, tested with the rest
// in one family, and the caption says so; a run of its own keeps its
// column.
func TestPaperLatexSameRunColumn(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{11, 12, 13, 14, 15, 16}
	g := []float64{0.5, 1.5, 2.5, 3.5, 4.5, 5.5} // beats A by 0.5 in every replication
	mk := func(name string, s uint64, ps ...*results.Policy) *results.File {
		f := file(ps...)
		f.Scenario.Name, f.Scenario.Runs = name, len(a)
		f.Scenario.Seed = seed.Int(s)
		return f
	}
	files := []*results.File{
		mk("two_arm", 1, pol("A", a...), pol("B", b...)),
		mk("remaxgrad_two_arm", 1, pol("A", a...), pol("B", b...), pol("G", g...)),
		mk("other", 2, pol("A", b...), pol("B", a...)),
	}
	an := ranktest.Across(files, "regret", DefaultOptions.Alpha)
	var buf bytes.Buffer
	if err := WritePaperLatex(&buf, files, an, DefaultOptions); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	head := out[strings.Index(out, `\toprule`):strings.Index(out, `\midrule`)]
	if strings.Contains(head, "remaxgrad") || !strings.Contains(head, `two\_arm`) || !strings.Contains(head, "other") {
		t.Errorf("header %q: want the columns two_arm and other only", head)
	}
	if !strings.Contains(out, `remaxgrad\_two\_arm in two\_arm's`) {
		t.Errorf("the caption does not say which experiment shares which column:\n%s", out)
	}
	// G is in two_arm's column, bold (the best), and A no longer is.
	text := latextest.Compile(t, out)
	latextest.Contains(t, text, "G", "3.00", "remaxgrad")
	if !strings.Contains(out, `G & \bfseries 3.00 +- 0.76 & {}`) || !strings.Contains(out, `A & 3.50 +- 0.76 & 13.50`) {
		t.Errorf("want G's two_arm value bold and nothing in other's column, A not bold in two_arm:\n%s", out)
	}
}
