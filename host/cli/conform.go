package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/conform"
	"github.com/regretbench/regretbench/host/internal/flagconfig"
	"github.com/regretbench/regretbench/host/internal/interrupt"
)

// conformOptions are the argument and flags of bench conform.
type conformOptions struct {
	f            *factory
	target       string   // NAME|PATH of the plugin
	quick        bool     // --quick
	only         []string // --rule
	seed         string   // --seed; "": a random one
	verbose      bool     // -v
	startTimeout time.Duration
	stepTimeout  time.Duration
	sandbox      sandboxOptions
}

// defaultConformStepTimeout is bench conform's --step-timeout: the kit's
// sessions are small, so a call that takes longer than this is stuck.
const defaultConformStepTimeout = 30 * time.Second

// newCmdConform returns bench conform. runF, when not nil, receives the
// options in place of checking the plugin (for tests).
func newCmdConform(f *factory, runF func(*conformOptions) error) *cobra.Command {
	o := &conformOptions{f: f}
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
			o.target = args[0]
			if err := checkTimeouts(o.stepTimeout, o.startTimeout); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return conformRun(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.quick, "quick", false, "smaller sessions (at most 300 rounds, 100 replications; round ones of 2,000 or 3,000 rounds rarer), the long ones kept: faster, less thorough")
	fs.StringSliceVar(&o.only, "rule", nil, "check only this rule (repeatable, or comma-separated; the handshake is always checked)")
	fs.StringVar(&o.seed, "seed", "", "the seed of every session (0x... or decimal), as a run printed it; default (or random): a random one. Not read from BENCH_SEED or --config, which hold the scenario's")
	fs.SetAnnotation("seed", flagconfig.CommandLineOnly, []string{"true"})
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "print every rule over every transport, every failure and the sessions played")
	fs.DurationVar(&o.stepTimeout, "step-timeout", defaultConformStepTimeout, "fail a rule whose plugin does not answer Open, a round or Close within this time")
	fs.DurationVar(&o.startTimeout, "start-timeout", defaultStartTimeout, "fail a plugin that does not complete its handshake and Describe within this time")
	addSandboxFlags(fs, &o.sandbox)
	return cmd
}

// conformRun checks the plugin o names against the conformance kit.
func conformRun(ctx context.Context, o *conformOptions) error {
	seed, err := conform.ParseSeed(o.seed)
	if err != nil {
		return withCode(ExitInput, fmt.Errorf("--seed: %w", err))
	}
	path, err := conform.Target(o.f.plugins(), o.target)
	if err != nil {
		return withCode(ExitInput, err)
	}
	plan, err := o.sandbox.plan(o.f.stderr)
	if err != nil {
		return err
	}
	if err := conform.CheckRules(o.only); err != nil {
		return withCode(ExitInput, err)
	}
	err = conform.Run(ctx, conform.Config{Path: path, Seed: seed, Plan: plan, Rules: o.only, Quick: o.quick, Verbose: o.verbose,
		StartTimeout: o.startTimeout, StepTimeout: o.stepTimeout, Stdout: o.f.stdout, Stderr: o.f.stderr})
	if ctx.Err() != nil {
		if c, ok := interrupt.Of(ctx); ok {
			return withCode(c.Code(), c)
		}
		return withCode(ExitInterrupted, errors.New("interrupted"))
	}
	return withCode(ExitFailure, err)
}
