package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// TestExternalGoPlugin is the third-party path end to end: a plugin built
// from its own module (examples/ucb1) is dropped into the plugin directory
// of an installed bench and runs next to the shipped plugins, without
// rebuilding bench. It also checks the plugin identity recorded in results
// and the sha256 pin.
func TestExternalGoPlugin(t *testing.T) {
	skipShort(t, "an installed bench running examples/ucb1 built from its own module")
	t.Parallel()
	// An installed bench: the executable with plugins/ beside it.
	inst := t.TempDir()
	benchExe := filepath.Join(inst, "bench")
	linkOrCopy(t, filepath.Join(binDir, "bench"), benchExe)
	plugins := filepath.Join(inst, "plugins")
	for _, n := range []string{"ts", "klucb"} {
		linkOrCopy(t, filepath.Join(binDir, "plugins", "bench-plugin-"+n), filepath.Join(plugins, "bench-plugin-"+n))
	}
	benchSum := fileSHA256(t, benchExe)

	// Build the example from its own module, as its author would.
	ucb1 := filepath.Join(plugins, "bench-plugin-ucb1-example")
	linkOrCopy(t, ucb1Plugin(t), ucb1)
	ucb1Sum := fileSHA256(t, ucb1)

	// means [1, 0.5, 0]: uniform play loses (0 + 0.5 + 1)/3 = 0.5 a round.
	const horizon = 2000
	uniform := 0.5 * horizon
	scen := writeFile(t, "ext.yaml", `
name: external
environment: {means: [1, 0.5, 0], noise_sd: 1}
horizon: 2000
runs: 40
seed: 5
policies:
  - {plugin: ucb1-example, label: UCB1}
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB}
`)
	out := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(benchExe, "--scenario", scen, "--out", out, "--quiet")
	cmd.Dir = t.TempDir()
	stdout, err := output(t, cmd)
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, stderrOf(err))
	}
	if !strings.Contains(string(stdout), "UCB1") {
		t.Errorf("the regret table lacks UCB1:\n%s", stdout)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Policies) != 3 {
		t.Fatalf("%d policies in the results, want 3", len(f.Policies))
	}
	for _, p := range f.Policies {
		final := p.Final["regret"]
		if len(final) != 40 {
			t.Fatalf("%s: %d final regrets, want 40", p.Label, len(final))
		}
		mean := 0.0
		for _, r := range final {
			mean += r / float64(len(final))
		}
		// A sane learner is far below uniform play (UCB1's bound here is
		// a few hundred at most); above a quarter of it something is off.
		if !(mean > 0 && mean < uniform/4) {
			t.Errorf("%s: mean final regret %.1f, want in (0, %.0f); uniform play gives %.0f", p.Label, mean, uniform/4, uniform)
		}
		want := fileSHA256(t, filepath.Join(plugins, "bench-plugin-"+p.Plugin))
		if p.PluginSHA256 != want {
			t.Errorf("%s: plugin_sha256 %q, want the SHA-256 of its binary %s", p.Label, p.PluginSHA256, want)
		}
	}
	if p := f.Policies[0]; p.Plugin != "ucb1-example" || p.PluginVersion != "0.1.0" || p.PluginSHA256 != ucb1Sum {
		t.Errorf("ucb1-example identity recorded as plugin %q version %q sha256 %q", p.Plugin, p.PluginVersion, p.PluginSHA256)
	}
	if got := fileSHA256(t, benchExe); got != benchSum {
		t.Errorf("bench changed: SHA-256 %s, was %s before the plugin was added", got, benchSum)
	}

	t.Run("pinned sha256", func(t *testing.T) {
		pinned := func(sum string) string {
			return writeFile(t, "pin.yaml", `
environment: {means: [1, 0.5, 0], noise_sd: 1}
horizon: 100
runs: 2
policies: [{plugin: ucb1-example, label: UCB1, sha256: "`+sum+`"}]
`)
		}
		_, stderr, code := bench(t, "--plugin-dir", plugins, "--scenario", pinned(ucb1Sum), "--quiet")
		if code != 0 {
			t.Fatalf("the right pin: exit %d\n%s", code, stderr)
		}
		wrong := strings.Repeat("0", 64)
		_, stderr, code = bench(t, "--plugin-dir", plugins, "--scenario", pinned(wrong), "--quiet")
		if code != cli.ExitInput {
			t.Errorf("a wrong pin: exit %d, want %d\n%s", code, cli.ExitInput, stderr)
		}
		for _, w := range []string{"bench-plugin-ucb1-example", ucb1Sum, wrong, "sha256", "refusing"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("a wrong pin: stderr lacks %q:\n%s", w, stderr)
			}
		}
	})
}

// stderrOf returns the stderr captured in an *exec.ExitError.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestRecordedSHA256 checks the identity of the shipped plugins in a
// results file written by the in-process CLI.
func TestRecordedSHA256(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r.json")
	if _, stderr, code := bench(t, "--scenario", "quick", "--runs", "2", "--horizon", "50", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Policies {
		path := filepath.Join(binDir, "plugins", "bench-plugin-"+p.Plugin)
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s: %v", p.Label, err)
		}
		if want := fileSHA256(t, path); p.PluginSHA256 != want || p.PluginVersion == "" {
			t.Errorf("%s: plugin_version %q plugin_sha256 %q, want a version and %s", p.Label, p.PluginVersion, p.PluginSHA256, want)
		}
	}
}
