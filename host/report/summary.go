package report

import (
	"fmt"

	"github.com/regretbench/regretbench/host/metric"
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
		Header:  append(append([]string{"scenario", "policy"}, metric.Names[:]...), "seconds"),
		Right:   []bool{false, false, true, true, true, true, true},
	}
	for _, f := range files {
		for _, p := range f.Policies {
			if p.Status != results.StatusOK {
				t.Rows = append(t.Rows, []string{f.Scenario.Name, p.Label, "FAILED", "", "", "", ""})
				continue
			}
			row := []string{f.Scenario.Name, p.Label}
			for _, name := range metric.Names {
				cell := ""
				if s, err := p.Metric(name); err == nil {
					if n := len(s.Mean) - 1; n >= 0 && n < len(s.SE) {
						cell = meanSE(p, s.Mean[n], s.SE[n])
					}
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, append(row, fmt.Sprintf("%.0f", p.Seconds)))
		}
	}
	return t
}
