package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/internal/termsafe/termsafetest"
	"github.com/regretbench/regretbench/host/results"
)

// hostileText is what testdata/faulty's hostile-* modes put in every
// string they declare or send; hostileShown is how bench shows it.
const (
	hostileText  = termsafetest.Hostile
	hostileShown = termsafetest.Shown
)

// checkShown fails the test when out holds a raw control character, or
// lacks any of want.
var checkShown = termsafetest.Check

// hostileDir returns a plugin directory with the hostile plugins and ts.
func hostileDir(t *testing.T) string {
	return ownPlugins(t, faultyPlugins(t), "faulty-hostile-open", "faulty-hostile-step", "faulty-hostile-crash", "faulty-hostile-sdk", "ts")
}

// TestHostilePluginText: what a plugin declares (version, SDK string,
// parameter docs, string defaults) and sends (Open and Step errors, on
// gRPC and on the step socket, and its stderr) reaches the terminal
// escaped in bench plugins, in a run's tables and messages in every
// terminal format, and in bench conform; a scenario's name is escaped in
// the tables' title line. The results file keeps the raw strings.
// Before, ESC ] 0 ; pwned BEL retitled the terminal and ESC [ 2 J
// cleared it.
func TestHostilePluginText(t *testing.T) {
	skipShort(t, "a hostile plugin's text escaped in every command and format")
	t.Parallel() // with plugins of its own: see ownPlugins
	dir := hostileDir(t)
	defer assertNoPluginsIn(t, dir)

	t.Run("plugins", func(t *testing.T) {
		stdout, stderr, code := bench(t, "--plugin-dir", dir, "plugins")
		if code != 0 {
			t.Errorf("exit %d; stderr:\n%s", code, stderr)
		}
		checkShown(t, "bench plugins stdout", stdout,
			"faulty-hostile-open 0.0.1"+hostileShown,
			"regretbench-go/0.1.0"+hostileShown,
			"default plain"+hostileShown,
			"how to draw"+hostileShown)
		checkShown(t, "bench plugins stderr", stderr)
	})

	sc := writeFile(t, "hostile.yaml", `
name: "tricky\e]0;pwned\a\e[2J\u202e\x9b"
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 20
runs: 3
seed: 1
policies:
  - {plugin: faulty-hostile-open, label: Open}
  - {plugin: faulty-hostile-step, label: Step}
  - {plugin: faulty-hostile-crash, label: Crash}
  - {plugin: ts, label: "TS\u202e"}
`)
	out := filepath.Join(t.TempDir(), "r.json")
	for _, format := range []string{"table", "markdown"} {
		t.Run("run "+format, func(t *testing.T) {
			args := []string{"--plugin-dir", dir, "--scenario", sc, "--format", format}
			if format == "table" {
				args = append(args, "--out", out)
			}
			stdout, stderr, code := bench(t, args...)
			if code != cli.ExitPolicy {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitPolicy, stderr)
			}
			title, label := "tricky"+hostileShown, `TS\u202e`
			if format == "markdown" { // where a backslash is escaped too
				title, label = strings.ReplaceAll(title, `\`, `\\`), strings.ReplaceAll(label, `\`, `\\`)
			}
			checkShown(t, "run stdout", stdout, title, label)
			checkShown(t, "run stderr", stderr,
				"cannot open "+hostileShown,            // from Open, on gRPC
				"diverged "+hostileShown+" at round 5", // from Step, on the step socket
				// each stderr line quoted on a line of its own
				"\n    faulty hostile-crash: round 5: "+hostileShown+"\n",
				"\n    faulty hostile-crash: round 5 again\\r"+hostileShown+`\xff`+"\n")
		})
	}

	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Scenario.Name != "tricky"+hostileText {
		t.Errorf("results file: scenario name %q, want the raw %q", f.Scenario.Name, "tricky"+hostileText)
	}
	for _, l := range []string{"Open", "Step"} {
		if p := f.Policy(l); p == nil || !strings.Contains(p.Error, hostileText) || p.PluginVersion != "0.0.1"+hostileText {
			t.Errorf("results file: policy %s does not keep the raw texts: %+v", l, p)
		}
	}

	t.Run("conform", func(t *testing.T) {
		stdout, stderr, code := bench(t, "--plugin-dir", dir, "conform", "--quick", "faulty-hostile-open")
		if code != cli.ExitFailure {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitFailure, stderr)
		}
		checkShown(t, "conform stdout", stdout, "cannot open "+hostileShown)
		checkShown(t, "conform stderr", stderr)
	})
}

// TestHostileResultsText: labels, scenario names, plugin names and errors
// in results files from elsewhere reach the terminal escaped: in bench
// gate's tables (table and markdown) and messages, in bench report's and
// bench merge's errors, and in bench plot's list of figures.
func TestHostileResultsText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A real run of three policies, sharded in two, then doctored.
	sc := writeFile(t, "s.yaml", `
name: plain
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 40
runs: 4
seed: 3
policies:
  - {plugin: ts, label: A}
  - {plugin: ts, label: B, params: {inflation: 2}}
`)
	var parts []string
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.json", i))
		if _, stderr, code := bench(t, "--scenario", sc, "--shard", fmt.Sprintf("%d/2", i), "--out", p, "-q"); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, code, stderr)
		}
		parts = append(parts, p)
	}
	doctor := func(src, name string, edit func(*results.File)) string {
		f, err := results.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		edit(f)
		path := filepath.Join(dir, name)
		if err := f.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	hostile := func(f *results.File) {
		f.Scenario.Name = "tricky" + hostileText
		f.Policies[0].Label = "A" + hostileText
		b := f.Policies[1]
		b.Label = "B" + hostileText
		b.Status, b.Error = results.StatusFailed, "it broke: "+hostileText+"\n  plugin stderr (last lines):\n    "+hostileText
		f.Policies[1] = &results.Policy{Label: b.Label, Plugin: b.Plugin, PluginVersion: b.PluginVersion, Params: b.Params, Status: b.Status, Error: b.Error}
	}
	base := doctor(parts[0], "base.json", hostile)
	cur := doctor(parts[1], "cur.json", hostile)
	plain := filepath.Join(dir, "all.json")
	if _, stderr, code := bench(t, "merge", parts[0], parts[1], "--out", plain); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	diag := doctor(plain, "diag.json", func(f *results.File) {
		f.Scenario.Name = "tricky" + hostileText
		f.Policies[0].Diagnostics = map[string]results.DiagSeries{"d" + hostileText: {Checkpoints: []int{40}, Mean: []float64{1, 2}, SE: []float64{1}}}
	})
	plugin := doctor(parts[1], "plugin.json", func(f *results.File) { f.Policies[0].Plugin = "ts" + hostileText })
	named := doctor(plain, "named.json", func(f *results.File) { f.Scenario.Name = "tricky" + hostileText })

	for _, tc := range []struct {
		name string
		args []string
		code int
		// in stdout, in stderr
		stdout, stderr []string
	}{
		{"gate table", []string{"gate", base, cur}, cli.ExitPolicy,
			[]string{"A" + hostileShown, "it broke: " + hostileShown},
			[]string{`policy "B\x1b]0;pwned\a\x1b[2J\u202e\u009b" failed in`, "it broke: " + hostileShown}},
		{"gate markdown", []string{"gate", base, cur, "--format", "markdown"}, cli.ExitPolicy,
			[]string{"A" + strings.ReplaceAll(hostileShown, `\`, `\\`)}, nil},
		{"report", []string{"report", diag, "--out", filepath.Join(dir, "r.html")}, cli.ExitInput,
			nil, []string{"diagnostics.d" + hostileShown}},
		{"merge", []string{"merge", parts[0], plugin, "--out", filepath.Join(dir, "m.json")}, cli.ExitInput,
			nil, []string{"ts" + hostileShown}},
		{"plot", []string{"plot", named, "--out", filepath.Join(dir, "figs"), "--format", "svg"}, 0, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := bench(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			checkShown(t, tc.name+" stdout", stdout, tc.stdout...)
			checkShown(t, tc.name+" stderr", stderr, tc.stderr...)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
		t.Errorf("merge wrote its output despite the error")
	}
}
