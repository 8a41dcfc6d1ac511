package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/regretbench/regretbench/host/results"
)

// style is how the tables of Tables and Markdown differ: the table
// renderer and how the title and captions are set.
type style struct{ markdown bool }

var (
	textStyle     = style{}
	markdownStyle = style{markdown: true}
)

func (s style) title(w io.Writer, text string) {
	if s.markdown {
		// A bold line, not a heading: PR comments stay compact.
		fmt.Fprintf(w, "**%s**\n", escapeMarkdown(text))
		return
	}
	fmt.Fprintln(w, text)
}

func (s style) caption(w io.Writer, text string) {
	if s.markdown {
		// A blank line after the caption, or GitHub reads the table's header
		// row as part of the caption's paragraph.
		fmt.Fprintf(w, "\n%s\n\n", escapeMarkdown(text))
		return
	}
	fmt.Fprintf(w, "\n%s\n", text)
}

// cell escapes a free-text cell (a policy label) for the style.
func (s style) cell(text string) string {
	if s.markdown {
		return escapeMarkdown(text)
	}
	return text
}

// escapeMarkdown escapes the characters that would end a table cell or
// start emphasis in text from the results file (labels, names).
func escapeMarkdown(s string) string {
	return strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "`", "\\`").Replace(s)
}

func (s style) table(w io.Writer, header []any, right []bool) *tablewriter.Table {
	align := make([]tw.Align, len(right))
	for i, r := range right {
		align[i] = tw.AlignLeft
		if r {
			align[i] = tw.AlignRight
		}
	}
	var r tw.Renderer = renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})
	if s.markdown {
		r = renderer.NewMarkdown()
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	t.Header(header...)
	return t
}

func pm(mean, se float64) string { return fmt.Sprintf("%.2f ± %.2f", mean, se) }

func last(s results.Series) (float64, float64) {
	n := len(s.Mean)
	if n == 0 {
		return 0, 0
	}
	return s.Mean[n-1], s.SE[n-1]
}

// writeTables writes the title line, the regret table (with a column per
// round of at), the separated-regret summary and the diagnostics table.
func writeTables(w io.Writer, f *results.File, at []int, s style) error {
	sc := f.Scenario
	runs := sc.Runs
	if ok := okPolicies(f); len(ok) > 0 {
		runs = len(ok[0].Final["regret"]) // a shard's own count
	}
	title := fmt.Sprintf("%s: K=%d, T=%d, %d runs, seed %d", sc.Name, sc.Arms, sc.Horizon, runs, sc.Seed)
	if f.Shard.Count > 1 {
		title += fmt.Sprintf(", shard %d/%d", f.Shard.Index, f.Shard.Count)
	}
	if !f.Complete {
		title += " (INCOMPLETE)"
	}
	s.title(w, title)
	if err := regretTable(w, f, at, s); err != nil {
		return err
	}
	if err := separatedTable(w, f, s); err != nil {
		return err
	}
	return diagnosticsTable(w, f, s)
}

func regretTable(w io.Writer, f *results.File, at []int, s style) error {
	caption := fmt.Sprintf("Regret at T=%d (mean ± standard error over replications)", f.Scenario.Horizon)
	header := []any{"policy"}
	right := []bool{false}
	if len(at) > 0 {
		rounds := make([]string, len(at))
		for i, t := range at {
			rounds[i] = fmt.Sprintf("t=%d", t)
			header = append(header, "regret "+rounds[i])
			right = append(right, true)
		}
		caption = fmt.Sprintf("Regret at %s and T=%d (mean ± standard error over replications)", strings.Join(rounds, ", "), f.Scenario.Horizon)
	}
	header = append(header, "regret", "underestimation", "seconds", "status")
	right = append(right, true, true, true, false)
	s.caption(w, caption)
	t := s.table(w, header, right)
	for _, p := range f.Policies {
		row := []any{s.cell(p.Label)}
		if p.Status == results.StatusFailed {
			for range at {
				row = append(row, "-")
			}
			if err := t.Append(append(row, "-", "-", "-", "FAILED")); err != nil {
				return err
			}
			continue
		}
		for _, r := range at {
			row = append(row, pm(seriesAt(p.Regret, p.Checkpoints, r)))
		}
		rm, rs := last(p.Regret)
		um, us := last(p.Under)
		if err := t.Append(append(row, pm(rm, rs), pm(um, us), fmt.Sprintf("%.1f", p.Seconds), p.Status)); err != nil {
			return err
		}
	}
	return t.Render()
}

func separatedTable(w io.Writer, f *results.File, s style) error {
	s.caption(w, "Separated regret: rounds where the best arm's empirical mean was below the second-best mean")
	t := s.table(w, []any{"policy", "regret_under", "regret_not_under", "share under"}, []bool{false, true, true, true})
	for _, p := range okPolicies(f) {
		um, us := last(p.RegretUnder)
		nm, ns := last(p.RegretNot)
		rm, _ := last(p.Regret)
		share := "-"
		if rm > 0 {
			share = fmt.Sprintf("%.0f%%", 100*um/rm)
		}
		if err := t.Append([]any{s.cell(p.Label), pm(um, us), pm(nm, ns), share}); err != nil {
			return err
		}
	}
	return t.Render()
}

// diagNames returns p's diagnostic names, sorted.
func diagNames(p *results.Policy) []string {
	names := make([]string, 0, len(p.Diagnostics))
	for name := range p.Diagnostics {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func diagnosticsTable(w io.Writer, f *results.File, s style) error {
	var rows [][]any
	for _, p := range f.Policies {
		for _, name := range diagNames(p) {
			d := p.Diagnostics[name]
			n := len(d.Mean)
			if n == 0 {
				continue
			}
			rows = append(rows, []any{s.cell(p.Label), s.cell(name), fmt.Sprintf("%.4g ± %.2g", d.Mean[n-1], d.SE[n-1]), fmt.Sprint(d.Checkpoints[n-1])})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	s.caption(w, "Plugin diagnostics at the last checkpoint (mean ± standard error)")
	t := s.table(w, []any{"policy", "diagnostic", "value", "round"}, []bool{false, false, true, true})
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}
