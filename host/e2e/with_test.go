package e2e_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/results"
)

// small keeps the --with runs quick: the shipped two-arm smoke scenario,
// cut down.
var small = []string{"--scenario", "quick", "--runs", "20", "--horizon", "200", "-q"}

// TestWithKeepsOtherRows: adding policies with --with changes no other row
// bit for bit (common random numbers), appends them after the scenario's
// own, and an added copy of a shipped policy ties with it exactly.
func TestWithKeepsOtherRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := runTo(t, dir, "plain.json", small...)
	with := runTo(t, dir, "with.json", append(slices(small), "--with", "ts:inflation=2@TS x2", "--with", "klucb:c=0.5", "--with", "ts@TS copy")...)
	a, b := readResults(t, plain), readResults(t, with)
	var got []string
	for _, p := range b.Policies {
		got = append(got, p.Label)
	}
	if want := []string{"TS", "KL-UCB", "TS x2", "klucb", "TS copy"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("policies %v, want %v", got, want)
	}
	for _, p := range a.Policies {
		q := b.Policy(p.Label)
		if !reflect.DeepEqual(p.Final, q.Final) || !reflect.DeepEqual(p.Regret, q.Regret) || !reflect.DeepEqual(p.Under, q.Under) ||
			!reflect.DeepEqual(p.RegretUnder, q.RegretUnder) || !reflect.DeepEqual(p.Diagnostics, q.Diagnostics) {
			t.Errorf("policy %q changed when policies were added", p.Label)
		}
	}
	if v := b.Policy("TS x2").Params["inflation"]; v != 2.0 {
		t.Errorf("TS x2 inflation %v (%T), want 2.0", v, v)
	}
	if len(a.Comparison) != 0 {
		t.Errorf("a run without --with has a comparison: %s", a.Comparison)
	}
	s, err := compare.FromFile(b)
	if err != nil || s == nil {
		t.Fatalf("comparison from the file: %v %v", s, err)
	}
	// Every pair of the five (issue 34), but TS copy, the same executable,
	// parameters, seed and feedback as TS: identical to it, not tested or
	// ranked twice.
	if !reflect.DeepEqual(s.Spec, compare.Spec{Policies: []string{"TS", "KL-UCB", "TS x2", "klucb", "TS copy"}}) {
		t.Errorf("spec %+v", s.Spec)
	}
	tsCopy := s.Policies[4]
	if tsCopy.IdenticalTo != "TS" || tsCopy.Rank != s.Policies[0].Rank || !reflect.DeepEqual(b.Policy("TS copy").Final, b.Policy("TS").Final) {
		t.Errorf("TS copy: %+v, want identical to TS, with its rank and its values", tsCopy)
	}
	for _, d := range tsCopy.Diffs {
		if d.Tested() {
			t.Errorf("TS copy tested against %s", d.Baseline)
		}
	}
	if s.Comparisons != 6 || s.Ranked != 4 {
		t.Errorf("comparisons %d ranked %d, want 6 (4 policies, all pairs) and 4", s.Comparisons, s.Ranked)
	}
}

func slices(s []string) []string { return append([]string(nil), s...) }

func TestWithBadSpecs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ spec, fault string }{
		{"nosuchplugin", `no bench-plugin-nosuchplugin`},
		{"ts:bogus=1", `unknown parameter "bogus"`},
		{"ts:inflation=abc", `parameter "inflation": want float`},
		{"klucb:c=true", `parameter "c"`},
		{"ts@TS", `label "TS" is already used`},
		{"ts:c", `no '=VALUE'`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, stderr, code := bench(t, append(slices(small), "--with", tc.spec)...)
			if code != 2 || !strings.Contains(stderr, `--with "`+tc.spec+`"`) || !strings.Contains(stderr, tc.fault) {
				t.Errorf("exit %d, want 2 naming the spec and %q:\n%s", code, tc.fault, stderr)
			}
		})
	}
	// Two --with with the same label: the second is refused.
	_, stderr, code := bench(t, append(slices(small), "--with", "ts:inflation=2@X", "--with", "klucb@X")...)
	if code != 2 || !strings.Contains(stderr, `--with "klucb@X": label "X" is already used`) {
		t.Errorf("duplicate label: exit %d\n%s", code, stderr)
	}
}

