package run_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/run"
)

// TestOptionErrorFormat: an OptionError names its option, its value,
// the option it cannot be combined with and those its reason names, as
// the name function says; Error names them as the Option constants do.
func TestOptionErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       *run.OptionError
		plain, as string // Error(), Format(flag)
	}{
		{"value", &run.OptionError{Option: run.OptRuns, Value: "0", Err: errors.New("must be >= 1")},
			"Runs 0: must be >= 1", "--runs 0: must be >= 1"},
		{"no value", &run.OptionError{Option: run.OptPolicies, Err: errors.New(`no policy "UCB"`)},
			`Policies: no policy "UCB"`, `--policy: no policy "UCB"`},
		{"with", &run.OptionError{Option: run.OptSeed, Value: "random", With: "{Shard}", Err: errors.New("use {SeedFile}")},
			"Seed random with Shard: use SeedFile", "--seed random with --shard: use --seed-file"},
		{"a sentence of its own", &run.OptionError{Option: run.OptResume, Err: errors.New("{Resume} needs {Out} FILE")},
			"Resume needs Out FILE", "--resume needs --out FILE"},
		{"unknown names and braces kept", &run.OptionError{Option: run.OptBaseline, Value: "b.json", Err: errors.New(`{Nope} {"a": 1}`)},
			`Baseline b.json: {Nope} {"a": 1}`, `--baseline b.json: {Nope} {"a": 1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.plain {
				t.Errorf("Error() = %q, want %q", got, tc.plain)
			}
			if got := tc.err.Format(flag); got != tc.as {
				t.Errorf("Format(flag) = %q, want %q", got, tc.as)
			}
			if run.ExitCode(tc.err) != 2 {
				t.Errorf("exit %d, want 2", run.ExitCode(tc.err))
			}
		})
	}
	for _, o := range run.OptionNames {
		if !strings.HasPrefix(flag(o), "--") {
			t.Errorf("option %s has no flag", o)
		}
	}
}
