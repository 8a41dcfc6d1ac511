package conform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/internal/conformance"
	"github.com/regretbench/regretbench/internal/sandbox"
	"github.com/regretbench/regretbench/internal/testbin"
)

// results is a kit's run as CheckExecutable reports it: valid-arms passes
// over both transports; init-pulls fails over both, the first with a
// two-line message; seed-used and batch-split are skipped for one reason,
// edge-two-arms for another; describe-round-trip fails over one transport
// with a two-line message; parent-death fails once, on one line.
func results() []conformance.Result {
	two := errors.New("pulled arm 5 of 3\nstderr: boom")
	return []conformance.Result{
		{Rule: "valid-arms", Doc: "arms in range", Transport: "socket", Sessions: []string{"K=3 T=10"}},
		{Rule: "valid-arms", Doc: "arms in range", Transport: "grpc"},
		{Rule: "init-pulls", Doc: "pull each arm once", Transport: "socket", Err: two},
		{Rule: "init-pulls", Doc: "pull each arm once", Transport: "grpc", Err: errors.New("round 2")},
		{Rule: "seed-used", Transport: "socket", Skipped: "one arm"},
		{Rule: "batch-split", Transport: "socket", Skipped: "one arm"},
		{Rule: "edge-two-arms", Transport: "socket", Skipped: "no grpc"},
		{Rule: "describe-round-trip", Doc: "round trip", Transport: "grpc", Err: two},
		{Rule: "parent-death", Doc: "exits", Err: errors.New("still running")},
	}
}

func replay(rule string) string { return "replay " + rule }

// TestReport checks the report's every line, and its counts, for a run's
// results, with and without -v.
func TestReport(t *testing.T) {
	for _, tc := range []struct {
		verbose bool
		want    string
	}{
		{false, `FAIL init-pulls/socket: pulled arm 5 of 3
       also over grpc (-v: every failure)
       rule: pull each arm once
       reproduce: replay init-pulls
SKIP seed-used, batch-split: one arm
SKIP edge-two-arms: no grpc
FAIL describe-round-trip/grpc: pulled arm 5 of 3
       (-v: every failure)
       rule: round trip
       reproduce: replay describe-round-trip
FAIL parent-death: still running
       rule: exits
       reproduce: replay parent-death
`},
		{true, `PASS valid-arms/socket
       sessions: K=3 T=10
PASS valid-arms/grpc
FAIL init-pulls/socket: pulled arm 5 of 3
       stderr: boom
       rule: pull each arm once
       reproduce: replay init-pulls
FAIL init-pulls/grpc: round 2
       rule: pull each arm once
       reproduce: replay init-pulls
SKIP seed-used/socket: one arm
SKIP batch-split/socket: one arm
SKIP edge-two-arms/socket: no grpc
FAIL describe-round-trip/grpc: pulled arm 5 of 3
       stderr: boom
       rule: round trip
       reproduce: replay describe-round-trip
FAIL parent-death: still running
       rule: exits
       reproduce: replay parent-death
`},
	} {
		var b bytes.Buffer
		r := &report{w: &b, verbose: tc.verbose, replay: replay}
		for _, res := range results() {
			r.add(res)
		}
		r.flush()
		r.flushSkips()
		if b.String() != tc.want {
			t.Errorf("verbose %v: got\n%s\nwant\n%s", tc.verbose, b.String(), tc.want)
		}
		wantFailed := "init-pulls/socket init-pulls/grpc describe-round-trip/grpc parent-death"
		if r.passed != 2 || r.skipped != 3 || strings.Join(r.failed, " ") != wantFailed {
			t.Errorf("verbose %v: passed %d, skipped %d, failed %q; want 2, 3, %s", tc.verbose, r.passed, r.skipped, r.failed, wantFailed)
		}
	}
}

// TestRuleNames: every rule, in order, comma-separated, no line of the help
// text past 72 columns.
func TestRuleNames(t *testing.T) {
	prefix := "--rule NAME checks only the rules named. The rules: "
	got := RuleNames(len(prefix))
	var names []string
	for _, r := range conformance.Rules() {
		names = append(names, r.Name)
	}
	if s := strings.ReplaceAll(got, "\n", " "); s != strings.Join(names, ", ") {
		t.Errorf("RuleNames = %q, want the rules %q", s, strings.Join(names, ", "))
	}
	for i, line := range strings.Split(prefix+got+".", "\n") {
		if len(line) > 72 {
			t.Errorf("line %d is %d columns, want <= 72: %q", i, len(line), line)
		}
	}
}

