// Package compare computes the comparison section of a run or of bench
// paper: every policy of the comparison against every other (with --with:
// the scenario's own and the added ones), or one reference against each
// other (--compare-to), shown as a policy x policy matrix.
//
// # Per scenario
//
// For every policy: its final value of the metric (regret by default) at
// the horizon, mean ± standard error over replications; its rank in this
// scenario among every policy of it that ran (1 = lowest mean; policies
// with equal means share the average of their ranks); and its paired
// difference from each other policy, delta = mean over replications of
// (policy - other), with a two-sided (1 - alpha) confidence interval and a
// Holm-adjusted p-value.
//
// The tested pairs are every unordered pair of Spec.Policies, and each of
// Spec.Policies with each of Spec.Baselines; each pair is tested once, and
// the other policy's row shows the same test from its side (the difference
// negated, better and worse swapped). The statistics are bench gate's
// (gate.Test), with a margin of 0: all policies of a run face the same
// reward streams replication by replication (common random numbers), so
// the test is the paired t-test on the per-replication differences. For
// each pair there are two one-sided tests, "better" (H0: delta >= 0) and
// "worse" (H0: delta <= 0); every "better" p-value of the table is
// adjusted together by Holm's method (one family of k(k-1)/2 for k
// policies, all pairs), and the "worse" p-values likewise. The p reported
// is the adjusted one-sided p-value in the direction delta points to, as
// in gate's table. The outcome is
//
//   - win (W): adjusted p(better) < alpha (significantly lower);
//   - loss (L): adjusted p(worse) < alpha (significantly higher);
//   - tie (T): neither.
//
// So in each table the chance of reporting any false win is at most alpha
// (0.01 by default), and likewise for losses. A policy identical to an
// earlier one of the run (ranktest.Identical: the same executable digest,
// parameters, feedback and seed) is reported as identical to it, "=" in
// the matrix, and neither tested nor ranked twice (it shows its twin's
// rank). Tests on fewer than 30 replications add gate's warning.
//
// # Feedback modes
//
// Only policies under the same feedback mode (design §3; results.Policy
// Feedback) are compared: a policy that sees every reward at once would
// "win" against one that waits 100 rounds for it, which says nothing of
// either. A policy under another mode is left out of the policy's
// differences and listed in its LeftOut, and the rank counts only the
// policies under the policy's mode. Modes that deliver every reward at the
// start of the next round, {delay: 0}, {batch: 1} and {delay: {geometric:
// 0}}, give a policy exactly what immediate feedback gives (design §3), so
// they count as immediate (FeedbackClass).
//
// # Across scenarios
//
// Summarize counts, for each policy, its wins, ties and losses over every
// pair tested in every scenario, and takes its mean rank from host/ranktest
// (Across), whose package doc defines the one mean rank of every table and
// figure; a policy it does not rank says why.
package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/results"
)

// Options are the settings of a comparison.
type Options struct {
	Metric string  // final value compared: one of metric.Names, regret by default
	Alpha  float64 // family-wise error rate of the Holm-adjusted tests, and 1 - the CI level
}

// DefaultOptions compare final regret at alpha 0.01 (99% CIs).
var DefaultOptions = Options{Metric: metric.Regret, Alpha: 0.01}

// Outcome is how a policy fared against one baseline.
type Outcome string

// Outcomes.
const (
	Win  Outcome = "win"  // significantly lower (better) than the baseline
	Tie  Outcome = "tie"  // not significantly different
	Loss Outcome = "loss" // significantly higher (worse)
	None Outcome = "-"    // not tested: one of the two failed or has fewer than 2 replications
)

// Spec names the policies of a comparison by label.
type Spec struct {
	// Policies are the policies under comparison (added with --with, or
	// the --compare-to reference).
	Policies []string `json:"policies"`
	// Baselines are the policies they are compared with: the scenario's
	// own with --with, every other policy with --compare-to.
	Baselines []string `json:"baselines"`
	// LeftOut are policies of the scenario that the caller chose not to
	// compare with, and why (bench paper: the rows a sweep shares with
	// another experiment are compared there); the table says so.
	LeftOut []LeftOut `json:"left_out,omitempty"`
}

