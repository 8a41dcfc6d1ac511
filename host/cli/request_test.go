package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/gate"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/seed"
)

// TestRunRequest: bench run's flags map to the run.Request that run.Run
// plays, parsed once (the sandbox level among them), without starting a
// plugin: runF receives the options in place of the run.
func TestRunRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, r run.Request)
	}{{
		name: "defaults",
		args: []string{"run", "-s", "two_arm"},
		check: func(t *testing.T, r run.Request) {
			eq(t, "Scenario", r.Scenario, "two_arm")
			eq(t, "Sandbox.Level", r.Sandbox.Level, sandbox.Auto)
			want := sandbox.DefaultLimits
			want.By = sandbox.ByAuto
			eq(t, "Sandbox.Limits", r.Sandbox.Limits, want)
			eq(t, "StepTimeout", r.Options.StepTimeout, 5*time.Minute)
			eq(t, "StartTimeout", r.Options.StartTimeout, 10*time.Second)
			eq(t, "Overrides", r.Options.Overrides, run.Overrides{})
			eq(t, "AuditGiven", r.AuditGiven, false)
			eq(t, "Gate", r.Options.Gate, gate.Options{Metric: "regret", Margin: 0.05, Alpha: 0.01})
			eq(t, "Compare", r.Compare, compare.Options{Metric: "regret", Alpha: 0.01})
			eq(t, "Report", r.Report, report.Options{Format: report.FormatTable})
			eq(t, "Figures.Dir", r.Figures.Dir, "")
			eq(t, "Command", r.Command, []string(nil)) // the root's Run records it; this test calls the command directly
		},
	}, {
		name: "every flag that run.Request carries",
		args: []string{"run", "-s", "x.yaml", "--runs", "5", "--horizon", "100", "--seed", "3", "--policy", "TS",
			"-o", "r.json", "--batch", "4", "--jobs", "2", "--step-timeout", "1m", "--start-timeout", "2s", "-q",
			"--shard", "1/3", "--resume", "--with", "ts:c=1@X", "--compare-to", "TS", "--audit", "0",
			"--baseline", "b.json", "--save-baseline", "s.json", "--gate-format", "json", "--margin", "10%",
			"--metric", "underestimation", "--alpha", "0.05", "--force", "--require-conclusive", "--require-same",
			"--format", "csv", "--at", "10,20", "--plot", "figs", "--plot-format", "svg", "--log-y",
			"--sandbox", "off", "--sandbox-read", "/opt/a", "--limit-memory", "unlimited", "--limit-tasks", "9", "--limit-by", "rlimit"},
		check: func(t *testing.T, r run.Request) {
			o := r.Options
			eq(t, "Runs, Horizon", [2]int{*o.Overrides.Runs, *o.Overrides.Horizon}, [2]int{5, 100})
			eq(t, "Seed", *o.Overrides.Seed, seed.Choice{Seed: seed.Int(3)})
			eq(t, "Policies", o.Overrides.Policies, []string{"TS"})
			eq(t, "Out, Baseline, SaveBaseline", [3]string{o.Out, o.Baseline, o.SaveBaseline}, [3]string{"r.json", "b.json", "s.json"})
			eq(t, "Batch, Jobs, Audit", [3]int{o.Batch, o.Jobs, o.Audit}, [3]int{4, 2, 0})
			eq(t, "timeouts", [2]time.Duration{o.StepTimeout, o.StartTimeout}, [2]time.Duration{time.Minute, 2 * time.Second})
			eq(t, "Shard", o.Shard, shard.Spec{Index: 1, Count: 3})
			eq(t, "Resume", o.Resume, true)
			eq(t, "AuditGiven", r.AuditGiven, true)
			eq(t, "Quiet", r.Quiet, true)
			eq(t, "With", len(r.With) == 1 && r.With[0].Spec == "ts:c=1@X" && r.With[0].Policy.Label == "X", true)
			eq(t, "CompareTo", r.CompareTo, "TS")
			eq(t, "Compare", r.Compare, compare.Options{Metric: "underestimation", Alpha: 0.05})
			eq(t, "Gate", o.Gate, gate.Options{Metric: "underestimation", Margin: 0.10, Alpha: 0.05, Force: true})
			eq(t, "Rules", r.Rules, gate.Rules{RequireConclusive: true, RequireSame: true})
			eq(t, "GateFormat", r.GateFormat, "json")
			eq(t, "Report", r.Report, report.Options{Format: report.FormatCSV, At: []int{10, 20}})
			eq(t, "Figures", [3]any{r.Figures.Dir, r.Figures.Formats, r.Figures.LogY}, [3]any{"figs", []string{"svg"}, true})
			eq(t, "Sandbox.Level", r.Sandbox.Level, sandbox.Off)
			eq(t, "Sandbox.Read", r.Sandbox.Read, []string{"/opt/a"})
			eq(t, "Sandbox.Limits", [3]any{r.Sandbox.Limits.Memory, r.Sandbox.Limits.Tasks, r.Sandbox.Limits.By}, [3]any{int64(-1), int64(9), "rlimit"})
		},
	}, {
		name: "--sequential: the gate's looks",
		args: []string{"run", "-s", "two_arm", "--baseline", "b.json", "--sequential", "--looks", "3"},
		check: func(t *testing.T, r run.Request) {
			eq(t, "Sequential", r.Options.Sequential, true)
			eq(t, "Gate.Looks", r.Options.Gate.Looks, 3)
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, err := parsed(t, newCmdRun, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if o == nil {
				t.Fatal("runF was not called")
			}
			tc.check(t, o.req)
		})
	}
}

