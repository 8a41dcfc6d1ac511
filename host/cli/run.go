package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/internal/flagconfig"
	"github.com/regretbench/regretbench/host/internal/interrupt"
	"github.com/regretbench/regretbench/host/progress"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/seed"
)

// Defaults of the timeouts of the commands that launch plugins.
const (
	defaultStepTimeout  = 5 * time.Minute
	defaultStartTimeout = 10 * time.Second
)

// policyRunOptions are the flags of both commands that run policies: a
// run (bench run, and the root's bench --scenario) and bench paper. They
// are defined once, embedded in runOptions and paperOptions and registered
// by addPolicyRunFlags.
type policyRunOptions struct {
	runs         int           // --runs: the replications, when changed
	horizon      int           // --horizon: T, when changed
	jobs         int           // --jobs: policies at once; 0 for one per core
	stepTimeout  time.Duration // --step-timeout
	startTimeout time.Duration // --start-timeout
	quiet        bool          // --quiet: no progress
	with         []string      // --with SPEC: policies added to the scenarios
	sandbox      sandboxOptions
	plan         *sandbox.Plan // decided by launch, once
}

// launch returns the launcher of the command's plugins from the plugin
// search path (run.Launcher), deciding the sandbox they run under on its
// first call.
func (o *policyRunOptions) launch(f *factory) (engine.Launcher, error) {
	if o.plan == nil {
		p, err := o.sandbox.plan(f.stderr)
		if err != nil {
			return nil, err
		}
		o.plan = p
	}
	return run.Launcher(f.plugins(), o.startTimeout, o.plan, f.stderr), nil
}

// policyRunHelp is the help of the policyRunOptions flags whose meaning
// differs between a run (one scenario) and bench paper (all of them).
type policyRunHelp struct{ runs, horizon, jobs, with string }

// addPolicyRunFlags registers the flags of o on fs, with help for those
// whose help differs between the commands.
func addPolicyRunFlags(fs *pflag.FlagSet, o *policyRunOptions, help policyRunHelp) {
	fs.IntVar(&o.runs, "runs", 0, help.runs)
	fs.IntVar(&o.horizon, "horizon", 0, help.horizon)
	fs.IntVar(&o.jobs, "jobs", 0, help.jobs)
	fs.DurationVar(&o.stepTimeout, "step-timeout", defaultStepTimeout, "fail a policy whose plugin does not answer a round within this time")
	fs.DurationVar(&o.startTimeout, "start-timeout", defaultStartTimeout, "fail a plugin that does not complete its handshake within this time")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress")
	fs.StringArrayVar(&o.with, "with", nil, help.with)
	fs.SetAnnotation("with", flagconfig.NoSplit, []string{"true"}) // one spec per BENCH_WITH: specs hold commas
	addSandboxFlags(fs, &o.sandbox)
}

// runOptions are the flags of a run: bench run, and the root's own form
// bench --scenario X (each command has its own).
type runOptions struct {
	f     *factory
	flags *pflag.FlagSet // the command's flags, to tell which were given

	policyRunOptions
	scenario  string
	seed      seedOptions // --seed, --seed-file
	policies  []string
	out       string
	batch     int
	gate      gateOptions   // --baseline and friends: the one-call gate
	output    outputOptions // --format, --at, --plot, --plot-format
	shard     string        // --shard I/N
	resume    bool
	compareTo string // --compare-to LABEL: the comparison's reference
	audit     int    // --audit N: replications per policy replayed alone
	// replication is --replication I: play only replication I, when the
	// flag was given (changed; run.Options.Replication).
	replication int
	opts        run.Options // the flags as checkFlags maps them
}

func addRunFlags(fs *pflag.FlagSet, ro *runOptions) {
	fs.StringVarP(&ro.scenario, "scenario", "s", "", "scenario: a shipped name (see 'bench scenarios') or a YAML file")
	addPolicyRunFlags(fs, &ro.policyRunOptions, policyRunHelp{
		runs:    "override the scenario's number of replications",
		horizon: "override the scenario's horizon T",
		jobs:    "policies run at once (0: one per core)",
		with:    withHelp,
	})
	addSeedFlags(fs, &ro.seed)
	fs.StringArrayVar(&ro.policies, "policy", nil, "run only the policy with this label (repeatable)")
	fs.StringVarP(&ro.out, "out", "o", "", "write the results file (JSON) here")
	fs.IntVar(&ro.batch, "batch", 0, "replications per plugin session (0: half of them, so two sessions overlap; all in one below 64); results do not depend on it")
	fs.StringVar(&ro.shard, "shard", "", "run only shard I/N of the replications (0 <= I < N); merge the shard files with 'bench merge'")
	fs.BoolVar(&ro.resume, "resume", false, "with --out FILE: keep the policies FILE already holds for this scenario and run only the others")
	fs.IntVar(&ro.replication, "replication", 0, "play only replication I (0-based; a results file's distribution.regret.argmax names the worst) of each policy, with the full run's reward streams and policy seeds, to look at it: its values are bit for bit those it has in the full run")
	fs.IntVar(&ro.audit, "audit", 0, "after the run, replay N replications of each policy, drawn at random, each alone in a process of its own; a policy whose replication then differs fails (its arms depended on the other replications). Default: 0, or 3 for a sealed run (--seed random) and where the sandbox leaves channels between policies open; --audit 0 turns that off")
	fs.StringVar(&ro.compareTo, "compare-to", "", "print a comparison section with this policy (a label) as the reference, against every other policy of the scenario")
	addGateRunFlags(fs, &ro.gate)
	addOutputFlags(fs, &ro.output)
}

