package e2e_test

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/env"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/internal/testbin"
	"github.com/regretbench/regretbench/sdk"
)

// faultyModes are the modes of testdata/faulty, each linked into the
// faulty plugin directory as bench-plugin-faulty-MODE.
var faultyModes = []string{
	"crash-exit", "crash-panic", "hang", "hang-open", "wrong-arms", "arm-range", "step-error",
	"stdout-before", "stdout-after", "exit-early", "bad-version", "bad-cookie",
	"slow-start", "slow-ok", "slow-steps", "finisher", "spy", "complex", "int-default",
	"raw-frame", "raw-header", "many-diagnostics",
	"sigstop", "hang-close", "helper", "stdout-flood", "panic", "out-of-memory",
	"hostile-open", "hostile-step", "hostile-crash", "hostile-sdk", "xml-names",
}

var (
	faultyOnce sync.Once
	faultyDir  string
	faultyErr  error
)

// faultyPlugins builds testdata/faulty once and returns a plugin directory
// holding it under every mode's name, the real ts plugin, and three files
// that are not plugins at all. It is kept apart from binDir/plugins so
// that other tests' listings of the shipped plugins are unaffected.
func faultyPlugins(t *testing.T) string {
	t.Helper()
	faultyOnce.Do(func() {
		dir := filepath.Join(binDir, "faulty")
		if faultyErr = os.MkdirAll(dir, 0o755); faultyErr != nil {
			return
		}
		exe := filepath.Join(dir, "faulty.bin")
		if faultyErr = testbin.Build(dir, testbin.Options{}, testbin.Main{Pkg: "./testdata/faulty", Name: "faulty.bin"}); faultyErr != nil {
			return
		}
		link := func(src, name string) {
			if faultyErr == nil {
				faultyErr = os.Link(src, filepath.Join(dir, "bench-plugin-"+name))
			}
		}
		for _, m := range faultyModes {
			link(exe, "faulty-"+m)
		}
		link(filepath.Join(binDir, "plugins", "bench-plugin-ts"), "ts")
		garbage := make([]byte, 4096)
		rand.Read(garbage)
		for _, f := range []struct {
			name string
			data []byte
			mode os.FileMode
		}{
			{"script", []byte("#!/bin/sh\necho hello\n"), 0o755},
			{"garbage", garbage, 0o755},
			{"noexec", garbage, 0o644},
		} {
			if faultyErr == nil {
				faultyErr = os.WriteFile(filepath.Join(dir, "bench-plugin-"+f.name), f.data, f.mode)
			}
		}
		faultyDir = dir
	})
	if faultyErr != nil {
		t.Fatal(faultyErr)
	}
	return faultyDir
}

// faultScenario runs the plugin under test as policy "Broken" beside a
// healthy TS, with the fault at round 5 (after the 2 forced rounds).
func faultScenario(t *testing.T, plugin string) string {
	return writeFile(t, "fault.yaml", fmt.Sprintf(`
name: fault
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 20
runs: 3
seed: 1
policies:
  - {plugin: %s, label: Broken}
  - {plugin: ts, label: TS}
`, plugin))
}

