// Package shard splits a scenario's replications into disjoint slices for
// separate machines (`bench --shard I/N`) and merges their results files
// back into the file the unsharded run would have written (`bench merge`).
package shard

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/results"
)

// Spec is shard Index (0-based) of Count.
type Spec struct {
	Index, Count int
}

// SpecError is a shard spec Parse cannot read: the spec, and what it
// should be. The command line names it by its flag.
type SpecError struct {
	Spec string
	Err  error
}

func (e *SpecError) Error() string { return fmt.Sprintf("shard %q: %v", e.Spec, e.Err) }
func (e *SpecError) Unwrap() error { return e.Err }

// Parse reads "I/N" with 0 <= I < N; a *SpecError otherwise.
func Parse(s string) (Spec, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Spec{}, &SpecError{s, errors.New("want I/N with 0 <= I < N, e.g. 0/4 (I is 0-based, like JOB_COMPLETION_INDEX)")}
	}
	return Spec{Index: i, Count: n}, nil
}

// Replications returns the global replication indices of the shard: a
// contiguous block of 0..runs-1, the blocks of all shards covering it
// exactly once.
func (s Spec) Replications(runs int) []uint64 {
	lo := s.Index * runs / s.Count
	hi := (s.Index + 1) * runs / s.Count
	out := make([]uint64, 0, hi-lo)
	for r := lo; r < hi; r++ {
		out = append(out, uint64(r))
	}
	return out
}

