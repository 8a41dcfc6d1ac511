package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli"
	"github.com/regretbench/regretbench/host/results"
)

// TestPlotRefusesManyDiagnostics: a results file may declare no more
// diagnostics per policy than a plugin may (results.MaxDiagnostics):
// bench plot of one with 5,000, which kept it busy for minutes, exits 2
// at once naming the file, the policy and the count, and draws nothing.
func TestPlotRefusesManyDiagnostics(t *testing.T) {
	t.Parallel()
	f, err := results.ReadFile(reportFixture)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Policies[0]
	for k := range 5000 - len(p.Diagnostics) {
		p.Diagnostics[fmt.Sprintf("extra%d", k)] = results.DiagSeries{Checkpoints: []int{f.Scenario.Horizon}, Mean: []float64{1}, SE: []float64{0}}
	}
	path := filepath.Join(t.TempDir(), "many.json")
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := bench(t, "plot", path, "--out", filepath.Join(t.TempDir(), "figs"))
	if code != cli.ExitInput {
		t.Errorf("exit %d, want %d\n%s", code, cli.ExitInput, stderr)
	}
	want := fmt.Sprintf("results %s: policies[0] %q: 5000 diagnostics, more than the %d a plugin may declare", path, p.Label, results.MaxDiagnostics)
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if stdout != "" {
		t.Errorf("figures written:\n%s", stdout)
	}
}