// LeftOut is a policy of the scenario that a comparison does not pair
// with a policy under comparison, and why.
type LeftOut struct {
	Baseline string `json:"baseline"`
	// Feedback is the left-out policy's feedback mode when that is the
	// reason (it differs from the compared policy's); empty otherwise.
	Feedback string `json:"feedback,omitempty"`
	// Reason says why, for a reader ("compared in two_arm, the same run").
	Reason string `json:"reason"`
}

// Diff is a policy's paired difference from one baseline.
type Diff struct {
	Baseline string `json:"baseline"`
	// BaselineStatus is results.StatusOK when the baseline ran; Mean and
	// SE are its mean final value and standard error then.
	BaselineStatus string  `json:"baseline_status"`
	Mean           float64 `json:"baseline_mean"`
	SE             float64 `json:"baseline_se"`
	// Delta is the mean of the per-replication differences policy -
	// baseline; negative means the policy is better.
	Delta   float64 `json:"delta"`
	DeltaSE float64 `json:"delta_se"`
	Lo      float64 `json:"ci_lo"` // the two-sided (1 - alpha) CI of Delta
	Hi      float64 `json:"ci_hi"`
	P       float64 `json:"p"`        // Holm-adjusted one-sided p in the direction of Delta
	PBetter float64 `json:"p_better"` // Holm-adjusted p of H0: delta >= 0
	PWorse  float64 `json:"p_worse"`  // Holm-adjusted p of H0: delta <= 0
	N       int     `json:"n"`        // pairs (replications)
	Outcome Outcome `json:"outcome"`
	Note    string  `json:"note,omitempty"` // why it was not tested (Outcome None)
}

// Tested reports whether d holds a test result.
func (d Diff) Tested() bool { return d.Outcome != None }

// Policy is one policy under comparison in one scenario.
type Policy struct {
	Label  string `json:"label"`
	Plugin string `json:"plugin"`
	// Feedback is the policy's feedback mode as its results record it
	// ("delay 10"); empty for immediate feedback.
	Feedback string  `json:"feedback,omitempty"`
	Status   string  `json:"status"` // results.StatusOK or results.StatusFailed
	Mean     float64 `json:"mean"`   // mean final value over replications (status ok only)
	SE       float64 `json:"se"`
	N        int     `json:"n"`
	// Rank is 1 + the number of ranked policies with a lower mean, plus
	// half the number of the others with an equal mean (so ties share the
	// average rank); 0 when the policy failed. The ranked policies are
	// those that ran under the policy's feedback mode (FeedbackClass).
	Rank float64 `json:"rank"`
	// Ranked is how many policies the rank is among.
	Ranked int    `json:"ranked"`
	Diffs  []Diff `json:"diffs"`
	// IdenticalTo names the earlier policy of the scenario this one is
	// identical to (ranktest.Identical): its values are that policy's, so
	// it is neither tested nor ranked twice (its rank is that policy's).
	IdenticalTo string `json:"identical_to,omitempty"`
	// LeftOut are the baselines not compared with this policy: under
	// another feedback mode, or left out by the Spec.
	LeftOut []LeftOut `json:"left_out,omitempty"`
	Error   string    `json:"error,omitempty"` // the failure, when Status is failed
}

