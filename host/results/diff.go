package results

import (
	"fmt"
	"slices"
	"strings"
)

// FieldDiff is one field in which two scenarios differ: its JSON name and
// both values, formatted for a message.
type FieldDiff struct {
	Field string
	A, B  string
}

// ExperimentFields are the scenario fields that make two runs different
// experiments: the environment (its changes included), the protocol and the feedback. Runs, seed, replications
// and checkpoints only decide how the runs can be compared or combined.
var ExperimentFields = []string{"family", "arms", "means", "noise_sd", "horizon", "init_pulls", "feedback", "changes", "drift", "random_changes", "context"}

// Diff lists every field of the scenario in which a and b differ, in
// schema order; the free-text description is not compared. It is the one
// place that decides "are these the same experiment?": gate keeps the
// ExperimentFields, merge refuses any difference, and --resume refuses
// those of another run.
func (a Scenario) Diff(b Scenario) []FieldDiff {
	var d []FieldDiff
	add := func(field string, x, y any) { d = append(d, FieldDiff{field, fmt.Sprint(x), fmt.Sprint(y)}) }
	if a.Name != b.Name {
		add("name", fmt.Sprintf("%q", a.Name), fmt.Sprintf("%q", b.Name))
	}
	if a.Family != b.Family {
		add("family", a.Family, b.Family)
	}
	if a.Arms != b.Arms {
		add("arms", a.Arms, b.Arms)
	}
	if !slices.Equal(a.Means, b.Means) {
		add("means", a.Means, b.Means)
	}
	if a.NoiseSD != b.NoiseSD {
		add("noise_sd", a.NoiseSD, b.NoiseSD)
	}
	if known(a.NoiseKnown) != known(b.NoiseKnown) {
		add("noise_known", known(a.NoiseKnown), known(b.NoiseKnown))
	}
	if a.Horizon != b.Horizon {
		add("horizon", a.Horizon, b.Horizon)
	}
	if a.Runs != b.Runs {
		add("runs", a.Runs, b.Runs)
	}
	if a.Seed != b.Seed {
		// A secret only abbreviated: telling the seeds apart is enough.
		add("seed", a.Seed.Abbrev(), b.Seed.Abbrev())
	}
	if a.Streams != b.Streams {
		add("streams", fmt.Sprintf("%q", a.Streams), fmt.Sprintf("%q", b.Streams))
	}
	if a.InitPulls != b.InitPulls {
		add("init_pulls", a.InitPulls, b.InitPulls)
	}
	if !slices.Equal(a.Checkpoints, b.Checkpoints) {
		add("checkpoints", a.Checkpoints, b.Checkpoints)
	}
	if a.Feedback != b.Feedback {
		add("feedback", feedback(a.Feedback), feedback(b.Feedback))
	}
	if x, y := points(a.Changes), points(b.Changes); x != y {
		add("changes", x, y)
	}
	if x, y := points(a.Drift), points(b.Drift); x != y {
		add("drift", x, y)
	}
	if x, y := randomChanges(a.RandomChanges), randomChanges(b.RandomChanges); x != y {
		add("random_changes", x, y)
	}
	if x, y := contextOf(a.Context), contextOf(b.Context); x != y {
		add("context", x, y)
	}
	return d
}

// contextOf formats a recorded context, "none" for a context-free run.
func contextOf(c *Context) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%+v", *c)
}

// Only keeps the differences in the named fields.
func Only(d []FieldDiff, fields ...string) []FieldDiff {
	var out []FieldDiff
	for _, f := range d {
		if slices.Contains(fields, f.Field) {
			out = append(out, f)
		}
	}
	return out
}

func known(k *bool) string {
	if k == nil {
		return "unrecorded"
	}
	return fmt.Sprint(*k)
}

// feedback names a recorded feedback mode, "immediate" when empty.
func feedback(f string) string {
	if f == "" {
		return "immediate"
	}
	return fmt.Sprintf("%q", f)
}

// points formats recorded change points, "none" when there are none: a
// float formats as its shortest exact decimal, so different means never
// format alike.
func points(ps []Change) string {
	if ps == nil {
		return "none"
	}
	var b strings.Builder
	for j, p := range ps {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d: %v", p.At, p.Means)
	}
	return "[" + b.String() + "]"
}

// randomChanges formats recorded random changes, "none" without.
func randomChanges(r *RandomChanges) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("rate %v, means uniform %v", r.Rate, r.Means.Uniform)
}
