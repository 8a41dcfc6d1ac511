package cli

import (
	"errors"
	"strings"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/run"
)

// Exit codes of bench, as package exitcode lists them (its doc says
// what each means). They are part of its interface: scripts and CI
// depend on them.
const (
	ExitOK           = exitcode.OK
	ExitFailure      = exitcode.Failure
	ExitRegression   = exitcode.Regression
	ExitInput        = exitcode.Input
	ExitPolicy       = exitcode.Policy
	ExitInconclusive = exitcode.Inconclusive
	ExitInterrupted  = exitcode.Interrupted
	ExitTerminated   = exitcode.Terminated
)

// withCode returns err carrying the exit code code.
func withCode(code int, err error) error { return exitcode.With(code, err) }

// ExitCode maps an error returned by Run to the process exit code
// (run.ExitCode).
func ExitCode(err error) int { return run.ExitCode(err) }

// flags names each option of package run as bench's flags do.
var flags = map[run.Option]string{
	run.OptRuns: "--runs", run.OptHorizon: "--horizon", run.OptSeed: "--seed", run.OptSeedFile: "--seed-file",
	run.OptPolicies: "--policy", run.OptBatch: "--batch", run.OptJobs: "--jobs", run.OptAudit: "--audit",
	run.OptStepTimeout: "--step-timeout", run.OptStartTimeout: "--start-timeout", run.OptShard: "--shard",
	run.OptReplication: "--replication", run.OptOut: "--out", run.OptResume: "--resume", run.OptBaseline: "--baseline",
	run.OptSaveBaseline: "--save-baseline", run.OptSequential: "--sequential", run.OptLooks: "--looks",
	run.OptWith: "--with", run.OptCompareTo: "--compare-to", run.OptCompare: "--metric or --alpha", run.OptAt: "--at",
	run.OptPlot: "--plot", run.OptConfig: "--config",
}

// flagOf is the flag of option o.
func flagOf(o run.Option) string {
	if f, ok := flags[o]; ok {
		return f
	}
	return string(o)
}

// flagError is an error of package run as bench states it: its
// OptionError's option named by its flag.
type flagError struct {
	msg string
	err error
}

func (e *flagError) Error() string { return e.msg }
func (e *flagError) Unwrap() error { return e.err }

// flagged states err, an error of package run, as bench does: the
// option of its OptionError named by its flag, and a UsageError marked
// as one (Run prints the usage hint after it).
func flagged(err error) error { return flaggedAs(err, flagOf) }

// flaggedAs is flagged, with the options named as name says.
func flaggedAs(err error, name func(run.Option) string) error {
	if err == nil {
		return nil
	}
	var opt *run.OptionError
	if errors.As(err, &opt) {
		err = &flagError{strings.Replace(err.Error(), opt.Error(), opt.Format(name), 1), err}
	}
	err = sandboxFlagError(err)
	var u *run.UsageError
	if errors.As(err, &u) {
		return withCode(ExitInput, usageError{err})
	}
	return err
}