// TestPluginFaults is the fault catalogue: a plugin that misbehaves in any
// of these ways fails only its own policies, with an error naming it, and
// leaves no process behind.
func TestPluginFaults(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	dir := faultyPlugins(t)
	type fault struct {
		name   string
		plugin string
		rule   string
		args   []string
		want   []string // in bench's stderr, besides the plugin and the label
		round  bool     // the error names round 5
	}
	for _, c := range []fault{
		{"crash (os.Exit)", "faulty-crash-exit",
			"a plugin process that dies mid-run fails its policy at that round and its stderr is quoted",
			nil, []string{"faulty crash-exit: giving up at round 5", "the plugin process exited"}, true},
		{"crash (panic in a goroutine)", "faulty-crash-panic",
			"a Go panic the SDK cannot recover kills the process; the panic message is quoted",
			nil, []string{"panic: faulty crash-panic: boom at round 5", "the plugin process exited"}, true},
		{"hang in Step", "faulty-hang",
			"a plugin that does not answer a round within --step-timeout fails, naming the flag",
			[]string{"--step-timeout", "5s"}, []string{"faulty hang: hanging at round 5", "step timeout 5s (--step-timeout)"}, true},
		{"hang in Open", "faulty-hang-open",
			"opening a session is bounded by --step-timeout as well",
			[]string{"--step-timeout", "5s"}, []string{"faulty hang-open: hanging in Open", "opening a session", "--step-timeout"}, false},
		{"frozen (SIGSTOP)", "faulty-sigstop",
			"a plugin that stops itself fails at the step timeout of that round and is killed: no shutdown waits for it, nothing continues it",
			[]string{"--step-timeout", "5s"}, []string{"faulty sigstop: stopping myself at round 5", "step round 5: no answer within the step timeout 5s (--step-timeout)"}, true},
		{"panic in Step", "faulty-panic",
			"a panic the SDK recovers fails the policy; the error gives the panic and the policy's own frame",
			nil, []string{"policy panicked: faulty panic: boom at round 5", "at main.(*batch).boom (", "main.go:"}, true},
		{"wrong number of arms", "faulty-wrong-arms",
			"a Step answer must hold one arm per replication",
			nil, []string{"returned 2 arms for 3 replications"}, true},
		{"arm out of range", "faulty-arm-range",
			"every arm must be in 0..K-1",
			nil, []string{"replication 2", "arm 2, want 0..1"}, true},
		{"13-byte step frame", "faulty-raw-frame",
			"a step-socket frame announcing 2^32-1 diagnostics fails its policy before bench allocates by that count (issue 15)",
			nil, []string{"step socket: returned 0 arms for 3 replications"}, true},
		{"9-byte step frame promising 256 MiB", "faulty-raw-header",
			"a step-socket frame longer than the session can need fails its policy before bench allocates it (issue 15)",
			nil, []string{"step socket: frame of 268435456 bytes exceeds the limit"}, true},
		{"20,000 diagnostics", "faulty-many-diagnostics",
			"a plugin declaring more diagnostics than bench allows fails at start, naming the limit (issue 15)",
			nil, []string{"declares 20000 diagnostics, more than the 64 allowed"}, false},
		{"error from Step", "faulty-step-error",
			"a policy's error reaches the user verbatim",
			nil, []string{"faulty step-error: model diverged at round 5"}, true},
		{"stdout before the handshake", "faulty-stdout-before",
			"the first stdout line must be the handshake; the message says what was printed",
			nil, []string{"hello from a chatty init()", "stdout"}, false},
		{"exits before the handshake", "faulty-exit-early",
			"a plugin that exits at start-up is reported with its last words",
			nil, []string{"faulty exit-early: cannot load my model file, exiting", "without completing the handshake"}, false},
		{"shell script", "script",
			"an executable that is not a plugin is named as such",
			nil, []string{"hello", "is it a regretbench plugin"}, false},
		{"random bytes with exec bit", "garbage",
			"a file the system cannot execute is named as such",
			nil, []string{"exec format error"}, false},
		{"not executable", "noexec",
			"a plugin file without an exec bit is named as such",
			nil, []string{"not an executable file"}, false},
		{"protocol version 99", "faulty-bad-version",
			"a plugin speaking another protocol version is rejected with both versions",
			nil, []string{"Plugin version: 99", "bench speaks protocol versions 1 to 3"}, false},
		{"wrong magic cookie", "faulty-bad-cookie",
			"a go-plugin plugin of another application refuses to start; its message is quoted",
			nil, []string{"This binary is a plugin", "is it a regretbench plugin"}, false},
		{"Describe declares an unknown parameter type", "faulty-complex",
			"a plugin declaring what bench cannot use fails its own policy, blaming its declaration, not the scenario",
			nil, []string{"its Describe declares", `parameter "z": unknown type "complex"`}, false},
		{"Describe declares a default of another type", "faulty-int-default",
			"likewise for a default that is not of its parameter's type",
			nil, []string{"its Describe declares", `parameter "n": default: want int, got string three`}, false},
		{"start beyond --start-timeout", "faulty-slow-start",
			"a plugin that does not complete the handshake in time fails, naming the flag",
			// The timeout applies to TS's plugin too, which must start
			// within it on a loaded machine: generous, and still a third
			// of the minute slow-start waits.
			[]string{"--start-timeout", "20s"}, []string{"--start-timeout", "faulty slow-start: warming up"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, a := range c.args {
				if a == "--step-timeout" || a == "--start-timeout" {
					skipShort(t, "a fault waited out by a timeout")
				}
			}
			// Most faults are waited out (timeouts): the cases run in
			// parallel, each with plugins of its own.
			t.Parallel()
			t.Logf("rule: %s", c.rule)
			own := ownPlugins(t, dir, c.plugin, "ts")
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--plugin-dir", own, "--scenario", faultScenario(t, c.plugin), "--out", out, "-q"}, c.args...)
			stdout, stderr, code := bench(t, args...)
			t.Logf("stderr:\n%s", stderr)
			if code != cli.ExitPolicy {
				t.Errorf("exit %d, want %d", code, cli.ExitPolicy)
			}
			want := append([]string{`policy "Broken"`, "bench-plugin-" + c.plugin}, c.want...)
			if c.round {
				want = append(want, "round 5")
			}
			for _, w := range want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q", w)
				}
			}
			// The frozen plugin says so if it is ever continued.
			if strings.Contains(stderr, "continued after stopping") {
				t.Errorf("something continued the stopped plugin")
			}
			if strings.Contains(strings.TrimSpace(stderr), "\n\n") {
				t.Errorf("the error is not one paragraph")
			}
			if !strings.Contains(stdout, "TS") {
				t.Errorf("stdout lacks the TS results:\n%s", stdout)
			}
			f := readResults(t, out)
			if !f.Complete {
				t.Errorf("results marked incomplete")
			}
			broken, ts := policyByLabel(f, "Broken"), policyByLabel(f, "TS")
			switch {
			case broken == nil:
				t.Errorf("results lack the failed policy")
			case broken.Status != results.StatusFailed || !strings.Contains(broken.Error, c.plugin):
				t.Errorf("Broken: status %q error %q, want failed with an error naming the plugin", broken.Status, broken.Error)
			}
			if ts == nil || ts.Status != results.StatusOK || len(ts.Final["regret"]) != 3 {
				t.Errorf("TS did not finish: %+v", ts)
			}
			assertNoPluginsIn(t, own)
		})
	}
}

