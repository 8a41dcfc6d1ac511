package cli

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/progress"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/sdk"
)

type runOptions struct {
	stdout, stderr io.Writer
	flags          *pflag.FlagSet

	pluginDir    string
	config       string // the --config file read, "" when none
	scenario     string
	runs         int
	horizon      int
	seed         uint64
	policies     []string
	out          string
	batch        int
	jobs         int
	stepTimeout  time.Duration
	startTimeout time.Duration
	quiet        bool
	gate         gateOptions   // --baseline and friends: the one-call gate
	output       outputOptions // --format, --at, --plot, --plot-format
	shard        string        // --shard I/N
	resume       bool
}

func addRunFlags(fs *pflag.FlagSet, ro *runOptions) {
	fs.StringVarP(&ro.scenario, "scenario", "s", "", "scenario: a shipped name (see 'bench scenarios') or a YAML file")
	fs.IntVar(&ro.runs, "runs", 0, "override the scenario's number of replications")
	fs.IntVar(&ro.horizon, "horizon", 0, "override the scenario's horizon T")
	fs.Uint64Var(&ro.seed, "seed", 0, "override the scenario's seed")
	fs.StringArrayVar(&ro.policies, "policy", nil, "run only the policy with this label (repeatable)")
	fs.StringVarP(&ro.out, "out", "o", "", "write the results file (JSON) here")
	fs.IntVar(&ro.batch, "batch", 0, "replications per plugin session (0: all in one); results do not depend on it")
	fs.IntVar(&ro.jobs, "jobs", 0, "policies run at once (0: one per core)")
	fs.DurationVar(&ro.stepTimeout, "step-timeout", 5*time.Minute, "fail a policy whose plugin does not answer a round within this time")
	fs.DurationVar(&ro.startTimeout, "start-timeout", 10*time.Second, "fail a plugin that does not complete its handshake within this time")
	fs.BoolVarP(&ro.quiet, "quiet", "q", false, "print no progress")
	fs.StringVar(&ro.shard, "shard", "", "run only shard I/N of the replications (0 <= I < N); merge the shard files with 'bench merge'")
	fs.BoolVar(&ro.resume, "resume", false, "with --out FILE: keep the policies FILE already holds for this scenario and run only the others")
	addGateRunFlags(fs, &ro.gate)
	addOutputFlags(fs, &ro.output)
}

// signalCause is the cancellation cause of a context ended by a signal.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "received " + s.sig.String() }

// SignalContext returns a context cancelled on SIGINT or SIGTERM, with the
// signal as its cause, and a function that stops listening.
func SignalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			cancel(signalCause{s})
		case <-ctx.Done():
			return
		}
		// A second signal means "stop now": kill the plugins and exit.
		s := <-ch
		sdk.Cleanup()
		if s == syscall.SIGTERM {
			os.Exit(ExitTerminated)
		}
		os.Exit(ExitInterrupted)
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
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
	if changed("seed") {
		sc.Seed = ro.seed
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

func (ro *runOptions) dir() registry.Dir {
	if ro.pluginDir != "" {
		return registry.Dir{Path: ro.pluginDir}
	}
	return registry.Dir{Path: registry.Default()}
}

// launcher starts plugins from the plugin directory, checking pins.
func (ro *runOptions) launcher() engine.Launcher {
	dir := ro.dir()
	return func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		path, err := dir.Find(p.Plugin)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", engine.ErrInput, err)
		}
		sum, err := registry.SHA256(path)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", path, err)
		}
		opts := sdk.LaunchOptions{StartTimeout: ro.startTimeout}
		if p.SHA256 != "" {
			if p.SHA256 != sum {
				return nil, fmt.Errorf("%w: plugin %s: SHA-256 is %s but the scenario pins sha256 %s; refusing to run it", engine.ErrInput, path, sum, p.SHA256)
			}
			opts.SHA256, _ = hex.DecodeString(p.SHA256)
		}
		c, err := sdk.Launch(path, opts)
		if err != nil {
			return nil, err
		}
		d, err := c.Describe(ctx)
		if err != nil {
			c.Close()
			return nil, err
		}
		if d.ProtocolVersion != sdk.ProtocolVersion {
			c.Close()
			return nil, fmt.Errorf("plugin %s: speaks protocol version %d, bench speaks %d", path, d.ProtocolVersion, sdk.ProtocolVersion)
		}
		if err := describeErr(path, d); err != nil {
			// The plugin's fault, not the scenario's: only its policies fail.
			c.Close()
			return nil, err
		}
		if w := nameMismatch(p.Plugin, d); w != "" {
			fmt.Fprintf(ro.stderr, "bench: warning: plugin %s: %s\n", path, w)
		}
		return &engine.Plugin{Conn: c, Desc: d, SHA256: sum}, nil
	}
}

