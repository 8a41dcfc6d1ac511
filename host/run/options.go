package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/internal/interrupt"
	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/seed"
)

// UsageError is an input error in how a run was asked for, such as
// options that cannot be combined: bench exits 2 and prints its usage
// hint after it. Its message is its cause's.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Overrides are a command's changes to the scenario it runs (bench run
// --runs, --horizon, --seed, --seed-file, --policy): nil or empty for
// none.
type Overrides struct {
	Runs, Horizon *int
	Seed          *seed.Choice
	SeedFile      string   // a file holding the seed, so that a secret stays off the command line
	Policies      []string // play only these
}

// Apply applies o to sc, reading the SeedFile (a secret in a file that
// its group or others may read is a warning on stderr, not a refusal:
// on a cluster the file may sit in a shared directory by design) or
// drawing a fresh secret for a Random seed, and validates the result: a
// seed file that cannot be read, a horizon out of range, a scenario made
// invalid or an unknown policy is an InputError naming the flag.
func (o Overrides) Apply(sc *scenario.Scenario, stderr io.Writer) error {
	if o.Runs != nil {
		sc.Runs = *o.Runs
	}
	if path := o.SeedFile; path != "" {
		s, err := seed.ReadFile(path, func(path string) ([]byte, error) { return safeio.ReadFile(path, seed.MaxFile) })
		if err != nil {
			return &InputError{fmt.Errorf("--seed-file %s: %w", path, err)}
		}
		if perm, ok := seed.Exposed(path, s); ok {
			fmt.Fprintf(stderr, "bench: warning: --seed-file %s holds a secret seed, but its mode %04o gives its group or others access; chmod 600 %s\n", path, perm, path)
		}
		sc.Seed = s
	} else if o.Seed != nil {
		s, err := o.Seed.Draw()
		if err != nil {
			return fmt.Errorf("--seed random: %w", err)
		}
		sc.Seed = s
	}
	if o.Horizon != nil {
		if err := sc.SetHorizon(*o.Horizon); err != nil {
			return &InputError{fmt.Errorf("--horizon %d: %w", *o.Horizon, err)}
		}
	}
	if err := sc.Validate(); err != nil {
		return &InputError{err}
	}
	if len(o.Policies) > 0 {
		if err := sc.Select(o.Policies); err != nil {
			return &InputError{fmt.Errorf("--policy: %w", err)}
		}
	}
	return nil
}

// Check checks opts before anything is loaded or run, so that a bad
// value is an input error naming bench run's flag, never a panic deep in
// a run nor a silent default: the counts and timeouts in range, and no
// options that cannot be combined (a UsageError). bench paper checks its
// own options, those of a run it has, with it too.
func (o Options) Check() error {
	for _, c := range []struct {
		name string
		v    *int
		max  int
	}{{"runs", o.Overrides.Runs, scenario.MaxRuns}, {"horizon", o.Overrides.Horizon, scenario.MaxHorizon}} {
		switch {
		case c.v == nil:
		case *c.v < 1:
			return &InputError{fmt.Errorf("--%s %d: must be >= 1", c.name, *c.v)}
		case *c.v > c.max:
			return &InputError{fmt.Errorf("--%s %d: exceeds the maximum %d", c.name, *c.v, c.max)}
		}
	}
	// 0 means the default: a negative value used to, silently.
	for _, c := range []struct {
		name string
		v    int
	}{{"batch", o.Batch}, {"jobs", o.Jobs}} {
		if c.v < 0 {
			return &InputError{fmt.Errorf("--%s %d: must be >= 0 (0: the default)", c.name, c.v)}
		}
	}
	if o.Audit < 0 {
		return &InputError{fmt.Errorf("--audit %d: must be >= 0 (0: no audit)", o.Audit)}
	}
	if err := CheckTimeouts(o.StepTimeout, o.StartTimeout); err != nil {
		return err
	}
	random := o.Overrides.Seed != nil && o.Overrides.Seed.Random
	if o.Replication != nil {
		// Not with the options whose runs it cannot be part of (a shard,
		// a resumed file, a gate's baseline) nor with a fresh secret
		// seed, which replays nothing.
		if *o.Replication < 0 {
			return &InputError{fmt.Errorf("--replication %d: must be >= 0 (replications are numbered from 0)", *o.Replication)}
		}
		for _, c := range []struct {
			flag string
			set  bool
		}{{"--shard", o.Shard.Count > 0}, {"--resume", o.Resume}, {"--baseline", o.Baseline != ""}, {"--save-baseline", o.SaveBaseline != ""}, {"--seed random", random}} {
			if c.set {
				return &UsageError{fmt.Errorf("--replication with %s: --replication replays one replication of a run, to look at it; give the run's own flags and seed (--seed-file for a secret one), without %s", c.flag, c.flag)}
			}
		}
	}
	switch {
	case random && o.Shard.Count > 0:
		return &UsageError{errors.New("--seed random with --shard: every shard would draw a secret of its own and the shards would not merge; " +
			"write one secret to a file readable only by you and give it to every shard with --seed-file (docs/reliability.md, Sealed runs)")}
	case random && o.Resume:
		return &UsageError{errors.New("--seed random with --resume: a fresh secret never matches the earlier run; " +
			"give that run's seed (its results file's scenario.seed) with --seed-file")}
	case o.Sequential && o.Baseline == "":
		return &InputError{errors.New("--sequential needs --baseline FILE: its looks gate the run against it")}
	case o.Sequential && (o.Shard.Count > 0 || o.Resume || o.Audit > 0):
		return &InputError{errors.New("--sequential runs the replications in groups of its own: it cannot be combined with --shard, --resume or --audit")}
	case o.Resume && o.Out == "":
		return &InputError{errors.New("--resume needs --out FILE")}
	}
	return nil
}

