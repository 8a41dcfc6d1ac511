// Package report renders results files as the tables bench prints.
package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/regretbench/regretbench/host/results"
)

func pm(mean, se float64) string { return fmt.Sprintf("%.2f ± %.2f", mean, se) }

func last(s results.Series) (float64, float64) {
	n := len(s.Mean)
	if n == 0 {
		return 0, 0
	}
	return s.Mean[n-1], s.SE[n-1]
}

func newTable(w io.Writer, header []any, right []bool) *tablewriter.Table {
	align := make([]tw.Align, len(right))
	for i, r := range right {
		align[i] = tw.AlignLeft
		if r {
			align[i] = tw.AlignRight
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	t.Header(header...)
	return t
}

// Tables writes the regret table, the separated-regret summary and, when
// any policy reports diagnostics, the diagnostics table.
func Tables(w io.Writer, f *results.File) error {
	sc := f.Scenario
	fmt.Fprintf(w, "%s: K=%d, T=%d, %d runs, seed %d", sc.Name, sc.Arms, sc.Horizon, len(f.Policies[0].Final["regret"]), sc.Seed)
	if f.Shard.Count > 1 {
		fmt.Fprintf(w, ", shard %d/%d", f.Shard.Index, f.Shard.Count)
	}
	if !f.Complete {
		fmt.Fprint(w, " (INCOMPLETE)")
	}
	fmt.Fprintln(w)
	if err := regretTable(w, f); err != nil {
		return err
	}
	if err := separatedTable(w, f); err != nil {
		return err
	}
	return diagnosticsTable(w, f)
}

func regretTable(w io.Writer, f *results.File) error {
	fmt.Fprintf(w, "\nRegret at T=%d (mean ± standard error over replications)\n", f.Scenario.Horizon)
	t := newTable(w, []any{"policy", "regret", "underestimation", "seconds", "status"}, []bool{false, true, true, true, false})
	for _, p := range f.Policies {
		if p.Status == results.StatusFailed {
			if err := t.Append([]any{p.Label, "-", "-", "-", "FAILED"}); err != nil {
				return err
			}
			continue
		}
		rm, rs := last(p.Regret)
		um, us := last(p.Under)
		if err := t.Append([]any{p.Label, pm(rm, rs), pm(um, us), fmt.Sprintf("%.1f", p.Seconds), p.Status}); err != nil {
			return err
		}
	}
	return t.Render()
}

func separatedTable(w io.Writer, f *results.File) error {
	fmt.Fprintln(w, "\nSeparated regret: rounds where the best arm's empirical mean was below the second-best mean")
	t := newTable(w, []any{"policy", "regret_under", "regret_not_under", "share under"}, []bool{false, true, true, true})
	for _, p := range f.Policies {
		if p.Status == results.StatusFailed {
			continue
		}
		um, us := last(p.RegretUnder)
		nm, ns := last(p.RegretNot)
		rm, _ := last(p.Regret)
		share := "-"
		if rm > 0 {
			share = fmt.Sprintf("%.0f%%", 100*um/rm)
		}
		if err := t.Append([]any{p.Label, pm(um, us), pm(nm, ns), share}); err != nil {
			return err
		}
	}
	return t.Render()
}

func diagnosticsTable(w io.Writer, f *results.File) error {
	var rows [][]any
	for _, p := range f.Policies {
		names := make([]string, 0, len(p.Diagnostics))
		for name := range p.Diagnostics {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			d := p.Diagnostics[name]
			n := len(d.Mean)
			if n == 0 {
				continue
			}
			rows = append(rows, []any{p.Label, name, fmt.Sprintf("%.4g ± %.2g", d.Mean[n-1], d.SE[n-1]), fmt.Sprint(d.Checkpoints[n-1])})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nPlugin diagnostics at the last checkpoint (mean ± standard error)")
	t := newTable(w, []any{"policy", "diagnostic", "value", "round"}, []bool{false, false, true, true})
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}
