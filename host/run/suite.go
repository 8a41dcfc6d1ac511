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
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/engine"
	"github.com/regretbench/regretbench/host/exitcode"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/internal/interrupt"
	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/progress"
	"github.com/regretbench/regretbench/host/ranktest"
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
// final progressive-validation loss per scenario and the bake-off's
// summary (SuiteTables), the mean ranks across the scenarios, and, with
// Dir, everything written into it (WriteSuite).
type SuiteRequest struct {
	Host
	// Suite names the suite (Suites).
	Suite string
	// Overrides apply to every scenario of the suite (SuiteScenarios).
	Overrides Overrides
	// Dir, when not "", is the directory the suite is written into
	// (WriteSuite); created if missing.
	Dir string
	// With are policies added to every scenario of the suite, after its
	// own (--with; All checks them against every scenario's labels).
	With []Added
	// Formats are the figures' formats (plot.DefaultFormats when none).
	Formats []string
	// Audit, when not nil, is how many replications of each policy of
	// each scenario are replayed alone after the play (Audit); nil means
	// DefaultAudit, as for every contextual run (SetAuditDefault), and 0
	// none.
	Audit *int
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
		With:    req.With,
		Start: func(jobs int) Progress {
			pr := progress.New(req.progressOut(), !req.Quiet)
			pr.Jobs("jobs", jobs)
			return pr
		},
	})
	if played == nil {
		return nil, runErr
	}
	if err := req.audit(ctx, scens, played, launch, stderr); err != nil && (runErr == nil || errors.Is(runErr, engine.ErrPolicyFailed)) {
		runErr = errors.Join(runErr, err)
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
	}
	tabs := SuiteTables(shown)
	for _, t := range tabs {
		table.Caption(out, table.Text, t.Caption)
		if err := t.Render(out, table.Text); err != nil {
			return played, exitcode.With(exitcode.Failure, err)
		}
	}
	ranks := ranktest.Across(shown, SuiteRankOptions.Metric, SuiteRankOptions.Alpha)
	if len(shown) > 1 {
		fmt.Fprintln(out, "\nMean ranks across scenarios")
		for _, l := range htmlreport.RanksText(ranks) {
			fmt.Fprintln(out, termsafe.String(l))
		}
	}
	if req.Dir != "" {
		failed := WriteSuite(req.Dir, shown, tabs, ranks, req.Formats, stderr)
		fmt.Fprintf(out, "\n%d scenarios; results and reports in %s/\n", len(shown), req.Dir)
		if failed > 0 && runErr == nil {
			runErr = exitcode.With(exitcode.Failure, fmt.Errorf("suite %s: %d outputs could not be written (named above); everything else was, in %s/", req.Suite, failed, req.Dir))
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

// SuiteRankOptions are the metric and level of a suite's mean ranks
// (ranktest.Across: Friedman test, Nemenyi critical difference) and of
// the bold cells of its LaTeX table of final regret: those of every
// comparison of bench (compare.DefaultOptions), final regret at 0.01. On
// a dataset final regret is horizon x final pv_loss, so the ranks are
// those of the PV losses of the suite's table.
var SuiteRankOptions = compare.DefaultOptions

// WriteSuite writes a suite's outputs into dir, which exists: per
// scenario, as bench paper writes an experiment, NAME.json (its results
// file), NAME.txt and NAME.tex (its tables) and its figures in formats;
// the suite's tables (SuiteTables) as suite.txt, suite.md, suite.tex and
// one CSV file per table (suite.csv, bakeoff.csv); the mean ranks across
// the scenarios (ranks) in suite.txt, suite.md and suite.tex (with the
// policy x scenario table of final regret, compare.WritePaperLatex) and
// as the figure mean_ranks; and index.html, one page of every scenario
// with the suite's tables, the summary of final values and the mean
// ranks. An output that cannot be written costs only itself: it is named
// on stderr, everything else is written, and WriteSuite returns how many
// could not be.
func WriteSuite(dir string, files []*results.File, tabs []*table.Table, ranks *ranktest.Analysis, formats []string, stderr io.Writer) int {
	failed := 0
	warn := func(err error) {
		failed++
		fmt.Fprintf(stderr, "bench: %v\n", err)
	}
	styles := plot.RunStyles(files...)
	for _, f := range files {
		if err := writeReport(dir, f.Scenario.Name, f, formats, plot.Options{Styles: styles}); err != nil {
			warn(err)
		}
	}
	var rankText []string
	if len(files) > 1 {
		rankText = htmlreport.RanksText(ranks)
		if ranks.Friedman != nil {
			if _, err := plot.WriteFigure(htmlreport.RanksFigure(ranks), dir, "mean_ranks", formats...); err != nil {
				warn(err)
			}
		}
	}
	for _, out := range []struct {
		name   string
		format table.Format
	}{{"suite.txt", table.Text}, {"suite.md", table.Markdown}} {
		var b bytes.Buffer
		for _, t := range tabs {
			table.Caption(&b, out.format, t.Caption)
			if err := t.Render(&b, out.format); err != nil {
				warn(fmt.Errorf("%s: %w", out.name, err))
			}
		}
		if len(rankText) > 0 {
			table.Caption(&b, out.format, "Mean ranks across scenarios")
			for _, l := range rankText {
				fmt.Fprintln(&b, table.Line(out.format, l))
				if out.format == table.Markdown {
					fmt.Fprintln(&b)
				}
			}
		}
		if err := safeio.WriteFile(filepath.Join(dir, out.name), b.Bytes()); err != nil {
			warn(fmt.Errorf("%s: %w", filepath.Join(dir, out.name), err))
		}
	}
	for _, t := range tabs {
		var b bytes.Buffer
		path := filepath.Join(dir, t.Name+".csv")
		if err := t.Render(&b, table.CSV); err != nil {
			warn(fmt.Errorf("%s: %w", path, err))
		} else if err := safeio.WriteFile(path, b.Bytes()); err != nil {
			warn(fmt.Errorf("%s: %w", path, err))
		}
	}
	var tex bytes.Buffer
	for _, t := range tabs {
		writeLatexFloat(&tex, t)
	}
	texPath := filepath.Join(dir, "suite.tex")
	if len(files) > 0 {
		if err := compare.WritePaperLatex(&tex, files, ranks, SuiteRankOptions); err != nil {
			warn(fmt.Errorf("%s: %w", texPath, err))
		}
	}
	if err := safeio.WriteFile(texPath, tex.Bytes()); err != nil {
		warn(fmt.Errorf("%s: %w", texPath, err))
	}
	if len(files) > 0 {
		index := filepath.Join(dir, "index.html")
		opts := htmlreport.Options{Title: "regretbench: the contextual suite", Styles: styles, Summary: files, Tables: tabs,
			MeanRanks: files, Metric: SuiteRankOptions.Metric, Alpha: SuiteRankOptions.Alpha}
		if err := htmlreport.WriteFile(index, files, opts); err != nil {
			warn(fmt.Errorf("%s: %w", index, err))
		}
	}
	return failed
}

// writeLatexFloat writes t as a floating table, its caption and label
// (tab:NAME) with it, numbers in math mode, shrunk to the text width when
// wider; as report.LatexTable sets a table, with the packages of
// report.LatexPreamble.
func writeLatexFloat(w io.Writer, src *table.Table) {
	t := *src // the caller's keeps its Math
	t.Math = make([]bool, len(t.Header))
	for j := 1; j < len(t.Math); j++ {
		t.Math[j] = true
	}
	fmt.Fprintf(w, "\n\\begin{table}[htbp]\n\\centering\n\\small\n\\caption{%s}\n\\label{%s}\n", table.LatexText(t.Caption), report.LatexLabel("tab:", t.Name))
	fmt.Fprintf(w, "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%%\n")
	t.Render(w, table.LaTeX) // a bytes.Buffer: no error
	fmt.Fprintf(w, "}\n\\end{table}\n")
}

// audit replays req.Audit (DefaultAudit when nil) replications of each
// policy of each finished scenario alone, as a contextual run is audited
// by default (SetAuditDefault: the replications share their rows, so
// pooling them pays), and records why when it was the default.
func (req SuiteRequest) audit(ctx context.Context, scens []*scenario.Scenario, played *AllResults, launch engine.Launcher, stderr io.Writer) error {
	n, why := DefaultAudit, ""
	if req.Audit != nil {
		n = *req.Audit
	} else {
		why = "a contextual scenario (its replications see the same rows, so pooling them across a batch pays)"
		fmt.Fprintf(stderr, "bench: %s: auditing %d replications of each policy of each scenario (--audit %d by default; --audit 0 turns it off)\n", why, n, n)
	}
	var errs []error
	for i, f := range played.Files {
		if f == nil || !played.Finished[i] || ctx.Err() != nil {
			continue
		}
		sc := scens[i]
		eopts := engine.Options{Launch: launch, StepTimeout: req.StepTimeout}
		if err := Audit(ctx, sc, eopts, f, replicationsOf(eopts, sc.Runs), n); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", sc.Name, err))
		}
		recordAuditDefault(f, why)
	}
	return errors.Join(errs...)
}
