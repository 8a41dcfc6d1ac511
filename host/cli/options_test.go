package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/plot"
)

// parsed executes args on a root holding the command newCmd builds, whose
// runF captures the options in place of running, and returns them (nil
// when runF was not reached) with the factory and the error. The root is
// the real one (newCmdRoot), so BENCH_* variables and --config fill unset
// flags as in bench.
func parsed[T any](t *testing.T, newCmd func(*factory, func(*T) error) *cobra.Command, args ...string) (*T, *factory, error) {
	t.Helper()
	f := &factory{stdout: io.Discard, stderr: io.Discard}
	var got *T
	root := newCmdRoot(f, nil)
	root.AddCommand(newCmd(f, func(o *T) error { got = o; return nil }))
	markUsage(root)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return got, f, err
}

// setenv sets the environment variables of env for the test.
func setenv(t *testing.T, env map[string]string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// configFile writes a --config file and returns its path.
func configFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// optionsCase is one command line of the options tests: its arguments,
// the environment, an optional --config file's content, and a check of
// the options (or, with err, the error that must stop the command before
// runF).
type optionsCase[T any] struct {
	name   string
	args   []string
	env    map[string]string
	config string
	check  func(t *testing.T, o *T, f *factory)
	err    string
}

func runOptionsCases[T any](t *testing.T, newCmd func(*factory, func(*T) error) *cobra.Command, cases []optionsCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setenv(t, tc.env)
			args := tc.args
			if tc.config != "" {
				args = append(slices.Clone(args), "--config", configFile(t, tc.config))
			}
			o, f, err := parsed(t, newCmd, args...)
			if tc.err != "" {
				// A usage error (a bad argument count) becomes exit 2 in Run.
				if err == nil || !strings.Contains(err.Error(), tc.err) || (ExitCode(err) != ExitInput && !isUsage(err)) {
					t.Fatalf("error %v (exit %d), want an input or usage error %q", err, ExitCode(err), tc.err)
				}
				if o != nil {
					t.Errorf("runF ran with %+v after the error", *o)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o == nil {
				t.Fatal("runF was not called")
			}
			tc.check(t, o, f)
		})
	}
}

// eq reports a field whose value differs from want.
func eq[V any](t *testing.T, field string, got, want V) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", field, got, want)
	}
}

