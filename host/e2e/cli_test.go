package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/testbin"
	"github.com/regretbench/regretbench/plugins/ts/thompson"
	"github.com/regretbench/regretbench/sdk"
)

// binDir holds bench and the real plugin executables, built once by
// TestMain exactly as `make build` lays them out (linked from the cache of
// internal/testbin, which other test processes share).
var binDir string

var shipped = []string{"ts", "klucb", "remax", "remaxgrad", "ucb1", "moss", "exp3", "swucb", "ducb", "linucb", "lints", "lingreedy", "linepsgreedy", "squarecb", "logts"}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "regretbench-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	mains := []testbin.Main{{Pkg: "github.com/regretbench/regretbench/cmd/bench", Name: "bench"}}
	for _, p := range shipped {
		mains = append(mains, testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-" + p, Name: "plugins/bench-plugin-" + p})
	}
	if err := testbin.Build(dir, testbin.Options{}, mains...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Much of this package's time is spent waiting: for plugins to start,
	// for timeouts (--step-timeout, close grace, parent death) to expire.
	// Its tests run in parallel unless they set environment variables or
	// look at every plugin process (those that check processes while
	// others run use plugins of their own: ownPlugins), and more of them
	// at once than the default of one per core, unless -parallel is given.
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", strconv.Itoa(max(4, runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// skipShort skips the test under -short (make test-short), naming what it
// covers; go test without -short (make test, CI) runs it.
func skipShort(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: skips %s; go test without -short (make test) runs it", what)
	}
}

// bench runs the CLI in process (the plugins are still real processes) and
// returns stdout, stderr and the exit code; a call still running after
// cmdLimit fails the test, naming it. A command that starts plugins
// gets --start-timeout testStartTimeout unless args set one. In process,
// no shipped plugins are beside bench (the test executable): the shipped
// ones of binDir are given as --plugin-dir unless args give a --plugin-dir
// of their own, and then they are not found at all, so that a test's own
// directory is all a test sees.
func bench(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	args = testArgs(args)
	done := make(chan error, 1)
	go func() { done <- cli.Run(context.Background(), args, &out, &errb) }()
	select {
	case err := <-done:
		return out.String(), errb.String(), cli.ExitCode(err)
	case <-time.After(cmdLimit):
		t.Fatalf("bench %s: still running after %v; stderr:\n%s", strings.Join(args, " "), cmdLimit, errb.String())
		return "", "", 0
	}
}

// testArgs gives args bench's test defaults: a generous --start-timeout
// (generousStart) and the shipped plugins of binDir as --plugin-dir
// unless args give a --plugin-dir of their own.
func testArgs(args []string) []string {
	args = generousStart(args)
	for _, a := range args {
		if a == "--plugin-dir" || strings.HasPrefix(a, "--plugin-dir=") {
			return args
		}
	}
	return append([]string{"--plugin-dir", filepath.Join(binDir, "plugins")}, args...)
}

// benchEnv is bench (the same arguments, the same defaults) run as the
// bench executable, with env added to its environment and so to its
// unconfined plugins' (--sandbox off). A test that hands a fixture an
// environment variable (FAULTY_SPY_FILE) this way, rather than by
// t.Setenv, which bench in process would need, runs in parallel with the
// others.
func benchEnv(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	args = testArgs(args)
	b := startBench(t, env, append([]string{filepath.Join(binDir, "bench")}, args...)...)
	code := b.exit(t, cmdLimit)
	return b.stdout.String(), b.stderr.String(), code
}

// testStartTimeout is the start timeout of the tests' plugins, unless a
// test sets its own: bench's default, 10 s, is short of what a Python
// plugin takes to start (import numpy and grpc) on a loaded machine, and
// the tests must not depend on how busy the machine is. startBench passes
// it as BENCH_START_TIMEOUT.
const testStartTimeout = "2m"

// startingCommands are the commands with --start-timeout ("" is bench
// itself, a run).
var startingCommands = map[string]bool{"": true, "run": true, "paper": true, "plugins": true, "conform": true}

// generousStart inserts --start-timeout testStartTimeout right after the
// command of args (at the start for bench itself) when it starts plugins
// and args do not set the flag: there it cannot become the value of a
// flag a test leaves without one. A test that checks the command line a
// run records sets the flag itself.
func generousStart(args []string) []string {
	at, cmd := 0, ""
	for i, a := range args {
		if a == "--start-timeout" || strings.HasPrefix(a, "--start-timeout=") || a == "--" {
			return args
		}
		if cmd == "" && knownCommand[a] {
			at, cmd = i+1, a // no test gives a flag a command's name as its value
		}
	}
	if !startingCommands[cmd] {
		return args
	}
	return append(append(append([]string(nil), args[:at]...), "--start-timeout", testStartTimeout), args[at:]...)
}

// knownCommand are bench's commands, to find the one args name.
var knownCommand = map[string]bool{"run": true, "paper": true, "plugins": true, "conform": true, "plot": true, "gate": true,
	"merge": true, "report": true, "scenarios": true, "show": true, "version": true, "help": true, "completion": true}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestResultsFileKeys: the acceptance run of the foundation issue writes a
// results file with every key of design §7, and prints both tables.
func TestResultsFileKeys(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := bench(t, "--scenario", "three_arm", "--runs", "50", "--horizon", "2000", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"Regret at T=2000", "Separated regret", "TS", "KL-UCB", "share under"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	need := func(m map[string]any, where string, keys ...string) {
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s lacks key %q", where, k)
			}
		}
	}
	need(raw, "file", "schema", "scenario", "shard", "policies")
	need(raw["scenario"].(map[string]any), "scenario", "name", "arms", "horizon", "runs", "seed", "means", "noise_sd")
	need(raw["shard"].(map[string]any), "shard", "index", "count")
	pols := raw["policies"].([]any)
	if len(pols) == 0 {
		t.Fatal("no policies")
	}
	for _, p := range pols {
		pm := p.(map[string]any)
		need(pm, "policy", "label", "plugin", "plugin_version", "params", "checkpoints", "regret", "underestimation",
			"regret_under", "regret_not_under", "final", "seconds")
		need(pm["final"].(map[string]any), "final", "regret", "underestimation", "regret_under", "regret_not_under")
		reg := pm["regret"].(map[string]any)
		need(reg, "regret", "mean", "se")
		cps := pm["checkpoints"].([]any)
		if last := cps[len(cps)-1].(float64); last != 2000 || len(reg["mean"].([]any)) != len(cps) {
			t.Errorf("%v: checkpoints end at %v with %d means for %d checkpoints", pm["label"], last, len(reg["mean"].([]any)), len(cps))
		}
		if n := len(pm["final"].(map[string]any)["regret"].([]any)); n != 50 {
			t.Errorf("%v: %d final values, want 50", pm["label"], n)
		}
	}
	if _, err := results.ReadFile(out); err != nil {
		t.Errorf("bench cannot read back its own file: %v", err)
	}
}