// TestHarmlessFaults: plugin output that go-plugin tolerates does not fail
// the run.
func TestHarmlessFaults(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	dir := faultyPlugins(t)
	for _, c := range []struct{ name, plugin, rule string }{
		{"stdout after the handshake", "faulty-stdout-after", "after the handshake a plugin's stdout is drained and ignored"},
		{"slow start within --start-timeout", "faulty-slow-ok", "a slow start within the start timeout is fine"},
		{"1 MiB line on stdout", "faulty-stdout-flood", "a line of any length on stdout is drained and ignored too"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			t.Logf("rule: %s", c.rule)
			own := ownPlugins(t, dir, c.plugin, "ts")
			out := filepath.Join(t.TempDir(), "r.json")
			// A plugin blocked writing stdout would fail at the step timeout.
			stdout, stderr, code := bench(t, "--plugin-dir", own, "--scenario", faultScenario(t, c.plugin), "--out", out, "-q", "--step-timeout", "30s")
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if strings.Contains(stdout, "faulty") {
				t.Errorf("the plugin's prints reached bench's stdout:\n%s", stdout)
			}
			for _, p := range readResults(t, out).Policies {
				if p.Status != results.StatusOK {
					t.Errorf("%s: status %q", p.Label, p.Status)
				}
			}
			assertNoPluginsIn(t, own)
		})
	}
}

