package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/table"
)

// Write renders the comparison section of one scenario in format: a
// titled table with footnotes (table, markdown), rows with a header (csv;
// see CSVHeader) or the Scenario as indented JSON.
func Write(w io.Writer, s *Scenario, format report.Format) error {
	return WriteSummary(w, &Summary{Metric: s.Metric, Alpha: s.Alpha, Scenarios: []Scenario{*s}}, format)
}

// Section is s as the comparison section that report.Render writes after
// a results file's tables; nil for a nil s, no section.
func Section(s *Scenario) report.Section {
	if s == nil {
		return nil
	}
	return func(w io.Writer, format report.Format) error { return Write(w, s, format) }
}

// WriteSummary renders every scenario of sum and, when it has more than
// one scenario, the totals across them (wins, ties and losses against each
// baseline, and the mean rank). In csv the totals are rows of their own
// (scenario "*", see CSVHeader); in json it is the Summary; in latex,
// booktabs tabulars (see writeLatex).
func WriteSummary(w io.Writer, sum *Summary, format report.Format) error {
	format, err := report.ParseFormat(string(format))
	if err != nil {
		return err
	}
	switch format {
	case report.FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false) // labels as they are, not \u003c
		enc.SetIndent("", "  ")
		if len(sum.Scenarios) == 1 && len(sum.Totals) == 0 {
			return enc.Encode(sum.Scenarios[0])
		}
		return enc.Encode(sum)
	case report.FormatCSV:
		return writeCSV(w, sum)
	case report.FormatLatex:
		return writeLatex(w, sum)
	}
	tf := table.Text
	if format == report.FormatMarkdown {
		tf = table.Markdown
	}
	for i := range sum.Scenarios {
		if err := writeScenario(w, &sum.Scenarios[i], tf); err != nil {
			return err
		}
	}
	if len(sum.Scenarios) > 1 || len(sum.Totals) > 0 {
		return writeTotals(w, sum, tf)
	}
	return nil
}

// CSVHeader is the header of the csv rendering: one row per (scenario,
// policy, baseline), then, for a summary, one row per (policy, baseline)
// with scenario "*", where rank is the mean rank and wins, ties and
// losses count scenarios. Cells that do not apply are empty.
var CSVHeader = []string{"scenario", "policy", "mean", "se", "rank", "ranked", "baseline", "baseline_mean", "baseline_se",
	"delta", "delta_se", "ci_lo", "ci_hi", "p", "p_better", "p_worse", "n", "outcome", "wins", "ties", "losses"}

func writeCSV(w io.Writer, sum *Summary) error {
	tab := table.Table{Header: CSVHeader}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, s := range sum.Scenarios {
		for _, p := range s.Policies {
			for _, d := range p.Diffs {
				row := []string{s.Name, p.Label, "", "", "", strconv.Itoa(p.Ranked), d.Baseline, "", "", "", "", "", "", "", "", "", "", string(d.Outcome), "", "", ""}
				if p.Status == "ok" {
					row[2], row[3], row[4] = f(p.Mean), f(p.SE), f(p.Rank)
				}
				if d.BaselineStatus == "ok" {
					row[7], row[8] = f(d.Mean), f(d.SE)
				}
				if d.Tested() {
					row[9], row[10], row[11], row[12] = f(d.Delta), f(d.DeltaSE), f(d.Lo), f(d.Hi)
					row[13], row[14], row[15], row[16] = f(d.P), f(d.PBetter), f(d.PWorse), strconv.Itoa(d.N)
				}
				tab.Append(row...)
			}
		}
	}
	for _, t := range sum.Totals {
		for _, r := range t.Records {
			row := make([]string, len(CSVHeader))
			row[0], row[1], row[4], row[5], row[6] = "*", t.Label, f(t.MeanRank), strconv.Itoa(t.Scenarios), r.Baseline
			row[18], row[19], row[20] = strconv.Itoa(r.Wins), strconv.Itoa(r.Ties), strconv.Itoa(r.Losses)
			tab.Append(row...)
		}
	}
	return tab.Render(w, table.CSV)
}

// title writes the line above a table: text is bench's words with what
// came from files already escaped (table.Line).
func title(w io.Writer, f table.Format, text string) {
	if f == table.Markdown {
		fmt.Fprintf(w, "\n**%s**\n\n", text)
		return
	}
	fmt.Fprintf(w, "\n%s\n", text)
}

