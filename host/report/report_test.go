package report_test

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/internal/latextest"
	"github.com/regretbench/regretbench/host/internal/termsafe/termsafetest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// small reads the fixture: three policies of a 200-round, 8-run scenario
// produced by bench (seconds and SHA-256 fixed by hand), one with
// diagnostics, plus one failed policy; one label holds a comma.
func small(t *testing.T) *results.File {
	t.Helper()
	f, err := results.ReadFile(filepath.Join("testdata", "small.json"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./host/report -update rewrites it):\n%s", name, lineDiff(string(want), string(got)))
	}
}

// lineDiff returns a minimal line diff of want and got: "-" lines only in
// want, "+" lines only in got, from a longest common subsequence.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var sb strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			sb.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			sb.WriteString("+ " + b[j] + "\n")
			j++
		default:
			sb.WriteString("- " + a[i] + "\n")
			i++
		}
	}
	return sb.String()
}

func TestGolden(t *testing.T) {
	f := small(t)
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"table.golden", func(b *bytes.Buffer) error { return report.Tables(b, f) }},
		{"markdown.golden", func(b *bytes.Buffer) error { return report.Markdown(b, f) }},
		{"csv.golden", func(b *bytes.Buffer) error { return report.CSV(b, f) }},
		{"table_at.golden", func(b *bytes.Buffer) error {
			return report.Write(b, f, report.Options{Format: report.FormatTable, At: []int{10, 100}})
		}},
		{"markdown_at.golden", func(b *bytes.Buffer) error {
			return report.Write(b, f, report.Options{Format: report.FormatMarkdown, At: []int{50}})
		}},
		{"latex.golden", func(b *bytes.Buffer) error { return report.Write(b, f, report.Options{Format: report.FormatLatex}) }},
		{"latex_at.golden", func(b *bytes.Buffer) error {
			return report.Write(b, f, report.Options{Format: report.FormatLatex, At: []int{10, 100}})
		}},
		{"latex_hostile.golden", func(b *bytes.Buffer) error {
			// Every LaTeX special in a label and the scenario's name,
			// and a feedback column.
			g := small(t)
			g.Scenario.Name = `small_% {1}`
			for i, label := range []string{`A&B_1 {x} 100% $5 #2`, `~^\end{tabular}`, "[2pt]--*", "line\nbreak|<>"} {
				g.Policies[i].Label = label
			}
			g.Policies[1].Feedback = "delay 10"
			return report.Write(b, g, report.Options{Format: report.FormatLatex})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
		})
	}
}

// TestCSVShape: the CSV parses with encoding/csv (as pandas.read_csv with
// no options would), has the long-form header, and holds exactly one row
// per ok policy, metric and checkpoint plus one per diagnostic checkpoint
// and the 7 of the final regret's distribution, each carrying the file's
// values.
func TestCSVShape(t *testing.T) {
	f := small(t)
	var b bytes.Buffer
	if err := report.CSV(&b, f); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv cannot read the output: %v", err)
	}
	if got := strings.Join(recs[0], ","); got != "scenario,policy,metric,t,mean,se" {
		t.Fatalf("header %q", got)
	}
	want := 0
	okPolicies := 0
	for _, p := range f.Policies {
		if p.Status == results.StatusFailed {
			continue
		}
		okPolicies++
		want += 4*len(p.Checkpoints) + 7 // and the final regret's distribution
		for _, d := range p.Diagnostics {
			want += len(d.Checkpoints)
		}
	}
	if okPolicies != 3 || want <= 3*4*6 {
		t.Fatalf("fixture changed: %d ok policies, %d rows expected; the test wants diagnostics in it", okPolicies, want)
	}
	if got := len(recs) - 1; got != want {
		t.Errorf("%d data rows, want %d (policies x metrics x checkpoints + diagnostics)", got, want)
	}
	// Every row's mean is the file's value at that checkpoint.
	seen := map[string]int{}
	for _, r := range recs[1:] {
		if len(r) != 6 || r[0] != "small" {
			t.Fatalf("row %q", r)
		}
		p := policy(t, f, r[1])
		tt, err := strconv.Atoi(r[3])
		if err != nil {
			t.Fatalf("row %q: t: %v", r, err)
		}
		mean, err := strconv.ParseFloat(r[4], 64)
		if err != nil {
			t.Fatalf("row %q: mean: %v", r, err)
		}
		var cps []int
		var means []float64
		if stat, ok := strings.CutPrefix(r[2], report.DistPrefix+"regret."); ok {
			q, _ := f.RegretQuantiles(p)
			v, ok := map[string]float64{"p25": q.P25, "median": q.Median, "p75": q.P75, "p95": q.P95, "p99": q.P99, "max": q.Max, "argmax": float64(q.Argmax)}[stat]
			if !ok || v != mean || tt != f.Scenario.Horizon || r[5] != "" {
				t.Errorf("row %q does not match the distribution %+v", r, q)
			}
			seen[r[1]]++
			continue
		}
		if name, ok := strings.CutPrefix(r[2], report.DiagPrefix); ok {
			d := p.Diagnostics[name]
			cps, means = d.Checkpoints, d.Mean
		} else {
			s, err := p.Metric(r[2])
			if err != nil {
				t.Fatalf("row %q: %v", r, err)
			}
			cps, means = p.Checkpoints, s.Mean
		}
		i := indexOf(cps, tt)
		if i < 0 || means[i] != mean {
			t.Errorf("row %q does not match the file", r)
		}
		seen[r[1]]++
	}
	if seen["KL-UCB, c=0"] == 0 {
		t.Error("the label with a comma did not survive quoting")
	}
	if seen["Broken"] != 0 {
		t.Error("a failed policy has rows")
	}
}