// Scenario is the comparison section of one scenario's results.
type Scenario struct {
	Name        string   `json:"scenario"`
	Horizon     int      `json:"horizon"`
	Metric      string   `json:"metric"`
	Alpha       float64  `json:"alpha"`
	Spec        Spec     `json:"spec"`
	Ranked      int      `json:"ranked"`      // policies that ran (status ok); each rank counts those under its policy's feedback mode (Policy.Ranked)
	Comparisons int      `json:"comparisons"` // size of each Holm family: the tested differences of this table
	Policies    []Policy `json:"policies"`
	// Baselines are Spec.Baselines' own mean, SE and rank (their
	// differences are in Policies, seen from the policy).
	Baselines []Policy `json:"baselines,omitempty"`
	// Warnings are gate's: fewer than 30 replications.
	Warnings []string `json:"warnings,omitempty"`
}

// Total is one policy across scenarios.
type Total struct {
	Label     string `json:"label"`
	Scenarios int    `json:"scenarios"` // scenarios where it ran (status ok)
	// MeanRank is ranktest's mean rank (the package doc of host/ranktest
	// defines it), when Ranked; NotRanked says why not otherwise.
	MeanRank  float64 `json:"mean_rank"`
	Ranked    bool    `json:"ranked"`
	NotRanked string  `json:"not_ranked,omitempty"`
	// Wins, Ties and Losses count its outcomes over every pair tested in
	// every scenario (each scenario's Holm family).
	Wins   int `json:"wins"`
	Ties   int `json:"ties"`
	Losses int `json:"losses"`
}

// Summary is the comparison across scenarios (bench paper).
type Summary struct {
	Metric    string     `json:"metric"`
	Alpha     float64    `json:"alpha"`
	Scenarios []Scenario `json:"scenarios"`
	Totals    []Total    `json:"totals"`
	// Ranks is the mean-rank analysis the totals' mean ranks are from.
	Ranks *ranktest.Analysis `json:"-"`
}

// Check validates o.
func (o Options) Check() error {
	return gate.Options{Metric: o.Metric, Alpha: o.Alpha}.Check()
}

