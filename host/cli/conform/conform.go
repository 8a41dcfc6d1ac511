// Package conform is the bench conform command: it checks a plugin
// executable, in any language, against the conformance kit (host/conform)
// over every transport it offers, and exits 1 when a rule fails.
package conform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/conform"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/flagconfig"
	"github.com/regretbench/regretbench/host/internal/interrupt"
	"github.com/regretbench/regretbench/internal/wire"
)

// Options are the argument and flags of bench conform.
type Options struct {
	F            *cmdutil.Factory
	Target       string   // NAME|PATH of the plugin
	Quick        bool     // --quick
	Family       string   // --family
	Only         []string // --rule
	Seed         string   // --seed; "": a random one
	Verbose      bool     // -v
	StartTimeout time.Duration
	StepTimeout  time.Duration
	Sandbox      cmdutil.SandboxOptions
}

// defaultConformStepTimeout is bench conform's --step-timeout: the kit's
// sessions are small, so a call that takes longer than this is stuck.
const defaultConformStepTimeout = 30 * time.Second

// NewCmdConform returns bench conform. runF, when not nil, receives the
// options in place of checking the plugin (for tests).
func NewCmdConform(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "conform NAME|PATH",
		Short: "Check that a plugin executable, in any language, follows the plugin contract",
		Long: `Run the conformance kit against a plugin executable: NAME is looked up in
the plugin search path as bench-plugin-NAME (--plugin-dir, BENCH_PLUGIN_PATH,
then the shipped plugins beside bench), and a PATH (one
holding a /) is used as it is. The plugin is launched as a run launches it,
over every transport it offers (the step socket, the Steps stream, unary
Step), and checked against the rules of the Go SDK's sdktest package: the
very same catalogue, so a Go plugin that passes its sdktest tests passes
here.

Every session's policy seed, arms, horizon and replications are drawn from
one seed, random unless --seed gives it, printed on the first line: the
same seed (and --quick) replays the very same sessions. The sizes range
over real scenarios' (2 to 100 arms, horizons of tens to tens of
thousands of rounds, 1 to hundreds of replications), half of them round
values such as the shipped scenarios' (2,000 or 20,000 rounds, 10 arms),
so a plugin cannot tell the kit's sessions from a run's.

Each failed rule is reported on one line with its first failure, the rule
it breaks and the command that replays it; passing rules are counted. -v
prints every rule over every transport, with every failure and the
sessions played:

  PASS valid-arms/socket
  FAIL batch-split/grpc-unary: alone it pulls arm 2, in the batch of 40 arm 0 (round 7, replication 13)
  SKIP ...: why the rule was not checked

The last line counts them: N passed, N failed. A plugin that does not
answer Open, Step or Close within --step-timeout (Describe: within
--start-timeout) fails the rule; it is killed, and the next rule starts a
fresh one. After a hang over a transport the later checks over it are not
run, and after two hangs no check that plays a session is (each says so,
SKIP ... not run): a plugin that hangs costs about two step timeouts.

--rule NAME checks only the rules named. The rules: ` + conform.RuleNames(len("--rule NAME checks only the rules named. The rules: ")) + `.

Exit codes: 0 when every rule passes; 1 when a rule fails; 2 on a usage
error or when the plugin is not found; 130 (143) on SIGINT (SIGTERM).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Target = args[0]
			if err := cmdutil.CheckTimeouts(o.StepTimeout, o.StartTimeout); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return conformRun(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.Quick, "quick", false, "smaller sessions (at most 300 rounds, 100 replications; round ones of 2,000 or 3,000 rounds rarer), the long ones kept: faster, less thorough")
	fs.StringVar(&o.Family, "family", "gaussian", "the reward family the kit's sessions declare: gaussian or bernoulli (for a plugin that models only one; the shipped logts takes bernoulli)")
	fs.StringSliceVar(&o.Only, "rule", nil, "check only this rule (repeatable, or comma-separated; the handshake is always checked)")
	fs.StringVar(&o.Seed, "seed", "", "the seed of every session (0x... or decimal), as a run printed it; default (or random): a random one. Not read from BENCH_SEED or --config, which hold the scenario's")
	fs.SetAnnotation("seed", flagconfig.CommandLineOnly, []string{"true"})
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "print every rule over every transport, every failure and the sessions played")
	fs.DurationVar(&o.StepTimeout, "step-timeout", defaultConformStepTimeout, "fail a rule whose plugin does not answer Open, a round or Close within this time")
	fs.DurationVar(&o.StartTimeout, "start-timeout", cmdutil.DefaultStartTimeout, "fail a plugin that does not complete its handshake and Describe within this time")
	cmdutil.AddSandboxFlags(fs, &o.Sandbox)
	return cmd
}

// conformRun checks the plugin o names against the conformance kit.
func conformRun(ctx context.Context, o *Options) error {
	seed, err := conform.ParseSeed(o.Seed)
	if err != nil {
		return exitcode.With(exitcode.Input, fmt.Errorf("--seed: %w", err))
	}
	path, err := conform.Target(o.F.Plugins(), o.Target)
	if err != nil {
		return exitcode.With(exitcode.Input, cmdutil.Flagged(err))
	}
	plan, err := o.Sandbox.Plan(o.F.Stderr)
	if err != nil {
		return err
	}
	if err := conform.CheckRules(o.Only); err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	family := wire.Family(o.Family)
	if family != wire.Gaussian && family != wire.Bernoulli {
		return exitcode.With(exitcode.Input, fmt.Errorf("--family %q: want gaussian or bernoulli", o.Family))
	}
	err = conform.Run(ctx, conform.Config{Path: path, Seed: seed, Plan: plan, Rules: o.Only, Quick: o.Quick, Family: family, Verbose: o.Verbose,
		StartTimeout: o.StartTimeout, StepTimeout: o.StepTimeout, Stdout: o.F.Stdout, Stderr: o.F.Stderr})
	if ctx.Err() != nil {
		if c, ok := interrupt.Of(ctx); ok {
			return exitcode.With(c.Code(), c)
		}
		return exitcode.With(exitcode.Interrupted, errors.New("interrupted"))
	}
	return exitcode.With(exitcode.Failure, err)
}
