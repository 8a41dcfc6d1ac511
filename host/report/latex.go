package report

import (
	"fmt"
	"io"

	"github.com/regretbench/regretbench/host/internal/latex"
	"github.com/regretbench/regretbench/host/results"
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
	latex.Comment(w, Title(f))
	latex.Comment(w, fmt.Sprintf("Regret at T=%d and its parts: mean ± standard error over replications; share under: the share of the regret incurred while the best arm's empirical mean was below the second-best's", f.Scenario.Horizon))
	fb := hasFeedback(f)
	header := []string{"policy"}
	right := []bool{false}
	if fb {
		header, right = append(header, "feedback"), append(right, false)
	}
	for _, t := range at {
		header, right = append(header, fmt.Sprintf("regret $t=%d$", t)), append(right, true)
	}
	for _, h := range []string{"regret", "regret_under", "regret_not_under", "share under"} {
		header, right = append(header, latex.Text(h)), append(right, true)
	}
	var rows [][]string
	for _, p := range f.Policies {
		row := []string{latex.Text(p.Label)}
		if fb {
			row = append(row, latex.Text(feedbackName(p.Feedback)))
		}
		if p.Status == results.StatusFailed {
			for range len(at) + 4 {
				row = append(row, latex.NA)
			}
			rows = append(rows, row)
			continue
		}
		for _, t := range at {
			row = append(row, latex.Math(pm(seriesAt(p.Regret, p.Checkpoints, t))))
		}
		rm, rs := last(p.Regret)
		um, us := last(p.RegretUnder)
		nm, ns := last(p.RegretNot)
		row = append(row, latex.Math(pm(rm, rs)), latex.Math(pm(um, us)), latex.Math(pm(nm, ns)), latex.Math(shareUnder(p)))
		rows = append(rows, row)
	}
	latex.Tabular(w, header, right, rows)
	return nil
}
