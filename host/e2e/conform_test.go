package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/internal/conformance"
	"github.com/regretbench/regretbench/internal/testbin"
)

// badModes are the modes of testdata/badplugin, each linked into the bad
// plugin directory as bench-plugin-bad-MODE.
var badModes = []string{"ok", "arm-range", "ignore-seed", "time-seed", "shared-rand", "stdout-before", "orphan",
	"gamer", "late-fault", "hang-open", "hang-step", "hang-close", "hang-every", "round-time", "round-arm"}

var (
	badOnce sync.Once
	badDir  string
	badErr  error
)

// badPlugins builds testdata/badplugin once and returns a plugin directory
// holding it under every mode's name.
func badPlugins(t *testing.T) string {
	t.Helper()
	badOnce.Do(func() {
		dir := filepath.Join(binDir, "bad")
		if badErr = os.MkdirAll(dir, 0o755); badErr != nil {
			return
		}
		exe := filepath.Join(dir, "bad.bin")
		if badErr = testbin.Build(dir, testbin.Options{}, testbin.Main{Pkg: "./testdata/badplugin", Name: "bad.bin"}); badErr != nil {
			return
		}
		for _, m := range badModes {
			if badErr = os.Link(exe, filepath.Join(dir, "bench-plugin-bad-"+m)); badErr != nil {
				return
			}
		}
		badDir = dir
	})
	if badErr != nil {
		t.Fatal(badErr)
	}
	return badDir
}

var (
	ucb1Once sync.Once
	ucb1Path string
	ucb1Err  error
)

// ucb1Plugin builds examples/ucb1 from its own module once, as
// bench-plugin-ucb1-example: it serves the plugin ucb1-example, named apart
// from the shipped ucb1.
func ucb1Plugin(t *testing.T) string {
	t.Helper()
	ucb1Once.Do(func() {
		dir := filepath.Join(binDir, "examples")
		opts := testbin.Options{Dir: filepath.Join(repoRoot(t), "examples", "ucb1")}
		if ucb1Err = testbin.Build(dir, opts, testbin.Main{Pkg: ".", Name: "bench-plugin-ucb1-example"}); ucb1Err != nil {
			return
		}
		ucb1Path = filepath.Join(dir, "bench-plugin-ucb1-example")
	})
	if ucb1Err != nil {
		t.Fatal(ucb1Err)
	}
	return ucb1Path
}

// conformLine matches one result line of bench conform.
var conformLine = regexp.MustCompile(`^(PASS|FAIL|SKIP) ([a-z0-9-]+)(/[a-z-]+)?(: .*)?$`)

// conformResults parses bench conform's stdout into the status of every
// check ("rule" or "rule/transport") and the first line of each reason.
func conformResults(t *testing.T, stdout string) (status, reason map[string]string) {
	t.Helper()
	status, reason = map[string]string{}, map[string]string{}
	for _, line := range strings.Split(stdout, "\n") {
		if m := conformLine.FindStringSubmatch(line); m != nil {
			name := m[2] + m[3]
			status[name] = m[1]
			reason[name] = strings.TrimPrefix(m[4], ": ")
		}
	}
	return status, reason
}

// ofRule reports whether the status line n (RULE or RULE/TRANSPORT) is
// one of rule's.
func ofRule(n, rule string) bool { return n == rule || strings.HasPrefix(n, rule+"/") }

// ruleFails checks that rule has at least one line, each FAIL with a
// reason containing every string of want.
func ruleFails(t *testing.T, status, reason map[string]string, rule string, want []string) {
	t.Helper()
	lines := 0
	for n, s := range status {
		if !ofRule(n, rule) {
			continue
		}
		lines++
		if s != "FAIL" {
			t.Errorf("%s %s, want FAIL", s, n)
		}
		for _, w := range want {
			if !strings.Contains(reason[n], w) {
				t.Errorf("FAIL %s: the reason lacks %q: %s", n, w, reason[n])
			}
		}
	}
	if lines == 0 {
		t.Errorf("no line for rule %s", rule)
	}
}

// checkEveryRule asserts that stdout reports every rule of the catalogue,
// per transport for those checked over each.
func checkEveryRule(t *testing.T, stdout string, status map[string]string) {
	t.Helper()
	for _, r := range conformance.Rules() {
		found := false
		for name := range status {
			if name == r.Name || strings.HasPrefix(name, r.Name+"/") {
				found = true
			}
		}
		if !found {
			t.Errorf("no line for rule %s:\n%s", r.Name, stdout)
		}
	}
}

