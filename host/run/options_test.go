package run_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/interrupt"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/internal/seed"
)

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// flag names an option as bench's flags do, for the tests to check the
// messages bench prints: Runs is --runs, SeedFile --seed-file.
func flag(o run.Option) string {
	switch o {
	case run.OptPolicies:
		return "--policy"
	case run.OptCompare:
		return "--metric or --alpha"
	}
	return "--" + strings.ToLower(regexp.MustCompile(`([a-z])([A-Z])`).ReplaceAllString(string(o), "$1-$2"))
}

// flagText is err's text with its OptionError's options named by their
// flags (OptionError.Format), as bench states it.
func flagText(err error) string {
	var opt *run.OptionError
	if !errors.As(err, &opt) {
		return err.Error()
	}
	return strings.Replace(err.Error(), opt.Error(), opt.Format(flag), 1)
}

// checkErr checks that err is the error want (its options named by
// their flags) of the type kind ("input": exit 2; "usage": a
// UsageError), or nil when want is "".
func checkErr(t *testing.T, err error, kind, want string) {
	t.Helper()
	var usage *run.UsageError
	switch {
	case want == "":
		if err != nil {
			t.Fatalf("error %v, want none", err)
		}
	case err == nil || flagText(err) != want:
		t.Fatalf("error %v, want %q", err, want)
	case kind == "usage" && !errors.As(err, &usage):
		t.Fatalf("error %v is %T, want a UsageError", err, err)
	case kind == "input" && run.ExitCode(err) != exitcode.Input:
		t.Fatalf("error %v is %T, want an input error", err, err)
	}
}

