package run_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/registry"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/shard"
	"github.com/regretbench/regretbench/internal/testbin"
)

// pluginDir holds the real plugins the tests launch: the shipped ts and
// klucb, and cheat-pool, which pools what it sees across the replications
// of its session (host/e2e/testdata/cheat/pool).
var pluginDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "regretbench-run")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pluginDir = dir
	err = testbin.Build(dir, testbin.Options{},
		testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-ts", Name: "bench-plugin-ts"},
		testbin.Main{Pkg: "github.com/regretbench/regretbench/cmd/bench-plugin-klucb", Name: "bench-plugin-klucb"},
		testbin.Main{Pkg: "../e2e/testdata/cheat/pool", Name: "bench-plugin-cheat-pool"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// compareDefaults are the comparison section's default options.
var compareDefaults = compare.DefaultOptions

// shardNone is the shard spec of a run that is not a shard.
var shardNone shard.Spec

// launcher starts the test's plugins, unsandboxed, with a generous
// handshake timeout (one that must not fire on a loaded machine).
func launcher(warn *bytes.Buffer) engine.Launcher {
	return run.Launcher(registry.NewPath([]string{pluginDir}, ""), time.Minute, nil, warn)
}

// small is a quick scenario of ts and klucb.
func small(t *testing.T, extra string) *scenario.Scenario {
	t.Helper()
	return parse(t, `
name: small
environment: {means: [0.5, 0.4], noise_sd: 1}
horizon: 200
runs: 8
policies:
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB}
`+extra)
}

// parse parses a scenario file's text.
func parse(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// plan plays sc and writes its results to a file, returning its path.
func plan(t *testing.T, sc *scenario.Scenario, opts run.Options) (string, *results.File) {
	t.Helper()
	var stderr bytes.Buffer
	opts.Launch, opts.Stderr = launcher(&stderr), &stderr
	f, err := run.Plan(context.Background(), sc, opts)
	if err != nil {
		t.Fatalf("Plan: %v\n%s", err, stderr.String())
	}
	path := filepath.Join(t.TempDir(), "out.json")
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path, f
}

// TestResume: what an earlier file lets a run keep, and why it reruns the
// rest, decided against the plugins as they are now.
func TestResume(t *testing.T) {
	t.Parallel()
	path, first := plan(t, small(t, "seed: 3\n"), run.Options{})
	for _, tc := range []struct {
		name   string
		sc     *scenario.Scenario
		kept   []string // labels kept
		reason string   // in the rerun note, "" for none
		err    string   // a refusal
	}{
		{name: "same", sc: small(t, "seed: 3\n"), kept: []string{"TS", "KL-UCB"}},
		{name: "added policy", sc: small(t, "  - {plugin: ts, label: TS2}\nseed: 3\n"), kept: []string{"TS", "KL-UCB"}},
		{name: "defaults spelled out", sc: func() *scenario.Scenario {
			sc := small(t, "seed: 3\n")
			sc.Policies[0].Params = map[string]any{"inflation": 1.0}
			return sc
		}(), kept: []string{"TS", "KL-UCB"}},
		{name: "changed param", sc: func() *scenario.Scenario {
			sc := small(t, "seed: 3\n")
			sc.Policies[0].Params = map[string]any{"inflation": 2.0}
			return sc
		}(), kept: []string{"KL-UCB"}, reason: `rerunning "TS": params were {"inflation":1}, now {"inflation":2}`},
		{name: "plugin", sc: func() *scenario.Scenario {
			sc := small(t, "seed: 3\n")
			sc.Policies[0].Plugin = "klucb"
			return sc
		}(), kept: []string{"KL-UCB"}, reason: `rerunning "TS": plugin was ts, now klucb`},
		{name: "seed", sc: small(t, "seed: 4\n"), err: "holds another run"},
		{name: "checkpoints", sc: small(t, "seed: 3\ncheckpoints: [10, 200]\n"), kept: []string{}, reason: `rerunning "TS": checkpoints were`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			f, err := run.Resume(context.Background(), path, tc.sc, shardNone, launcher(&stderr), &stderr, flag)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, p := range f.Policies {
				kept = append(kept, p.Label)
			}
			if fmt.Sprint(kept) != fmt.Sprint(tc.kept) {
				t.Errorf("kept %v, want %v\n%s", kept, tc.kept, stderr.String())
			}
			if tc.reason != "" && !strings.Contains(stderr.String(), tc.reason) {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.reason)
			}
			if tc.reason == "" && stderr.Len() > 0 {
				t.Errorf("stderr %q, want nothing rerun", stderr.String())
			}
		})
	}

	// Plan with Resume plays only what is not kept, and the file it
	// returns holds every policy in the scenario's order, the kept ones
	// bit for bit as they were.
	sc := small(t, "seed: 3\n")
	sc.Policies[0].Params = map[string]any{"inflation": 2.0}
	var stderr bytes.Buffer
	played := map[string]bool{}
	f, err := run.Plan(context.Background(), sc, run.Options{Launch: launcher(&stderr), Stderr: &stderr, Resume: true, Out: path,
		Start: func(sc *scenario.Scenario) run.Progress {
			for _, l := range run.Labels(sc) {
				played[l] = true
			}
			return nil
		}})
	if err != nil {
		t.Fatalf("Plan --resume: %v\n%s", err, stderr.String())
	}
	if !played["TS"] || played["KL-UCB"] {
		t.Errorf("played %v, want TS alone", played)
	}
	if len(f.Policies) != 2 || f.Policies[0].Label != "TS" || f.Policies[1].Label != "KL-UCB" {
		t.Fatalf("policies %v, want TS, KL-UCB", f.Policies)
	}
	was, now := first.Policy("KL-UCB").Final["regret"], f.Policy("KL-UCB").Final["regret"]
	for i := range was {
		if math.Float64bits(was[i]) != math.Float64bits(now[i]) {
			t.Fatalf("kept KL-UCB changed: %v, was %v", now, was)
		}
	}
}

// TestWith: added policies are checked against their plugins' Describe.
func TestWith(t *testing.T) {
	t.Parallel()
	ts := scenario.Policy{Plugin: "ts", Label: "TS2", Params: map[string]any{"inflation": 1.5}}
	for _, tc := range []struct {
		name  string
		added []scenario.Policy
		err   string // "" when it is added
	}{
		{name: "ok", added: []scenario.Policy{ts}},
		{name: "label taken", added: []scenario.Policy{{Plugin: "ts", Label: "TS"}}, err: `label "TS" is already used`},
		{name: "label twice", added: []scenario.Policy{ts, ts}, err: `label "TS2" is already used`},
		{name: "unknown plugin", added: []scenario.Policy{{Plugin: "nosuch", Label: "N"}}, err: "nosuch"},
		{name: "unknown param", added: []scenario.Policy{{Plugin: "ts", Label: "T", Params: map[string]any{"nope": 1}}}, err: "plugin ts: "},
		{name: "bad type", added: []scenario.Policy{{Plugin: "ts", Label: "T", Params: map[string]any{"inflation": "x"}}}, err: "plugin ts: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var added []run.Added
			for i, p := range tc.added {
				added = append(added, run.Added{Spec: fmt.Sprintf("spec%d", i), Policy: p})
			}
			var warn bytes.Buffer
			got, err := run.With(context.Background(), launcher(&warn), added, []string{"TS", "KL-UCB"})
			if tc.err == "" {
				if err != nil || len(got) != len(tc.added) {
					t.Fatalf("got %v, %v; want the policies", got, err)
				}
				return
			}
			var opt *run.OptionError
			if !errors.As(err, &opt) || opt.Option != run.OptWith || !strings.HasPrefix(opt.Value, `"spec`) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want an OptionError of With naming the spec and %q", err, tc.err)
			}
		})
	}
}