// Compute compares, in f, every pair of policies of spec.Policies and
// each of spec.Policies with each of spec.Baselines (see the package
// doc), in one Holm family. Every label must be in f; a policy may not be
// its own baseline.
func Compute(f *results.File, spec Spec, opt Options) (*Scenario, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	for _, l := range spec.Policies {
		if slices.Contains(spec.Baselines, l) {
			return nil, fmt.Errorf("compare: policy %q is both compared and a baseline", l)
		}
	}
	var leftOut []string
	for _, lo := range spec.LeftOut {
		if slices.Contains(spec.Policies, lo.Baseline) || slices.Contains(spec.Baselines, lo.Baseline) {
			return nil, fmt.Errorf("compare: policy %q is both compared and left out", lo.Baseline)
		}
		leftOut = append(leftOut, lo.Baseline)
	}
	for _, l := range slices.Concat(spec.Policies, spec.Baselines, leftOut) {
		if f.Policy(l) == nil {
			return nil, fmt.Errorf("compare: scenario %s has no policy %q", f.Scenario.Name, l)
		}
	}
	s := &Scenario{Name: f.Scenario.Name, Horizon: f.Scenario.Horizon, Metric: opt.Metric, Alpha: opt.Alpha, Spec: spec}
	identical := ranktest.Identical(f)

	// Ranks among the policies that ran under the same feedback mode,
	// each identical policy once (its twin's rank is its own).
	type ranked struct {
		label, class string
		mean         float64
	}
	var rs []ranked
	for _, p := range f.Policies {
		if _, twin := identical[p.Label]; ok(p, opt.Metric) && !twin {
			rs = append(rs, ranked{p.Label, FeedbackClass(p.Feedback), mean(p.Final[opt.Metric])})
		}
	}
	s.Ranked = len(rs)
	rank, among := map[string]float64{}, map[string]int{}
	for _, a := range rs {
		r, n := 1.0, 0
		for _, b := range rs {
			if b.class != a.class {
				continue
			}
			n++
			switch {
			case a.label == b.label:
			case b.mean < a.mean:
				r++
			case b.mean == a.mean:
				r += 0.5
			}
		}
		rank[a.label], among[a.label] = r, n
	}

	// summary is policy l's row before its differences: its mean, SE and
	// rank (an identical policy's rank is the one it is identical to).
	summary := func(l string, fp *results.Policy) Policy {
		p := Policy{Label: l, Plugin: fp.Plugin, Feedback: fp.Feedback, Status: fp.Status, Diffs: []Diff{}, IdenticalTo: identical[l]}
		if !ok(fp, opt.Metric) {
			p.Status, p.Error = results.StatusFailed, fp.Error
			return p
		}
		x := fp.Final[opt.Metric]
		p.Mean, p.SE, p.N = mean(x), se(x), len(x)
		p.Rank, p.Ranked = rank[l], among[l]
		if p.IdenticalTo != "" {
			p.Rank, p.Ranked = rank[p.IdenticalTo], among[p.IdenticalTo]
		}
		return p
	}

	// One family: every pair that can be tested, once.
	var pairs []gate.Pair
	type at struct{ p, d int }
	var where []at
	tested := map[[2]string]int{} // (policy, other) -> index in where
	for pi, l := range spec.Policies {
		fp := f.Policy(l)
		cp := summary(l, fp)
		class := FeedbackClass(fp.Feedback)
		others := slices.Concat(spec.Policies[:pi], spec.Policies[pi+1:], spec.Baselines)
		for _, b := range others {
			fb := f.Policy(b)
			if FeedbackClass(fb.Feedback) != class {
				cp.LeftOut = append(cp.LeftOut, LeftOut{Baseline: b, Feedback: FeedbackName(fb.Feedback),
					Reason: "feedback " + FeedbackName(fb.Feedback)})
				continue
			}
			d := Diff{Baseline: b, BaselineStatus: results.StatusFailed, Outcome: None}
			if ok(fb, opt.Metric) {
				y := fb.Final[opt.Metric]
				d.BaselineStatus, d.Mean, d.SE = results.StatusOK, mean(y), se(y)
			}
			switch {
			case cp.Status != results.StatusOK:
				d.Note = l + " failed"
			case !ok(fb, opt.Metric):
				d.Note = b + " failed"
			case cp.IdenticalTo != "" || identical[b] != "":
				d.Note = "identical policies are not tested: " + identicalNote(l, b, identical)
			default:
				if _, mirrored := tested[[2]string{b, l}]; !mirrored {
					tested[[2]string{l, b}] = len(where)
					pairs = append(pairs, gate.Pair{Base: fb.Final[opt.Metric], Cur: fp.Final[opt.Metric]})
					where = append(where, at{len(s.Policies), len(cp.Diffs)})
				}
			}
			cp.Diffs = append(cp.Diffs, d)
		}
		cp.LeftOut = append(cp.LeftOut, spec.LeftOut...)
		s.Policies = append(s.Policies, cp)
	}
	for _, b := range spec.Baselines {
		s.Baselines = append(s.Baselines, summary(b, f.Policy(b)))
	}
	// Every policy of a run faces the same reward streams in replication r
	// (common random numbers, DESIGN §4): the values are paired.
	fam := gate.Test(pairs, true, gate.Options{Metric: opt.Metric, Margin: 0, Alpha: opt.Alpha})
	s.Comparisons = fam.Comparisons
	smallN := false
	for k, w := range where {
		row := fam.Rows[k]
		d := &s.Policies[w.p].Diffs[w.d]
		if math.IsNaN(row.PWorse) {
			d.Note = row.Note
			continue
		}
		d.Delta, d.DeltaSE, d.N = row.Estimate.Delta, row.Estimate.SE, row.Estimate.N
		d.Lo, d.Hi = row.Lo, row.Hi
		d.PBetter, d.PWorse, d.P = row.PBetter, row.PWorse, row.P()
		smallN = smallN || d.N < 30
		switch row.Verdict {
		case gate.Better:
			d.Outcome = Win
		case gate.Worse:
			d.Outcome = Loss
		default:
			d.Outcome = Tie
		}
	}
	// The other direction of each pair tested: the same test, seen from
	// the other policy (the difference negated, better and worse swapped).
	for pi := range s.Policies {
		p := &s.Policies[pi]
		for di := range p.Diffs {
			d := &p.Diffs[di]
			if d.Tested() || d.Note != "" {
				continue
			}
			k, isMirror := tested[[2]string{d.Baseline, p.Label}]
			if !isMirror {
				continue
			}
			src := s.Policies[where[k].p].Diffs[where[k].d]
			d.Delta, d.DeltaSE, d.N = -src.Delta, src.DeltaSE, src.N
			d.Lo, d.Hi = -src.Hi, -src.Lo
			d.PBetter, d.PWorse, d.P = src.PWorse, src.PBetter, src.P
			d.Note = src.Note
			switch src.Outcome {
			case Win:
				d.Outcome = Loss
			case Loss:
				d.Outcome = Win
			default:
				d.Outcome = src.Outcome
			}
		}
	}
	if smallN {
		s.Warnings = append(s.Warnings, gate.SmallNWarning)
	}
	return s, nil
}