// TestPluginProcessMatchesInProcess: the same policy gives bit-identical
// results through a real go-plugin process and in process, with the
// streaming and the unary Step alike.
func TestPluginProcessMatchesInProcess(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse("t.yaml", []byte(`
environment: {means: [0.5, 0.45, 0.3], noise_sd: 0.2}
horizon: 300
runs: 40
seed: 9
policies: [{plugin: ts, label: TS}]
`))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(binDir, "plugins", "bench-plugin-ts")
	runWith := func(launch engine.Launcher) *results.File {
		f, err := engine.Run(context.Background(), sc, engine.Options{Launch: launch})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	want := runWith(func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
		c, _ := client.NewLocal(sdk.Plugin{Name: "ts", Version: "1.0.0", Params: thompson.Params, New: thompson.New})
		d, _ := c.Describe(ctx)
		return &engine.Plugin{Conn: c, Desc: d}, nil
	})
	for _, noStream := range []bool{false, true} {
		got := runWith(func(ctx context.Context, p scenario.Policy) (*engine.Plugin, error) {
			c, err := launch.Launch(path, launch.Options{NoStream: noStream})
			if err != nil {
				return nil, err
			}
			d, err := c.Describe(ctx)
			if err != nil {
				return nil, err
			}
			if d.Name != "ts" || d.ProtocolVersion != client.ProtocolVersion || c.Protocol() != client.ProtocolVersion {
				t.Errorf("describe: %+v", d)
			}
			return &engine.Plugin{Conn: c, Desc: d}, nil
		})
		if !reflect.DeepEqual(got.Policies[0].Final, want.Policies[0].Final) {
			t.Errorf("noStream=%v: plugin process results differ from in-process results", noStream)
		}
	}
}

