package ranktest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/results"
)

// Analysis is the comparison of policies by their ranks across
// experiments (results files): the Friedman test and the Nemenyi critical
// difference over the policies ranked (see the package doc, "Mean rank":
// which experiments, which policies, ties), each ranked within each
// experiment by its mean final value of Metric over the replications
// (lower is better).
type Analysis struct {
	Metric      string
	Alpha       float64
	Experiments []string // the experiments counted, one per distinct run
	// SameRun are the files left out because they reuse the run of an
	// experiment counted: their name mapped to that experiment's.
	SameRun map[string]string
	// SameRunOrder lists SameRun's keys in the files' order.
	SameRunOrder []string
	// Policies are the policies ranked, in first-seen order: those that
	// ran (status ok, with a final Metric) in every experiment counted,
	// and are not identical to a policy ranked before them.
	Policies []string
	// LeftOut are the policies missing from, or failed in, some
	// experiment: the Friedman test needs every policy in every one.
	LeftOut []string
	// Identical are the policies not ranked because they are identical
	// (Identical) to an earlier one of some experiment that is ranked:
	// label mapped to that policy's label. (One identical to a policy that
	// is not ranked is ranked in its stead.) IdenticalOrder lists its keys in first-seen
	// order.
	Identical      map[string]string
	IdenticalOrder []string
	// Friedman is the test; nil when Reason says why there is none.
	Friedman *Friedman
	// Q is the Nemenyi q_alpha for len(Policies), CD the critical
	// difference q_alpha sqrt(k(k+1)/(6N)).
	Q, CD float64
	// Reason says why there is no test (fewer than two experiments or
	// than two policies ranked); "" when there is one.
	Reason string
}

// MeanRank returns the mean rank of label, and false when it is not
// ranked (LeftOut, Identical, or no test).
func (a *Analysis) MeanRank(label string) (float64, bool) {
	if a == nil || a.Friedman == nil {
		return 0, false
	}
	i := slices.Index(a.Policies, label)
	if i < 0 {
		return 0, false
	}
	return a.Friedman.MeanRanks[i], true
}

// NotRanked says in a few words why label has no mean rank in a: ""
// when it has one.
func (a *Analysis) NotRanked(label string) string {
	if a == nil {
		return "no mean rank"
	}
	if x, ok := a.Identical[label]; ok {
		return "identical to " + x
	}
	if slices.Contains(a.LeftOut, label) {
		return "missing from or failed in some experiment"
	}
	if a.Friedman == nil {
		return a.Reason
	}
	if !slices.Contains(a.Policies, label) {
		return "not in the ranked experiments"
	}
	return ""
}

// Identical returns, for each policy of f identical to an earlier one,
// that policy's label: both ran the same executable (the same SHA-256, or
// the same plugin when no digest is recorded), with the same parameters
// and the same feedback mode, in the same run (so with the same seed and
// reward streams). Such a policy's values are the earlier one's: it is
// reported as "identical to X" and never ranked or tested twice.
func Identical(f *results.File) map[string]string {
	out := map[string]string{}
	for i, p := range f.Policies {
		if _, dup := out[p.Label]; dup {
			continue
		}
		for _, q := range f.Policies[i+1:] {
			if _, dup := out[q.Label]; dup {
				continue
			}
			if samePolicy(p, q) {
				out[q.Label] = p.Label
			}
		}
	}
	return out
}

func samePolicy(p, q *results.Policy) bool {
	if p.PluginSHA256 != q.PluginSHA256 || p.Feedback != q.Feedback {
		return false
	}
	if p.PluginSHA256 == "" && (p.Plugin == "" || p.Plugin != q.Plugin) {
		return false // nothing recorded says they are the same executable
	}
	pp, qp := p.Params, q.Params
	if len(pp) == 0 && len(qp) == 0 {
		return true
	}
	return reflect.DeepEqual(pp, qp)
}

// sameRun reports whether g reuses f's run: the same seed, horizon and
// runs, at least one policy in common, and every policy in common with
// bit-identical final values of metric (a sweep and its base instance in
// bench paper).
func sameRun(f, g *results.File, metric string) bool {
	if f.Scenario.Seed.String() != g.Scenario.Seed.String() || f.Scenario.Horizon != g.Scenario.Horizon || f.Scenario.Runs != g.Scenario.Runs {
		return false
	}
	shared := 0
	for _, p := range g.Policies {
		q := f.Policy(p.Label)
		if q == nil {
			continue
		}
		if p.Status != results.StatusOK && q.Status != results.StatusOK {
			continue // failed in both: says nothing either way
		}
		if p.Status != results.StatusOK || q.Status != results.StatusOK {
			return false
		}
		a, b := p.Final[metric], q.Final[metric]
		if len(a) == 0 || len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		shared++
	}
	return shared > 0
}

