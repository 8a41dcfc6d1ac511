package ranktest_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
)

// experiment returns a results file named name whose policies have the
// given final regrets (a label mapped to nil is a failed policy).
func experiment(name string, finals map[string][]float64, order ...string) *results.File {
	f := &results.File{Scenario: results.Scenario{Name: name}}
	for _, l := range order {
		v, ok := finals[l]
		if !ok {
			continue
		}
		p := &results.Policy{Label: l, Status: results.StatusOK, Final: map[string][]float64{"regret": v}}
		if v == nil {
			p.Status, p.Final = results.StatusFailed, nil
		}
		f.Policies = append(f.Policies, p)
	}
	return f
}

// TestAcross: policies are ranked by mean final regret in each experiment;
// a policy missing from or failed in an experiment is left out; the
// analysis states N, k, alpha, q and CD; too few experiments or policies
// give a reason instead.
func TestAcross(t *testing.T) {
	order := []string{"A", "B", "C", "D"}
	files := []*results.File{
		experiment("e1", map[string][]float64{"A": {1, 3}, "B": {5, 5}, "C": {9, 9}, "D": {1}}, order...),
		experiment("e2", map[string][]float64{"A": {2, 2}, "B": {1, 1}, "C": {8, 10}}, order...),
		experiment("e3", map[string][]float64{"A": {0, 4}, "B": {2, 2}, "C": {2, 2}, "D": nil}, order...),
	}
	a := ranktest.Across(files, "regret", 0.05)
	if a.Reason != "" || a.Friedman == nil {
		t.Fatalf("no test: %s", a.Reason)
	}
	if !slices.Equal(a.Policies, []string{"A", "B", "C"}) || !slices.Equal(a.LeftOut, []string{"D"}) || !slices.Equal(a.Experiments, []string{"e1", "e2", "e3"}) {
		t.Errorf("policies %v, left out %v, experiments %v", a.Policies, a.LeftOut, a.Experiments)
	}
	// Means: e1 (2, 5, 9) ranks 1 2 3; e2 (2, 1, 9) ranks 2 1 3; e3
	// (2, 2, 2) ranks 2 2 2.
	want := []float64{5.0 / 3, 5.0 / 3, 8.0 / 3}
	for j := range want {
		if math.Abs(a.Friedman.MeanRanks[j]-want[j]) > 1e-12 {
			t.Errorf("mean ranks %v, want %v", a.Friedman.MeanRanks, want)
			break
		}
	}
	if a.Friedman.N != 3 || a.Friedman.K != 3 || math.Abs(a.Q-2.343) > 0.002 || math.Abs(a.CD-2.343*math.Sqrt(12.0/18)) > 0.002 {
		t.Errorf("N %d, k %d, q %v, CD %v", a.Friedman.N, a.Friedman.K, a.Q, a.CD)
	}
	for _, c := range []struct {
		files []*results.File
		want  string
	}{
		{files[:1], "1 experiment,"},
		{nil, "0 experiments"},
		{[]*results.File{files[0], experiment("e4", map[string][]float64{"A": {1}, "Z": {2}}, "A", "Z")}, "1 policy ran in every one of the 2 experiments"},
	} {
		a := ranktest.Across(c.files, "regret", 0.05)
		if a.Friedman != nil || !strings.Contains(a.Reason, c.want) {
			t.Errorf("reason %q, want one saying %q", a.Reason, c.want)
		}
	}
}

// TestNeededN: NeededN is the least N whose CD falls below d.
func TestNeededN(t *testing.T) {
	for _, c := range []struct {
		k     int
		alpha float64
		d     float64
	}{{20, 0.01, 17.5}, {5, 0.05, 1}, {3, 0.01, 2}, {10, 0.05, 0.3}} {
		n := ranktest.NeededN(c.k, c.alpha, c.d)
		if n < 1 || ranktest.CriticalDifference(c.k, n, c.alpha) >= c.d || (n > 1 && ranktest.CriticalDifference(c.k, n-1, c.alpha) < c.d) {
			t.Errorf("NeededN(%d, %g, %g) = %d: CD there %v, one fewer %v", c.k, c.alpha, c.d, n,
				ranktest.CriticalDifference(c.k, n, c.alpha), ranktest.CriticalDifference(c.k, n-1, c.alpha))
		}
	}
	if ranktest.NeededN(5, 0.05, 0) != 0 {
		t.Error("equal mean ranks: no N separates them")
	}
}