// Merge combines the results files of the N shards of one run into the
// file the unsharded run would have produced, timings aside. Every shard
// must be present once, from the same scenario, seed, bench build and
// plugins (version and SHA-256), with the same policies, checkpoints and
// diagnostics, and carry per-replication traces; the shards' replications
// must cover 0..runs-1 exactly once. Otherwise Merge says which file and
// which field differ. names[k] names files[k] in messages.
func Merge(files []*results.File, names []string) (*results.File, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("merge: no files")
	}
	if len(names) != len(files) {
		names = make([]string, len(files))
		for k := range names {
			names[k] = fmt.Sprintf("file %d", k+1)
		}
	}
	for k, f := range files {
		// A file handed in without Decode (or edited since) must still
		// be consistent: everything below indexes by its lengths.
		if err := f.Check(); err != nil {
			return nil, fmt.Errorf("merge: %s: %w", names[k], err)
		}
	}
	first := files[0]
	count := first.Shard.Count
	seen := map[int]string{}
	for k, f := range files {
		if f.Shard.Count != count {
			return nil, fmt.Errorf("merge: %s is shard %d/%d but %s is of %d shards (shard.count)", names[k], f.Shard.Index, f.Shard.Count, names[0], count)
		}
		if prev, dup := seen[f.Shard.Index]; dup {
			return nil, fmt.Errorf("merge: %s and %s are both shard %d/%d (shard.index)", prev, names[k], f.Shard.Index, count)
		}
		seen[f.Shard.Index] = names[k]
		if d := scenarioDiffs(first.Scenario, f.Scenario); len(d) > 0 {
			return nil, fmt.Errorf("merge: %s and %s come from different scenarios or settings: %s", names[0], names[k], strings.Join(d, "; "))
		}
		if a, b := benchVersion(first), benchVersion(f); a != b {
			return nil, fmt.Errorf("merge: %s and %s were written by different bench builds (bench.version %s and %s); rerun every shard with one build", names[0], names[k], a, b)
		}
		if !f.Complete {
			return nil, fmt.Errorf("merge: %s is incomplete (its run was interrupted)", names[k])
		}
		if len(f.Policies) != len(first.Policies) {
			return nil, fmt.Errorf("merge: %s has %d policies, %s has %d", names[k], len(f.Policies), names[0], len(first.Policies))
		}
		for i, p := range f.Policies {
			if err := samePolicy(first.Policies[i], p); err != nil {
				return nil, fmt.Errorf("merge: %s: policies[%d] %q: %w (in %s)", names[k], i, p.Label, err, names[0])
			}
		}
	}
	if len(seen) < count {
		var missing []string
		for i := 0; i < count && len(missing) < 10; i++ {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, count))
			}
		}
		if n := count - len(seen) - len(missing); n > 0 {
			missing = append(missing, fmt.Sprintf("and %d more", n))
		}
		return nil, fmt.Errorf("merge: missing shard(s) %s", strings.Join(missing, ", "))
	}
	// Shard order, leaving the caller's slices alone.
	order := make([]int, len(files))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return files[order[a]].Shard.Index < files[order[b]].Shard.Index })

	runs := first.Scenario.Runs
	reps, err := replications(files, names, runs)
	if err != nil {
		return nil, err
	}

	out := &results.File{Schema: results.Schema, Scenario: first.Scenario, Shard: results.Shard{Index: 0, Count: 1}, Complete: true, Bench: first.Bench}
	for i, q := range first.Policies {
		p := &results.Policy{Label: q.Label, Plugin: q.Plugin, PluginVersion: q.PluginVersion, PluginSHA256: q.PluginSHA256, Params: q.Params, Feedback: q.Feedback, Color: q.Color, Status: results.StatusOK}
		var sandboxes []string
		var failed []string
		for _, k := range order {
			f := files[k]
			p.Seconds += f.Policies[i].Seconds
			p.Probs = results.MergeProbs(p.Probs, f.Policies[i].Probs)
			if s := f.Policies[i].Sandbox; !slices.Contains(sandboxes, s) {
				sandboxes = append(sandboxes, s)
			}
			if f.Policies[i].Status != results.StatusOK {
				failed = append(failed, fmt.Sprintf("shard %d: %s", f.Shard.Index, f.Policies[i].Error))
			}
		}
		p.Sandbox = mergeSandboxes(sandboxes)
		// The limits, when every shard ran under the same.
		p.Limits = q.Limits
		for _, k := range order {
			if l := files[k].Policies[i].Limits; !reflect.DeepEqual(l, q.Limits) {
				p.Limits = nil
			}
		}
		if len(failed) > 0 {
			p.Status, p.Error = results.StatusFailed, strings.Join(failed, "; ")
			out.Policies = append(out.Policies, p)
			continue
		}
		// samePolicy and Check make every shard's rows as many as q's,
		// each as long as the shard's replications.
		gather := func(get func(*results.Policy) [][]float64) [][]float64 {
			rows := make([][]float64, len(get(q)))
			for c := range rows {
				rows[c] = make([]float64, runs)
			}
			for _, k := range order {
				idx := reps(k)
				for c, row := range get(files[k].Policies[i]) {
					for j, r := range idx {
						rows[c][r] = row[j]
					}
				}
			}
			return rows
		}
		metrics := map[string][][]float64{}
		for _, name := range first.MetricNames() { // pv_loss too in a contextual run
			metrics[name] = gather(func(p *results.Policy) [][]float64 { return p.Traces.Metrics[name] })
		}
		var diags map[string]results.DiagTrace
		for name, d := range q.Diagnostics {
			if diags == nil {
				diags = map[string]results.DiagTrace{}
			}
			diags[name] = results.DiagTrace{Checkpoints: d.Checkpoints,
				Rows: gather(func(p *results.Policy) [][]float64 { return p.Traces.Diagnostics[name] })}
		}
		p.Summarize(q.Checkpoints, metrics, diags, false)
		out.Policies = append(out.Policies, p)
	}
	out.FillDistributions() // over every replication, by its global index
	if err := out.Check(); err != nil {
		// Values within range in each shard can still overflow in the
		// means and standard errors over every replication.
		return nil, fmt.Errorf("merge: the merged results are not a valid results file: %w", err)
	}
	return out, nil
}

// benchVersion is the bench build recorded in f, or "none" when the file
// records none.
func benchVersion(f *results.File) string {
	if f.Bench == nil {
		return "none"
	}
	return fmt.Sprintf("%q", f.Bench.Version)
}

// scenarioDiffs names the fields of the scenario that differ between two
// shards; the description alone may differ.
func scenarioDiffs(a, b results.Scenario) []string {
	var d []string
	for _, f := range a.Diff(b) {
		d = append(d, fmt.Sprintf("scenario.%s: %s vs %s", f.Field, f.A, f.B))
	}
	return d
}

