package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/progress"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/run"
	"github.com/regretbench/regretbench/host/table"
)

// paperOrder is the order of the experiments in DIR/index.html: the
// paper's main-text instances first, the ReMaxGrad sweeps last.
var paperOrder = []string{"two_arm", "three_arm", "ten_arm", "failure_mode", "obd", "movielens", "remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"}

// paperOptions are the flags of bench paper.
type paperOptions struct {
	f     *factory
	flags *pflag.FlagSet // the command's flags, to tell which were given

	policyRunOptions
	dir         string   // --out: the directory written
	plotFormats string   // --plot-format, as given
	formats     []string // --plot-format, parsed
	metric      string   // --metric of the comparison section (with --with)
	alpha       float64  // --alpha of the comparison section
	logX        bool     // --log-x
}

// newCmdPaper returns bench paper. runF, when not nil, receives the
// checked options in place of running the experiments (for tests).
func newCmdPaper(f *factory, runF func(*paperOptions) error) *cobra.Command {
	o := &paperOptions{f: f}
	cmd := &cobra.Command{
		Use:   "paper",
		Short: "Reproduce every experiment of the ReMax paper at full scale",
		Long: `paper runs every experiment of the paper: the two-, three- and ten-arm
instances with ReMax, TS, KL-UCB and ReMaxGrad M=2,3,4; the failure mode with
variance inflation c2=1..4; OBD; MovieLens. All policies of all scenarios share
one pool of --jobs slots (one per core by default), so both cores stay busy.
It writes one results file, one text report, one LaTeX table (SCENARIO.tex,
as --format latex writes it) and the figures (as bench plot draws them:
SCENARIO_regret.png and so on) per scenario into --out, plus
two_arm, three_arm and ten_arm files (the ReMax, TS and KL-UCB rows of the
remaxgrad_* sweeps, which use the same seeds), and index.html, one
self-contained page of every experiment (as bench report writes) with the
summary table, and prints the summary table.

The policies that ran in all six instances (two_arm, three_arm, ten_arm,
failure_mode, obd, movielens; the sweeps repeat the first three) are ranked
by mean final --metric in each: the Friedman test and the Nemenyi critical
difference at --alpha (Demšar 2006) are printed, shown in index.html and
drawn as mean_ranks.png/.svg.

--with SPEC (repeatable; see 'bench --help') adds a policy to every
experiment, after the shipped ones, whose rows do not change (common random
numbers). Each experiment's results and report then hold a comparison
section (the added policies' rank and paired differences from each shipped
policy, Holm-adjusted over that table's comparisons), stdout prints them
and the wins, ties and losses across the nine experiments, --out gets
comparison.txt, .md, .csv, .json and .tex, and index.html shows it. Each pair is
tested once: a remaxgrad_* sweep compares the added policies with its
ReMaxGrad rows, and its ReMax, TS and KL-UCB rows are compared in the
two_arm, three_arm or ten_arm experiment.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.flags = cmd.Flags()
			if err := o.checkFlags(); err != nil {
				return err
			}
			formats, err := plot.ParseFormats(o.plotFormats)
			if err != nil {
				return withCode(ExitInput, fmt.Errorf("--plot-format: %w", err))
			}
			o.formats = formats
			if runF != nil {
				return runF(o)
			}
			return paperRun(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.dir, "out", "o", "paper-results", "directory for the results files, reports and figures")
	fs.StringVar(&o.plotFormats, "plot-format", strings.Join(plot.DefaultFormats, ","), "figure formats: png, svg, pdf (comma-separated)")
	fs.BoolVar(&o.logX, "log-x", false, "draw the regret and separated figures on a log t axis")
	addPolicyRunFlags(fs, &o.policyRunOptions, policyRunHelp{
		runs:    "override every scenario's replications (for a quick look; the paper's are 1000 and 100)",
		horizon: "override every scenario's horizon (for a quick look)",
		jobs:    "policies run at once across all scenarios (0: one per core)",
		with:    "add a policy to every experiment (repeatable): " + strings.TrimPrefix(withHelp, "add a policy to the scenario (repeatable), after its own: "),
	})
	fs.StringVar(&o.metric, "metric", compare.DefaultOptions.Metric, "metric of the comparison section (with --with): "+metric.List())
	fs.Float64Var(&o.alpha, "alpha", compare.DefaultOptions.Alpha, "family-wise error rate of the comparison's Holm-adjusted tests; its CIs are at 1-alpha")
	return cmd
}

// paperRun runs every experiment of the paper as o says, whose flags are
// checked.
func paperRun(ctx context.Context, o *paperOptions) error {
	dir := o.dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return withCode(ExitInput, fmt.Errorf("--out %s: %w", dir, err))
	}
	cmpOpt := compare.Options{Metric: o.metric, Alpha: o.alpha}
	if err := cmpOpt.Check(); err != nil {
		return withCode(ExitInput, fmt.Errorf("--metric or --alpha: %w", err))
	}
	scens, err := run.PaperScenarios(o.runs, changed(o.flags, "runs"), o.horizon)
	if err != nil {
		return err
	}
	launch, err := o.launch(o.f)
	if err != nil {
		return err
	}
	with, err := o.added()
	if err != nil {
		return err
	}
	played, runErr := run.All(ctx, scens, run.AllOptions{
		Options: run.Options{Launch: launch, Jobs: o.jobs, StepTimeout: o.stepTimeout},
		With:    with,
		// A bar per running job under a line counting the jobs
		// finished: the paper's jobs are more than a screen holds.
		Start: func(jobs int) run.Progress {
			pr := progress.New(o.f.progressOut(), !o.quiet)
			pr.Jobs("jobs", jobs)
			return pr
		},
	})
	if played == nil {
		return runErr
	}
	files, finished, addedLabels, elapsed := played.Files, played.Finished, played.Added, played.Elapsed

	// Interrupted, write only the scenarios whose every policy ran to its
	// end (or failed by itself), as the paper's results must be whole.
	code, sig, interrupted := interruption(ctx)
	// An output that cannot be written (a figure, a report, index.html)
	// costs only itself: it is named on stderr at once, everything else
	// is written and the summary printed, and bench exits 1 at the end.
	failed := 0
	warn := func(err error) {
		failed++
		fmt.Fprintf(o.f.stderr, "bench: %v\n", err)
	}
	var all []*results.File
	cmpOf := map[string]*compare.Scenario{} // by experiment
	var done, left []string
	written := map[string]*results.File{} // by the name of the files written
	for i, pr := range run.PaperRuns {
		f := files[i]
		if interrupted && !finished[i] {
			left = append(left, pr.Scenario)
			continue
		}
		if f == nil {
			continue
		}
		done = append(done, pr.Scenario)
		stamp(ctx, f)
		all = append(all, f)
		for _, e := range run.PaperExperiments(i, f, addedLabels, cmpOpt) {
			if e.ComparisonErr != nil {
				fmt.Fprintf(o.f.stderr, "bench: warning: %s: no comparison section: %v\n", e.File.Scenario.Name, e.ComparisonErr)
			}
			cmpOf[e.Name] = e.Comparison
			if err := writeReport(dir, e.Name, e.File, o.formats, o.logX); err != nil {
				warn(err)
			}
			written[e.Name] = e.Page
		}
	}
	var cmps []*compare.Scenario // in the order of the experiments, as index.html shows them
	for _, name := range paperOrder {
		if c := cmpOf[name]; c != nil {
			cmps = append(cmps, c)
		}
	}
	// The mean ranks over the distinct instances: a sweep's shared rows
	// are its base experiment's, the same run.
	var instances []*results.File
	for _, name := range paperOrder {
		if f := written[name]; f != nil && !strings.HasPrefix(name, "remaxgrad_") {
			instances = append(instances, f)
		}
	}
	var rankText []string
	if len(instances) > 0 {
		a := ranktest.Across(instances, cmpOpt.Metric, cmpOpt.Alpha)
		rankText = htmlreport.RanksText(a)
		if a.Friedman != nil {
			if _, err := plot.WriteFigure(htmlreport.RanksFigure(a), dir, "mean_ranks", o.formats...); err != nil {
				warn(err)
			}
		}
	}
	if len(written) > 0 {
		var page []*results.File
		for _, name := range paperOrder {
			if f := written[name]; f != nil {
				page = append(page, f)
			}
		}
		index := filepath.Join(dir, "index.html")
		opts := htmlreport.Options{Title: "regretbench: the ReMax paper's experiments", LogX: o.logX, Summary: all,
			MeanRanks: instances, Metric: cmpOpt.Metric, Alpha: cmpOpt.Alpha}
		if len(cmps) > 0 {
			opts.Comparison = compare.Summarize(cmps) // across the runs, as stdout prints it
		}
		if err := htmlreport.WriteFile(index, page, opts); err != nil {
			warn(fmt.Errorf("%s: %w", index, err))
		}
	}
	printStacks(o.f.stderr, all...)
	if err := paperSummary(o.f.stdout, all); err != nil {
		return err
	}
	if len(cmps) > 0 {
		if err := writeComparisons(o.f.stdout, dir, compare.Summarize(cmps)); err != nil {
			warn(err)
		}
	}
	if len(rankText) > 0 {
		fmt.Fprintln(o.f.stdout, "\nMean ranks across experiments")
		for _, l := range rankText {
			fmt.Fprintln(o.f.stdout, termsafe.String(l))
		}
	}
	fmt.Fprintf(o.f.stdout, "\n%d experiments (%d scenario runs) in %.1f s wall; results in %s/\n", len(written), len(all), elapsed.Seconds(), dir)
	if interrupted {
		wrote := "none"
		if len(done) > 0 {
			wrote = strings.Join(done, ", ")
		}
		notDone := "none"
		if len(left) > 0 {
			notDone = strings.Join(left, ", ")
		}
		return withCode(code, fmt.Errorf("%v: finished scenarios written to %s: %s; not finished: %s",
			signalCause{sig}, dir, wrote, notDone))
	}
	if runErr == nil && failed > 0 {
		return withCode(ExitFailure, fmt.Errorf("%d outputs could not be written (named above); everything else was, in %s/", failed, dir))
	}
	return runErr
}

// writeComparisons prints the comparison section of every experiment and
// the totals across them, and writes them into dir as comparison.txt,
// .md, .csv, .json and .tex.
func writeComparisons(stdout io.Writer, dir string, sum *compare.Summary) error {
	if err := compare.WriteSummary(stdout, sum, report.FormatTable); err != nil {
		return err
	}
	for _, f := range []struct {
		ext    string
		format report.Format
	}{{"txt", report.FormatTable}, {"md", report.FormatMarkdown}, {"csv", report.FormatCSV}, {"json", report.FormatJSON}, {"tex", report.FormatLatex}} {
		var b bytes.Buffer
		if err := compare.WriteSummary(&b, sum, f.format); err != nil {
			return err
		}
		path := filepath.Join(dir, "comparison."+f.ext)
		if err := safeio.WriteFile(path, b.Bytes()); err != nil {
			return fmt.Errorf("comparison %s: %w", path, err)
		}
	}
	return nil
}

// writeReport writes name.json, name.txt (the tables), name.tex (the
// LaTeX tables) and the figures of f into dir. What cannot be written
// costs only itself: writeReport writes the rest and returns an error
// naming each failure.
func writeReport(dir, name string, f *results.File, formats []string, logX bool) error {
	var errs []error
	if err := f.WriteFile(filepath.Join(dir, name+".json")); err != nil {
		errs = append(errs, err)
	}
	var b bytes.Buffer
	txt := filepath.Join(dir, name+".txt")
	err := report.Tables(&b, f)
	if err == nil {
		var cmp *compare.Scenario
		if cmp, err = compare.FromFile(f); err == nil && cmp != nil {
			err = compare.Write(&b, cmp, report.FormatTable)
		}
	}
	if err == nil {
		err = safeio.WriteFile(txt, b.Bytes())
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("report %s: %w", txt, err))
	}
	if err := writeLatex(filepath.Join(dir, name+".tex"), f); err != nil {
		errs = append(errs, err)
	}
	if _, err := plot.WriteWith(f, dir, plot.Options{LogX: logX}, formats...); err != nil {
		errs = append(errs, fmt.Errorf("%s figures: %w", name, err))
	}
	return errors.Join(errs...)
}

// writeLatex writes f's regret table and its comparison section, if any,
// as LaTeX (--format latex) to path.
func writeLatex(path string, f *results.File) error {
	var b bytes.Buffer
	err := report.Write(&b, f, report.Options{Format: report.FormatLatex})
	if err == nil {
		var cmp *compare.Scenario
		if cmp, err = compare.FromFile(f); err == nil && cmp != nil {
			err = compare.Write(&b, cmp, report.FormatLatex)
		}
	}
	if err == nil {
		err = safeio.WriteFile(path, b.Bytes())
	}
	if err != nil {
		return fmt.Errorf("LaTeX tables %s: %w", path, err)
	}
	return nil
}

// paperSummary writes the caption and the text table of
// report.SummaryTable.
func paperSummary(w io.Writer, files []*results.File) error {
	st := report.SummaryTable(files)
	fmt.Fprintln(w, st.Caption)
	return st.Render(w, table.Text)
}
