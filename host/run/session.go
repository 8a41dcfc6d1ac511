package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/internal/interrupt"
	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/progress"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/seed"
)

// Host is what a command that starts plugins gives each of its runs:
// where the plugins are found, the sandbox they run under, and where the
// run speaks.
type Host struct {
	// Plugins is the plugin search path.
	Plugins registry.Path
	// Sandbox is the sandbox the plugins run under, as parsed from the
	// command's options: decided on this machine once, when the first
	// plugin is launched (NewLauncher).
	Sandbox sandbox.Config
	// Command is the command line the run was asked for with, recorded
	// in the results files written (results.File.Stamp).
	Command []string
	// Quiet draws no progress and does not announce the seed.
	Quiet bool
	// Stdout gets the tables; Stderr the notes and warnings; Progress
	// the progress bars, drawn only on a terminal (nil: Stderr).
	Stdout, Stderr, Progress io.Writer
}

// progressOut is where progress bars are drawn.
func (h *Host) progressOut() io.Writer {
	if h.Progress != nil {
		return h.Progress
	}
	return h.Stderr
}

// stamp records in f how it was produced.
func (h *Host) stamp(f *results.File) { f.Stamp(h.Command) }

// NewSandbox decides the sandbox cfg asks for on this machine, once for
// every plugin a command starts: a plan under which no plugin could
// make its socket, a Read path that does not exist, or strict on a
// machine that cannot have it, is an input error (exit 2) saying so.
// Under auto it writes to stderr the one line that says what is missing,
// if anything is.
func NewSandbox(cfg sandbox.Config, stderr io.Writer) (*sandbox.Plan, error) {
	p, err := launch.Plan(cfg)
	if err != nil {
		return nil, exitcode.With(exitcode.Input, err)
	}
	if w := p.Warning(); w != "" {
		fmt.Fprintf(stderr, "bench: %s\n", w)
	}
	return p, nil
}

// launcher decides the sandbox (NewSandbox) and returns it with the
// launcher of h's plugins under it, each handshake bounded by
// startTimeout (Launcher).
func (h *Host) launcher(startTimeout time.Duration) (engine.Launcher, *sandbox.Plan, error) {
	plan, err := NewSandbox(h.Sandbox, h.Stderr)
	if err != nil {
		return nil, nil, err
	}
	return Launcher(h.Plugins, startTimeout, plan, h.Stderr), plan, nil
}

// SignalContext returns a context cancelled on SIGINT or SIGTERM, with
// the signal as its cause, and a function that stops listening; a
// second signal kills every plugin started and exits at once.
func SignalContext(parent context.Context) (context.Context, func()) {
	return interrupt.Context(parent, client.Cleanup)
}

// Request is a run of one scenario as bench run asks for it: what is
// played (Options), added and compared, how the results are shown and
// written, and the baseline they are gated against. Run plays it.
type Request struct {
	Host
	// Scenario is a shipped scenario's name or a YAML file.
	Scenario string
	// Options say how the scenario is played (Options.Check checks
	// them); Run sets their Launch, Base, Start and Stderr. Their Gate
	// are the gate's options, used when Baseline is set (and, with
	// Looks, by the sequential gate).
	Options Options
	// AuditGiven says Audit was asked for: otherwise a sealed run, or
	// one whose sandbox leaves channels between policies open, is
	// audited by default (SetAuditDefault).
	AuditGiven bool
	// With are the policies added to the scenario, after its own
	// (ParseAdded).
	With []Added
	// CompareTo, when not "", is the label of the policy the comparison
	// section compares with every other (Comparison).
	CompareTo string
	// Compare are the comparison section's metric and alpha.
	Compare compare.Options
	// Rules are the gate's exit rules; GateFormat its verdict's format
	// ("" for the one that goes with Report.Format, gate.RunFormat).
	Rules      gate.Rules
	GateFormat string
	// Report is what stdout shows; its At rounds are added to the
	// scenario's checkpoints. Figures are drawn when their Dir is set.
	Report  report.Options
	Figures report.Figures
	// Config is the configuration file the command read, "" for none:
	// an input the run's outputs must not overwrite.
	Config string
}

// Outcome is what Run played and decided.
type Outcome struct {
	// File is the results, as written to Out.
	File *results.File
	// Comparison is the comparison section, nil for none.
	Comparison *compare.Scenario
	// Gate is the gate's decision, nil without a baseline.
	Gate *gate.Decision
}

