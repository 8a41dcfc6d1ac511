package gate

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
)

// Options are the settings of one gate call.
type Options struct {
	Metric string  // final value compared: one of metric.Names
	Margin float64 // tolerated worsening, relative to the baseline mean (0.05 is 5%)
	Alpha  float64 // family-wise error rate of the Holm-corrected tests, and 1 - the CI level
	Force  bool    // compare different experiments anyway (unpaired)
	// Looks, when above 0, makes the gate sequential (SequentialTest): the
	// replications are analysed in Looks cumulative groups and each
	// policy's verdict is the first look's that decides. 0 is the
	// fixed-sample gate (Test).
	Looks int
}

// DefaultOptions are bench gate's defaults.
var DefaultOptions = Options{Metric: metric.Regret, Margin: 0.05, Alpha: 0.01}

// IncompatibleError refuses to compare two different experiments.
type IncompatibleError struct {
	Differences []string // as returned by Differences
}

func (e *IncompatibleError) Error() string { return e.Text("Options.Force") }

// Text is the error's text, with force naming the setting that compares
// the files anyway (a command line's flag).
func (e *IncompatibleError) Text(force string) string {
	return "baseline and current are different experiments: " + strings.Join(e.Differences, "; ") +
		" (" + force + " compares them anyway, unpaired)"
}

// Verdict is the outcome of one policy's comparison.
type Verdict string

// Verdicts. The first four are comparisons; the rest say why a policy was
// not compared.
const (
	Better       Verdict = "better"       // significantly better than the baseline by more than the margin
	Worse        Verdict = "worse"        // significantly worse by more than the margin: a regression
	Same         Verdict = "same"         // the CI of delta lies within ± the margin
	Inconclusive Verdict = "inconclusive" // none of the above: more replications needed
	Failed       Verdict = "FAILED"       // the policy failed in the current file
	Missing      Verdict = "MISSING"      // in the baseline, absent from the current file
	New          Verdict = "new"          // only in the current file: nothing to compare with
	NoBaseline   Verdict = "no baseline"  // the policy failed in the baseline
)

// Summary is one sample's mean, standard error of the mean and size.
type Summary struct {
	Mean, SE float64
	N        int
}

func summarize(x []float64) Summary {
	if len(x) == 0 {
		return Summary{Mean: math.NaN(), SE: math.NaN()}
	}
	m, v := stat.MeanVariance(x, nil)
	if len(x) < 2 {
		v = math.NaN()
	}
	return Summary{Mean: m, SE: math.Sqrt(v / float64(len(x))), N: len(x)}
}

// Row is one policy's comparison.
type Row struct {
	Label    string
	Verdict  Verdict
	Base     Summary
	Cur      Summary
	Estimate Estimate // delta = current - baseline mean, with its SE
	Lo, Hi   float64  // the (1-alpha) confidence interval of delta
	Margin   float64  // the margin in the metric's units: Options.Margin * |baseline mean|
	PWorse   float64  // Holm-adjusted p-value of H0: delta <= Margin; NaN when not tested
	PBetter  float64  // Holm-adjusted p-value of H0: delta >= -Margin; NaN when not tested
	Note     string   // why the policy was not compared, or the failure's error
	Look     int      // sequential gate: the look (1-based) that decided, or the last one analysed; 0 in a fixed-sample gate
}

// Compared reports whether the row holds a test result.
func (r Row) Compared() bool {
	switch r.Verdict {
	case Better, Worse, Same, Inconclusive:
		return !math.IsNaN(r.PWorse)
	}
	return false
}

// P is the adjusted p-value of the one-sided test in the direction of the
// observed delta: PBetter when delta < 0, PWorse otherwise.
func (r Row) P() float64 {
	if r.Estimate.Delta < 0 {
		return r.PBetter
	}
	return r.PWorse
}