// TestConformPasses: every shipped plugin and the Go example pass the
// kit over every transport, parent death included, and leave no process.
// ts, the Go example and the broken plugins' conforming mode are checked
// on every rule. The other shipped plugins are checked here on what
// needs their executable (execRules: Describe and its parameters over
// the wire, valid arms over each transport, parent death), under the
// strict sandbox; every rule of the catalogue, each a property of the
// policy and not of its transport (the SDK's, which ts is checked over),
// is run on each of them in process by its own TestConformance
// (plugins/NAME), over both reward families: checked here again, they
// were most of this package's time. Skipped under -short.
func TestConformPasses(t *testing.T) {
	skipShort(t, "bench conform passing the shipped, Go and Python plugins over every transport")
	t.Parallel() // with plugins of its own: see ownPlugins
	type target struct {
		dir    func(*testing.T) string
		name   string
		byPath bool   // named by its path, else by name in --plugin-dir
		short  bool   // checked under -short too
		rules  string // --rule: "" for every rule
		ctx    bool   // contextual only: the contextual rules stand for valid-arms
	}
	plugins := map[string]target{}
	for _, n := range shipped {
		rules, ctx := execRules, contextualShipped[n]
		if ctx {
			rules = ctxExecRules
		}
		if n == "ts" {
			rules = ""
		}
		plugins[n] = target{func(*testing.T) string { return filepath.Join(binDir, "plugins") }, n, false, n == "ts", rules, ctx}
	}
	plugins["ucb1-example (examples/ucb1)"] = target{func(t *testing.T) string { return filepath.Dir(ucb1Plugin(t)) }, "ucb1-example", true, false, "", false}
	// Not under -short: TestConformBroken's ignore-seed and shared-rand
	// check that the same program passes every other rule.
	plugins["bad-ok (the broken plugins' conforming mode)"] = target{func(t *testing.T) string { return badPlugins(t) }, "bad-ok", true, false, "", false}
	for name, p := range plugins {
		t.Run(name, func(t *testing.T) {
			if !p.short {
				skipShort(t, "bench conform over "+name)
			}
			// Checks wait for plugins to start and exit: in parallel,
			// each with plugins of its own.
			t.Parallel()
			own := ownPlugins(t, p.dir(t), p.name)
			arg := p.name
			if p.byPath {
				arg = filepath.Join(own, "bench-plugin-"+p.name)
			}
			// Under the strict sandbox, as bench runs them, and saying so.
			args := []string{"--plugin-dir", own, "conform", "--quick", "-v", "--sandbox", "strict", arg}
			if p.name == "logts" { // it models Bernoulli rewards only
				args = append(args, "--family", "bernoulli")
			}
			wants := []string{"PASS parent-death", "PASS valid-arms/socket", "PASS valid-arms/grpc", "PASS valid-arms/grpc-unary", "transports: socket, grpc, grpc-unary"}
			if p.ctx {
				wants = []string{"PASS parent-death", "PASS contextual-arms/socket", "PASS contextual-arms/grpc", "PASS contextual-arms/grpc-unary", "transports: socket, grpc, grpc-unary"}
			}
			if p.rules != "" {
				args = append(args, "--rule", p.rules)
			} else {
				wants = append(wants, "PASS batch-split/grpc-unary")
			}
			stdout, stderr, code := bench(t, args...)
			if code != cli.ExitOK {
				t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "(sandbox strict)\n") {
				t.Errorf("stdout does not say the sandbox:\n%s", stdout)
			}
			status, _ := conformResults(t, stdout)
			if p.rules == "" {
				checkEveryRule(t, stdout, status)
			}
			for _, r := range strings.Split(p.rules, ",") {
				found := r == ""
				for n := range status {
					found = found || ofRule(n, r)
				}
				if !found {
					t.Errorf("no line for rule %s:\n%s", r, stdout)
				}
			}
			for n, s := range status {
				if s != "PASS" && !(s == "SKIP" && ctxRuleSkipped(n, p.ctx)) {
					t.Errorf("%s %s, want PASS", s, n)
				}
			}
			for _, w := range wants {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			assertNoPluginsIn(t, own)
		})
	}
}

// execRules are the rules of bench conform that TestConformPasses checks
// on a shipped plugin's executable beyond its in-process TestConformance:
// its Describe and parameters over the wire, valid arms over each
// transport, and exit on its parent's death (the handshake is always
// checked).
const execRules = "describe,describe-round-trip,valid-arms,parent-death"

// ctxExecRules are execRules for a plugin that plays only contextual
// scenarios, whose context-free rules (describe-round-trip and valid-arms
// open context-free sessions) skip: contextual-arms stands for them.
const ctxExecRules = "describe,contextual-arms,parent-death"

// ctxRuleSkipped reports whether the rule line n may be skipped for a
// plugin that plays only contextual sessions (contextual) or none: the
// context-free rules for the former, the contextual ones for the latter.
func ctxRuleSkipped(n string, contextual bool) bool {
	return strings.HasPrefix(n, "contextual-") != contextual
}

// contextualShipped are the shipped plugins that play only contextual
// scenarios.
var contextualShipped = map[string]bool{"linucb": true, "lints": true, "lingreedy": true, "linepsgreedy": true, "squarecb": true, "logts": true}

// TestConformBroken: each broken plugin fails the rule it breaks, with a
// reason naming what went wrong and where and an explanation in the Go
// SDK's terms, exit 1, and leaves no process behind even when it is the
// one that does not exit on parent death.
func TestConformBroken(t *testing.T) {
	skipShort(t, "bench conform against every broken fixture plugin (sdk/sdktest checks each rule in process)")
	t.Parallel() // with plugins of its own: see ownPlugins
	dir := badPlugins(t)
	for _, c := range []struct {
		mode  string
		rule  string   // fails over every transport (or once)
		want  []string // in its reason
		doc   string   // in its explanation
		only  bool     // every other rule passes
		rules []string // --rule; nil: every rule
	}{
		{"arm-range", "valid-arms", []string{"step round ", "returned arm ", ", want 0.."}, "", false, []string{"valid-arms"}},
		{"ignore-seed", "seed-used", []string{"give the same arms for every replication", "randomized", "ignores the seed"}, "use Replica.Rand", true, nil},
		{"time-seed", "deterministic-seed", []string{"played again: arm", "(round "}, "comes only from Replica.Rand", false, []string{"deterministic-seed"}},
		{"shared-rand", "batch-split", []string{"(round ", "replication "}, "draw from each replication's Replica.Rand", true, nil},
		{"stdout-before", "handshake", []string{"bad stdout-before: loading the model", "is not the go-plugin handshake"}, "", false, nil},
		{"orphan", "parent-death", []string{"still running 2s after the process that launched it was SIGKILLed"}, "", true, []string{"describe", "parent-death"}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			own := ownPlugins(t, dir, "bad-"+c.mode)
			args := []string{"--plugin-dir", own, "conform", "--quick", "-v", "bad-" + c.mode}
			if c.rules != nil {
				args = append(args, "--rule", strings.Join(c.rules, ","))
			}
			stdout, stderr, code := bench(t, args...)
			t.Logf("stdout:\n%s", stdout)
			if code != cli.ExitFailure {
				t.Errorf("exit %d, want %d\n%s", code, cli.ExitFailure, stderr)
			}
			if !strings.Contains(stderr, "bench-plugin-bad-"+c.mode+" does not conform") {
				t.Errorf("stderr does not say the plugin does not conform:\n%s", stderr)
			}
			status, reason := conformResults(t, stdout)
			if c.rules == nil {
				checkEveryRule(t, stdout, status)
			}
			ruleFails(t, status, reason, c.rule, c.want)
			if c.doc != "" && !strings.Contains(stdout, c.doc) {
				t.Errorf("no rule explanation says %q", c.doc)
			}
			if c.only {
				for n, s := range status {
					if !ofRule(n, c.rule) && s != "PASS" && !(s == "SKIP" && ctxRuleSkipped(n, false)) {
						t.Errorf("%s %s: %s, want PASS: the plugin breaks %s only", s, n, reason[n], c.rule)
					}
				}
			}
			if c.rule == "handshake" {
				for n, s := range status {
					if n != "handshake" && s != "SKIP" {
						t.Errorf("%s %s after a failed handshake, want SKIP", s, n)
					}
				}
			}
			assertNoPluginsIn(t, own)
		})
	}
}