func readResults(t *testing.T, path string) *results.File {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func policyByLabel(f *results.File, label string) *results.Policy {
	for _, p := range f.Policies {
		if p.Label == label {
			return p
		}
	}
	return nil
}

// pluginProc is a live process started from a plugin file.
type pluginProc struct {
	pid  int
	ppid int
	path string
}

// pluginProcsIn lists live (non-zombie) processes whose program, or
// script run by an interpreter, is a bench-plugin-* file under dir.
func pluginProcsIn(t *testing.T, dir string) []pluginProc {
	t.Helper()
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("cannot list the processes of plugins left behind without /proc: %v", err)
	}
	var out []pluginProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		for _, a := range append([]string{exe}, argv[:min(2, len(argv))]...) {
			if strings.HasPrefix(filepath.Base(a), "bench-plugin-") &&
				(strings.HasPrefix(a, root+"/") || strings.HasPrefix(a, dir+"/")) {
				out = append(out, pluginProc{pid, ppid, a})
				break
			}
		}
	}
	return out
}

// assertNoPlugins fails unless every plugin process is gone within 5 s
// (the SDK's parent watchdog polls once a second).
func assertNoPlugins(t *testing.T) {
	t.Helper()
	assertNoPluginsIn(t, binDir)
}

// assertNoPluginsIn is assertNoPlugins for the plugins under dir alone: a
// test that runs in parallel with others checks its own directory (see
// ownPlugins), not the processes of the others.
func assertNoPluginsIn(t *testing.T, dir string) {
	t.Helper()
	// Generous: the processes are usually gone at once, but a loaded
	// machine may take seconds to end them; the loop returns as soon as
	// they are.
	deadline := time.Now().Add(time.Minute)
	for {
		left := pluginProcsIn(t, dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				t.Errorf("plugin process left behind: pid %d (parent %d) %s", p.pid, p.ppid, p.path)
				syscallKill(p.pid)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ownPlugins returns a new plugin directory under binDir of the test's
// own, holding the plugins named (bench-plugin-NAME) from the directory
// src: hard links, or new symbolic links for symbolic links, so that each
// runs as the same program under the same name. Tests that run in
// parallel run their plugins from their own directories, and check their
// own processes with pluginProcsIn and assertNoPluginsIn on it.
func ownPlugins(t *testing.T, src string, names ...string) string {
	t.Helper()
	parent := filepath.Join(binDir, "own")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(parent, "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		from, to := filepath.Join(src, "bench-plugin-"+n), filepath.Join(dir, "bench-plugin-"+n)
		var err error
		if target, rerr := os.Readlink(from); rerr == nil {
			err = os.Symlink(target, to)
		} else {
			err = os.Link(from, to)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func syscallKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// decodeJSONLines decodes a file of JSON values, one per line.
func decodeJSONLines(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestWhatAPluginSees: a plugin that records everything it receives never
// receives the true means, the best arm, or a reward of an arm it was not
// told it pulled (design §3).
func TestWhatAPluginSees(t *testing.T) {
	dir := faultyPlugins(t)
	means := []float64{0.41, 0.73, 0.58}
	for _, c := range []struct {
		name  string
		known bool
	}{{"noise known", true}, {"noise unknown", false}} {
		t.Run(c.name, func(t *testing.T) {
			spy := filepath.Join(t.TempDir(), "spy.jsonl")
			t.Setenv("FAULTY_SPY_FILE", spy)
			sc := writeFile(t, "spy.yaml", fmt.Sprintf(`
name: spy
environment: {means: [0.41, 0.73, 0.58], noise_sd: 0.5, noise_known: %v}
horizon: 30
runs: 3
seed: 11
init_pulls: 2
policies: [{plugin: faulty-spy, label: Spy}]
`, c.known))
			if _, stderr, code := bench(t, "--plugin-dir", dir, "--sandbox", "off", "--audit", "0", "--scenario", sc, "-q"); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			recs := decodeJSONLines(t, spy)
			checkOpen(t, recs[0], means, c.known)
			checkSteps(t, recs[1:], means, 3, 30, 2)
		})
	}
}

// sessionFields is everything sdk.Session may carry, and openFields the
// fields of the protocol's OpenRequest: adding a field to either is a
// decision about what plugins may know, to be made here on purpose.
// step_socket asks for a transport and tells nothing about the arms.
var (
	// feedback is what the scenario declares about delays (known to the
	// learner); arrivals are rewards of arms the plugin pulled, late.
	//
	// Protocol 3 adds a contextual session's context shape (Context: the
	// dimension and whether features are per arm, which the policy needs
	// to read its contexts) and each round's contexts: what the
	// contextual problem shows every learner, never a label, a row index,
	// a dataset's name or a model's parameter (docs/threat-model.md,
	// Contextual scenarios).
	sessionFields = []string{"Arms", "Horizon", "Family", "NoiseSD", "NoiseKnown", "InitPulls", "Seed", "Params", "Feedback", "Context"}
	openFields    = []string{"arms", "horizon", "replications", "seed", "family", "noise_sd", "noise_known", "params", "init_pulls", "step_socket", "feedback", "context"}
	stepFields    = []string{"session_id", "round", "prev_arms", "prev_rewards", "want_diagnostics", "arrivals", "contexts"}
)

func checkOpen(t *testing.T, rec map[string]json.RawMessage, means []float64, known bool) {
	t.Helper()
	var open map[string]any
	if err := json.Unmarshal(rec["open"], &open); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range open {
		keys = append(keys, k)
	}
	if !sameSet(keys, sessionFields) {
		t.Errorf("the plugin's Session has fields %v, want exactly %v", keys, sessionFields)
	}
	wantSD := 0.5
	if !known {
		wantSD = 0 // an unknown noise sd is not sent at all
	}
	if open["Arms"] != 3.0 || open["Horizon"] != 30.0 || open["Family"] != "gaussian" || open["NoiseSD"] != wantSD ||
		open["NoiseKnown"] != known || open["InitPulls"] != 2.0 {
		t.Errorf("Open: %v", open)
	}
	// The plugin gets the policy seed, a one-way function of the scenario
	// seed, never the scenario seed itself (which would let it rebuild the
	// reward streams of a known scenario).
	if want := fmt.Sprintf(`"Seed":%d`, env.PolicySeed(seed.Int(11))); !strings.Contains(string(rec["open"]), want) {
		t.Errorf("Open carries %s, want the policy seed (%s)", rec["open"], want)
	}
	if p, _ := open["Params"].(map[string]any); len(p) != 0 {
		t.Errorf("Open params %v, want none", p)
	}
	// No number anywhere in what Open carried is a mean.
	for _, m := range means {
		if strings.Contains(string(rec["open"]), strconv.FormatFloat(m, 'g', -1, 64)) {
			t.Errorf("Open carries the mean %v: %s", m, rec["open"])
		}
	}
	// Nor do the arguments or the environment: bench adds only go-plugin's
	// variables to its own environment, and TMPDIR pointing at the
	// plugin's private directory (plugin-dirN in bench's temp dir, which
	// bench removes after the plugin: nothing the plugin leaves there
	// outlives it).
	var args, env []string
	json.Unmarshal(rec["args"], &args)
	json.Unmarshal(rec["env"], &env)
	if len(args) != 1 {
		t.Errorf("plugin arguments %q, want none", args[1:])
	}
	own := map[string]bool{}
	for _, kv := range os.Environ() {
		own[kv] = true
	}
	allowed := map[string]bool{"REGRETBENCH_PLUGIN": true, "PLUGIN_MIN_PORT": true, "PLUGIN_MAX_PORT": true, "PLUGIN_PROTOCOL_VERSIONS": true}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "TMPDIR" && filepath.Dir(v) == filepath.Clean(os.TempDir()) && strings.HasPrefix(filepath.Base(v), "plugin-dir") {
			continue
		}
		if !own[kv] && !allowed[k] {
			t.Errorf("bench passed the plugin an extra environment variable %q", kv)
		}
	}
}

// checkSteps replays the host's reward streams: the reward the plugin was
// given for round t-1 of replication r must be the next reward of the arm
// it was told it pulled, and that arm must be the forced one or its own
// choice. The spy chooses arm (t + i) mod K for the i-th replication.
func checkSteps(t *testing.T, recs []map[string]json.RawMessage, means []float64, n, T, initPulls int) {
	t.Helper()
	K := len(means)
	e, err := env.New(sdk.Gaussian, means, 0.5, seed.Int(11))
	if err != nil {
		t.Fatal(err)
	}
	streams := make([]*env.Stream, n)
	for i := range streams {
		streams[i] = e.Stream(uint64(i))
	}
	if len(recs) != T {
		t.Fatalf("the plugin saw %d steps, want %d", len(recs), T)
	}
	for k, rec := range recs {
		var step struct {
			Round       int       `json:"round"`
			PrevArms    []int32   `json:"prev_arms"`
			PrevRewards []float64 `json:"prev_rewards"`
			Diag        bool      `json:"diag"`
		}
		raw, _ := json.Marshal(rec)
		if err := json.Unmarshal(raw, &step); err != nil {
			t.Fatal(err)
		}
		if step.Round != k+1 {
			t.Fatalf("step %d is round %d", k, step.Round)
		}
		if step.Round == 1 {
			if len(step.PrevArms)+len(step.PrevRewards) != 0 {
				t.Errorf("round 1 carries previous arms %v rewards %v", step.PrevArms, step.PrevRewards)
			}
			continue
		}
		if len(step.PrevArms) != n || len(step.PrevRewards) != n {
			t.Fatalf("round %d: %d arms and %d rewards for %d replications", step.Round, len(step.PrevArms), len(step.PrevRewards), n)
		}
		prev := step.Round - 1
		for i := range n {
			want := int32((prev + i) % K)
			if prev <= K*initPulls {
				want = int32((prev - 1) % K)
			}
			if a := step.PrevArms[i]; a != want {
				t.Errorf("round %d, replication %d: told it pulled arm %d, want %d", step.Round, i, a, want)
			}
			if got, pulled := step.PrevRewards[i], streams[i].Pull(int(want)); got != pulled {
				t.Errorf("round %d, replication %d: reward %v is not the next reward %v of arm %d", step.Round, i, got, pulled, want)
			}
		}
	}
}

// TestProtocolCarriesNoMeans reads the protocol definition non-Go plugins
// are written against: the messages a plugin receives have only the
// fields listed above.
func TestProtocolCarriesNoMeans(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "sdk", "proto", "policy.proto"))
	if err != nil {
		t.Fatal(err)
	}
	for msg, want := range map[string][]string{"OpenRequest": openFields, "StepRequest": stepFields,
		"Arrival": {"index", "round", "arm", "reward"}, "Feedback": {"kind", "delay", "mean", "batch"}, "Context": {"dim", "per_arm"}} {
		if got := protoFields(string(data), msg); !sameSet(got, want) {
			t.Errorf("message %s has fields %v, want exactly %v", msg, got, want)
		}
	}
	var fields []string
	for f := range reflect.TypeFor[client.OpenRequest]().Fields() {
		fields = append(fields, f.Name)
	}
	if want := []string{"Arms", "Horizon", "Replications", "Seed", "Family", "NoiseSD", "NoiseKnown", "InitPulls", "Params", "Feedback", "Context"}; !sameSet(fields, want) {
		t.Errorf("client.OpenRequest has fields %v, want exactly %v", fields, want)
	}
}

// protoFields returns the field names of message name in a .proto file.
func protoFields(proto, name string) []string {
	_, body, ok := strings.Cut(proto, "message "+name+" {")
	if !ok {
		return nil
	}
	body, _, _ = strings.Cut(body, "}")
	var out []string
	for _, line := range strings.Split(body, "\n") {
		line, _, _ = strings.Cut(line, "//")
		lhs, _, ok := strings.Cut(line, "=")
		if f := strings.Fields(lhs); ok && len(f) >= 2 {
			out = append(out, f[len(f)-1])
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && len(setOf(a)) == len(a) && reflect.DeepEqual(setOf(a), setOf(b))
}

func setOf(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// TestBadResultsFiles: bench merge and bench gate refuse a truncated file,
// another schema version, or arrays of mismatched lengths, with exit code
// 2 and a message naming the file and what is wrong with it.
func TestBadResultsFiles(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run := func(out string, extra ...string) {
		t.Helper()
		args := append([]string{"--scenario", "quick", "--runs", "4", "--horizon", "60", "-q", "--out", out}, extra...)
		if _, stderr, code := bench(t, args...); code != 0 {
			t.Fatalf("bench %v: exit %d\n%s", args, code, stderr)
		}
	}
	full, s0, s1 := filepath.Join(tmp, "full.json"), filepath.Join(tmp, "s0.json"), filepath.Join(tmp, "s1.json")
	run(full)
	run(s0, "--shard", "0/2")
	run(s1, "--shard", "1/2")
	if _, stderr, code := bench(t, "merge", s0, s1, "--out", filepath.Join(tmp, "m.json")); code != 0 {
		t.Fatalf("merging good shards: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := bench(t, "gate", full, full); code != 0 {
		t.Fatalf("gating a file against itself: exit %d\n%s", code, stderr)
	}

	// bad derives a broken copy of the file at src.
	bad := func(name, src string, edit func([]byte) []byte) string {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, edit(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncate := func(b []byte) []byte { return b[:len(b)/2] }
	schema := func(b []byte) []byte {
		return []byte(strings.Replace(string(b), results.Schema, "regretbench/results/v0", 1))
	}
	shortMean := func(b []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		reg := m["policies"].([]any)[0].(map[string]any)["regret"].(map[string]any)
		reg["mean"] = reg["mean"].([]any)[1:]
		out, _ := json.Marshal(m)
		return out
	}
	for _, c := range []struct {
		name string
		args func() []string
		want []string
	}{
		{"merge: truncated", func() []string {
			return []string{"merge", bad("m-trunc.json", s0, truncate), s1, "--out", filepath.Join(tmp, "x.json")}
		}, []string{"m-trunc.json", "not valid JSON (truncated?)"}},
		{"merge: schema", func() []string {
			return []string{"merge", s0, bad("m-schema.json", s1, schema), "--out", filepath.Join(tmp, "x.json")}
		}, []string{"m-schema.json", `schema "regretbench/results/v0", want "regretbench/results/v1"`}},
		{"merge: lengths", func() []string {
			return []string{"merge", bad("m-len.json", s0, shortMean), s1, "--out", filepath.Join(tmp, "x.json")}
		}, []string{"m-len.json", "regret has", "for", "checkpoints"}},
		{"gate: truncated baseline", func() []string { return []string{"gate", bad("g-trunc.json", full, truncate), full} },
			[]string{"g-trunc.json", "not valid JSON (truncated?)"}},
		{"gate: schema", func() []string { return []string{"gate", full, bad("g-schema.json", full, schema)} },
			[]string{"g-schema.json", `schema "regretbench/results/v0"`}},
		{"gate: lengths", func() []string { return []string{"gate", full, bad("g-len.json", full, shortMean)} },
			[]string{"g-len.json", "regret has", "checkpoints"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := bench(t, c.args()...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d", code, cli.ExitInput)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "x.json")); err == nil {
		t.Errorf("a refused merge wrote its --out file")
	}
}

// TestOwnPlugins: a process run from a test's own plugin directory is seen
// by pluginProcsIn on that directory, not on another test's, and by the
// whole-package check on binDir; once it is gone, assertNoPluginsIn passes.
func TestOwnPlugins(t *testing.T) {
	t.Parallel()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("the stand-in plugin runs sleep(1), which is not in PATH: %v", err)
	}
	mine, other := ownPlugins(t, binDir), ownPlugins(t, binDir)
	exe := filepath.Join(mine, "bench-plugin-sleeper")
	linkOrCopy(t, sleep, exe)
	cmd := exec.Command(exe, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	pid := cmd.Process.Pid
	has := func(ps []pluginProc) bool {
		for _, p := range ps {
			if p.pid == pid {
				return true
			}
		}
		return false
	}
	if ps := pluginProcsIn(t, mine); len(ps) != 1 || ps[0].pid != pid || ps[0].path != exe {
		t.Errorf("its own directory: %+v, want pid %d running %s alone", ps, pid, exe)
	}
	if has(pluginProcsIn(t, other)) {
		t.Errorf("another test's directory sees pid %d", pid)
	}
	if !has(pluginProcsIn(t, binDir)) {
		t.Errorf("binDir does not see pid %d: assertNoPlugins would miss what a test left behind", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	assertNoPluginsIn(t, mine)
}
