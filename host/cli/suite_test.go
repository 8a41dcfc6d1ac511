package cli

import (
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/seed"
)

// TestSuiteRequest: bench run --suite maps the flags a suite takes to the
// run.SuiteRequest that run.Suite plays.
func TestSuiteRequest(t *testing.T) {
	o, f, err := parsed(t, newCmdRun, "--plugin-dir", "/plugins", "run", "--suite", "contextual", "--runs", "5", "--horizon", "100", "--seed", "7",
		"--policy", "LinUCB", "-o", "d", "--plot-format", "svg", "--audit", "0", "--with", "linucb:alpha=2@Wide", "--jobs", "2", "--step-timeout", "1m", "--sandbox", "strict")
	if err != nil || o == nil {
		t.Fatalf("err %v, runF called: %v", err, o != nil)
	}
	r := o.suiteReq
	cmdtest.Eq(t, "Suite", r.Suite, "contextual")
	cmdtest.Eq(t, "Runs, Horizon", [2]int{*r.Overrides.Runs, *r.Overrides.Horizon}, [2]int{5, 100})
	cmdtest.Eq(t, "Seed", *r.Overrides.Seed, seed.Choice{Seed: seed.Int(7)})
	cmdtest.Eq(t, "Policies", r.Overrides.Policies, []string{"LinUCB"})
	cmdtest.Eq(t, "Dir, Jobs", [2]any{r.Dir, r.Jobs}, [2]any{"d", 2})
	cmdtest.Eq(t, "Formats", r.Formats, []string{"svg"})
	cmdtest.Eq(t, "With", len(r.With) == 1 && r.With[0].Policy.Label == "Wide", true)
	cmdtest.Eq(t, "Audit", r.Audit != nil && *r.Audit == 0, true)
	cmdtest.Eq(t, "StepTimeout", r.StepTimeout, time.Minute)
	cmdtest.Eq(t, "Sandbox.Level", r.Sandbox.Level, sandbox.Strict)
	// bench's global flags apply to a suite as to any run.
	cmdtest.Eq(t, "plugin dirs", f.PluginDirs, []string{"/plugins"})
	if o.req.Scenario != "" {
		t.Errorf("a suite filled the one-scenario request: %+v", o.req)
	}
}

// TestSuiteFlagErrors: an unknown suite, and a flag that sets one
// scenario's run, stop bench run --suite before it plays, naming them.
func TestSuiteFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown", []string{"run", "--suite", "nope"}, `--suite "nope": no such suite (the suites: contextual)`},
		{"with a scenario", []string{"run", "--suite", "contextual", "-s", "two_arm", "--shard", "0/2"},
			"--scenario, --shard cannot be used with --suite: they set one scenario's run (the flags a suite takes: --runs, --horizon, --jobs, --step-timeout, --start-timeout, --quiet, --seed, --seed-file, --policy, --out, --plot-format, --audit, --with, --sandbox, --sandbox-read, --limit-memory, --limit-tasks, --limit-files, --limit-disk, --limit-disk-files, --limit-by)"},
		{"runs", []string{"run", "--suite", "contextual", "--runs", "0"}, "--runs 0: must be >= 1"},
		{"neither", []string{"run"}, "run: --scenario is required (one of the shipped scenarios or a YAML file; see 'bench scenarios'), or --suite (the suites: contextual)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, err := parsed(t, newCmdRun, tc.args...)
			if o != nil {
				t.Error("runF ran after the error")
			}
			if err == nil || err.Error() != tc.want || ExitCode(err) != ExitInput {
				t.Fatalf("error %v (exit %d), want exit %d and\n%s", err, ExitCode(err), ExitInput, tc.want)
			}
		})
	}
}
