package engine

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/wire"
)

// Contextual returns the environment of the contextual scenario sc: its
// dataset loaded and standardised (dataset.Standardize), or its model.
// A private dataset file must still be the file sc was parsed from (its
// SHA-256), so that the results record what was played.
func Contextual(sc *scenario.Scenario) (*env.Contextual, error) {
	c := sc.Context
	spec := env.ContextSpec{Model: c.Model, Arms: c.Arms, Dim: c.Dim, PerArm: c.PerArm, NoiseSD: c.NoiseSD, Cost: c.Cost}
	switch {
	case c.Dataset != "":
		d, err := dataset.Load(c.Dataset)
		if err != nil {
			return nil, err
		}
		d.Standardize()
		spec.Data, spec.DataID = d, "dataset:"+c.Dataset
	case c.DatasetFile != "":
		d, err := dataset.ReadFile(c.Path())
		if err != nil {
			return nil, err
		}
		if d.SHA256 != c.FileSHA256() {
			return nil, fmt.Errorf("context.dataset_file %s changed since the scenario was read (sha256 %s, was %s)", c.Path(), d.SHA256, c.FileSHA256())
		}
		d.Standardize()
		spec.Data, spec.DataID = d, "file:"+d.SHA256
	}
	if spec.Data != nil && sc.Horizon > spec.Data.N {
		return nil, fmt.Errorf("horizon %d is more than the dataset's %d rows", sc.Horizon, spec.Data.N)
	}
	return env.NewContextual(spec, sc.Seed)
}

// checkContextual refuses, before any round, a plugin that cannot play
// the scenario: a contextual scenario needs protocol 3 and a plugin that
// reports contextual; a context-free one, a plugin that does not report
// contextual_only.
func checkContextual(sc *scenario.Scenario, i int, pol scenario.Policy, d *client.Description) error {
	switch {
	case sc.Contextual() && (d.ProtocolVersion < wire.ContextualVersion || !d.Contextual):
		why := fmt.Sprintf("speaks protocol version %d", d.ProtocolVersion)
		if d.ProtocolVersion >= wire.ContextualVersion {
			why = "does not report contextual in its Describe"
		}
		return fmt.Errorf("%w: scenario %s: policies[%d] %q: plugin %s %s, but the scenario is contextual (context:), which needs a contextual plugin of protocol version %d or later (docs/contextual.md)",
			ErrInput, sc.Source, i, pol.Label, pol.Plugin, why, wire.ContextualVersion)
	case !sc.Contextual() && d.ContextualOnly:
		return fmt.Errorf("%w: scenario %s: policies[%d] %q: plugin %s plays contextual scenarios only (contextual_only), and this scenario has no context block",
			ErrInput, sc.Source, i, pol.Label, pol.Plugin)
	}
	return nil
}

// probTally keeps, per replication, what a contextual policy reported of
// its probabilities: summed in replication order at the end, so that the
// summary is the same bits however the replications were batched.
type probTally struct {
	rounds, reported []int64
	sum, min         []float64
}

func newProbTally(n int) *probTally {
	p := &probTally{rounds: make([]int64, n), reported: make([]int64, n), sum: make([]float64, n), min: make([]float64, n)}
	for i := range p.min {
		p.min[i] = math.Inf(1)
	}
	return p
}

// slice is the tally of replications lo..hi-1, sharing p's arrays.
func (p *probTally) slice(lo, hi int) *probTally {
	return &probTally{rounds: p.rounds[lo:hi], reported: p.reported[lo:hi], sum: p.sum[lo:hi], min: p.min[lo:hi]}
}

// add counts one round of the batch; probs is nil or one per replication.
func (p *probTally) add(probs []float64) {
	for i := range p.rounds {
		p.rounds[i]++
	}
	for i, q := range probs {
		if q != 0 {
			p.reported[i]++
			p.sum[i] += q
			p.min[i] = min(p.min[i], q)
		}
	}
}

// summary is the results' record; nil when no probability was reported.
func (p *probTally) summary() *results.Probs {
	var out results.Probs
	out.Min = math.Inf(1)
	var sum float64
	for i := range p.rounds {
		out.Rounds += p.rounds[i]
		out.Reported += p.reported[i]
		sum += p.sum[i]
		out.Min = min(out.Min, p.min[i])
	}
	if out.Reported == 0 {
		return nil
	}
	out.Mean = min(sum/float64(out.Reported), 1)
	out.Mean = max(out.Mean, out.Min)
	return &out
}
