package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/gate"
	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
	"github.com/regretbench/regretbench/host/plot"
)

// root is the real root (newCmdRoot), so that BENCH_* variables and
// --config fill unset flags as in bench.
func root(f *cmdutil.Factory) *cobra.Command { return newCmdRoot(f, nil) }

// parsed executes args on the real root holding the command newCmd
// builds, whose runF captures the options (cmdtest.Parsed).
func parsed[T any](t *testing.T, newCmd func(*cmdutil.Factory, func(*T) error) *cobra.Command, args ...string) (*T, *cmdutil.Factory, error) {
	t.Helper()
	return cmdtest.Parsed(t, root, newCmd, args...)
}

// TestRunOptions: bench run's flags, BENCH_* variables and the --config
// file land in its own runOptions; a flag beats the environment, which
// beats the config file; bad values stop it before it runs.
func TestRunOptions(t *testing.T) {
	cmdtest.Run(t, root, newCmdRun, []cmdtest.Case[runOptions]{{
		Name: "defaults",
		Args: []string{"run", "--scenario", "two_arm"},
		Check: func(t *testing.T, o *runOptions, f *cmdutil.Factory) {
			cmdtest.Eq(t, "scenario", o.scenario, "two_arm")
			cmdtest.Eq(t, "policyRunOptions", o.policyRunOptions, policyRunOptions{stepTimeout: 5 * time.Minute, startTimeout: 10 * time.Second, sandbox: cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "auto"})})
			cmdtest.Eq(t, "runs changed", cmdutil.Changed(o.flags, "runs"), false)
			cmdtest.Eq(t, "gate", [3]any{o.gate.Metric, o.gate.Margin, o.gate.Alpha}, [3]any{"regret", "5%", 0.01})
			cmdtest.Eq(t, "gate.formatFlag", o.gate.FormatFlag, "--gate-format")
			cmdtest.Eq(t, "output", o.output, outputOptions{format: "table", plotFormats: strings.Join(plot.DefaultFormats, ",")})
			cmdtest.Eq(t, "config", f.Config, "")
			cmdtest.Eq(t, "plugin dirs", f.PluginDirs, []string(nil))
		},
	}, {
		Name: "every flag",
		Args: []string{"--plugin-dir", "/plugins", "--plugin-dir", "/more,plugins", "run", "-s", "two_arm", "--runs", "5", "--horizon", "100", "--seed", "3",
			"--policy", "TS", "--policy", "KL-UCB", "-o", "r.json", "--batch", "4", "--jobs", "2", "--step-timeout", "1m",
			"--start-timeout", "2s", "-q", "--shard", "1/3", "--resume", "--with", "ts:c=1,d=2@X", "--with", "klucb",
			"--compare-to", "TS", "--baseline", "b.json", "--save-baseline", "s.json", "--gate-format", "json",
			"--margin", "10%", "--metric", "underestimation", "--alpha", "0.05", "--force", "--require-conclusive",
			"--require-same", "--format", "csv", "--at", "10,20", "--plot", "figs", "--plot-format", "svg",
			"--sandbox", "strict", "--sandbox-read", "/opt/a", "--sandbox-read", "/opt/b",
			"--limit-memory", "8GiB", "--limit-tasks", "512", "--limit-files", "4096", "--limit-disk", "2GiB", "--limit-disk-files", "20000", "--limit-by", "rlimit"},
		Check: func(t *testing.T, o *runOptions, f *cmdutil.Factory) {
			cmdtest.Eq(t, "policyRunOptions", o.policyRunOptions, policyRunOptions{runs: 5, horizon: 100, jobs: 2,
				stepTimeout: time.Minute, startTimeout: 2 * time.Second, quiet: true, with: []string{"ts:c=1,d=2@X", "klucb"},
				sandbox: cmdutil.SandboxOptions{Level: "strict", Read: []string{"/opt/a", "/opt/b"},
					LimitMemory: "8GiB", LimitTasks: "512", LimitFiles: "4096", LimitDisk: "2GiB", LimitDiskFiles: "20000", LimitBy: "rlimit"}})
			cmdtest.Eq(t, "seed", o.seed, seedOptions{value: "3"})
			cmdtest.Eq(t, "policies", o.policies, []string{"TS", "KL-UCB"})
			cmdtest.Eq(t, "out", o.out, "r.json")
			cmdtest.Eq(t, "batch", o.batch, 4)
			cmdtest.Eq(t, "shard", o.shard, "1/3")
			cmdtest.Eq(t, "resume", o.resume, true)
			cmdtest.Eq(t, "compareTo", o.compareTo, "TS")
			cmdtest.Eq(t, "gate", o.gate, gate.Options{Metric: "underestimation", Margin: "10%", Alpha: 0.05, Force: true,
				RequireConclusive: true, RequireSame: true, Looks: 5, Format: "json", FormatFlag: "--gate-format",
				Baseline: "b.json", SaveBaseline: "s.json"})
			cmdtest.Eq(t, "output", o.output, outputOptions{format: "csv", at: "10,20", plotDir: "figs", plotFormats: "svg"})
			// Repeatable, in order; a directory's comma is its own.
			cmdtest.Eq(t, "plugin dirs", f.PluginDirs, []string{"/plugins", "/more,plugins"})
		},
	}, {
		Name: "environment",
		Args: []string{"run", "--scenario", "two_arm"},
		// --with takes one spec a variable, commas and all; --policy a list.
		Env: map[string]string{"BENCH_RUNS": "7", "BENCH_WITH": "ts:c=1,d=2@X", "BENCH_POLICY": "TS,KL-UCB",
			"BENCH_STEP_TIMEOUT": "90s", "BENCH_PLUGIN_DIR": "/env/plugins,a", "BENCH_GATE_FORMAT": "markdown"},
		Check: func(t *testing.T, o *runOptions, f *cmdutil.Factory) {
			cmdtest.Eq(t, "runs", o.runs, 7)
			cmdtest.Eq(t, "runs changed", cmdutil.Changed(o.flags, "runs"), true)
			cmdtest.Eq(t, "with", o.with, []string{"ts:c=1,d=2@X"})
			cmdtest.Eq(t, "policies", o.policies, []string{"TS", "KL-UCB"})
			cmdtest.Eq(t, "stepTimeout", o.stepTimeout, 90*time.Second)
			cmdtest.Eq(t, "gate.format", o.gate.Format, "markdown")
			// BENCH_PLUGIN_DIR is one directory, commas and all
			// (BENCH_PLUGIN_PATH, read when plugins are looked up, is
			// the list).
			cmdtest.Eq(t, "plugin dirs", f.PluginDirs, []string{"/env/plugins,a"})
		},
	}, {
		Name:   "a flag beats the environment, which beats the config file",
		Args:   []string{"run", "--scenario", "two_arm", "--runs", "5"},
		Env:    map[string]string{"BENCH_RUNS": "7", "BENCH_HORIZON": "300"},
		Config: "runs: 9\nhorizon: 400\njobs: 3\nwith: ['ts@A', 'klucb:c=1,d=2@B']\n",
		Check: func(t *testing.T, o *runOptions, f *cmdutil.Factory) {
			cmdtest.Eq(t, "runs", o.runs, 5)
			cmdtest.Eq(t, "horizon", o.horizon, 300)
			cmdtest.Eq(t, "jobs", o.jobs, 3)
			cmdtest.Eq(t, "with", o.with, []string{"ts@A", "klucb:c=1,d=2@B"})
			if !strings.HasSuffix(f.Config, "bench.yaml") {
				t.Errorf("factory config %q, want the --config file", f.Config)
			}
		},
	},
		{Name: "--runs 0", Args: []string{"run", "--scenario", "two_arm", "--runs", "0"}, Err: "--runs 0: must be >= 1"},
		{Name: "BENCH_JOBS=-1", Args: []string{"run", "--scenario", "two_arm"}, Env: map[string]string{"BENCH_JOBS": "-1"}, Err: "--jobs -1"},
		{Name: "BENCH_SANDBOX=none", Args: []string{"run", "--scenario", "two_arm"}, Env: map[string]string{"BENCH_SANDBOX": "none"}, Err: `--sandbox: sandbox level "none": want auto, strict or off`},
		{Name: "sandbox in the config", Args: []string{"run", "--scenario", "two_arm"}, Config: "sandbox: strict\nsandbox-read: [/opt/data]\n",
			Check: func(t *testing.T, o *runOptions, _ *cmdutil.Factory) {
				cmdtest.Eq(t, "sandbox", o.sandbox, cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "strict", Read: []string{"/opt/data"}}))
			}},
		{Name: "BENCH_SANDBOX beats the config", Args: []string{"run", "--scenario", "two_arm"}, Env: map[string]string{"BENCH_SANDBOX": "off"}, Config: "sandbox: strict\n",
			Check: func(t *testing.T, o *runOptions, _ *cmdutil.Factory) {
				cmdtest.Eq(t, "sandbox", o.sandbox.Level, "off")
			}},
		{Name: "plugin dirs in the config", Args: []string{"run", "--scenario", "two_arm"}, Config: "plugin-dir: [/opt/a, /opt/b]\n",
			Check: func(t *testing.T, _ *runOptions, f *cmdutil.Factory) {
				cmdtest.Eq(t, "plugin dirs", f.PluginDirs, []string{"/opt/a", "/opt/b"})
			}},
		{Name: "one plugin dir in the config", Args: []string{"run", "--scenario", "two_arm"}, Config: "plugin-dir: /opt/a,b\n",
			Check: func(t *testing.T, _ *runOptions, f *cmdutil.Factory) {
				cmdtest.Eq(t, "plugin dirs", f.PluginDirs, []string{"/opt/a,b"})
			}},
		{Name: "bad --shard", Args: []string{"run", "--scenario", "two_arm", "--shard", "3/3"}, Err: "--shard"},
		{Name: "bad --margin in the config", Args: []string{"run", "--scenario", "two_arm"}, Config: "margin: lots\n", Err: "--margin"},
		{Name: "no --scenario", Args: []string{"run"}, Err: "--scenario is required"},
		{Name: "BENCH_SEED_FILE", Args: []string{"run", "--scenario", "two_arm"}, Env: map[string]string{"BENCH_SEED_FILE": "/run/sealed.seed"},
			Check: func(t *testing.T, o *runOptions, _ *cmdutil.Factory) {
				cmdtest.Eq(t, "seed", o.seed, seedOptions{file: "/run/sealed.seed"})
			}},
		{Name: "a secret seed in the config file", Args: []string{"run", "--scenario", "two_arm"}, Config: "seed: 0x" + strings.Repeat("e1", 32) + "\n",
			Check: func(t *testing.T, o *runOptions, _ *cmdutil.Factory) {
				cmdtest.Eq(t, "seed", o.seed, seedOptions{value: "0x" + strings.Repeat("e1", 32)})
			}},
		{Name: "--seed with BENCH_SEED_FILE", Args: []string{"run", "--scenario", "two_arm", "--seed", "4"}, Env: map[string]string{"BENCH_SEED_FILE": "/s"}, Err: "--seed and --seed-file both given"},
		{Name: "bad --seed in the config", Args: []string{"run", "--scenario", "two_arm"}, Config: "seed: -4\n", Err: "--seed: invalid seed"},
		{Name: "--seed random --shard", Args: []string{"run", "--scenario", "two_arm", "--seed", "random", "--shard", "1/2"}, Err: "--seed random with --shard"},
	})
}