// TestPaperRequest: bench paper's flags map to the run.PaperRequest that
// run.Paper plays.
func TestPaperRequest(t *testing.T) {
	o, _, err := parsed(t, newCmdPaper, "paper", "-o", "d", "--runs", "5", "--jobs", "2", "--with", "ts@X",
		"--metric", "regret_under", "--alpha", "0.1", "--plot-format", "pdf", "--log-x", "--sandbox", "strict", "--start-timeout", "3s")
	if err != nil || o == nil {
		t.Fatalf("err %v, runF called: %v", err, o != nil)
	}
	r := o.req
	eq(t, "Dir", r.Dir, "d")
	eq(t, "Runs", *r.Runs, 5)
	eq(t, "Horizon", r.Horizon, (*int)(nil))
	eq(t, "Jobs, StartTimeout", [2]any{r.Jobs, r.StartTimeout}, [2]any{2, 3 * time.Second})
	eq(t, "With", len(r.With) == 1 && r.With[0].Policy.Label == "X", true)
	eq(t, "Compare", r.Compare, compare.Options{Metric: "regret_under", Alpha: 0.1})
	eq(t, "Formats, LogX", [2]any{r.Formats, r.LogX}, [2]any{[]string{"pdf"}, true})
	eq(t, "Sandbox.Level", r.Sandbox.Level, sandbox.Strict)
}

// TestFlagErrors: a bad flag, or flags that cannot be combined, stop the
// command before runF with exit 2 and a message naming the flags, as
// bench prints it: run's OptionErrors (run.Options.Check) are named by
// their flags here.
func TestFlagErrors(t *testing.T) {
	s := []string{"run", "-s", "two_arm"}
	arg := func(a ...string) []string { return append(append([]string{}, s...), a...) }
	const replication = "--replication replays one replication of a run, to look at it; give the run's own flags and seed (--seed-file for a secret one), without "
	for _, tc := range []struct {
		name  string
		args  []string
		want  string // the whole message
		usage bool   // followed by the usage hint
	}{
		{"runs", arg("--runs", "0"), "--runs 0: must be >= 1", false},
		{"horizon", arg("--horizon", "-1"), "--horizon -1: must be >= 1", false},
		{"batch", arg("--batch", "-1"), "--batch -1: must be >= 0 (0: the default)", false},
		{"jobs", arg("--jobs", "-2"), "--jobs -2: must be >= 0 (0: the default)", false},
		{"audit", arg("--audit", "-1"), "--audit -1: must be >= 0 (0: no audit)", false},
		{"step timeout", arg("--step-timeout", "0s"), "--step-timeout 0s: must be > 0, e.g. 30s or 5m", false},
		{"start timeout", arg("--start-timeout", "-1s"), "--start-timeout -1s: must be > 0, e.g. 30s or 5m", false},
		{"replication", arg("--replication", "-1"), "--replication -1: must be >= 0 (replications are numbered from 0)", false},
		{"replication with shard", arg("--replication", "1", "--shard", "0/2"), "--replication with --shard: " + replication + "--shard", true},
		{"replication with seed random", arg("--replication", "1", "--seed", "random"), "--replication with --seed random: " + replication + "--seed random", true},
		{"seed random with resume", arg("--seed", "random", "--resume", "-o", "r.json"),
			"--seed random with --resume: a fresh secret never matches the earlier run; give that run's seed (its results file's scenario.seed) with --seed-file", true},
		{"sequential without baseline", arg("--sequential"), "--sequential needs --baseline FILE: its looks gate the run against it", false},
		{"sequential with audit", arg("--sequential", "--baseline", "b.json", "--audit", "2"),
			"--sequential runs the replications in groups of its own: it cannot be combined with --shard, --resume or --audit", false},
		{"resume without out", arg("--resume"), "--resume needs --out FILE", false},
		{"with", arg("--with", "Bad"), `--with "Bad": invalid plugin name "Bad" (want [a-z0-9_-]+, the NAME of bench-plugin-NAME)`, false},
		{"sandbox", arg("--sandbox", "none"), `--sandbox: sandbox level "none": want auto, strict or off`, false},
		{"limit", arg("--limit-tasks", "0"), `--limit-tasks "0": want a positive whole number, or 'unlimited'`, false},
		{"paper runs", []string{"paper", "--runs", "0"}, "--runs 0: must be >= 1", false},
		{"paper start timeout", []string{"paper", "--start-timeout", "0s"}, "--start-timeout 0s: must be > 0, e.g. 30s or 5m", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newCmd := newCmdRun
			var err error
			var ran bool
			if tc.args[0] == "paper" {
				var o *paperOptions
				o, _, err = parsed(t, newCmdPaper, tc.args...)
				ran = o != nil
			} else {
				var o *runOptions
				o, _, err = parsed(t, newCmd, tc.args...)
				ran = o != nil
			}
			if ran {
				t.Error("runF ran after the error")
			}
			if err == nil || err.Error() != tc.want || ExitCode(err) != ExitInput || isUsage(err) != tc.usage {
				t.Fatalf("error %v (exit %d, usage %v), want exit %d, usage %v and\n%s", err, ExitCode(err), isUsage(err), ExitInput, tc.usage, tc.want)
			}
		})
	}
}

