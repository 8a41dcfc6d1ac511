// Package run owns a run of bench, from loading its scenario to the
// gate's verdict: Run plays a Request (bench run) and Paper a
// PaperRequest (bench paper), each in one order written once: load the
// scenario and apply its Overrides, decide the sandbox once (NewSandbox)
// and launch the plugins under it (Launcher), add the With policies,
// check the outputs and the baseline, play, render, write, gate.
//
// On the way it checks the options of a run (Options.Check: which can be
// combined), resolves what a run compares (Comparison), decides what an
// earlier results file lets a run keep (Resume), plays the replications
// (all of them, a shard, one, or the sequential gate's groups) and
// audits the result (Audit).
//
// Its errors carry the exit code bench exits with (ExitCode, package
// exitcode); an option at fault is an OptionError, which names it as an
// Option: the command maps it to its flag. The cli package maps flags to
// a Request, calls Run, and states the error.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/roundslog"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/internal/params"
)

// InputError is an error of a run's input (a scenario made invalid, an
// earlier results file), not of a policy or of the machine, where no
// option is at fault (that is an OptionError): bench exits 2 for it. Its
// message is its cause's.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Progress follows the policies of a run as they play: *progress.Progress
// is one.
type Progress interface {
	// Func returns the engine's progress callback, nil for none.
	Func() func(label string, done, total int64)
	// Wait returns when the last update is shown.
	Wait()
}

// Options say how Plan plays a scenario.
type Options struct {
	// Launch starts the plugins (Launcher).
	Launch engine.Launcher
	// Batch, Jobs and StepTimeout are engine.Options'.
	Batch       int
	Jobs        int
	StepTimeout time.Duration
	// Shard, when its Count is not zero, plays only that shard of the
	// replications, with per-replication traces, and records it in the
	// results.
	Shard shard.Spec
	// Replication, when not nil, is the only replication played (bench
	// run --replication), as a shard's are: its rewards and its policy
	// seed depend only on the scenario's seed and its index.
	Replication *int
	// Out is the results file the caller writes the run to, "" for none.
	// With Resume, it holds an earlier run of the scenario: the policies
	// it holds that provably are what this run would compute are kept and
	// not played again (Resume).
	Out    string
	Resume bool
	// RoundsLog is the rounds log the run writes (package roundslog:
	// every round of every replication of every policy that completes),
	// "" for none; only for a contextual scenario, and not with Resume or
	// the sequential gate, whose policies it could not hold whole.
	RoundsLog string
	// Audit is the number of replications of each policy replayed alone
	// after the run (Audit); 0 for none. AuditDefault, when the audit is
	// on without --audit (SetAuditDefault), says why, for the results.
	Audit        int
	AuditDefault string
	// Base and Gate, when Gate.Looks is not zero, play the replications
	// in the sequential gate's groups against the baseline Base
	// (Sequential).
	Base *results.File
	Gate gate.Options
	// Start, when not nil, is called once the policies to play are known
	// (not when a resumed file already holds them all), with the
	// scenario as it will be played, and returns what follows their
	// progress (nil for nothing).
	Start func(sc *scenario.Scenario) Progress
	// Stderr gets the run's notes: what --resume reruns and why, the
	// sequential gate's looks.
	Stderr io.Writer
	// Name names an option in the notes written on Stderr, as the
	// command's user knows it (bench: its flag); nil names it as the
	// Option constants do. The errors are OptionErrors, which the
	// caller states (OptionError.Format).
	Name func(Option) string

	// The options below are only checked (Check): Plan does not read
	// them. Overrides are the run's changes to its scenario, applied
	// before Plan (Overrides.Apply); StartTimeout is the plugins'
	// handshake timeout, Launch's; Baseline and SaveBaseline are the
	// gate's baseline file and the file the run is saved to as one, ""
	// for none; Sequential asks for the sequential gate.
	Overrides              Overrides
	StartTimeout           time.Duration
	Baseline, SaveBaseline string
	Sequential             bool
}

