package cli

import (
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