// TestRunOptions: bench run's flags, BENCH_* variables and the --config
// file land in its own runOptions; a flag beats the environment, which
// beats the config file; bad values stop it before it runs.
func TestRunOptions(t *testing.T) {
	runOptionsCases(t, newCmdRun, []optionsCase[runOptions]{{
		name: "defaults",
		args: []string{"run", "--scenario", "two_arm"},
		check: func(t *testing.T, o *runOptions, f *factory) {
			eq(t, "scenario", o.scenario, "two_arm")
			eq(t, "policyRunOptions", o.policyRunOptions, policyRunOptions{stepTimeout: 5 * time.Minute, startTimeout: 10 * time.Second, sandbox: limitDefaults(sandboxOptions{level: "auto"})})
			eq(t, "runs changed", changed(o.flags, "runs"), false)
			eq(t, "gate", [3]any{o.gate.metric, o.gate.margin, o.gate.alpha}, [3]any{"regret", "5%", 0.01})
			eq(t, "gate.formatFlag", o.gate.formatFlag, "--gate-format")
			eq(t, "output", o.output, outputOptions{format: "table", plotFormats: strings.Join(plot.DefaultFormats, ",")})
			eq(t, "config", f.config, "")
			eq(t, "plugin dirs", f.pluginDirs, []string(nil))
		},
	}, {
		name: "every flag",
		args: []string{"--plugin-dir", "/plugins", "--plugin-dir", "/more,plugins", "run", "-s", "two_arm", "--runs", "5", "--horizon", "100", "--seed", "3",
			"--policy", "TS", "--policy", "KL-UCB", "-o", "r.json", "--batch", "4", "--jobs", "2", "--step-timeout", "1m",
			"--start-timeout", "2s", "-q", "--shard", "1/3", "--resume", "--with", "ts:c=1,d=2@X", "--with", "klucb",
			"--compare-to", "TS", "--baseline", "b.json", "--save-baseline", "s.json", "--gate-format", "json",
			"--margin", "10%", "--metric", "underestimation", "--alpha", "0.05", "--force", "--require-conclusive",
			"--require-same", "--format", "csv", "--at", "10,20", "--plot", "figs", "--plot-format", "svg",
			"--sandbox", "strict", "--sandbox-read", "/opt/a", "--sandbox-read", "/opt/b",
			"--limit-memory", "8GiB", "--limit-tasks", "512", "--limit-files", "4096", "--limit-disk", "2GiB", "--limit-disk-files", "20000", "--limit-by", "rlimit"},
		check: func(t *testing.T, o *runOptions, f *factory) {
			eq(t, "policyRunOptions", o.policyRunOptions, policyRunOptions{runs: 5, horizon: 100, jobs: 2,
				stepTimeout: time.Minute, startTimeout: 2 * time.Second, quiet: true, with: []string{"ts:c=1,d=2@X", "klucb"},
				sandbox: sandboxOptions{level: "strict", read: []string{"/opt/a", "/opt/b"},
					limitMemory: "8GiB", limitTasks: "512", limitFiles: "4096", limitDisk: "2GiB", limitDiskFiles: "20000", limitBy: "rlimit"}})
			eq(t, "seed", o.seed, seedOptions{value: "3"})
			eq(t, "policies", o.policies, []string{"TS", "KL-UCB"})
			eq(t, "out", o.out, "r.json")
			eq(t, "batch", o.batch, 4)
			eq(t, "shard", o.shard, "1/3")
			eq(t, "resume", o.resume, true)
			eq(t, "compareTo", o.compareTo, "TS")
			eq(t, "gate", o.gate, gateOptions{metric: "underestimation", margin: "10%", alpha: 0.05, force: true,
				requireConclusive: true, requireSame: true, looks: 5, format: "json", formatFlag: "--gate-format",
				baseline: "b.json", saveBaseline: "s.json"})
			eq(t, "output", o.output, outputOptions{format: "csv", at: "10,20", plotDir: "figs", plotFormats: "svg"})
			// Repeatable, in order; a directory's comma is its own.
			eq(t, "plugin dirs", f.pluginDirs, []string{"/plugins", "/more,plugins"})
		},
	}, {
		name: "environment",
		args: []string{"run", "--scenario", "two_arm"},
		// --with takes one spec a variable, commas and all; --policy a list.
		env: map[string]string{"BENCH_RUNS": "7", "BENCH_WITH": "ts:c=1,d=2@X", "BENCH_POLICY": "TS,KL-UCB",
			"BENCH_STEP_TIMEOUT": "90s", "BENCH_PLUGIN_DIR": "/env/plugins,a", "BENCH_GATE_FORMAT": "markdown"},
		check: func(t *testing.T, o *runOptions, f *factory) {
			eq(t, "runs", o.runs, 7)
			eq(t, "runs changed", changed(o.flags, "runs"), true)
			eq(t, "with", o.with, []string{"ts:c=1,d=2@X"})
			eq(t, "policies", o.policies, []string{"TS", "KL-UCB"})
			eq(t, "stepTimeout", o.stepTimeout, 90*time.Second)
			eq(t, "gate.format", o.gate.format, "markdown")
			// BENCH_PLUGIN_DIR is one directory, commas and all
			// (BENCH_PLUGIN_PATH, read when plugins are looked up, is
			// the list).
			eq(t, "plugin dirs", f.pluginDirs, []string{"/env/plugins,a"})
		},
	}, {
		name:   "a flag beats the environment, which beats the config file",
		args:   []string{"run", "--scenario", "two_arm", "--runs", "5"},
		env:    map[string]string{"BENCH_RUNS": "7", "BENCH_HORIZON": "300"},
		config: "runs: 9\nhorizon: 400\njobs: 3\nwith: ['ts@A', 'klucb:c=1,d=2@B']\n",
		check: func(t *testing.T, o *runOptions, f *factory) {
			eq(t, "runs", o.runs, 5)
			eq(t, "horizon", o.horizon, 300)
			eq(t, "jobs", o.jobs, 3)
			eq(t, "with", o.with, []string{"ts@A", "klucb:c=1,d=2@B"})
			if !strings.HasSuffix(f.config, "bench.yaml") {
				t.Errorf("factory config %q, want the --config file", f.config)
			}
		},
	},
		{name: "--runs 0", args: []string{"run", "--scenario", "two_arm", "--runs", "0"}, err: "--runs 0: must be >= 1"},
		{name: "BENCH_JOBS=-1", args: []string{"run", "--scenario", "two_arm"}, env: map[string]string{"BENCH_JOBS": "-1"}, err: "--jobs -1"},
		{name: "BENCH_SANDBOX=none", args: []string{"run", "--scenario", "two_arm"}, env: map[string]string{"BENCH_SANDBOX": "none"}, err: `--sandbox: sandbox level "none": want auto, strict or off`},
		{name: "sandbox in the config", args: []string{"run", "--scenario", "two_arm"}, config: "sandbox: strict\nsandbox-read: [/opt/data]\n",
			check: func(t *testing.T, o *runOptions, _ *factory) {
				eq(t, "sandbox", o.sandbox, limitDefaults(sandboxOptions{level: "strict", read: []string{"/opt/data"}}))
			}},
		{name: "BENCH_SANDBOX beats the config", args: []string{"run", "--scenario", "two_arm"}, env: map[string]string{"BENCH_SANDBOX": "off"}, config: "sandbox: strict\n",
			check: func(t *testing.T, o *runOptions, _ *factory) {
				eq(t, "sandbox", o.sandbox.level, "off")
			}},
		{name: "plugin dirs in the config", args: []string{"run", "--scenario", "two_arm"}, config: "plugin-dir: [/opt/a, /opt/b]\n",
			check: func(t *testing.T, _ *runOptions, f *factory) {
				eq(t, "plugin dirs", f.pluginDirs, []string{"/opt/a", "/opt/b"})
			}},
		{name: "one plugin dir in the config", args: []string{"run", "--scenario", "two_arm"}, config: "plugin-dir: /opt/a,b\n",
			check: func(t *testing.T, _ *runOptions, f *factory) {
				eq(t, "plugin dirs", f.pluginDirs, []string{"/opt/a,b"})
			}},
		{name: "bad --shard", args: []string{"run", "--scenario", "two_arm", "--shard", "3/3"}, err: "--shard"},
		{name: "bad --margin in the config", args: []string{"run", "--scenario", "two_arm"}, config: "margin: lots\n", err: "--margin"},
		{name: "no --scenario", args: []string{"run"}, err: "--scenario is required"},
		{name: "BENCH_SEED_FILE", args: []string{"run", "--scenario", "two_arm"}, env: map[string]string{"BENCH_SEED_FILE": "/run/sealed.seed"},
			check: func(t *testing.T, o *runOptions, _ *factory) {
				eq(t, "seed", o.seed, seedOptions{file: "/run/sealed.seed"})
			}},
		{name: "a secret seed in the config file", args: []string{"run", "--scenario", "two_arm"}, config: "seed: 0x" + strings.Repeat("e1", 32) + "\n",
			check: func(t *testing.T, o *runOptions, _ *factory) {
				eq(t, "seed", o.seed, seedOptions{value: "0x" + strings.Repeat("e1", 32)})
			}},
		{name: "--seed with BENCH_SEED_FILE", args: []string{"run", "--scenario", "two_arm", "--seed", "4"}, env: map[string]string{"BENCH_SEED_FILE": "/s"}, err: "--seed and --seed-file both given"},
		{name: "bad --seed in the config", args: []string{"run", "--scenario", "two_arm"}, config: "seed: -4\n", err: "--seed: invalid seed"},
		{name: "--seed random --shard", args: []string{"run", "--scenario", "two_arm", "--seed", "random", "--shard", "1/2"}, err: "--seed random with --shard"},
	})
}

