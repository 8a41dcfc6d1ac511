package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/progress"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/sandbox"
)

// Defaults of the timeouts of the commands that launch plugins.
const (
	defaultStepTimeout  = 5 * time.Minute
	defaultStartTimeout = 10 * time.Second
)

// policyRunOptions are the flags of both commands that run policies: a
// run (bench run, and the root's bench --scenario) and bench paper. They
// are defined once, embedded in runOptions and paperOptions and registered
// by addPolicyRunFlags.
type policyRunOptions struct {
	runs         int           // --runs: the replications, when changed
	horizon      int           // --horizon: T, when changed
	jobs         int           // --jobs: policies at once; 0 for one per core
	stepTimeout  time.Duration // --step-timeout
	startTimeout time.Duration // --start-timeout
	quiet        bool          // --quiet: no progress
	with         []string      // --with SPEC: policies added to the scenarios
	sandbox      sandboxOptions
	plan         *sandbox.Plan // decided by launch, once
}

// launch returns the launcher of the command's plugins, deciding the
// sandbox they run under on its first call.
func (o *policyRunOptions) launch(f *factory) (engine.Launcher, error) {
	if o.plan == nil {
		p, err := o.sandbox.plan(f.stderr)
		if err != nil {
			return nil, err
		}
		o.plan = p
	}
	return f.launcher(o.startTimeout, o.plan), nil
}

// policyRunHelp is the help of the policyRunOptions flags whose meaning
// differs between a run (one scenario) and bench paper (all of them).
type policyRunHelp struct{ runs, horizon, jobs, with string }

// addPolicyRunFlags registers the flags of o on fs, with help for those
// whose help differs between the commands.
func addPolicyRunFlags(fs *pflag.FlagSet, o *policyRunOptions, help policyRunHelp) {
	fs.IntVar(&o.runs, "runs", 0, help.runs)
	fs.IntVar(&o.horizon, "horizon", 0, help.horizon)
	fs.IntVar(&o.jobs, "jobs", 0, help.jobs)
	fs.DurationVar(&o.stepTimeout, "step-timeout", defaultStepTimeout, "fail a policy whose plugin does not answer a round within this time")
	fs.DurationVar(&o.startTimeout, "start-timeout", defaultStartTimeout, "fail a plugin that does not complete its handshake within this time")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress")
	fs.StringArrayVar(&o.with, "with", nil, help.with)
	addSandboxFlags(fs, &o.sandbox)
}

// runOptions are the flags of a run: bench run, and the root's own form
// bench --scenario X (each command has its own).
type runOptions struct {
	f     *factory
	flags *pflag.FlagSet // the command's flags, to tell which were given

	policyRunOptions
	scenario  string
	seed      seedOptions // --seed, --seed-file
	policies  []string
	out       string
	batch     int
	gate      gateOptions   // --baseline and friends: the one-call gate
	output    outputOptions // --format, --at, --plot, --plot-format
	shard     string        // --shard I/N
	resume    bool
	compareTo string // --compare-to LABEL: the comparison's reference
	audit     int    // --audit N: replications per policy replayed alone
}

func addRunFlags(fs *pflag.FlagSet, ro *runOptions) {
	fs.StringVarP(&ro.scenario, "scenario", "s", "", "scenario: a shipped name (see 'bench scenarios') or a YAML file")
	addPolicyRunFlags(fs, &ro.policyRunOptions, policyRunHelp{
		runs:    "override the scenario's number of replications",
		horizon: "override the scenario's horizon T",
		jobs:    "policies run at once (0: one per core)",
		with:    withHelp,
	})
	addSeedFlags(fs, &ro.seed)
	fs.StringArrayVar(&ro.policies, "policy", nil, "run only the policy with this label (repeatable)")
	fs.StringVarP(&ro.out, "out", "o", "", "write the results file (JSON) here")
	fs.IntVar(&ro.batch, "batch", 0, "replications per plugin session (0: half of them, so two sessions overlap; all in one below 64); results do not depend on it")
	fs.StringVar(&ro.shard, "shard", "", "run only shard I/N of the replications (0 <= I < N); merge the shard files with 'bench merge'")
	fs.BoolVar(&ro.resume, "resume", false, "with --out FILE: keep the policies FILE already holds for this scenario and run only the others")
	fs.IntVar(&ro.audit, "audit", 0, "after the run, replay N replications of each policy, drawn at random, each alone in a process of its own; a policy whose replication then differs fails (its arms depended on the other replications)")
	fs.StringVar(&ro.compareTo, "compare-to", "", "print a comparison section with this policy (a label) as the reference, against every other policy of the scenario")
	addGateRunFlags(fs, &ro.gate)
	addOutputFlags(fs, &ro.output)
}

