package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
)

// Flag validation: every numeric and duration flag is checked before
// anything is loaded or run, so a bad value is exit 2 with a message
// naming the flag, never a panic deep in a run nor a silent default.

// changed reports whether the flag name was given (on the command line, in
// BENCH_* or in the config file).
func changed(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}

// checkCount checks an override of the runs or horizon: when given, it is
// at least 1 and at most max.
func checkCount(fs *pflag.FlagSet, name string, v, max int) error {
	if !changed(fs, name) {
		return nil
	}
	if v < 1 {
		return withCode(ExitInput, fmt.Errorf("--%s %d: must be >= 1", name, v))
	}
	if v > max {
		return withCode(ExitInput, fmt.Errorf("--%s %d: exceeds the maximum %d", name, v, max))
	}
	return nil
}

// checkTimeouts checks --step-timeout and --start-timeout, which must be
// positive: a negative step timeout panicked (time.NewTicker), zero meant
// a default silently.
func checkTimeouts(step, start time.Duration) error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"step-timeout", step}, {"start-timeout", start}} {
		if d.v <= 0 {
			return withCode(ExitInput, fmt.Errorf("--%s %v: must be > 0, e.g. 30s or 5m", d.name, d.v))
		}
	}
	return nil
}

// checkNonNegative checks the flags whose 0 means "the default": --batch
// and --jobs. A negative value used to mean the default silently.
func checkNonNegative(name string, v int) error {
	if v < 0 {
		return withCode(ExitInput, fmt.Errorf("--%s %d: must be >= 0 (0: the default)", name, v))
	}
	return nil
}

// checkFlags validates every flag of a run before the scenario is loaded.
func (ro *runOptions) checkFlags() error {
	fs := ro.flags
	if err := checkCount(fs, "runs", ro.runs, scenario.MaxRuns); err != nil {
		return err
	}
	if err := checkCount(fs, "horizon", ro.horizon, scenario.MaxHorizon); err != nil {
		return err
	}
	if err := checkNonNegative("batch", ro.batch); err != nil {
		return err
	}
	if err := checkNonNegative("jobs", ro.jobs); err != nil {
		return err
	}
	if ro.audit < 0 {
		return withCode(ExitInput, fmt.Errorf("--audit %d: must be >= 0 (0: no audit)", ro.audit))
	}
	if err := checkTimeouts(ro.stepTimeout, ro.startTimeout); err != nil {
		return err
	}
	if err := ro.sandbox.check(); err != nil {
		return err
	}
	if err := ro.checkWith(); err != nil {
		return err
	}
	if ro.shard != "" {
		if _, err := shard.Parse(ro.shard); err != nil {
			return withCode(ExitInput, err)
		}
	}
	if err := ro.seed.check(fs, ro.shard != "", ro.resume); err != nil {
		return err
	}
	if _, err := ro.gate.options(); err != nil {
		return withCode(ExitInput, err) // checked even without --baseline: a typo is a typo
	}
	if ro.gate.sequential {
		switch {
		case ro.gate.baseline == "":
			return withCode(ExitInput, fmt.Errorf("--sequential needs --baseline FILE: its looks gate the run against it"))
		case ro.shard != "" || ro.resume || ro.audit > 0:
			return withCode(ExitInput, fmt.Errorf("--sequential runs the replications in groups of its own: it cannot be combined with --shard, --resume or --audit"))
		}
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

// checkShard checks --shard I/N against the scenario: more shards than
// runs would leave shards without a replication (it divided by zero).
func checkShard(spec shard.Spec, runs int) error {
	if spec.Count > runs {
		return withCode(ExitInput, fmt.Errorf("--shard %d/%d: %d shards of %d runs would leave some empty; use at most %d shards",
			spec.Index, spec.Count, spec.Count, runs, runs))
	}
	return nil
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
	if err := checkCount(o.flags, "runs", o.runs, scenario.MaxRuns); err != nil {
		return err
	}
	if err := checkCount(o.flags, "horizon", o.horizon, scenario.MaxHorizon); err != nil {
		return err
	}
	if err := checkNonNegative("jobs", o.jobs); err != nil {
		return err
	}
	if err := o.sandbox.check(); err != nil {
		return err
	}
	if err := o.checkWith(); err != nil {
		return err
	}
	if err := checkOutDir("--out", o.dir, true); err != nil {
		return err
	}
	return checkTimeouts(o.stepTimeout, o.startTimeout)
}

// checkOutputs refuses an --out or --save-baseline that is an input of
// the run (the scenario file, the --baseline, the --config file, a
// plugin), a symbolic link or not a regular file, before anything runs.
func (ro *runOptions) checkOutputs(sc *scenario.Scenario) error {
	var scenarioFile string
	if !strings.HasPrefix(sc.Source, "embedded:") {
		scenarioFile = sc.Source
	}
	inputs := [][2]string{{"the scenario file", scenarioFile}, {"the --baseline", ro.gate.baseline}, {"the --config file", ro.f.config}}
	dirs := ro.f.plugins()
	for _, p := range sc.Policies {
		if path, err := dirs.Find(p.Plugin); err == nil {
			inputs = append(inputs, [2]string{fmt.Sprintf("the plugin of policy %q", p.Label), path})
		}
	}
	if err := checkOut("--out", ro.out, inputs); err != nil {
		return err
	}
	return checkOut("--save-baseline", ro.gate.saveBaseline, inputs)
}