// TestCheckRules accepts the catalogue's rules and names the first
// unknown one.
func TestCheckRules(t *testing.T) {
	for _, tc := range []struct {
		only    []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"valid-arms", "handshake"}, ""},
		{[]string{"valid-arms", "bogus", "other"}, "--rule bogus: no such rule; the rules are handshake, describe, valid-arms"},
	} {
		err := CheckRules(tc.only)
		if (err == nil) != (tc.wantErr == "") || err != nil && !strings.HasPrefix(err.Error(), tc.wantErr) {
			t.Errorf("CheckRules(%q) = %v, want %q", tc.only, err, tc.wantErr)
		}
	}
}

// TestParseSeed: a seed as printed, in hex or decimal; none or "random"
// draws one.
func TestParseSeed(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64 // 0: random
		bad  bool
	}{
		{"0x10", 16, false},
		{"17", 17, false},
		{"", 0, false},
		{"random", 0, false},
		{"0xzz", 0, true},
	} {
		got, err := ParseSeed(tc.in)
		if (err != nil) != tc.bad || tc.want != 0 && got != tc.want {
			t.Errorf("ParseSeed(%q) = %#x, %v; want %#x, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestTarget: a NAME is looked up on the search path, a PATH used as it
// is (made absolute), unless it is missing or a directory.
func TestTarget(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, registry.Prefix+"x")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := registry.Path{{Path: dir}}
	t.Chdir(dir) // a relative PATH is made absolute, as exec needs it
	for _, tc := range []struct {
		arg, want, wantErr string
	}{
		{"x", exe, ""},
		{exe, exe, ""},
		{"./" + registry.Prefix + "x", exe, ""},
		{"y", "", "no " + registry.Prefix + "y"},
		{dir, "", "plugin " + dir + ": is a directory, want a plugin executable"},
		{filepath.Join(dir, "none"), "", "plugin " + filepath.Join(dir, "none") + ": "},
	} {
		got, err := Target(path, tc.arg)
		if got != tc.want || (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("Target(%q) = %q, %v; want %q, %q", tc.arg, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestRun checks the shipped ts plugin on one rule, unsandboxed: the seed
// and conform lines, the summary, and, interrupted before it starts, the
// interrupted line and ctx's error.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	if err := testbin.Build(dir, testbin.Options{}, testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-ts", Name: "bench-plugin-ts"}); err != nil {
		t.Fatal(err)
	}
	plan, err := sandbox.Config{Level: sandbox.Off}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "bench-plugin-ts")
	// Generous timeouts: they must not fire on a loaded machine.
	c := Config{Path: exe, Seed: 0x2a, Plan: &plan, Rules: []string{"valid-arms"}, Quick: true,
		StartTimeout: time.Minute, StepTimeout: time.Minute}
	var out, warn bytes.Buffer
	c.Stdout, c.Stderr = &out, &warn
	if err := Run(context.Background(), c); err != nil {
		t.Fatalf("Run: %v\n%s%s", err, out.String(), warn.String())
	}
	head := fmt.Sprintf("seed 0x000000000000002a\nconform %s (sandbox %s)\n", exe, plan.Layers)
	got := out.String()
	_, trs, _ := strings.Cut(got, "(transports: ")
	n := len(strings.Split(strings.TrimSuffix(trs, ")\n"), ", "))
	if want := fmt.Sprintf("%s%d passed, 0 failed (transports: %s", head, planned(c.Rules, n), trs); got != want {
		t.Errorf("got\n%s\nwant\n%s(the handshake once, valid-arms per transport)", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out.Reset()
	if err := Run(ctx, c); !errors.Is(err, context.Canceled) {
		t.Errorf("Run interrupted: %v, want context.Canceled", err)
	}
	if got := out.String(); !strings.HasPrefix(got, head) || !strings.Contains(got, "\ninterrupted after 0 checks: 0 passed, 0 failed\n") {
		t.Errorf("interrupted: got\n%s", got)
	}
}