func policy(t *testing.T, f *results.File, label string) *results.Policy {
	t.Helper()
	for _, p := range f.Policies {
		if p.Label == label {
			return p
		}
	}
	t.Fatalf("no policy %q", label)
	return nil
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// TestAt: rounds that are checkpoints become columns (table) or the only
// rows (CSV); others are an error naming the checkpoints, and nothing is
// written; JSON refuses --at.
func TestAt(t *testing.T) {
	f := small(t)
	var b bytes.Buffer
	if err := report.Write(&b, f, report.Options{Format: report.FormatCSV, At: []int{200}}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		if r[3] != "200" {
			t.Errorf("--at 200 kept row %q", r)
		}
	}
	if len(recs) != 1+3*4+3*7+3 { // 3 policies x (4 metrics + 7 of the distribution) + 3 diagnostics of ReMaxGrad
		t.Errorf("%d rows at t=200", len(recs)-1)
	}

	for _, tc := range []struct {
		name   string
		format report.Format
		at     []int
		want   string
	}{
		{"not a checkpoint", report.FormatTable, []int{10, 20}, "round 20 is not a checkpoint (checkpoints: 1, 5, 10, 50, 100, 200)"},
		{"beyond the horizon", report.FormatCSV, []int{201}, "round 201 is not a checkpoint"},
		{"json", report.FormatJSON, []int{10}, "json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := report.Write(&b, f, report.Options{Format: tc.format, At: tc.at})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if b.Len() != 0 {
				t.Errorf("wrote %d bytes before failing", b.Len())
			}
		})
	}
}

func TestParse(t *testing.T) {
	if r, err := report.ParseRounds(" 1000, 5000,20000"); err != nil || len(r) != 3 || r[2] != 20000 {
		t.Errorf("ParseRounds = %v, %v", r, err)
	}
	for _, bad := range []string{"10,x", "0", "-5"} {
		if _, err := report.ParseRounds(bad); err == nil {
			t.Errorf("ParseRounds(%q) accepted", bad)
		}
	}
	if f, err := report.ParseFormat("Markdown"); err != nil || f != report.FormatMarkdown {
		t.Errorf("ParseFormat(Markdown) = %v, %v", f, err)
	}
	if _, err := report.ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) accepted")
	}
}

// TestJSON: the json format is the results file, readable back unchanged.
func TestJSON(t *testing.T) {
	f := small(t)
	var b bytes.Buffer
	if err := report.Write(&b, f, report.Options{Format: report.FormatJSON}); err != nil {
		t.Fatal(err)
	}
	g, err := results.Decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var b2 bytes.Buffer
	if err := g.Encode(&b2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Error("json output does not round-trip")
	}
}

// TestTitleSeed: the title shows an integer seed as it always has and a
// secret seed in its 0x form, in every format that has a title.
func TestTitleSeed(t *testing.T) {
	f := small(t)
	if got := report.Title(f); !strings.HasSuffix(got, ", seed 3") {
		t.Errorf("title %q, want it to end in the integer seed 3", got)
	}
	secret, err := seed.Parse("0x" + strings.Repeat("7e", 32))
	if err != nil {
		t.Fatal(err)
	}
	f.Scenario.Seed = secret
	want := ", seed 0x" + strings.Repeat("7e", 32)
	if got := report.Title(f); !strings.HasSuffix(got, want) {
		t.Errorf("title %q, want it to end in %q", got, want)
	}
	for _, format := range []report.Format{report.FormatTable, report.FormatMarkdown} {
		var b bytes.Buffer
		if err := report.Write(&b, f, report.Options{Format: format}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s report lacks %q:\n%s", format, want, b.String())
		}
	}
}

