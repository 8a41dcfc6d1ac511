package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// LatexAlpha is the level of the paired tests that decide which values a
// LaTeX table of one run sets in bold (those not significantly above the
// column's lowest): the comparisons' default.
const LatexAlpha = 0.01

// writeLatex writes the regret of f as a floating table (LatexTable):
// per policy, with at the regret at those rounds, then the final regret
// and its separated parts (regret_under, regret_not_under, share under),
// each mean ± standard error in an S column. In the final columns the
// lowest mean is bold, with every value not significantly higher by the
// paired t-test on the per-replication finals (Holm over the column's
// comparisons with it, alpha LatexAlpha). A "feedback" column follows the
// policy when some policy's feedback is not immediate, as in every table
// of bench; a failed policy's cells are "failed".
func writeLatex(w io.Writer, f *results.File, at []int) error {
	fb := hasFeedback(f)
	t := LatexTable{
		Label:    LatexLabel("tab:regret-", f.Scenario.Name),
		Comments: []string{Title(f)},
		Cols:     []string{"l"},
		Header:   []string{"policy"},
	}
	if fb {
		t.Cols, t.Header = append(t.Cols, "l"), append(t.Header, "feedback")
	}
	for _, r := range at {
		t.Cols, t.Header = append(t.Cols, "S"), append(t.Header, fmt.Sprintf("regret $t=%d$", r))
	}
	ctx := Contextual(f)
	finals := []string{metric.Regret, metric.RegretUnder, metric.RegretNotUnder}
	if ctx {
		finals = ShownMetrics(f) // regret and pv_loss: the rest is not computed
	}
	bold := map[string]map[string]bool{}
	for _, m := range finals {
		t.Cols, t.Header = append(t.Cols, "S"), append(t.Header, table.LatexText(m))
		bold[m] = BestByTest(f, m, LatexAlpha)
	}
	if !ctx {
		t.Cols, t.Header = append(t.Cols, "r"), append(t.Header, "share under")
	}
	for _, p := range f.Policies {
		row := []string{table.LatexText(p.Label)}
		if fb {
			row = append(row, table.LatexText(feedbackName(p.Feedback)))
		}
		if p.Status == results.StatusFailed {
			for range len(at) + len(finals) {
				row = append(row, "{failed}")
			}
			if !ctx {
				row = append(row, "--")
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		for _, r := range at {
			m, se := seriesAt(p.Regret, p.Checkpoints, r)
			row = append(row, siMeanSE(p, m, se, false))
		}
		for _, name := range finals {
			m, se := math.NaN(), math.NaN()
			if s, err := p.Metric(name); err == nil && len(s.Mean) > 0 {
				m, se = last(*s)
			}
			row = append(row, siMeanSE(p, m, se, bold[name][p.Label]))
		}
		if !ctx {
			row = append(row, table.LatexText(shareUnder(p)))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Caption = fmt.Sprintf("%s: regret at $T=%d$ and its parts, %s; share under: the share of the regret incurred while the best arm's empirical mean was below the second-best's. Bold: the lowest final value of a column and every value not significantly higher (paired $t$-test on the per-replication values, Holm-adjusted over the column, $p < %g$).",
		table.LatexText(f.Scenario.Name), f.Scenario.Horizon, strings.ReplaceAll(table.LatexText(overReplications(f)), "±", `$\pm$`), LatexAlpha)
	if ctx {
		t.Caption = fmt.Sprintf("%s: regret at $T=%d$ (against the best arm for each context) and progressive-validation loss (pv\\_loss: the mean of 1 $-$ reward over the rounds so far), %s. Bold: the lowest final value of a column and every value not significantly higher (paired $t$-test on the per-replication values, Holm-adjusted over the column, $p < %g$).",
			table.LatexText(f.Scenario.Name), f.Scenario.Horizon, strings.ReplaceAll(table.LatexText(overReplications(f)), "±", `$\pm$`), LatexAlpha)
	}
	t.Write(w)
	return nil
}

// siMeanSE is an S cell of p's mean ± SE, the mean alone over one
// replication (meanSE).
func siMeanSE(p *results.Policy, mean, se float64, bold bool) string {
	if oneReplication(p) || math.IsNaN(se) {
		se = -1
	}
	return SICell(mean, se, bold)
}

// BestByTest returns the policies of f that a LaTeX table sets in bold
// for metric: the one with the lowest mean final value, and every other
// whose paired difference from it (gate.Test, Holm over the column's
// comparisons with it, margin 0) is not significantly above 0 at alpha.
// Policies that failed or lack the metric are not in it.
func BestByTest(f *results.File, metricName string, alpha float64) map[string]bool {
	out := map[string]bool{}
	var best *results.Policy
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	for _, p := range f.Policies {
		if p.Status != results.StatusOK || len(p.Final[metricName]) == 0 {
			continue
		}
		if best == nil || mean(p.Final[metricName]) < mean(best.Final[metricName]) {
			best = p
		}
	}
	if best == nil {
		return out
	}
	out[best.Label] = true
	var pairs []gate.Pair
	var labels []string
	for _, p := range f.Policies {
		x := p.Final[metricName]
		if p == best || p.Status != results.StatusOK || len(x) != len(best.Final[metricName]) {
			continue
		}
		pairs = append(pairs, gate.Pair{Base: best.Final[metricName], Cur: x})
		labels = append(labels, p.Label)
	}
	if len(pairs) == 0 {
		return out
	}
	fam := gate.Test(pairs, true, gate.Options{Metric: metricName, Alpha: alpha})
	for i, row := range fam.Rows {
		if row.Verdict != gate.Worse {
			out[labels[i]] = true
		}
	}
	return out
}
