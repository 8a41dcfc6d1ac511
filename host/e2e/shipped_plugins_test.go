package e2e_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestShippedPluginsWired: every plugin under plugins/ is built by `make
// build` (the Makefile's PLUGINS), is in this package's shipped list (so
// TestMain builds it, bench conform checks it, and the other tests see it),
// and `bench plugins` lists it, described and healthy. A plugin added
// without its wiring fails here.
func TestShippedPluginsWired(t *testing.T) {
	skipShort(t, "every shipped plugin wired through cmd/, conform and the docs")
	t.Parallel()
	root := repoRoot(t)
	ents, err := os.ReadDir(filepath.Join(root, "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != "internal" {
			dirs = append(dirs, e.Name())
		}
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var made []string
	for _, line := range strings.Split(string(mk), "\n") {
		if v, ok := strings.CutPrefix(line, "PLUGINS := "); ok {
			made = strings.Fields(v)
		}
	}
	sorted := func(s []string) string { s = append([]string(nil), s...); sort.Strings(s); return strings.Join(s, " ") }
	if sorted(made) != sorted(dirs) {
		t.Errorf("the Makefile's PLUGINS are %v, plugins/ holds %v", made, dirs)
	}
	if sorted(shipped) != sorted(dirs) {
		t.Errorf("host/cli's shipped list is %v, plugins/ holds %v", shipped, dirs)
	}

	stdout, stderr, code := bench(t, "plugins")
	if code != 0 || strings.Contains(stdout, "FAILED") {
		t.Fatalf("bench plugins: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, n := range shipped {
		if !strings.Contains(stdout, "\n"+n+" 1.0.0 ") {
			t.Errorf("bench plugins does not list %s 1.0.0:\n%s", n, stdout)
		}
	}
	// The baselines' parameters, with the ranges bench enforces.
	for _, w := range []string{
		"param  c                    float  default 1        values >= 0 ",
		"param  gamma                float  default 0        values in [0, 1] ",
		"param  tau                  int    default 0        values in [0, 1e+06] ",
		"param  xi                   float  default 0.6      values >= 0 ",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("bench plugins lacks %q:\n%s", w, stdout)
		}
	}
}
