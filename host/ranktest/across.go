package ranktest

import (
	"fmt"
	"math"
	"slices"

	"github.com/regretbench/regretbench/host/results"
)

// Analysis is the comparison of policies by their ranks across
// experiments (results files): the Friedman test and the Nemenyi critical
// difference over the policies that ran in every experiment, each ranked
// within each experiment by its mean final value of Metric over the
// replications (lower is better).
type Analysis struct {
	Metric      string
	Alpha       float64
	Experiments []string // the scenarios' names, one per file
	// Policies are the policies ranked, in first-seen order: those that
	// ran (status ok, with a final Metric) in every experiment.
	Policies []string
	// LeftOut are the policies missing from, or failed in, some
	// experiment: the Friedman test needs every policy in every one.
	LeftOut []string
	// Friedman is the test; nil when Reason says why there is none.
	Friedman *Friedman
	// Q is the Nemenyi q_alpha for len(Policies), CD the critical
	// difference q_alpha sqrt(k(k+1)/(6N)).
	Q, CD float64
	// Reason says why there is no test (fewer than two experiments or
	// than two policies ranked); "" when there is one.
	Reason string
}

// Across ranks the policies of files by their mean final metric in each
// file and tests them (FriedmanTest, CriticalDifference at alpha). It
// never fails: an analysis that cannot be made has Reason set.
func Across(files []*results.File, metric string, alpha float64) *Analysis {
	a := &Analysis{Metric: metric, Alpha: alpha}
	var seen []string
	for _, f := range files {
		a.Experiments = append(a.Experiments, f.Scenario.Name)
		for _, p := range f.Policies {
			if !slices.Contains(seen, p.Label) {
				seen = append(seen, p.Label)
			}
		}
	}
	score := func(f *results.File, label string) (float64, bool) {
		p := f.Policy(label)
		if p == nil || p.Status != results.StatusOK {
			return 0, false
		}
		v := p.Final[metric]
		if len(v) == 0 {
			return 0, false
		}
		m := 0.0
		for _, x := range v {
			m += x / float64(len(v))
		}
		return m, !math.IsNaN(m)
	}
	for _, l := range seen {
		ok := true
		for _, f := range files {
			if _, in := score(f, l); !in {
				ok = false
				break
			}
		}
		if ok {
			a.Policies = append(a.Policies, l)
		} else {
			a.LeftOut = append(a.LeftOut, l)
		}
	}
	n, k := len(files), len(a.Policies)
	switch {
	case n < 2:
		a.Reason = fmt.Sprintf("the report has %d experiment%s, and ranks across experiments need at least 2", n, plural(n))
		return a
	case k < 2:
		a.Reason = fmt.Sprintf("%d polic%s ran in every one of the %d experiments, and a ranking needs at least 2", k, map[bool]string{true: "y", false: "ies"}[k == 1], n)
		return a
	}
	scores := make([][]float64, n)
	for i, f := range files {
		for _, l := range a.Policies {
			v, _ := score(f, l)
			scores[i] = append(scores[i], v)
		}
	}
	fr, err := FriedmanTest(scores)
	if err != nil {
		a.Reason = err.Error()
		return a
	}
	a.Friedman = fr
	a.Q = NemenyiQ(k, alpha)
	a.CD = CriticalDifference(k, n, alpha)
	return a
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