func TestComparisonFormats(t *testing.T) {
	t.Parallel()
	args := append(slices(small), "--with", "ts:inflation=3@TS x3")
	out, stderr, code := bench(t, append(args, "--format", "markdown")...)
	if code != 0 || !strings.Contains(out, "**Comparison in quick: regret at T=200") || !strings.Contains(out, "| TS x3 ") {
		t.Errorf("markdown: exit %d\n%s\n%s", code, out, stderr)
	}
	out, _, _ = bench(t, args...)
	if !strings.Contains(out, "Comparison in quick") || !strings.Contains(out, "Holm-adjusted over the 3 comparisons of this table (all pairs)") {
		t.Errorf("table:\n%s", out)
	}
	out, _, _ = bench(t, append(args, "--format", "csv")...)
	i := strings.Index(out, "\n\n")
	if i < 0 {
		t.Fatalf("csv: no empty line before the comparison:\n%s", out)
	}
	rows, err := csv.NewReader(strings.NewReader(out[i+2:])).ReadAll()
	if err != nil || len(rows) != 1+3*2 || !reflect.DeepEqual(rows[0], compare.CSVHeader) || rows[5][1] != "TS x3" || rows[5][6] != "TS" {
		t.Errorf("comparison csv %v: %q", err, rows)
	}
	out, _, _ = bench(t, append(args, "--format", "json")...)
	f, err := results.Decode([]byte(out))
	if err != nil {
		t.Fatalf("json is not a results file: %v", err)
	}
	s, err := compare.FromFile(f)
	if err != nil || s == nil || s.Policies[2].Label != "TS x3" || len(s.Policies[2].Diffs) != 2 {
		t.Errorf("json comparison: %v %+v", err, s)
	}
}

func TestCompareTo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	out, stderr, code := bench(t, append(slices(small), "--compare-to", "KL-UCB", "--out", path)...)
	if code != 0 || !strings.Contains(out, "Comparison in quick") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	s, err := compare.FromFile(readResults(t, path))
	if err != nil || !reflect.DeepEqual(s.Spec, compare.Spec{Policies: []string{"KL-UCB"}, Baselines: []string{"TS"}}) {
		t.Errorf("spec %v %+v", err, s)
	}
	_, stderr, code = bench(t, append(slices(small), "--compare-to", "Nope")...)
	if code != 2 || !strings.Contains(stderr, `--compare-to "Nope": no such policy`) {
		t.Errorf("unknown --compare-to: exit %d\n%s", code, stderr)
	}
}

// TestWithShardsMerge: shards of a run with --with merge into the
// comparison of the unsharded run (recomputed over all replications).
func TestWithShardsMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := append(slices(small), "--with", "ts:inflation=2@TS x2")
	whole := runTo(t, dir, "whole.json", args...)
	s0 := runTo(t, dir, "s0.json", append(slices(args), "--shard", "0/2")...)
	s1 := runTo(t, dir, "s1.json", append(slices(args), "--shard", "1/2")...)
	merged := filepath.Join(dir, "merged.json")
	if _, stderr, code := bench(t, "merge", s0, s1, "--out", merged); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	a, err := compare.FromFile(readResults(t, whole))
	if err != nil {
		t.Fatal(err)
	}
	m := readResults(t, merged)
	b, err := compare.FromFile(m)
	if err != nil || b == nil {
		t.Fatalf("merged comparison: %v %v", b, err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("merged comparison %+v, unsharded %+v", b, a)
	}
	var stored compare.Scenario
	if err := json.Unmarshal(m.Comparison, &stored); err != nil || !reflect.DeepEqual(&stored, a) {
		t.Errorf("the merged file stores %+v, want the unsharded comparison %+v (err %v)", stored, a, err)
	}
}

// TestWithEnvironment: BENCH_WITH holds one spec, commas included.
func TestWithEnvironment(t *testing.T) {
	t.Setenv("BENCH_WITH", "klucb:c=0.5,forced=1@K")
	_, stderr, code := bench(t, small...)
	if code != 2 || !strings.Contains(stderr, `--with "klucb:c=0.5,forced=1@K": plugin klucb: unknown parameter "forced"`) {
		t.Errorf("exit %d, want 2 for the whole spec from BENCH_WITH\n%s", code, stderr)
	}
}

