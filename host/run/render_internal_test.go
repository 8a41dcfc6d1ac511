package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
)

// TestRenderNamesOptions: render maps the request to report.Render and
// names the option at fault: a figure that cannot be written is a
// *report.FiguresError, after the tables and the other figures; a round
// of Report.At that the results lack is an OptionError of At.
func TestRenderNamesOptions(t *testing.T) {
	f, err := results.ReadFile("../report/testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "small_regret.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	req := &Request{Host: Host{Stdout: &b}, Report: report.Options{Format: report.FormatTable}, Figures: report.Figures{Dir: dir, Formats: []string{"png"}}}
	err = req.render(f, nil)
	var figErr *report.FiguresError
	if !errors.As(err, &figErr) || ExitCode(err) != 1 {
		t.Errorf("err %v, want a figures error", err)
	}
	if !strings.Contains(b.String(), "Regret at T=200") || !strings.Contains(b.String(), "small_diag") {
		t.Errorf("tables or other figures missing:\n%s", b.String())
	}
	req = &Request{Host: Host{Stdout: &b}, Report: report.Options{Format: report.FormatCSV, At: []int{7}}}
	err = req.render(f, nil)
	var opt *OptionError
	if !errors.As(err, &opt) || opt.Option != OptAt || ExitCode(err) != 2 || !strings.HasPrefix(err.Error(), `At: policy "ReMaxGrad M=2": round 7 is not a checkpoint`) {
		t.Errorf("err %v (exit %d), want an OptionError of At: round 7", err, ExitCode(err))
	}
}

// TestAddRounds: rounds within the horizon become checkpoints, beyond it
// they are an OptionError of At.
func TestAddRounds(t *testing.T) {
	sc := &scenario.Scenario{Horizon: 200, Checkpoints: []int{1, 5, 10, 50, 100, 200}}
	if err := addRounds(sc, []int{10, 20, 200}); err != nil {
		t.Fatalf("valid rounds rejected: %v", err)
	}
	if want := []int{1, 5, 10, 20, 50, 100, 200}; !slices.Equal(sc.Checkpoints, want) {
		t.Errorf("checkpoints %v, want %v (round 20 added)", sc.Checkpoints, want)
	}
	err := addRounds(sc, []int{300})
	var opt *OptionError
	if !errors.As(err, &opt) || opt.Option != OptAt || !strings.Contains(err.Error(), "round 300 is not a checkpoint (checkpoints: 1, 5, 10, 20, 50, 100, 200)") {
		t.Errorf("err %v, want an OptionError of At: round 300", err)
	}
}

// TestOutUnwritableCode: an Out that cannot be written after the run is
// not an input error: exit 1, or the run's own code (3 when a policy
// failed), naming the option.
func TestOutUnwritableCode(t *testing.T) {
	for _, tc := range []struct {
		name   string
		runErr error
		code   int
	}{
		{"run ok", nil, 1},
		{"a policy failed", fmt.Errorf("%w: policy X", engine.ErrPolicyFailed), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := results.ReadFile("../report/testdata/small.json")
			if err != nil {
				t.Fatal(err)
			}
			req := &Request{Host: Host{Stdout: io.Discard, Stderr: io.Discard}, Options: Options{Out: filepath.Join(t.TempDir(), "missing", "r.json")}}
			_, err = req.finish(context.Background(), f, tc.runErr, nil, nil)
			var opt *OptionError
			if ExitCode(err) != tc.code || !errors.As(err, &opt) || opt.Option != OptOut || !strings.Contains(err.Error(), "the results were printed but could not be written") {
				t.Errorf("err %v (exit %d), want exit %d and an OptionError of Out", err, ExitCode(err), tc.code)
			}
		})
	}
}