// newCmdRun returns bench run. runF, when not nil, receives the checked
// options in place of running the scenario (for tests).
func newCmdRun(f *factory, runF func(*runOptions) error) *cobra.Command {
	o := &runOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a scenario (the same as bench --scenario ...)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.scenario == "" {
				return withCode(ExitInput, fmt.Errorf("run: --scenario is required (one of the shipped scenarios or a YAML file; see 'bench scenarios')"))
			}
			return o.run(cmd, runF)
		},
	}
	addRunFlags(cmd.Flags(), o)
	return cmd
}

// run checks the flags of cmd, then runs the scenario, or runF instead
// when it is not nil.
func (ro *runOptions) run(cmd *cobra.Command, runF func(*runOptions) error) error {
	ro.flags = cmd.Flags()
	if err := ro.checkFlags(); err != nil {
		return err
	}
	if runF != nil {
		return runF(ro)
	}
	return runScenario(cmd.Context(), ro)
}

// signalCause is the cancellation cause of a context ended by a signal.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "received " + s.sig.String() }

// signalRepeat is how soon after the first signal another one is taken
// for the same event delivered twice, not for a second request: coreutils
// timeout, for one, signals its child and then the child's whole process
// group, and a scheduler may do likewise.
const signalRepeat = time.Second

// SignalContext returns a context cancelled on SIGINT or SIGTERM, with the
// signal as its cause, and a function that stops listening. A second
// signal, at least signalRepeat after the first, means "stop now": the
// plugins are killed and the process exits at once, without results.
func SignalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	quit := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		var first time.Time
		select {
		case s := <-ch:
			first = time.Now()
			cancel(signalCause{s})
		case <-ctx.Done():
			return
		}
		for {
			var s os.Signal
			select {
			case s = <-ch:
			case <-quit:
				return
			}
			if time.Since(first) < signalRepeat {
				continue // the first signal again
			}
			client.Cleanup()
			if s == syscall.SIGTERM {
				os.Exit(ExitTerminated)
			}
			os.Exit(ExitInterrupted)
		}
	}()
	var once sync.Once
	return ctx, func() { once.Do(func() { signal.Stop(ch); close(quit); cancel(nil) }) }
}

// interruption returns the exit code and the signal when ctx was ended by
// one; ok is false otherwise.
func interruption(ctx context.Context) (code int, sig os.Signal, ok bool) {
	var sc signalCause
	if !errors.As(context.Cause(ctx), &sc) {
		return 0, nil, false
	}
	if sc.sig == syscall.SIGTERM {
		return ExitTerminated, sc.sig, true
	}
	return ExitInterrupted, sc.sig, true
}

func (ro *runOptions) loadScenario() (*scenario.Scenario, error) {
	sc, err := scenario.Resolve(ro.scenario)
	if err != nil {
		return nil, withCode(ExitInput, err)
	}
	changed := func(name string) bool { f := ro.flags.Lookup(name); return f != nil && f.Changed }
	if changed("runs") {
		sc.Runs = ro.runs
	}
	if s, ok, err := ro.seed.resolve(ro.flags, ro.f.stderr); err != nil {
		return nil, err
	} else if ok {
		sc.Seed = s
	}
	if changed("horizon") {
		if err := sc.SetHorizon(ro.horizon); err != nil {
			return nil, withCode(ExitInput, fmt.Errorf("--horizon %d: %w", ro.horizon, err))
		}
	}
	if err := sc.Validate(); err != nil {
		return nil, withCode(ExitInput, err)
	}
	if len(ro.policies) > 0 {
		if err := sc.Select(ro.policies); err != nil {
			return nil, withCode(ExitInput, fmt.Errorf("--policy: %w", err))
		}
	}
	return sc, nil
}

