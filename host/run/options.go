package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/exitcode"
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
// invalid or an unknown policy is an input error (an OptionError where an
// option is at fault). name
// names the options in the warning (Options.Name).
func (o Overrides) Apply(sc *scenario.Scenario, stderr io.Writer, name func(Option) string) error {
	if o.Runs != nil {
		sc.Runs = *o.Runs
	}
	if path := o.SeedFile; path != "" {
		s, err := seed.ReadFile(path, func(path string) ([]byte, error) { return safeio.ReadFile(path, seed.MaxFile) })
		if err != nil {
			return optErr(OptSeedFile, path, "%w", err)
		}
		if perm, ok := seed.Exposed(path, s); ok {
			fmt.Fprintf(stderr, "bench: warning: %s %s holds a secret seed, but its mode %04o gives its group or others access; chmod 600 %s\n", nameBy(name)(OptSeedFile), path, perm, path)
		}
		sc.Seed = s
	} else if o.Seed != nil {
		s, err := o.Seed.Draw()
		if err != nil {
			return exitcode.With(exitcode.Failure, optErr(OptSeed, "random", "%w", err))
		}
		sc.Seed = s
	}
	if o.Horizon != nil {
		if err := sc.SetHorizon(*o.Horizon); err != nil {
			return optErr(OptHorizon, strconv.Itoa(*o.Horizon), "%w", err)
		}
	}
	if err := sc.Validate(); err != nil {
		return &InputError{err}
	}
	if len(o.Policies) > 0 {
		if err := sc.Select(o.Policies); err != nil {
			return optErr(OptPolicies, "", "%w", err)
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
		name Option
		v    *int
		max  int
	}{{OptRuns, o.Overrides.Runs, scenario.MaxRuns}, {OptHorizon, o.Overrides.Horizon, scenario.MaxHorizon}} {
		switch {
		case c.v == nil:
		case *c.v < 1:
			return optErr(c.name, strconv.Itoa(*c.v), "must be >= 1")
		case *c.v > c.max:
			return optErr(c.name, strconv.Itoa(*c.v), "exceeds the maximum %d", c.max)
		}
	}
	// 0 means the default: a negative value used to, silently.
	for _, c := range []struct {
		name Option
		v    int
	}{{OptBatch, o.Batch}, {OptJobs, o.Jobs}} {
		if c.v < 0 {
			return optErr(c.name, strconv.Itoa(c.v), "must be >= 0 (0: the default)")
		}
	}
	if o.Audit < 0 {
		return optErr(OptAudit, strconv.Itoa(o.Audit), "must be >= 0 (0: no audit)")
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
			return optErr(OptReplication, strconv.Itoa(*o.Replication), "must be >= 0 (replications are numbered from 0)")
		}
		for _, c := range []struct {
			with string
			set  bool
		}{{"{Shard}", o.Shard.Count > 0}, {"{Resume}", o.Resume}, {"{Baseline}", o.Baseline != ""}, {"{SaveBaseline}", o.SaveBaseline != ""}, {"{Seed} random", random}} {
			if c.set {
				return &UsageError{&OptionError{Option: OptReplication, With: c.with, Err: fmt.Errorf(
					"{Replication} replays one replication of a run, to look at it; give the run's own flags and seed ({SeedFile} for a secret one), without %s", c.with)}}
			}
		}
	}
	switch {
	case random && o.Shard.Count > 0:
		return &UsageError{&OptionError{Option: OptSeed, Value: "random", With: "{Shard}", Err: errors.New("every shard would draw a secret of its own and the shards would not merge; " +
			"write one secret to a file readable only by you and give it to every shard with {SeedFile} (docs/reliability.md, Sealed runs)")}}
	case random && o.Resume:
		return &UsageError{&OptionError{Option: OptSeed, Value: "random", With: "{Resume}", Err: errors.New("a fresh secret never matches the earlier run; " +
			"give that run's seed (its results file's scenario.seed) with {SeedFile}")}}
	case o.Sequential && o.Baseline == "":
		return &OptionError{Option: OptSequential, Err: errors.New("{Sequential} needs {Baseline} FILE: its looks gate the run against it")}
	case o.Sequential && (o.Shard.Count > 0 || o.Resume || o.Audit > 0):
		return &OptionError{Option: OptSequential, Err: errors.New("{Sequential} runs the replications in groups of its own: it cannot be combined with {Shard}, {Resume} or {Audit}")}
	case o.Resume && o.Out == "":
		return &OptionError{Option: OptResume, Err: errors.New("{Resume} needs {Out} FILE")}
	}
	return nil
}