// TestConformNotGamed: plugins that passed the kit as it was (fixed seeds,
// at most 112 rounds) fail it now. The gamer plays by the rules in a
// session of the seed 20240611 or of at most 112 rounds, and draws from
// the clock in every other, as in a real run: the long sessions over the
// step socket show it. late-fault returns an arm out of range at round
// 1001 only.
func TestConformNotGamed(t *testing.T) {
	skipShort(t, "bench conform against the fixtures that try to game the kit")
	t.Parallel() // with plugins of its own: see ownPlugins
	dir := badPlugins(t)
	for _, c := range []struct {
		mode  string
		rules string
		fails map[string][]string // check: in its failure's lines
	}{
		// Short sessions of more than 112 rounds may fail first; the
		// long ones fail whatever the seed.
		{"gamer", "deterministic-seed,batch-split", map[string][]string{
			"deterministic-seed/socket": {"a long session (", "rounds), on a fresh plugin instance: arm"},
			"batch-split/socket":        {"alone it pulls arm"},
		}},
		{"late-fault", "valid-arms", map[string][]string{
			"valid-arms/socket": {"round 1001", "returned arm "},
		}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			own := ownPlugins(t, dir, "bad-"+c.mode)
			stdout, stderr, code := bench(t, "--plugin-dir", own, "conform", "--quick", "-v", "--rule", c.rules, "bad-"+c.mode)
			t.Logf("stdout:\n%s", stdout)
			if code != cli.ExitFailure {
				t.Errorf("exit %d, want %d\n%s", code, cli.ExitFailure, stderr)
			}
			status, reason := conformResults(t, stdout)
			for check, want := range c.fails {
				if status[check] != "FAIL" {
					t.Errorf("%s: %s, want FAIL", check, status[check])
				}
				// The FAIL line and the lines indented under it.
				lines := regexp.MustCompile(`(?m)^FAIL ` + regexp.QuoteMeta(check) + `: .*\n(\s+.*\n)*`).FindString(stdout)
				for _, w := range want {
					if !strings.Contains(lines, w) {
						t.Errorf("FAIL %s: the failure lacks %q", check, w)
					}
				}
			}
			if c.mode == "late-fault" {
				// Over the other transports only a general session of
				// a round horizon of 2,000 or more (one in 8 with
				// --quick) plays past round 1000: they pass, or fail at
				// round 1001.
				for _, tr := range []string{"grpc", "grpc-unary"} {
					if s, r := status["valid-arms/"+tr], reason["valid-arms/"+tr]; s != "PASS" && !(s == "FAIL" && strings.Contains(r, "round 1001")) {
						t.Errorf("valid-arms/%s: %s %s, want PASS, or a failure at round 1001", tr, s, r)
					}
				}
			}
			assertNoPluginsIn(t, own)
		})
	}
}

