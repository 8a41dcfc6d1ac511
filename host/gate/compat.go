package gate

import (
	"fmt"
	"slices"

	"github.com/regretbench/regretbench/host/results"
)

// Differences lists what makes two runs different experiments
// (results.ExperimentFields: the reward family, the number of arms, the
// true means, the noise sd, the horizon and the forced initial pulls).
// Each entry names the field and both values, for example "horizon:
// baseline 2000, current 1000". Runs, seed and replications are not
// differences: they only decide whether the test can be paired.
func Differences(base, cur results.Scenario) []string {
	var d []string
	for _, f := range results.Only(base.Diff(cur), results.ExperimentFields...) {
		d = append(d, fmt.Sprintf("%s: baseline %s, current %s", f.Field, f.A, f.B))
	}
	return d
}

// replications returns the global replication indices a file holds, in the
// order of its final values.
func replications(f *results.File) []uint64 {
	if f.Shard.Replications != nil {
		return f.Shard.Replications
	}
	r := make([]uint64, f.Scenario.Runs)
	for i := range r {
		r[i] = uint64(i)
	}
	return r
}

// pairing decides whether replication r of one file faces the same reward
// streams as replication r of the other (design §4, common random numbers):
// same experiment, same seed, same replication indices in the same order.
// When not, it says why.
func pairing(base, cur *results.File, diffs []string) (bool, string) {
	switch {
	case len(diffs) > 0:
		return false, "the scenarios differ"
	case base.Scenario.Seed != cur.Scenario.Seed:
		return false, fmt.Sprintf("seeds differ (baseline %s, current %s)", base.Scenario.Seed.Abbrev(), cur.Scenario.Seed.Abbrev())
	case base.Scenario.Streams != cur.Scenario.Streams:
		return false, fmt.Sprintf("reward streams differ (baseline %s, current %s): one file predates bench's keyed reward streams", streams(base.Scenario.Streams), streams(cur.Scenario.Streams))
	case !slices.Equal(replications(base), replications(cur)):
		return false, fmt.Sprintf("replications differ (baseline %s, current %s)", span(replications(base)), span(replications(cur)))
	}
	// A secret seed only abbreviated: a verdict is often published (a
	// pull-request comment) while the secret is kept for further runs.
	return true, fmt.Sprintf("common random numbers: same scenario, seed %s, replications %s", cur.Scenario.Seed.Abbrev(), span(replications(cur)))
}

// span writes a replication list compactly: "0..199" when contiguous.
func span(r []uint64) string {
	if len(r) == 0 {
		return "none"
	}
	contiguous := true
	for i := 1; i < len(r); i++ {
		if r[i] != r[i-1]+1 {
			contiguous = false
			break
		}
	}
	if contiguous {
		return fmt.Sprintf("%d..%d", r[0], r[len(r)-1])
	}
	return fmt.Sprintf("%d indices from %d to %d", len(r), slices.Min(r), slices.Max(r))
}

// streams names a results file's reward-stream version; files from before
// versions were recorded have none.
func streams(v string) string {
	if v == "" {
		return "v1 (unrecorded)"
	}
	return v
}
