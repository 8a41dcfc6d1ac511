package run

import (
	"context"
	"fmt"
	"time"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/procs"
)

// PaperRuns are the scenarios that reproduce every experiment of the
// ReMax paper (bench paper), heaviest first so the long jobs start early.
// The remaxgrad_* sweeps share their base instance's seed, so their
// PaperBaseLabels rows are the two_arm, three_arm and ten_arm results.
var PaperRuns = []struct {
	Scenario string
	Base     string // the main-text scenario whose policies it contains
}{
	{"remaxgrad_ten_arm", "ten_arm"},
	{"remaxgrad_three_arm", "three_arm"},
	{"failure_mode", ""},
	{"remaxgrad_two_arm", "two_arm"},
	{"obd", ""},
	{"movielens", ""},
}

// PaperBaseLabels are the policies a remaxgrad_* sweep shares with its
// base experiment.
var PaperBaseLabels = []string{"ReMax", "TS", "KL-UCB"}

// PaperScenarios loads the scenarios of PaperRuns, in their order, with
// runs, when runsSet, and horizon, when not 0, in place of each one's.
func PaperScenarios(runs int, runsSet bool, horizon int) ([]*scenario.Scenario, error) {
	scens := make([]*scenario.Scenario, len(PaperRuns))
	for i, pr := range PaperRuns {
		sc, err := scenario.Named(pr.Scenario)
		if err != nil {
			return nil, err
		}
		if runsSet {
			sc.Runs = runs
			if err := sc.Validate(); err != nil {
				return nil, &InputError{fmt.Errorf("--runs %d: %w", runs, err)}
			}
		}
		if horizon > 0 {
			if err := sc.SetHorizon(horizon); err != nil {
				return nil, &InputError{fmt.Errorf("--horizon %d: %w", horizon, err)}
			}
		}
		scens[i] = sc
	}
	return scens, nil
}

// AllOptions say how All plays many scenarios.
type AllOptions struct {
	// Launch, Jobs (0: one per core, across every scenario) and
	// StepTimeout are Options'; the others are not used.
	Options
	// With are the policies added to every scenario, after its own
	// (With checks them against the labels of every scenario).
	With []Added
	// Start, when not nil, is called with the number of jobs (policies
	// of every scenario) before they play, and returns what follows
	// their progress, as "SCENARIO: LABEL".
	Start func(jobs int) Progress
}

// AllResults are what All played.
type AllResults struct {
	// Files are the results of the scenarios, in their order; nil for
	// one that did not run.
	Files []*results.File
	// Finished says, per scenario, that every policy ran to its end or
	// failed by itself: an interrupted run's others are not whole.
	Finished []bool
	// Added are the labels of the added policies.
	Added []string
	// Elapsed is the wall time of the play.
	Elapsed time.Duration
}

// All plays every scenario of scens (bench paper's PaperScenarios), with
// the added policies after each one's own: all policies of all scenarios
// share one pool of opts.Jobs slots, longest first (engine.RunAll). The
// results come with the error, as Plan's do; nil results mean nothing
// ran.
func All(ctx context.Context, scens []*scenario.Scenario, opts AllOptions) (*AllResults, error) {
	// The added policies: checked once against the labels of every
	// scenario, then added to each after its own policies.
	var taken []string
	for _, sc := range scens {
		taken = append(taken, Labels(sc)...)
	}
	added, err := With(ctx, opts.Launch, opts.With, taken)
	if err != nil {
		return nil, err
	}
	for _, sc := range scens {
		sc.Policies = append(sc.Policies, added...)
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = procs.Cores()
	}
	var pr Progress
	if opts.Start != nil {
		njobs := 0
		for _, sc := range scens {
			njobs += len(sc.Policies)
		}
		pr = opts.Start(njobs)
	}
	start := time.Now()
	allOpts := engine.AllOptions{Options: engine.Options{Launch: opts.Launch, StepTimeout: opts.StepTimeout}, Jobs: jobs}
	if pr != nil {
		if f := pr.Func(); f != nil {
			allOpts.Progress = func(name, label string, done, total int64) { f(name+": "+label, done, total) }
		}
	}
	files, finished, runErr := engine.RunAll(ctx, scens, allOpts)
	if pr != nil {
		pr.Wait()
	}
	return &AllResults{Files: files, Finished: finished, Added: Labels(&scenario.Scenario{Policies: added}), Elapsed: time.Since(start)}, runErr
}
