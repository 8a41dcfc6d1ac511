// Package shard splits a scenario's replications into disjoint slices for
// separate machines (`bench --shard I/N`) and merges their results files
// back into the file the unsharded run would have written (`bench merge`).
package shard

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
)

// Spec is shard Index (0-based) of Count.
type Spec struct {
	Index, Count int
}

// Parse reads "I/N" with 0 <= I < N.
func Parse(s string) (Spec, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Spec{}, fmt.Errorf("--shard %q: want I/N with 0 <= I < N, e.g. 0/4 (I is 0-based, like JOB_COMPLETION_INDEX)", s)
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
// must be present once, from the same scenario, seed and policies, and carry
// per-replication traces; otherwise Merge says what differs.
func Merge(files []*results.File, names []string) (*results.File, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("merge: no files")
	}
	first := files[0]
	count := first.Shard.Count
	seen := map[int]string{}
	for k, f := range files {
		if f.Shard.Count != count {
			return nil, fmt.Errorf("merge: %s is shard %d/%d but %s is of %d shards", names[k], f.Shard.Index, f.Shard.Count, names[0], count)
		}
		if prev, dup := seen[f.Shard.Index]; dup {
			return nil, fmt.Errorf("merge: %s and %s are both shard %d/%d", prev, names[k], f.Shard.Index, count)
		}
		seen[f.Shard.Index] = names[k]
		a, b := first.Scenario, f.Scenario
		a.Description, b.Description = "", ""
		if !reflect.DeepEqual(a, b) {
			return nil, fmt.Errorf("merge: %s and %s come from different scenarios or settings (name, means, horizon, runs, seed, checkpoints must match)", names[0], names[k])
		}
		if !f.Complete {
			return nil, fmt.Errorf("merge: %s is incomplete (its run was interrupted)", names[k])
		}
		if len(f.Policies) != len(first.Policies) {
			return nil, fmt.Errorf("merge: %s has %d policies, %s has %d", names[k], len(f.Policies), names[0], len(first.Policies))
		}
		for i, p := range f.Policies {
			q := first.Policies[i]
			if p.Label != q.Label || p.Plugin != q.Plugin || p.PluginVersion != q.PluginVersion || !reflect.DeepEqual(p.Params, q.Params) {
				return nil, fmt.Errorf("merge: policy %d differs: %s has %q (%s %s), %s has %q (%s %s)", i, names[k], p.Label, p.Plugin, p.PluginVersion, names[0], q.Label, q.Plugin, q.PluginVersion)
			}
			if p.Status == results.StatusOK && p.Traces == nil {
				return nil, fmt.Errorf("merge: %s: policy %q has no per-replication traces (write shards with --shard)", names[k], p.Label)
			}
		}
	}
	var missing []string
	for i := 0; i < count; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: missing shard(s) %s", strings.Join(missing, ", "))
	}
	sort.SliceStable(files, func(a, b int) bool { return files[a].Shard.Index < files[b].Shard.Index })

	runs := first.Scenario.Runs
	// Each shard's replications, in the order of its per-replication data.
	idx := make([][]uint64, len(files))
	covered := make([]bool, runs)
	for k, f := range files {
		idx[k] = f.Shard.Replications
		if idx[k] == nil {
			idx[k] = Spec{0, 1}.Replications(runs)
		}
		for _, r := range idx[k] {
			if int(r) >= runs || covered[r] {
				return nil, fmt.Errorf("merge: replication %d appears twice or is out of range", r)
			}
			covered[r] = true
		}
	}
	for r, ok := range covered {
		if !ok {
			return nil, fmt.Errorf("merge: replication %d is in no shard", r)
		}
	}

	out := &results.File{Schema: results.Schema, Scenario: first.Scenario, Shard: results.Shard{Index: 0, Count: 1}, Complete: true, Bench: first.Bench}
	for i, q := range first.Policies {
		p := &results.Policy{Label: q.Label, Plugin: q.Plugin, PluginVersion: q.PluginVersion, PluginSHA256: q.PluginSHA256, Params: q.Params, Status: results.StatusOK}
		var failed []string
		for _, f := range files {
			p.Seconds += f.Policies[i].Seconds
			if f.Policies[i].Status != results.StatusOK {
				failed = append(failed, fmt.Sprintf("shard %d: %s", f.Shard.Index, f.Policies[i].Error))
			}
		}
		if len(failed) > 0 {
			p.Status, p.Error = results.StatusFailed, strings.Join(failed, "; ")
			out.Policies = append(out.Policies, p)
			continue
		}
		p.Checkpoints = q.Checkpoints
		gather := func(get func(*results.Policy) [][]float64) [][]float64 {
			rows := make([][]float64, len(get(q)))
			for c := range rows {
				rows[c] = make([]float64, runs)
			}
			for k, f := range files {
				for c, row := range get(f.Policies[i]) {
					for j, r := range idx[k] {
						rows[c][r] = row[j]
					}
				}
			}
			return rows
		}
		p.Final = map[string][]float64{}
		for _, name := range metric.Names {
			rows := gather(func(p *results.Policy) [][]float64 { return p.Traces.Metrics[name] })
			s, _ := p.Metric(name)
			s.Mean, s.SE = metric.Series(rows)
			p.Final[name] = rows[len(rows)-1]
		}
		for name, d := range q.Diagnostics {
			if p.Diagnostics == nil {
				p.Diagnostics = map[string]results.DiagSeries{}
			}
			rows := gather(func(p *results.Policy) [][]float64 { return p.Traces.Diagnostics[name] })
			mean, se := metric.Series(rows)
			p.Diagnostics[name] = results.DiagSeries{Checkpoints: d.Checkpoints, Mean: mean, SE: se}
		}
		out.Policies = append(out.Policies, p)
	}
	return out, nil
}
