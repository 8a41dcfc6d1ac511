package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/metric"
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
	if a := AuditOutcome(f); a != "" {
		fmt.Fprintf(w, "\n%s\n", table.Line(format, "audit: "+a))
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

// meanSE writes a mean of p with its standard error se, as numfmt.PM does;
// over one replication (bench run --replication I) the standard error is
// undefined, not zero, and the mean is written alone: "1.10", never
// "1.10 ± 0", which would claim a certainty one replication cannot give.
func meanSE(p *results.Policy, mean, se float64) string {
	if oneReplication(p) {
		se = math.NaN()
	}
	return numfmt.PM(mean, se)
}

// oneReplication reports whether p's values are those of one replication.
func oneReplication(p *results.Policy) bool {
	return len(p.Final[metric.Regret]) == 1
}

// overReplications says what a table's numbers are, for its caption:
// means with their standard errors, or, when every policy of f that ran
// has one replication, the values of that replication.
func overReplications(f *results.File) string {
	if oneReplicationFile(f) {
		return oneReplicationCaption
	}
	return "mean ± standard error over replications"
}

// oneReplicationCaption says that a table's numbers are one replication's.
const oneReplicationCaption = "one replication: its values, no standard error"

// oneReplicationFile reports whether every policy of f that ran has the
// values of one replication (and one ran at least).
func oneReplicationFile(f *results.File) bool {
	ok := okPolicies(f)
	return len(ok) > 0 && !slices.ContainsFunc(ok, func(p *results.Policy) bool { return !oneReplication(p) })
}