// Plan plays sc as opts say and returns its results. A file with an
// error holds what could be played: the error wraps
// engine.ErrPolicyFailed when some policies failed (the audit's among
// them), or says why the run stopped (an interrupted run's file is marked
// incomplete). A nil file means nothing ran: a shard or a replication sc
// does not have is an OptionError. sc's policies are those played
// afterwards (a resumed run selects those not kept).
func Plan(ctx context.Context, sc *scenario.Scenario, opts Options) (*results.File, error) {
	if err := opts.checkScenario(sc); err != nil {
		return nil, err
	}
	eopts := engine.Options{
		Launch:      opts.Launch,
		Batch:       opts.Batch,
		Jobs:        opts.Jobs,
		StepTimeout: opts.StepTimeout,
	}
	if opts.Shard.Count > 0 {
		eopts.Replications = opts.Shard.Replications(sc.Runs)
		eopts.Traces = true
	}
	if opts.Replication != nil {
		eopts.Replications = []uint64{uint64(*opts.Replication)}
	}
	order := Labels(sc)
	var kept *results.File
	if opts.Resume {
		var err error
		if kept, err = Resume(ctx, opts.Out, sc, opts.Shard, opts.Launch, opts.Stderr, opts.Name); err != nil {
			return nil, &InputError{err}
		}
		if kept != nil {
			var todo []string
			for _, l := range order {
				if kept.Policy(l) == nil {
					todo = append(todo, l)
				}
			}
			if len(todo) == 0 {
				fmt.Fprintf(opts.Stderr, "bench: %s: %s already holds every policy\n", opts.name(OptResume), opts.Out)
				return kept, nil
			}
			if err := sc.Select(todo); err != nil {
				return nil, err
			}
		}
	}
	if opts.RoundsLog != "" {
		sp, err := roundslog.NewSpool(filepath.Dir(opts.RoundsLog))
		if err != nil {
			return nil, optErr(OptRoundsLog, opts.RoundsLog, "%w", err)
		}
		defer sp.Remove()
		defer sp.Close()
		eopts.RoundsLog = sp
	}
	var pr Progress
	if opts.Start != nil {
		pr = opts.Start(sc)
	}
	if pr != nil {
		eopts.Progress = pr.Func()
	}
	var file *results.File
	var runErr error
	if opts.Gate.Looks > 0 {
		file, runErr = Sequential(ctx, sc, eopts, opts.Base, opts.Gate, opts.Stderr)
	} else {
		file, runErr = engine.Run(ctx, sc, eopts)
	}
	if pr != nil {
		pr.Wait()
	}
	if file == nil {
		return nil, runErr
	}
	if err := Audit(ctx, sc, eopts, file, replicationsOf(eopts, sc.Runs), opts.Audit); err != nil && (runErr == nil || errors.Is(runErr, engine.ErrPolicyFailed)) {
		runErr = errors.Join(runErr, err)
	}
	if eopts.RoundsLog != nil {
		// After the audit: the log holds the policies the results file
		// holds as ok.
		if err := writeRoundsLog(eopts.RoundsLog, opts.RoundsLog, file); err != nil {
			runErr = errors.Join(runErr, exitcode.With(exitcode.Failure, err))
		}
	}
	recordAuditDefault(file, opts.AuditDefault)
	if opts.Shard.Count > 0 {
		file.Shard.Index, file.Shard.Count = opts.Shard.Index, opts.Shard.Count
	}
	if kept != nil {
		file.Policies = append(kept.Policies, file.Policies...)
		file.SortPolicies(order)
	}
	return file, runErr
}

// writeRoundsLog writes the rounds log of the policies of file that
// completed, in file's order.
func writeRoundsLog(sp *roundslog.Spool, path string, file *results.File) error {
	var labels []string
	for _, p := range file.Policies {
		if p.Status == results.StatusOK {
			labels = append(labels, p.Label)
		}
	}
	if err := sp.Write(path, labels); err != nil {
		return optErr(OptRoundsLog, path, "the rounds log could not be written: %w", err)
	}
	return nil
}

// name names opt as o.Name says.
func (o *Options) name(opt Option) string { return nameBy(o.Name)(opt) }

// nameBy is name, or the Option's own name when name is nil.
func nameBy(name func(Option) string) func(Option) string {
	if name == nil {
		return func(o Option) string { return string(o) }
	}
	return name
}

// Added is a policy a command adds to its scenarios (bench run --with).
type Added struct {
	// Spec is how the command's user wrote it, for errors (an
	// OptionError of With): `ts@TS2`.
	Spec   string
	Policy scenario.Policy
}

// With checks the added policies against their plugins' Describe,
// launching each plugin once per policy: an unknown plugin or parameter,
// a value of the wrong type or out of range, or a label already used by
// taken or an earlier added policy is an OptionError of With naming it. It
// returns the policies in the order given.
func With(ctx context.Context, launch engine.Launcher, added []Added, taken []string) ([]scenario.Policy, error) {
	used := slices.Clone(taken)
	var out []scenario.Policy
	for _, a := range added {
		p := a.Policy
		bad := func(err error) error { return &OptionError{Option: OptWith, Value: strconv.Quote(a.Spec), Err: err} }
		if slices.Contains(used, p.Label) {
			return nil, bad(fmt.Errorf("label %q is already used; add @LABEL to name this policy", p.Label))
		}
		pl, err := launch(ctx, p)
		if err != nil {
			return nil, bad(err)
		}
		_, err = params.Resolve(pl.Desc.Params, p.Params)
		pl.Conn.Close()
		if err != nil {
			return nil, bad(fmt.Errorf("plugin %s: %w", p.Plugin, err))
		}
		used = append(used, p.Label)
		out = append(out, p)
	}
	return out, nil
}

// Labels lists the labels of sc's policies, in order.
func Labels(sc *scenario.Scenario) []string {
	out := make([]string, len(sc.Policies))
	for i, p := range sc.Policies {
		out[i] = p.Label
	}
	return out
}

// replicationsOf lists the replications a run plays, in order.
func replicationsOf(opts engine.Options, runs int) []uint64 {
	if opts.Replications != nil {
		return opts.Replications
	}
	reps := make([]uint64, runs)
	for i := range reps {
		reps[i] = uint64(i)
	}
	return reps
}
