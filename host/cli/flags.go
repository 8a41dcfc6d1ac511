package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/shard"
)

// Flag validation: every flag is checked before anything is loaded or
// run (run.Options.Check checks what is the run's), so a bad value is
// exit 2 with a message naming the flag.

// checkFlags validates every flag of a run before the scenario is
// loaded, and maps them to the run.Request ro.req: run.Options.Check
// checks what is the run's.
func (ro *runOptions) checkFlags(ctx context.Context) error {
	o, err := ro.options()
	if err != nil {
		return err
	}
	if err := cmdutil.Flagged(o.Check()); err != nil {
		return err
	}
	sb, err := ro.sandbox.Config()
	if err != nil {
		return err
	}
	with, err := ro.added()
	if err != nil {
		return err
	}
	if o.Gate, err = ro.gate.Parse(); err != nil {
		return withCode(ExitInput, err) // checked even without --baseline: a typo is a typo
	}
	ropts, formats, err := ro.output.parse()
	if err != nil {
		return err
	}
	for _, out := range []struct {
		flag, path string
		dir        bool
	}{{"--out", ro.out, false}, {"--save-baseline", ro.gate.SaveBaseline, false}, {"--plot", ro.output.plotDir, true}} {
		if err := cmdutil.CheckOutDir(out.flag, out.path, out.dir); err != nil {
			return err
		}
	}
	ro.req = run.Request{Host: ro.host(ctx, ro.f, sb), Scenario: ro.scenario, Options: o, AuditGiven: cmdutil.Changed(ro.flags, "audit"),
		With: with, CompareTo: ro.compareTo, Compare: compare.Options{Metric: ro.gate.Metric, Alpha: ro.gate.Alpha},
		Rules: ro.gate.Rules(), GateFormat: ro.gate.Format, Report: ropts, Config: ro.f.Config,
		Figures: report.Figures{Dir: ro.output.plotDir, Formats: formats, Options: plot.Options{LogX: ro.output.logX, LogY: ro.output.logY}}}
	return nil
}

// options maps the flags of both commands that run policies to the
// run.Options that Check checks.
func (o *policyRunOptions) options(fs *pflag.FlagSet) run.Options {
	return run.Options{Jobs: o.jobs, StepTimeout: o.stepTimeout, StartTimeout: o.startTimeout,
		Overrides: run.Overrides{Runs: override(fs, "runs", &o.runs), Horizon: override(fs, "horizon", &o.horizon)}}
}

// options maps the flags of a run to the run.Options that Check checks
// and run.Run plays: --shard and --seed are parsed here.
func (ro *runOptions) options() (opts run.Options, err error) {
	opts = ro.policyRunOptions.options(ro.flags)
	opts.Batch, opts.Audit, opts.Out, opts.Resume, opts.Name = ro.batch, ro.audit, ro.out, ro.resume, cmdutil.FlagOf
	opts.Baseline, opts.SaveBaseline, opts.Sequential = ro.gate.Baseline, ro.gate.SaveBaseline, ro.gate.Sequential
	opts.Overrides.Policies, opts.Replication = ro.policies, override(ro.flags, "replication", &ro.replication)
	if ro.shard != "" {
		if opts.Shard, err = shard.Parse(ro.shard); err != nil {
			var se *shard.SpecError
			if errors.As(err, &se) {
				err = fmt.Errorf("--shard %q: %w", se.Spec, se.Err)
			}
			return opts, withCode(ExitInput, err)
		}
	}
	return opts, ro.seed.overrides(ro.flags, &opts.Overrides)
}

// override returns v when the flag name was given, nil otherwise.
func override(fs *pflag.FlagSet, name string, v *int) *int {
	if cmdutil.Changed(fs, name) {
		return v
	}
	return nil
}
