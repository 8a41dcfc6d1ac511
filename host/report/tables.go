package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/internal/termsafe"
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
	text = termsafe.String(text) // the scenario's name, from a file
	if s.markdown {
		// A bold line, not a heading: PR comments stay compact.
		fmt.Fprintf(w, "**%s**\n", escapeMarkdown(text))
		return
	}
	fmt.Fprintln(w, text)
}

func (s style) caption(w io.Writer, text string) {
	text = termsafe.String(text)
	if s.markdown {
		// A blank line after the caption, or GitHub reads the table's header
		// row as part of the caption's paragraph.
		fmt.Fprintf(w, "\n%s\n\n", escapeMarkdown(text))
		return
	}
	fmt.Fprintf(w, "\n%s\n", text)
}

// cell escapes a free-text cell (a policy label, a diagnostic's name)
// for the style: control characters always, as a terminal shows both
// styles, then Markdown's own characters.
func (s style) cell(text string) string {
	text = termsafe.String(text)
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

// pm writes a mean ± its standard error, as every table of bench does.
func pm(mean, se float64) string { return numfmt.PM(mean, se) }

func last(s results.Series) (float64, float64) {
	n := len(s.Mean)
	if n == 0 {
		return 0, 0
	}
	return s.Mean[n-1], s.SE[n-1]
}

// writeTables writes the title line, the regret table (with a column per
// round of at), the separated-regret summary and the diagnostics table:
// TableData, rendered in style s.
func writeTables(w io.Writer, f *results.File, at []int, s style) error {
	s.title(w, Title(f))
	for _, t := range TableData(f, at) {
		if err := s.render(w, t); err != nil {
			return err
		}
	}
	return nil
}

// render writes t's caption and t in style s.
func (s style) render(w io.Writer, t Table) error {
	s.caption(w, t.Caption)
	header := make([]any, len(t.Header))
	for i, h := range t.Header {
		header[i] = termsafe.String(h)
	}
	tab := s.table(w, header, t.Right)
	for _, r := range t.Rows {
		row := make([]any, len(r))
		for i, c := range r {
			row[i] = s.cell(c) // numbers hold nothing Markdown escapes
		}
		if err := tab.Append(row); err != nil {
			return err
		}
	}
	return tab.Render()
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
