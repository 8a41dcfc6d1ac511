package plot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/run"
)

// smallResults is the report package's fixture (3 ok policies, one failed).
const smallResults = "../../report/testdata/small.json"

// TestPlotCmd: bench plot writes the figures, prints their paths and maps
// bad input to exit 2.
func TestPlotCmd(t *testing.T) {
	exec := func(args ...string) (string, error) {
		var out bytes.Buffer
		cmd := NewCmdPlot(&cmdutil.Factory{Stdout: &out, Stderr: &out}, nil)
		cmd.SetArgs(args)
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		return out.String(), err
	}
	dir := filepath.Join(t.TempDir(), "out")
	out, err := exec(smallResults, "--out", dir, "--format", "png,svg")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(out)
	if len(lines) != 14 {
		t.Fatalf("printed %d paths, want 14 (7 figures x 2 formats):\n%s", len(lines), out)
	}
	for _, p := range lines {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("printed path %s: %v", p, err)
		}
	}
	// --log-x: the regret figure's t axis is labelled 1, 10, 100, not
	// 0, 50, 100, 150, 200.
	for _, logX := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "out")
		args := []string{smallResults, "--out", dir, "--format", "svg"}
		if logX {
			args = append(args, "--log-x")
		}
		if _, err := exec(args...); err != nil {
			t.Fatal(err)
		}
		svg, err := os.ReadFile(filepath.Join(dir, "small_regret.svg"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(svg), ">10</text>") && !strings.Contains(string(svg), ">150</text>"); got != logX {
			t.Errorf("--log-x %v: regret figure on a log t axis: %v", logX, got)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no --out", []string{smallResults}},
		{"bad format", []string{smallResults, "--out", dir, "--format", "gif"}},
		{"missing file", []string{"nonexistent.json", "--out", dir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec(tc.args...); run.ExitCode(err) != exitcode.Input {
				t.Errorf("err = %v, exit %d, want %d", err, run.ExitCode(err), exitcode.Input)
			}
		})
	}
}