// TestRootRunOptions: bench --scenario X is a run of its own, with the
// flags of bench run.
func TestRootRunOptions(t *testing.T) {
	f := &cmdutil.Factory{Stdout: io.Discard, Stderr: io.Discard}
	var got *runOptions
	root := newCmdRoot(f, func(o *runOptions) error { got = o; return nil })
	cmdutil.MarkUsage(root)
	root.SetArgs([]string{"--scenario", "two_arm", "--runs", "5", "--with", "ts@X"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("runF was not called")
	}
	cmdtest.Eq(t, "scenario", got.scenario, "two_arm")
	cmdtest.Eq(t, "runs", got.runs, 5)
	cmdtest.Eq(t, "with", got.with, []string{"ts@X"})
}

// TestPaperOptions: bench paper's flags, BENCH_* variables and the
// --config file land in paperOptions, the flags it shares with a run in
// the same embedded policyRunOptions.
func TestPaperOptions(t *testing.T) {
	cmdtest.Run(t, root, newCmdPaper, []cmdtest.Case[paperOptions]{{
		Name: "defaults",
		Args: []string{"paper"},
		Check: func(t *testing.T, o *paperOptions, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "policyRunOptions", o.policyRunOptions, policyRunOptions{stepTimeout: 5 * time.Minute, startTimeout: 10 * time.Second, sandbox: cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "auto"})})
			cmdtest.Eq(t, "runs changed", cmdutil.Changed(o.flags, "runs"), false)
			cmdtest.Eq(t, "dir", o.dir, "paper-results")
			cmdtest.Eq(t, "formats", o.formats, plot.DefaultFormats)
			cmdtest.Eq(t, "metric", o.metric, "regret")
			cmdtest.Eq(t, "alpha", o.alpha, 0.01)
		},
	}, {
		Name: "--runs 5",
		Args: []string{"paper", "--runs", "5"},
		Check: func(t *testing.T, o *paperOptions, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "runs", o.runs, 5)
			cmdtest.Eq(t, "runs changed", cmdutil.Changed(o.flags, "runs"), true)
		},
	}, {
		Name: "every flag",
		Args: []string{"paper", "-o", "d", "--plot-format", "svg,pdf", "--runs", "5", "--horizon", "100", "--jobs", "2",
			"--step-timeout", "1m", "--start-timeout", "3s", "--with", "ts@X", "-q", "--metric", "regret_under", "--alpha", "0.1",
			"--sandbox", "off"},
		Check: func(t *testing.T, o *paperOptions, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "policyRunOptions", o.policyRunOptions, policyRunOptions{runs: 5, horizon: 100, jobs: 2,
				stepTimeout: time.Minute, startTimeout: 3 * time.Second, quiet: true, with: []string{"ts@X"},
				sandbox: cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "off"})})
			cmdtest.Eq(t, "dir", o.dir, "d")
			cmdtest.Eq(t, "formats", o.formats, []string{"svg", "pdf"})
			cmdtest.Eq(t, "metric", o.metric, "regret_under")
			cmdtest.Eq(t, "alpha", o.alpha, 0.1)
		},
	}, {
		Name:   "environment and config file",
		Args:   []string{"paper", "--jobs", "1"},
		Env:    map[string]string{"BENCH_RUNS": "6", "BENCH_JOBS": "4", "BENCH_WITH": "ts:c=1,d=2@X"},
		Config: "horizon: 200\nout: from-config\nplot-format: pdf\n",
		Check: func(t *testing.T, o *paperOptions, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "runs", o.runs, 6)
			cmdtest.Eq(t, "runs changed", cmdutil.Changed(o.flags, "runs"), true)
			cmdtest.Eq(t, "jobs", o.jobs, 1)
			cmdtest.Eq(t, "with", o.with, []string{"ts:c=1,d=2@X"})
			cmdtest.Eq(t, "horizon", o.horizon, 200)
			cmdtest.Eq(t, "dir", o.dir, "from-config")
			cmdtest.Eq(t, "formats", o.formats, []string{"pdf"})
		},
	},
		{Name: "--runs 0", Args: []string{"paper", "--runs", "0"}, Err: "--runs 0: must be >= 1"},
		{Name: "--plot-format gif", Args: []string{"paper", "--plot-format", "gif"}, Err: "--plot-format"},
		{Name: "BENCH_START_TIMEOUT=0s", Args: []string{"paper"}, Env: map[string]string{"BENCH_START_TIMEOUT": "0s"}, Err: "--start-timeout 0s"},
	})
}

