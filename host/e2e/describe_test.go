package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
)

// describeDir returns a fresh plugin directory holding the named shipped
// plugins and, for each of links, the file links[name] (a shipped plugin's
// name, or "faulty" for testdata/faulty) as bench-plugin-NAME.
func describeDir(t *testing.T, shipped []string, links map[string]string) string {
	t.Helper()
	dir := freshPluginDir(t, shipped...)
	for name, src := range links {
		path := filepath.Join(binDir, "plugins", "bench-plugin-"+src)
		if src == "faulty" {
			path = filepath.Join(faultyPlugins(t), "faulty.bin")
		}
		linkOrCopy(t, path, filepath.Join(dir, "bench-plugin-"+name))
	}
	return dir
}

// TestParamRangesBeforeRun: a scenario value outside the range a plugin
// declares is refused (exit 2) before any session of any policy opens,
// naming the label, the parameter, the value and the range; values on the
// bounds run.
func TestParamRangesBeforeRun(t *testing.T) {
	t.Parallel()
	dir := describeDir(t, []string{"remaxgrad"}, map[string]string{"faulty-spy": "faulty"})
	for _, c := range []struct {
		name   string
		params string
		want   []string // in stderr; none: the run succeeds
	}{
		{"m below 2", "{m: 1}", []string{`parameter "m" = 1: want in [2, 100]`}},
		{"samples negative", "{samples: -5}", []string{`parameter "samples" = -5: want in [1, 1000]`}},
		{"both, in one message", "{m: 1, samples: -5}", []string{`parameter "m" = 1: want in [2, 100]; parameter "samples" = -5: want in [1, 1000]`}},
		{"lr on its exclusive bound", "{lr: 0}", []string{`parameter "lr" = 0: want > 0`}},
		{"variance_inflation beyond its max", "{variance_inflation: 1e301}", []string{`parameter "variance_inflation" = 1e+301: want in (0, 1e+300]`}},
		{"samples beyond its max", "{samples: 1e8}", []string{`parameter "samples" = 1e+08: want in [1, 1000]`}},
		{"m beyond its max", "{m: 1e9}", []string{`parameter "m" = 1e+09: want in [2, 100]`}},
		{"on the inclusive bounds", "{m: 2, samples: 1, steps: 0, tol: 0}", nil},
		{"on the upper bounds", "{m: 100, samples: 1000, steps: 1}", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spy := filepath.Join(t.TempDir(), "spy.jsonl")
			out := filepath.Join(t.TempDir(), "r.json")
			sc := writeFile(t, "ranges.yaml", fmt.Sprintf(`
name: ranges
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 10
runs: 2
seed: 1
policies:
  - {plugin: faulty-spy, label: Spy}
  - {plugin: remaxgrad, label: RMG, params: %s}
`, c.params))
			// The spy writes to the test's file: unconfined.
			_, stderr, code := benchEnv(t, []string{"FAULTY_SPY_FILE=" + spy}, "--plugin-dir", dir, "--sandbox", "off", "--scenario", sc, "--out", out, "-q")
			_, spyErr := os.Stat(spy)
			if c.want == nil {
				if code != 0 || spyErr != nil {
					t.Fatalf("exit %d, spy file: %v; stderr:\n%s", code, spyErr, stderr)
				}
				return
			}
			if code != cli.ExitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInput, stderr)
			}
			for _, w := range append([]string{"ranges.yaml", `policies[1] "RMG"`, "plugin remaxgrad"}, c.want...) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if spyErr == nil {
				t.Errorf("the Spy policy opened a session before the bad value was refused")
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused run wrote %s", out)
			}
			assertNoPluginsIn(t, dir) // its own: the others run in parallel
		})
	}
}

// TestPluginsListing: `bench plugins` lists every plugin with the values
// its parameters accept, marks a plugin that cannot describe itself (or
// declares what bench cannot use) FAILED while listing the others, exits 3
// then, and warns of a plugin whose Describe name is not its file's.
func TestPluginsListing(t *testing.T) {
	for _, c := range []struct {
		name    string
		shipped []string
		links   map[string]string
		code    int
		stdout  []string
		not     []string // not in stdout
		stderr  []string
	}{
		{"healthy", []string{"ts", "remaxgrad"}, nil, 0,
			[]string{"\nremaxgrad 1.0.0", "\nts 1.0.0", "values in [2, 100] ", "values in [1, 1000] ", "values in (0, 1e+300] ", "inflation            float  default 1        values > 0 "},
			[]string{"FAILED", "warning"}, nil},
		{"one fails to start, one declares garbage", []string{"ts", "remaxgrad"},
			map[string]string{"faulty-exit-early": "faulty", "faulty-complex": "faulty"}, cli.ExitPolicy,
			[]string{"\nremaxgrad 1.0.0", "\nts 1.0.0", "values in [2, 100] ",
				"\nfaulty-exit-early  FAILED  (", "faulty exit-early: cannot load my model file",
				"\nfaulty-complex  FAILED  (", `its Describe declares what bench cannot use: parameter "z": unknown type "complex"`},
			nil, []string{"2 of 4 plugin(s) FAILED", "faulty-complex, faulty-exit-early"}},
		{"a renamed copy", []string{"ts"}, map[string]string{"ts-old": "ts"}, 0,
			[]string{"\nts 1.0.0", "\nts-old 1.0.0", `warning: it describes itself as "ts", not "ts-old"`},
			[]string{"FAILED"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := describeDir(t, c.shipped, c.links)
			stdout, stderr, code := bench(t, "--plugin-dir", dir, "plugins")
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range c.not {
				if strings.Contains(stdout, w) {
					t.Errorf("stdout has %q:\n%s", w, stdout)
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			assertNoPlugins(t)
		})
	}
}

// TestNameMismatchWarning: a run through a plugin whose Describe name is
// not its file's name warns on stderr and still runs it, recording the
// scenario's name; a matching name gives no warning.
func TestNameMismatchWarning(t *testing.T) {
	t.Parallel()
	dir := describeDir(t, []string{"ts"}, map[string]string{"ts-old": "ts"})
	for _, c := range []struct {
		plugin string
		warn   bool
	}{{"ts-old", true}, {"ts", false}} {
		t.Run(c.plugin, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			sc := writeFile(t, "renamed.yaml", fmt.Sprintf(`
name: renamed
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 10
runs: 2
policies: [{plugin: %s, label: TS}]
`, c.plugin))
			_, stderr, code := bench(t, "--plugin-dir", dir, "--scenario", sc, "--out", out, "-q")
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			want := fmt.Sprintf(`bench: warning: plugin %s: it describes itself as "ts", not "ts-old"`, filepath.Join(dir, "bench-plugin-ts-old"))
			if got := strings.Contains(stderr, want); got != c.warn {
				t.Errorf("warning %v, want %v; stderr:\n%s", got, c.warn, stderr)
			}
			if p := policyByLabel(readResults(t, out), "TS"); p == nil || p.Plugin != c.plugin {
				t.Errorf("results record %+v, want plugin %q", p, c.plugin)
			}
		})
	}
}