// TestCheck: the values in range pass, each bad value or combination
// of a run's options is refused with the message naming its flags: an
// InputError, or a UsageError for options that cannot be combined.
func TestCheck(t *testing.T) {
	ok := run.Options{StepTimeout: time.Minute, StartTimeout: time.Second}
	with := func(f func(o *run.Options)) run.Options { o := ok; f(&o); return o }
	random := &seed.Choice{Random: true}
	one := shard.Spec{Index: 1, Count: 3}
	const replicationHelp = "--replication replays one replication of a run, to look at it; give the run's own flags and seed (--seed-file for a secret one), without "
	for _, tc := range []struct {
		name, kind, err string
		opts            run.Options
	}{
		{name: "defaults", opts: ok},
		{name: "everything in range", opts: with(func(o *run.Options) {
			o.Overrides = run.Overrides{Runs: ptr(scenario.MaxRuns), Horizon: ptr(1), Seed: &seed.Choice{Seed: seed.Int(3)}}
			o.Batch, o.Jobs, o.Audit, o.Replication = 4, 2, 3, ptr(0)
		})},
		{name: "runs 0", kind: "input", err: "--runs 0: must be >= 1", opts: with(func(o *run.Options) { o.Overrides.Runs = ptr(0) })},
		{name: "runs too many", kind: "input", err: "--runs 1000001: exceeds the maximum 1000000",
			opts: with(func(o *run.Options) { o.Overrides.Runs = ptr(scenario.MaxRuns + 1) })},
		{name: "horizon -1", kind: "input", err: "--horizon -1: must be >= 1", opts: with(func(o *run.Options) { o.Overrides.Horizon = ptr(-1) })},
		{name: "batch", kind: "input", err: "--batch -1: must be >= 0 (0: the default)", opts: with(func(o *run.Options) { o.Batch = -1 })},
		{name: "jobs", kind: "input", err: "--jobs -2: must be >= 0 (0: the default)", opts: with(func(o *run.Options) { o.Jobs = -2 })},
		{name: "audit", kind: "input", err: "--audit -1: must be >= 0 (0: no audit)", opts: with(func(o *run.Options) { o.Audit = -1 })},
		{name: "step timeout", kind: "input", err: "--step-timeout 0s: must be > 0, e.g. 30s or 5m", opts: with(func(o *run.Options) { o.StepTimeout = 0 })},
		{name: "start timeout", kind: "input", err: "--start-timeout -1s: must be > 0, e.g. 30s or 5m", opts: with(func(o *run.Options) { o.StartTimeout = -time.Second })},
		{name: "replication -1", kind: "input", err: "--replication -1: must be >= 0 (replications are numbered from 0)", opts: with(func(o *run.Options) { o.Replication = ptr(-1) })},
		{name: "replication shard", kind: "usage", err: "--replication with --shard: " + replicationHelp + "--shard",
			opts: with(func(o *run.Options) { o.Replication, o.Shard = ptr(1), one })},
		{name: "replication resume", kind: "usage", err: "--replication with --resume: " + replicationHelp + "--resume",
			opts: with(func(o *run.Options) { o.Replication, o.Resume, o.Out = ptr(1), true, "r.json" })},
		{name: "replication baseline", kind: "usage", err: "--replication with --baseline: " + replicationHelp + "--baseline",
			opts: with(func(o *run.Options) { o.Replication, o.Baseline = ptr(1), "b.json" })},
		{name: "replication save-baseline", kind: "usage", err: "--replication with --save-baseline: " + replicationHelp + "--save-baseline",
			opts: with(func(o *run.Options) { o.Replication, o.SaveBaseline = ptr(1), "b.json" })},
		{name: "replication seed random", kind: "usage", err: "--replication with --seed random: " + replicationHelp + "--seed random",
			opts: with(func(o *run.Options) { o.Replication, o.Overrides.Seed = ptr(1), random })},
		{name: "replication given seed", opts: with(func(o *run.Options) { o.Replication, o.Overrides.Seed = ptr(1), &seed.Choice{Seed: seed.Int(3)} })},
		{name: "seed random shard", kind: "usage", err: "--seed random with --shard: every shard would draw a secret of its own and the shards would not merge; " +
			"write one secret to a file readable only by you and give it to every shard with --seed-file (docs/reliability.md, Sealed runs)",
			opts: with(func(o *run.Options) { o.Overrides.Seed, o.Shard = random, one })},
		{name: "seed random resume", kind: "usage", err: "--seed random with --resume: a fresh secret never matches the earlier run; " +
			"give that run's seed (its results file's scenario.seed) with --seed-file",
			opts: with(func(o *run.Options) { o.Overrides.Seed, o.Resume, o.Out = random, true, "r.json" })},
		{name: "sequential", opts: with(func(o *run.Options) { o.Sequential, o.Baseline = true, "b.json" })},
		{name: "sequential without baseline", kind: "input", err: "--sequential needs --baseline FILE: its looks gate the run against it",
			opts: with(func(o *run.Options) { o.Sequential = true })},
		{name: "sequential audit", kind: "input", err: "--sequential runs the replications in groups of its own: it cannot be combined with --shard, --resume or --audit",
			opts: with(func(o *run.Options) { o.Sequential, o.Baseline, o.Audit = true, "b.json", 2 })},
		{name: "sequential shard", kind: "input", err: "--sequential runs the replications in groups of its own: it cannot be combined with --shard, --resume or --audit",
			opts: with(func(o *run.Options) { o.Sequential, o.Baseline, o.Shard = true, "b.json", one })},
		{name: "resume", opts: with(func(o *run.Options) { o.Resume, o.Out = true, "r.json" })},
		{name: "resume without out", kind: "input", err: "--resume needs --out FILE", opts: with(func(o *run.Options) { o.Resume = true })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, tc.opts.Check(), tc.kind, tc.err)
		})
	}
}

// TestApply: the overrides change the scenario, a random seed is drawn
// as a secret, and a horizon out of range, a scenario made invalid or an
// unknown policy is an InputError naming the flag.
func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     run.Overrides
		check func(t *testing.T, sc *scenario.Scenario)
		err   string
	}{
		{name: "none", check: func(t *testing.T, sc *scenario.Scenario) {
			if sc.Runs != 8 || sc.Horizon != 200 || sc.Seed != seed.Int(3) || len(sc.Policies) != 2 {
				t.Errorf("the scenario changed: %+v", sc)
			}
		}},
		{name: "every override", o: run.Overrides{Runs: ptr(5), Horizon: ptr(50), Seed: &seed.Choice{Seed: seed.Int(9)}, Policies: []string{"KL-UCB"}},
			check: func(t *testing.T, sc *scenario.Scenario) {
				if sc.Runs != 5 || sc.Horizon != 50 || sc.Seed != seed.Int(9) || len(sc.Policies) != 1 || sc.Policies[0].Label != "KL-UCB" {
					t.Errorf("scenario %+v", sc)
				}
			}},
		{name: "random seed", o: run.Overrides{Seed: &seed.Choice{Random: true}}, check: func(t *testing.T, sc *scenario.Scenario) {
			if !sc.Seed.Secret() {
				t.Errorf("seed %v, want a secret", sc.Seed)
			}
		}},
		{name: "bad horizon", o: run.Overrides{Horizon: ptr(scenario.MaxHorizon + 1)}, err: "--horizon 100000001: "},
		{name: "invalid", o: run.Overrides{Runs: ptr(0)}, err: "runs"},
		{name: "unknown policy", o: run.Overrides{Policies: []string{"UCB"}}, err: "--policy: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := small(t, "seed: 3\n")
			var stderr bytes.Buffer
			err := tc.o.Apply(sc, &stderr, flag)
			if tc.err != "" {
				if run.ExitCode(err) != exitcode.Input || !strings.Contains(flagText(err), tc.err) {
					t.Fatalf("error %v, want an input error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, sc)
		})
	}
}

// TestPlanChecksScenario: a shard or a replication the scenario does not
// have stops Plan before anything runs, with an InputError.
func TestPlanChecksScenario(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts run.Options
		err  string
	}{
		{"shard", run.Options{Shard: shard.Spec{Index: 0, Count: 9}}, "--shard 0/9: 9 shards of 8 runs would leave some empty; use at most 8 shards"},
		{"replication", run.Options{Replication: ptr(8)}, "--replication 8: scenario small has 8 runs, replications 0 to 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Start = func(*scenario.Scenario) run.Progress { t.Error("Plan started the run"); return nil }
			f, err := run.Plan(context.Background(), small(t, ""), tc.opts)
			if f != nil {
				t.Error("Plan returned a file")
			}
			checkErr(t, err, "input", tc.err)
		})
	}
}

