package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/run"
)

// suiteFlags are the flags of bench run that apply to a whole suite
// (--suite): every other flag of bench run names one scenario's run (its
// shard, its baseline, its report's formats) and is refused with --suite
// rather than silently ignored. bench's global flags (--plugin-dir,
// --config, ...) apply to every command, a suite included.
var suiteFlags = []string{
	"suite", "runs", "horizon", "jobs", "step-timeout", "start-timeout", "quiet",
	"seed", "seed-file", "policy", "out", "plot-format", "audit", "with",
	"sandbox", "sandbox-read", "limit-memory", "limit-tasks", "limit-files", "limit-disk", "limit-disk-files", "limit-by",
}

const suiteHelp = "play every scenario of a suite instead of one scenario: contextual (every shipped contextual scenario, with the policy x scenario table of progressive-validation loss and the bake-off's pairwise summary; --with adds your policy to every scenario); --out is then a directory of every scenario's results, reports and figures (--plot-format) and the suite's tables, index.html included"

// runSuite checks the flags of bench run --suite and plays the suite, or
// hands the request to runF (tests).
func (ro *runOptions) runSuite(cmd *cobra.Command, runF func(*runOptions) error) error {
	ro.flags = cmd.Flags()
	if !slices.Contains(run.Suites(), ro.suite) {
		return withCode(ExitInput, fmt.Errorf("--suite %q: no such suite (the suites: %s)", ro.suite, strings.Join(run.Suites(), ", ")))
	}
	var bad []string
	global := cmd.InheritedFlags()
	ro.flags.Visit(func(f *pflag.Flag) {
		if global.Lookup(f.Name) == nil && !slices.Contains(suiteFlags, f.Name) {
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) > 0 {
		return withCode(ExitInput, fmt.Errorf("%s cannot be used with --suite: they set one scenario's run (the flags a suite takes: --%s)",
			strings.Join(bad, ", "), strings.Join(suiteFlags[1:], ", --")))
	}
	opts := ro.policyRunOptions.options(ro.flags)
	opts.Overrides.Policies = ro.policies
	if err := ro.seed.overrides(ro.flags, &opts.Overrides); err != nil {
		return err
	}
	if err := cmdutil.Flagged(opts.Check()); err != nil {
		return err
	}
	sb, err := ro.sandbox.Config()
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOutDir("--out", ro.out, true); err != nil {
		return err
	}
	formats, err := plot.ParseFormats(ro.output.plotFormats)
	if err != nil {
		return withCode(ExitInput, fmt.Errorf("--plot-format: %w", err))
	}
	with, err := ro.added()
	if err != nil {
		return err
	}
	ro.suiteReq = run.SuiteRequest{With: with, Host: ro.host(cmd.Context(), ro.f, sb), Suite: ro.suite, Overrides: opts.Overrides,
		Dir: ro.out, Formats: formats, Jobs: ro.jobs, StepTimeout: ro.stepTimeout, StartTimeout: ro.startTimeout}
	if cmdutil.Changed(ro.flags, "audit") {
		ro.suiteReq.Audit = &ro.audit
	}
	if runF != nil {
		return runF(ro)
	}
	_, err = run.Suite(cmd.Context(), ro.suiteReq)
	return cmdutil.Flagged(err)
}
