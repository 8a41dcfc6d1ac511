package cli

import (
	"errors"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/run"
)

// Exit codes of bench. They are part of its interface: scripts and CI
// depend on them.
const (
	ExitOK          = 0   // success; for gate: no regression
	ExitFailure     = 1   // unexpected error; for gate: a regression
	ExitInput       = 2   // usage or input error (bad flags, scenario, files)
	ExitPolicy      = 3   // a policy failed; the others' results were still written
	ExitInterrupted = 130 // SIGINT; partial results written, marked incomplete
	ExitTerminated  = 143 // SIGTERM; likewise
)

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// ExitCode maps an error returned by Run to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	var input *run.InputError
	switch {
	case errors.As(err, &input), errors.Is(err, engine.ErrInput):
		return ExitInput
	case errors.Is(err, engine.ErrPolicyFailed):
		return ExitPolicy
	}
	return ExitFailure
}
