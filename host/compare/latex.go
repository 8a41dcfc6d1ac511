package compare

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/internal/latex"
)

// writeLatex writes the comparison of every scenario of sum and, for a
// summary across scenarios, the wins, ties and losses, as booktabs
// tabulars ready to \input (host/internal/latex): the rows of the text
// tables, their title and footnotes as LaTeX comments above each.
func writeLatex(w io.Writer, sum *Summary) error {
	for i := range sum.Scenarios {
		writeLatexScenario(w, &sum.Scenarios[i])
	}
	if len(sum.Scenarios) > 1 || len(sum.Totals) > 0 {
		writeLatexTotals(w, sum)
	}
	return nil
}

// writeLatexScenario writes one scenario's comparison: per policy and
// baseline, the policy's mean ± SE and rank, the baseline's, the paired
// difference, its CI, the Holm-adjusted p and the outcome.
func writeLatexScenario(w io.Writer, s *Scenario) {
	fmt.Fprintln(w)
	latex.Comment(w, fmt.Sprintf("Comparison in %s: %s at T=%d, lower is better", s.Name, s.Metric, s.Horizon))
	n := 0
	for _, p := range s.Policies {
		for _, d := range p.Diffs {
			if d.Tested() {
				n = d.N
			}
		}
	}
	notes := []string{
		fmt.Sprintf("delta: mean per-replication difference policy - baseline, paired t-test (common random numbers), n=%d; %s CI two-sided", n, pct(1-s.Alpha)),
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
	latex.Comment(w, strings.Join(notes, "\n"))

	fb := ShowsFeedback(s)
	metric := latex.Text(s.Metric)
	header := []string{"policy", metric, "rank", "baseline", "baseline " + metric, `$\Delta$`, latex.Text(pct(1-s.Alpha)) + " CI", "$p$ (Holm)", "outcome"}
	right := []bool{false, true, true, false, true, true, true, true, false}
	if fb {
		header = append(header[:1], append([]string{"feedback"}, header[1:]...)...)
		right = append(right[:1], append([]bool{false}, right[1:]...)...)
	}
	var rows [][]string
	for _, p := range s.Policies {
		mean, rank := latex.Text("FAILED"), latex.NA
		if p.Status == "ok" {
			mean, rank = latex.Math(pm(p.Mean, p.SE)), fmt.Sprintf("%s/%d", num(p.Rank), p.Ranked)
		}
		lead := []string{latex.Text(p.Label), mean, rank}
		mode := latex.Text(FeedbackName(p.Feedback))
		if len(p.Diffs) == 0 {
			rows = append(rows, withFeedback(fb, mode, append(lead, latex.NA, latex.NA, latex.NA, latex.NA, latex.NA, latex.NA)))
		}
		for k, d := range p.Diffs {
			row := append([]string(nil), lead...)
			if k > 0 {
				row = []string{"", "", ""} // the policy's cells once, as the text table
			}
			base := latex.Text("FAILED")
			if d.BaselineStatus == "ok" {
				base = latex.Math(pm(d.Mean, d.SE))
			}
			delta, ci, pval := latex.NA, latex.NA, latex.NA
			if d.Tested() {
				dt, ct := DeltaText(d)
				delta, ci, pval = latex.Math(dt), latex.Math(ct), latex.Math(PText(d.P))
			}
			outcome := latex.NA
			if d.Outcome != None {
				outcome = string(d.Outcome)
			}
			row = append(row, latex.Text(d.Baseline), base, delta, ci, pval, outcome)
			if k > 0 {
				mode = ""
			}
			rows = append(rows, withFeedback(fb, mode, row))
		}
	}
	latex.Tabular(w, header, right, rows)
}

// withFeedback inserts the feedback cell after the policy's when fb.
func withFeedback(fb bool, cell string, row []string) []string {
	if !fb {
		return row
	}
	return append(row[:1], append([]string{cell}, row[1:]...)...)
}

// writeLatexTotals writes the summary across scenarios: per policy its
// mean rank, the scenarios it ran in, and its wins, ties and losses
// (W/T/L) against each baseline.
func writeLatexTotals(w io.Writer, sum *Summary) {
	fmt.Fprintln(w)
	latex.Comment(w, fmt.Sprintf("Comparison across %d scenarios: wins, ties and losses (%s at T, Holm-adjusted p < %g within each scenario's table)", len(sum.Scenarios), sum.Metric, sum.Alpha))
	var rows [][]string
	for _, tot := range sum.Totals {
		rank := latex.NA
		if tot.Scenarios > 0 {
			rank = fmt.Sprintf("%.2f", tot.MeanRank)
		}
		for k, r := range tot.Records {
			row := []string{latex.Text(tot.Label), rank, strconv.Itoa(tot.Scenarios)}
			if k > 0 {
				row = []string{"", "", ""}
			}
			rows = append(rows, append(row, latex.Text(r.Baseline), fmt.Sprintf("%d/%d/%d", r.Wins, r.Ties, r.Losses)))
		}
	}
	latex.Tabular(w, []string{"policy", "mean rank", "scenarios", "against", "W/T/L"}, []bool{false, true, true, false, true}, rows)
}