// Report is the outcome of a gate call.
type Report struct {
	Options     Options
	Horizon     int
	Paired      bool
	Pairing     string   // why the test is paired or not
	Differences []string // differences between the scenarios (only with Force)
	Comparisons int      // size of each Holm family (sequential: of the Bonferroni family)
	Looks       []int    // sequential gate: the cumulative replications of each look; nil for a fixed-sample gate
	Rows        []Row
	Warnings    []string
	// Changes lists what the two files record differently besides the
	// results: bench's version, and each compared policy's plugin, plugin
	// version, SHA-256 and parameters ("TS: params {} -> {"inflation":2}").
	Changes []string
	// Sandbox is the sandbox the baseline's and the current file's plugins
	// ran under (results.File.Sandboxes): "as recorded, unverified" for a
	// file read back, which nothing proves; "" when a file records none.
	Sandbox struct{ Baseline, Current string }
	// Summary is the verdict sentence of the call, as bench gate states it
	// on stderr; set by the caller (it depends on the exit rules), shown
	// by WriteMarkdown when not empty.
	Summary string
}

func (r *Report) with(v ...Verdict) []Row {
	var out []Row
	for _, row := range r.Rows {
		for _, x := range v {
			if row.Verdict == x {
				out = append(out, row)
			}
		}
	}
	return out
}

// Regressions are the rows whose verdict is Worse.
func (r *Report) Regressions() []Row { return r.with(Worse) }

// Failures are the policies that failed in, or are missing from, the
// current file.
func (r *Report) Failures() []Row { return r.with(Failed, Missing) }

// Inconclusives are the rows whose verdict is Inconclusive.
func (r *Report) Inconclusives() []Row { return r.with(Inconclusive) }

// Check validates o.
func (o Options) Check() error {
	if err := metric.Check(o.Metric); err != nil {
		return err
	}
	if math.IsNaN(o.Margin) || math.IsInf(o.Margin, 0) || o.Margin < 0 {
		return fmt.Errorf("margin %v: must be finite and >= 0", o.Margin)
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("alpha %v: must be in (0, 1)", o.Alpha)
	}
	if o.Looks < 0 {
		return fmt.Errorf("looks %d: must be >= 0 (0 for a fixed-sample gate)", o.Looks)
	}
	return nil
}

// Compare gates cur against base: for every policy label of base it
// compares the per-replication final values of opt.Metric (see the package
// doc for the tests and verdicts). It returns an *IncompatibleError when
// the two files are different experiments and opt.Force is not set.
func Compare(base, cur *results.File, opt Options) (*Report, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	if err := uniqueLabels(base); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if err := uniqueLabels(cur); err != nil {
		return nil, fmt.Errorf("current: %w", err)
	}
	if err := CheckBaseline(base, opt.Metric); err != nil {
		return nil, err
	}
	var err error
	diffs := Differences(base.Scenario, cur.Scenario)
	if len(diffs) > 0 && !opt.Force {
		return nil, &IncompatibleError{Differences: diffs}
	}
	rep := &Report{Options: opt, Horizon: cur.Scenario.Horizon, Differences: diffs}
	rep.Paired, rep.Pairing = pairing(base, cur, diffs)
	if base.Scenario.Name != cur.Scenario.Name {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("scenario names differ (baseline %q, current %q)", base.Scenario.Name, cur.Scenario.Name))
	}
	if !base.Complete {
		rep.Warnings = append(rep.Warnings, "the baseline file is marked incomplete (an interrupted run)")
	}
	if !cur.Complete {
		rep.Warnings = append(rep.Warnings, "the current file is marked incomplete (an interrupted run)")
	}

	rep.Changes = changes(base, cur)
	rep.Sandbox.Baseline, rep.Sandbox.Current = base.Sandboxes(), cur.Sandboxes()
	curBy := map[string]*results.Policy{}
	for _, p := range cur.Policies {
		curBy[p.Label] = p
	}
	seen := map[string]bool{}
	var pairs []Pair
	var tested []int // the rows of pairs, in order
	for _, bp := range base.Policies {
		seen[bp.Label] = true
		row := Row{Label: bp.Label, PWorse: math.NaN(), PBetter: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		cp := curBy[bp.Label]
		switch {
		case cp == nil:
			row.Verdict, row.Note = Missing, "absent from the current file"
		case cp.Status == results.StatusFailed:
			row.Verdict, row.Note = Failed, cp.Error
			row.Base = summarize(bp.Final[opt.Metric])
		case bp.Status == results.StatusFailed:
			row.Verdict, row.Note = NoBaseline, "failed in the baseline: "+bp.Error
			row.Cur = summarize(cp.Final[opt.Metric])
		case opt.Looks == 0 && (cp.Replications != 0 || bp.Replications != 0):
			row.Verdict, row.Note = Inconclusive, "a sequential run's file (its policies used only some of the replications): gate it with --sequential"
			row.Base, row.Cur = summarize(bp.Final[opt.Metric]), summarize(cp.Final[opt.Metric])
		default:
			pairs = append(pairs, Pair{Base: bp.Final[opt.Metric], Cur: cp.Final[opt.Metric]})
			tested = append(tested, len(rep.Rows))
		}
		rep.Rows = append(rep.Rows, row)
	}
	for _, cp := range cur.Policies {
		if !seen[cp.Label] {
			rep.Rows = append(rep.Rows, Row{Label: cp.Label, Verdict: New, Note: "not in the baseline",
				Cur: summarize(cp.Final[opt.Metric]), PWorse: math.NaN(), PBetter: math.NaN(), Lo: math.NaN(), Hi: math.NaN()})
		}
	}
	var fam Family
	if opt.Looks > 0 {
		if !rep.Paired {
			return nil, fmt.Errorf("a sequential gate needs paired replications (common random numbers), but %s", rep.Pairing)
		}
		runs := len(replications(base))
		if rep.Looks, err = LookSizes(runs, opt.Looks); err != nil {
			return nil, err
		}
		if fam, err = SequentialTest(pairs, opt, runs); err != nil {
			return nil, err
		}
	} else {
		fam = Test(pairs, rep.Paired, opt)
	}
	smallN := false
	for k, i := range tested {
		label := rep.Rows[i].Label
		rep.Rows[i] = fam.Rows[k]
		rep.Rows[i].Label = label
		smallN = smallN || (rep.Rows[i].Note == "" && rep.Rows[i].Estimate.N < 30)
	}
	rep.Comparisons = fam.Comparisons
	if smallN {
		rep.Warnings = append(rep.Warnings, SmallNWarning)
	}
	return rep, nil
}