// Run plays the run req asks for, from loading its scenario to the
// gate's verdict, in this order: load the scenario and apply the
// Overrides; decide the sandbox; add the With policies, checked against
// their plugins; check the outputs (Out and SaveBaseline must not
// overwrite an input), read and check the Baseline, add the Report's
// rounds to the checkpoints, all before anything is played; play (Plan);
// then render the tables and figures, write Out, gate against the
// Baseline and write SaveBaseline. The tables come before Out, so that
// results are never lost to a file that cannot be written (a full disk).
//
// The error carries the exit code bench exits with (ExitCode): an
// OptionError or InputError for the input, the gate's code, a policy
// failure, or the signal that interrupted the run, whose partial results
// were printed and written, marked incomplete. The Outcome is nil when
// nothing was played.
func Run(ctx context.Context, req Request) (*Outcome, error) {
	sc, err := scenario.Resolve(req.Scenario)
	if err != nil {
		return nil, exitcode.With(exitcode.Input, err)
	}
	if err := req.Options.Overrides.Apply(sc, req.Stderr, req.Options.Name); err != nil {
		return nil, err
	}
	launch, plan, err := req.launcher(req.Options.StartTimeout)
	if err != nil {
		return nil, err
	}
	opts := req.Options
	opts.SetAuditDefault(req.AuditGiven, sc.Context != nil, plan.Layers.String(), plan.OpenChannels(), req.Stderr)
	added, err := With(ctx, launch, req.With, Labels(sc))
	if err != nil {
		return nil, err
	}
	sc.Policies = append(sc.Policies, added...)
	cmpSpec, err := Comparison(sc, added, req.CompareTo) // nil for no comparison section
	if err != nil {
		return nil, err
	}
	inputs := opts.Inputs(sc, req.Plugins, req.Config)
	for _, out := range []struct {
		o    Option
		path string
	}{{OptOut, opts.Out}, {OptSaveBaseline, opts.SaveBaseline}, {OptRoundsLog, opts.RoundsLog}} {
		if err := CheckOutput(out.o, out.path, inputs); err != nil {
			return nil, err
		}
	}
	base, err := req.loadBaseline(sc)
	if err != nil {
		return nil, err
	}
	if err := addRounds(sc, req.Report.At); err != nil {
		return nil, err
	}
	opts.Launch, opts.Base, opts.Stderr = launch, base, req.Stderr
	if base == nil {
		opts.Gate = gate.Options{}
	}
	opts.Start = func(sc *scenario.Scenario) Progress {
		if !req.Quiet {
			seed.Announce(req.Stderr, sc.Seed)
		}
		pr := progress.New(req.progressOut(), !req.Quiet)
		pr.Order(Labels(sc)...)
		return pr
	}
	file, runErr := Plan(ctx, sc, opts)
	if file == nil {
		return nil, runErr
	}
	return req.finish(ctx, file, runErr, base, cmpSpec)
}

// finish renders, writes and gates the results of a run: the tables
// first, then Out, then the gate and SaveBaseline.
func (req *Request) finish(ctx context.Context, file *results.File, runErr error, base *results.File, cmpSpec *compare.Spec) (*Outcome, error) {
	o := &req.Options
	engine.WriteStacks(req.Stderr, file)
	out := &Outcome{File: file, Comparison: AttachComparison(file, cmpSpec, req.Compare, req.Stderr)}
	// A figure that cannot be written costs only itself: said now, the
	// results still written and gated, and exit 1 if nothing else fails.
	var figErr *report.FiguresError
	if len(file.Policies) > 0 {
		if err := req.render(file, out.Comparison); errors.As(err, &figErr) {
			fmt.Fprintf(req.Stderr, "bench: %s\n", (&OptionError{Option: OptPlot, Value: req.Figures.Dir, Err: figErr.Err}).Format(o.name))
		} else if err != nil {
			return out, errors.Join(runErr, err)
		}
	}
	if o.Out != "" || o.SaveBaseline != "" {
		req.stamp(file) // after the tables: --format json prints the run alone
	}
	if o.Out != "" {
		if err := file.WriteFile(o.Out); err != nil {
			// Not an input error: the disk's (exit 1), or the run's own.
			code := exitcode.Failure
			if runErr != nil {
				code = ExitCode(runErr)
			}
			return out, exitcode.With(code, errors.Join(runErr, optErr(OptOut, o.Out, "the results were printed but could not be written: %w", err)))
		}
	}
	if runErr == nil || errors.Is(runErr, engine.ErrPolicyFailed) {
		err := req.gate(out, base, runErr)
		if err == nil && figErr != nil {
			return out, exitcode.With(exitcode.Failure, optErr(OptPlot, req.Figures.Dir, "some figures could not be written (named above); the others, and the results, were"))
		}
		return out, err
	}
	if code, err := Interrupted(ctx, o.Out, o.Name); err != nil {
		return out, exitcode.With(code, err)
	}
	return out, runErr
}

// addRounds adds the rounds at (Report.At) to the checkpoints of sc:
// asking for the regret at round 1000 records it there rather than
// failing because 1000 was not a default checkpoint. Rounds beyond the
// horizon are an OptionError of At.
func addRounds(sc *scenario.Scenario, at []int) error {
	sc.AddCheckpoints(at...)
	if err := report.CheckAt(sc.Checkpoints, at); err != nil {
		return &OptionError{Option: OptAt, Err: err}
	}
	return nil
}

