//go:build linux

package e2e_test

// The adversary's side of contextual scenarios (docs/threat-model.md,
// "Contextual scenarios"; docs/contextual.md, "Sealed runs" and "Private
// datasets"): a real cheating plugin (testdata/cheat/ctxlookup), built on
// the public SDK and the public package host/dataset, run by the real
// bench executable. It finds the row it is shown in its own copy of the
// data and answers that row's class. Each test has teeth: where nothing
// stops it (no sandbox, an integer seed) the cheat plays without regret.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/dataset"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/testbin"
)

var (
	ctxCheatOnce sync.Once
	ctxCheatErr  error
)

// ctxCheatDir returns a new plugin directory holding only the
// cheat-ctx-lookup and cheat-ctx-pool plugins, built once. The data it is to read and the
// scenario files go elsewhere: a sandboxed plugin may read its own
// directory.
func ctxCheatDir(t *testing.T) string {
	t.Helper()
	built := filepath.Join(binDir, "ctxcheat")
	ctxCheatOnce.Do(func() {
		ctxCheatErr = testbin.Build(built, testbin.Options{},
			testbin.Main{Pkg: "./testdata/cheat/ctxlookup", Name: "bench-plugin-cheat-ctx-lookup"},
			testbin.Main{Pkg: "./testdata/cheat/ctxpool", Name: "bench-plugin-cheat-ctx-pool"})
	})
	if ctxCheatErr != nil {
		t.Fatal(ctxCheatErr)
	}
	dir := filepath.Join(t.TempDir(), "plugins")
	for _, n := range []string{"cheat-ctx-lookup", "cheat-ctx-pool"} {
		linkOrCopy(t, filepath.Join(built, "bench-plugin-"+n), filepath.Join(dir, "bench-plugin-"+n))
	}
	return dir
}

// runCtxCheat runs argv (bench and its sandbox arguments) on the scenario
// text with the plugin directory dir and more arguments, and returns the
// results file.
func runCtxCheat(t *testing.T, argv []string, dir, text string, more ...string) *results.File {
	t.Helper()
	f, code, stderr := runCtxCheatCode(t, argv, dir, text, more...)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	return f
}

// runCtxCheatCode is runCtxCheat for a run that may fail a policy: it
// returns the exit code and stderr too.
func runCtxCheatCode(t *testing.T, argv []string, dir, text string, more ...string) (*results.File, int, string) {
	t.Helper()
	sc := writeFile(t, "s.yaml", text)
	out := filepath.Join(t.TempDir(), "r.json")
	args := append(append(argv, "--plugin-dir", dir, "--scenario", sc, "--out", out, "-q"), more...)
	b := startBench(t, nil, args...)
	code := b.exit(t, cmdLimit)
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("%s: exit %d, no results file; stderr:\n%s", strings.Join(args, " "), code, b.stderr.String())
	}
	return readResults(t, out), code, b.stderr.String()
}