// TestFlagged: an OptionError is named by its flags wherever it sits in
// the error's chain, keeping its exit code; a UsageError is marked for
// the usage hint; any other error is left as it is.
func TestFlagged(t *testing.T) {
	opt := &run.OptionError{Option: run.OptSaveBaseline, Value: "s.json", Err: errors.New("is {Baseline}: choose another file")}
	for _, tc := range []struct {
		name  string
		err   error
		want  string
		code  int
		usage bool
	}{
		{"option", opt, "--save-baseline s.json: is --baseline: choose another file", ExitInput, false},
		{"wrapped, with a code", exitcode.With(ExitFailure, fmt.Errorf("run: %w", opt)), "run: --save-baseline s.json: is --baseline: choose another file", ExitFailure, false},
		{"joined", errors.Join(errors.New("policy failed"), opt), "policy failed\n--save-baseline s.json: is --baseline: choose another file", ExitInput, false},
		{"usage", &run.UsageError{Err: &run.OptionError{Option: run.OptSeed, Value: "random", With: "{Shard}", Err: errors.New("no")}}, "--seed random with --shard: no", ExitInput, true},
		{"other", errors.New("{Out} stays"), "{Out} stays", ExitFailure, false},
		{"nil", nil, "", ExitOK, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := flagged(tc.err)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want || ExitCode(err) != tc.code || isUsage(err) != tc.usage {
				t.Errorf("flagged = %q (exit %d, usage %v), want %q (exit %d, usage %v)", got, ExitCode(err), isUsage(err), tc.want, tc.code, tc.usage)
			}
		})
	}
}

// TestFlagsNameEveryOption: every option run names in its errors has a
// flag, registered by bench run or bench paper (or the root's --config).
func TestFlagsNameEveryOption(t *testing.T) {
	root := newRoot(new(strings.Builder), new(strings.Builder))
	runCmd, _, _ := root.Find([]string{"run"})
	paperCmd, _, _ := root.Find([]string{"paper"})
	for _, o := range run.OptionNames {
		f, ok := flags[o]
		if !ok {
			t.Errorf("option %s has no flag", o)
			continue
		}
		for _, name := range strings.Split(f, " or ") {
			name = strings.TrimPrefix(name, "--")
			if runCmd.Flags().Lookup(name) == nil && paperCmd.Flags().Lookup(name) == nil && root.PersistentFlags().Lookup(name) == nil {
				t.Errorf("option %s: flag %s is not a flag of bench run, bench paper or bench", o, f)
			}
		}
	}
}
