package gate

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/results"
)

// Code is the outcome of a gate call, as bench's exit code (package
// exitcode): bench gate and bench --baseline exit with it.
type Code int

// The codes of a gate call. When several apply the first of Failure,
// Regression, InconclusiveCode wins (an input error, exit 2, comes before
// them all and is an error of Files, not a Code).
const (
	Pass             Code = exitcode.OK           // no regression (every policy better, same, or inconclusive)
	Regression       Code = exitcode.Regression   // a policy regressed; with Rules.RequireSame, any change
	Failure          Code = exitcode.Policy       // a policy failed in, or is missing from, the current file
	InconclusiveCode Code = exitcode.Inconclusive // a comparison was inconclusive and Rules.RequireConclusive is set
)

// Rules are the exit rules of a gate call beyond regressions and
// failures, which always fail it.
type Rules struct {
	// RequireConclusive fails the call (InconclusiveCode) when a
	// comparison is inconclusive.
	RequireConclusive bool
	// RequireSame fails the call (Regression) unless every policy's
	// verdict is Same.
	RequireSame bool
}

// Decision is the verdict of a gate call: its code and, when it fails,
// one sentence per reason, naming every policy concerned.
type Decision struct {
	Code    Code
	Reasons []string
}

// Err is nil when d passes, else the error bench states on stderr:
// "gate: " and the reasons.
func (d Decision) Err() error {
	if d.Code == Pass {
		return nil
	}
	return fmt.Errorf("gate: %s", strings.Join(d.Reasons, "; "))
}

// Decide applies the exit rules to rep, whose current file is named
// curName in the reasons, and sets rep.Summary to the verdict sentence.
func Decide(rep *Report, curName string, rules Rules) Decision {
	var d Decision
	opt := rep.Options
	if f := rep.Failures(); len(f) > 0 {
		d.Code = Failure
		for _, r := range f {
			if r.Verdict == Missing {
				d.Reasons = append(d.Reasons, fmt.Sprintf("policy %q is missing from %s", r.Label, curName))
			} else {
				d.Reasons = append(d.Reasons, fmt.Sprintf("policy %q failed in %s: %s", r.Label, curName, r.Note))
			}
		}
	}
	if reg := rep.Regressions(); len(reg) > 0 {
		if d.Code == Pass {
			d.Code = Regression
		}
		for _, r := range reg {
			p := fmt.Sprintf("Holm-adjusted p=%.2g", r.PWorse)
			if rep.Looks != nil {
				p = fmt.Sprintf("sequential, look %d of %d, %d replications, nominal p=%.2g", r.Look, len(rep.Looks), r.Estimate.N, r.PWorse)
			}
			d.Reasons = append(d.Reasons, fmt.Sprintf("regression: %q %s is %s worse than the baseline (margin %s, %s)",
				r.Label, opt.Metric, numfmt.Percent(r.Estimate.Delta/nonzero(r.Base.Mean), 1, true), numfmt.Level(opt.Margin), p))
		}
	}
	if inc := rep.Inconclusives(); rules.RequireConclusive && len(inc) > 0 {
		if d.Code == Pass {
			d.Code = InconclusiveCode
		}
		var labels []string
		for _, r := range inc {
			labels = append(labels, fmt.Sprintf("%q", r.Label))
		}
		d.Reasons = append(d.Reasons, fmt.Sprintf("inconclusive (--require-conclusive): %s; more replications narrow the CI", strings.Join(labels, ", ")))
	}
	if rules.RequireSame {
		var changed []string
		for _, r := range rep.Rows {
			switch r.Verdict {
			case Same, Worse, Failed, Missing:
				// same, or already reported above
			default:
				changed = append(changed, fmt.Sprintf("%q is %s", r.Label, r.Verdict))
			}
		}
		if len(changed) > 0 {
			if d.Code == Pass || d.Code == InconclusiveCode {
				d.Code = Regression
			}
			d.Reasons = append(d.Reasons, fmt.Sprintf("changed (--require-same): %s; if the change is intended, regenerate the baseline", strings.Join(changed, ", ")))
		}
	}
	rep.Summary = verdictSentence(rep, d)
	return d
}

