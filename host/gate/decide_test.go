package gate

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// TestDecide: the exit rules of a gate call, their precedence (3, then
// 1, then 4; --require-same turns 4 into 1), the reasons naming every
// policy concerned and the verdict sentence.
func TestDecide(t *testing.T) {
	const n = 40
	base := baseValues(n)
	same := plus(base, exact(n, 0, 1))
	worse := plus(base, exact(n, 20, 1))
	better := plus(base, exact(n, -20, 1))
	unsure := plus(base, exact(n, 4, 30)) // CI wider than the margin, no test significant
	failed := &results.Policy{Label: "F", Status: results.StatusFailed, Error: "crashed"}
	for _, tc := range []struct {
		name    string
		cur     []*results.Policy
		rules   Rules
		code    Code
		reasons []string // prefixes, in order
		summary string   // prefix
	}{
		{"pass", []*results.Policy{policy("A", same), policy("B", better), policy("F", same)}, Rules{},
			Pass, nil, "pass. No policy regressed (2 same, 1 better)."},
		{"inconclusive passes", []*results.Policy{policy("A", unsure), policy("B", same), policy("F", same)}, Rules{},
			Pass, nil, "pass. No policy regressed (1 inconclusive, 2 same)."},
		{"regression", []*results.Policy{policy("A", worse), policy("B", same), policy("F", same)}, Rules{},
			Regression, []string{`regression: "A" regret is +20.0% worse than the baseline (margin 5%, Holm-adjusted p=`},
			`fail (exit 1). regression: "A" regret is +20.0% worse`},
		{"failure before regression", []*results.Policy{policy("A", worse), failed}, Rules{},
			Failure, []string{`policy "B" is missing from CUR`, `policy "F" failed in CUR: crashed`, `regression: "A"`},
			`fail (exit 3). policy "B" is missing from CUR; policy "F" failed in CUR: crashed; regression: "A"`},
		{"require conclusive", []*results.Policy{policy("A", unsure), policy("B", same), policy("F", same)}, Rules{RequireConclusive: true},
			InconclusiveCode, []string{`inconclusive (--require-conclusive): "A"; more replications narrow the CI`}, "fail (exit 4). inconclusive"},
		{"regression before inconclusive", []*results.Policy{policy("A", unsure), policy("B", worse), policy("F", same)}, Rules{RequireConclusive: true},
			Regression, []string{`regression: "B"`, `inconclusive (--require-conclusive): "A"`}, "fail (exit 1)."},
		{"require same", []*results.Policy{policy("A", same), policy("B", better), policy("F", same), policy("N", same)}, Rules{RequireSame: true},
			Regression, []string{`changed (--require-same): "B" is better, "N" is new; if the change is intended, regenerate the baseline`}, "fail (exit 1). changed"},
		{"require same over inconclusive", []*results.Policy{policy("A", unsure), policy("B", same), policy("F", same)}, Rules{RequireConclusive: true, RequireSame: true},
			Regression, []string{"inconclusive (--require-conclusive)", `changed (--require-same): "A" is inconclusive;`}, "fail (exit 1)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Compare(file(1, n, policy("A", base), policy("B", base), policy("F", base)), file(1, n, tc.cur...), DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			d := Decide(rep, "CUR", tc.rules)
			if d.Code != tc.code {
				t.Errorf("code %d, want %d (reasons %q)", d.Code, tc.code, d.Reasons)
			}
			if len(d.Reasons) != len(tc.reasons) {
				t.Fatalf("reasons %q, want %d starting with %q", d.Reasons, len(tc.reasons), tc.reasons)
			}
			for i, r := range d.Reasons {
				if !strings.HasPrefix(r, tc.reasons[i]) {
					t.Errorf("reason %d %q, want it to start with %q", i, r, tc.reasons[i])
				}
			}
			if !strings.HasPrefix(rep.Summary, tc.summary) {
				t.Errorf("summary %q, want it to start with %q", rep.Summary, tc.summary)
			}
			err = d.Err()
			if (err == nil) != (tc.code == Pass) {
				t.Fatalf("Err() = %v with code %d", err, d.Code)
			}
			if err != nil && err.Error() != "gate: "+strings.Join(d.Reasons, "; ") {
				t.Errorf("Err() = %q, want gate: and the reasons", err)
			}
		})
	}
}

