package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
)

// summaryTable is the page's table of final values across files.
func summaryTable(files []*results.File) *report.Table {
	t := report.SummaryTable(files)
	return &t
}

// ranks is the mean-rank section: the figure and what it rests on.
type ranks struct {
	// Text is the paragraph beside the figure: the test, N, k, alpha, q
	// and the CD; or why there is no figure.
	Text []string
	// Rows are the policies by mean rank, best first.
	Rows  []rankRow
	SVG   template.HTML // the figure; "" when none
	Error string
}

type rankRow struct {
	Label    string
	MeanRank string
}

func metricOf(o Options) string {
	if o.Metric == "" {
		return compare.DefaultOptions.Metric
	}
	return o.Metric
}

func alphaOf(o Options) float64 {
	if o.Alpha == 0 {
		return compare.DefaultOptions.Alpha
	}
	return o.Alpha
}

// meanRanks is the mean-rank section of a.
func meanRanks(a *ranktest.Analysis) *ranks {
	r := &ranks{Text: RanksText(a)}
	if a.Friedman == nil {
		return r
	}
	order := make([]int, len(a.Policies))
	for i := range order {
		order[i] = i
	}
	mr := a.Friedman.MeanRanks
	for i := 1; i < len(order); i++ { // insertion sort: stable, by mean rank
		for j := i; j > 0 && mr[order[j]] < mr[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	for _, i := range order {
		r.Rows = append(r.Rows, rankRow{Label: a.Policies[i], MeanRank: fmt.Sprintf("%.2f", mr[i])})
	}
	fig := RanksFigure(a)
	var b bytes.Buffer
	if err := encodeSVG(fig, &b); err != nil {
		r.Error = err.Error()
		return r
	}
	svg, err := checkSVG(b.Bytes())
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.SVG = svg
	return r
}

// RanksFigure is the mean-rank figure of a (which must have a Friedman
// test), as the page and bench paper's mean_ranks files show it: its
// axis spans the ranks 1..k, and when the CD separates no pair, its last
// note says so (ranktest's CDNote).
func RanksFigure(a *ranktest.Analysis) plot.Figure {
	fig := plot.MeanRanks(a.Policies, a.Friedman.MeanRanks, a.CD,
		fmt.Sprintf("Mean rank of %s at T over %d experiments (Nemenyi CD = %.2f, α = %g)", a.Metric, a.Friedman.N, a.CD, a.Alpha))
	if l := a.CDNote(); l != "" {
		fig.Notes = append(fig.Notes, l)
	}
	return fig
}

// pRel is a p-value with its relation: "= 0.0012", or "< 1e-4" where
// numfmt.P writes "<1e-4" (never "p = <1e-4").
func pRel(p float64) string {
	s := numfmt.P(p)
	if r, ok := strings.CutPrefix(s, "<"); ok {
		return "< " + r
	}
	return "= " + s
}

// RanksText says what the mean-rank analysis a rests on, in sentences:
// the Friedman test with N, k and its statistics, the Nemenyi test with
// alpha, q_alpha and the CD, and which policies were left out; or why
// there is no analysis.
func RanksText(a *ranktest.Analysis) []string {
	if a.Friedman == nil {
		return []string{"No mean-rank figure: " + a.Reason + "."}
	}
	fr := a.Friedman
	out := []string{
		fmt.Sprintf("Policies ranked within each of the N = %d experiments (%s) by mean final %s over replications: 1 is the lowest, tied policies share the average of their ranks. k = %d policies ran in all of them.",
			fr.N, strings.Join(a.Experiments, ", "), a.Metric, fr.K),
		fmt.Sprintf("Friedman test (Demšar 2006) of equal mean ranks: χ²_F = %s on %d degrees of freedom, p %s; Iman–Davenport F_F = %s on %d and %d degrees of freedom, p %s.",
			num(fr.ChiSq), fr.DF, pRel(fr.P), num(fr.FF), fr.DF1, fr.DF2, pRel(fr.PF)),
		fmt.Sprintf("Nemenyi post-hoc test at α = %g: q_α = %.3f, critical difference CD = q_α √(k(k+1)/(6N)) = %.3f √(%d·%d/(6·%d)) = %.2f. Two policies whose mean ranks differ by more than CD differ significantly; in the figure, their bars (± CD/2) do not overlap.",
			a.Alpha, a.Q, a.Q, fr.K, fr.K+1, fr.N, a.CD),
	}
	if !(fr.PF < a.Alpha) {
		out = append(out, fmt.Sprintf("The Friedman test does not reject equal mean ranks at α = %g (Iman–Davenport p %s), so no pair is declared different: the figure shows the ranks only.", a.Alpha, pRel(fr.PF)))
	}
	if l := a.CDLine(); l != "" {
		out = append(out, l)
	}
	return append(out, a.NotRankedText()...)
}

// matrixData is a comparison's policy x policy matrix as the page shows
// it (compare.Matrix).
type matrixData struct {
	Cols []int
	Rows []matrixRow
}

type matrixRow struct {
	N                           int
	Label, Feedback, Mean, Rank string
	Cells                       []matrixCell
}

type matrixCell struct {
	Sym, Delta, Class string
}

// matrixView is s's matrix: per row its mean, rank and, per column, the
// outcome symbol and the difference with its CI.
func matrixView(s *compare.Scenario) matrixData {
	m := compare.NewMatrix(s)
	var d matrixData
	for j := range m.Labels {
		d.Cols = append(d.Cols, j+1)
	}
	for i, p := range m.Rows {
		row := matrixRow{N: i + 1, Label: p.Label, Feedback: compare.FeedbackName(p.Feedback), Mean: "FAILED", Rank: m.RankText(i)}
		if p.Status == "ok" {
			row.Mean = numfmt.PM(p.Mean, p.SE)
		}
		for j := range m.Labels {
			c := matrixCell{Sym: m.Symbol(i, j)}
			if x, ok := m.Cell(i, j); ok && x.Tested() {
				delta, ci := compare.DeltaText(x)
				c.Delta = delta + " " + ci
				c.Class = "verdict-" + string(x.Outcome)
			}
			row.Cells = append(row.Cells, c)
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

func num(x float64) string {
	if x > 1e15 {
		return "∞"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}
