// Package report renders results files for people and for other programs:
// the tables bench prints (plain text or Markdown for pull-request
// comments), a long-form CSV for pandas, R or a spreadsheet, and the
// results file itself as JSON.
//
// Every format reads only the results file, so `bench plot` and a later
// re-render of an old run give the same output as the run itself.
package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// Format names an output format.
type Format string

// The output formats of bench's --format flag.
const (
	// FormatTable is the plain-text regret, separated-regret and diagnostics
	// tables (ASCII borders, so logs and golden files stay stable).
	FormatTable Format = "table"
	// FormatMarkdown is the same tables as GitHub-flavoured Markdown, for
	// pull-request comments.
	FormatMarkdown Format = "markdown"
	// FormatCSV is one row per (policy, metric, checkpoint), see CSV.
	FormatCSV Format = "csv"
	// FormatJSON is the results file (design §7) itself.
	FormatJSON Format = "json"
	// FormatLatex is a booktabs tabular of the final regret and its
	// separated parts (mean ± standard error), ready to \input into a
	// paper (see writeLatex).
	FormatLatex Format = "latex"
)

// Formats lists the formats in the order help texts show them.
func Formats() []Format {
	return []Format{FormatTable, FormatMarkdown, FormatCSV, FormatJSON, FormatLatex}
}

// ParseFormat returns the format named s; the empty string is Table.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return FormatTable, nil
	}
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(Formats(), f) {
		return "", fmt.Errorf("unknown format %q (want table, markdown, csv, json or latex)", s)
	}
	return f, nil
}

// Options select and adjust an output.
type Options struct {
	// Format is the output format; empty means FormatTable.
	Format Format
	// At adds to the regret table one "regret t=N" column per round N,
	// in the given order; in CSV it keeps only the rows at these rounds.
	// Each round must be a checkpoint of the results (see CheckAt): values
	// are never interpolated. JSON does not accept At.
	At []int
}

// Write renders f in the format o.Format to w. It checks o.At before
// writing anything, so a bad round leaves w untouched.
func Write(w io.Writer, f *results.File, o Options) error {
	format, err := ParseFormat(string(o.Format))
	if err != nil {
		return err
	}
	if len(o.At) > 0 {
		if format == FormatJSON {
			return fmt.Errorf("rounds to report (Options.At) do not apply to the json format, which holds every checkpoint")
		}
		for _, p := range okPolicies(f) {
			if err := CheckAt(p.Checkpoints, o.At); err != nil {
				return fmt.Errorf("policy %q: %w", p.Label, err)
			}
		}
	}
	switch format {
	case FormatMarkdown:
		return writeTables(w, f, o.At, table.Markdown)
	case FormatCSV:
		return writeCSV(w, f, o.At)
	case FormatJSON:
		return f.Encode(w)
	case FormatLatex:
		return writeLatex(w, f, o.At)
	}
	return writeTables(w, f, o.At, table.Text)
}

// Tables writes the regret table, the separated-regret summary and, when
// any policy reports diagnostics, the diagnostics table, as plain text.
func Tables(w io.Writer, f *results.File) error { return Write(w, f, Options{Format: FormatTable}) }

// Markdown writes the same tables as Tables in GitHub-flavoured Markdown,
// for pull-request comments.
func Markdown(w io.Writer, f *results.File) error {
	return Write(w, f, Options{Format: FormatMarkdown})
}

// CSV writes every policy's metric series in long form (see writeCSV):
// one row per policy, metric and checkpoint.
func CSV(w io.Writer, f *results.File) error { return Write(w, f, Options{Format: FormatCSV}) }

// CheckAt reports an error naming the available checkpoints when a round
// in at is not one of checkpoints. bench checks --at against the
// scenario's checkpoints before a run, so a typo costs no run.
func CheckAt(checkpoints, at []int) error {
	for _, t := range at {
		if _, ok := slices.BinarySearch(checkpoints, t); !ok {
			return fmt.Errorf("round %d is not a checkpoint (checkpoints: %s); values are never interpolated: list the round under the scenario's checkpoints: and run again", t, joinInts(checkpoints))
		}
	}
	return nil
}

// ParseRounds parses a comma-separated list of positive rounds such as
// "1000,5000,20000".
func ParseRounds(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("round %q is not a positive integer", part)
		}
		out = append(out, n)
	}
	return out, nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// okPolicies returns the policies that have results (not failed).
func okPolicies(f *results.File) []*results.Policy {
	var out []*results.Policy
	for _, p := range f.Policies {
		if p.Status != results.StatusFailed {
			out = append(out, p)
		}
	}
	return out
}

// seriesAt returns the mean and SE of s at round t of checkpoints;
// CheckAt has made sure t is one.
func seriesAt(s results.Series, checkpoints []int, t int) (float64, float64) {
	i, _ := slices.BinarySearch(checkpoints, t)
	return s.Mean[i], s.SE[i]
}
