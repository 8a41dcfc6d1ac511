package cmdutil

import (
	"errors"
	"fmt"
	"testing"

	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/run"
)

// TestFlagged: an OptionError (a plugin not found, different
// experiments) is named by its
// flags wherever it sits in the error's chain, keeping its exit code; a
// UsageError is marked for the usage hint; any other error is left as it
// is.
func TestFlagged(t *testing.T) {
	opt := &run.OptionError{Option: run.OptSaveBaseline, Value: "s.json", Err: errors.New("is {Baseline}: choose another file")}
	for _, tc := range []struct {
		name  string
		err   error
		want  string
		code  int
		usage bool
	}{
		{"option", opt, "--save-baseline s.json: is --baseline: choose another file", exitcode.Input, false},
		{"wrapped, with a code", exitcode.With(exitcode.Failure, fmt.Errorf("run: %w", opt)), "run: --save-baseline s.json: is --baseline: choose another file", exitcode.Failure, false},
		{"joined", errors.Join(errors.New("policy failed"), opt), "policy failed\n--save-baseline s.json: is --baseline: choose another file", exitcode.Input, false},
		{"usage", &run.UsageError{Err: &run.OptionError{Option: run.OptSeed, Value: "random", With: "{Shard}", Err: errors.New("no")}}, "--seed random with --shard: no", exitcode.Input, true},
		{"plugin not found", fmt.Errorf("policies[0]: %w", fmt.Errorf("%w: %w", errors.New("bad input"), &registry.NotFoundError{Name: "nope", Where: "in /p", Found: []string{"ts"}})),
			`policies[0]: bad input: plugin "nope": no bench-plugin-nope in /p; found: ts (add a directory with --plugin-dir or BENCH_PLUGIN_PATH)`, exitcode.Failure, false},
		{"different experiments", exitcode.With(exitcode.Input, &gate.IncompatibleError{Differences: []string{"arms: 2, 3"}}),
			"baseline and current are different experiments: arms: 2, 3 (--force compares them anyway, unpaired)", exitcode.Input, false},
		{"other", errors.New("{Out} stays"), "{Out} stays", exitcode.Failure, false},
		{"nil", nil, "", exitcode.OK, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Flagged(tc.err)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want || run.ExitCode(err) != tc.code || IsUsage(err) != tc.usage {
				t.Errorf("flagged = %q (exit %d, usage %v), want %q (exit %d, usage %v)", got, run.ExitCode(err), IsUsage(err), tc.want, tc.code, tc.usage)
			}
		})
	}
}
