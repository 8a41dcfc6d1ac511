package run

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/exitcode"
)

// Option names an option of a run (a field of Request, Options,
// Overrides or PaperRequest), as OptionError names the one at fault. A
// command maps it to what its user typed (bench: a flag).
type Option string

// The options of a run and of bench paper that an OptionError names.
const (
	OptRuns         Option = "Runs"         // Overrides.Runs, PaperRequest.Runs
	OptHorizon      Option = "Horizon"      // Overrides.Horizon, PaperRequest.Horizon
	OptSeed         Option = "Seed"         // Overrides.Seed
	OptSeedFile     Option = "SeedFile"     // Overrides.SeedFile
	OptPolicies     Option = "Policies"     // Overrides.Policies
	OptBatch        Option = "Batch"        // Options.Batch
	OptJobs         Option = "Jobs"         // Options.Jobs
	OptAudit        Option = "Audit"        // Options.Audit
	OptStepTimeout  Option = "StepTimeout"  // Options.StepTimeout
	OptStartTimeout Option = "StartTimeout" // Options.StartTimeout
	OptShard        Option = "Shard"        // Options.Shard
	OptReplication  Option = "Replication"  // Options.Replication
	OptOut          Option = "Out"          // Options.Out; PaperRequest.Dir
	OptResume       Option = "Resume"       // Options.Resume
	OptBaseline     Option = "Baseline"     // Options.Baseline
	OptSaveBaseline Option = "SaveBaseline" // Options.SaveBaseline
	OptSequential   Option = "Sequential"   // Options.Sequential
	OptLooks        Option = "Looks"        // gate.Options.Looks
	OptWith         Option = "With"         // Request.With, PaperRequest.With (an Added's Spec)
	OptCompareTo    Option = "CompareTo"    // Request.CompareTo
	OptCompare      Option = "Compare"      // PaperRequest.Compare (metric and alpha)
	OptAt           Option = "At"           // Request.Report.At
	OptPlot         Option = "Plot"         // Request.Figures.Dir
	OptConfig       Option = "Config"       // Request.Config: the command's own configuration file
	OptRoundsLog    Option = "RoundsLog"    // Options.RoundsLog
)

// OptionNames lists every Option, for a command to check it names each.
var OptionNames = []Option{OptRuns, OptHorizon, OptSeed, OptSeedFile, OptPolicies, OptBatch, OptJobs, OptAudit, OptStepTimeout, OptStartTimeout, OptShard, OptReplication, OptOut, OptResume, OptBaseline, OptSaveBaseline, OptSequential, OptLooks, OptWith, OptCompareTo, OptCompare, OptAt, OptPlot, OptConfig, OptRoundsLog}

// OptionError is an option of a run with a value it cannot take, or
// that cannot be combined with another: an input error (bench exits 2)
// naming the option, its value and why. Its text names options as
// Format's name says; Error names them as the Option constants do.
type OptionError struct {
	Option Option // the option at fault
	Value  string // its value as given, "" when the message does not quote it
	// With is the option (and value) it cannot be combined with, "" for
	// none, written as Err's text writes options.
	With string
	// Err says why. Its text, and With, may name other options as
	// {Name} (an Option in braces), which Format replaces.
	Err error
}

func (e *OptionError) Error() string { return e.Format(func(o Option) string { return string(o) }) }
func (e *OptionError) Unwrap() error { return e.Err }

// optionRef is an option named in an OptionError's text: {Name}.
var optionRef = regexp.MustCompile(`\{[A-Z][A-Za-z]*\}`)

// Format returns the error's text with every option named as name says:
// "OPTION VALUE: why", or "OPTION with OTHER: why"; or why alone when it
// is a sentence of its own, starting with {OPTION}.
func (e *OptionError) Format(name func(Option) string) string {
	known := func(s string) string {
		o := Option(strings.Trim(s, "{}"))
		for _, k := range OptionNames {
			if k == o {
				return name(o)
			}
		}
		return s
	}
	var why string
	if e.Err != nil {
		why = e.Err.Error()
		if e.Value == "" && e.With == "" && strings.HasPrefix(why, "{"+string(e.Option)+"}") {
			return optionRef.ReplaceAllStringFunc(why, known) // a sentence of its own
		}
	}
	var b strings.Builder
	b.WriteString(name(e.Option))
	if e.Value != "" {
		b.WriteString(" " + e.Value)
	}
	if e.With != "" {
		b.WriteString(" with " + optionRef.ReplaceAllStringFunc(e.With, known))
	}
	if e.Err != nil {
		b.WriteString(": " + optionRef.ReplaceAllStringFunc(why, known))
	}
	return b.String()
}

// optErr returns an OptionError of o, its value v ("" for none), and why,
// formatted as fmt.Errorf formats.
func optErr(o Option, v string, format string, a ...any) *OptionError {
	return &OptionError{Option: o, Value: v, Err: fmt.Errorf(format, a...)}
}

// ExitCode is the exit code of an error of this package (a run's, bench
// paper's), as package exitcode lists them: the code it carries, or
// exitcode.Input for an input error (an OptionError, an InputError, a
// UsageError, engine.ErrInput), exitcode.Policy when a policy failed,
// exitcode.Failure for anything else; exitcode.OK for nil.
func ExitCode(err error) int {
	if err == nil {
		return exitcode.OK
	}
	if code, ok := exitcode.Of(err); ok {
		return code
	}
	var (
		input *InputError
		usage *UsageError
		opt   *OptionError
	)
	switch {
	case errors.As(err, &input), errors.As(err, &usage), errors.As(err, &opt), errors.Is(err, engine.ErrInput):
		return exitcode.Input
	case errors.Is(err, engine.ErrPolicyFailed):
		return exitcode.Policy
	}
	return exitcode.Failure
}