// TestConformTimeouts: a plugin that hangs in Open, in Step or in Close
// fails the rule over the transport where it hangs, within the step
// timeout, with a message naming the call and the timeout; its process is
// killed and the rule goes on over the other transports with fresh
// processes, which pass, as does the next rule.
func TestConformTimeouts(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	dir := badPlugins(t)
	for _, c := range []struct{ mode, call string }{
		{"hang-open", "Open: "},
		{"hang-step", "Step (round "},
		{"hang-close", "Close: "},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			own := ownPlugins(t, dir, "bad-"+c.mode)
			// No hang, whatever happens: the run is cut short (exit 130)
			// after two minutes.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var out, errb bytes.Buffer
			// The step timeout must fire for the hang, and for no other
			// call: 5 s is long for any call of the kit's --quick sessions.
			// --sandbox off: the fixture marks that it hung in its own
			// directory, which a confined plugin may not write.
			err := cli.Run(ctx, []string{"--plugin-dir", own, "conform", "--quick", "-v", "--step-timeout", "5s", "--sandbox", "off",
				"--rule", "valid-arms,parent-death", "bad-" + c.mode}, &out, &errb)
			stdout, stderr, code := out.String(), errb.String(), cli.ExitCode(err)
			t.Logf("stdout:\n%s", stdout)
			if code != cli.ExitFailure {
				t.Errorf("exit %d, want %d\n%s", code, cli.ExitFailure, stderr)
			}
			if _, err := os.Stat(filepath.Join(own, "hung-"+c.mode)); err != nil {
				t.Errorf("the plugin never hung: %v", err)
			}
			status, reason := conformResults(t, stdout)
			want := "did not answer within the step timeout 5s"
			if r := reason["valid-arms/socket"]; status["valid-arms/socket"] != "FAIL" || !strings.Contains(r, c.call) || !strings.Contains(r, want) {
				t.Errorf("valid-arms/socket: %s %q, want FAIL: %s...%s", status["valid-arms/socket"], r, c.call, want)
			}
			if !strings.Contains(stdout, "bad "+c.mode+": hanging") {
				t.Errorf("the failure does not quote the plugin's stderr")
			}
			for _, n := range []string{"handshake", "valid-arms/grpc", "valid-arms/grpc-unary", "parent-death"} {
				if status[n] != "PASS" {
					t.Errorf("%s: %s %s, want PASS after the hang", n, status[n], reason[n])
				}
			}
			if !strings.Contains(stdout, "\n4 passed, 1 failed") {
				t.Errorf("stdout does not end with 4 passed, 1 failed")
			}
			assertNoPluginsIn(t, own)
		})
	}
}

// TestConformHangs: a plugin that hangs in every Step ends bench conform
// after two step timeouts, not one per rule: the checks that would play a
// session after them say they were not run and why; the rules that play
// none (handshake, describe, parent-death) pass.
func TestConformHangs(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	own := ownPlugins(t, badPlugins(t), "bad-hang-every")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	err := cli.Run(ctx, []string{"--plugin-dir", own, "conform", "--quick", "-v", "--step-timeout", "5s", "--sandbox", "off", "bad-hang-every"}, &out, &errb)
	stdout, stderr, code := out.String(), errb.String(), cli.ExitCode(err)
	t.Logf("stdout:\n%s", stdout)
	if ctx.Err() != nil {
		t.Fatalf("bench conform still ran after 3 minutes")
	}
	if code != cli.ExitFailure {
		t.Errorf("exit %d, want %d\n%s", code, cli.ExitFailure, stderr)
	}
	status, reason := conformResults(t, stdout)
	checkEveryRule(t, stdout, status)
	timeouts := 0
	for n, s := range status {
		switch {
		case n == "handshake" || n == "describe" || n == "parent-death":
			if s != "PASS" {
				t.Errorf("%s %s: %s, want PASS", s, n, reason[n])
			}
		case s == "FAIL" && strings.Contains(reason[n], "did not answer within the step timeout 5s"):
			timeouts++
		case s == "SKIP" && strings.HasPrefix(reason[n], "not run: ") && strings.Contains(reason[n], "step timeout"):
		default:
			t.Errorf("%s %s: %s, want a step timeout or not run after one", s, n, reason[n])
		}
	}
	if timeouts != 2 {
		t.Errorf("%d checks waited the step timeout, want 2", timeouts)
	}
	if !strings.Contains(stdout, "not run: the plugin hit the step timeout in valid-arms/socket and valid-arms/grpc; it hangs") {
		t.Errorf("no check says it was not run after the two hangs")
	}
	assertNoPluginsIn(t, own)
}