// launcher starts plugins from the plugin search path under the sandbox
// plan, checking pins, and fails a plugin whose handshake takes longer
// than startTimeout.
func (f *factory) launcher(startTimeout time.Duration, plan *sandbox.Plan) engine.Launcher {
	dirs := f.plugins()
	return func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		path, err := dirs.Find(p.Plugin)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", engine.ErrInput, err)
		}
		// A FIFO, a device or a dangling link fails the policy (as a
		// file without an exec bit does) before anything opens it.
		sum, err := registry.SHA256(path)
		if err != nil {
			return nil, err
		}
		opts := client.LaunchOptions{StartTimeout: startTimeout, Sandbox: plan}
		if p.SHA256 != "" {
			if p.SHA256 != sum {
				return nil, fmt.Errorf("%w: plugin %s: SHA-256 is %s but the scenario pins sha256 %s; refusing to run it", engine.ErrInput, path, sum, p.SHA256)
			}
			opts.SHA256, _ = hex.DecodeString(p.SHA256)
		}
		c, err := client.Launch(path, opts)
		if err != nil {
			return nil, err
		}
		d, err := c.Describe(ctx)
		if err != nil {
			c.Close()
			return nil, err
		}
		if v := c.Protocol(); d.ProtocolVersion != v {
			c.Close()
			return nil, fmt.Errorf("plugin %s: its Describe reports protocol version %d, but it negotiated version %d at the handshake", path, d.ProtocolVersion, v)
		}
		if err := describeErr(path, d); err != nil {
			// The plugin's fault, not the scenario's: only its policies fail.
			c.Close()
			return nil, err
		}
		if w := nameMismatch(p.Plugin, d); w != "" {
			fmt.Fprintf(f.stderr, "bench: warning: plugin %s: %s\n", path, w)
		}
		return &engine.Plugin{Conn: c, Desc: d, SHA256: sum, Sandbox: c.Sandbox().String()}, nil
	}
}

// runScenario runs the scenario of ro, whose flags are checked.
func runScenario(ctx context.Context, ro *runOptions) error {
	sc, err := ro.loadScenario()
	if err != nil {
		return err
	}
	launch, err := ro.launch(ro.f)
	if err != nil {
		return err
	}
	added, err := ro.withPolicies(ctx, launch, labels(sc))
	if err != nil {
		return err
	}
	sc.Policies = append(sc.Policies, added...)
	if err := checkCompareTo(sc, ro.compareTo); err != nil {
		return err
	}
	var cmpSpec *compare.Spec // what the comparison section compares; nil for none
	if spec, ok := comparisonSpec(sc, labels(&scenario.Scenario{Policies: added}), ro.compareTo); ok {
		cmpSpec = &spec
	}
	if err := ro.checkOutputs(sc); err != nil {
		return err
	}
	base, gateOpt, err := ro.gate.loadBaseline(sc, ro.policies)
	if err != nil {
		return err
	}
	if err := ro.output.check(sc); err != nil {
		return err // bad --format/--at/--plot-format: nothing has run yet
	}
	opts := engine.Options{
		Launch:      launch,
		Batch:       ro.batch,
		Jobs:        ro.jobs,
		StepTimeout: ro.stepTimeout,
	}
	var spec shard.Spec
	if ro.shard != "" {
		if spec, err = shard.Parse(ro.shard); err != nil {
			return withCode(ExitInput, err)
		}
		if err := checkShard(spec, sc.Runs); err != nil {
			return err
		}
		opts.Replications = spec.Replications(sc.Runs)
		opts.Traces = true
	}
	order := labels(sc)
	var kept *results.File
	if ro.resume {
		if kept, err = resumable(ctx, ro, sc, spec); err != nil {
			return withCode(ExitInput, err)
		}
		if kept != nil {
			var todo []string
			for _, l := range order {
				if kept.Policy(l) == nil {
					todo = append(todo, l)
				}
			}
			if len(todo) == 0 {
				fmt.Fprintf(ro.f.stderr, "bench: --resume: %s already holds every policy\n", ro.out)
				return ro.finish(ctx, kept, nil, base, gateOpt, cmpSpec)
			}
			if err := sc.Select(todo); err != nil {
				return err
			}
		}
	}
	announceSecret(ro.f.stderr, sc.Seed, ro.quiet)
	pr := progress.New(ro.f.progressOut(), !ro.quiet)
	pr.Order(labels(sc)...)
	opts.Progress = pr.Func()
	var file *results.File
	var runErr error
	if gateOpt.Looks > 0 {
		file, runErr = runSequential(ctx, sc, opts, base, gateOpt, ro.f.stderr)
	} else {
		file, runErr = engine.Run(ctx, sc, opts)
	}
	pr.Wait()
	if file == nil {
		return runErr
	}
	if err := audit(ctx, sc, opts, file, replicationsOf(opts, sc.Runs), ro.audit); err != nil && (runErr == nil || errors.Is(runErr, engine.ErrPolicyFailed)) {
		runErr = errors.Join(runErr, err)
	}
	if ro.shard != "" {
		file.Shard.Index, file.Shard.Count = spec.Index, spec.Count
	}
	if kept != nil {
		file.Policies = append(kept.Policies, file.Policies...)
		file.SortPolicies(order)
	}
	return ro.finish(ctx, file, runErr, base, gateOpt, cmpSpec)
}

