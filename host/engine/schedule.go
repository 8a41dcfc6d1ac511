package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/procs"
)

// AllOptions tunes RunAll.
type AllOptions struct {
	// Options is what every (scenario, policy) job runs with; its Jobs is
	// ignored (one policy a job) and its Progress is replaced by Progress.
	Options
	// Jobs is how many jobs run at once; 0 means one per core.
	Jobs int
	// Progress, when set, is called like Options.Progress, with the
	// scenario's name.
	Progress func(scenario, label string, done, total int64)
}

// RunAll runs every policy of several scenarios from one pool of Jobs
// slots, each (scenario, policy) pair a job, longest first by Cost (LPT),
// so that the cores do not idle at the end while one long job finishes
// alone. With common random numbers a policy's results do not depend on
// the others of its scenario, so the order changes no number. It returns
// one file per scenario, its policies in scenario order (nil when none
// ran), whether each scenario ran to its end (every policy finished or
// failed by itself), and the errors of the jobs, each naming its scenario,
// joined.
func RunAll(ctx context.Context, scens []*scenario.Scenario, opts AllOptions) ([]*results.File, []bool, error) {
	type job struct {
		scen int
		sc   *scenario.Scenario
		cost float64
	}
	var list []job
	for i, sc := range scens {
		for _, p := range sc.Policies {
			one := *sc
			one.Policies = []scenario.Policy{p}
			list = append(list, job{scen: i, sc: &one, cost: Cost(sc, p)})
		}
	}
	sort.SliceStable(list, func(a, b int) bool { return list[a].cost > list[b].cost })
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = procs.Cores()
	}
	parts := make([]*results.File, len(list))
	errs := make([]error, len(list))
	// Go blocks while every slot is taken, so jobs start in list order:
	// longest first. A job's error is kept in errs, not returned.
	var pool errgroup.Group
	pool.SetLimit(min(jobs, max(len(list), 1)))
	for k := range list {
		pool.Go(func() error {
			if ctx.Err() != nil {
				errs[k] = ctx.Err()
				return nil
			}
			o := opts.Options
			o.Jobs, o.Progress = 1, nil
			if f := opts.Progress; f != nil {
				name := scens[list[k].scen].Name
				o.Progress = func(label string, done, total int64) { f(name, label, done, total) }
			}
			var err error
			if parts[k], err = Run(ctx, list[k].sc, o); err != nil {
				// Several scenarios share the pool: name the one at fault.
				errs[k] = fmt.Errorf("scenario %s: %w", list[k].sc.Name, err)
			}
			return nil
		})
	}
	pool.Wait()

	files := make([]*results.File, len(scens))
	finished := make([]bool, len(scens))
	for k, j := range list {
		part := parts[k]
		if part == nil {
			continue
		}
		if files[j.scen] == nil {
			f := *part
			f.Scenario.Name, f.Scenario.Description = scens[j.scen].Name, scens[j.scen].Description
			f.Policies = nil
			files[j.scen] = &f
			finished[j.scen] = true
		}
		f := files[j.scen]
		f.Policies = append(f.Policies, part.Policies...)
		f.Complete = f.Complete && part.Complete
	}
	for k, j := range list {
		if parts[k] == nil || !parts[k].Complete {
			finished[j.scen] = false
		}
	}
	for i, f := range files {
		if f != nil {
			order := make([]string, len(scens[i].Policies))
			for p, pol := range scens[i].Policies {
				order[p] = pol.Label
			}
			f.SortPolicies(order)
		}
	}
	return files, finished, errors.Join(errs...)
}

// Cost estimates the work of running policy p of sc, in arbitrary units:
// replications x rounds x the plugin's cost per round on K arms (exact
// ReMax's QP grows with K^2, ReMaxGrad's sampling and Adam steps with K).
// Only the order of the estimates matters.
func Cost(sc *scenario.Scenario, p scenario.Policy) float64 {
	k := float64(sc.K())
	per := 10 * k // ts, klucb and unknown plugins
	if c := sc.Context; c != nil {
		// Linear policies update a d x d matrix per arm and round.
		d := float64(c.D())
		per = 10 * k * max(d*d, 1)
	}
	switch p.Plugin {
	case "remax":
		per = 20 * k * k
	case "remaxgrad":
		per = 1000 * k
		if m, ok := p.Params["m"].(int64); !ok || m == 2 {
			per *= 2 // M = 2 takes more Adam steps before the KKT gap stops it
		}
	}
	return float64(sc.Runs) * float64(sc.Horizon) * per
}
