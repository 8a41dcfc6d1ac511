package report

import (
	"fmt"
	"slices"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
)

// NotComputed is the cell of a metric a scenario does not compute (the
// underestimation metrics of a contextual scenario, pv_loss of a
// context-free one) in a table of several scenarios.
const NotComputed = "n/a"

// SummaryTable is the overall table of bench paper: one row per policy of
// every file (scenario, policy), with its final regret, underestimation,
// regret_under and regret_not_under at T (mean ± standard error over
// replications) and its seconds; a policy that did not finish shows
// FAILED. Texts are as the files hold them: a renderer makes them safe.
//
// With contextual files (Contextual) it has a pv_loss column after the
// others, and the underestimation columns only when some file is
// context-free: each file shows its ShownMetrics, and NotComputed in the
// columns of the others. Tables of context-free files alone are as they
// always were.
func SummaryTable(files []*results.File) Table {
	var cols []string // metrics shown, in report order
	for _, name := range append(metric.Names[:len(metric.Names):len(metric.Names)], metric.PVLoss) {
		if slices.ContainsFunc(files, func(f *results.File) bool { return slices.Contains(ShownMetrics(f), name) }) {
			cols = append(cols, name)
		}
	}
	if len(files) == 0 {
		cols = metric.Names[:]
	}
	t := Table{
		Name:    "summary",
		Caption: "Final values at T (mean ± standard error over replications)",
		Header:  append(append([]string{"scenario", "policy"}, cols...), "seconds"),
		Right:   []bool{false, false},
	}
	for range len(cols) + 1 {
		t.Right = append(t.Right, true)
	}
	if len(cols) != len(metric.Names) || slices.Contains(cols, metric.PVLoss) {
		t.Caption += "; " + NotComputed + ": not computed for that scenario (the underestimation metrics of a contextual scenario, pv_loss of a context-free one)"
		if !slices.Contains(cols, metric.Underestimation) {
			t.Caption = "Final values at T (mean ± standard error over replications); regret against the best arm for each context"
		}
	}
	for _, f := range files {
		shown := ShownMetrics(f)
		for _, p := range f.Policies {
			if p.Status != results.StatusOK {
				row := []string{f.Scenario.Name, p.Label, "FAILED"}
				for range cols {
					row = append(row, "")
				}
				t.Rows = append(t.Rows, row)
				continue
			}
			row := []string{f.Scenario.Name, p.Label}
			for _, name := range cols {
				cell := ""
				if !slices.Contains(shown, name) {
					cell = NotComputed
				} else if s, err := p.Metric(name); err == nil {
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
