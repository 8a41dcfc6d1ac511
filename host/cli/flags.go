package cli

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/shard"
)

// Flag validation: every flag is checked before anything is loaded or
// run (run.Options.Check checks what is the run's), so a bad value is
// exit 2 with a message naming the flag.

// changed reports whether the flag name was given (on the command line, in
// BENCH_* or in the config file).
func changed(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}

// checkFlags validates every flag of a run before the scenario is
// loaded, and maps them to the run.Request ro.req: run.Options.Check
// checks what is the run's.
func (ro *runOptions) checkFlags(ctx context.Context) error {
	o, err := ro.options()
	if err != nil {
		return err
	}
	if err := flagged(o.Check()); err != nil {
		return err
	}
	sb, err := ro.sandbox.config()
	if err != nil {
		return err
	}
	with, err := ro.added()
	if err != nil {
		return err
	}
	if o.Gate, err = ro.gate.options(); err != nil {
		return withCode(ExitInput, err) // checked even without --baseline: a typo is a typo
	}
	ropts, formats, err := ro.output.parse()
	if err != nil {
		return err
	}
	for _, out := range []struct {
		flag, path string
		dir        bool
	}{{"--out", ro.out, false}, {"--save-baseline", ro.gate.saveBaseline, false}, {"--plot", ro.output.plotDir, true}} {
		if err := checkOutDir(out.flag, out.path, out.dir); err != nil {
			return err
		}
	}
	ro.req = run.Request{Host: ro.host(ctx, ro.f, sb), Scenario: ro.scenario, Options: o, AuditGiven: changed(ro.flags, "audit"),
		With: with, CompareTo: ro.compareTo, Compare: compare.Options{Metric: ro.gate.metric, Alpha: ro.gate.alpha},
		Rules: ro.gate.rules(), GateFormat: ro.gate.format, Report: ropts, Config: ro.f.config,
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
	opts.Batch, opts.Audit, opts.Out, opts.Resume, opts.Name = ro.batch, ro.audit, ro.out, ro.resume, flagOf
	opts.Baseline, opts.SaveBaseline, opts.Sequential = ro.gate.baseline, ro.gate.saveBaseline, ro.gate.sequential
	opts.Overrides.Policies, opts.Replication = ro.policies, override(ro.flags, "replication", &ro.replication)
	if ro.shard != "" {
		if opts.Shard, err = shard.Parse(ro.shard); err != nil {
			return opts, withCode(ExitInput, err)
		}
	}
	return opts, ro.seed.overrides(ro.flags, &opts.Overrides)
}

// override returns v when the flag name was given, nil otherwise.
func override(fs *pflag.FlagSet, name string, v *int) *int {
	if changed(fs, name) {
		return v
	}
	return nil
}

// checkOut refuses an output path (named by flag) that is one of the
// inputs of the same command (inputs maps each one's role to its path),
// a symbolic link, or not a regular file, and one whose directory is
// missing or not writable (run.CheckOutput).
func checkOut(flag, path string, inputs [][2]string) error {
	return flaggedAs(run.CheckOutput(run.OptOut, path, inputs), flagAs(flag))
}

// checkOutDir refuses, before anything runs, an output (named by flag)
// that could not be written when the command ends (run.CheckOutputDir):
// a run of hours used to find out only at its end. An empty path is no
// output.
func checkOutDir(flag, path string, dir bool) error {
	return flaggedAs(run.CheckOutputDir(run.OptOut, path, dir), flagAs(flag))
}

// flagAs names run.OptOut flag, and the other options by their flags.
func flagAs(flag string) func(run.Option) string {
	return func(o run.Option) string {
		if o == run.OptOut {
			return flag
		}
		return flagOf(o)
	}
}

// checkTimeouts checks --step-timeout and --start-timeout (bench conform's).
func checkTimeouts(step, start time.Duration) error { return flagged(run.CheckTimeouts(step, start)) }
