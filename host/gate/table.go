package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/table"
)

// Formats are the formats of Write: "table" (WriteTable), "markdown"
// (WriteMarkdown, for a pull-request comment) and "json" (WriteJSON).
var Formats = []string{"table", "markdown", "json"}

// Write renders r in format, one of Formats.
func Write(w io.Writer, r *Report, baseline, current, format string) error {
	switch format {
	case "", "table":
		return WriteTable(w, r, baseline, current)
	case "markdown":
		return WriteMarkdown(w, r, baseline, current)
	case "json":
		return WriteJSON(w, r, baseline, current)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// WriteTable prints r as a benchstat-like table followed by footnotes on
// the test used, the verdict rules, warnings and why any policy was not
// compared. baseline and current name the two inputs in the heading.
func WriteTable(w io.Writer, r *Report, baseline, current string) error {
	return writeTable(w, r, baseline, current, false)
}

// WriteMarkdown prints r as WriteTable does, in GitHub-flavoured Markdown:
// a bold title, a table and the footnotes as a list, for a CI job to post
// as a pull-request comment.
func WriteMarkdown(w io.Writer, r *Report, baseline, current string) error {
	return writeTable(w, r, baseline, current, true)
}

func writeTable(w io.Writer, r *Report, baseline, current string, md bool) error {
	o := r.Options
	// Labels, file names and notes come from results files: they are
	// escaped for the format (table.Line), a value shown on one line
	// entirely, a footnote, which may quote a failure's stderr lines,
	// line by line (table.Lines).
	f := table.Text
	if md {
		f = table.Markdown
		baseline, current = relPath(baseline), relPath(current)
	}
	esc := func(s string) string { return table.Line(f, s) }
	escLines := func(s string) string { return table.Lines(f, s) }
	heading := fmt.Sprintf("Gate on %s at T=%d: %s against baseline %s (lower is better; margin %s, alpha %g)",
		o.Metric, r.Horizon, esc(current), esc(baseline), numfmt.Level(o.Margin), o.Alpha)
	if md {
		fmt.Fprintf(w, "\n**%s**\n\n", heading)
		if r.Summary != "" {
			fmt.Fprintf(w, "**Verdict:** %s\n\n", escLines(r.Summary))
		}
	} else {
		fmt.Fprintf(w, "\n%s\n", heading)
	}
	t := table.Table{
		Header: []string{"policy", "baseline", "current", "delta", fmt.Sprintf("%s CI of delta", numfmt.Level(1-o.Alpha)), "p", "verdict"},
		Right:  []bool{false, true, true, true, true, true, false},
	}
	for i, row := range r.Rows {
		cells := []string{row.Label, pm(row.Base), pm(row.Cur), "-", "-", "-", string(row.Verdict)}
		if !math.IsNaN(row.Lo) {
			cells[3] = rel(row.Estimate.Delta, row.Base.Mean)
			cells[4] = "[" + rel(row.Lo, row.Base.Mean) + ", " + rel(row.Hi, row.Base.Mean) + "]"
			cells[5] = pval(row.P())
		}
		t.Append(cells...)
		if row.Verdict == Worse {
			t.Bold(i, 6)
		}
	}
	if err := t.Render(w, f); err != nil {
		return err
	}
	if md {
		fmt.Fprintln(w)
	}
	for _, line := range footnotes(r) {
		if md {
			fmt.Fprintf(w, "- %s\n", escLines(line))
		} else {
			fmt.Fprintln(w, escLines(line))
		}
	}
	if md {
		// What a reviewer asks first: what differs between the two runs.
		if len(r.Changes) == 0 {
			fmt.Fprintf(w, "\nWhat changed: nothing that the files record (bench version, plugins, plugin versions, SHA-256s and parameters are the same).\n")
		} else {
			fmt.Fprintf(w, "\nWhat changed (baseline -> current):\n\n")
			for _, c := range r.Changes {
				fmt.Fprintf(w, "- %s\n", esc(c))
			}
		}
	}
	return nil
}

// relPath names a file relative to the working directory, as a
// pull-request comment should (an absolute path names the CI machine's
// temporary directories); a file outside the working directory by its
// base name. A name that is not absolute is kept.
func relPath(name string) string {
	if !filepath.IsAbs(name) {
		return name
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, name); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return filepath.Base(name)
}

// jsonReport is WriteJSON's document. Numbers that do not apply to a row
// (a policy that was not compared) are omitted: JSON holds no NaN.
type jsonReport struct {
	Baseline    string       `json:"baseline"`
	Current     string       `json:"current"`
	Metric      string       `json:"metric"`
	Horizon     int          `json:"horizon"`
	Margin      float64      `json:"margin"` // relative to each baseline mean
	Alpha       float64      `json:"alpha"`
	Paired      bool         `json:"paired"`
	Pairing     string       `json:"pairing"`
	Differences []string     `json:"differences,omitempty"`
	Comparisons int          `json:"comparisons"`
	Looks       []int        `json:"looks,omitempty"` // sequential gate: cumulative replications at each look
	Rows        []jsonRow    `json:"rows"`
	Warnings    []string     `json:"warnings,omitempty"`
	Changes     []string     `json:"changes,omitempty"` // what differs besides results: bench version, plugin versions, SHA-256s, params
	Sandbox     *jsonSandbox `json:"sandbox,omitempty"` // as each file records it: "... (as recorded, unverified)" for a file read back
	Regressions []string     `json:"regressions"`       // labels whose verdict is worse
	Failures    []string     `json:"failures"`          // labels FAILED or MISSING
}

type jsonSandbox struct {
	Baseline string `json:"baseline,omitempty"`
	Current  string `json:"current,omitempty"`
}

type jsonRow struct {
	Label     string       `json:"label"`
	Verdict   Verdict      `json:"verdict"`
	Base      *jsonSummary `json:"baseline,omitempty"`
	Cur       *jsonSummary `json:"current,omitempty"`
	Delta     *float64     `json:"delta,omitempty"` // current - baseline mean, in the metric's units
	DeltaSE   *float64     `json:"delta_se,omitempty"`
	Lo        *float64     `json:"ci_lo,omitempty"`
	Hi        *float64     `json:"ci_hi,omitempty"`
	MarginAbs *float64     `json:"margin_abs,omitempty"` // the margin in the metric's units
	P         *float64     `json:"p,omitempty"`          // as the table's p column
	PWorse    *float64     `json:"p_worse,omitempty"`
	PBetter   *float64     `json:"p_better,omitempty"`
	N         int          `json:"n,omitempty"`
	Look      int          `json:"look,omitempty"` // sequential gate: the look that decided
	Note      string       `json:"note,omitempty"`
}

type jsonSummary struct {
	Mean float64  `json:"mean"`
	SE   *float64 `json:"se,omitempty"`
	N    int      `json:"n"`
}

func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func summary(s Summary) *jsonSummary {
	if s.N == 0 {
		return nil
	}
	return &jsonSummary{Mean: s.Mean, SE: num(s.SE), N: s.N}
}

// WriteJSON prints r as one indented JSON object: the settings, the test,
// one row per policy (label, verdict, baseline and current mean, SE and n,
// delta with its CI, the margin and the Holm-adjusted p-values) and the
// labels that regressed, failed or are missing.
func WriteJSON(w io.Writer, r *Report, baseline, current string) error {
	o := r.Options
	doc := jsonReport{Baseline: baseline, Current: current, Metric: o.Metric, Horizon: r.Horizon, Margin: o.Margin, Alpha: o.Alpha,
		Paired: r.Paired, Pairing: r.Pairing, Differences: r.Differences, Comparisons: r.Comparisons, Looks: r.Looks, Warnings: r.Warnings, Changes: r.Changes,
		Rows: []jsonRow{}, Regressions: []string{}, Failures: []string{}}
	if r.Sandbox.Baseline != "" || r.Sandbox.Current != "" {
		doc.Sandbox = &jsonSandbox{Baseline: r.Sandbox.Baseline, Current: r.Sandbox.Current}
	}
	for _, row := range r.Rows {
		jr := jsonRow{Label: row.Label, Verdict: row.Verdict, Base: summary(row.Base), Cur: summary(row.Cur), Note: row.Note, Look: row.Look}
		if !math.IsNaN(row.Lo) {
			jr.Delta, jr.DeltaSE, jr.N = num(row.Estimate.Delta), num(row.Estimate.SE), row.Estimate.N
			jr.Lo, jr.Hi, jr.MarginAbs = num(row.Lo), num(row.Hi), num(row.Margin)
			jr.P, jr.PWorse, jr.PBetter = num(row.P()), num(row.PWorse), num(row.PBetter)
		}
		doc.Rows = append(doc.Rows, jr)
	}
	for _, row := range r.Regressions() {
		doc.Regressions = append(doc.Regressions, row.Label)
	}
	for _, row := range r.Failures() {
		doc.Failures = append(doc.Failures, row.Label)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // labels as they are, not \u003c
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
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
	if r.Looks != nil {
		n = append(n, fmt.Sprintf("test: SEQUENTIAL paired t-test (tail-guarded SE, docs/sequential-gate.md) on per-replication differences, %d looks at n=%s (%s)", len(r.Looks), joinInts(r.Looks), r.Pairing),
			fmt.Sprintf("sequential: O'Brien-Fleming-type Lan-DeMets spending of alpha over the looks, Bonferroni over %d comparison(s); p: nominal, at the look that decided; CI: the repeated %s CI at that look", r.Comparisons, numfmt.Level(1-o.Alpha)))
		for _, row := range r.Rows {
			if row.Look > 0 {
				n = append(n, fmt.Sprintf("%s: %s at look %d of %d, %d replications", row.Label, row.Verdict, row.Look, len(r.Looks), row.Estimate.N))
			}
		}
	} else if r.Paired {
		n = append(n, fmt.Sprintf("test: PAIRED t-test (tail-guarded SE, docs/sequential-gate.md) on per-replication differences%s (%s)", sizes, r.Pairing))
	} else {
		n = append(n, fmt.Sprintf("test: UNPAIRED Welch t-test%s, because %s; pairing needs the same scenario, seed and replications", sizes, r.Pairing))
	}
	if len(r.Differences) > 0 {
		n = append(n, "compared anyway (--force) although the experiments differ: "+strings.Join(r.Differences, "; "))
	}
	if r.Looks == nil {
		n = append(n, fmt.Sprintf("delta: current - baseline mean, in %% of the baseline mean; CI: two-sided %s per policy; p: one-sided, in the direction of delta, beyond the margin, Holm-adjusted over %d comparison(s)", numfmt.Level(1-o.Alpha), r.Comparisons))
	}
	n = append(n,
		fmt.Sprintf("verdict: worse/better = significant (p < %g) beyond ±%s; same = CI within ±%s; inconclusive = neither", o.Alpha, numfmt.Level(o.Margin), numfmt.Level(o.Margin)))
	if sb, sc := r.Sandbox.Baseline, r.Sandbox.Current; sb != "" || sc != "" {
		n = append(n, fmt.Sprintf("sandbox: baseline %s; current %s", orNone(sb), orNone(sc)))
	}
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
	if s.N == 0 {
		return "-"
	}
	return numfmt.PM(s.Mean, s.SE) // a NaN SE (one replication) shows the mean alone
}

// rel writes x in % of the baseline mean, or as is when that mean is 0.
func rel(x, base float64) string {
	if base == 0 {
		return numfmt.Signed(x)
	}
	return numfmt.Percent(x/math.Abs(base), 1, true)
}

func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	}
	return numfmt.P(p)
}

func joinInts(x []int) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ",")
}