// writePrivateCSV writes a private dataset of 200 rows, 5 features and
// the labels 10, 20, 30 and 40 drawn at random (no policy can learn them
// from the features), to a directory of its own, and returns its path.
func writePrivateCSV(t *testing.T) string {
	t.Helper()
	r := rand.New(rand.NewPCG(36, 1))
	var b strings.Builder
	b.WriteString("a,b,c,d,e,label\n")
	for range 200 {
		for range 5 {
			fmt.Fprintf(&b, "%.3f,", r.NormFloat64())
		}
		fmt.Fprintf(&b, "%d\n", 10*(1+r.IntN(4)))
	}
	path := filepath.Join(t.TempDir(), "private.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestContextualSandboxPrivateFile: a plugin that is told the absolute
// path of the scenario's private dataset file (dataset_file), reads it
// and looks up each context's class plays without regret when nothing
// confines it (--sandbox off: the test's teeth); under the sandbox, the
// default level (auto), strict and the landlock+seccomp fallback, its
// open fails (EACCES from Landlock, or ENOENT where the file is not in
// its mount namespace), it finds no row and its regret is that of a
// constant arm.
func TestContextualSandboxPrivateFile(t *testing.T) {
	skipShort(t, "the sandbox against a plugin reading a private dataset file")
	t.Parallel()
	csv := writePrivateCSV(t)
	const horizon, runs = 150, 4
	text := fmt.Sprintf(`
name: private_ctx
context: {dataset_file: %q}
horizon: %d
runs: %d
seed: 7
policies: [{plugin: cheat-ctx-lookup, label: Cheat, params: {path: %q}}]
`, csv, horizon, runs, csv)
	for _, level := range []string{"off", "auto", "strict", "fallback"} {
		t.Run(level, func(t *testing.T) {
			t.Parallel()
			var argv []string
			if level == "auto" {
				argv = []string{filepath.Join(binDir, "bench")} // the default: no --sandbox
			} else {
				argv = benchAt(t, level)
			}
			f := runCtxCheat(t, argv, ctxCheatDir(t), text)
			p := policyByLabel(f, "Cheat")
			regret := finalRegret(t, p)
			loaded, errno, found := lastDiag(t, p, "loaded"), lastDiag(t, p, "errno"), lastDiag(t, p, "found")
			t.Logf("regret %.2f of %d rounds; loaded %v, errno %v, found %v; sandbox %q", regret, horizon, loaded, errno, found, p.Sandbox)
			if level == "off" {
				if loaded != 1 || found != 1 || regret != 0 {
					t.Errorf("without a sandbox the cheat should read the file and find every row (the test's teeth): loaded %v, found %v, regret %v",
						loaded, found, regret)
				}
				return
			}
			if loaded != 0 || found != 0 {
				t.Errorf("under the %s sandbox the cheat read the private file: loaded %v, found %v, regret %v", level, loaded, found, regret)
			}
			if e := syscall.Errno(errno); e != syscall.EACCES && e != syscall.ENOENT {
				t.Errorf("under the %s sandbox the open failed with errno %v (%v), want EACCES or ENOENT", level, errno, e)
			}
			if regret < 0.5*horizon {
				t.Errorf("under the %s sandbox the cheat's regret is %.2f of %d rounds: it learned something (a constant arm loses about 3/4 of them)", level, regret, horizon)
			}
		})
	}
}

// TestContextualSandboxSealed: a plugin that carries the public iris
// dataset (through host/dataset, standardised as bench does) and finds
// each context in it, under the default sandbox (which cannot help: the
// data is the plugin's own).
//
//   - exact: a table keyed by the rows' exact values. With an integer
//     seed it finds every row and plays without regret (the teeth);
//     sealed (--seed random: the features rotated, the classes
//     relabelled, per replication) it finds no row and plays arm 0,
//     whose regret is that of chance (2/3 of the rounds on iris).
//   - norm: the row of the nearest Euclidean norm, which the sealed
//     transform keeps, and the relabelling learned from its first
//     rewards. It wins sealed too: this pins the limit that
//     docs/contextual.md and docs/threat-model.md state (a sealed run
//     keeps norms, so a determined plugin recovers the labels of a
//     public dataset). A transform that hid norms would make this half
//     fail, and the docs would have to say what it hides now.
func TestContextualSandboxSealed(t *testing.T) {
	skipShort(t, "sealed runs against plugins that carry a public dataset")
	t.Parallel()
	const horizon, runs = 150, 4
	text := fmt.Sprintf(`
name: iris_cheat
context: {dataset: iris}
horizon: %d
runs: %d
seed: 3
policies:
  - {plugin: cheat-ctx-lookup, label: Exact, params: {dataset: iris, match: exact}}
  - {plugin: cheat-ctx-lookup, label: Norm, params: {dataset: iris, match: norm}}
`, horizon, runs)
	for _, c := range []struct {
		name   string
		args   []string
		sealed bool
	}{
		{"seed 3", nil, false},
		{"seed random", []string{"--seed", "random"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := runCtxCheat(t, []string{filepath.Join(binDir, "bench")}, ctxCheatDir(t), text, c.args...)
			if got, want := f.Scenario.Streams, map[bool]string{false: "ctx-sha256-v1", true: "ctx-hmac-sha256-v1"}[c.sealed]; got != want {
				t.Errorf("streams %q, want %q", got, want)
			}
			exact, norm := policyByLabel(f, "Exact"), policyByLabel(f, "Norm")
			re, rn := finalRegret(t, exact), finalRegret(t, norm)
			fe, fn := lastDiag(t, exact, "found"), lastDiag(t, norm, "found")
			t.Logf("exact: regret %.2f, found %.3f; norm: regret %.2f, found %.3f (of %d rounds)", re, fe, rn, fn, horizon)
			if lastDiag(t, exact, "loaded") != 1 || lastDiag(t, norm, "loaded") != 1 {
				t.Fatalf("the cheat could not load its own copy of iris")
			}
			if !c.sealed {
				if fe != 1 || re != 0 {
					t.Errorf("exact lookup, integer seed: found %v, regret %v; want every row found and no regret (the test's teeth)", fe, re)
				}
			} else if fe != 0 || re < 0.6*horizon {
				t.Errorf("exact lookup, sealed: found %v, regret %.2f; want no row found and the regret of chance or worse (%.0f)", fe, re, 2.0/3*horizon)
			}
			// The norm cheat wins either way: a sealed run keeps norms.
			if fn < 0.95 || rn > 0.05*horizon {
				t.Errorf("norm matching (%s): found %v, regret %.2f of %d rounds; want about every row matched and a few rounds lost "+
					"(if a stronger sealed transform now hides norms, update docs/contextual.md and docs/threat-model.md and this test)",
					c.name, fn, rn, horizon)
			}
		})
	}
}

// TestContextualSandboxNormsIdentify: on every shipped dataset,
// standardised as bench plays it, a row's Euclidean norm alone gives its
// class for all but a few rows (no row of another class has the same
// norm within 1e-9 relative; measured: 2 rows each of dna, shuttle and
// soybean, none elsewhere). A sealed run keeps norms, so what
// TestContextualSandboxSealed shows on iris holds on every shipped
// dataset: docs/threat-model.md says so, and this test pins it.
func TestContextualSandboxNormsIdentify(t *testing.T) {
	t.Parallel()
	type row struct {
		norm  float64
		class int
	}
	for _, name := range dataset.Names() {
		d, err := dataset.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		d.Standardize()
		rows := make([]row, d.N)
		for i := range d.N {
			var s float64
			for _, v := range d.Row(i) {
				s += v * v
			}
			rows[i] = row{math.Sqrt(s), d.Y[i]}
		}
		sort.Slice(rows, func(i, j int) bool { return rows[i].norm < rows[j].norm })
		ambiguous := 0
		for i, r := range rows {
			tol := 1e-9 * math.Max(1, r.norm)
			clash := false
			for j := i - 1; j >= 0 && r.norm-rows[j].norm <= tol && !clash; j-- {
				clash = rows[j].class != r.class
			}
			for j := i + 1; j < len(rows) && rows[j].norm-r.norm <= tol && !clash; j++ {
				clash = rows[j].class != r.class
			}
			if clash {
				ambiguous++
			}
		}
		t.Logf("%s: %d of %d rows share their norm with a row of another class", name, ambiguous, d.N)
		if ambiguous > d.N/100 {
			t.Errorf("%s: %d of %d rows share their norm with a row of another class; docs/threat-model.md says a norm gives the class of nearly every row", name, ambiguous, d.N)
		}
	}
}

// TestContextualSandboxPool: a plugin that carries no data and reads
// nothing (testdata/cheat/ctxpool) but pools what the replications of its
// batch learn: every replication plays the same rows, a sealed run keeps
// each row's norm, and rows of one class in one replication are of one
// class in all. On a private file whose labels are drawn at random (no
// policy can do better than chance from the features, and each
// replication meets each row once), under the default sandbox and
// --seed random, it beats chance by far with --audit 0 (the teeth):
// neither the sandbox, the private file nor the sealing stops it. The
// audit, on by default in every contextual run, replays replications alone and
// fails it.
func TestContextualSandboxPool(t *testing.T) {
	skipShort(t, "a plugin pooling replications of a private dataset")
	t.Parallel()
	csv := writePrivateCSV(t)
	const horizon, runs = 150, 20
	text := fmt.Sprintf(`
name: private_pool
context: {dataset_file: %q}
horizon: %d
runs: %d
seed: 7
policies: [{plugin: cheat-ctx-pool, label: Pool}]
`, csv, horizon, runs)
	for _, c := range []struct {
		name    string
		args    []string
		audited bool
	}{
		{"sealed, unaudited", []string{"--seed", "random", "--audit", "0"}, false},
		{"sealed, default audit", []string{"--seed", "random"}, true},
		// A contextual scenario is audited by default whatever its seed:
		// checked below by the audit's recorded reason, not by a failure
		// (the cheat's gain in an open run is not what this pins).
		{"open, default audit", []string{"--seed", "5"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, code, stderr := runCtxCheatCode(t, []string{filepath.Join(binDir, "bench")}, ctxCheatDir(t), text, c.args...)
			p := policyByLabel(f, "Pool")
			if p == nil || len(p.Regret.Mean) == 0 {
				t.Fatalf("no regret for Pool (exit %d); stderr:\n%s", code, stderr)
			}
			regret := p.Regret.Mean[len(p.Regret.Mean)-1]
			t.Logf("exit %d; Pool: %s, regret %.2f of %d rounds, audit %+v", code, p.Status, regret, horizon, p.Audit)
			if c.args[1] != "random" {
				if p.Audit == nil || !strings.HasPrefix(p.Audit.Default, "a contextual scenario") {
					t.Fatalf("an open contextual run was not audited by default: audit %+v; stderr:\n%s", p.Audit, stderr)
				}
				if regret < 0.5*horizon && (code != cli.ExitPolicy || p.Audit.OK) {
					t.Errorf("the pooling plugin beat chance (regret %.2f of %d) and passed the audit: exit %d, audit %+v", regret, horizon, code, p.Audit)
				}
				return
			}
			if !c.audited {
				if code != 0 || p.Status != results.StatusOK {
					t.Fatalf("exit %d, Pool %s; stderr:\n%s", code, p.Status, stderr)
				}
				pooled := lastDiag(t, p, "pooled")
				t.Logf("%.2f of the rounds answered from the pool", pooled)
				if regret > 0.5*horizon || pooled < 0.2 {
					t.Errorf("pooling should beat chance (about 3/4 of the rounds lost) by far: regret %.2f of %d rounds, %.2f of the rounds answered from the pool",
						regret, horizon, pooled)
				}
				return
			}
			if code != cli.ExitPolicy || p.Status != results.StatusFailed || p.Audit == nil || p.Audit.OK {
				t.Errorf("the default audit of a contextual run should fail the pooling plugin: exit %d (want %d), %s, audit %+v; stderr:\n%s",
					code, cli.ExitPolicy, p.Status, p.Audit, stderr)
			}
		})
	}
}
