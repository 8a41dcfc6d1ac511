// Package exitcode is the one table of bench's exit codes, and the error
// that carries one to the command line. The codes are part of bench's
// interface: scripts and CI depend on them. Every package that decides
// how bench exits (host/gate for a gate's verdict, host/run for a run,
// host/internal/interrupt for a signal, host/cli for the rest) takes its
// codes from here.
//
// When several apply, a gate call exits with the first of Input, Policy,
// Regression, Inconclusive; a run interrupted by a signal with the
// signal's code.
package exitcode

import "errors"

// The exit codes of bench.
const (
	// OK: success; for a gate, no regression (every policy better, same
	// or inconclusive).
	OK = 0
	// Failure: an unexpected error, or a check that failed (bench
	// conform's rules, a figure that could not be written).
	Failure = 1
	// Regression: a gate found a policy worse than its baseline (with
	// --require-same, any change). The same number as Failure: a gate
	// maps every unexpected error to Input, so that 1 means a regression
	// only.
	Regression = 1
	// Input: a usage or input error: a bad flag, scenario or results
	// file, baseline and current results of different experiments.
	Input = 2
	// Policy: a policy failed (the others' results were still written),
	// or, for a gate, failed in or is missing from the current results;
	// for bench plugins, a plugin that could not describe itself.
	Policy = 3
	// Inconclusive: a gate comparison was inconclusive and
	// --require-conclusive is set.
	Inconclusive = 4
	// Interrupted: SIGINT (128 + 2); partial results written, marked
	// incomplete.
	Interrupted = 130
	// Terminated: SIGTERM (128 + 15); likewise.
	Terminated = 143
)

// Error is an error with the exit code bench exits with for it.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// With returns err carrying code; nil when err is nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Of returns the code the first *Error in err's chain carries; ok is
// false when there is none.
func Of(err error) (code int, ok bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}