// TestOptionsIndependent: the commands of one root each fill their own
// options. The paper flags given first are not seen by the run after it,
// and the run's not by the root's own run form, nor by paper again.
func TestOptionsIndependent(t *testing.T) {
	f := &cmdutil.Factory{Stdout: io.Discard, Stderr: io.Discard}
	var rootOpts, runOpts []*runOptions
	var papers []*paperOptions
	root := newCmdRoot(f, func(o *runOptions) error { rootOpts = append(rootOpts, o); return nil })
	root.AddCommand(
		newCmdRun(f, func(o *runOptions) error { runOpts = append(runOpts, o); return nil }),
		newCmdPaper(f, func(o *paperOptions) error { papers = append(papers, o); return nil }),
		gate.NewCmdGate(f, func(*gate.CmdOptions) error { return nil }),
	)
	cmdutil.MarkUsage(root)
	exec := func(args ...string) {
		t.Helper()
		root.SetArgs(args)
		if err := root.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("%s: %v", strings.Join(args, " "), err)
		}
	}
	exec("paper", "--runs", "5", "--jobs", "3", "--with", "ts@X", "--metric", "underestimation", "--alpha", "0.2",
		"--step-timeout", "1m", "--start-timeout", "1s", "-q")
	exec("gate", "a.json", "b.json", "--metric", "regret_under", "--alpha", "0.3", "--margin", "1%")
	exec("run", "--scenario", "two_arm", "--horizon", "50", "--jobs", "2")
	exec("--scenario", "three_arm")
	exec("paper")

	fresh := policyRunOptions{stepTimeout: 5 * time.Minute, startTimeout: 10 * time.Second, sandbox: cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "auto"})}
	if len(runOpts) != 1 || len(rootOpts) != 1 || len(papers) != 2 {
		t.Fatalf("runF calls: run %d, root %d, paper %d; want 1, 1, 2", len(runOpts), len(rootOpts), len(papers))
	}
	run, rootRun := runOpts[0], rootOpts[0]
	cmdtest.Eq(t, "run: policyRunOptions", run.policyRunOptions, policyRunOptions{horizon: 50, jobs: 2, stepTimeout: 5 * time.Minute, startTimeout: 10 * time.Second, sandbox: cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "auto"})})
	cmdtest.Eq(t, "run: gate", [3]any{run.gate.Metric, run.gate.Margin, run.gate.Alpha}, [3]any{"regret", "5%", 0.01})
	cmdtest.Eq(t, "root: policyRunOptions", rootRun.policyRunOptions, fresh)
	cmdtest.Eq(t, "root: scenario", rootRun.scenario, "three_arm")
	cmdtest.Eq(t, "run: scenario", run.scenario, "two_arm")
	// bench paper keeps its own flags from its first call (cobra does not
	// reset flags between executions), never the run's.
	cmdtest.Eq(t, "paper: jobs", papers[1].jobs, 3)
	cmdtest.Eq(t, "paper: horizon", papers[1].horizon, 0)
	if run == rootRun || papers[0] != papers[1] {
		t.Error("bench run and bench --scenario share one options struct, or bench paper has two")
	}
}

