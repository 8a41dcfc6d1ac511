package e2e_test

import (
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/internal/latextest"
)

// TestRunFormatLatex: bench --format latex prints the regret table and,
// with --with, the comparison as booktabs tabulars and nothing else: no
// text table, no figure list.
func TestRunFormatLatex(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := bench(t, "--scenario", "quick", "--runs", "4", "--horizon", "60", "-q", "--format", "latex", "--with", "ts:inflation=2@TS_x2")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stdout, `\begin{tabular}`); n != 2 || strings.Count(stdout, `\bottomrule`) != 2 {
		t.Errorf("%d tabulars, want 2 (regret, comparison):\n%s", n, stdout)
	}
	for _, want := range []string{`TS\_x2 &`, "% Comparison in quick", `regret\_under`, `\caption{quick:`, `\label{tab:comparison-quick}`, `S[table-format=`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// It compiles, and the PDF shows the added policy and the matrix.
	latextest.Contains(t, latextest.Compile(t, stdout), "x2", "Holm-adjusted over the 3 comparisons")
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if strings.HasPrefix(line, "+-") || strings.HasPrefix(line, "|") {
			t.Errorf("a text table's line in the LaTeX output: %q", line)
		}
	}
	if _, stderr, code := bench(t, "--scenario", "quick", "--format", "tex"); code != 2 || !strings.Contains(stderr, "json or latex") {
		t.Errorf("--format tex: exit %d, want 2 listing the formats\n%s", code, stderr)
	}
}