// finish renders, writes and gates the results of a run. The tables come
// first, so that results are never lost to an --out that cannot be
// written (a full disk). cmpSpec is what the comparison section compares,
// nil for none.
func (ro *runOptions) finish(ctx context.Context, file *results.File, runErr error, base *results.File, gateOpt gate.Options, cmpSpec *compare.Spec) error {
	printStacks(ro.f.stderr, file)
	var cmp *compare.Scenario
	if cmpSpec != nil {
		cmp = ro.attachComparison(file, *cmpSpec)
	} else {
		file.Comparison = nil // a resumed file's, from another call
	}
	// A figure that cannot be written costs only itself: said now, the
	// results still written and gated, and exit 1 if nothing else fails.
	var figErr *figuresError
	if len(file.Policies) > 0 {
		if err := ro.output.render(ro.f.stdout, file, cmp); errors.As(err, &figErr) {
			fmt.Fprintf(ro.f.stderr, "bench: %v\n", err)
		} else if err != nil {
			return errors.Join(runErr, err)
		}
	}
	if ro.out != "" || ro.gate.saveBaseline != "" {
		stamp(ctx, file) // after the tables: --format json prints the run alone
	}
	if ro.out != "" {
		if err := file.WriteFile(ro.out); err != nil {
			return errors.Join(runErr, fmt.Errorf("--out %s: the results were printed but could not be written: %w", ro.out, err))
		}
	}
	if runErr == nil || errors.Is(runErr, engine.ErrPolicyFailed) {
		err := ro.gate.afterRun(ro.f.stdout, file, runErr, base, gateOpt, ro.output.format)
		if err == nil && figErr != nil {
			return withCode(ExitFailure, fmt.Errorf("--plot %s: some figures could not be written (named above); the others, and the results, were", ro.output.plotDir))
		}
		return err
	}
	if code, sig, ok := interruption(ctx); ok {
		where := "printed (no --out)"
		if ro.out != "" {
			where = "written to " + ro.out + ", marked incomplete"
		}
		return withCode(code, fmt.Errorf("%v: partial results %s", signalCause{sig}, where))
	}
	return runErr
}

// printStacks writes the full Go stack of every policy that failed with a
// panic; the error message itself quotes only the panic and the policy's
// own frame.
func printStacks(w io.Writer, files ...*results.File) {
	for _, f := range files {
		for _, p := range f.Policies {
			if p.Status != results.StatusFailed {
				continue
			}
			if _, stack := client.SplitPanic(p.Error); stack != "" {
				what := "panicked"
				if strings.Contains(p.Error, "fatal error: ") {
					what = "died of a Go fatal error"
				}
				fmt.Fprintf(w, "bench: policy %q (plugin %s) %s; its stack:\n  %s\n",
					p.Label, p.Plugin, what, strings.ReplaceAll(stack, "\n", "\n  "))
			}
		}
	}
}

