package report

import (
	"fmt"
	"io"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// writeLatex writes the regret of f as a booktabs tabular, ready to
// \input into a paper's table environment (no preamble; the only package
// it needs is booktabs): per policy, the final regret and, with at, the
// regret at those rounds, then the separated-regret columns of the text
// tables (regret_under, regret_not_under, share under), each mean ±
// standard error. A "feedback" column follows the policy when some
// policy's feedback is not immediate, as in every table of bench; a
// failed policy's cells are dashes. The title and caption come first as
// LaTeX comments.
func writeLatex(w io.Writer, f *results.File, at []int) error {
	table.LatexComment(w, Title(f))
	table.LatexComment(w, fmt.Sprintf("Regret at T=%d and its parts: %s; share under: the share of the regret incurred while the best arm's empirical mean was below the second-best's", f.Scenario.Horizon, overReplications(f)))
	fb := hasFeedback(f)
	t := Table{Header: []string{"policy"}, Right: []bool{false}}
	if fb {
		t.Header, t.Right = append(t.Header, "feedback"), append(t.Right, false)
	}
	for _, r := range at {
		t.Header, t.Right = append(t.Header, fmt.Sprintf("regret $t=%d$", r)), append(t.Right, true)
	}
	t.Header = append(t.Header, metric.Regret, metric.RegretUnder, metric.RegretNotUnder, "share under")
	t.Right = append(t.Right, true, true, true, true)
	t.Math = t.Right // every number column
	for _, p := range f.Policies {
		row := []string{p.Label}
		if fb {
			row = append(row, feedbackName(p.Feedback))
		}
		if p.Status == results.StatusFailed {
			for range len(at) + 4 {
				row = append(row, "-")
			}
			t.Append(row...)
			continue
		}
		for _, r := range at {
			m, se := seriesAt(p.Regret, p.Checkpoints, r)
			row = append(row, meanSE(p, m, se))
		}
		rm, rs := last(p.Regret)
		um, us := last(p.RegretUnder)
		nm, ns := last(p.RegretNot)
		t.Append(append(row, meanSE(p, rm, rs), meanSE(p, um, us), meanSE(p, nm, ns), shareUnder(p))...)
	}
	return t.Render(w, table.LaTeX)
}