// TestBadInput: each mistake gets a clear message and exit code 2.
func TestBadInput(t *testing.T) {
	t.Parallel()
	unknownKey := writeFile(t, "typo.yaml", `
environment: {means: [1, 0], noise_sd: 1, noisesd: 2}
horizon: 10
runs: 1
policies: [{plugin: ts}]
`)
	missing := writeFile(t, "missing.yaml", `
environment: {means: [1, 0], noise_sd: 1}
horizon: 10
runs: 1
policies: [{plugin: nope, label: N}]
`)
	badParam := writeFile(t, "param.yaml", `
environment: {means: [1, 0], noise_sd: 1}
horizon: 10
runs: 1
policies: [{plugin: klucb, label: K, params: {confidence: 3}}]
`)
	badType := writeFile(t, "type.yaml", `
environment: {means: [1, 0], noise_sd: 1}
horizon: 10
runs: 1
policies: [{plugin: klucb, label: K, params: {c: "three"}}]
`)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown scenario", []string{"--scenario", "nosuch"}, []string{"nosuch", "two_arm", "failure_mode"}},
		{"unknown key", []string{"--scenario", unknownKey}, []string{"typo.yaml", "noisesd"}},
		{"missing plugin", []string{"--scenario", missing}, []string{`plugin "nope"`, "bench-plugin-nope", filepath.Join(binDir, "plugins"), "found: ducb, exp3, klucb, linepsgreedy, lingreedy, lints, linucb, logts, moss, remax, remaxgrad, squarecb, swucb, ts, ucb1 (add a directory with --plugin-dir or BENCH_PLUGIN_PATH)"}},
		{"unknown param", []string{"--scenario", badParam}, []string{"param.yaml", `"K"`, `unknown parameter "confidence"`}},
		{"param type", []string{"--scenario", badType}, []string{"type.yaml", `parameter "c"`, "want float"}},
		{"unknown label", []string{"--scenario", "quick", "--policy", "TSS"}, []string{"TSS", "KL-UCB"}},
		{"unknown flag", []string{"--scenario", "quick", "--nope"}, []string{"unknown flag"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := bench(t, tc.args...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInput, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestEnvironmentBinding: viper fills unset flags from BENCH_* variables.
func TestEnvironmentBinding(t *testing.T) {
	t.Setenv("BENCH_RUNS", "3")
	t.Setenv("BENCH_HORIZON", "50")
	out := filepath.Join(t.TempDir(), "r.json")
	if _, stderr, code := bench(t, "--scenario", "quick", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Scenario.Runs != 3 || f.Scenario.Horizon != 50 {
		t.Fatalf("runs %d horizon %d, want 3 and 50 from the environment", f.Scenario.Runs, f.Scenario.Horizon)
	}
}

// TestBinaryExitCodes runs the built bench executable itself: the default
// plugin directory is plugins/ beside it, and errors exit non-zero.
func TestBinaryExitCodes(t *testing.T) {
	t.Parallel()
	exe := filepath.Join(binDir, "bench")
	cmd := exec.Command(exe, "--scenario", "quick", "--runs", "5", "--horizon", "100")
	cmd.Dir = t.TempDir()
	if out, err := combinedOutput(t, cmd); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cmd = exec.Command(exe, "--scenario", "nosuch")
	out, err := combinedOutput(t, cmd)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != cli.ExitInput {
		t.Fatalf("unknown scenario: %v\n%s", err, out)
	}
}

// runExit runs cmd to its end and returns its stdout, stderr and exit
// code; an error other than a non-zero exit (the executable could not
// start) fails the test.
func runExit(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := runLimited(t, cmd)
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return out.String(), errb.String(), code
}