func labels(sc *scenario.Scenario) []string {
	out := make([]string, len(sc.Policies))
	for i, p := range sc.Policies {
		out[i] = p.Label
	}
	return out
}

// resumable reads the --out file of an earlier run of the same scenario and
// returns it with only the policies that are provably what this run would
// compute; nil when there is none. A kept policy ran to completion with
// the same label, plugin, plugin build (SHA-256, or version when the
// SHA-256 is unknown), resolved parameters and checkpoints, under the same
// noise_known and bench build; every other policy of the scenario is rerun,
// and stderr says why. The plugins are started and described to resolve
// their parameters' defaults. A file of another experiment (scenario,
// family, means, noise, horizon, runs, seed, init_pulls or shard) is
// refused.
func resumable(ctx context.Context, ro *runOptions, sc *scenario.Scenario, spec shard.Spec) (*results.File, error) {
	path := ro.out
	if path == "" {
		return nil, fmt.Errorf("--resume needs --out FILE")
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil, nil
	}
	f, err := results.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	s := f.Scenario
	// Another experiment, or another run of it, is refused; noise_known,
	// the reward streams and the checkpoints decide below what is rerun.
	if d := results.Only(s.Diff(engine.Record(sc)), "name", "family", "arms", "means", "noise_sd", "horizon", "runs", "seed", "init_pulls", "changes", "drift", "random_changes"); len(d) > 0 ||
		f.Shard.Count != max(spec.Count, 1) || f.Shard.Index != spec.Index {
		why := fmt.Sprintf("shard %d/%d, this run %d/%d", f.Shard.Index, f.Shard.Count, spec.Index, max(spec.Count, 1))
		if len(d) > 0 {
			var parts []string
			for _, x := range d {
				parts = append(parts, fmt.Sprintf("%s %s, this run %s", x.Field, x.A, x.B))
			}
			why = strings.Join(parts, "; ")
		}
		return nil, fmt.Errorf("--resume: %s holds another run (%s); remove it or choose another --out", path, why)
	}

	// What every policy of the file shares: a difference reruns them all.
	var shared []string
	known := sc.Environment.IsNoiseKnown()
	switch {
	case s.NoiseKnown == nil:
		shared = append(shared, "the file does not record noise_known")
	case *s.NoiseKnown != known:
		shared = append(shared, fmt.Sprintf("noise_known was %v, now %v", *s.NoiseKnown, known))
	}
	if s.Streams != env.StreamsVersion {
		shared = append(shared, fmt.Sprintf("its reward streams are %q, now %q", s.Streams, env.StreamsVersion))
	}
	if v := results.HostVersion(); f.Bench == nil || f.Bench.Version != v {
		was := "unrecorded"
		if f.Bench != nil {
			was = fmt.Sprintf("%q", f.Bench.Version)
		}
		shared = append(shared, fmt.Sprintf("bench.version was %s, now %q (reward streams belong to a build)", was, v))
	}

	launch, err := ro.launch(ro.f)
	if err != nil {
		return nil, err
	}
	plugins := map[string]*engine.Plugin{}
	launchErr := map[string]error{}
	defer func() {
		for _, p := range plugins {
			p.Conn.Close()
		}
	}()
	// differs says why p, as recorded, is not what pol would compute now;
	// "" when it provably is.
	differs := func(p *results.Policy, pol scenario.Policy) string {
		if len(shared) > 0 {
			return strings.Join(shared, "; ")
		}
		if p.Plugin != pol.Plugin {
			return fmt.Sprintf("plugin was %s, now %s", p.Plugin, pol.Plugin)
		}
		if !slices.Equal(p.Checkpoints, sc.Checkpoints) {
			return fmt.Sprintf("checkpoints were %v, now %v", p.Checkpoints, sc.Checkpoints)
		}
		key := pol.Plugin + "@" + pol.SHA256
		if _, ok := plugins[key]; !ok && launchErr[key] == nil {
			if pl, err := launch(ctx, pol); err != nil {
				launchErr[key] = err
			} else {
				plugins[key] = pl
			}
		}
		if err := launchErr[key]; err != nil {
			return fmt.Sprintf("plugin %s cannot be checked: %v", pol.Plugin, err)
		}
		pl := plugins[key]
		switch {
		case pl.SHA256 != "" && p.PluginSHA256 != pl.SHA256:
			was := p.PluginSHA256
			if was == "" {
				was = "unrecorded"
			}
			return fmt.Sprintf("plugin %s SHA-256 was %s, now %s", pol.Plugin, was, pl.SHA256)
		case p.PluginVersion != pl.Desc.Version:
			return fmt.Sprintf("plugin %s version was %q, now %q", pol.Plugin, p.PluginVersion, pl.Desc.Version)
		}
		if now := feedbackOf(sc, pol); p.Feedback != now {
			return fmt.Sprintf("feedback was %s, now %s", orImmediate(p.Feedback), orImmediate(now))
		}
		resolved, err := params.Resolve(pl.Desc.Params, pol.Params)
		if err != nil {
			return fmt.Sprintf("params: %v", err)
		}
		// Compare as the file records them: through JSON.
		now, err1 := json.Marshal(resolved)
		was, err2 := json.Marshal(p.Params)
		if err1 != nil || err2 != nil || !bytes.Equal(now, was) {
			return fmt.Sprintf("params were %s, now %s", was, now)
		}
		return ""
	}

	inScenario := map[string]scenario.Policy{}
	for _, pol := range sc.Policies {
		inScenario[pol.Label] = pol
	}
	var ok []*results.Policy
	kept := map[string]bool{}
	for _, p := range f.Policies {
		if p.Status != results.StatusOK || kept[p.Label] {
			continue // failed or interrupted: rerun
		}
		pol, selected := inScenario[p.Label]
		if !selected {
			// Not run now (--policy, or gone from the scenario): kept as
			// it is, if it still fits beside the policies run now.
			why := strings.Join(shared, "; ")
			if why == "" && !slices.Equal(p.Checkpoints, sc.Checkpoints) {
				why = fmt.Sprintf("checkpoints were %v, now %v", p.Checkpoints, sc.Checkpoints)
			}
			if why != "" {
				return nil, fmt.Errorf("--resume: %s holds policy %q, which this run does not run, from another setting (%s); resume without --policy, or remove the file", path, p.Label, why)
			}
		} else if why := differs(p, pol); why != "" {
			fmt.Fprintf(ro.f.stderr, "bench: --resume: rerunning %q: %s\n", p.Label, why)
			continue
		}
		ok = append(ok, p)
		kept[p.Label] = true
	}
	f.Policies = ok
	f.Complete = true
	return f, nil
}

