package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/table"
)

// writeLatex writes the comparison of every scenario of sum and, for a
// summary across scenarios, the wins, ties and losses, as booktabs
// tabulars ready to \input (host/table): the rows of the text
// tables, their title and footnotes as LaTeX comments above each.
func writeLatex(w io.Writer, sum *Summary) error {
	for i := range sum.Scenarios {
		if err := writeLatexScenario(w, &sum.Scenarios[i]); err != nil {
			return err
		}
	}
	if len(sum.Scenarios) > 1 || len(sum.Totals) > 0 {
		return writeLatexTotals(w, sum)
	}
	return nil
}

// writeLatexScenario writes one scenario's comparison (scenarioTable),
// its title and footnotes as LaTeX comments above it.
func writeLatexScenario(w io.Writer, s *Scenario) error {
	fmt.Fprintln(w)
	table.LatexComment(w, fmt.Sprintf("Comparison in %s: %s at T=%d, lower is better", s.Name, s.Metric, s.Horizon))
	n := 0
	for _, p := range s.Policies {
		for _, d := range p.Diffs {
			if d.Tested() {
				n = d.N
			}
		}
	}
	notes := []string{
		fmt.Sprintf("delta: mean per-replication difference policy - baseline, paired t-test (common random numbers), n=%d; %s CI two-sided", n, numfmt.Level(1-s.Alpha)),
		fmt.Sprintf("p: one-sided in the direction of delta, %s; win/loss: p < %g (lower/higher), tie otherwise", HolmNote(s), s.Alpha),
	}
	for _, p := range s.Policies {
		for _, d := range p.Diffs {
			if !d.Tested() && d.Note != "" {
				notes = append(notes, fmt.Sprintf("%s against %s: not tested: %s", p.Label, d.Baseline, d.Note))
			}
		}
	}
	notes = append(notes, LeftOutNotes(s)...)
	table.LatexComment(w, strings.Join(notes, "\n"))
	t := scenarioTable(s, table.LaTeX)
	return t.Render(w, table.LaTeX)
}

// writeLatexTotals writes the summary across scenarios (totalsTable),
// its title as a LaTeX comment above it.
func writeLatexTotals(w io.Writer, sum *Summary) error {
	fmt.Fprintln(w)
	table.LatexComment(w, fmt.Sprintf("Comparison across %d scenarios: wins, ties and losses (%s at T, Holm-adjusted p < %g within each scenario's table)", len(sum.Scenarios), sum.Metric, sum.Alpha))
	t := totalsTable(sum, table.LaTeX)
	return t.Render(w, table.LaTeX)
}
