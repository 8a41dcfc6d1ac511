package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
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

// checkFlags validates every flag of a run before the scenario is loaded,
// and maps them to ro.opts: run.Options.Check checks what is the run's.
func (ro *runOptions) checkFlags() (err error) {
	if ro.opts, err = ro.options(); err != nil {
		return err
	}
	if err := checked(ro.opts.Check()); err != nil {
		return err
	}
	if err := ro.sandbox.check(); err != nil {
		return err
	}
	if _, err := ro.added(); err != nil {
		return err
	}
	if _, err := ro.gate.options(); err != nil {
		return withCode(ExitInput, err) // checked even without --baseline: a typo is a typo
	}
	if _, _, err := ro.output.parse(); err != nil {
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
	return nil
}

// options maps the flags of both commands that run policies to the
// run.Options that Check checks.
func (o *policyRunOptions) options(fs *pflag.FlagSet) run.Options {
	return run.Options{Jobs: o.jobs, StepTimeout: o.stepTimeout, StartTimeout: o.startTimeout,
		Overrides: run.Overrides{Runs: override(fs, "runs", &o.runs), Horizon: override(fs, "horizon", &o.horizon)}}
}

// options maps the flags of a run to the run.Options that Check checks
// and Plan plays (runScenario adds the plugins, the baseline and the
// progress): --shard and --seed are parsed here.
func (ro *runOptions) options() (opts run.Options, err error) {
	opts = ro.policyRunOptions.options(ro.flags)
	opts.Batch, opts.Audit, opts.Out, opts.Resume, opts.Stderr = ro.batch, ro.audit, ro.out, ro.resume, ro.f.stderr
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

// checked gives an error of run.Options.Check its exit code (2) and, for
// options that cannot be combined, the usage hint.
func checked(err error) error {
	var u *run.UsageError
	if errors.As(err, &u) {
		return withCode(ExitInput, usageError{err})
	}
	return err
}

// checkOut refuses an output path (named by flag) that is one of the
// inputs of the same command, a symbolic link, or not a regular file:
// writing it would destroy the input or replace the link or device; and
// one whose directory is missing or not writable (checkOutDir). inputs
// maps each input's role (e.g. "the scenario") to its path; empty paths
// are ignored.
func checkOut(flag, path string, inputs [][2]string) error {
	if path == "" {
		return nil
	}
	if _, err := safeio.CheckOut(path); err != nil {
		return withCode(ExitInput, fmt.Errorf("%s %s: %w", flag, path, err))
	}
	if err := checkOutDir(flag, path, false); err != nil {
		return err
	}
	for _, in := range inputs {
		if in[1] != "" && safeio.SameFile(path, in[1]) {
			return withCode(ExitInput, fmt.Errorf("%s %s is %s (%s); writing it would destroy an input: choose another file", flag, path, in[0], in[1]))
		}
	}
	return nil
}

// checkOutDir refuses, before anything runs, an output (named by flag)
// that could not be written when the run ends: a file whose directory is
// missing, not a directory or not writable, or (dir) a directory,
// created if missing, whose path is another file or whose nearest
// existing ancestor is not a writable directory. Before, a run of hours
// found out only at its end. An empty path is no output.
func checkOutDir(flag, path string, dir bool) error {
	if path == "" {
		return nil
	}
	if err := safeio.CheckOutDir(path, dir); err != nil {
		return withCode(ExitInput, fmt.Errorf("%s %s: %w", flag, path, err))
	}
	return nil
}

// checkFlags validates the numeric and duration flags of bench paper.
func (o *paperOptions) checkFlags() error {
	if err := o.options(o.flags).Check(); err != nil {
		return err
	}
	if err := o.sandbox.check(); err != nil {
		return err
	}
	if _, err := o.added(); err != nil {
		return err
	}
	return checkOutDir("--out", o.dir, true)
}

// checkOutputs refuses an --out or --save-baseline that is an input of
// the run (the scenario file, the --baseline, the --config file, a
// plugin), a symbolic link or not a regular file, before anything runs.
func (ro *runOptions) checkOutputs(sc *scenario.Scenario) error {
	inputs := ro.opts.Inputs(sc, ro.f.plugins(), ro.f.config)
	if err := checkOut("--out", ro.out, inputs); err != nil {
		return err
	}
	return checkOut("--save-baseline", ro.gate.saveBaseline, inputs)
}

// checkTimeouts checks --step-timeout and --start-timeout (bench conform's).
var checkTimeouts = run.CheckTimeouts
