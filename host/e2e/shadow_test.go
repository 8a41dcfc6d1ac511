package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/registry"
)

// TestShadowedPluginSaid: a plugin earlier on the search path than a
// shipped one of its name (bench's own plugins/ directory) runs in its
// place, and bench run and bench gate, the real bench, say so on stderr,
// once per plugin: which path runs, which it shadows, and whether their
// SHA-256s differ. Before, only bench plugins listed it. A plugin that
// shadows nothing is not mentioned.
func TestShadowedPluginSaid(t *testing.T) {
	t.Parallel()
	shippedTS := filepath.Join(binDir, "plugins", "bench-plugin-ts")
	sum := func(path string) string {
		s, err := registry.SHA256(path)
		if err != nil {
			t.Fatal(err)
		}
		return s[:12]
	}
	// other: a bench-plugin-ts that is another program (klucb); same: a
	// copy of the shipped ts.
	other := freshPluginDir(t)
	linkOrCopy(t, filepath.Join(binDir, "plugins", "bench-plugin-klucb"), filepath.Join(other, "bench-plugin-ts"))
	same := freshPluginDir(t, "ts")
	empty := freshPluginDir(t)
	differ := fmt.Sprintf("their SHA-256s differ: %s runs, not %s", sum(filepath.Join(other, "bench-plugin-ts")), sum(shippedTS))
	shadows := func(dir string, origin registry.Origin, digests string) string {
		return fmt.Sprintf(`bench: warning: plugin "ts": %s (%s) runs, and shadows the shipped %s (beside bench): %s`,
			filepath.Join(dir, "bench-plugin-ts"), origin, shippedTS, digests)
	}
	sc := writeFile(t, "shadow.yaml", `
name: shadow
environment: {means: [0.7, 0.4], noise_sd: 1}
horizon: 20
runs: 2
seed: 1
policies:
  - {plugin: ts, label: A}
  - {plugin: ts, label: B}
  - {plugin: ucb1}
`)
	for _, c := range []struct {
		name string
		env  []string
		args []string // before the command's
		want string   // "" for no line
	}{
		{"another program in --plugin-dir", nil, []string{"--plugin-dir", other}, shadows(other, registry.FromFlag, differ)},
		{"another program in BENCH_PLUGIN_PATH", []string{registry.EnvPath + "=" + other}, []string{"--plugin-dir", empty}, shadows(other, registry.FromEnv, differ)},
		{"a copy of the shipped plugin", nil, []string{"--plugin-dir", same}, shadows(same, registry.FromFlag, "the same SHA-256 "+sum(shippedTS))},
		{"nothing shadowed", nil, []string{"--plugin-dir", empty}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "r.json")
			_, stderr, code := benchEnv(t, c.env, append(append([]string{}, c.args...), "--scenario", sc, "--out", out, "-q")...)
			if code != 0 {
				t.Fatalf("bench run: exit %d\n%s", code, stderr)
			}
			_, gstderr, gcode := benchEnv(t, c.env, append(append([]string{}, c.args...), "gate", out, out)...)
			if gcode != 0 {
				t.Fatalf("bench gate: exit %d\n%s", gcode, gstderr)
			}
			for _, o := range []struct{ cmd, stderr string }{{"run", stderr}, {"gate", gstderr}} {
				if c.want == "" {
					if strings.Contains(o.stderr, "shadows") {
						t.Errorf("bench %s names a shadowed plugin:\n%s", o.cmd, o.stderr)
					}
					continue
				}
				// Once, though two policies run ts; ucb1 shadows nothing.
				if n := strings.Count(o.stderr, c.want+"\n"); n != 1 {
					t.Errorf("bench %s states %d times\n\t%s\nin its stderr:\n%s", o.cmd, n, c.want, o.stderr)
				}
				if n := strings.Count(o.stderr, "shadows"); n != 1 {
					t.Errorf("bench %s names %d shadowed plugins, want 1:\n%s", o.cmd, n, o.stderr)
				}
			}
		})
	}
}