// TestTitleSandbox: the title says the sandbox the plugins ran under, one
// word when they share it, each policy's when they do not, and nothing
// for a file that recorded none; plainly when this process ran them
// (SetSandbox), "as recorded, unverified" when read from a file, which
// nothing proves.
func TestTitleSandbox(t *testing.T) {
	f := small(t)
	if got := report.Title(f); strings.Contains(got, "sandbox") {
		t.Errorf("title %q names a sandbox the file does not record", got)
	}
	if len(f.Policies) < 2 {
		t.Fatalf("the fixture has %d policies, want at least 2", len(f.Policies))
	}
	for _, p := range f.Policies {
		p.Sandbox = "strict" // as read from a file
	}
	if got := report.Title(f); !strings.HasSuffix(got, ", sandbox strict (as recorded, unverified)") {
		t.Errorf("title %q, want it to end in \", sandbox strict (as recorded, unverified)\"", got)
	}
	f.Policies[1].Sandbox = "off"
	want := fmt.Sprintf(", sandbox per policy: %s strict; %s off", f.Policies[0].Label, f.Policies[1].Label)
	if got := report.Title(f); !strings.Contains(got, want) || !strings.HasSuffix(got, " (as recorded, unverified)") {
		t.Errorf("title %q, want it to hold %q and end \"(as recorded, unverified)\"", got, want+"...")
	}
	for _, p := range f.Policies {
		p.SetSandbox("strict") // as a run sets it
	}
	if got := report.Title(f); !strings.HasSuffix(got, ", sandbox strict") {
		t.Errorf("title %q, want it to end in \", sandbox strict\"", got)
	}
	f.Policies[1].SetSandbox("off")
	if got := report.Title(f); !strings.Contains(got, want) || strings.Contains(got, "unverified") {
		t.Errorf("title %q, want it to hold %q, verified", got, want)
	}
	// A resumed run: one policy kept from the file, the others run now.
	kept := &results.Policy{Label: f.Policies[0].Label, Sandbox: "strict"}
	f.Policies[0] = kept
	want = fmt.Sprintf(", sandbox per policy: %s strict (as recorded, unverified); %s off", kept.Label, f.Policies[1].Label)
	if got := report.Title(f); !strings.Contains(got, want) {
		t.Errorf("title %q, want it to hold %q", got, want)
	}
}