// ShowsFeedback reports whether a comparison table shows the feedback
// column: when a policy under comparison, or a baseline left out for its
// feedback, is not under immediate feedback.
func ShowsFeedback(s *Scenario) bool {
	for _, p := range s.Policies {
		if p.Feedback != "" {
			return true
		}
		for _, lo := range p.LeftOut {
			if lo.Feedback != "" {
				return true
			}
		}
	}
	return false
}

// LeftOutNotes returns the lines under a comparison table that say which
// policies of the scenario were not compared with which, and why, in
// plain text (labels as they are).
func LeftOutNotes(s *Scenario) []string { return leftOutNotes(s, func(x string) string { return x }) }

func leftOutNotes(s *Scenario, esc func(string) string) []string {
	var lines []string
	byFeedback := false
	for _, p := range s.Policies {
		if len(p.LeftOut) == 0 {
			continue
		}
		// One group per reason, in first-seen order.
		var reasons []string
		groups := map[string][]string{}
		for _, lo := range p.LeftOut {
			if _, seen := groups[lo.Reason]; !seen {
				reasons = append(reasons, lo.Reason)
			}
			groups[lo.Reason] = append(groups[lo.Reason], esc(lo.Baseline))
			byFeedback = byFeedback || lo.Feedback != ""
		}
		parts := make([]string, len(reasons))
		for i, r := range reasons {
			parts[i] = strings.Join(groups[r], ", ") + " (" + esc(r) + ")"
		}
		who := esc(p.Label)
		if ShowsFeedback(s) {
			who += " (feedback " + FeedbackName(p.Feedback) + ")"
		}
		lines = append(lines, fmt.Sprintf("left out: %s is not compared with %s", who, strings.Join(parts, "; ")))
	}
	if byFeedback {
		lines = append(lines, "only policies under the same feedback mode are compared and ranked together; delay 0, batch 1 and geometric mean 0 count as immediate (each delivers every reward at the next round)")
	}
	return lines
}

// HolmNote says which Holm family a comparison table's p-values are
// adjusted over: the tested differences of that table.
func HolmNote(s *Scenario) string {
	if s.Comparisons == 1 {
		return "Holm-adjusted over the 1 comparison of this table"
	}
	return fmt.Sprintf("Holm-adjusted over the %d comparisons of this table", s.Comparisons)
}

func writeScenario(w io.Writer, s *Scenario, f table.Format) error {
	esc := func(x string) string { return table.Line(f, x) }
	title(w, f, fmt.Sprintf("Comparison in %s: %s at T=%d, lower is better", esc(s.Name), s.Metric, s.Horizon))
	fb := ShowsFeedback(s)
	t := scenarioTable(s, f)
	if err := t.Render(w, f); err != nil {
		return err
	}
	n := 0
	for _, p := range s.Policies {
		for _, d := range p.Diffs {
			if d.Tested() {
				n = d.N
			}
		}
	}
	line := func(format string, args ...any) {
		if f == table.Markdown {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, format+"\n", args...)
	}
	among := fmt.Sprintf("rank: among the %d policies that ran", s.Ranked)
	if fb {
		among = "rank r/n: among the n policies that ran under the same feedback mode"
	}
	line("%s (1 = lowest mean %s); delta: mean per-replication difference policy - baseline, paired t-test (common random numbers), n=%d", among, s.Metric, n)
	line("%s CI: two-sided; p: one-sided in the direction of delta, %s; win/loss: p < %g (lower/higher), tie otherwise",
		numfmt.Level(1-s.Alpha), HolmNote(s), s.Alpha)
	for _, p := range s.Policies {
		for _, d := range p.Diffs {
			if !d.Tested() && d.Note != "" {
				line("%s against %s: not tested: %s", esc(p.Label), esc(d.Baseline), esc(d.Note))
			}
		}
	}
	for _, l := range leftOutNotes(s, esc) {
		line("%s", l)
	}
	return nil
}

func writeTotals(w io.Writer, sum *Summary, f table.Format) error {
	title(w, f, fmt.Sprintf("Comparison across %d scenarios: wins, ties and losses (%s at T, Holm-adjusted p < %g within each scenario's table)", len(sum.Scenarios), sum.Metric, sum.Alpha))
	t := totalsTable(sum, f)
	return t.Render(w, f)
}

