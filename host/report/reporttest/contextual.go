// Package reporttest builds results files for the tests of the packages
// that report them (host/report, host/htmlreport, host/plot, host/run).
package reporttest

import (
	"fmt"

	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
)

// ContextualPolicy is a policy of Contextual: its label and the rate at
// which it errs, the share of rounds it pulls a wrong arm, in replication
// r ~ Err + Spread x (r - mean r).
type ContextualPolicy struct {
	Label       string
	Err, Spread float64
	Failed      bool // a policy that failed (no results)
	Probs       bool // it reported probabilities
}

// Contextual is a complete, valid results file of a contextual run on the
// shipped dataset wine (K = 3, d = 13) as the engine writes one:
// regret 1 - reward per round (so pv_loss = regret / t at every
// checkpoint), underestimation and regret_under recorded as 0 and
// regret_not_under as the regret (docs/contextual.md), every number a
// deterministic function of the policy, the replication and the round.
// It panics when the file it built fails results.File.Check.
func Contextual(name string, runs, horizon int, policies ...ContextualPolicy) *results.File {
	cps := []int{horizon / 10, horizon / 2, horizon}
	f := &results.File{
		Schema: results.Schema,
		Scenario: results.Scenario{
			Name: name, Description: "wine as a 3-armed contextual bandit", Family: "bernoulli",
			Arms: 3, Horizon: horizon, Runs: runs, Seed: seed.Int(7), Streams: "ctx-sha256-v1", Checkpoints: cps,
			Context: &results.Context{Dataset: "wine", Rows: 178, Dim: 13},
		},
		Shard:    results.Shard{Count: 1},
		Complete: true,
	}
	for _, c := range policies {
		p := &results.Policy{Label: c.Label, Plugin: "test-" + c.Label, Status: results.StatusOK, Seconds: 1.5}
		if c.Failed {
			p.Status, p.Error = results.StatusFailed, "plugin exited"
			f.Policies = append(f.Policies, p)
			continue
		}
		m := map[string][][]float64{}
		for _, t := range cps {
			var regret, zero, pv []float64
			for r := range runs {
				e := min(1, max(0, c.Err+c.Spread*(float64(r)-float64(runs-1)/2)))
				// Errors are whole rounds: a dataset's regret counts them.
				k := float64(int(e*float64(t) + 0.5))
				regret, zero, pv = append(regret, k), append(zero, 0), append(pv, k/float64(t))
			}
			m[metric.Regret] = append(m[metric.Regret], regret)
			m[metric.Underestimation] = append(m[metric.Underestimation], zero)
			m[metric.RegretUnder] = append(m[metric.RegretUnder], zero)
			m[metric.RegretNotUnder] = append(m[metric.RegretNotUnder], regret)
			m[metric.PVLoss] = append(m[metric.PVLoss], pv)
		}
		p.Summarize(cps, m, nil, false)
		if c.Probs {
			rounds := int64(runs * horizon)
			p.Probs = &results.Probs{Rounds: rounds, Reported: rounds, Min: 0.25, Mean: 0.8}
		}
		f.Policies = append(f.Policies, p)
	}
	if err := f.Check(); err != nil {
		panic(fmt.Sprintf("reporttest: the contextual file does not check: %v", err))
	}
	return f
}

// ContextualPolicies are three policies that err at clearly different
// rates (LinUCB the least, Uniform the most, about 2/3 as a uniform
// choice of 3 arms) and one that failed.
var ContextualPolicies = []ContextualPolicy{
	{Label: "LinUCB", Err: 0.08, Spread: 0.01, Probs: true},
	{Label: "Greedy", Err: 0.2, Spread: 0.02},
	{Label: "Uniform", Err: 0.66, Spread: 0.015},
	{Label: "Broken", Failed: true},
}
