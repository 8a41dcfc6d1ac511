package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// The LaTeX of a comparison is report.LatexTable's: floating tables with
// caption and label, booktabs, siunitx S columns, the best in bold by the
// table's paired tests.

// writeLatex writes one table per scenario of sum (its matrix) and, for a
// summary across scenarios, the totals (mean rank and wins, ties and
// losses).
func writeLatex(w io.Writer, sum *Summary) error {
	for i := range sum.Scenarios {
		writeLatexScenario(w, &sum.Scenarios[i])
	}
	if len(sum.Scenarios) > 1 || len(sum.Totals) > 0 {
		writeLatexTotals(w, sum)
	}
	return nil
}

// latexSymbol is a matrix cell in LaTeX.
func latexSymbol(s string) string {
	switch s {
	case "·":
		return "$\\cdot$"
	case "-":
		return "--"
	}
	return s
}

// writeLatexScenario writes one scenario's comparison as one table: per
// policy its mean ± SE (bold: the best and those tied with it), its rank
// in the scenario, and the W/T/L matrix.
func writeLatexScenario(w io.Writer, s *Scenario) {
	m := NewMatrix(s)
	best := m.BestSet()
	fb := ShowsFeedback(s)
	t := report.LatexTable{
		Label:    report.LatexLabel("tab:comparison-", s.Name),
		Comments: append([]string{fmt.Sprintf("Comparison in %s: %s at T=%d, lower is better, every pair", s.Name, s.Metric, s.Horizon)}, Notes(s)...),
		Cols:     []string{"r", "l"},
		Header:   []string{"", "policy"},
	}
	if fb {
		t.Cols, t.Header = append(t.Cols, "l"), append(t.Header, "feedback")
	}
	t.Cols, t.Header = append(t.Cols, "S", "r"), append(t.Header, table.LatexText(s.Metric), "rank")
	for j := range m.Labels {
		t.Cols, t.Header = append(t.Cols, "c"), append(t.Header, strconv.Itoa(j+1))
	}
	n := 0
	for i, p := range m.Rows {
		row := []string{strconv.Itoa(i + 1), table.LatexText(p.Label)}
		if fb {
			row = append(row, table.LatexText(FeedbackName(p.Feedback)))
		}
		if p.Status == "ok" {
			row = append(row, report.SICell(p.Mean, p.SE, best[i]))
		} else {
			row = append(row, "{failed}")
		}
		row = append(row, table.LatexText(m.RankText(i)))
		for j := range m.Labels {
			row = append(row, latexSymbol(m.Symbol(i, j)))
			if d, ok := m.Cell(i, j); ok && d.Tested() {
				n = d.N
			}
		}
		t.Rows = append(t.Rows, row)
	}
	t.Caption = fmt.Sprintf("%s: %s at $T=%d$, mean $\\pm$ standard error over %d replications (lower is better), rank in the scenario, and every pair compared: W, T, L when the row's policy is significantly lower, not different or significantly higher than the column's (paired $t$-test, Holm-adjusted over the %d comparisons of this table, $p < %g$). Bold: the lowest mean and those not significantly different from it.",
		table.LatexText(s.Name), table.LatexText(s.Metric), s.Horizon, n, s.Comparisons, s.Alpha)
	var ident []string
	for _, p := range s.Policies {
		if p.IdenticalTo != "" {
			ident = append(ident, table.LatexText(p.Label)+" is identical to "+table.LatexText(p.IdenticalTo))
		}
	}
	if len(ident) > 0 {
		t.Caption += " " + strings.Join(ident, "; ") + " (=): not tested or ranked twice."
	}
	for _, wn := range s.Warnings {
		if wn == gate.SmallNWarning {
			t.Caption += " Fewer than 30 replications: the $t$-test leans on the central limit theorem."
		}
	}
	t.Write(w)
}

