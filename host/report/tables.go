package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

func last(s results.Series) (float64, float64) {
	n := len(s.Mean)
	if n == 0 {
		return 0, 0
	}
	return s.Mean[n-1], s.SE[n-1]
}

// writeTables writes the title line, then each table of TableData (the
// regret table with a column per round of at, the distribution, the
// separated-regret summary and the diagnostics) with its caption, in
// format f (table.Text or table.Markdown).
func writeTables(w io.Writer, f *results.File, at []int, format table.Format) error {
	title := table.Line(format, Title(f)) // the scenario's name, from a file
	if format == table.Markdown {
		// A bold line, not a heading: PR comments stay compact.
		title = "**" + title + "**"
	}
	fmt.Fprintln(w, title)
	for _, t := range TableData(f, at) {
		table.Caption(w, format, t.Caption)
		if err := t.Render(w, format); err != nil {
			return err
		}
	}
	return nil
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
