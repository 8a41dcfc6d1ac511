package results

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/regretbench/regretbench/host/metric"
)

// Distribution is the distribution over a policy's replications of its
// final values (at the horizon): what a mean hides when a few
// replications dominate it. A results file carries it for convenience;
// it is a function of Policy.Final, Shard.Replications and
// Policy.Replications only (Quantify),
// and Check refuses a file whose distribution is not what they give.
type Distribution struct {
	// Regret is the distribution of the final regret.
	Regret *Quantiles `json:"regret"`
}

// Quantiles summarize n values, one per replication.
//
// The quantile definition is gonum's stat.Quantile with stat.Empirical:
// the p-quantile of x(1) <= ... <= x(n), the values sorted, is x(k) for
// the smallest k with k >= p·n (the inverse of the empirical distribution
// function; Hyndman and Fan's type 1). Every quantile is thus the value of
// one replication, never an interpolation between two: the median of an
// even number of values is the lower of the two middle ones, and p99 of
// fewer than 100 values is the largest value whose rank reaches 0.99·n.
// It was chosen over stat.LinInterp because it involves no arithmetic:
// the numbers read back from a file are recomputed bit for bit on any
// machine, so that Check can compare them exactly.
type Quantiles struct {
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	P75    float64 `json:"p75"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
	// Argmax is the global replication index (as Shard.Replications
	// numbers replications, 0 to scenario.runs-1) of the worst
	// replication, the one whose value is Max; of several, the lowest
	// index, so that a shard, a merge of shards and the unsharded run
	// name the same one. `bench run --replication Argmax` replays it.
	Argmax uint64 `json:"argmax"`
}

// Quantify returns the quantiles of xs, the values of the replications
// reps (global indices, in the order of xs; nil means 0..len(xs)-1, as
// Shard.Replications does). ok is false when xs is empty or reps does not
// match it.
func Quantify(xs []float64, reps []uint64) (q Quantiles, ok bool) {
	if len(xs) == 0 || (reps != nil && len(reps) != len(xs)) {
		return Quantiles{}, false
	}
	index := func(i int) uint64 {
		if reps != nil {
			return reps[i]
		}
		return uint64(i)
	}
	q.Max, q.Argmax = xs[0], index(0)
	for i, x := range xs[1:] {
		if r := index(i + 1); x > q.Max || (x == q.Max && r < q.Argmax) {
			q.Max, q.Argmax = x, r
		}
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	at := func(p float64) float64 { return stat.Quantile(p, stat.Empirical, sorted, nil) }
	q.P25, q.Median, q.P75, q.P95, q.P99 = at(0.25), at(0.5), at(0.75), at(0.95), at(0.99)
	return q, true
}

// FillDistributions sets the Distribution of every policy of f that ran
// to completion from its final values and f's replications, and removes
// that of the others. bench calls it on every file it produces (a run, a
// shard, a merge), so that the file holds what Check expects.
func (f *File) FillDistributions() {
	for _, p := range f.Policies {
		p.Distribution = nil
		if p.Status != StatusOK {
			continue
		}
		if q, ok := Quantify(p.Final[metric.Regret], policyReps(f.Shard.Replications, p)); ok {
			p.Distribution = &Distribution{Regret: &q}
		}
	}
}

// RegretQuantiles returns the distribution of p's final regret over the
// replications of f: computed from the final values, so that files
// written before results carried distributions are reported alike. ok is
// false for a policy without results.
func (f *File) RegretQuantiles(p *Policy) (Quantiles, bool) {
	if p.Status == StatusFailed {
		return Quantiles{}, false
	}
	return Quantify(p.Final[metric.Regret], policyReps(f.Shard.Replications, p))
}

// policyReps returns the global indices of p's values, given the file's
// replications reps (nil for all): all of them, or the first
// p.Replications when a sequential gate stopped the policy early.
func policyReps(reps []uint64, p *Policy) []uint64 {
	if reps != nil && p.Replications > 0 && p.Replications < len(reps) {
		return reps[:p.Replications]
	}
	return reps
}

// checkDistribution refuses a distribution that is not what p's final
// values and the replications reps give: the file was edited, or written
// by a program that computes it otherwise. field prefixes the message.
func checkDistribution(field string, p *Policy, reps []uint64) error {
	d := p.Distribution
	if d == nil {
		return nil // files written before distributions were recorded
	}
	if d.Regret == nil {
		return fmt.Errorf("%s: distribution.regret is missing", field)
	}
	want, ok := Quantify(p.Final[metric.Regret], policyReps(reps, p))
	if !ok {
		return fmt.Errorf("%s: distribution.regret is given but final.regret holds no value", field)
	}
	got := *d.Regret
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p25", got.P25, want.P25}, {"median", got.Median, want.Median}, {"p75", got.P75, want.P75},
		{"p95", got.P95, want.P95}, {"p99", got.P99, want.P99}, {"max", got.Max, want.Max}} {
		if c.got != c.want {
			return fmt.Errorf("%s: distribution.regret.%s = %v, but final.regret gives %v (it is a function of the final values; without it the file reads, and reports compute it)", field, c.name, c.got, c.want)
		}
	}
	if got.Argmax != want.Argmax {
		return fmt.Errorf("%s: distribution.regret.argmax = %d, but the worst replication of final.regret is %d (it is a function of the final values; without it the file reads, and reports compute it)", field, got.Argmax, want.Argmax)
	}
	return nil
}
