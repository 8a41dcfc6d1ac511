package report

import (
	"fmt"

	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/results"
)

// SummaryTable is the overall table of bench paper: one row per policy of
// every file (scenario, policy), with its final regret, underestimation,
// regret_under and regret_not_under at T (mean ± standard error over
// replications) and its seconds; a policy that did not finish shows
// FAILED. Texts are as the files hold them: a renderer makes them safe.
func SummaryTable(files []*results.File) Table {
	t := Table{
		Name:    "summary",
		Caption: "Final values at T (mean ± standard error over replications)",
		Header:  []string{"scenario", "policy", "regret", "underestimation", "regret_under", "regret_not_under", "seconds"},
		Right:   []bool{false, false, true, true, true, true, true},
	}
	for _, f := range files {
		for _, p := range f.Policies {
			if p.Status != results.StatusOK {
				t.Rows = append(t.Rows, []string{f.Scenario.Name, p.Label, "FAILED", "", "", "", ""})
				continue
			}
			cell := func(s results.Series) string {
				n := len(s.Mean) - 1
				if n < 0 || n >= len(s.SE) {
					return ""
				}
				return numfmt.PM(s.Mean[n], s.SE[n])
			}
			t.Rows = append(t.Rows, []string{f.Scenario.Name, p.Label, cell(p.Regret), cell(p.Under), cell(p.RegretUnder), cell(p.RegretNot), fmt.Sprintf("%.0f", p.Seconds)})
		}
	}
	return t
}