// writeLatexTotals writes the summary across scenarios as one table.
func writeLatexTotals(w io.Writer, sum *Summary) {
	t := report.LatexTable{
		Label:    "tab:comparison-totals",
		Comments: append([]string{TotalsTitle(sum)}, TotalsNotes(sum)...),
		Cols:     []string{"l", "S", "r", "r", "r", "r"},
		Header:   []string{"policy", "mean rank", "scenarios", "wins", "ties", "losses"},
	}
	for _, tot := range TotalsOrder(sum) {
		rank := "{--}"
		if tot.Ranked {
			rank = RankText(tot)
		}
		t.Rows = append(t.Rows, []string{table.LatexText(tot.Label), rank, strconv.Itoa(tot.Scenarios), strconv.Itoa(tot.Wins), strconv.Itoa(tot.Ties), strconv.Itoa(tot.Losses)})
	}
	t.Caption = fmt.Sprintf("Across %d scenarios: mean rank (%s) and wins, ties and losses over every pair tested (%s at $T$, Holm-adjusted $p < %g$ within each scenario).",
		len(sum.Scenarios), rankCaption(sum.Ranks), table.LatexText(sum.Metric), sum.Alpha)
	t.Write(w)
}

// rankCaption says in a caption what the mean rank is over.
func rankCaption(a *ranktest.Analysis) string {
	if a == nil || a.Friedman == nil {
		return "none"
	}
	exps := make([]string, len(a.Experiments))
	for i, e := range a.Experiments {
		exps[i] = table.LatexText(e)
	}
	s := fmt.Sprintf("over the $N=%d$ experiments %s, the %d policies that ran in all of them; 1 is the lowest mean in an experiment, ties share the average rank", a.Friedman.N, strings.Join(exps, ", "), a.Friedman.K)
	var not []string
	for _, l := range a.NotRankedText() {
		not = append(not, table.LatexText(strings.TrimSuffix(l, ".")))
	}
	if len(not) > 0 {
		s += "; " + strings.Join(not, "; ")
	}
	return s
}

// WritePaperLatex writes the paper's two tables: one wide policy x
// experiment table of the final metric (mean ± SE; bold per column: the
// lowest mean and every policy not significantly different from it,
// paired t-test, Holm over the column's comparisons with the best at
// alpha), and the mean-rank table of a (with the Friedman test and the
// critical difference in its caption).
func WritePaperLatex(w io.Writer, files []*results.File, a *ranktest.Analysis, opt Options) error {
	var labels []string
	for _, f := range files {
		for _, p := range f.Policies {
			if !contains(labels, p.Label) {
				labels = append(labels, p.Label)
			}
		}
	}
	t := report.LatexTable{Label: "tab:final", Wide: true, Cols: []string{"l"}, Header: []string{"policy"}}
	for range labels {
		t.Rows = append(t.Rows, []string{})
	}
	for i, l := range labels {
		t.Rows[i] = append(t.Rows[i], table.LatexText(l))
	}
	var exps []string
	for _, f := range sameRunColumns(files, a) {
		exps = append(exps, table.LatexText(f.Scenario.Name))
		t.Cols, t.Header = append(t.Cols, "S"), append(t.Header, table.LatexText(f.Scenario.Name))
		spec := Spec{}
		for _, p := range f.Policies {
			spec.Policies = append(spec.Policies, p.Label)
		}
		s, err := Compute(f, spec, opt)
		if err != nil {
			return fmt.Errorf("paper table, %s: %w", f.Scenario.Name, err)
		}
		m := NewMatrix(s)
		best := m.BestSet()
		for i, l := range labels {
			cell := "{}"
			if k := indexOf(m.Labels, l); k >= 0 {
				p := m.Rows[k]
				if p.Status == "ok" {
					cell = report.SICell(p.Mean, p.SE, best[k])
				} else {
					cell = "{failed}"
				}
			}
			t.Rows[i] = append(t.Rows[i], cell)
		}
	}
	t.Caption = fmt.Sprintf("Final %s at $T$ of every policy in each experiment, mean $\\pm$ standard error over the replications (lower is better; empty: not in that experiment). Bold: the lowest mean of the column and every policy not significantly different from it (paired $t$-test (tail-guarded SE) on the per-replication differences, Holm-adjusted over the column's pairs, $p < %g$).", table.LatexText(opt.Metric), opt.Alpha)
	if a != nil && len(a.SameRunOrder) > 0 {
		var parts []string
		for _, x := range a.SameRunOrder {
			parts = append(parts, table.LatexText(x)+" in "+table.LatexText(a.SameRun[x])+"'s")
		}
		t.Caption += " Experiments that reuse another's run share its column: " + strings.Join(parts, ", ") + "."
	}
	t.Comments = []string{"Experiments: " + strings.Join(exps, ", ")}
	t.Write(w)
	WriteRanksLatex(w, a)
	return nil
}

