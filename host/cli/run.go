package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/gate"
	"github.com/regretbench/regretbench/host/internal/flagconfig"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// defaultStepTimeout is the --step-timeout of a run and of bench paper.
const defaultStepTimeout = 5 * time.Minute

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
	sandbox      cmdutil.SandboxOptions
}

// host maps the flags every command that runs policies shares, parsed
// (sandbox, the --with specs), to what run needs of the command: where
// plugins are found, the sandbox, and where it speaks.
func (o *policyRunOptions) host(ctx context.Context, f *cmdutil.Factory, sb sandbox.Config) run.Host {
	return run.Host{Plugins: f.Plugins(), Sandbox: sb, Command: command(ctx), Quiet: o.quiet,
		Stdout: f.Stdout, Stderr: f.Stderr, Progress: f.ProgressOut()}
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
	fs.DurationVar(&o.startTimeout, "start-timeout", cmdutil.DefaultStartTimeout, "fail a plugin that does not complete its handshake within this time")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress")
	fs.StringArrayVar(&o.with, "with", nil, help.with)
	fs.SetAnnotation("with", flagconfig.NoSplit, []string{"true"}) // one spec per BENCH_WITH: specs hold commas
	cmdutil.AddSandboxFlags(fs, &o.sandbox)
}

// runOptions are the flags of a run: bench run, and the root's own form
// bench --scenario X (each command has its own).
type runOptions struct {
	f     *cmdutil.Factory
	flags *pflag.FlagSet // the command's flags, to tell which were given

	policyRunOptions
	scenario  string
	seed      seedOptions // --seed, --seed-file
	policies  []string
	out       string
	batch     int
	gate      gate.Options  // --baseline and friends: the one-call gate
	output    outputOptions // --format, --at, --plot, --plot-format
	shard     string        // --shard I/N
	resume    bool
	compareTo string // --compare-to LABEL: the comparison's reference
	audit     int    // --audit N: replications per policy replayed alone
	// replication is --replication I: play only replication I, when the
	// flag was given (changed; run.Options.Replication).
	replication int
	req         run.Request // the flags as checkFlags maps them
	// suite is --suite NAME (bench run only): play every scenario of
	// the suite; suiteReq is the request runSuite maps the flags to.
	suite    string
	suiteReq run.SuiteRequest
	// roundsLog is --rounds-log FILE (run.Options.RoundsLog).
	roundsLog string
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
	gate.AddRunFlags(fs, &ro.gate)
	addOutputFlags(fs, &ro.output)
	fs.StringVar(&ro.roundsLog, "rounds-log", "", "contextual scenarios: write every round of every replication of every policy (row, arm, probability, reward, regret) to this gzipped CSV file (FILE.csv.gz), for logged-data evaluation (docs/contextual.md)")
}

// newCmdRun returns bench run. runF, when not nil, receives the checked
// options in place of running the scenario (for tests).
func newCmdRun(f *cmdutil.Factory, runF func(*runOptions) error) *cobra.Command {
	o := &runOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a scenario (the same as bench --scenario ...)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.suite != "" {
				return o.runSuite(cmd, runF)
			}
			if o.scenario == "" {
				return withCode(ExitInput, fmt.Errorf("run: --scenario is required (one of the shipped scenarios or a YAML file; see 'bench scenarios'), or --suite (the suites: %s)", strings.Join(run.Suites(), ", ")))
			}
			return o.run(cmd, runF)
		},
	}
	addRunFlags(cmd.Flags(), o)
	cmd.Flags().StringVar(&o.suite, "suite", "", suiteHelp)
	return cmd
}

// run checks the flags of cmd, then runs the scenario, or runF instead
// when it is not nil.
func (ro *runOptions) run(cmd *cobra.Command, runF func(*runOptions) error) error {
	ro.flags = cmd.Flags()
	if err := ro.checkFlags(cmd.Context()); err != nil {
		return err
	}
	ro.req.Options.RoundsLog = ro.roundsLog
	if runF != nil {
		return runF(ro)
	}
	_, err := run.Run(cmd.Context(), ro.req)
	return cmdutil.Flagged(err)
}

// SignalContext returns a context cancelled on SIGINT or SIGTERM, with the
// signal as its cause, and a function that stops listening; a second
// signal kills the plugins and exits at once (run.SignalContext).
func SignalContext(parent context.Context) (context.Context, func()) {
	return run.SignalContext(parent)
}
