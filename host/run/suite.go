package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/internal/interrupt"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/progress"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/scenario"
	"github.com/regretbench/regretbench/host/table"
)

// SuiteContextual is the suite of every shipped contextual scenario
// (scenarios/contextual_*.yaml, docs/contextual.md).
const SuiteContextual = "contextual"

// Suites are the names a suite of shipped scenarios may be asked for by
// (SuiteRequest.Suite), as a flag's help lists them.
func Suites() []string { return []string{SuiteContextual} }

// SuiteScenarios returns the shipped scenarios of the suite name, sorted
// by name, with o applied to each (Overrides.Apply): a horizon beyond a
// dataset's rows is lowered to its rows, so that one --horizon can cap
// every scenario of the suite. An unknown suite is an input error naming
// the suites.
func SuiteScenarios(name string, o Overrides, stderr io.Writer, optName func(Option) string) ([]*scenario.Scenario, error) {
	if !slices.Contains(Suites(), name) {
		return nil, &InputError{fmt.Errorf("unknown suite %q (suites: %s)", name, strings.Join(Suites(), ", "))}
	}
	var out []*scenario.Scenario
	for _, n := range scenario.Shipped() {
		sc, err := scenario.Named(n)
		if err != nil {
			return nil, err
		}
		if !sc.Contextual() {
			continue
		}
		oo := o
		if h := o.Horizon; h != nil && sc.Context.IsDataset() && *h > sc.Context.Rows() {
			rows := sc.Context.Rows()
			oo.Horizon = &rows
		}
		if err := oo.Apply(sc, stderr, optName); err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// SuiteRequest is a run of a suite of shipped scenarios (bench run
// --suite NAME): every scenario of the suite played in one pool (All),
// each one's tables on Stdout, then the suite's table of every policy's
// final progressive-validation loss per scenario (SuiteTable), and each
// results file written into Dir.
type SuiteRequest struct {
	Host
	// Suite names the suite (Suites).
	Suite string
	// Overrides apply to every scenario of the suite (SuiteScenarios).
	Overrides Overrides
	// Dir, when not "", is the directory the results files are written
	// into, one NAME.json per scenario; created if missing.
	Dir string
	// Jobs (0: one per core, across every scenario), StepTimeout and
	// StartTimeout are Options'.
	Jobs                      int
	StepTimeout, StartTimeout time.Duration
	// Launch, when not nil, starts the plugins in place of the Host's
	// sandboxed launcher (tests).
	Launch engine.Launcher
}

// Suite plays the suite req names and reports it (SuiteRequest). It
// returns what was played, nil when nothing was; the error says why
// policies failed or the run stopped, as Paper's does.
func Suite(ctx context.Context, req SuiteRequest) (*AllResults, error) {
	if err := (Options{Jobs: req.Jobs, StepTimeout: req.StepTimeout, StartTimeout: req.StartTimeout, Overrides: req.Overrides}).Check(); err != nil {
		return nil, err
	}
	stderr := req.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	scens, err := SuiteScenarios(req.Suite, req.Overrides, stderr, nil)
	if err != nil {
		return nil, err
	}
	if req.Dir != "" {
		if err := os.MkdirAll(req.Dir, 0o755); err != nil {
			return nil, optErr(OptOut, req.Dir, "%w", err)
		}
	}
	launch := req.Launch
	if launch == nil {
		if launch, _, err = req.launcher(req.StartTimeout); err != nil {
			return nil, err
		}
	}
	played, runErr := All(ctx, scens, AllOptions{
		Options: Options{Launch: launch, Jobs: req.Jobs, StepTimeout: req.StepTimeout},
		Start: func(jobs int) Progress {
			pr := progress.New(req.progressOut(), !req.Quiet)
			pr.Jobs("jobs", jobs)
			return pr
		},
	})
	if played == nil {
		return nil, runErr
	}
	out := req.Stdout
	if out == nil {
		out = io.Discard
	}
	var shown []*results.File
	for _, f := range played.Files {
		if f == nil {
			continue
		}
		req.stamp(f)
		shown = append(shown, f)
		if err := report.Tables(out, f); err != nil {
			return played, exitcode.With(exitcode.Failure, err)
		}
		fmt.Fprintln(out)
		if req.Dir != "" {
			if err := f.WriteFile(filepath.Join(req.Dir, f.Scenario.Name+".json")); err != nil {
				return played, exitcode.With(exitcode.Failure, err)
			}
		}
	}
	for _, t := range SuiteTables(shown) {
		table.Caption(out, table.Text, t.Caption)
		if err := t.Render(out, table.Text); err != nil {
			return played, exitcode.With(exitcode.Failure, err)
		}
	}
	if cause, interrupted := interrupt.Of(ctx); interrupted {
		return played, exitcode.With(cause.Code(), fmt.Errorf("suite %s interrupted: %w", req.Suite, ctx.Err()))
	}
	return played, runErr
}

// SuiteTables are a suite's tables, as Suite prints them: the policy x
// scenario table of final progressive-validation loss
// (compare.SuiteTable on metric.PVLoss) and the bake-off's summary
// (compare.NewBakeoff on final regret at compare.BakeoffAlpha: on a
// dataset, final regret is horizon x final pv_loss in every replication,
// so the paired tests are those of the PV losses; on a synthetic model
// regret is the pseudo-regret, the quantity every comparison and gate of
// bench tests).
func SuiteTables(files []*results.File) []*table.Table {
	out := []*table.Table{compare.SuiteTable(files, metric.PVLoss)}
	if b, err := compare.NewBakeoff(files, metric.Regret, compare.BakeoffAlpha); err == nil {
		out = append(out, b.Table())
	}
	return out
}
