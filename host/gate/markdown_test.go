package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// TestWriteMarkdownGolden compares the pull-request comment with
// testdata/markdown.golden (go test -update rewrites it): files named
// relative to the working directory although given as absolute paths, the
// verdict sentence under the heading, and what changed between the runs
// (bench version, plugin version, SHA-256, parameters); then the same for
// a sequential gate.
func TestWriteMarkdownGolden(t *testing.T) {
	const n = 50
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	base := baseValues(n)
	withMeta := func(p *results.Policy, version, sum string, params map[string]any) *results.Policy {
		p.Plugin, p.PluginVersion, p.PluginSHA256, p.Params = "ts", version, sum, params
		return p
	}
	b := file(1, n,
		withMeta(policy("TS", base), "1.0.0", strings.Repeat("ab", 32), map[string]any{"inflation": 1.0}),
		withMeta(policy("control", base), "1.0.0", strings.Repeat("ab", 32), map[string]any{}))
	c := file(1, n,
		withMeta(policy("TS", plus(base, exact(n, 20, 10))), "1.1.0", strings.Repeat("cd", 32), map[string]any{"inflation": 1.2}),
		withMeta(policy("control", base), "1.0.0", strings.Repeat("ab", 32), map[string]any{}))
	b.Bench, c.Bench = &results.BenchInfo{Version: "v0.9.0"}, &results.BenchInfo{Version: "v0.10.0"}
	var sb strings.Builder
	for _, looks := range []int{0, 5} {
		opt := DefaultOptions
		opt.Looks = looks
		rep, err := Compare(b, c, opt)
		if err != nil {
			t.Fatal(err)
		}
		rep.Summary = `fail (exit 1). regression: "TS" regret is +20.0% worse than the baseline.`
		if err := WriteMarkdown(&sb, rep, filepath.Join(wd, "ci", "base.json"), filepath.Join(wd, "new.json")); err != nil {
			t.Fatal(err)
		}
	}
	got := sb.String()
	if strings.Contains(got, wd) {
		t.Errorf("the comment names the absolute path %s:\n%s", wd, got)
	}
	golden := filepath.Join("testdata", "markdown.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("markdown differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
}