// TestConformCleanTMPDIR: bench conform leaves nothing in TMPDIR, under
// the sandbox and unconfined, the parent-death rule (whose intermediate
// process is SIGKILLed before it can clean up) and a plugin killed after
// hangs included; it used to leave a plugin-dirN directory and a socket
// on every run.
func TestConformCleanTMPDIR(t *testing.T) {
	t.Parallel()
	own := ownPlugins(t, badPlugins(t), "bad-hang-every")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"ts auto", []string{"--plugin-dir", filepath.Join(binDir, "plugins"), "conform", "--quick", "--rule", "valid-arms,deterministic-seed,parent-death", "ts"}},
		{"ts off", []string{"--plugin-dir", filepath.Join(binDir, "plugins"), "conform", "--quick", "--sandbox", "off", "--rule", "valid-arms,deterministic-seed,parent-death", "ts"}},
		{"hang off", []string{"--plugin-dir", own, "conform", "--quick", "--sandbox", "off", "--step-timeout", "5s", "--rule", "valid-arms,parent-death", "bad-hang-every"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			b := startBench(t, []string{"TMPDIR=" + tmp}, append([]string{filepath.Join(binDir, "bench")}, c.args...)...)
			code := b.exit(t, 5*time.Minute)
			t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, b.stdout.String(), b.stderr.String())
			if !strings.Contains(b.stdout.String(), "PASS parent-death") && !strings.Contains(b.stdout.String(), " passed, ") {
				t.Errorf("bench conform did not run")
			}
			// The plugins may take a moment to be gone after bench.
			deadline := time.Now().Add(time.Minute)
			for {
				ents, err := os.ReadDir(tmp)
				if err != nil {
					t.Fatal(err)
				}
				if len(ents) == 0 {
					break
				}
				if time.Now().After(deadline) {
					var names []string
					for _, e := range ents {
						names = append(names, e.Name())
					}
					t.Fatalf("TMPDIR still holds %s a minute after bench conform exited", strings.Join(names, ", "))
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// TestConformInterrupted: SIGINT while a rule waits for a plugin ends
// bench conform at once with exit 130 and one line counting the checks
// done, not a FAIL for every check left; the plugin is stopped.
func TestConformInterrupted(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	own := ownPlugins(t, badPlugins(t), "bad-hang-step")
	b := startBench(t, nil, filepath.Join(binDir, "bench"), "--plugin-dir", own, "conform", "--quick", "--sandbox", "off",
		"--step-timeout", "10m", "bad-hang-step") // the step timeout does not end the hang
	b.waitFiles(t, filepath.Join(own, "hung-hang-step"))
	if err := syscall.Kill(b.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := b.exit(t, time.Minute)
	stdout, stderr := b.stdout.String(), b.stderr.String()
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	if code != cli.ExitInterrupted {
		t.Errorf("exit %d, want %d", code, cli.ExitInterrupted)
	}
	// handshake and describe passed before valid-arms/socket hung; the
	// rules are checked over each of the 3 transports, or once.
	checks := 0
	for _, r := range conformance.Rules() {
		checks += map[bool]int{true: 1, false: 3}[r.Once()]
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last, want := lines[len(lines)-1], fmt.Sprintf("interrupted after 2 of %d checks: 2 passed, 0 failed", checks); last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	if strings.Contains(stdout, "FAIL") || strings.Contains(stdout, "SKIP") || strings.Contains(stdout, " passed, 0 failed (") {
		t.Errorf("interrupted checks are reported:\n%s", stdout)
	}
	if strings.TrimSpace(stderr) != "bench: received interrupt" {
		t.Errorf("stderr %q, want bench: received interrupt", stderr)
	}
	assertNoPluginsIn(t, own)
}

// TestConformSeed: every invocation draws its own seed and prints it
// first; --seed replays the very same sessions, and the command a failure
// prints replays the failure.
func TestConformSeed(t *testing.T) {
	skipShort(t, "bench conform's seed line and replays of a failure")
	t.Parallel() // with plugins of its own: see ownPlugins
	own := ownPlugins(t, badPlugins(t), "bad-ok", "bad-shared-rand")
	run := func(args ...string) (string, int) {
		t.Helper()
		stdout, stderr, code := bench(t, append([]string{"--plugin-dir", own, "conform"}, args...)...)
		if code == cli.ExitInput {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return stdout, code
	}
	sessions := func(stdout string) string {
		t.Helper()
		var out []string
		for _, l := range strings.Split(stdout, "\n") {
			if strings.Contains(l, "sessions: ") {
				out = append(out, l)
			}
		}
		if len(out) == 0 {
			t.Fatalf("no sessions line:\n%s", stdout)
		}
		return strings.Join(out, "\n")
	}
	args := []string{"--quick", "-v", "--rule", "valid-arms,seed-used", "bad-ok"}
	a, _ := run(args...)
	b, _ := run(args...)
	seedA, _, _ := strings.Cut(a, "\n")
	seedB, _, _ := strings.Cut(b, "\n")
	if !regexp.MustCompile(`^seed 0x[0-9a-f]{16}$`).MatchString(seedA) {
		t.Fatalf("first line %q, want seed 0x and 16 hex digits", seedA)
	}
	if seedA == seedB || sessions(a) == sessions(b) {
		t.Errorf("two runs drew the same seed or sessions:\n%s\n%s", a, b)
	}
	again, _ := run(append([]string{"--seed", strings.TrimPrefix(seedA, "seed ")}, args...)...)
	if again != a {
		t.Errorf("--seed %s did not replay the run:\n%s\nreplayed:\n%s", seedA, a, again)
	}
	// A config file's seed (or BENCH_SEED) is the scenario's, for runs:
	// not the kit's, whatever its form.
	for _, seed := range []string{"42", "0x" + strings.Repeat("ab", 32)} {
		cfg := writeFile(t, "bench.yaml", "seed: "+seed+"\n")
		out, stderr, code := bench(t, "--config", cfg, "--plugin-dir", own, "conform", "--quick", "--rule", "describe", "bad-ok")
		if code != cli.ExitOK || out == a || strings.HasPrefix(out, "seed 0x000000000000002a\n") {
			t.Errorf("with seed: %s in the config file: exit %d\n%s\n%s", seed, code, out, stderr)
		}
	}

	// The reproduce line of a failure replays it.
	fail, code := run("--quick", "--rule", "batch-split", "bad-shared-rand")
	m := regexp.MustCompile(`(?m)^FAIL (batch-split/socket: .*)\n(?:.*\n)*?\s+reproduce: bench conform (.*)$`).FindStringSubmatch(fail)
	if code != cli.ExitFailure || m == nil {
		t.Fatalf("exit %d, no FAIL of batch-split/socket and its reproduce line:\n%s", code, fail)
	}
	replay, _ := run(append(strings.Fields(m[2]), "-v")...)
	if !strings.Contains(replay, "FAIL "+m[1]+"\n") {
		t.Errorf("%s does not replay FAIL %s:\n%s", m[2], m[1], replay)
	}
	assertNoPluginsIn(t, own)
}

// TestConformUsage: a plugin that is not there, a directory, or no
// argument at all are usage errors (exit 2), naming what was looked for.
func TestConformUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown name", []string{"conform", "nosuch"}, []string{`plugin "nosuch"`, "bench-plugin-nosuch", "found: ducb, exp3, klucb, linepsgreedy, lingreedy, lints, linucb, logts, moss, remax, remaxgrad, squarecb, swucb, ts, ucb1 (add a directory with --plugin-dir or BENCH_PLUGIN_PATH)"}},
		{"missing path", []string{"conform", "./nowhere/bench-plugin-x"}, []string{"nowhere/bench-plugin-x", "no such file"}},
		{"directory", []string{"conform", binDir + "/plugins"}, []string{"is a directory"}},
		{"no argument", []string{"conform"}, []string{"accepts 1 arg"}},
		{"bad seed", []string{"conform", "--seed", "0xnope", "ts"}, []string{"--seed", `"0xnope"`, "unsigned 64-bit"}},
		{"zero step timeout", []string{"conform", "--step-timeout", "0s", "ts"}, []string{"--step-timeout 0s: must be > 0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := bench(t, c.args...)
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d\n%s", code, cli.ExitInput, stderr)
			}
			if strings.Contains(stdout, "PASS") || strings.Contains(stdout, "FAIL") {
				t.Errorf("rules were checked:\n%s", stdout)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// pythonSDK skips the test unless /usr/bin/python3, the Python plugins'
// interpreter, can import grpc, protobuf, numpy and the regretbench
// package (installed, or from sdk/python as the plugins fall back to).
func pythonSDK(t *testing.T) {
	t.Helper()
	skipShort(t, "bench conform over Python plugins")
	probe := fmt.Sprintf("import sys; sys.path.append(%q); import grpc, google.protobuf, numpy, regretbench",
		filepath.Join(repoRoot(t), "sdk", "python"))
	if out, err := combinedOutput(t, exec.Command("/usr/bin/python3", "-c", probe)); err != nil {
		t.Skipf("/usr/bin/python3 cannot import grpc, protobuf, numpy and regretbench (Debian's python3-grpcio, "+
			"python3-protobuf, python3-numpy; sdk/python): %v: %s", err, lastLine(string(out)))
	}
}

// TestConformPythonExamples: every Python example passes every rule.
func TestConformPythonExamples(t *testing.T) {
	t.Parallel() // its plugins run from examples/python, not binDir
	pythonSDK(t)
	if _, err := os.Stat(filepath.Join(repoRoot(t), "sdk", "python", "regretbench")); err != nil {
		t.Skipf("examples/python is written on sdk/python, which this tree lacks: %v", err)
	}
	examples, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "python", "bench-plugin-*"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no Python examples: %v", err)
	}
	for _, path := range examples {
		t.Run(filepath.Base(path), func(t *testing.T) {
			// Mostly waiting for Python to start: in parallel.
			t.Parallel()
			// The examples find the checkout's SDK beside them.
			stdout, stderr, code := bench(t, "conform", "--quick", "-v", "--sandbox-read", filepath.Join(repoRoot(t), "sdk", "python"), path)
			if code != cli.ExitOK {
				t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
			}
			status, reason := conformResults(t, stdout)
			checkEveryRule(t, stdout, status)
			for n, s := range status {
				// The Python SDK speaks protocol 1 until it supports
				// delayed feedback: that rule is then skipped.
				if s == "SKIP" && strings.HasPrefix(n, "delayed-feedback/") && strings.Contains(reason[n], "protocol version 1") {
					continue
				}
				// A contextual-only example skips the context-free
				// rules, and must pass the contextual ones.
				if s == "SKIP" && strings.Contains(reason[n], "plays only contextual sessions") {
					continue
				}
				// A context-free example skips the contextual rules.
				if s == "SKIP" && ctxRuleSkipped(n, false) {
					continue
				}
				if s != "PASS" {
					t.Errorf("%s %s, want PASS", s, n)
				}
			}
			if strings.Contains(stdout, "plays only contextual sessions") && !strings.Contains(stdout, "PASS contextual-batch-split/socket") {
				t.Errorf("a contextual-only example without its contextual rules passed:\n%s", stdout)
			}
		})
	}
}

// TestConformProtocol1: bench conform reports the delayed-feedback rule
// skipped, naming the protocol, for a plugin that speaks protocol 1 only,
// and checks (and passes) it for a protocol 2 plugin.
func TestConformProtocol1(t *testing.T) {
	t.Parallel()
	old := filepath.Join(proto1Plugins(t), "bench-plugin-old")
	stdout, stderr, code := bench(t, "conform", "--quick", "-v", "--rule", "delayed-feedback", old)
	if code != cli.ExitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	status, reason := conformResults(t, stdout)
	if len(status) == 0 {
		t.Fatalf("no result:\n%s", stdout)
	}
	checked := 0
	for n, s := range status {
		if !strings.HasPrefix(n, "delayed-feedback/") {
			continue
		}
		checked++
		if s != "SKIP" || !strings.Contains(reason[n], "protocol version 1; delayed feedback needs version 2") {
			t.Errorf("%s: %s %q, want SKIP naming protocol 1", n, s, reason[n])
		}
	}
	if checked == 0 {
		t.Errorf("no delayed-feedback line:\n%s", stdout)
	}
	stdout, stderr, code = bench(t, "conform", "--quick", "-v", "--rule", "delayed-feedback", "ts")
	if code != cli.ExitOK || !strings.Contains(stdout, "PASS delayed-feedback/socket") {
		t.Fatalf("ts: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestConformPythonBroken: the broken Python plugins (testdata/pybroken,
// on the regretbench package) each fail the rule they break, and the same
// script in its conforming mode passes those rules. Only the rules at
// stake are checked (--rule): a Python plugin is slow to start.
func TestConformPythonBroken(t *testing.T) {
	t.Parallel() // with plugins of its own: see ownPlugins
	pythonSDK(t)
	dir := filepath.Join(binDir, "pybad")
	script, err := filepath.Abs(filepath.Join("testdata", "pybroken", "bench-plugin-pybad"))
	if err != nil {
		t.Fatal(err)
	}
	type pyMode struct {
		mode, rule string
		want       []string
		doc        string // in the rule's explanation: the Python SDK's names
	}
	modes := []pyMode{
		{"arm-range", "valid-arms", []string{"step round ", "returned arm ", ", want 0.."}, ""},
		{"ignore-seed", "seed-used", []string{"give the same arms for every replication", "ignores the seed"}, "(use replica.rng)"},
		{"shared-rand", "batch-split", []string{"(round ", "replication "}, "or rb.KeyedDraws(s.seed,"},
		{"stdout-before", "handshake", []string{"pybad stdout-before: loading the model", "is not the go-plugin handshake"}, ""},
		{"orphan", "parent-death", []string{"still running 2s after the process that launched it was SIGKILLed"}, ""},
	}
	var rules []string
	for _, m := range append(modes, pyMode{mode: "ok"}) {
		if m.rule != "" {
			rules = append(rules, m.rule)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(script, filepath.Join(dir, "bench-plugin-pybad-"+m.mode)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	t.Run("ok", func(t *testing.T) {
		t.Parallel()
		own := ownPlugins(t, dir, "pybad-ok")
		stdout, stderr, code := bench(t, "--plugin-dir", own, "conform", "--quick", "-v", "--sandbox-read", filepath.Join(repoRoot(t), "sdk", "python"),
			"--rule", strings.Join(rules, ","), "pybad-ok")
		if code != cli.ExitOK {
			t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
		}
		status, _ := conformResults(t, stdout)
		for _, r := range rules {
			if status[r] != "PASS" && status[r+"/socket"] != "PASS" {
				t.Errorf("rule %s not passed:\n%s", r, stdout)
			}
		}
		assertNoPluginsIn(t, own)
	})
	for _, m := range modes {
		t.Run(m.mode, func(t *testing.T) {
			t.Parallel()
			own := ownPlugins(t, dir, "pybad-"+m.mode)
			stdout, stderr, code := bench(t, "--plugin-dir", own, "conform", "--quick", "-v", "--sandbox-read", filepath.Join(repoRoot(t), "sdk", "python"),
				"--rule", m.rule, "pybad-"+m.mode)
			t.Logf("stdout:\n%s", stdout)
			if code != cli.ExitFailure {
				t.Errorf("exit %d, want %d\n%s", code, cli.ExitFailure, stderr)
			}
			status, reason := conformResults(t, stdout)
			ruleFails(t, status, reason, m.rule, m.want)
			// A Python author is told in the Python SDK's terms.
			if m.doc != "" && !strings.Contains(stdout, m.doc) {
				t.Errorf("no rule explanation says %q", m.doc)
			}
			for _, goName := range []string{"Replica.Rand", "BatchFactory", "BatchStep.Arrivals", "Session.Feedback.Delayed", "Select("} {
				if strings.Contains(stdout, goName) {
					t.Errorf("a Python plugin is told about Go's %s", goName)
				}
			}
			assertNoPluginsIn(t, own)
		})
	}
}

// roundSession matches a session of a round horizon of 2,000 rounds or
// more in bench conform -v's sessions lines, and in its failures.
var roundSession = regexp.MustCompile(`T=([2-9]|[1-9][0-9]+)000\b|\b([2-9]|[1-9][0-9]+)000 rounds`)

// TestConformRoundHorizons: plugins that misbehave only at a real run's
// horizons (a multiple of 1,000, at least 2,000: every shipped
// scenario's), nondeterministic there (round-time) or pulling an arm out
// of range there (round-arm), fail bench conform: the kit once never
// played such a horizon, and they passed 42/42. The seed is fixed so
// that the test is deterministic; internal/conformance's TestPlanRoundSizes and
// TestRoundHorizonsCaught show that most seeds catch them. Every check
// that fails played a round horizon: the fault shows there only.
func TestConformRoundHorizons(t *testing.T) {
	skipShort(t, "bench conform against plugins that misbehave at round horizons")
	t.Parallel() // with plugins of its own: see ownPlugins
	dir := badPlugins(t)
	for _, mode := range []string{"round-time", "round-arm"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			own := ownPlugins(t, dir, "bad-"+mode)
			stdout, stderr, code := bench(t, "--plugin-dir", own, "conform", "--quick", "-v", "--seed", "0x1", "bad-"+mode)
			t.Logf("stdout:\n%s", stdout)
			if code != cli.ExitFailure {
				t.Fatalf("exit %d, want %d\n%s", code, cli.ExitFailure, stderr)
			}
			status, _ := conformResults(t, stdout)
			checkEveryRule(t, stdout, status)
			failed := 0
			for n, s := range status {
				if s != "FAIL" {
					continue
				}
				failed++
				// The FAIL line and the lines indented under it.
				lines := regexp.MustCompile(`(?m)^FAIL ` + regexp.QuoteMeta(n) + `: .*\n(\s+.*\n)*`).FindString(stdout)
				if !roundSession.MatchString(lines) {
					t.Errorf("FAIL %s played no round horizon of 2,000 or more:\n%s", n, lines)
				}
			}
			if failed == 0 {
				t.Errorf("no check failed")
			}
			assertNoPluginsIn(t, own)
		})
	}
}
