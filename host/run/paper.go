package run

import (
	"context"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/interrupt"
	"github.com/regretbench/regretbench/host/progress"
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
				return nil, optErr(OptRuns, strconv.Itoa(runs), "%w", err)
			}
		}
		if horizon > 0 {
			if err := sc.SetHorizon(horizon); err != nil {
				return nil, optErr(OptHorizon, strconv.Itoa(horizon), "%w", err)
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

// Experiment is one experiment of bench paper's results: a scenario of
// PaperRuns, or the base instance whose rows a remaxgrad_* sweep holds.
type Experiment struct {
	// Name names the experiment and its files: the scenario's, or the
	// base instance's.
	Name string
	// File is its results, with the comparison section of the added
	// policies attached, if any.
	File *results.File
	// Page is File as index.html shows it: a base instance is described
	// as its own scenario describes it.
	Page *results.File
	// Comparison is the comparison section, nil for none; ComparisonErr
	// says why there is none when it could not be computed (a policy
	// missing from an interrupted run): a warning, not an error.
	Comparison    *compare.Scenario
	ComparisonErr error
}

// PaperExperiments returns the experiments of f, the results of
// PaperRuns[i]: its own and, for a sweep, its base instance's (the
// PaperBaseLabels and added rows), each with the comparison of the added
// policies with its own, under opt. A sweep's PaperBaseLabels rows are
// the base experiment's: the added policies are compared with them there,
// once, and in the sweep with its own rows only, so that each pair is
// tested in one table (one Holm family) and counted once across the
// experiments.
func PaperExperiments(i int, f *results.File, added []string, opt compare.Options) []Experiment {
	pr := PaperRuns[i]
	var shared []compare.LeftOut
	if pr.Base != "" {
		for _, l := range PaperBaseLabels {
			if f.Policy(l) != nil {
				shared = append(shared, compare.LeftOut{Baseline: l, Reason: "compared in " + pr.Base + ", the same run"})
			}
		}
	}
	own := Experiment{Name: pr.Scenario, File: f, Page: f}
	own.Comparison, own.ComparisonErr = attachComparison(f, added, shared, opt)
	if pr.Base == "" {
		return []Experiment{own}
	}
	sub := subset(f, pr.Base, append(slices.Clone(PaperBaseLabels), added...)...)
	base := Experiment{Name: pr.Base, File: sub}
	base.Comparison, base.ComparisonErr = attachComparison(sub, added, nil, opt)
	page := *sub // the page describes the instance as its scenario does
	if sc, err := scenario.Named(pr.Base); err == nil {
		page.Scenario.Description = sc.Description
	}
	base.Page = &page
	return []Experiment{own, base}
}

// attachComparison attaches to f the comparison of the added policies
// with the experiment's own but those leftOut, and returns it; nil
// without added policies.
func attachComparison(f *results.File, added []string, leftOut []compare.LeftOut, opt compare.Options) (*compare.Scenario, error) {
	f.Comparison = nil
	if len(added) == 0 {
		return nil, nil
	}
	spec := compare.Spec{LeftOut: leftOut}
	has := false
	for _, p := range f.Policies {
		if !slices.ContainsFunc(leftOut, func(lo compare.LeftOut) bool { return lo.Baseline == p.Label }) {
			spec.Policies = append(spec.Policies, p.Label)
			has = has || slices.Contains(added, p.Label)
		}
	}
	if !has || len(spec.Policies) < 2 {
		return nil, nil
	}
	s, err := compare.Attach(f, spec, opt)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// subset returns the policies of f with the given labels, as the results
// of scenario name.
func subset(f *results.File, name string, labels ...string) *results.File {
	g := *f
	g.Scenario.Name = name
	g.Scenario.Description = ""
	g.Policies = nil
	for _, l := range labels {
		for _, p := range f.Policies {
			if p.Label == l {
				g.Policies = append(g.Policies, p)
			}
		}
	}
	return &g
}

// PaperRequest is bench paper: every experiment of PaperRuns played in
// one pool (All) and written (WritePaper). Paper plays it.
type PaperRequest struct {
	Host
	// Dir is the directory written, created if missing.
	Dir string
	// Formats are the figure formats; LogX and LogY draw the regret and
	// separated figures on log axes.
	Formats    []string
	LogX, LogY bool
	// Compare are the comparison section's metric and alpha (with With).
	Compare compare.Options
	// Runs and Horizon, when not nil, replace every scenario's.
	Runs, Horizon *int
	// Jobs (0: one per core, across every scenario), StepTimeout and
	// StartTimeout are Options'.
	Jobs                      int
	StepTimeout, StartTimeout time.Duration
	// With are the policies added to every experiment (ParseAdded).
	With []Added
}

// Check checks req's options before anything is loaded or run, as
// Options.Check checks a run's.
func (req *PaperRequest) Check() error {
	return Options{Jobs: req.Jobs, StepTimeout: req.StepTimeout, StartTimeout: req.StartTimeout,
		Overrides: Overrides{Runs: req.Runs, Horizon: req.Horizon}}.Check()
}

// Paper plays every experiment of the paper as req says and writes them
// into req.Dir (WritePaper). Interrupted, it writes only the scenarios
// whose every policy ran to its end (or failed by itself), as the
// paper's results must be whole, and its error carries the signal's exit
// code; an output that could not be written (a figure, a report,
// index.html) costs only itself, named on stderr, and the error is then
// exitcode.Failure's.
func Paper(ctx context.Context, req PaperRequest) error {
	if err := os.MkdirAll(req.Dir, 0o755); err != nil {
		return optErr(OptOut, req.Dir, "%w", err)
	}
	if err := req.Compare.Check(); err != nil {
		return &OptionError{Option: OptCompare, Err: err}
	}
	runs, horizon := 0, 0
	if req.Runs != nil {
		runs = *req.Runs
	}
	if req.Horizon != nil {
		horizon = *req.Horizon
	}
	scens, err := PaperScenarios(runs, req.Runs != nil, horizon)
	if err != nil {
		return err
	}
	launch, _, err := req.launcher(req.StartTimeout)
	if err != nil {
		return err
	}
	played, runErr := All(ctx, scens, AllOptions{
		Options: Options{Launch: launch, Jobs: req.Jobs, StepTimeout: req.StepTimeout},
		With:    req.With,
		// A bar per running job under a line counting the jobs
		// finished: the paper's jobs are more than a screen holds.
		Start: func(jobs int) Progress {
			pr := progress.New(req.progressOut(), !req.Quiet)
			pr.Jobs("jobs", jobs)
			return pr
		},
	})
	if played == nil {
		return runErr
	}
	cause, interrupted := interrupt.Of(ctx)
	pw, err := WritePaper(played, PaperOutput{
		Dir: req.Dir, Formats: req.Formats, LogX: req.LogX, LogY: req.LogY, Compare: req.Compare, Interrupted: interrupted,
		Stdout: req.Stdout, Stderr: req.Stderr,
		Stamp:   req.stamp,
		Written: func(all []*results.File) { engine.WriteStacks(req.Stderr, all...) },
	})
	if err != nil {
		return err
	}
	if interrupted {
		return exitcode.With(cause.Code(), pw.Interrupted(cause))
	}
	if err := pw.Err(); runErr == nil && err != nil {
		return exitcode.With(exitcode.Failure, err)
	}
	return runErr
}
