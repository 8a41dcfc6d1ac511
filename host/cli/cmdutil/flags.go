package cmdutil

import (
	"errors"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/run"
)

// Flags names each option of package run as bench's flags do.
var Flags = map[run.Option]string{
	run.OptRuns: "--runs", run.OptHorizon: "--horizon", run.OptSeed: "--seed", run.OptSeedFile: "--seed-file",
	run.OptPolicies: "--policy", run.OptBatch: "--batch", run.OptJobs: "--jobs", run.OptAudit: "--audit",
	run.OptStepTimeout: "--step-timeout", run.OptStartTimeout: "--start-timeout", run.OptShard: "--shard",
	run.OptReplication: "--replication", run.OptOut: "--out", run.OptResume: "--resume", run.OptBaseline: "--baseline",
	run.OptSaveBaseline: "--save-baseline", run.OptSequential: "--sequential", run.OptLooks: "--looks",
	run.OptWith: "--with", run.OptCompareTo: "--compare-to", run.OptCompare: "--metric or --alpha", run.OptAt: "--at",
	run.OptPlot: "--plot", run.OptConfig: "--config",
	run.OptRoundsLog: "--rounds-log",
}

// FlagOf is the flag of option o.
func FlagOf(o run.Option) string {
	if f, ok := Flags[o]; ok {
		return f
	}
	return string(o)
}

// FlagAs names run.OptOut flag, and the other options by their flags:
// for a command whose output has another flag than --out, or whose --out
// is a run's.
func FlagAs(flag string) func(run.Option) string {
	return func(o run.Option) string {
		if o == run.OptOut {
			return flag
		}
		return FlagOf(o)
	}
}

// flagError is an error of package run as bench states it: its
// OptionError's option named by its flag.
type flagError struct {
	msg string
	err error
}

func (e *flagError) Error() string { return e.msg }
func (e *flagError) Unwrap() error { return e.err }

// Flagged states err, an error of package run, as bench does: the
// option of its OptionError named by its flag, a sandbox.ConfigError's
// setting likewise, a registry.NotFoundError's way to add a plugin
// directory, a gate.IncompatibleError's way to compare anyway, and a run.UsageError marked as a UsageError (Run
// prints the usage hint after it).
func Flagged(err error) error { return FlaggedAs(err, FlagOf) }

// FlaggedAs is Flagged, with the options named as name says.
func FlaggedAs(err error, name func(run.Option) string) error {
	if err == nil {
		return nil
	}
	var opt *run.OptionError
	if errors.As(err, &opt) {
		err = &flagError{strings.Replace(err.Error(), opt.Error(), opt.Format(name), 1), err}
	}
	err = sandboxFlagError(err)
	var nf *registry.NotFoundError
	if errors.As(err, &nf) {
		err = &flagError{strings.Replace(err.Error(), nf.Error(), nf.Text("a directory with --plugin-dir or "+registry.EnvPath), 1), err}
	}
	var inc *gate.IncompatibleError
	if errors.As(err, &inc) {
		err = &flagError{strings.Replace(err.Error(), inc.Error(), inc.Text("--force"), 1), err}
	}
	var u *run.UsageError
	if errors.As(err, &u) {
		return exitcode.With(exitcode.Input, UsageError{err})
	}
	return err
}

// CheckOut refuses an output path (named by flag) that is one of the
// inputs of the same command (inputs maps each one's role to its path),
// a symbolic link, or not a regular file, and one whose directory is
// missing or not writable (run.CheckOutput).
func CheckOut(flag, path string, inputs [][2]string) error {
	return FlaggedAs(run.CheckOutput(run.OptOut, path, inputs), FlagAs(flag))
}

// CheckOutDir refuses, before anything runs, an output (named by flag)
// that could not be written when the command ends (run.CheckOutputDir):
// a run of hours used to find out only at its end. An empty path is no
// output.
func CheckOutDir(flag, path string, dir bool) error {
	return FlaggedAs(run.CheckOutputDir(run.OptOut, path, dir), FlagAs(flag))
}

// CheckTimeouts checks --step-timeout and --start-timeout.
func CheckTimeouts(step, start time.Duration) error { return Flagged(run.CheckTimeouts(step, start)) }
