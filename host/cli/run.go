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
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/sdk"
)

type runOptions struct {
	stdout, stderr io.Writer
	flags          *pflag.FlagSet

	pluginDir    string
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
	gate         gateOptions // --baseline and friends: the one-call gate
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
	addGateRunFlags(fs, &ro.gate)
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
		}
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
		return &engine.Plugin{Conn: c, Desc: d, SHA256: sum}, nil
	}
}

func runScenario(ctx context.Context, ro *runOptions) error {
	sc, err := ro.loadScenario()
	if err != nil {
		return err
	}
	base, gateOpt, err := ro.gate.loadBaseline(sc, ro.policies)
	if err != nil {
		return err
	}
	opts := engine.Options{
		Launch:      ro.launcher(),
		Batch:       ro.batch,
		Jobs:        ro.jobs,
		StepTimeout: ro.stepTimeout,
	}
	file, runErr := engine.Run(ctx, sc, opts)
	if file == nil {
		return runErr
	}
	if ro.out != "" {
		if err := file.WriteFile(ro.out); err != nil {
			return errors.Join(runErr, err)
		}
	}
	if len(file.Policies) > 0 {
		if err := report.Tables(ro.stdout, file); err != nil {
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
			return withCode(code, fmt.Errorf("%v: partial results written, marked incomplete", sc))
		}
	}
	return runErr
}
