package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
	"github.com/regretbench/regretbench/host/compare"
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
			cmdtest.Eq(t, "Scenario", r.Scenario, "two_arm")
			cmdtest.Eq(t, "Sandbox.Level", r.Sandbox.Level, sandbox.Auto)
			want := sandbox.DefaultLimits
			want.By = sandbox.ByAuto
			cmdtest.Eq(t, "Sandbox.Limits", r.Sandbox.Limits, want)
			cmdtest.Eq(t, "StepTimeout", r.Options.StepTimeout, 5*time.Minute)
			cmdtest.Eq(t, "StartTimeout", r.Options.StartTimeout, 10*time.Second)
			cmdtest.Eq(t, "Overrides", r.Options.Overrides, run.Overrides{})
			cmdtest.Eq(t, "AuditGiven", r.AuditGiven, false)
			cmdtest.Eq(t, "Gate", r.Options.Gate, gate.Options{Metric: "regret", Margin: 0.05, Alpha: 0.01})
			cmdtest.Eq(t, "Compare", r.Compare, compare.Options{Metric: "regret", Alpha: 0.01})
			cmdtest.Eq(t, "Report", r.Report, report.Options{Format: report.FormatTable})
			cmdtest.Eq(t, "Figures.Dir", r.Figures.Dir, "")
			cmdtest.Eq(t, "Command", r.Command, []string(nil)) // the root's Run records it; this test calls the command directly
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
			cmdtest.Eq(t, "Runs, Horizon", [2]int{*o.Overrides.Runs, *o.Overrides.Horizon}, [2]int{5, 100})
			cmdtest.Eq(t, "Seed", *o.Overrides.Seed, seed.Choice{Seed: seed.Int(3)})
			cmdtest.Eq(t, "Policies", o.Overrides.Policies, []string{"TS"})
			cmdtest.Eq(t, "Out, Baseline, SaveBaseline", [3]string{o.Out, o.Baseline, o.SaveBaseline}, [3]string{"r.json", "b.json", "s.json"})
			cmdtest.Eq(t, "Batch, Jobs, Audit", [3]int{o.Batch, o.Jobs, o.Audit}, [3]int{4, 2, 0})
			cmdtest.Eq(t, "timeouts", [2]time.Duration{o.StepTimeout, o.StartTimeout}, [2]time.Duration{time.Minute, 2 * time.Second})
			cmdtest.Eq(t, "Shard", o.Shard, shard.Spec{Index: 1, Count: 3})
			cmdtest.Eq(t, "Resume", o.Resume, true)
			cmdtest.Eq(t, "AuditGiven", r.AuditGiven, true)
			cmdtest.Eq(t, "Quiet", r.Quiet, true)
			cmdtest.Eq(t, "With", len(r.With) == 1 && r.With[0].Spec == "ts:c=1@X" && r.With[0].Policy.Label == "X", true)
			cmdtest.Eq(t, "CompareTo", r.CompareTo, "TS")
			cmdtest.Eq(t, "Compare", r.Compare, compare.Options{Metric: "underestimation", Alpha: 0.05})
			cmdtest.Eq(t, "Gate", o.Gate, gate.Options{Metric: "underestimation", Margin: 0.10, Alpha: 0.05, Force: true})
			cmdtest.Eq(t, "Rules", r.Rules, gate.Rules{RequireConclusive: true, RequireSame: true})
			cmdtest.Eq(t, "GateFormat", r.GateFormat, "json")
			cmdtest.Eq(t, "Report", r.Report, report.Options{Format: report.FormatCSV, At: []int{10, 20}})
			cmdtest.Eq(t, "Figures", [3]any{r.Figures.Dir, r.Figures.Formats, r.Figures.LogY}, [3]any{"figs", []string{"svg"}, true})
			cmdtest.Eq(t, "Sandbox.Level", r.Sandbox.Level, sandbox.Off)
			cmdtest.Eq(t, "Sandbox.Read", r.Sandbox.Read, []string{"/opt/a"})
			cmdtest.Eq(t, "Sandbox.Limits", [3]any{r.Sandbox.Limits.Memory, r.Sandbox.Limits.Tasks, r.Sandbox.Limits.By}, [3]any{int64(-1), int64(9), "rlimit"})
		},
	}, {
		name: "--sequential: the gate's looks",
		args: []string{"run", "-s", "two_arm", "--baseline", "b.json", "--sequential", "--looks", "3"},
		check: func(t *testing.T, r run.Request) {
			cmdtest.Eq(t, "Sequential", r.Options.Sequential, true)
			cmdtest.Eq(t, "Gate.Looks", r.Options.Gate.Looks, 3)
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
	cmdtest.Eq(t, "Dir", r.Dir, "d")
	cmdtest.Eq(t, "Runs", *r.Runs, 5)
	cmdtest.Eq(t, "Horizon", r.Horizon, (*int)(nil))
	cmdtest.Eq(t, "Jobs, StartTimeout", [2]any{r.Jobs, r.StartTimeout}, [2]any{2, 3 * time.Second})
	cmdtest.Eq(t, "With", len(r.With) == 1 && r.With[0].Policy.Label == "X", true)
	cmdtest.Eq(t, "Compare", r.Compare, compare.Options{Metric: "regret_under", Alpha: 0.1})
	cmdtest.Eq(t, "Formats, LogX", [2]any{r.Formats, r.LogX}, [2]any{[]string{"pdf"}, true})
	cmdtest.Eq(t, "Sandbox.Level", r.Sandbox.Level, sandbox.Strict)
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
		{"shard", arg("--shard", "3/3"), `--shard "3/3": want I/N with 0 <= I < N, e.g. 0/4 (I is 0-based, like JOB_COMPLETION_INDEX)`, false},
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
			if err == nil || err.Error() != tc.want || ExitCode(err) != ExitInput || cmdutil.IsUsage(err) != tc.usage {
				t.Fatalf("error %v (exit %d, usage %v), want exit %d, usage %v and\n%s", err, ExitCode(err), cmdutil.IsUsage(err), ExitInput, tc.usage, tc.want)
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
		f, ok := cmdutil.Flags[o]
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