// TestWithDelayedScenario: on a scenario whose policies declare delayed
// or batched feedback, a --with policy gets the scenario's own feedback
// (immediate here, as delayed_ten_arm declares none at the top) and is
// compared only with the rows under that feedback, {delay: 0} counting as
// immediate; feedback= gives it another mode, and it is then compared only
// with the rows under that one (an added copy of a shipped row ties with
// it exactly). The rows left out are named under the table, which shows
// each policy's feedback mode, in every format.
func TestWithDelayedScenario(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	out, stderr, code := bench(t, "--scenario", "delayed_ten_arm", "--runs", "6", "--horizon", "300", "-q", "--out", path,
		"--with", "ts@X", "--with", "ts:feedback=delay:100@X d=100", "--with", "ts:feedback=batch:20@X batch=20")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	f := readResults(t, path)
	for label, want := range map[string]string{"X": "", "X d=100": "delay 100", "X batch=20": "batch 20"} {
		if got := f.Policy(label).Feedback; got != want {
			t.Errorf("%s: feedback %q recorded, want %q", label, got, want)
		}
	}
	s, err := compare.FromFile(f)
	if err != nil || s == nil {
		t.Fatalf("comparison: %v", err)
	}
	for _, c := range []struct {
		label    string
		compared []string
		left     int
	}{
		{"X", []string{"ReMax d=0", "TS d=0", "KL-UCB d=0"}, 14},
		{"X d=100", []string{"ReMax d=100", "TS d=100", "KL-UCB d=100"}, 14},
		{"X batch=20", nil, 17},
	} {
		var p compare.Policy
		for _, q := range s.Policies {
			if q.Label == c.label {
				p = q
			}
		}
		var got []string
		for _, d := range p.Diffs {
			got = append(got, d.Baseline)
		}
		if !reflect.DeepEqual(got, c.compared) || len(p.LeftOut) != c.left {
			t.Errorf("%s: compared with %v, %d left out; want %v, %d", c.label, got, len(p.LeftOut), c.compared, c.left)
		}
		// X d=100 is TS d=100 (the same plugin, parameters, seed and
		// feedback): identical to it, ranked once among the 3 of its mode.
		if want := map[string]int{"X": 4, "X d=100": 3}[c.label]; c.compared != nil && p.Ranked != want {
			t.Errorf("%s: ranked among %d, want the %d under its feedback", c.label, p.Ranked, want)
		}
		if c.label == "X d=100" && p.IdenticalTo != "TS d=100" {
			t.Errorf("X d=100: identical to %q, want TS d=100", p.IdenticalTo)
		}
	}
	// All pairs within each feedback mode: immediate (the d=0 rows and X)
	// 6, delay 10, delay 100 (X d=100 once), geometric 100 and batch 100
	// 3 each.
	if s.Comparisons != 18 {
		t.Errorf("Holm family of %d comparisons, want the 18 tested", s.Comparisons)
	}
	for _, want := range []string{
		"|      feedback      |    regret    | rank  |",
		"X (feedback immediate) are not compared with ReMax d=10, TS d=10, KL-UCB d=10 (feedback delay 10);",
		"left out: X batch=20 (feedback batch 20) is not compared with ReMax d=0, TS d=0, KL-UCB d=0 (feedback delay 0);",
		"only policies under the same feedback mode are compared",
		"Holm-adjusted over the 18 comparisons of this table",
		"X d=100 is identical to TS d=100",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The regret table shows each row's feedback.
	if !regexp.MustCompile(`(?m)^\| TS d=100 +\| delay 100 +\|`).MatchString(out) || !regexp.MustCompile(`(?m)^\| X +\| immediate +\|`).MatchString(out) {
		t.Errorf("the regret table does not show each policy's feedback:\n%s", out)
	}
	page := filepath.Join(filepath.Dir(path), "r.html")
	if _, stderr, code := bench(t, "report", path, "--out", page); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<th scope="col">feedback</th>`, `<td>delay 100</td>`, "X (feedback immediate) are not compared with",
		"Holm-adjusted over the 18 comparisons of this table"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
}
