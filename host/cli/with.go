package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
)

// withHelp documents --with's SPEC syntax in the flag help.
const withHelp = `add a policy to the scenario (repeatable), after its own: PLUGIN[:NAME=VALUE,...][@LABEL], ` +
	`e.g. 'bayesucb:c=1@Bayes-UCB c=1'. VALUEs are YAML scalars as in a scenario file (1 is an int, 1.0 a float, ` +
	`true a bool, '1' a string); a backslash makes the next character plain (\, \= \@ \\). The LABEL is everything after ` +
	`the first unescaped @, taken literally (default: the plugin name). The policy gets the scenario's own feedback: ` +
	`mode (immediate if it declares none); the key feedback, not a plugin parameter, overrides it: ` +
	`feedback=delay:D, feedback=geometric:MEAN or feedback=batch:B, e.g. 'ts:feedback=delay:100@TS d=100'. ` +
	`The run then prints a comparison section, which pairs only policies under the same feedback mode`

// checkWith parses every --with SPEC, before anything is loaded or run:
// a malformed spec or one that is not UTF-8 is an input error (exit 2)
// naming it. added parses them again, for run.With to check them against the
// plugins.
func (o *policyRunOptions) checkWith() error {
	for _, spec := range o.with {
		if _, err := run.ParseWith(spec); err != nil {
			return withCode(ExitInput, fmt.Errorf("--with %q: %w", spec, err))
		}
	}
	return nil
}

// added parses every --with SPEC into the policies run.With checks
// against their plugins: a malformed spec is an input error (exit 2)
// naming it.
func (o *policyRunOptions) added() ([]run.Added, error) {
	var added []run.Added
	for _, spec := range o.with {
		p, err := run.ParseWith(spec)
		if err != nil {
			return nil, withCode(ExitInput, fmt.Errorf("--with %q: %w", spec, err))
		}
		added = append(added, run.Added{Name: fmt.Sprintf("--with %q", spec), Policy: p})
	}
	return added, nil
}

// comparisonSpec returns what a run compares: the --compare-to policy
// against every other, or else the --with policies against the scenario's
// own; ok is false when there is nothing to compare.
func comparisonSpec(sc *scenario.Scenario, added []string, compareTo string) (spec compare.Spec, ok bool) {
	for _, p := range sc.Policies {
		switch {
		case compareTo != "":
			if p.Label != compareTo {
				spec.Baselines = append(spec.Baselines, p.Label)
			}
		case !slices.Contains(added, p.Label):
			spec.Baselines = append(spec.Baselines, p.Label)
		}
	}
	switch {
	case compareTo != "":
		spec.Policies = []string{compareTo}
	case len(added) > 0:
		spec.Policies = added
	default:
		return spec, false
	}
	return spec, true
}

// checkCompareTo refuses a --compare-to label that is not a policy of the
// scenario, or one with nothing to compare against.
func checkCompareTo(sc *scenario.Scenario, label string) error {
	if label == "" {
		return nil
	}
	if !slices.ContainsFunc(sc.Policies, func(p scenario.Policy) bool { return p.Label == label }) {
		return withCode(ExitInput, fmt.Errorf("--compare-to %q: no such policy in scenario %s (have: %s)", label, sc.Name, strings.Join(run.Labels(sc), ", ")))
	}
	if len(sc.Policies) < 2 {
		return withCode(ExitInput, fmt.Errorf("--compare-to %q: the scenario has no other policy to compare it with", label))
	}
	return nil
}

// attachComparison computes the comparison section of file for spec and
// stores it in the file; a comparison that cannot be computed (a policy
// missing from an interrupted run) is a warning, not an error.
func (ro *runOptions) attachComparison(file *results.File, spec compare.Spec) *compare.Scenario {
	file.Comparison = nil
	opt := compare.Options{Metric: ro.gate.metric, Alpha: ro.gate.alpha}
	s, err := compare.Attach(file, spec, opt)
	if err != nil {
		fmt.Fprintf(ro.f.stderr, "bench: warning: no comparison section: %v\n", err)
		return nil
	}
	return s
}