// samePolicy says which field of p, a shard's policy, differs from q, the
// first shard's: they must be the same policy of the same plugin build
// (results.SamePolicy), and when both ran, carry traces aligned on the
// same checkpoints.
func samePolicy(q, p *results.Policy) error {
	switch results.SamePolicy(q, p) {
	case "label":
		return fmt.Errorf("label %q differs from %q", p.Label, q.Label)
	case "plugin":
		return fmt.Errorf("plugin %s differs from %s", p.Plugin, q.Plugin)
	case "plugin_version":
		return fmt.Errorf("plugin_version %q differs from %q", p.PluginVersion, q.PluginVersion)
	case "plugin_sha256":
		return fmt.Errorf("plugin_sha256 %q differs from %q: the shards ran different plugin executables", p.PluginSHA256, q.PluginSHA256)
	case "params":
		return fmt.Errorf("params %v differ from %v", p.Params, q.Params)
	case "feedback":
		return fmt.Errorf("feedback %q differs from %q", p.Feedback, q.Feedback)
	}
	if p.Status == results.StatusOK && p.Traces == nil {
		return fmt.Errorf("no per-replication traces: not the results file of a shard (a sharded run writes them)")
	}
	if p.Status != results.StatusOK || q.Status != results.StatusOK {
		return nil // merged as failed: nothing is aligned
	}
	if !slices.Equal(p.Checkpoints, q.Checkpoints) {
		return fmt.Errorf("checkpoints %v differ from %v (%d and %d checkpoints)", p.Checkpoints, q.Checkpoints, len(p.Checkpoints), len(q.Checkpoints))
	}
	for _, name := range slices.Sorted(maps.Keys(q.Diagnostics)) {
		if _, ok := p.Diagnostics[name]; !ok {
			return fmt.Errorf("diagnostics.%s is missing", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.Diagnostics)) {
		d := p.Diagnostics[name]
		e, ok := q.Diagnostics[name]
		if !ok {
			return fmt.Errorf("diagnostics.%s is extra", name)
		}
		if !slices.Equal(d.Checkpoints, e.Checkpoints) {
			return fmt.Errorf("diagnostics.%s.checkpoints %v differ from %v", name, d.Checkpoints, e.Checkpoints)
		}
	}
	return nil
}

// replications checks that the shards' replications cover 0..runs-1
// exactly once and returns each file's, in the order of its
// per-replication data. A file without shard.replications holds all runs.
// Nothing is allocated beyond what the files' own lists hold, so a bogus
// scenario.runs cannot exhaust memory.
func replications(files []*results.File, names []string, runs int) (func(k int) []uint64, error) {
	total := 0
	for _, f := range files {
		n := runs
		if f.Shard.Replications != nil {
			n = len(f.Shard.Replications)
		}
		total += n
		if total > runs {
			break
		}
	}
	if total != runs {
		return nil, fmt.Errorf("merge: the shards hold %s replications in all, scenario.runs is %d (shard.replications overlap or are missing)", atLeast(total, runs), runs)
	}
	all := func(k int) []uint64 {
		if r := files[k].Shard.Replications; r != nil {
			return r
		}
		return Spec{0, 1}.Replications(runs)
	}
	for _, f := range files {
		if f.Shard.Replications == nil {
			return all, nil // total == runs: every other shard is empty
		}
	}
	owner := make([]int32, runs) // k+1 of the file holding replication r; runs <= the files' lists
	for k, f := range files {
		for j, r := range f.Shard.Replications {
			// Check has bounded r by runs; kept for callers without it.
			if r >= uint64(runs) {
				return nil, fmt.Errorf("merge: %s: shard.replications[%d] = %d is out of range (scenario.runs %d)", names[k], j, r, runs)
			}
			if o := owner[r]; o != 0 {
				return nil, fmt.Errorf("merge: replication %d is in both %s and %s (shard.replications)", r, names[o-1], names[k])
			}
			owner[r] = int32(k + 1)
		}
	}
	return all, nil
}

func atLeast(total, runs int) string {
	if total > runs {
		return fmt.Sprintf("more than %d", runs)
	}
	return fmt.Sprint(total)
}

// mergeSandboxes names the sandboxes that the shards of one policy ran
// under: the one they share, else each, the weakest first ("off" before a
// partial one before "strict"), so that nobody reads a merged file as
// more sealed than its weakest shard.
func mergeSandboxes(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	rank := func(x string) int {
		switch x {
		case "", "off":
			return 0
		case "strict":
			return 2
		}
		return 1
	}
	s = slices.Clone(s)
	slices.SortStableFunc(s, func(a, b string) int { return rank(a) - rank(b) })
	for i, x := range s {
		if x == "" {
			s[i] = "unrecorded"
		}
	}
	return "mixed: " + strings.Join(s, ", ")
}
