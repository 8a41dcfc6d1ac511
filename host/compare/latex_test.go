package compare

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/internal/latextest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
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
