package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextualRefusesContextFreePlugin: bench run on a contextual
// scenario that names a context-free plugin (ts, protocol 2) stops before
// any round with the input error's exit code, naming the scenario, the
// policy and the plugin; the same policy on a context-free scenario plays
// (the refusal is the context's, not the plugin's).
func TestContextualRefusesContextFreePlugin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := filepath.Join(dir, "ctx.yaml")
	free := filepath.Join(dir, "free.yaml")
	for path, text := range map[string]string{
		ctx:  "context: {dataset: iris}\nhorizon: 50\nruns: 2\npolicies: [{plugin: ts, label: TS}]\n",
		free: "environment: {means: [0.5, 0.4], noise_sd: 1}\nhorizon: 50\nruns: 2\npolicies: [{plugin: ts, label: TS}]\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := bench(t, "run", "--scenario", ctx, "--out", filepath.Join(dir, "ctx.json"))
	want := `scenario ` + ctx + `: policies[0] "TS": plugin ts does not report contextual in its Describe, but the scenario is contextual`
	if code != 2 || !strings.Contains(errs, want) || strings.Contains(out, "Regret") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q, and no tables", code, errs, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "ctx.json")); err == nil {
		t.Errorf("a refused run wrote its results file")
	}
	if _, errs, code := bench(t, "run", "--scenario", free); code != 0 {
		t.Errorf("the context-free scenario: exit %d, stderr:\n%s", code, errs)
	}
}