// TestRootRunOptions: bench --scenario X is a run of its own, with the
// flags of bench run.
func TestRootRunOptions(t *testing.T) {
	f := &factory{stdout: io.Discard, stderr: io.Discard}
	var got *runOptions
	root := newCmdRoot(f, func(o *runOptions) error { got = o; return nil })
	markUsage(root)
	root.SetArgs([]string{"--scenario", "two_arm", "--runs", "5", "--with", "ts@X"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("runF was not called")
	}
	eq(t, "scenario", got.scenario, "two_arm")
	eq(t, "runs", got.runs, 5)
	eq(t, "with", got.with, []string{"ts@X"})
}

// TestPaperOptions: bench paper's flags, BENCH_* variables and the
// --config file land in paperOptions, the flags it shares with a run in
// the same embedded policyRunOptions.
func TestPaperOptions(t *testing.T) {
	runOptionsCases(t, newCmdPaper, []optionsCase[paperOptions]{{
		name: "defaults",
		args: []string{"paper"},
		check: func(t *testing.T, o *paperOptions, _ *factory) {
			eq(t, "policyRunOptions", o.policyRunOptions, policyRunOptions{stepTimeout: 5 * time.Minute, startTimeout: 10 * time.Second, sandbox: limitDefaults(sandboxOptions{level: "auto"})})
			eq(t, "runs changed", changed(o.flags, "runs"), false)
			eq(t, "dir", o.dir, "paper-results")
			eq(t, "formats", o.formats, plot.DefaultFormats)
			eq(t, "metric", o.metric, "regret")
			eq(t, "alpha", o.alpha, 0.01)
		},
	}, {
		name: "--runs 5",
		args: []string{"paper", "--runs", "5"},
		check: func(t *testing.T, o *paperOptions, _ *factory) {
			eq(t, "runs", o.runs, 5)
			eq(t, "runs changed", changed(o.flags, "runs"), true)
		},
	}, {
		name: "every flag",
		args: []string{"paper", "-o", "d", "--plot-format", "svg,pdf", "--runs", "5", "--horizon", "100", "--jobs", "2",
			"--step-timeout", "1m", "--start-timeout", "3s", "--with", "ts@X", "-q", "--metric", "regret_under", "--alpha", "0.1",
			"--sandbox", "off"},
		check: func(t *testing.T, o *paperOptions, _ *factory) {
			eq(t, "policyRunOptions", o.policyRunOptions, policyRunOptions{runs: 5, horizon: 100, jobs: 2,
				stepTimeout: time.Minute, startTimeout: 3 * time.Second, quiet: true, with: []string{"ts@X"},
				sandbox: limitDefaults(sandboxOptions{level: "off"})})
			eq(t, "dir", o.dir, "d")
			eq(t, "formats", o.formats, []string{"svg", "pdf"})
			eq(t, "metric", o.metric, "regret_under")
			eq(t, "alpha", o.alpha, 0.1)
		},
	}, {
		name:   "environment and config file",
		args:   []string{"paper", "--jobs", "1"},
		env:    map[string]string{"BENCH_RUNS": "6", "BENCH_JOBS": "4", "BENCH_WITH": "ts:c=1,d=2@X"},
		config: "horizon: 200\nout: from-config\nplot-format: pdf\n",
		check: func(t *testing.T, o *paperOptions, _ *factory) {
			eq(t, "runs", o.runs, 6)
			eq(t, "runs changed", changed(o.flags, "runs"), true)
			eq(t, "jobs", o.jobs, 1)
			eq(t, "with", o.with, []string{"ts:c=1,d=2@X"})
			eq(t, "horizon", o.horizon, 200)
			eq(t, "dir", o.dir, "from-config")
			eq(t, "formats", o.formats, []string{"pdf"})
		},
	},
		{name: "--runs 0", args: []string{"paper", "--runs", "0"}, err: "--runs 0: must be >= 1"},
		{name: "--plot-format gif", args: []string{"paper", "--plot-format", "gif"}, err: "--plot-format"},
		{name: "BENCH_START_TIMEOUT=0s", args: []string{"paper"}, env: map[string]string{"BENCH_START_TIMEOUT": "0s"}, err: "--start-timeout 0s"},
	})
}

// TestGateOptions: bench gate's arguments and flags land in its
// gateCmdOptions.
func TestGateOptions(t *testing.T) {
	runOptionsCases(t, newCmdGate, []optionsCase[gateCmdOptions]{{
		name: "defaults",
		args: []string{"gate", "a.json", "b.json"},
		check: func(t *testing.T, o *gateCmdOptions, _ *factory) {
			eq(t, "files", [2]string{o.baselinePath, o.currentPath}, [2]string{"a.json", "b.json"})
			eq(t, "gateOptions", o.gateOptions, gateOptions{metric: "regret", margin: "5%", alpha: 0.01, looks: 5, format: "table", formatFlag: "--format"})
		},
	}, {
		name: "every flag",
		args: []string{"gate", "a.json", "b.json", "--metric", "underestimation", "--margin", "0", "--alpha", "0.05",
			"--force", "--require-conclusive", "--require-same", "--format", "json", "--sequential", "--looks", "4"},
		check: func(t *testing.T, o *gateCmdOptions, _ *factory) {
			eq(t, "gateOptions", o.gateOptions, gateOptions{metric: "underestimation", margin: "0", alpha: 0.05,
				force: true, requireConclusive: true, requireSame: true, sequential: true, looks: 4, format: "json", formatFlag: "--format"})
		},
	}, {
		name:   "environment and config file",
		args:   []string{"gate", "a.json", "b.json"},
		env:    map[string]string{"BENCH_MARGIN": "10%", "BENCH_FORMAT": "markdown"},
		config: "margin: 20%\nrequire-same: true\n",
		check: func(t *testing.T, o *gateCmdOptions, _ *factory) {
			eq(t, "margin", o.margin, "10%")
			eq(t, "format", o.format, "markdown")
			eq(t, "requireSame", o.requireSame, true)
		},
	},
		{name: "one file", args: []string{"gate", "a.json"}, err: "accepts 2 arg(s), received 1"},
	})
}

// TestMergeOptions: bench merge's arguments and --out land in its
// mergeOptions; without --out it stops before merging.
func TestMergeOptions(t *testing.T) {
	runOptionsCases(t, newCmdMerge, []optionsCase[mergeOptions]{{
		name: "flags",
		args: []string{"merge", "a.json", "b.json", "--out", "all.json"},
		check: func(t *testing.T, o *mergeOptions, _ *factory) {
			eq(t, "inputs", o.inputs, []string{"a.json", "b.json"})
			eq(t, "out", o.out, "all.json")
		},
	}, {
		name: "environment",
		args: []string{"merge", "a.json"},
		env:  map[string]string{"BENCH_OUT": "env.json"},
		check: func(t *testing.T, o *mergeOptions, _ *factory) {
			eq(t, "out", o.out, "env.json")
		},
	}, {
		name:   "config file",
		args:   []string{"merge", "a.json"},
		config: "out: config.json\n",
		check: func(t *testing.T, o *mergeOptions, f *factory) {
			eq(t, "out", o.out, "config.json")
			if !strings.HasSuffix(f.config, "bench.yaml") {
				t.Errorf("factory config %q, want the --config file (merge refuses to overwrite it)", f.config)
			}
		},
	},
		{name: "no --out", args: []string{"merge", "a.json"}, err: "merge: --out is required"},
		{name: "no file", args: []string{"merge", "--out", "all.json"}, err: "requires at least 1 arg(s)"},
	})
}

// TestOptionsIndependent: the commands of one root each fill their own
// options. The paper flags given first are not seen by the run after it,
// and the run's not by the root's own run form, nor by paper again.
func TestOptionsIndependent(t *testing.T) {
	f := &factory{stdout: io.Discard, stderr: io.Discard}
	var rootOpts, runOpts []*runOptions
	var papers []*paperOptions
	root := newCmdRoot(f, func(o *runOptions) error { rootOpts = append(rootOpts, o); return nil })
	root.AddCommand(
		newCmdRun(f, func(o *runOptions) error { runOpts = append(runOpts, o); return nil }),
		newCmdPaper(f, func(o *paperOptions) error { papers = append(papers, o); return nil }),
		newCmdGate(f, func(*gateCmdOptions) error { return nil }),
	)
	markUsage(root)
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

	fresh := policyRunOptions{stepTimeout: 5 * time.Minute, startTimeout: 10 * time.Second, sandbox: limitDefaults(sandboxOptions{level: "auto"})}
	if len(runOpts) != 1 || len(rootOpts) != 1 || len(papers) != 2 {
		t.Fatalf("runF calls: run %d, root %d, paper %d; want 1, 1, 2", len(runOpts), len(rootOpts), len(papers))
	}
	run, rootRun := runOpts[0], rootOpts[0]
	eq(t, "run: policyRunOptions", run.policyRunOptions, policyRunOptions{horizon: 50, jobs: 2, stepTimeout: 5 * time.Minute, startTimeout: 10 * time.Second, sandbox: limitDefaults(sandboxOptions{level: "auto"})})
	eq(t, "run: gate", [3]any{run.gate.metric, run.gate.margin, run.gate.alpha}, [3]any{"regret", "5%", 0.01})
	eq(t, "root: policyRunOptions", rootRun.policyRunOptions, fresh)
	eq(t, "root: scenario", rootRun.scenario, "three_arm")
	eq(t, "run: scenario", run.scenario, "two_arm")
	// bench paper keeps its own flags from its first call (cobra does not
	// reset flags between executions), never the run's.
	eq(t, "paper: jobs", papers[1].jobs, 3)
	eq(t, "paper: horizon", papers[1].horizon, 0)
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
