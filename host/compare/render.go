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
// policy, other policy) of the matrix (the other policy in "baseline"),
// then, for a summary, one row per policy with scenario "*", where rank
// is the mean rank (ranktest's; empty when not ranked), ranked the
// scenarios it ran in, and wins, ties and losses count its outcomes over
// every pair tested. Cells that do not apply are empty.
var CSVHeader = []string{"scenario", "policy", "mean", "se", "rank", "ranked", "baseline", "baseline_mean", "baseline_se",
	"delta", "delta_se", "ci_lo", "ci_hi", "p", "p_better", "p_worse", "n", "outcome", "wins", "ties", "losses", "identical_to"}

func writeCSV(w io.Writer, sum *Summary) error {
	tab := table.Table{Header: CSVHeader}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, s := range sum.Scenarios {
		for _, p := range s.Policies {
			for _, d := range p.Diffs {
				row := []string{s.Name, p.Label, "", "", "", strconv.Itoa(p.Ranked), d.Baseline, "", "", "", "", "", "", "", "", "", "", string(d.Outcome), "", "", "", p.IdenticalTo}
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
		row := make([]string, len(CSVHeader))
		row[0], row[1], row[5] = "*", t.Label, strconv.Itoa(t.Scenarios)
		if t.Ranked {
			row[4] = f(t.MeanRank)
		}
		row[18], row[19], row[20] = strconv.Itoa(t.Wins), strconv.Itoa(t.Ties), strconv.Itoa(t.Losses)
		tab.Append(row...)
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
	// Policies left out of the same pairs for the same reasons share a
	// line, in first-seen order.
	var whats []string
	whos := map[string][]string{}
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
		what := strings.Join(parts, "; ")
		if _, seen := whos[what]; !seen {
			whats = append(whats, what)
		}
		whos[what] = append(whos[what], who)
	}
	for _, what := range whats {
		verb := "is"
		if len(whos[what]) > 1 {
			verb = "are"
		}
		lines = append(lines, fmt.Sprintf("left out: %s %s not compared with %s", strings.Join(whos[what], ", "), verb, what))
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

// Matrix is a comparison's policies x policies view: Labels are every
// policy of the comparison (Spec.Policies, then Spec.Baselines), and
// Cell(i, j) the difference of Labels[i] from Labels[j] (row minus
// column), nil when the pair is not compared.
type Matrix struct {
	Labels []string
	Rows   []Policy // per label: its mean, SE, rank, status (a baseline's from the diffs)
	cells  map[[2]string]Diff
}

// NewMatrix returns the matrix of s.
func NewMatrix(s *Scenario) *Matrix {
	m := &Matrix{cells: map[[2]string]Diff{}}
	for _, p := range s.Policies {
		m.Labels = append(m.Labels, p.Label)
		m.Rows = append(m.Rows, p)
		for _, d := range p.Diffs {
			m.cells[[2]string{p.Label, d.Baseline}] = d
		}
	}
	for bi, b := range s.Spec.Baselines {
		row := Policy{Label: b, Status: "failed"}
		if bi < len(s.Baselines) {
			row = s.Baselines[bi]
		}
		for _, p := range s.Policies {
			for _, d := range p.Diffs {
				if d.Baseline != b {
					continue
				}
				mirror := Diff{Baseline: p.Label, BaselineStatus: p.Status, Mean: p.Mean, SE: p.SE, Outcome: d.Outcome,
					Delta: -d.Delta, DeltaSE: d.DeltaSE, Lo: -d.Hi, Hi: -d.Lo, P: d.P, PBetter: d.PWorse, PWorse: d.PBetter, N: d.N, Note: d.Note}
				switch d.Outcome {
				case Win:
					mirror.Outcome = Loss
				case Loss:
					mirror.Outcome = Win
				}
				m.cells[[2]string{b, p.Label}] = mirror
			}
		}
		m.Labels = append(m.Labels, b)
		m.Rows = append(m.Rows, row)
	}
	return m
}

// Cell returns the difference of row i from column j, and false when the
// pair is not compared (the diagonal, two baselines, feedback modes).
func (m *Matrix) Cell(i, j int) (Diff, bool) {
	d, ok := m.cells[[2]string{m.Labels[i], m.Labels[j]}]
	return d, ok
}

// Symbol is the matrix cell of row i and column j as the tables write
// it: W, T or L (the row's policy significantly lower, not different,
// significantly higher), "=" for an identical policy, "-" for a pair not
// tested (a failure), "·" on the diagonal, "" for a pair not compared.
func (m *Matrix) Symbol(i, j int) string {
	if i == j {
		return "·"
	}
	d, ok := m.Cell(i, j)
	if !ok {
		return ""
	}
	switch d.Outcome {
	case Win:
		return "W"
	case Tie:
		return "T"
	case Loss:
		return "L"
	}
	if m.Rows[i].IdenticalTo == m.Labels[j] || (j < len(m.Rows) && m.Rows[j].IdenticalTo == m.Labels[i]) {
		return "="
	}
	return "-"
}

// RankText is row i's rank as the tables write it: "r/n", "-" when it
// failed, and for an identical policy its twin's with "=".
func (m *Matrix) RankText(i int) string {
	p := m.Rows[i]
	if p.Status != "ok" || p.Ranked == 0 {
		return "-"
	}
	r := fmt.Sprintf("%s/%d", num(p.Rank), p.Ranked)
	if p.IdenticalTo != "" {
		return "= " + r
	}
	return r
}

// BestSet returns, per row, whether it is the lowest mean of the matrix
// or not significantly different from it by the table's paired tests
// (its cell against the best is a tie or identical): the rows the LaTeX
// tables set in bold.
func (m *Matrix) BestSet() []bool {
	best := -1
	for i, p := range m.Rows {
		if p.Status == "ok" && p.IdenticalTo == "" && (best < 0 || p.Mean < m.Rows[best].Mean) {
			best = i
		}
	}
	out := make([]bool, len(m.Rows))
	if best < 0 {
		return out
	}
	for i := range m.Rows {
		if i == best {
			out[i] = true
			continue
		}
		switch m.Symbol(i, best) {
		case "T", "=":
			out[i] = true
		}
	}
	return out
}

// Notes returns the lines under a comparison table: the legend of its
// matrix, how it was tested, what was not, and the warnings.
func Notes(s *Scenario) []string { return notes(s, func(x string) string { return x }) }

func notes(s *Scenario, esc func(string) string) []string {
	n := 0
	for _, p := range s.Policies {
		for _, d := range p.Diffs {
			if d.Tested() {
				n = d.N
			}
		}
	}
	among := fmt.Sprintf("rank r/n: the rank in this scenario among the n policies that ran (%d here), 1 = lowest mean %s, ties share the average rank; an identical policy is ranked once", s.Ranked, s.Metric)
	if ShowsFeedback(s) {
		among = "rank r/n: the rank in this scenario among the n policies that ran under the same feedback mode (1 = lowest mean, ties share the average rank)"
	}
	lines := []string{
		fmt.Sprintf("W/T/L: the row's policy has a significantly lower (W), not different (T) or significantly higher (L) %s than the column's: paired t-test (tail-guarded SE) on the per-replication differences (common random numbers), n=%d; one-sided p, %s (all pairs), p < %g",
			s.Metric, n, HolmNote(s), s.Alpha),
		among,
	}
	for _, p := range s.Policies {
		if p.IdenticalTo != "" {
			lines = append(lines, fmt.Sprintf("%s is identical to %s (the same executable, parameters, seed and feedback): =, not tested or ranked twice", esc(p.Label), esc(p.IdenticalTo)))
		}
	}
	for _, p := range s.Policies {
		for _, d := range p.Diffs {
			if !d.Tested() && d.Note != "" && !strings.HasPrefix(d.Note, "identical") {
				lines = append(lines, fmt.Sprintf("%s against %s: not tested: %s", esc(p.Label), esc(d.Baseline), esc(d.Note)))
			}
		}
	}
	lines = append(lines, leftOutNotes(s, esc)...)
	for _, w := range s.Warnings {
		lines = append(lines, "warning: "+w)
	}
	return lines
}

func writeScenario(w io.Writer, s *Scenario, f table.Format) error {
	esc := func(x string) string { return table.Line(f, x) }
	title(w, f, fmt.Sprintf("Comparison in %s: %s at T=%d, lower is better, every pair", esc(s.Name), s.Metric, s.Horizon))
	m := NewMatrix(s)
	t := MatrixTable(m, s, false)
	if err := t.Render(w, f); err != nil {
		return err
	}
	line := func(format string, args ...any) {
		if f == table.Markdown {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, format+"\n", args...)
	}
	for _, l := range notes(s, esc) {
		line("%s", l)
	}
	if f == table.Markdown {
		title(w, f, fmt.Sprintf("Paired differences in %s: row - column, mean over replications [%s CI]", esc(s.Name), numfmt.Level(1-s.Alpha)))
		t := MatrixTable(m, s, true)
		if err := t.Render(w, f); err != nil {
			return err
		}
	}
	return nil
}

// MatrixTable is the comparison table of s: per policy its number, label,
// feedback (when ShowsFeedback), mean ± SE and rank in the scenario, then
// one column per policy (by number) holding Symbol, or with deltas the
// paired difference row - column and its CI.
func MatrixTable(m *Matrix, s *Scenario, deltas bool) table.Table {
	fb := ShowsFeedback(s)
	t := table.Table{Header: []string{"#", "policy"}, Right: []bool{true, false}}
	if fb {
		t.Header, t.Right = append(t.Header, "feedback"), append(t.Right, false)
	}
	t.Header, t.Right = append(t.Header, s.Metric, "rank"), append(t.Right, true, true)
	for j := range m.Labels {
		t.Header, t.Right = append(t.Header, strconv.Itoa(j+1)), append(t.Right, !deltas)
	}
	for i, p := range m.Rows {
		cells := []string{strconv.Itoa(i + 1), p.Label}
		if fb {
			cells = append(cells, FeedbackName(p.Feedback))
		}
		mean := "FAILED"
		if p.Status == "ok" {
			mean = numfmt.PM(p.Mean, p.SE)
		}
		cells = append(cells, mean, m.RankText(i))
		for j := range m.Labels {
			c := m.Symbol(i, j)
			if d, ok := m.Cell(i, j); deltas && ok && d.Tested() {
				delta, ci := DeltaText(d)
				c = delta + " " + ci
			}
			cells = append(cells, c)
		}
		t.Append(cells...)
	}
	return t
}

func writeTotals(w io.Writer, sum *Summary, f table.Format) error {
	title(w, f, TotalsTitle(sum))
	t := totalsTable(sum)
	if err := t.Render(w, f); err != nil {
		return err
	}
	for _, l := range TotalsNotes(sum) {
		if f == table.Markdown {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, table.Line(f, l))
	}
	return nil
}

// TotalsTitle is the title of the totals across scenarios.
func TotalsTitle(sum *Summary) string {
	return fmt.Sprintf("Comparison across %d scenarios: mean rank, and wins, ties and losses over every pair tested (%s at T, Holm-adjusted p < %g within each scenario's table)", len(sum.Scenarios), sum.Metric, sum.Alpha)
}

// TotalsNotes say what the totals' mean rank is (ranktest's, over which
// experiments) and which policies it leaves out.
func TotalsNotes(sum *Summary) []string {
	a := sum.Ranks
	if a == nil {
		return []string{"mean rank: none (no rank analysis)"}
	}
	var out []string
	if a.Friedman != nil {
		out = append(out, fmt.Sprintf("mean rank: over the N = %d experiments %s, the %d policies that ran in all of them (1 = lowest mean %s in an experiment, ties share the average rank), as in the mean-rank table and figure",
			a.Friedman.N, strings.Join(a.Experiments, ", "), a.Friedman.K, a.Metric))
	} else {
		out = append(out, "mean rank: none: "+a.Reason)
	}
	out = append(out, a.NotRankedText()...)
	if len(a.SameRunOrder) > 0 {
		out = append(out, "wins, ties, losses and scenarios: a scenario counted once adds only what the run it reuses did not hold (its own policies' runs and the pairs not tested there)")
	}
	return out
}

// TotalsOrder returns the totals by mean rank, best first, then those not
// ranked in first-seen order.
func TotalsOrder(sum *Summary) []Total {
	out := slices.Clone(sum.Totals)
	slices.SortStableFunc(out, func(a, b Total) int {
		switch {
		case a.Ranked && !b.Ranked:
			return -1
		case !a.Ranked && b.Ranked:
			return 1
		case a.Ranked && a.MeanRank < b.MeanRank:
			return -1
		case a.Ranked && a.MeanRank > b.MeanRank:
			return 1
		}
		return 0
	})
	return out
}

// RankText is a total's mean rank as every table writes it: two decimals,
// "-" when not ranked.
func RankText(t Total) string {
	if !t.Ranked {
		return "-"
	}
	return fmt.Sprintf("%.2f", t.MeanRank)
}

// totalsTable is the table across scenarios: per policy (TotalsOrder)
// its mean rank, the scenarios it ran in, and its wins, ties and losses.
func totalsTable(sum *Summary) table.Table {
	t := table.Table{
		Header: []string{"policy", "mean rank", "scenarios", "wins", "ties", "losses"},
		Right:  []bool{false, true, true, true, true, true},
	}
	for _, tot := range TotalsOrder(sum) {
		rank := RankText(tot)
		if !tot.Ranked && strings.HasPrefix(tot.NotRanked, "identical") {
			rank = "- (" + tot.NotRanked + ")"
		}
		t.Append(tot.Label, rank, strconv.Itoa(tot.Scenarios), strconv.Itoa(tot.Wins), strconv.Itoa(tot.Ties), strconv.Itoa(tot.Losses))
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