// identicalNote says which of a and b is identical to which policy.
func identicalNote(a, b string, identical map[string]string) string {
	if x := identical[a]; x != "" {
		return a + " is identical to " + x
	}
	return b + " is identical to " + identical[b]
}

// FeedbackClass returns the class of a feedback mode as results record it
// (results.Policy.Feedback: "", "delay 10", "geometric mean 100", "batch
// 100"): policies of one class face the same feedback and may be compared.
// Modes that deliver every reward at the start of the next round ("delay
// 0", "batch 1", "geometric mean 0") are immediate feedback in all but
// name (design §3) and give "", as immediate feedback does.
func FeedbackClass(mode string) string {
	switch m := strings.Join(strings.Fields(mode), " "); m {
	case "", "immediate", "delay 0", "batch 1", "geometric mean 0":
		return ""
	default:
		return m
	}
}

// FeedbackName is the feedback mode as tables show it: the mode, or
// "immediate".
func FeedbackName(mode string) string {
	if mode == "" {
		return "immediate"
	}
	return mode
}

// ok reports whether p ran and has final values of metric.
func ok(p *results.Policy, metric string) bool {
	return p.Status == results.StatusOK && len(p.Final[metric]) > 0
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// se is the standard error of the mean; 0 with fewer than 2 values (JSON
// holds no NaN).
func se(x []float64) float64 {
	n := len(x)
	if n < 2 {
		return 0
	}
	m, ss := mean(x), 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(n-1) / float64(n))
}

// Summarize adds up scenarios: for each policy of any scenario (in
// first-seen order) its wins, ties and losses over every pair tested in
// every scenario, and its mean rank as ranks defines it (ranktest's, the
// one mean rank of every table and figure); nil ranks leave every policy
// unranked. A scenario that reuses another's run (ranks.SameRun) counts
// once, as in the mean rank: its policies' runs and the pairs that the
// other scenario's table tests too are not counted again.
func Summarize(scenarios []*Scenario, ranks *ranktest.Analysis) *Summary {
	sum := &Summary{Metric: DefaultOptions.Metric, Alpha: DefaultOptions.Alpha, Ranks: ranks}
	if len(scenarios) > 0 {
		sum.Metric, sum.Alpha = scenarios[0].Metric, scenarios[0].Alpha
	}
	idx := map[string]int{}
	byName := map[string]*Scenario{} // the scenarios before s, by name
	for _, s := range scenarios {
		sum.Scenarios = append(sum.Scenarios, *s)
		// A scenario that reuses the run of another (ranks.SameRun, as the
		// paper's remaxgrad_* experiments reuse two_arm's...) counts once:
		// what its table repeats of the other's (a policy's run, a pair
		// tested there too) is not counted again.
		var base *Scenario
		if ranks != nil {
			if n, ok := ranks.SameRun[s.Name]; ok {
				base = byName[n]
			}
		}
		if _, ok := byName[s.Name]; !ok {
			byName[s.Name] = s
		}
		for _, p := range s.Policies {
			i, seen := idx[p.Label]
			if !seen {
				i = len(sum.Totals)
				idx[p.Label] = i
				sum.Totals = append(sum.Totals, Total{Label: p.Label})
			}
			t := &sum.Totals[i]
			if p.Status == results.StatusOK && !ranIn(base, p.Label) {
				t.Scenarios++
			}
			for _, d := range p.Diffs {
				if ranIn(base, p.Label) && ranIn(base, d.Baseline) {
					continue // this pair's test is the other scenario's
				}
				switch d.Outcome {
				case Win:
					t.Wins++
				case Tie:
					t.Ties++
				case Loss:
					t.Losses++
				}
			}
		}
	}
	for i := range sum.Totals {
		t := &sum.Totals[i]
		if r, ok := ranks.MeanRank(t.Label); ok {
			t.MeanRank, t.Ranked = r, true
		} else {
			t.NotRanked = ranks.NotRanked(t.Label)
		}
	}
	return sum
}