// verdictSentence is the verdict sentence of a gate call, for the
// Markdown comment: what stderr says on failure, and a count of the
// verdicts on success.
func verdictSentence(rep *Report, d Decision) string {
	if d.Code != Pass {
		return fmt.Sprintf("fail (exit %d). %s.", d.Code, strings.Join(d.Reasons, "; "))
	}
	count := map[Verdict]int{}
	var order []Verdict
	for _, r := range rep.Rows {
		if count[r.Verdict] == 0 {
			order = append(order, r.Verdict)
		}
		count[r.Verdict]++
	}
	var parts []string
	for _, v := range order {
		parts = append(parts, fmt.Sprintf("%d %s", count[v], v))
	}
	return fmt.Sprintf("pass. No policy regressed (%s).", strings.Join(parts, ", "))
}

// nonzero is |x|, or 1 for 0: the divisor of a delta in % of the
// baseline mean.
func nonzero(x float64) float64 {
	if x == 0 {
		return 1
	}
	if x < 0 {
		return -x
	}
	return x
}

// Files gates cur against base (named baseName and curName in the
// report and the reasons): it compares them under opt, decides under
// rules and writes the report to w in format, one of Formats. An error
// is an input error (bench exits 2): the files cannot be compared, or
// the report cannot be written.
func Files(w io.Writer, base, cur *results.File, baseName, curName string, opt Options, rules Rules, format string) (Decision, error) {
	rep, err := Compare(base, cur, opt)
	if errors.Is(err, ErrEmptyBaseline) {
		return Decision{}, fmt.Errorf("gate: baseline %s: %w", baseName, err)
	}
	if err != nil {
		return Decision{}, fmt.Errorf("gate %s against %s: %w", curName, baseName, err)
	}
	d := Decide(rep, curName, rules)
	if err := Write(w, rep, baseName, curName, format); err != nil {
		return Decision{}, err
	}
	return d, nil
}

// Paths gates the results file at curPath against the one at basePath,
// as Files does, naming them by their paths. A file that cannot be read
// is an input error too, naming the baseline or the current file. The
// files' traces are checked and not kept (results.ReadFileWithoutTraces):
// the gate needs the final values only, and holds about what they take.
func Paths(w io.Writer, basePath, curPath string, opt Options, rules Rules, format string) (Decision, error) {
	base, cur, err := ReadPaths(basePath, curPath)
	if err != nil {
		return Decision{}, err
	}
	return Files(w, base, cur, basePath, curPath, opt, rules, format)
}

// ReadPaths reads the two results files of Paths, without their traces;
// an error names the baseline or the current file.
func ReadPaths(basePath, curPath string) (base, cur *results.File, err error) {
	if base, err = results.ReadFileWithoutTraces(basePath); err != nil {
		return nil, nil, fmt.Errorf("baseline: %w", err)
	}
	if cur, err = results.ReadFileWithoutTraces(curPath); err != nil {
		return nil, nil, fmt.Errorf("current: %w", err)
	}
	return base, cur, nil
}

// ForRun checks base as the baseline of a run of the experiment rec,
// before the run: unless opt.Force, it refuses a different experiment
// (an *IncompatibleError). With only non-empty it keeps just those
// policies of base: the others were deliberately not run, so they are
// not missing. Then it refuses a baseline with no policy to compare
// (CheckBaseline; the error wraps ErrEmptyBaseline).
func ForRun(base *results.File, rec results.Scenario, only []string, opt Options) error {
	if d := Differences(base.Scenario, rec); len(d) > 0 && !opt.Force {
		return &IncompatibleError{Differences: d}
	}
	if len(only) > 0 {
		base.Policies = slices.DeleteFunc(base.Policies, func(p *results.Policy) bool { return !slices.Contains(only, p.Label) })
	}
	return CheckBaseline(base, opt.Metric)
}

// RunFormat is the format of a run's verdict (bench --baseline): format
// when given, else markdown when the run prints its tables in markdown
// (runFormat, its --format), else table.
func RunFormat(format, runFormat string) string {
	if format == "" && strings.EqualFold(strings.TrimSpace(runFormat), "markdown") {
		return "markdown"
	}
	return format
}
