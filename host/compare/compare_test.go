package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/internal/termsafe/termsafetest"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
)

func pol(label string, final ...float64) *results.Policy {
	return &results.Policy{Label: label, Plugin: strings.ToLower(label), Status: results.StatusOK, Final: map[string][]float64{"regret": final}}
}

func failed(label string) *results.Policy {
	return &results.Policy{Label: label, Plugin: "x", Status: results.StatusFailed, Error: "boom"}
}

func file(ps ...*results.Policy) *results.File {
	return &results.File{Schema: results.Schema, Scenario: results.Scenario{Name: "s", Horizon: 10, Runs: 3}, Shard: results.Shard{Count: 1}, Policies: ps}
}

func TestClosedForms(t *testing.T) {
	base := []float64{1, 5, 9, 3}
	shift := func(c float64) []float64 {
		out := make([]float64, len(base))
		for i, v := range base {
			out[i] = v + c
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		cur     []float64
		delta   float64
		outcome Outcome
		p       float64
	}{
		{"identical", shift(0), 0, Tie, 1},
		{"worse by a constant", shift(2.5), 2.5, Loss, 0},
		{"better by a constant", shift(-0.5), -0.5, Win, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := file(pol("A", base...), pol("B", tc.cur...))
			s, err := Compute(f, Spec{Policies: []string{"B"}, Baselines: []string{"A"}}, DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			d := s.Policies[0].Diffs[0]
			if d.Delta != tc.delta || d.Lo != tc.delta || d.Hi != tc.delta || d.DeltaSE != 0 {
				t.Errorf("delta %v CI [%v, %v] SE %v, want exactly %v, [%v, %v], 0", d.Delta, d.Lo, d.Hi, d.DeltaSE, tc.delta, tc.delta, tc.delta)
			}
			if d.Outcome != tc.outcome || d.P != tc.p || d.N != 4 || s.Comparisons != 1 {
				t.Errorf("outcome %s p %v n %d comparisons %d, want %s, %v, 4, 1", d.Outcome, d.P, d.N, s.Comparisons, tc.outcome, tc.p)
			}
		})
	}
}

// TestSameAsGate: the comparison's numbers are gate.Test's on the same
// family, with margin 0 (the statistics are shared, not copied).
func TestSameAsGate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	draw := func(shift float64) []float64 {
		x := make([]float64, 50)
		for i := range x {
			x[i] = 10 + shift + r.NormFloat64()
		}
		return x
	}
	// Shifts of 2 sd: the paired test's tail guard raises the SE of these
	// symmetric differences by about sqrt(2), and a win or loss must
	// still clear Holm's adjustment over 5 comparisons.
	a, b, c, d := draw(0), draw(0.1), draw(2), draw(-2)
	f := file(pol("A", a...), pol("B", b...), pol("C", c...), pol("D", d...))
	s, err := Compute(f, Spec{Policies: []string{"C", "D"}, Baselines: []string{"A", "B"}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	// The family, in Compute's order: C-D, C-A, C-B, then D-A, D-B (D-C
	// is C-D seen from D).
	fam := gate.Test([]gate.Pair{{Base: d, Cur: c}, {Base: a, Cur: c}, {Base: b, Cur: c}, {Base: a, Cur: d}, {Base: b, Cur: d}}, true, gate.Options{Alpha: 0.01})
	rows := map[[2]string]gate.Row{{"C", "D"}: fam.Rows[0], {"C", "A"}: fam.Rows[1], {"C", "B"}: fam.Rows[2], {"D", "A"}: fam.Rows[3], {"D", "B"}: fam.Rows[4]}
	for _, p := range s.Policies {
		for _, df := range p.Diffs {
			row, direct := rows[[2]string{p.Label, df.Baseline}]
			if !direct {
				row = rows[[2]string{df.Baseline, p.Label}]
				row.Estimate.Delta, row.Lo, row.Hi, row.PBetter, row.PWorse = -row.Estimate.Delta, -row.Hi, -row.Lo, row.PWorse, row.PBetter
			}
			if df.Delta != row.Estimate.Delta || df.Lo != row.Lo || df.Hi != row.Hi || df.PBetter != row.PBetter || df.PWorse != row.PWorse {
				t.Errorf("%s vs %s: %+v differs from gate's %+v", p.Label, df.Baseline, df, row)
			}
		}
	}
	if s.Comparisons != 5 {
		t.Errorf("Holm family of %d, want 5", s.Comparisons)
	}
	if s.Policies[0].Diffs[1].Outcome != Loss || s.Policies[1].Diffs[1].Outcome != Win || s.Policies[1].Diffs[0].Outcome != Win {
		t.Errorf("C (+2) vs A: %s, D (-2) vs A: %s, D vs C: %s; want loss, win, win", s.Policies[0].Diffs[1].Outcome, s.Policies[1].Diffs[1].Outcome, s.Policies[1].Diffs[0].Outcome)
	}
}

func TestRanksAndFailures(t *testing.T) {
	f := file(pol("A", 3, 3), pol("B", 1, 1), failed("F"), pol("C", 3, 3), pol("N", 2, 2))
	s, err := Compute(f, Spec{Policies: []string{"N", "F"}, Baselines: []string{"A", "B", "C"}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if s.Ranked != 4 {
		t.Errorf("ranked %d, want 4 (F failed)", s.Ranked)
	}
	if got := s.Policies[0].Rank; got != 2 {
		t.Errorf("rank of N %v, want 2", got)
	}
	if s.Policies[1].Status != results.StatusFailed || s.Policies[1].Rank != 0 || s.Policies[1].Diffs[0].Outcome != None {
		t.Errorf("failed policy: %+v", s.Policies[1])
	}
	// A and C tie at 3: both rank 3.5.
	s2, _ := Compute(f, Spec{Policies: []string{"A"}, Baselines: []string{"C"}}, DefaultOptions)
	if s2.Policies[0].Rank != 3.5 {
		t.Errorf("shared rank %v, want 3.5", s2.Policies[0].Rank)
	}
	if _, err := Compute(f, Spec{Policies: []string{"Z"}, Baselines: []string{"A"}}, DefaultOptions); err == nil || !strings.Contains(err.Error(), `"Z"`) {
		t.Errorf("unknown label: %v", err)
	}
	if _, err := Compute(f, Spec{Policies: []string{"A"}, Baselines: []string{"A"}}, DefaultOptions); err == nil {
		t.Error("a policy as its own baseline was accepted")
	}
}

func TestSummarize(t *testing.T) {
	mk := func(name string, shift float64) *Scenario {
		f := file(pol("A", 1, 2, 3), pol("B", 1+shift, 2+shift, 3+shift))
		f.Scenario.Name = name
		s, err := Compute(f, Spec{Policies: []string{"B"}, Baselines: []string{"A"}}, DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sum := Summarize([]*Scenario{mk("x", -1), mk("y", 0), mk("z", 1), mk("w", -2)}, nil)
	if len(sum.Totals) != 1 {
		t.Fatalf("totals %+v", sum.Totals)
	}
	tot := sum.Totals[0]
	if tot.Label != "B" || tot.Wins != 2 || tot.Ties != 1 || tot.Losses != 1 || tot.Scenarios != 4 || tot.Ranked {
		t.Errorf("total %+v, want B with 2 wins, 1 tie, 1 loss, unranked (no analysis)", tot)
	}
	for _, format := range report.Formats() {
		var b bytes.Buffer
		if err := WriteSummary(&b, sum, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := b.String()
		switch format {
		case report.FormatJSON:
			var back Summary
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Totals[0] != tot {
				t.Errorf("json round trip: %v %+v", err, back.Totals)
			}
		case report.FormatCSV:
			rows, err := csv.NewReader(&b).ReadAll()
			if err != nil || len(rows) != 1+4+1 || rows[5][0] != "*" || rows[5][18] != "2" || rows[5][20] != "1" {
				t.Errorf("csv %v: %q", err, rows)
			}
		default:
			if !strings.Contains(out, "across 4 scenarios") || !strings.Contains(out, "loss") || !strings.Contains(out, "win") {
				t.Errorf("%s output lacks the totals or outcomes:\n%s", format, out)
			}
		}
	}
}

func TestAttachFromFile(t *testing.T) {
	f := comparable(file(pol("A", 1, 2, 3), pol("B", 2, 3, 5)))
	s, err := Attach(f, Spec{Policies: []string{"B"}, Baselines: []string{"A"}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := results.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// A stored number edited by hand is not trusted: recomputed.
	g.Comparison = bytes.Replace(g.Comparison, []byte(`"delta":`), []byte(`"delta":1000,"x":`), 1)
	back, err := FromFile(g)
	if err != nil {
		t.Fatal(err)
	}
	if back.Policies[0].Diffs[0].Delta != s.Policies[0].Diffs[0].Delta || math.Abs(back.Policies[0].Diffs[0].Delta-4.0/3) > 1e-12 {
		t.Errorf("recomputed delta %v, want %v", back.Policies[0].Diffs[0].Delta, 4.0/3)
	}
	if none, err := FromFile(file(pol("A", 1))); none != nil || err != nil {
		t.Errorf("no comparison: %v %v", none, err)
	}
	// A key that matches a field only when case is ignored is refused:
	// "Metric" after "metric" chose the metric compared.
	g.Comparison = bytes.Replace(g.Comparison, []byte(`"metric":`), []byte(`"Metric": "underestimation", "metric":`), 1)
	if _, err := FromFile(g); err == nil || !strings.Contains(err.Error(), `results comparison: key "Metric" differs from the field "metric" only in case`) {
		t.Errorf("a Metric beside metric: %v", err)
	}
}

// TestJSONPlainText: the comparison section in a results file and the
// json rendering write labels with < > & as they are, not \u003c..., and
// read back to the same labels.
func TestJSONPlainText(t *testing.T) {
	const added, base = `<b>A&B</b>`, `]]>"x'`
	f := file(pol(base, 1, 2, 3), pol(added, 2, 3, 5))
	for _, p := range f.Policies {
		p.Checkpoints = []int{10}
		p.Params = map[string]any{}
		for _, m := range []string{"regret", "underestimation", "regret_under", "regret_not_under"} {
			s, _ := p.Metric(m)
			*s = results.Series{Mean: []float64{1}, SE: []float64{0}}
			p.Final[m] = p.Final["regret"]
		}
	}
	s, err := Attach(f, Spec{Policies: []string{added}, Baselines: []string{base}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var file, sum bytes.Buffer
	if err := f.Encode(&file); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(&sum, Summarize([]*Scenario{s, s}, nil), report.FormatJSON); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"comparison member": f.Comparison, "results file": file.Bytes(), "json summary": sum.Bytes()} {
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if bytes.Contains(data, []byte(esc)) {
				t.Errorf("%s holds %s", name, esc)
			}
		}
		if !bytes.Contains(data, []byte(`"<b>A&B</b>"`)) {
			t.Errorf("%s lacks the label as it is", name)
		}
	}
	g, err := results.Decode(file.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromFile(g)
	if err != nil || back.Policies[0].Label != added || back.Policies[0].Diffs[0].Baseline != base {
		t.Errorf("read back: %v %+v", err, back)
	}
	var again Summary
	if err := json.Unmarshal(sum.Bytes(), &again); err != nil || again.Totals[0].Label != added {
		t.Errorf("json summary read back: %v %+v", err, again.Totals)
	}
}

// TestHostileStrings: labels and scenario names from results files that
// hold terminal escapes, a bidi override and a C1 control are escaped in
// the comparison's table and Markdown forms, scenario and totals alike,
// and kept raw in its CSV and JSON.
func TestHostileStrings(t *testing.T) {
	const hostile, shown = termsafetest.Hostile, termsafetest.Shown
	f := file(pol("A"+hostile, 1, 2, 3), pol("B"+hostile, 2, 3, 5), failed("F"+hostile))
	f.Scenario.Name = "s" + hostile
	s, err := Compute(f, Spec{Policies: []string{"B" + hostile, "F" + hostile}, Baselines: []string{"A" + hostile}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize([]*Scenario{s}, nil)
	md := func(s string) string { return strings.ReplaceAll(s, `\`, `\\`) } // Markdown escapes backslashes
	for _, tc := range []struct {
		format report.Format
		want   []string
	}{
		{report.FormatTable, []string{"Comparison in s" + shown, "| B" + shown, "| A" + shown, "F" + shown + " against A" + shown + ": not tested: F" + shown + " failed"}},
		{report.FormatMarkdown, []string{"Comparison in s" + md(shown), "| B" + md(shown), "| A" + md(shown)}},
	} {
		var b bytes.Buffer
		if err := Write(&b, s, tc.format); err != nil {
			t.Fatal(err)
		}
		if err := WriteSummary(&b, sum, tc.format); err != nil {
			t.Fatal(err)
		}
		termsafetest.Check(t, string(tc.format), b.String(), tc.want...)
	}
	var b bytes.Buffer
	if err := Write(&b, s, report.FormatCSV); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) < 2 || rows[1][0] != "s"+hostile || rows[1][1] != "B"+hostile {
		t.Errorf("csv %v: %q, want the raw name and label", err, rows)
	}
}

// TestFeedbackModes: a policy is compared and ranked only with policies
// under its feedback mode ({delay: 0} and {batch: 1} are immediate in all
// but name); the others are listed as left out, with their mode, in the
// data and under the table, and the table shows each policy's mode.
func TestFeedbackModes(t *testing.T) {
	withFeedback := func(p *results.Policy, mode string) *results.Policy { p.Feedback = mode; return p }
	f := file(
		pol("A", 5, 6, 7),
		withFeedback(pol("A d=0", 5, 6, 7), "delay 0"),
		withFeedback(pol("A d=100", 50, 60, 70), "delay 100"),
		withFeedback(pol("A batch=20", 40, 41, 42), "batch 20"),
		withFeedback(pol("A batch=1", 5, 6, 7), "batch 1"),
		pol("X", 1, 2, 3),
		withFeedback(pol("Y d=100", 40, 50, 60), "delay 100"),
	)
	spec := Spec{Policies: []string{"X", "Y d=100"}, Baselines: []string{"A", "A d=0", "A d=100", "A batch=20", "A batch=1"}}
	s, err := Compute(f, spec, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	baselines := func(p Policy) (compared, left []string) {
		for _, d := range p.Diffs {
			compared = append(compared, d.Baseline)
		}
		for _, l := range p.LeftOut {
			left = append(left, l.Baseline+"="+l.Feedback)
		}
		return
	}
	for _, c := range []struct {
		p              Policy
		compared, left string
		rank           float64
		ranked         int
	}{
		{s.Policies[0], "A,A d=0,A batch=1", "Y d=100=delay 100,A d=100=delay 100,A batch=20=batch 20", 1, 4},
		{s.Policies[1], "A d=100", "X=immediate,A=immediate,A d=0=delay 0,A batch=20=batch 20,A batch=1=batch 1", 1, 2},
	} {
		compared, left := baselines(c.p)
		if strings.Join(compared, ",") != c.compared || strings.Join(left, ",") != c.left {
			t.Errorf("%s: compared with %v, left out %v; want %s and %s", c.p.Label, compared, left, c.compared, c.left)
		}
		if c.p.Rank != c.rank || c.p.Ranked != c.ranked {
			t.Errorf("%s: rank %v/%d, want %v/%d", c.p.Label, c.p.Rank, c.p.Ranked, c.rank, c.ranked)
		}
		for _, d := range c.p.Diffs {
			if d.Outcome != Win {
				t.Errorf("%s against %s: %s, want a win", c.p.Label, d.Baseline, d.Outcome)
			}
		}
	}
	if s.Comparisons != 4 {
		t.Errorf("Holm family of %d comparisons, want the 4 tested", s.Comparisons)
	}
	for _, md := range []bool{false, true} {
		var b bytes.Buffer
		format := report.FormatTable
		if md {
			format = report.FormatMarkdown
		}
		if err := Write(&b, s, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"feedback", "immediate", "delay 100", "1/4", "1/2",
			"left out: X (feedback immediate) is not compared with Y d=100, A d=100 (feedback delay 100); A batch=20 (feedback batch 20)",
			"only policies under the same feedback mode are compared",
			"Holm-adjusted over the 4 comparisons of this table",
		} {
			if md {
				want = strings.ReplaceAll(want, "_", `\_`)
			}
			if !strings.Contains(out, want) {
				t.Errorf("markdown %v: no %q in\n%s", md, want, out)
			}
		}
	}

	// A file without feedback shows no feedback column.
	plain, err := Compute(file(pol("A", 5, 6, 7), pol("X", 1, 2, 3)), Spec{Policies: []string{"X"}, Baselines: []string{"A"}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, plain, report.FormatTable); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "feedback") || strings.Contains(b.String(), "left out") {
		t.Errorf("immediate feedback only, yet:\n%s", b.String())
	}
}

// TestSpecLeftOut: policies the caller leaves out are named under the
// table with the caller's reason, stay out of the Holm family, and
// survive the round trip through a results file.
func TestSpecLeftOut(t *testing.T) {
	f := file(pol("A", 5, 6, 7), pol("B", 4, 5, 6), pol("M=2", 3, 4, 5), pol("X", 1, 2, 3))
	spec := Spec{Policies: []string{"X"}, Baselines: []string{"M=2"}, LeftOut: []LeftOut{{Baseline: "A", Reason: "compared in two_arm"}, {Baseline: "B", Reason: "compared in two_arm"}}}
	s, err := Attach(f, spec, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	again, err := FromFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []*Scenario{s, again} {
		if got.Comparisons != 1 || len(got.Policies[0].Diffs) != 1 || len(got.Policies[0].LeftOut) != 2 {
			t.Errorf("%d comparisons, diffs %+v, left out %+v", got.Comparisons, got.Policies[0].Diffs, got.Policies[0].LeftOut)
		}
		if notes := LeftOutNotes(got); len(notes) != 1 || notes[0] != "left out: X is not compared with A, B (compared in two_arm)" {
			t.Errorf("notes %q", notes)
		}
	}
	spec.LeftOut = append(spec.LeftOut, LeftOut{Baseline: "M=2"})
	if _, err := Compute(f, spec, DefaultOptions); err == nil {
		t.Error("a baseline also left out was accepted")
	}
}

// TestAllPairs: with every policy under comparison, each of the k(k-1)/2
// pairs is tested once, all in one Holm family (the p-values are
// gate.Test's over exactly those pairs), and each policy's row holds its
// difference from every other: the test of the pair seen from its side
// (the difference negated, better and worse swapped).
func TestAllPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	labels := []string{"A", "B", "C", "D", "E"}
	vals := map[string][]float64{}
	var ps []*results.Policy
	for i, l := range labels {
		x := make([]float64, 40)
		for j := range x {
			x[j] = 10 + 0.4*float64(i) + r.NormFloat64()
		}
		vals[l] = x
		ps = append(ps, pol(l, x...))
	}
	s, err := Compute(file(ps...), Spec{Policies: labels}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	k := len(labels)
	if s.Comparisons != k*(k-1)/2 {
		t.Fatalf("Holm family of %d, want k(k-1)/2 = %d", s.Comparisons, k*(k-1)/2)
	}
	var pairs []gate.Pair
	idx := map[[2]string]int{}
	for i := range labels {
		for j := i + 1; j < k; j++ {
			idx[[2]string{labels[i], labels[j]}] = len(pairs)
			pairs = append(pairs, gate.Pair{Base: vals[labels[j]], Cur: vals[labels[i]]})
		}
	}
	fam := gate.Test(pairs, true, gate.Options{Alpha: DefaultOptions.Alpha})
	outcomes := 0
	for _, p := range s.Policies {
		if len(p.Diffs) != k-1 {
			t.Errorf("%s: %d differences, want one from each of the %d others", p.Label, len(p.Diffs), k-1)
		}
		for _, d := range p.Diffs {
			if !d.Tested() {
				t.Errorf("%s vs %s not tested", p.Label, d.Baseline)
				continue
			}
			outcomes++
			row, direct := fam.Rows[idx[[2]string{p.Label, d.Baseline}]], true
			if _, ok := idx[[2]string{p.Label, d.Baseline}]; !ok {
				row, direct = fam.Rows[idx[[2]string{d.Baseline, p.Label}]], false
			}
			delta, pb, pw := row.Estimate.Delta, row.PBetter, row.PWorse
			if !direct {
				delta, pb, pw = -delta, pw, pb
			}
			if d.Delta != delta || d.PBetter != pb || d.PWorse != pw {
				t.Errorf("%s vs %s: delta %v p %v/%v, want gate's over the %d pairs: %v %v/%v", p.Label, d.Baseline, d.Delta, d.PBetter, d.PWorse, len(pairs), delta, pb, pw)
			}
		}
	}
	if outcomes != k*(k-1) {
		t.Errorf("%d cells, want k(k-1) = %d", outcomes, k*(k-1))
	}
	// The matrix: W above L mirrored, the diagonal, no long list.
	m := NewMatrix(s)
	for i := range labels {
		for j := range labels {
			a, b := m.Symbol(i, j), m.Symbol(j, i)
			want := map[string]string{"W": "L", "L": "W", "T": "T", "·": "·"}[a]
			if b != want {
				t.Errorf("cell %d,%d = %q but %d,%d = %q", i, j, a, j, i, b)
			}
		}
	}
	var b bytes.Buffer
	if err := Write(&b, s, report.FormatTable); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n| "); n != k+1 {
		t.Errorf("%d table lines, want a header and one row per policy (%d):\n%s", n, k+1, b.String())
	}
	if !strings.Contains(b.String(), "Holm-adjusted over the 10 comparisons of this table (all pairs)") {
		t.Errorf("the table does not name its Holm family:\n%s", b.String())
	}
}

// TestIdenticalPolicies: a policy with the same executable digest,
// parameters and feedback as an earlier one of the same run is reported as
// identical to it, neither tested nor ranked twice; a differing parameter
// makes it a policy of its own.
func TestIdenticalPolicies(t *testing.T) {
	mk := func(label string, params map[string]any, final ...float64) *results.Policy {
		p := pol(label, final...)
		p.Plugin, p.PluginSHA256, p.Params = "remaxgrad", "abc", params
		return p
	}
	f := file(
		mk("ReMaxGrad M=2", map[string]any{"m": 2.0}, 1, 2, 3, 4),
		pol("TS", 3, 4, 5, 6),
		mk("remaxgrad", map[string]any{"m": 2.0}, 1, 2, 3, 4),
		mk("M=3", map[string]any{"m": 3.0}, 2, 3, 4, 5),
	)
	s, err := Compute(f, Spec{Policies: []string{"ReMaxGrad M=2", "TS", "remaxgrad", "M=3"}}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if s.Comparisons != 3 || s.Ranked != 3 {
		t.Errorf("%d comparisons among %d ranked, want 3 among 3 (remaxgrad once)", s.Comparisons, s.Ranked)
	}
	id := s.Policies[2]
	if id.IdenticalTo != "ReMaxGrad M=2" || id.Rank != s.Policies[0].Rank || s.Policies[3].IdenticalTo != "" {
		t.Errorf("identical: %+v; M=3: %+v", id, s.Policies[3])
	}
	for _, d := range id.Diffs {
		if d.Tested() {
			t.Errorf("remaxgrad tested against %s", d.Baseline)
		}
	}
	m := NewMatrix(s)
	if m.Symbol(2, 0) != "=" || m.Symbol(0, 2) != "=" || m.RankText(2) != "= 1/3" {
		t.Errorf("matrix cells %q %q, rank %q", m.Symbol(2, 0), m.Symbol(0, 2), m.RankText(2))
	}
	var b bytes.Buffer
	if err := Write(&b, s, report.FormatTable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "remaxgrad is identical to ReMaxGrad M=2 (the same executable, parameters, seed and feedback)") {
		t.Errorf("the table does not say remaxgrad is identical:\n%s", b.String())
	}
}

// TestSmallSampleWarning: a comparison on fewer than 30 replications
// warns as bench gate does, in the data and under the table; 30 do not.
func TestSmallSampleWarning(t *testing.T) {
	for _, n := range []int{29, 30} {
		a, c := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], c[i] = float64(i%7), float64(i%5)
		}
		s, err := Compute(file(pol("A", a...), pol("C", c...)), Spec{Policies: []string{"A", "C"}}, DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, s, report.FormatMarkdown); err != nil {
			t.Fatal(err)
		}
		warned := slices.Contains(s.Warnings, gate.SmallNWarning) && strings.Contains(b.String(), "warning: "+gate.SmallNWarning)
		if warned != (n < 30) {
			t.Errorf("n=%d: warned %v, want %v:\n%s", n, warned, n < 30, b.String())
		}
	}
}

// TestSummarizeSameRunOnce: a scenario that reuses another's run (as the
// paper's remaxgrad_two_arm reuses two_arm's) adds to the totals only its
// own policies and the pairs the other did not test; the rest counted
// twice would double a policy's wins.
func TestSummarizeSameRunOnce(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{11, 12, 13, 14, 15, 16}
	g := []float64{21, 22, 23, 24, 25, 26}
	mk := func(name string, ps ...*results.Policy) (*results.File, *Scenario) {
		f := file(ps...)
		f.Scenario.Name, f.Scenario.Runs = name, len(a)
		var labels []string
		for _, p := range ps {
			labels = append(labels, p.Label)
		}
		s, err := Compute(f, Spec{Policies: labels}, DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		return f, s
	}
	// base runs A and B; reuse is the same run with G added.
	fb, sb := mk("base", pol("A", a...), pol("B", b...))
	fr, sr := mk("reuse", pol("A", a...), pol("B", b...), pol("G", g...))
	ranks := ranktest.Across([]*results.File{fb, fr}, "regret", DefaultOptions.Alpha)
	if ranks.SameRun["reuse"] != "base" {
		t.Fatalf("SameRun = %v: reuse not seen as base's run", ranks.SameRun)
	}
	sum := Summarize([]*Scenario{sb, sr}, ranks)
	want := map[string]Total{
		"A": {Scenarios: 1, Wins: 2},            // beat B (base, not again in reuse) and G (reuse)
		"B": {Scenarios: 1, Wins: 1, Losses: 1}, // lost to A once; beat G (reuse); its run counted once
		"G": {Scenarios: 1, Losses: 2},          // tested in reuse only
	}
	for _, tot := range sum.Totals {
		w := want[tot.Label]
		if tot.Scenarios != w.Scenarios || tot.Wins != w.Wins || tot.Ties != w.Ties || tot.Losses != w.Losses {
			t.Errorf("%s: scenarios %d, W/T/L %d/%d/%d; want %d, %d/%d/%d", tot.Label, tot.Scenarios, tot.Wins, tot.Ties, tot.Losses, w.Scenarios, w.Wins, w.Ties, w.Losses)
		}
	}
	// Without the analysis, both tables count in full: B's loss to A
	// twice, its run twice.
	if tot := Summarize([]*Scenario{sb, sr}, nil).Totals[1]; tot.Label != "B" || tot.Scenarios != 2 || tot.Losses != 2 {
		t.Errorf("without ranks: %+v, want B counted in 2 scenarios with 2 losses", tot)
	}
}
