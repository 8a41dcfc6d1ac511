package run

import (
	"context"
	"fmt"
	"io"
	"math"
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
	t := SuiteTable(shown)
	table.Caption(out, table.Text, t.Caption)
	if err := t.Render(out, table.Text); err != nil {
		return played, exitcode.With(exitcode.Failure, err)
	}
	w := SuiteWins(shown)
	table.Caption(out, table.Text, w.Caption)
	if err := w.Render(out, table.Text); err != nil {
		return played, exitcode.With(exitcode.Failure, err)
	}
	if cause, interrupted := interrupt.Of(ctx); interrupted {
		return played, exitcode.With(cause.Code(), fmt.Errorf("suite %s interrupted: %w", req.Suite, ctx.Err()))
	}
	return played, runErr
}

// SuiteTable is a suite's summary: one row per policy, one column per
// scenario, each cell the policy's final progressive-validation loss
// (mean ± standard error over replications; regret / horizon for a
// scenario without pv_loss), "FAILED" for a policy that failed and ""
// where the scenario has no such policy. Policies are in order of first
// appearance.
func SuiteTable(files []*results.File) table.Table {
	t := table.Table{Name: "suite", Caption: "Progressive-validation loss at T (mean ± standard error over replications)", Header: []string{"policy"}, Right: []bool{false}}
	var labels []string
	for _, f := range files {
		t.Header = append(t.Header, f.Scenario.Name)
		t.Right = append(t.Right, true)
		for _, p := range f.Policies {
			if !slices.Contains(labels, p.Label) {
				labels = append(labels, p.Label)
			}
		}
	}
	for _, l := range labels {
		row := []string{l}
		for _, f := range files {
			p := f.Policy(l)
			switch {
			case p == nil:
				row = append(row, "")
			case p.Status != results.StatusOK:
				row = append(row, "FAILED")
			default:
				row = append(row, pvCell(f, p))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// pvCell is p's final pv_loss as "mean ± se".
func pvCell(f *results.File, p *results.Policy) string {
	name, scale := metric.PVLoss, 1.0
	if p.PVLoss == nil {
		name, scale = metric.Regret, 1/float64(f.Scenario.Horizon)
	}
	s, err := p.Metric(name)
	if err != nil || len(s.Mean) == 0 {
		return ""
	}
	n := len(s.Mean) - 1
	m, se := s.Mean[n]*scale, s.SE[n]*scale
	if math.IsNaN(m) {
		return ""
	}
	return fmt.Sprintf("%.4f ± %.4f", m, se)
}

// SuiteAlpha is the level of the pairwise tests of SuiteWins, the
// bake-off's p < 0.05.
const SuiteAlpha = 0.05

// SuiteWins is the contextual bandit bake-off's summary (its Table 3):
// for each ordered pair of policies (row A, column B), on how many of the
// scenarios A's final regret is significantly lower than B's, by bench's
// paired test over the replications (compare.Compute with A against B
// alone, so no Holm adjustment, at level SuiteAlpha). On a dataset,
// final regret is horizon x final pv_loss, so this is the bake-off's
// comparison of PV losses, paired by common random numbers.
func SuiteWins(files []*results.File) table.Table {
	t := table.Table{Name: "suite-wins", Caption: fmt.Sprintf("Scenarios where the row's policy is significantly better than the column's (paired test of final regret, p < %g)", SuiteAlpha),
		Header: []string{"policy"}, Right: []bool{false}}
	var labels []string
	for _, f := range files {
		for _, p := range f.Policies {
			if !slices.Contains(labels, p.Label) {
				labels = append(labels, p.Label)
			}
		}
	}
	for _, l := range labels {
		t.Header = append(t.Header, l)
		t.Right = append(t.Right, true)
	}
	for _, a := range labels {
		row := []string{a}
		for _, b := range labels {
			if a == b {
				row = append(row, "")
				continue
			}
			wins := 0
			for _, f := range files {
				if f.Policy(a) == nil || f.Policy(b) == nil {
					continue
				}
				s, err := compare.Compute(f, compare.Spec{Policies: []string{a}, Baselines: []string{b}}, compare.Options{Metric: metric.Regret, Alpha: SuiteAlpha})
				if err != nil || len(s.Policies) != 1 || len(s.Policies[0].Diffs) != 1 {
					continue
				}
				if s.Policies[0].Diffs[0].Outcome == compare.Win {
					wins++
				}
			}
			row = append(row, fmt.Sprint(wins))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