// Inputs lists the files a run of sc reads, that its outputs (Out,
// SaveBaseline) must not overwrite, each as its role and its path ("" for
// none): its scenario file (none for a shipped scenario), the Baseline,
// the command's config file and the plugins of its policies found on
// plugins.
func (o Options) Inputs(sc *scenario.Scenario, plugins registry.Path, config string) [][2]string {
	var scenarioFile string
	if !strings.HasPrefix(sc.Source, "embedded:") {
		scenarioFile = sc.Source
	}
	inputs := [][2]string{{"the scenario file", scenarioFile}, {"the --baseline", o.Baseline}, {"the --config file", config}}
	for _, p := range sc.Policies {
		if path, err := plugins.Find(p.Plugin); err == nil {
			inputs = append(inputs, [2]string{fmt.Sprintf("the plugin of policy %q", p.Label), path})
		}
	}
	return inputs
}

// CheckTimeouts checks a command's --step-timeout and --start-timeout,
// which must be positive: a negative step timeout panicked
// (time.NewTicker), zero meant a default silently.
func CheckTimeouts(step, start time.Duration) error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"step-timeout", step}, {"start-timeout", start}} {
		if d.v <= 0 {
			return &InputError{fmt.Errorf("--%s %v: must be > 0, e.g. 30s or 5m", d.name, d.v)}
		}
	}
	return nil
}

// checkScenario checks opts against the scenario they play, once it is
// loaded: a shard or a replication it does not have.
func (o Options) checkScenario(sc *scenario.Scenario) error {
	if o.Shard.Count > sc.Runs {
		// It would leave shards without a replication (it divided by zero).
		return &InputError{fmt.Errorf("--shard %d/%d: %d shards of %d runs would leave some empty; use at most %d shards",
			o.Shard.Index, o.Shard.Count, o.Shard.Count, sc.Runs, sc.Runs)}
	}
	if o.Replication != nil && *o.Replication >= sc.Runs {
		return &InputError{fmt.Errorf("--replication %d: scenario %s has %d runs, replications 0 to %d", *o.Replication, sc.Name, sc.Runs, sc.Runs-1)}
	}
	return nil
}

// Interrupted returns, when a signal ended ctx, the error of a run it cut
// short, whose partial results were printed and, when out is not "",
// written to out marked incomplete, with the signal's exit code; a nil
// error when no signal ended ctx.
func Interrupted(ctx context.Context, out string) (code int, err error) {
	c, ok := interrupt.Of(ctx)
	if !ok {
		return 0, nil
	}
	where := "printed (no --out)"
	if out != "" {
		where = "written to " + out + ", marked incomplete"
	}
	return c.Code(), fmt.Errorf("%v: partial results %s", c, where)
}