// newCmdRun returns bench run. runF, when not nil, receives the checked
// options in place of running the scenario (for tests).
func newCmdRun(f *factory, runF func(*runOptions) error) *cobra.Command {
	o := &runOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a scenario (the same as bench --scenario ...)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.scenario == "" {
				return withCode(ExitInput, fmt.Errorf("run: --scenario is required (one of the shipped scenarios or a YAML file; see 'bench scenarios')"))
			}
			return o.run(cmd, runF)
		},
	}
	addRunFlags(cmd.Flags(), o)
	return cmd
}

// run checks the flags of cmd, then runs the scenario, or runF instead
// when it is not nil.
func (ro *runOptions) run(cmd *cobra.Command, runF func(*runOptions) error) error {
	ro.flags = cmd.Flags()
	if err := ro.checkFlags(); err != nil {
		return err
	}
	if runF != nil {
		return runF(ro)
	}
	return runScenario(cmd.Context(), ro)
}

// SignalContext returns a context cancelled on SIGINT or SIGTERM, with the
// signal as its cause, and a function that stops listening; a second
// signal kills the plugins and exits at once (interrupt.Context).
func SignalContext(parent context.Context) (context.Context, func()) {
	return interrupt.Context(parent, client.Cleanup)
}

// loadScenario loads the scenario of the run with ro.opts's changes to
// it (run.Overrides).
func (ro *runOptions) loadScenario() (*scenario.Scenario, error) {
	sc, err := scenario.Resolve(ro.scenario)
	if err != nil {
		return nil, withCode(ExitInput, err)
	}
	return sc, ro.opts.Overrides.Apply(sc, ro.f.stderr)
}

// runScenario runs the scenario of ro, whose flags are checked.
func runScenario(ctx context.Context, ro *runOptions) error {
	sc, err := ro.loadScenario()
	if err != nil {
		return err
	}
	launch, err := ro.launch(ro.f)
	if err != nil {
		return err
	}
	// A sealed run, or one whose sandbox leaves channels between
	// policies open, is audited unless --audit says otherwise.
	ro.opts.SetAuditDefault(changed(ro.flags, "audit"), ro.plan.Layers.String(), ro.plan.OpenChannels(), ro.f.stderr)
	added, err := run.AddWith(ctx, launch, sc, ro.with)
	if err != nil {
		return err
	}
	cmpSpec, err := run.Comparison(sc, added, ro.compareTo) // nil for no comparison section
	if err != nil {
		return err
	}
	if err := ro.checkOutputs(sc); err != nil {
		return err
	}
	base, gateOpt, err := ro.gate.loadBaseline(sc, ro.policies)
	if err != nil {
		return err
	}
	if err := ro.output.check(sc); err != nil {
		return err // bad --format/--at/--plot-format: nothing has run yet
	}
	opts := ro.opts
	opts.Launch, opts.Base, opts.Gate = launch, base, gateOpt
	opts.Start = func(sc *scenario.Scenario) run.Progress {
		if !ro.quiet {
			seed.Announce(ro.f.stderr, sc.Seed)
		}
		pr := progress.New(ro.f.progressOut(), !ro.quiet)
		pr.Order(run.Labels(sc)...)
		return pr
	}
	file, runErr := run.Plan(ctx, sc, opts)
	if file == nil {
		return runErr
	}
	return ro.finish(ctx, file, runErr, base, gateOpt, cmpSpec)
}

// finish renders, writes and gates the results of a run. The tables come
// first, so that results are never lost to an --out that cannot be
// written (a full disk). cmpSpec is what the comparison section compares,
// nil for none.
func (ro *runOptions) finish(ctx context.Context, file *results.File, runErr error, base *results.File, gateOpt gate.Options, cmpSpec *compare.Spec) error {
	engine.WriteStacks(ro.f.stderr, file)
	cmp := run.AttachComparison(file, cmpSpec, compare.Options{Metric: ro.gate.metric, Alpha: ro.gate.alpha}, ro.f.stderr)
	// A figure that cannot be written costs only itself: said now, the
	// results still written and gated, and exit 1 if nothing else fails.
	var figErr *report.FiguresError
	if len(file.Policies) > 0 {
		if err := ro.output.render(ro.f.stdout, file, cmp); errors.As(err, &figErr) {
			fmt.Fprintf(ro.f.stderr, "bench: %v\n", err)
		} else if err != nil {
			return errors.Join(runErr, err)
		}
	}
	if ro.out != "" || ro.gate.saveBaseline != "" {
		stamp(ctx, file) // after the tables: --format json prints the run alone
	}
	if ro.out != "" {
		if err := file.WriteFile(ro.out); err != nil {
			return errors.Join(runErr, fmt.Errorf("--out %s: the results were printed but could not be written: %w", ro.out, err))
		}
	}
	if runErr == nil || errors.Is(runErr, engine.ErrPolicyFailed) {
		err := ro.gate.afterRun(ro.f.stdout, file, runErr, base, gateOpt, ro.output.format)
		if err == nil && figErr != nil {
			return withCode(ExitFailure, fmt.Errorf("--plot %s: some figures could not be written (named above); the others, and the results, were", ro.output.plotDir))
		}
		return err
	}
	if code, err := run.Interrupted(ctx, ro.out); err != nil {
		return withCode(code, err)
	}
	return runErr
}