// TestApplySeedFile: a --seed-file's seed is the scenario's; a secret in
// a file its group or others may read is a warning, not a refusal; a
// file that cannot be read or holds no seed is an InputError naming it.
func TestApplySeedFile(t *testing.T) {
	dir := t.TempDir()
	const secret = "0x00112233445566778899aabbccddeeff0123456789abcdef0fedcba987654321"
	for _, tc := range []struct {
		name, content string
		mode          os.FileMode
		seed, warn    string
		err           string
	}{
		{name: "integer", content: "42\n", mode: 0o644, seed: "42"},
		{name: "secret", content: secret + "\n", mode: 0o600, seed: secret},
		{name: "shared secret", content: secret + "\n", mode: 0o640, seed: secret,
			warn: "bench: warning: --seed-file DIR/shared secret holds a secret seed, but its mode 0640 gives its group or others access; chmod 600 DIR/shared secret\n"},
		{name: "random", content: "random", mode: 0o600, err: `--seed-file DIR/random: holds "random", but a seed file holds the seed itself`},
		{name: "directory", err: "--seed-file DIR/directory: not a regular file (a directory)"},
		{name: "missing", err: "--seed-file DIR/missing: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			switch tc.name {
			case "directory":
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			case "missing":
			default:
				if err := os.WriteFile(path, []byte(tc.content), tc.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.mode); err != nil { // past the umask
					t.Fatal(err)
				}
			}
			sc := small(t, "seed: 3\n")
			var stderr bytes.Buffer
			err := run.Overrides{SeedFile: path}.Apply(sc, &stderr, flag)
			if tc.err != "" {
				if run.ExitCode(err) != exitcode.Input || !strings.HasPrefix(flagText(err), strings.ReplaceAll(tc.err, "DIR", dir)) {
					t.Fatalf("error %v, want an input error %q...", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Seed.String() != tc.seed {
				t.Errorf("seed %v, want %s", sc.Seed, tc.seed)
			}
			if got, want := stderr.String(), strings.ReplaceAll(tc.warn, "DIR", dir); got != want {
				t.Errorf("stderr %q, want %q", got, want)
			}
		})
	}
}

// TestInterrupted: a run a signal cut short says so, where its partial
// results went, with the signal's exit code; a run cancelled otherwise,
// or not at all, is not interrupted.
func TestInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error // nil: not cancelled
		out   string
		code  int
		err   string
	}{
		{name: "running"},
		{name: "cancelled", cause: context.Canceled},
		{name: "SIGINT, --out", cause: interrupt.Cause{Signal: os.Interrupt}, out: "r.json", code: 130,
			err: "received interrupt: partial results written to r.json, marked incomplete"},
		{name: "SIGTERM", cause: interrupt.Cause{Signal: syscall.SIGTERM}, code: 143, err: "received terminated: partial results printed (no --out)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tc.cause != nil {
				cancel(tc.cause)
			}
			code, err := run.Interrupted(ctx, tc.out, flag)
			if code != tc.code || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
				t.Errorf("Interrupted = %d, %v; want %d, %q", code, err, tc.code, tc.err)
			}
		})
	}
}