// render prints f to stdout as req.Report says, with the comparison
// section cmp when not nil, and draws the figures (report.Render). A
// round of Report.At that f lacks is an OptionError of At; when only
// figures could not be written the error is a *report.FiguresError.
func (req *Request) render(f *results.File, cmp *compare.Scenario) error {
	err := report.Render(req.Stdout, f, req.Report, compare.Section(cmp), req.Figures)
	var tablesErr *report.TablesError
	switch {
	case errors.As(err, &tablesErr) && len(req.Report.At) > 0:
		return &OptionError{Option: OptAt, Err: tablesErr.Err}
	case errors.As(err, &tablesErr):
		return tablesErr.Err
	}
	return err
}

// loadBaseline reads the Baseline and checks it, before the run, as the
// baseline of sc with the Policies selection only (gate.ForRun). It
// returns nil when there is no Baseline.
func (req *Request) loadBaseline(sc *scenario.Scenario) (*results.File, error) {
	o := &req.Options
	if o.Baseline == "" {
		return nil, nil
	}
	base, err := results.ReadFileWithoutTraces(o.Baseline)
	if err != nil {
		return nil, optErr(OptBaseline, "", "%w", err)
	}
	only := o.Overrides.Policies
	if err := gate.ForRun(base, engine.Record(sc), only, o.Gate); err != nil {
		if len(only) > 0 && errors.Is(err, gate.ErrEmptyBaseline) {
			err = fmt.Errorf("%w (of the policies {Policies} selects: %s)", err, strings.Join(only, ", "))
		}
		return nil, optErr(OptBaseline, o.Baseline, "%w", err)
	}
	return base, nil
}

// gate ends a run once its tables are printed: it gates out.File against
// base when there is a Baseline, then writes SaveBaseline when everything
// succeeded. runErr is nil or a policy failure.
func (req *Request) gate(out *Outcome, base *results.File, runErr error) error {
	o := &req.Options
	err := runErr
	if base != nil {
		d, gerr := gate.Files(req.Stdout, base, out.File, o.Baseline, "this run", o.Gate, req.Rules, gate.RunFormat(req.GateFormat, string(req.Report.Format)))
		if gerr == nil {
			out.Gate = &d
		}
		gerr = GateExit(d, gerr)
		switch {
		case gerr == nil:
		case runErr != nil:
			err = exitcode.With(ExitCode(gerr), errors.Join(runErr, gerr))
		default:
			err = gerr
		}
	}
	if o.SaveBaseline == "" {
		return err
	}
	if err != nil {
		return exitcode.With(ExitCode(err), fmt.Errorf("%w (%s %s not written)", err, o.name(OptSaveBaseline), o.SaveBaseline))
	}
	if werr := out.File.WriteFile(o.SaveBaseline); werr != nil {
		return optErr(OptSaveBaseline, "", "%w", werr)
	}
	return nil
}

// GateExit maps a gate call's decision to bench's exit codes: its code,
// or an input error.
func GateExit(d gate.Decision, err error) error {
	if err != nil {
		return exitcode.With(exitcode.Input, err)
	}
	if d.Code == gate.Pass {
		return nil
	}
	return exitcode.With(int(d.Code), d.Err())
}

// CheckOutput refuses an output path (of option o) that is one of the
// inputs of the same command, a symbolic link, or not a regular file:
// writing it would destroy the input or replace the link or device; and
// one whose directory is missing or not writable (CheckOutputDir).
// inputs maps each input's role (e.g. "the scenario") to its path, as
// Options.Inputs lists them; empty paths are ignored.
func CheckOutput(o Option, path string, inputs [][2]string) error {
	if path == "" {
		return nil
	}
	if _, err := safeio.CheckOut(path); err != nil {
		return optErr(o, path, "%w", err)
	}
	if err := CheckOutputDir(o, path, false); err != nil {
		return err
	}
	for _, in := range inputs {
		if in[1] != "" && safeio.SameFile(path, in[1]) {
			return &OptionError{Option: o, Err: fmt.Errorf("{%s} %s is %s (%s); writing it would destroy an input: choose another file", o, path, in[0], in[1])}
		}
	}
	return nil
}

// CheckOutputDir refuses, before anything runs, an output (of option o)
// that could not be written when the run ends: a file whose directory is
// missing, not a directory or not writable, or (dir) a directory,
// created if missing, whose path is another file or whose nearest
// existing ancestor is not a writable directory. An empty path is no
// output.
func CheckOutputDir(o Option, path string, dir bool) error {
	if path == "" {
		return nil
	}
	if err := safeio.CheckOutDir(path, dir); err != nil {
		return optErr(o, path, "%w", err)
	}
	return nil
}