func runScenario(ctx context.Context, ro *runOptions) error {
	if err := ro.checkFlags(); err != nil {
		return err
	}
	sc, err := ro.loadScenario()
	if err != nil {
		return err
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
		Launch:      ro.launcher(),
		Batch:       ro.batch,
		Jobs:        ro.jobs,
		StepTimeout: ro.stepTimeout,
	}
	var spec shard.Spec
	nrep := sc.Runs
	if ro.shard != "" {
		if spec, err = shard.Parse(ro.shard); err != nil {
			return withCode(ExitInput, err)
		}
		if err := checkShard(spec, sc.Runs); err != nil {
			return err
		}
		opts.Replications = spec.Replications(sc.Runs)
		opts.Traces = true
		nrep = len(opts.Replications)
	}
	order := labels(sc)
	var kept *results.File
	if ro.resume {
		if kept, err = resumable(ro.out, sc, spec); err != nil {
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
				fmt.Fprintf(ro.stderr, "bench: --resume: %s already holds every policy\n", ro.out)
				return ro.finish(ctx, kept, nil, base, gateOpt)
			}
			if err := sc.Select(todo); err != nil {
				return err
			}
		}
	}
	pr := progress.New(ro.stderr, !ro.quiet)
	b := ro.batch
	if b <= 0 {
		b = (nrep + 1) / 2
		if nrep < 64 {
			b = nrep
		}
	}
	pr.SetSessions((nrep + b - 1) / b)
	opts.Progress = pr.Func()
	file, runErr := engine.Run(ctx, sc, opts)
	pr.Wait()
	if file == nil {
		return runErr
	}
	if ro.shard != "" {
		file.Shard.Index, file.Shard.Count = spec.Index, spec.Count
	}
	if kept != nil {
		file.Policies = append(kept.Policies, file.Policies...)
		file.SortPolicies(order)
	}
	return ro.finish(ctx, file, runErr, base, gateOpt)
}

// finish writes, renders and gates the results of a run.
func (ro *runOptions) finish(ctx context.Context, file *results.File, runErr error, base *results.File, gateOpt gate.Options) error {
	if ro.out != "" {
		if err := file.WriteFile(ro.out); err != nil {
			return errors.Join(runErr, err)
		}
	}
	if len(file.Policies) > 0 {
		if err := ro.output.render(ro.stdout, file); err != nil {
			return errors.Join(runErr, err)
		}
	}
	if runErr == nil || errors.Is(runErr, engine.ErrPolicyFailed) {
		return ro.gate.afterRun(ro.stdout, file, runErr, base, gateOpt)
	}
	if runErr != nil {
		var sc signalCause
		if errors.As(context.Cause(ctx), &sc) {
			code := ExitInterrupted
			if sc.sig == syscall.SIGTERM {
				code = ExitTerminated
			}
			where := "printed (no --out)"
			if ro.out != "" {
				where = "written to " + ro.out + ", marked incomplete"
			}
			return withCode(code, fmt.Errorf("%v: partial results %s", sc, where))
		}
	}
	return runErr
}

func labels(sc *scenario.Scenario) []string {
	out := make([]string, len(sc.Policies))
	for i, p := range sc.Policies {
		out[i] = p.Label
	}
	return out
}

// resumable reads the --out file of an earlier run of the same scenario and
// returns it with only its completed policies; nil when there is none.
func resumable(path string, sc *scenario.Scenario, spec shard.Spec) (*results.File, error) {
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
	means := sc.TrueMeans()
	s := f.Scenario
	if s.Name != sc.Name || s.Horizon != sc.Horizon || s.Runs != sc.Runs || s.Seed != sc.Seed ||
		s.InitPulls != sc.InitPulls || len(s.Means) != len(means) || s.NoiseSD != sc.Environment.NoiseSD ||
		f.Shard.Count != max(spec.Count, 1) || f.Shard.Index != spec.Index {
		return nil, fmt.Errorf("--resume: %s holds another run (scenario %s, T=%d, runs=%d, seed %d, shard %d/%d); remove it or choose another --out",
			path, s.Name, s.Horizon, s.Runs, s.Seed, f.Shard.Index, f.Shard.Count)
	}
	for i := range means {
		if s.Means[i] != means[i] {
			return nil, fmt.Errorf("--resume: %s was run with other means", path)
		}
	}
	var ok []*results.Policy
	for _, p := range f.Policies {
		if p.Status == results.StatusOK {
			ok = append(ok, p)
		}
	}
	f.Policies = ok
	f.Complete = true
	return f, nil
}

// describeErr reports a Describe answer bench cannot use: parameters of an
// unknown type, or defaults outside their own declared range. It blames the
// plugin at path, so that its policies fail (exit 3) and the scenario is
// not accused.
func describeErr(path string, d *sdk.Description) error {
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
func nameMismatch(name string, d *sdk.Description) string {
	if d.Name == name {
		return ""
	}
	return fmt.Sprintf("it describes itself as %q, not %q as its file name says (a renamed copy? results record it as %q)", d.Name, name, name)
}