// sameRunColumns returns the files of the wide table's columns: each
// file, except that one reusing the run of an earlier one (a.SameRun, as
// remaxgrad_two_arm reuses two_arm's) adds its other policies to that
// one's column, so that every policy of a run is compared with every
// other in one Holm family, and no policy shows twice.
func sameRunColumns(files []*results.File, a *ranktest.Analysis) []*results.File {
	var cols []*results.File
	at := map[string]int{}
	for _, f := range files {
		if a != nil {
			if base, ok := a.SameRun[f.Scenario.Name]; ok {
				if i, ok := at[base]; ok {
					merged := *cols[i]
					merged.Policies = slices.Clone(merged.Policies)
					for _, p := range f.Policies {
						if merged.Policy(p.Label) == nil {
							merged.Policies = append(merged.Policies, p)
						}
					}
					cols[i] = &merged
					continue
				}
			}
		}
		if _, ok := at[f.Scenario.Name]; !ok {
			at[f.Scenario.Name] = len(cols)
		}
		cols = append(cols, f)
	}
	return cols
}

// WriteRanksLatex writes the mean-rank table of a: the policies by mean
// rank, best first, the Friedman test and the Nemenyi CD in the caption
// (and, when the CD separates no pair, that line); nothing without a test.
func WriteRanksLatex(w io.Writer, a *ranktest.Analysis) {
	if a == nil || a.Friedman == nil {
		return
	}
	fr := a.Friedman
	order := make([]int, len(a.Policies))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && fr.MeanRanks[order[j]] < fr.MeanRanks[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	best := fr.MeanRanks[order[0]]
	t := report.LatexTable{Label: "tab:mean-ranks", Cols: []string{"l", "S"}, Header: []string{"policy", "mean rank"}}
	for _, i := range order {
		c := fmt.Sprintf("%.2f", fr.MeanRanks[i])
		if fr.MeanRanks[i]-best < a.CD && fr.PF < a.Alpha {
			c = `\bfseries ` + c
		}
		t.Rows = append(t.Rows, []string{table.LatexText(a.Policies[i]), c})
	}
	t.Caption = fmt.Sprintf("Mean rank of final %s, %s. Friedman test: $\\chi^2_F = %.2f$ on %d degrees of freedom, Iman--Davenport $F_F = %s$, $p %s$. Nemenyi critical difference at $\\alpha = %g$: $\\mathit{CD} = %.2f$.",
		table.LatexText(a.Metric), rankCaption(a), fr.ChiSq, fr.DF, ffText(fr.FF), pMath(fr.PF), a.Alpha, a.CD)
	if fr.PF < a.Alpha {
		t.Caption += " Bold: the best and those within CD of it."
	}
	if l := a.CDLine(); l != "" {
		t.Caption += " " + table.LatexText(l)
	}
	t.Write(w)
}

// pMath is "= 0.0012" or "< 10^{-4}" for a p-value in math mode.
func pMath(p float64) string {
	s := numfmt.P(p)
	if e, ok := strings.CutPrefix(s, "<1e-"); ok {
		return "< 10^{-" + e + "}"
	}
	if strings.HasPrefix(s, "<") {
		return "< " + strings.TrimPrefix(s, "<")
	}
	return "= " + s
}

func ffText(x float64) string {
	if math.IsInf(x, 1) {
		return `\infty`
	}
	return fmt.Sprintf("%.2f", x)
}

func contains(xs []string, x string) bool { return indexOf(xs, x) >= 0 }

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}