// Inputs lists the files a run of sc reads, that its outputs (Out,
// SaveBaseline) must not overwrite, each as its role (naming options as
// OptionError's text does) and its path ("" for none): its scenario file (none for a shipped scenario), the Baseline,
// the command's config file and the plugins of its policies found on
// plugins.
func (o Options) Inputs(sc *scenario.Scenario, plugins registry.Path, config string) [][2]string {
	var scenarioFile string
	if !strings.HasPrefix(sc.Source, "embedded:") {
		scenarioFile = sc.Source
	}
	inputs := [][2]string{{"the scenario file", scenarioFile}, {"the {Baseline}", o.Baseline}, {"the {Config} file", config}}
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
		name Option
		v    time.Duration
	}{{OptStepTimeout, step}, {OptStartTimeout, start}} {
		if d.v <= 0 {
			return optErr(d.name, d.v.String(), "must be > 0, e.g. 30s or 5m")
		}
	}
	return nil
}

// checkScenario checks opts against the scenario they play, once it is
// loaded: a shard or a replication it does not have.
func (o Options) checkScenario(sc *scenario.Scenario) error {
	if o.Shard.Count > sc.Runs {
		// It would leave shards without a replication (it divided by zero).
		return optErr(OptShard, fmt.Sprintf("%d/%d", o.Shard.Index, o.Shard.Count), "%d shards of %d runs would leave some empty; use at most %d shards",
			o.Shard.Count, sc.Runs, sc.Runs)
	}
	if o.RoundsLog != "" {
		switch {
		case !sc.Contextual():
			return &OptionError{Option: OptRoundsLog, Err: fmt.Errorf("{RoundsLog} logs the rounds of a contextual scenario (a context: block), for logged-data evaluation; scenario %s has none", sc.Name)}
		case o.Resume:
			return &UsageError{&OptionError{Option: OptRoundsLog, With: "{Resume}", Err: errors.New("the policies kept from the earlier run are not played again, so the log could not hold them")}}
		case o.Gate.Looks > 0 || o.Sequential:
			return &UsageError{&OptionError{Option: OptRoundsLog, With: "{Sequential}", Err: errors.New("the sequential gate stops policies early, in groups of replications of its own; log a fixed run")}}
		case filepath.Clean(o.RoundsLog) == filepath.Clean(o.Out) || filepath.Clean(o.RoundsLog) == filepath.Clean(o.SaveBaseline):
			return &OptionError{Option: OptRoundsLog, Value: o.RoundsLog, Err: errors.New("is also the results file: give the log a file of its own (FILE.csv.gz)")}
		}
	}
	if o.Replication != nil && *o.Replication >= sc.Runs {
		return optErr(OptReplication, strconv.Itoa(*o.Replication), "scenario %s has %d runs, replications 0 to %d", sc.Name, sc.Runs, sc.Runs-1)
	}
	return nil
}

// Interrupted returns, when a signal ended ctx, the error of a run it cut
// short, whose partial results were printed and, when out is not "",
// written to out marked incomplete, with the signal's exit code; a nil
// error when no signal ended ctx. name names the options (Options.Name).
func Interrupted(ctx context.Context, out string, name func(Option) string) (code int, err error) {
	c, ok := interrupt.Of(ctx)
	if !ok {
		return 0, nil
	}
	where := "printed (no " + nameBy(name)(OptOut) + ")"
	if out != "" {
		where = "written to " + out + ", marked incomplete"
	}
	return c.Code(), fmt.Errorf("%v: partial results %s", c, where)
}