// TestOptionsDoNotLeak: two commands executed by one root (the real one,
// newRoot) do not see each other's flags. When every command shared one
// options struct, the flags of a failed 'bench paper' were still set when
// 'bench run' ran next (and the other way round), so the second command
// failed on a flag it was never given.
func TestOptionsDoNotLeak(t *testing.T) {
	// The first command fails on its first check, after every flag is
	// parsed; the second one fails on a check made after the leaked flag
	// would have been: its error must be that one.
	const runFails = `--compare-to "nobody"`
	run := []string{"run", "--scenario", "two_arm", "--compare-to", "nobody"}
	const paperFails = "--plot-format"
	paper := []string{"paper", "--runs", "1", "--horizon", "10", "--plot-format", "gif"}
	for _, tc := range []struct {
		name        string
		first, then []string
		want        string
	}{
		{"paper --with, then run", []string{"paper", "--runs", "0", "--with", "Bad!"}, run, runFails},
		{"paper --jobs, then run", []string{"paper", "--runs", "0", "--jobs", "-1"}, run, runFails},
		{"paper --step-timeout, then run", []string{"paper", "--runs", "0", "--step-timeout", "0s"}, run, runFails},
		{"paper --start-timeout, then run", []string{"paper", "--runs", "0", "--start-timeout", "0s"}, run, runFails},
		{"paper --metric, then run", []string{"paper", "--runs", "0", "--metric", "bogus"}, run, runFails},
		{"paper --alpha, then run", []string{"paper", "--runs", "0", "--alpha", "2"}, run, runFails},
		{"run --jobs, then paper", []string{"run", "--scenario", "two_arm", "--runs", "0", "--jobs", "-1"}, paper, paperFails},
		{"bench --step-timeout, then paper", []string{"--scenario", "two_arm", "--runs", "0", "--step-timeout", "-1s"}, paper, paperFails},
		{"run --with, then bench", []string{"run", "--scenario", "two_arm", "--runs", "0", "--with", "Bad!"}, run[1:], runFails},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root := newRoot(&stdout, &stderr)
			root.SetOut(&stdout)
			root.SetErr(&stderr)
			root.SetArgs(tc.first)
			if err := root.ExecuteContext(context.Background()); err == nil {
				t.Fatalf("%s: no error, want one (the test relies on it failing before it runs)", strings.Join(tc.first, " "))
			}
			root.SetArgs(tc.then)
			err := root.ExecuteContext(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != ExitInput {
				t.Errorf("%s after %s: error %v (exit %d), want exit %d and %q",
					strings.Join(tc.then, " "), strings.Join(tc.first, " "), err, ExitCode(err), ExitInput, tc.want)
			}
		})
	}
}