// TestCDLine: with too few experiments for the CD to separate any pair,
// the analysis says so in one line, with the experiments it would take;
// with enough it says nothing.
func TestCDLine(t *testing.T) {
	mk := func(n int) []*results.File {
		var files []*results.File
		for i := range n {
			files = append(files, experiment(strings.Repeat("e", i+1), map[string][]float64{
				"A": {1}, "B": {2 + float64(i)/1000}, "C": {3}, "D": {4}, "E": {5}}, "A", "B", "C", "D", "E"))
		}
		return files
	}
	a := ranktest.Across(mk(2), "regret", 0.05)
	line := a.CDLine()
	need := ranktest.NeededN(5, 0.05, 4)
	if a.Separates() || !strings.Contains(line, "no pair of the 5 policies is separated over N = 2 experiments") ||
		!strings.Contains(line, fmt.Sprintf("N = %d experiments to separate the best from the worst", need)) || strings.Contains(line, "\n") {
		t.Errorf("CD %v, spread %v: line %q (want N = %d)", a.CD, a.Spread(), line, need)
	}
	if a.CDNote() == "" {
		t.Error("no note for the figure")
	}
	b := ranktest.Across(mk(need), "regret", 0.05)
	if !b.Separates() || b.CDLine() != "" || b.CDNote() != "" {
		t.Errorf("N = %d separates the ends (CD %v, spread %v), yet %q", need, b.CD, b.Spread(), b.CDLine())
	}
}

// TestSameRunAndIdentical: a file that reuses an earlier one's run (same
// seed, horizon and runs, bit-identical finals for every shared policy)
// counts once; a policy identical to an earlier one (same digest,
// parameters, feedback) is not ranked, and said so.
func TestSameRunAndIdentical(t *testing.T) {
	withPlugin := func(f *results.File) *results.File {
		for _, p := range f.Policies {
			p.Plugin, p.PluginSHA256, p.Params = "x", "d1", map[string]any{"label": p.Label}
		}
		return f
	}
	base := withPlugin(experiment("two_arm", map[string][]float64{"A": {1, 2}, "B": {3, 4}, "C": {2, 2}}, "A", "B", "C"))
	sweep := withPlugin(experiment("remaxgrad_two_arm", map[string][]float64{"A": {1, 2}, "B": {3, 4}, "M": {0, 0}}, "A", "B", "M"))
	other := withPlugin(experiment("ten_arm", map[string][]float64{"A": {5, 5}, "B": {1, 1}, "C": {3, 3}, "A2": {5, 5}}, "A", "B", "C", "A2"))
	other.Policy("A2").Params = map[string]any{"label": "A"}
	a := ranktest.Across([]*results.File{base, sweep, other}, "regret", 0.05)
	if !slices.Equal(a.Experiments, []string{"two_arm", "ten_arm"}) || a.SameRun["remaxgrad_two_arm"] != "two_arm" {
		t.Errorf("experiments %v, same run %v", a.Experiments, a.SameRun)
	}
	if !slices.Equal(a.Policies, []string{"A", "B", "C"}) || a.Identical["A2"] != "A" || slices.Contains(a.LeftOut, "A2") {
		t.Errorf("policies %v, identical %v, left out %v", a.Policies, a.Identical, a.LeftOut)
	}
	text := strings.Join(a.NotRankedText(), " ")
	for _, want := range []string{"Counted once: remaxgrad_two_arm (the run of two_arm)", "Not ranked twice: A2 (identical to A)", "Not ranked (missing from or failed in some experiment): M"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
	// A policy identical to one that is not ranked (missing from some
	// experiment) is ranked in its stead: ranked once, not left out.
	base2 := withPlugin(experiment("two_arm", map[string][]float64{"A": {1, 2}, "Q": {3, 4}}, "A", "Q"))
	other2 := withPlugin(experiment("ten_arm", map[string][]float64{"A": {5, 5}, "Y": {1, 1}, "Q": {1, 1}}, "A", "Y", "Q"))
	other2.Policy("Q").Params = map[string]any{"label": "Y"}
	b := ranktest.Across([]*results.File{base2, other2}, "regret", 0.05)
	if !slices.Equal(b.Policies, []string{"A", "Q"}) || len(b.Identical) != 0 || !slices.Equal(b.LeftOut, []string{"Y"}) {
		t.Errorf("twin not ranked: policies %v, identical %v, left out %v; want A and Q ranked, Y left out", b.Policies, b.Identical, b.LeftOut)
	}
	// Another seed: another run, counted.
	sweep.Scenario.Seed = seed.Int(7)
	if a := ranktest.Across([]*results.File{base, sweep, other}, "regret", 0.05); len(a.Experiments) != 3 {
		t.Errorf("another seed: experiments %v", a.Experiments)
	}
}
