package run

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
)

// ParseAdded parses every spec of With (bench's --with SPEC, ParseWith)
// into the policies With checks against their plugins: a malformed spec
// is an OptionError of With naming it.
func ParseAdded(specs []string) ([]Added, error) {
	var added []Added
	for _, spec := range specs {
		p, err := ParseWith(spec)
		if err != nil {
			return nil, optErr(OptWith, strconv.Quote(spec), "%w", err)
		}
		added = append(added, Added{Spec: spec, Policy: p})
	}
	return added, nil
}

// AddWith adds the policies of the --with specs to sc, after its own,
// checked against their plugins (ParseAdded, With), and returns them.
func AddWith(ctx context.Context, launch engine.Launcher, sc *scenario.Scenario, specs []string) ([]scenario.Policy, error) {
	with, err := ParseAdded(specs)
	if err != nil {
		return nil, err
	}
	added, err := With(ctx, launch, with, Labels(sc))
	if err != nil {
		return nil, err
	}
	sc.Policies = append(sc.Policies, added...)
	return added, nil
}

// Comparison returns what a run of sc compares, nil for nothing: the
// compareTo policy (bench run --compare-to) against every other, or else,
// with added policies (--with, already in sc), every policy against every
// other (the scenario's own and the added ones: all pairs, one Holm
// family).
// A compareTo that is not a policy of sc, or that has no other policy to
// compare with, is an OptionError of CompareTo.
func Comparison(sc *scenario.Scenario, added []scenario.Policy, compareTo string) (*compare.Spec, error) {
	if compareTo != "" {
		if !slices.ContainsFunc(sc.Policies, func(p scenario.Policy) bool { return p.Label == compareTo }) {
			return nil, optErr(OptCompareTo, strconv.Quote(compareTo), "no such policy in scenario %s (have: %s)", sc.Name, strings.Join(Labels(sc), ", "))
		}
		if len(sc.Policies) < 2 {
			return nil, optErr(OptCompareTo, strconv.Quote(compareTo), "the scenario has no other policy to compare it with")
		}
	}
	addedLabels := Labels(&scenario.Scenario{Policies: added})
	var spec compare.Spec
	for _, p := range sc.Policies {
		switch {
		case compareTo != "":
			if p.Label != compareTo {
				spec.Baselines = append(spec.Baselines, p.Label)
			}
		case !slices.Contains(addedLabels, p.Label):
			spec.Baselines = append(spec.Baselines, p.Label)
		}
	}
	switch {
	case compareTo != "":
		spec.Policies = []string{compareTo}
	case len(added) > 0:
		spec.Policies, spec.Baselines = Labels(sc), nil
	default:
		return nil, nil
	}
	return &spec, nil
}

// AttachComparison computes the comparison section of file for spec and
// stores it in the file, replacing any it had (a resumed file's, from
// another call); a nil spec leaves none. A comparison that cannot be
// computed (a policy missing from an interrupted run) is a warning on
// stderr, not an error: it returns nil.
func AttachComparison(file *results.File, spec *compare.Spec, opt compare.Options, stderr io.Writer) *compare.Scenario {
	file.Comparison = nil
	if spec == nil {
		return nil
	}
	s, err := compare.Attach(file, *spec, opt)
	if err != nil {
		fmt.Fprintf(stderr, "bench: warning: no comparison section: %v\n", err)
		return nil
	}
	return s
}