// scenarioTable is the comparison table of s in format f: per policy and
// baseline, the policy's mean ± SE and rank, the baseline's, the paired
// difference, its CI, the Holm-adjusted p and the outcome; a feedback
// column after the policy's when ShowsFeedback. A policy's own cells are
// written once, on its first row, but in Markdown, whose rows each stand
// alone.
func scenarioTable(s *Scenario, f table.Format) table.Table {
	t := table.Table{
		Header: []string{"policy", s.Metric, "rank", "baseline", "baseline " + s.Metric, "delta", fmt.Sprintf("%s CI", numfmt.Level(1-s.Alpha)), "p", "outcome"},
		Right:  []bool{false, true, true, false, true, true, true, true, false},
		Math:   []bool{false, true, false, false, true, true, true, true, false},
	}
	if f == table.LaTeX {
		t.Header[5], t.Header[7] = `$\Delta$`, "$p$ (Holm)"
	}
	fb := ShowsFeedback(s)
	if fb {
		t.Header = slices.Insert(t.Header, 1, "feedback")
		t.Right = slices.Insert(t.Right, 1, false)
		t.Math = slices.Insert(t.Math, 1, false)
	}
	for _, p := range s.Policies {
		mean, rank := "FAILED", "-"
		if p.Status == "ok" {
			mean, rank = numfmt.PM(p.Mean, p.SE), fmt.Sprintf("%s/%d", num(p.Rank), p.Ranked)
		}
		rows := [][]string{}
		for k, d := range p.Diffs {
			cells := []string{p.Label, mean, rank, d.Baseline, "-", "-", "-", "-", string(d.Outcome)}
			if k > 0 && f != table.Markdown {
				cells[0], cells[1], cells[2] = "", "", ""
			}
			if d.BaselineStatus == "ok" {
				cells[4] = numfmt.PM(d.Mean, d.SE)
			} else {
				cells[4] = "FAILED"
			}
			if d.Tested() {
				cells[5], cells[6] = DeltaText(d)
				cells[7] = numfmt.P(d.P)
			}
			rows = append(rows, cells)
		}
		if len(p.Diffs) == 0 {
			rows = append(rows, []string{p.Label, mean, rank, "-", "-", "-", "-", "-", "-"})
		}
		for k, cells := range rows {
			if fb {
				mode := FeedbackName(p.Feedback)
				if k > 0 && f != table.Markdown {
					mode = ""
				}
				cells = slices.Insert(cells, 1, mode)
			}
			t.Append(cells...)
		}
	}
	return t
}

// totalsTable is the table of wins, ties and losses across scenarios in
// format f: per policy its mean rank, the scenarios it ran in, and its
// wins, ties and losses against each baseline (in LaTeX, one W/T/L
// column). A policy's own cells are written once but in Markdown.
func totalsTable(sum *Summary, f table.Format) table.Table {
	t := table.Table{
		Header: []string{"policy", "mean rank", "scenarios", "against", "wins", "ties", "losses"},
		Right:  []bool{false, true, true, false, true, true, true},
	}
	if f == table.LaTeX {
		t.Header, t.Right = append(t.Header[:4], "W/T/L"), t.Right[:5]
	}
	for _, tot := range sum.Totals {
		rank := "-"
		if tot.Scenarios > 0 {
			rank = fmt.Sprintf("%.2f", tot.MeanRank)
		}
		for k, r := range tot.Records {
			cells := []string{tot.Label, rank, strconv.Itoa(tot.Scenarios), r.Baseline}
			if k > 0 && f != table.Markdown {
				cells[0], cells[1], cells[2] = "", "", ""
			}
			if f == table.LaTeX {
				cells = append(cells, fmt.Sprintf("%d/%d/%d", r.Wins, r.Ties, r.Losses))
			} else {
				cells = append(cells, strconv.Itoa(r.Wins), strconv.Itoa(r.Ties), strconv.Itoa(r.Losses))
			}
			t.Append(cells...)
		}
	}
	return t
}

// DeltaText writes a tested difference and its CI as the comparison
// tables show them, all three numbers at the precision of the
// difference's standard error (numfmt): "+1.85" and "[+1.39, +2.32]".
func DeltaText(d Diff) (delta, ci string) {
	p := numfmt.At(d.DeltaSE, max(math.Abs(d.Delta), math.Abs(d.Lo), math.Abs(d.Hi)))
	return p.Format(d.Delta, true), "[" + p.Format(d.Lo, true) + ", " + p.Format(d.Hi, true) + "]"
}

// num writes a rank: an integer as such, a shared rank with one decimal.
func num(x float64) string {
	if x == math.Trunc(x) {
		return strconv.Itoa(int(x))
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}
