package gate

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// WriteTable prints r as a benchstat-like table followed by footnotes on
// the test used, the verdict rules, warnings and why any policy was not
// compared. baseline and current name the two inputs in the heading.
func WriteTable(w io.Writer, r *Report, baseline, current string) error {
	o := r.Options
	fmt.Fprintf(w, "\nGate on %s at T=%d: %s against baseline %s (lower is better; margin %s, alpha %g)\n",
		o.Metric, r.Horizon, current, baseline, pct(o.Margin), o.Alpha)
	align := []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	t.Header("policy", "baseline", "current", "delta", fmt.Sprintf("%s CI of delta", pct(1-o.Alpha)), "p", "verdict")
	for _, row := range r.Rows {
		cells := []any{row.Label, pm(row.Base), pm(row.Cur), "-", "-", "-", string(row.Verdict)}
		if !math.IsNaN(row.Lo) {
			cells[3] = rel(row.Estimate.Delta, row.Base.Mean)
			cells[4] = "[" + rel(row.Lo, row.Base.Mean) + ", " + rel(row.Hi, row.Base.Mean) + "]"
			cells[5] = pval(row.P())
		}
		if err := t.Append(cells...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, line := range footnotes(r) {
		fmt.Fprintln(w, line)
	}
	return nil
}

func footnotes(r *Report) []string {
	o := r.Options
	var n []string
	var sizes string
	for _, row := range r.Rows {
		if row.Compared() || row.Verdict == Inconclusive {
			sizes = fmt.Sprintf("n=%d", row.Base.N)
			if row.Base.N != row.Cur.N {
				sizes = fmt.Sprintf("n=%d baseline, %d current", row.Base.N, row.Cur.N)
			}
			break
		}
	}
	if sizes != "" {
		sizes = ", " + sizes
	}
	if r.Paired {
		n = append(n, fmt.Sprintf("test: PAIRED t-test on per-replication differences%s (%s)", sizes, r.Pairing))
	} else {
		n = append(n, fmt.Sprintf("test: UNPAIRED Welch t-test%s, because %s; pairing needs the same scenario, seed and replications", sizes, r.Pairing))
	}
	if len(r.Differences) > 0 {
		n = append(n, "compared anyway (--force) although the experiments differ: "+strings.Join(r.Differences, "; "))
	}
	n = append(n,
		fmt.Sprintf("delta: current - baseline mean, in %% of the baseline mean; CI: two-sided %s per policy; p: one-sided, in the direction of delta, beyond the margin, Holm-adjusted over %d comparison(s)", pct(1-o.Alpha), r.Comparisons),
		fmt.Sprintf("verdict: worse/better = significant (p < %g) beyond ±%s; same = CI within ±%s; inconclusive = neither", o.Alpha, pct(o.Margin), pct(o.Margin)))
	for _, w := range r.Warnings {
		n = append(n, "warning: "+w)
	}
	for _, row := range r.Rows {
		if row.Note != "" {
			n = append(n, fmt.Sprintf("%s %s: %s", row.Label, row.Verdict, row.Note))
		}
	}
	return n
}

func pm(s Summary) string {
	switch {
	case s.N == 0:
		return "-"
	case math.IsNaN(s.SE):
		return fmt.Sprintf("%.2f", s.Mean)
	}
	return fmt.Sprintf("%.2f ± %.2f", s.Mean, s.SE)
}

// rel writes x in % of the baseline mean, or as is when that mean is 0.
func rel(x, base float64) string {
	if base == 0 {
		return fmt.Sprintf("%+.3g", x)
	}
	return fmt.Sprintf("%+.1f%%", 100*x/math.Abs(base))
}

func pct(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".") + "%"
}

func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 1e-4:
		return "<1e-4"
	}
	return fmt.Sprintf("%.2g", p)
}