// ranIn reports whether the policy labelled l ran (status ok) in s; false
// for a nil s.
func ranIn(s *Scenario, l string) bool {
	if s == nil {
		return false
	}
	for _, p := range s.Policies {
		if p.Label == l {
			return p.Status == results.StatusOK
		}
	}
	return false
}

// Attach computes the comparison of f for spec and stores it in
// f.Comparison, so that the results file (and --format json) carries it.
func Attach(f *results.File, spec Spec, opt Options) (*Scenario, error) {
	s, err := Compute(f, spec, opt)
	if err != nil {
		return nil, err
	}
	// Not json.Marshal, which escapes < > & in labels as \u003c...: the
	// results file keeps this member's bytes as they are.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	f.Comparison = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return s, nil
}

// Reattach gives f the comparison section of from, a file of the same run
// with one (a shard of a run with --with or --compare-to, which bench
// merge merged into f), recomputed from f's replications: from's numbers
// cover only its own. When from has none, f has none. When it cannot be
// recomputed, f is left without one and the error says why.
func Reattach(f, from *results.File) error {
	f.Comparison = from.Comparison
	if len(f.Comparison) == 0 {
		return nil
	}
	s, err := FromFile(f)
	if err == nil {
		_, err = Attach(f, s.Spec, Options{Metric: s.Metric, Alpha: s.Alpha})
	}
	if err != nil {
		f.Comparison = nil
	}
	return err
}

// FromFile returns the comparison section of f, recomputed from f's
// policies for the spec, metric and alpha recorded in f.Comparison; nil
// when f has none. The stored numbers are not trusted: a file edited by
// hand, or produced by another bench, cannot show a comparison its data do
// not support.
func FromFile(f *results.File) (*Scenario, error) {
	if len(f.Comparison) == 0 {
		return nil, nil
	}
	var stored Scenario
	if err := results.CheckKeys(f.Comparison, &stored); err != nil {
		return nil, fmt.Errorf("results comparison: %w", err)
	}
	if err := json.Unmarshal(f.Comparison, &stored); err != nil {
		return nil, fmt.Errorf("results comparison: %w", err)
	}
	opt := Options{Metric: stored.Metric, Alpha: stored.Alpha}
	if opt.Metric == "" {
		opt.Metric = DefaultOptions.Metric
	}
	if opt.Alpha == 0 {
		opt.Alpha = DefaultOptions.Alpha
	}
	if len(stored.Spec.Policies) == 0 {
		return nil, errors.New("results comparison: spec.policies is empty")
	}
	s, err := Compute(f, stored.Spec, opt)
	if err != nil {
		return nil, fmt.Errorf("results comparison: %w", err)
	}
	return s, nil
}