// TestAudit: a policy whose replications are each their own bandit
// problem passes the audit; one that pools them fails it, with
// engine.ErrPolicyFailed, and the file records what was replayed.
func TestAudit(t *testing.T) {
	t.Parallel()
	sc := parse(t, `
name: pool
environment: {means: [0.5, 0.45, 0.4], noise_sd: 1}
horizon: 300
runs: 16
seed: 7
policies: [{plugin: ts, label: TS}, {plugin: cheat-pool, label: Pool}]
`)
	var stderr bytes.Buffer
	f, err := run.Plan(context.Background(), sc, run.Options{Launch: launcher(&stderr), Stderr: &stderr, Audit: 2})
	if !errors.Is(err, engine.ErrPolicyFailed) || f == nil {
		t.Fatalf("Plan --audit: %v, want a policy failure\n%s", err, stderr.String())
	}
	ts, pool := f.Policy("TS"), f.Policy("Pool")
	if ts.Status != results.StatusOK || ts.Audit == nil || !ts.Audit.OK || len(ts.Audit.Replications) != 2 {
		t.Errorf("TS: %s, audit %+v; want ok over 2 replications", ts.Status, ts.Audit)
	}
	if pool.Status != results.StatusFailed || pool.Audit == nil || pool.Audit.OK || !strings.Contains(pool.Error, "depend on the other replications") {
		t.Errorf("Pool: %s, audit %+v, error %q; want failed by the audit", pool.Status, pool.Audit, pool.Error)
	}
}

// TestPaperExperiments: a remaxgrad_* sweep is two experiments, its own
// and its base instance's (the shared rows, described as the base
// scenario is); another scenario is one.
func TestPaperExperiments(t *testing.T) {
	t.Parallel()
	for i, pr := range run.PaperRuns {
		sc, err := scenario.Named(pr.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		f := &results.File{Scenario: results.Scenario{Name: pr.Scenario, Description: sc.Description}}
		for _, l := range run.Labels(sc) {
			f.Policies = append(f.Policies, &results.Policy{Label: l})
		}
		es := run.PaperExperiments(i, f, nil, compareDefaults)
		if es[0].Name != pr.Scenario || es[0].File != f || es[0].Comparison != nil {
			t.Errorf("%s: first experiment %+v, want the scenario's own", pr.Scenario, es[0])
		}
		if pr.Base == "" {
			if len(es) != 1 {
				t.Errorf("%s: %d experiments, want 1", pr.Scenario, len(es))
			}
			continue
		}
		if len(es) != 2 {
			t.Fatalf("%s: %d experiments, want 2", pr.Scenario, len(es))
		}
		b := es[1]
		base, _ := scenario.Named(pr.Base)
		var got []string
		for _, p := range b.File.Policies {
			got = append(got, p.Label)
		}
		if b.Name != pr.Base || b.File.Scenario.Name != pr.Base || fmt.Sprint(got) != fmt.Sprint(run.PaperBaseLabels) ||
			b.Page.Scenario.Description != base.Description || b.File.Scenario.Description != "" {
			t.Errorf("%s: base experiment %q rows %v, page %q; want %s's rows %v described as %q",
				pr.Scenario, b.Name, got, b.Page.Scenario.Description, pr.Base, run.PaperBaseLabels, base.Description)
		}
	}
}
