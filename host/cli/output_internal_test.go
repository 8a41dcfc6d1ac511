package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"

	"github.com/regretbench/regretbench/host/report"
)

// smallResults is the report package's fixture (3 ok policies, one failed).
const smallResults = "../report/testdata/small.json"

func readSmall(t *testing.T) *results.File {
	t.Helper()
	f, err := results.ReadFile(smallResults)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRenderNamesFlags: render maps the flags to report.Render and
// names the flag at fault: a figure that cannot be written is a
// *report.FiguresError naming --plot, after the tables and the other figures; a
// bad --at round is an input error naming --at.
func TestRenderNamesFlags(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "small_regret.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	o := outputOptions{format: "table", plotDir: dir, plotFormats: "png"}
	err := o.render(&b, readSmall(t), nil)
	var figErr *report.FiguresError
	if !errors.As(err, &figErr) || !strings.HasPrefix(err.Error(), "--plot "+dir+": ") || ExitCode(err) == ExitInput {
		t.Errorf("err %v, want a figures error starting with --plot %s", err, dir)
	}
	if !strings.Contains(b.String(), "Regret at T=200") || !strings.Contains(b.String(), "small_diag") {
		t.Errorf("tables or other figures missing:\n%s", b.String())
	}
	o = outputOptions{format: "csv", at: "7"}
	if err := o.render(&b, readSmall(t), nil); ExitCode(err) != ExitInput || !strings.HasPrefix(err.Error(), `--at: policy "ReMaxGrad M=2": round 7 is not a checkpoint`) {
		t.Errorf("err %v (exit %d), want exit %d and --at: round 7", err, ExitCode(err), ExitInput)
	}
}

// TestOutputFlagErrors: bad flag values are input errors (exit 2), found
// before a run; --at rounds within the horizon become checkpoints, beyond
// it they are refused.
func TestOutputFlagErrors(t *testing.T) {
	cps := []int{1, 5, 10, 50, 100, 200}
	sc := func() *scenario.Scenario { return &scenario.Scenario{Horizon: 200, Checkpoints: slices.Clone(cps)} }
	for _, tc := range []struct {
		name string
		o    outputOptions
		want string
	}{
		{"format", outputOptions{format: "xml"}, "--format"},
		{"at syntax", outputOptions{format: "table", at: "10,abc"}, "--at"},
		{"at beyond the horizon", outputOptions{format: "table", at: "20,300"}, "round 300 is not a checkpoint (checkpoints: 1, 5, 10, 20, 50, 100, 200)"},
		{"at with json", outputOptions{format: "json", at: "10"}, "--at does not apply"},
		{"plot format", outputOptions{format: "table", plotDir: "x", plotFormats: "gif"}, "--plot-format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.check(sc())
			if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != ExitInput {
				t.Fatalf("err = %v (exit %d), want exit %d and %q", err, ExitCode(err), ExitInput, tc.want)
			}
		})
	}
	ok := outputOptions{format: "csv", at: "10,20,200"}
	s := sc()
	if err := ok.check(s); err != nil {
		t.Errorf("valid flags rejected: %v", err)
	}
	if want := []int{1, 5, 10, 20, 50, 100, 200}; !slices.Equal(s.Checkpoints, want) {
		t.Errorf("checkpoints %v, want %v (--at 20 added)", s.Checkpoints, want)
	}
}

// TestPlotCmd: bench plot writes the figures, prints their paths and maps
// bad input to exit 2.
func TestPlotCmd(t *testing.T) {
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		cmd := newCmdPlot(&factory{stdout: &out, stderr: &out}, nil)
		cmd.SetArgs(args)
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		return out.String(), err
	}
	dir := filepath.Join(t.TempDir(), "out")
	out, err := run(smallResults, "--out", dir, "--format", "png,svg")
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
		if _, err := run(args...); err != nil {
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
			if _, err := run(tc.args...); ExitCode(err) != ExitInput {
				t.Errorf("err = %v, exit %d, want %d", err, ExitCode(err), ExitInput)
			}
		})
	}
}