// TestDecideZeroBaselineMean: a regression from a baseline mean of 0 is
// stated in % of 1, not as an infinite percentage.
func TestDecideZeroBaselineMean(t *testing.T) {
	const n = 40
	rep, err := Compare(file(1, n, policy("A", make([]float64, n))), file(1, n, policy("A", exact(n, 2, 0.1))), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	d := Decide(rep, "CUR", Rules{})
	if d.Code != Regression || len(d.Reasons) != 1 || !strings.Contains(d.Reasons[0], "is +200.0% worse") {
		t.Errorf("decision %+v, want a regression of +200.0%%", d)
	}
}

// TestFiles: Files writes the report in the format asked, with the
// verdict sentence in Markdown, and names the files in its input errors.
func TestFiles(t *testing.T) {
	const n = 40
	base := file(1, n, policy("A", baseValues(n)))
	var b bytes.Buffer
	d, err := Files(&b, base, file(1, n, policy("A", baseValues(n))), "b.json", "c.json", DefaultOptions, Rules{}, "markdown")
	if err != nil || d.Code != Pass {
		t.Fatalf("decision %+v, err %v", d, err)
	}
	if !strings.Contains(b.String(), "pass. No policy regressed (1 same).") {
		t.Errorf("markdown lacks the verdict sentence:\n%s", b.String())
	}
	other := file(1, n, policy("A", baseValues(n)))
	other.Scenario.Arms = 3
	for _, tc := range []struct {
		name      string
		base, cur *results.File
		format    string
		want      string
	}{
		{"empty baseline", file(1, n), base, "table", "gate: baseline b.json: the baseline has no policy to compare with: it holds no policy"},
		{"different experiments", base, other, "table", "gate c.json against b.json: baseline and current are different experiments: "},
		{"bad format", base, base, "xml", `unknown format "xml"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Files(&bytes.Buffer{}, tc.base, tc.cur, "b.json", "c.json", DefaultOptions, Rules{}, tc.format)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err %v, want it to start with %q", err, tc.want)
			}
		})
	}
}

// TestForRun: a run's baseline must be the same experiment unless
// forced, keeps only the selected policies, and must hold one to compare.
func TestForRun(t *testing.T) {
	const n = 40
	failed := &results.Policy{Label: "F", Status: results.StatusFailed, Error: "crashed"}
	mk := func() *results.File { return file(1, n, policy("A", baseValues(n)), failed) }
	rec := mk().Scenario
	other := rec
	other.Horizon = 2000

	if err := ForRun(mk(), rec, nil, DefaultOptions); err != nil {
		t.Errorf("same experiment: %v", err)
	}
	var inc *IncompatibleError
	if err := ForRun(mk(), other, nil, DefaultOptions); !errors.As(err, &inc) {
		t.Errorf("different experiment: err %v, want an *IncompatibleError", err)
	}
	forced := DefaultOptions
	forced.Force = true
	if err := ForRun(mk(), other, nil, forced); err != nil {
		t.Errorf("different experiment, forced: %v", err)
	}
	b := mk()
	if err := ForRun(b, rec, []string{"A"}, DefaultOptions); err != nil || len(b.Policies) != 1 || b.Policies[0].Label != "A" {
		t.Errorf("only A: err %v, policies %d, want A alone", err, len(b.Policies))
	}
	if err := ForRun(mk(), rec, []string{"F"}, DefaultOptions); !errors.Is(err, ErrEmptyBaseline) {
		t.Errorf("only the failed F: err %v, want ErrEmptyBaseline", err)
	}
}

// TestRunFormat: a run's verdict follows --gate-format, else its
// --format when that is markdown, else the table.
func TestRunFormat(t *testing.T) {
	for _, tc := range []struct{ format, run, want string }{
		{"", "table", ""},
		{"", " Markdown ", "markdown"},
		{"", "csv", ""},
		{"json", "markdown", "json"},
		{"table", "markdown", "table"},
	} {
		if got := RunFormat(tc.format, tc.run); got != tc.want {
			t.Errorf("RunFormat(%q, %q) = %q, want %q", tc.format, tc.run, got, tc.want)
		}
	}
}

// TestPaths: Paths reads the two files and gates them, naming them by
// their paths; a file that cannot be read is named baseline or current.
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	path := "../report/testdata/small.json" // a results file of bench's, with a failed policy
	var b bytes.Buffer
	if d, err := Paths(&b, path, path, DefaultOptions, Rules{}, "table"); err != nil || d.Code != Failure || !strings.Contains(b.String(), "small.json") {
		t.Errorf("decision %+v, err %v, output:\n%s", d, err, b.String())
	}
	for _, tc := range []struct{ base, cur, want string }{
		{dir + "/none.json", path, "baseline: "},
		{path, dir + "/none.json", "current: "},
	} {
		if _, err := Paths(&b, tc.base, tc.cur, DefaultOptions, Rules{}, "table"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Paths(%s, %s): err %v, want it to start with %q", tc.base, tc.cur, err, tc.want)
		}
	}
}