// Across ranks the policies of files by their mean final metric in each
// file and tests them (FriedmanTest, CriticalDifference at alpha), as the
// package doc's "Mean rank" defines. It never fails: an analysis that
// cannot be made has Reason set.
func Across(files []*results.File, metric string, alpha float64) *Analysis {
	a := &Analysis{Metric: metric, Alpha: alpha, SameRun: map[string]string{}, Identical: map[string]string{}}
	var counted []*results.File
	var seen []string // every policy, in first-seen order
	for _, f := range files {
		for _, p := range f.Policies {
			if !slices.Contains(seen, p.Label) {
				seen = append(seen, p.Label)
			}
		}
		if i := slices.IndexFunc(counted, func(c *results.File) bool { return sameRun(c, f, metric) }); i >= 0 {
			a.SameRun[f.Scenario.Name] = counted[i].Scenario.Name
			a.SameRunOrder = append(a.SameRunOrder, f.Scenario.Name)
			continue
		}
		counted = append(counted, f)
	}
	files = counted
	for _, f := range files {
		a.Experiments = append(a.Experiments, f.Scenario.Name)
		for l, x := range Identical(f) {
			if _, ok := a.Identical[l]; !ok {
				a.Identical[l] = x
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
	inAll := func(l string) bool {
		for _, f := range files {
			if _, in := score(f, l); !in {
				return false
			}
		}
		return true
	}
	// A policy identical to another is not ranked twice: left out when its
	// twin is ranked (in every experiment), ranked in its stead otherwise.
	for l, x := range a.Identical {
		if _, twinIdentical := a.Identical[x]; twinIdentical || !inAll(x) {
			delete(a.Identical, l)
		}
	}
	for _, l := range seen {
		if _, ok := a.Identical[l]; ok {
			a.IdenticalOrder = append(a.IdenticalOrder, l)
			continue
		}
		if inAll(l) {
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

// Spread is the distance between the best and the worst mean rank; 0
// without a test.
func (a *Analysis) Spread() float64 {
	if a == nil || a.Friedman == nil {
		return 0
	}
	return slices.Max(a.Friedman.MeanRanks) - slices.Min(a.Friedman.MeanRanks)
}

// Separates reports whether the critical difference separates at least
// one pair of policies: the spread of the mean ranks exceeds CD.
func (a *Analysis) Separates() bool {
	return a != nil && a.Friedman != nil && a.Spread() > a.CD
}

// NeededN returns the number of experiments it would take for the CD
// of k policies at alpha to fall below d ranks: the smallest N with
// q_alpha sqrt(k(k+1)/(6N)) < d, that is N > q_alpha^2 k(k+1)/(6 d^2);
// 0 when d <= 0 (no number of experiments separates equal mean ranks).
func NeededN(k int, alpha, d float64) int {
	if d <= 0 || k < 2 {
		return 0
	}
	q := NemenyiQ(k, alpha)
	n := q * q * float64(k*(k+1)) / (6 * d * d)
	return int(math.Floor(n)) + 1
}

// CDLine is the one line that says, when the critical difference
// separates no pair, so and how many experiments it would take: with
// these mean ranks, to separate the best from the worst (NeededN of their
// spread), and at best (a spread of k-1, the first always first and the
// last always last). "" when some pair is separated or there is no test.
func (a *Analysis) CDLine() string {
	if a == nil || a.Friedman == nil || a.Separates() {
		return ""
	}
	k, n := a.Friedman.K, a.Friedman.N
	s := fmt.Sprintf("CD = %.2f exceeds the spread of the mean ranks (%.2f): no pair of the %d policies is separated over N = %d experiments", a.CD, a.Spread(), k, n)
	if need := NeededN(k, a.Alpha, a.Spread()); need > 0 {
		s += fmt.Sprintf("; with these mean ranks it would take N = %d experiments to separate the best from the worst", need)
	}
	return s + fmt.Sprintf(" (N = %d at the least, were one always first and another always last).", NeededN(k, a.Alpha, float64(k-1)))
}

// CDNote is CDLine's figure form, one short line: "" when some pair is
// separated or there is no test.
func (a *Analysis) CDNote() string {
	if a == nil || a.Friedman == nil || a.Separates() {
		return ""
	}
	s := fmt.Sprintf("CD %.2f > spread %.2f of the mean ranks: no pair separated", a.CD, a.Spread())
	if need := NeededN(a.Friedman.K, a.Alpha, a.Spread()); need > 0 {
		s += fmt.Sprintf("; N = %d experiments would separate the ends", need)
	}
	return s + "."
}

// NotRankedText lists, in sentences, the experiments counted once and
// the policies not ranked, and why; nil when every one is ranked.
func (a *Analysis) NotRankedText() []string {
	var out []string
	if len(a.SameRunOrder) > 0 {
		var parts []string
		for _, x := range a.SameRunOrder {
			parts = append(parts, x+" (the run of "+a.SameRun[x]+")")
		}
		out = append(out, "Counted once: "+strings.Join(parts, ", ")+".")
	}
	if len(a.IdenticalOrder) > 0 {
		var parts []string
		for _, l := range a.IdenticalOrder {
			parts = append(parts, l+" (identical to "+a.Identical[l]+")")
		}
		out = append(out, "Not ranked twice: "+strings.Join(parts, ", ")+".")
	}
	if len(a.LeftOut) > 0 {
		out = append(out, "Not ranked (missing from or failed in some experiment): "+strings.Join(a.LeftOut, ", ")+".")
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
