package ranktest_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/results"
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