// TestHostileStrings: a scenario name, labels and diagnostic names from a
// results file that hold terminal escapes, a bidi override and a C1
// control reach the terminal formats (table, markdown) escaped, while CSV
// and JSON, formats for programs, keep them raw and parse back to them.
// Before, the table's title line retitled and cleared the terminal.
func TestHostileStrings(t *testing.T) {
	const hostile, shown = termsafetest.Hostile, termsafetest.Shown
	f := small(t)
	f.Scenario.Name = "small" + hostile
	for i, p := range f.Policies {
		p.Label = fmt.Sprintf("P%d%s", i, hostile)
		diags := map[string]results.DiagSeries{}
		for name, d := range p.Diagnostics {
			diags[name+hostile] = d
		}
		p.Diagnostics = diags
	}
	md := func(s string) string { return strings.ReplaceAll(s, `\`, `\\`) } // Markdown escapes backslashes
	for _, tc := range []struct {
		format report.Format
		want   []string
	}{
		{report.FormatTable, []string{"small" + shown + ": K=", "| P0" + shown, "kkt_gap" + shown}},
		{report.FormatMarkdown, []string{"**small" + md(shown) + ": K=", "| P0" + md(shown), "kkt_gap" + md(shown)}},
	} {
		var b bytes.Buffer
		if err := report.Write(&b, f, report.Options{Format: tc.format, At: []int{50}}); err != nil {
			t.Fatal(err)
		}
		termsafetest.Check(t, string(tc.format), b.String(), tc.want...)
	}

	var b bytes.Buffer
	if err := report.CSV(&b, f); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v", err)
	}
	if r := recs[1]; r[0] != "small"+hostile || r[1] != "P0"+hostile {
		t.Errorf("csv: first row %q, want the raw scenario name and label", r)
	}
	b.Reset()
	if err := report.Write(&b, f, report.Options{Format: report.FormatJSON}); err != nil {
		t.Fatal(err)
	}
	back, err := results.Decode(b.Bytes())
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	if back.Scenario.Name != f.Scenario.Name || back.Policies[0].Label != f.Policies[0].Label {
		t.Errorf("json: name %q label %q, want the raw ones", back.Scenario.Name, back.Policies[0].Label)
	}
}

// TestSmallAndHugeValues: a nonzero standard error never reads "0.00" (the
// three_arm table once showed 0.40 ± 0.00), nor a nonzero share "0%", and
// huge values stay a few characters wide, in the text and Markdown tables
// alike.
func TestSmallAndHugeValues(t *testing.T) {
	f := small(t)
	n := len(f.Policies[0].Regret.Mean) - 1
	f.Policies[0].Regret.Mean[n], f.Policies[0].Regret.SE[n] = 0.3987, 0.0042
	f.Policies[1].Regret.Mean[n], f.Policies[1].Regret.SE[n] = 1.234567e300, 2.3e298
	f.Policies[0].RegretUnder.Mean[len(f.Policies[0].RegretUnder.Mean)-1] = 0.001 // 0.25% of the regret
	for _, format := range []report.Format{report.FormatTable, report.FormatMarkdown} {
		var b bytes.Buffer
		if err := report.Write(&b, f, report.Options{Format: format}); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		for _, want := range []string{"0.3987 ± 0.0042", "1.235e+300 ± 2.3e+298", "<1%"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: no %q in\n%s", format, want, s)
			}
		}
		for _, line := range strings.Split(s, "\n") {
			if len(line) > 200 {
				t.Errorf("%s: a line of %d characters", format, len(line))
			}
		}
	}
}

// TestFeedbackColumn: when a policy's feedback is delayed or batched, every
// table shows each policy's feedback mode in a column of its own, in text
// and Markdown; with immediate feedback only, there is no such column.
func TestFeedbackColumn(t *testing.T) {
	f := small(t)
	for _, table := range report.TableData(f, nil) {
		if slices.Contains(table.Header, "feedback") {
			t.Errorf("%s table has a feedback column under immediate feedback", table.Name)
		}
	}
	f.Policies[1].Feedback = "delay 100"
	tables := report.TableData(f, nil)
	rows := 0 // of the delayed policy
	for _, table := range tables {
		if len(table.Header) < 2 || table.Header[1] != "feedback" || len(table.Right) != len(table.Header) {
			t.Fatalf("%s table: header %q, want feedback second", table.Name, table.Header)
		}
		for _, row := range table.Rows {
			want := "immediate"
			if row[0] == f.Policies[1].Label {
				want = "delay 100"
				rows++
			}
			if len(row) != len(table.Header) || row[1] != want {
				t.Errorf("%s table: row %q, want feedback %q", table.Name, row, want)
			}
		}
	}
	for _, format := range []report.Format{report.FormatTable, report.FormatMarkdown} {
		var b bytes.Buffer
		if err := report.Write(&b, f, report.Options{Format: format}); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), "delay 100"); n != rows || rows < 2 {
			t.Errorf("%s: delay 100 shown %d times, want once per row of the policy (%d)\n%s", format, n, rows, b.String())
		}
	}
}

// TestTitleReplications: a run of chosen replications (bench run
// --replication I) says which, out of how many runs; a full run and a
// shard say as before.
func TestTitleReplications(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shard results.Shard
		want  string
	}{
		{"full run", results.Shard{Index: 0, Count: 1}, "small: K=3, T=200, 8 runs, seed 3"},
		{"one replication", results.Shard{Index: 0, Count: 1, Replications: []uint64{5}}, "small: K=3, T=200, replication 5 of 8 runs, seed 3"},
		{"two", results.Shard{Index: 0, Count: 1, Replications: []uint64{5, 2}}, "small: K=3, T=200, replications 5, 2 of 8 runs, seed 3"},
		{"a shard", results.Shard{Index: 1, Count: 2, Replications: []uint64{4, 5, 6, 7}}, ", shard 1/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := small(t)
			f.Shard = tc.shard
			if got := report.Title(f); !strings.HasPrefix(got, tc.want) && !strings.HasSuffix(got, tc.want) {
				t.Errorf("title %q, want %q in it", got, tc.want)
			}
		})
	}
}

// TestOneReplicationHasNoSE checks that the values of a single
// replication (bench run --replication I) are written without a standard
// error, which is undefined over one value: never "± 0" in a table, an
// empty se in CSV, and captions that say so; over several replications
// the standard errors are there.
func TestOneReplicationHasNoSE(t *testing.T) {
	one := small(t)
	one.Shard = results.Shard{Index: 0, Count: 1, Replications: []uint64{5}}
	for _, p := range one.Policies {
		for name, xs := range p.Final {
			if len(xs) > 0 {
				p.Final[name] = xs[:1]
			}
		}
		for _, s := range []results.Series{p.Regret, p.Under, p.RegretUnder, p.RegretNot} {
			clear(s.SE) // what the engine records over one value
		}
		p.Distribution = nil
	}
	for _, tc := range []struct {
		name   string
		f      *results.File
		format report.Format
		want   bool // standard errors shown
	}{
		{"table, 8 runs", small(t), report.FormatTable, true},
		{"table, one", one, report.FormatTable, false},
		{"markdown, one", one, report.FormatMarkdown, false},
		{"latex, 8 runs", small(t), report.FormatLatex, true},
		{"latex, one", one, report.FormatLatex, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := report.Write(&b, tc.f, report.Options{Format: tc.format}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			pm := "±"
			if tc.format == report.FormatLatex {
				pm = " +- " // siunitx's uncertainty, in S columns
			}
			if tc.want && !strings.Contains(out, pm) {
				t.Errorf("standard errors missing:\n%s", out)
			}
			if !tc.want {
				for _, l := range strings.Split(out, "\n") {
					if strings.Contains(l, pm) {
						t.Errorf("a standard error over one replication: %q", l)
					}
				}
				if !strings.Contains(out, "one replication: its values, no standard error") {
					t.Errorf("no caption saying the values are one replication's:\n%s", out)
				}
			}
		})
	}
	var b bytes.Buffer
	if err := report.Write(&b, one, report.Options{Format: report.FormatCSV}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n")[1:] {
		if !strings.HasSuffix(l, ",") {
			t.Errorf("CSV row %q: want an empty se over one replication", l)
		}
	}
}

// TestLatexCompiles: the LaTeX tables of a run (the goldens: plain, with
// --at, with hostile labels) compile with pdflatex, one floating table
// each, and the PDF shows their numbers and labels.
func TestLatexCompiles(t *testing.T) {
	for _, name := range []string{"latex.golden", "latex_at.golden", "latex_hostile.golden"} {
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(body), `\begin{table}`); n != 1 || !strings.Contains(string(body), `\caption{`) || !strings.Contains(string(body), `\label{tab:regret-`) {
				t.Errorf("%d tables, want one with a caption and a label", n)
			}
			text := latextest.Compile(t, string(body))
			latextest.Contains(t, text, "Table 1", "6.36 ± 1.42", "8.60 ± 1.34", "36%")
			if name == "latex_hostile.golden" {
				latextest.Contains(t, text, "100% $5 #2", "delay 10")
			}
		})
	}
}

// TestAuditLine: the text and Markdown tables end with the audit's
// outcome in one line (how many replications of each policy were replayed
// alone, all matched or which policies failed, and why it was on by
// default), and an unaudited file has no such line.
func TestAuditLine(t *testing.T) {
	tests := []struct {
		name   string
		audit  func(f *results.File)
		want   string // the line's text; "" for no line
		absent string // text that must not appear
	}{
		{"unaudited", func(*results.File) {}, "", "audit:"},
		{"all matched", func(f *results.File) {
			for _, p := range f.Policies {
				if p.Status != results.StatusOK {
					continue // a failed policy is not audited
				}
				p.Audit = &results.Audit{Replications: []uint64{1, 4, 7}, OK: true, Default: "a sealed run (--seed random)"}
			}
		}, "audit: 3 replications of each policy replayed alone: all matched the run; on by default: a sealed run (--seed random)", "alone: FAILED"},
		{"one failed", func(f *results.File) {
			for _, p := range f.Policies {
				p.Audit = &results.Audit{Replications: []uint64{2, 5}, OK: p != f.Policies[0]}
			}
		}, "", "all matched"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := small(t)
			if len(f.Policies) < 2 || f.Policies[0].Status != results.StatusOK {
				t.Fatalf("fixture has %d policies, want at least 2, the first one OK", len(f.Policies))
			}
			tt.audit(f)
			want := tt.want
			if tt.name == "one failed" {
				want = "audit: 2 replications of each policy replayed alone: FAILED for " + f.Policies[0].Label + " "
			}
			var b bytes.Buffer
			if err := report.Write(&b, f, report.Options{Format: report.FormatTable}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if want != "" && !strings.Contains(out, want) {
				t.Errorf("table output lacks %q:\n%s", want, out)
			}
			if strings.Contains(out, tt.absent) {
				t.Errorf("table output has %q:\n%s", tt.absent, out)
			}
			if got := report.AuditOutcome(f); (got == "") != (want == "") {
				t.Errorf("AuditOutcome = %q, want a line: %v", got, want != "")
			}
		})
	}
}