// describeErr reports a Describe answer bench cannot use: parameters of an
// unknown type, or defaults outside their own declared range. It blames the
// plugin at path, so that its policies fail (exit 3) and the scenario is
// not accused.
func describeErr(path string, d *client.Description) error {
	if err := d.Validate(); err != nil {
		return fmt.Errorf("plugin %s: its Describe declares what bench cannot use: %w", path, err)
	}
	return nil
}

// nameMismatch returns a warning when the plugin installed as
// bench-plugin-NAME describes itself under another name, or "". It is a
// warning, not a refusal: renaming an executable is a legitimate way to
// install two versions of one plugin side by side (bench-plugin-remax and
// bench-plugin-remax-old), and results record the name the scenario used.
// Yet a mismatch can also mean a wrong file was copied in, so say so.
func nameMismatch(name string, d *client.Description) string {
	if d.Name == name {
		return ""
	}
	return fmt.Sprintf("it describes itself as %q, not %q as its file name says (a renamed copy? results record it as %q)", d.Name, name, name)
}

// feedbackOf is a policy's feedback as results files record it: empty for
// immediate feedback.
func feedbackOf(sc *scenario.Scenario, pol scenario.Policy) string {
	if fb := sc.FeedbackOf(pol); fb.Delayed() {
		return fb.String()
	}
	return ""
}

// orImmediate names a recorded feedback mode, "immediate" when empty.
func orImmediate(f string) string {
	if f == "" {
		return "immediate"
	}
	return f
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