// SmallNWarning is the warning of every test run on fewer than 30
// replications (bench gate's and the comparisons').
const SmallNWarning = "fewer than 30 replications: the t-test leans on the central limit theorem; use more"

// Pair is one comparison of a family: the per-replication final values of
// the baseline policy and of the current one (lower is better). When the
// family is paired, Base[r] and Cur[r] come from the same replication.
type Pair struct {
	Base, Cur []float64
}

// Family is the outcome of Test: one row per pair, in order, and the size
// of each Holm family.
type Family struct {
	Rows        []Row // Label is empty: the caller names the comparisons
	Comparisons int   // pairs that could be tested (the Holm family size)
}

// Test is the statistics of bench gate, for any family of comparisons: for
// each pair it estimates delta = mean(Cur) - mean(Base) (paired t-test on
// per-replication differences when paired, Welch's otherwise), its
// two-sided (1 - opt.Alpha) CI, and the two one-sided p-values beyond the
// margin m = opt.Margin * |mean(Base)|; then it adjusts the p_worse of
// every pair together by Holm's method, and the p_better likewise, and
// gives each pair its verdict (see the package doc). opt.Metric is not
// used. A pair that cannot be tested (fewer than 2 values, or lengths that
// differ when paired) gets the verdict Inconclusive, NaN p-values and CI,
// and the reason in Note; it is not part of the Holm family. Both bench
// gate (Compare) and the comparison section (host/compare) call it, so
// they cannot drift apart.
func Test(pairs []Pair, paired bool, opt Options) Family {
	fam := Family{Rows: make([]Row, len(pairs))}
	pw := make([]float64, len(pairs))
	pb := make([]float64, len(pairs))
	for i, p := range pairs {
		row := Row{Verdict: Inconclusive, PWorse: math.NaN(), PBetter: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		row.Base, row.Cur = summarize(p.Base), summarize(p.Cur)
		var err error
		if paired {
			row.Estimate, err = PairedT(p.Base, p.Cur)
		} else {
			row.Estimate, err = Welch(p.Base, p.Cur)
		}
		if err != nil {
			row.Note = err.Error()
		} else {
			row.Margin = opt.Margin * math.Abs(row.Base.Mean)
			row.Lo, row.Hi = row.Estimate.CI(1 - opt.Alpha)
			row.PWorse = row.Estimate.PAbove(row.Margin)
			row.PBetter = row.Estimate.PBelow(-row.Margin)
		}
		fam.Rows[i] = row
		pw[i], pb[i] = row.PWorse, row.PBetter
	}
	// Regression tests form one Holm family and improvement tests another:
	// exit status 1 then has a family-wise false-alarm rate of at most
	// alpha, and the "better" labels likewise.
	pw, pb = Holm(pw), Holm(pb)
	for i := range fam.Rows {
		row := &fam.Rows[i]
		if math.IsNaN(pw[i]) {
			continue
		}
		fam.Comparisons++
		row.PWorse, row.PBetter = pw[i], pb[i]
		row.Verdict = verdict(*row, opt.Alpha)
	}
	return fam
}

// verdict applies the package doc's rules to a tested row whose p-values
// are already adjusted.
func verdict(r Row, alpha float64) Verdict {
	switch {
	case r.PWorse < alpha:
		return Worse
	case r.PBetter < alpha:
		return Better
	case r.Lo >= -r.Margin && r.Hi <= r.Margin:
		return Same
	}
	return Inconclusive
}

// ErrEmptyBaseline is wrapped by CheckBaseline's errors.
var ErrEmptyBaseline = errors.New("the baseline has no policy to compare with")

// CheckBaseline refuses a baseline that has no comparable policy: one with
// status ok and at least two final values of metric, which a t-test needs.
// Gating against it would compare nothing and pass.
func CheckBaseline(base *results.File, metric string) error {
	var failed []string
	for _, p := range base.Policies {
		if p.Status == results.StatusOK && len(p.Final[metric]) >= 2 {
			return nil
		}
		failed = append(failed, fmt.Sprintf("%q", p.Label))
	}
	if len(failed) == 0 {
		return fmt.Errorf("%w: it holds no policy", ErrEmptyBaseline)
	}
	return fmt.Errorf("%w: none of its policies (%s) ran with two or more replications of %s", ErrEmptyBaseline, strings.Join(failed, ", "), metric)
}

func uniqueLabels(f *results.File) error {
	seen := map[string]bool{}
	for _, p := range f.Policies {
		if seen[p.Label] {
			return fmt.Errorf("policy label %q appears twice", p.Label)
		}
		seen[p.Label] = true
	}
	return nil
}

// changes lists what base and cur record differently besides results:
// bench's version and, for each policy in both, its plugin, plugin version,
// SHA-256 (abbreviated) and parameters.
func changes(base, cur *results.File) []string {
	var out []string
	version := func(f *results.File) string {
		if f.Bench == nil || f.Bench.Version == "" {
			return "unrecorded"
		}
		return f.Bench.Version
	}
	if a, b := version(base), version(cur); a != b {
		out = append(out, fmt.Sprintf("bench version: %s -> %s", a, b))
	}
	for _, bp := range base.Policies {
		cp := cur.Policy(bp.Label)
		if cp == nil {
			continue
		}
		diff := func(what, a, b string) {
			if a != b {
				out = append(out, fmt.Sprintf("%s: %s %s -> %s", bp.Label, what, orNone(a), orNone(b)))
			}
		}
		diff("plugin", bp.Plugin, cp.Plugin)
		diff("plugin version", bp.PluginVersion, cp.PluginVersion)
		diff("plugin SHA-256", abbrev(bp.PluginSHA256), abbrev(cp.PluginSHA256))
		if bp.Sandbox != cp.Sandbox {
			diff("sandbox", bp.SandboxShown(), cp.SandboxShown())
		}
		diff("params", results.FormatParams(bp.Params), results.FormatParams(cp.Params))
	}
	return out
}

func orNone(s string) string {
	if s == "" || s == "null" {
		return "none"
	}
	return s
}

// abbrev shortens a SHA-256 to its first 12 hex digits, as git does.
func abbrev(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
