package run

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/host/table"
)

// PaperOrder is the order of the experiments in DIR/index.html: the
// paper's main-text instances first, the ReMaxGrad sweeps last.
var PaperOrder = []string{"two_arm", "three_arm", "ten_arm", "failure_mode", "obd", "movielens", "remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"}

// PaperOutput says what WritePaper writes, where, and to whom it speaks.
type PaperOutput struct {
	Dir     string          // the directory written, which exists
	Formats []string        // figure formats
	LogX    bool            // the regret and separated figures on a log t axis
	LogY    bool            // and on a log y axis
	Compare compare.Options // the comparison section's metric and alpha, checked
	// Interrupted says the play was interrupted: only the scenarios
	// whose every policy ran to its end (or failed by itself) are
	// written, as the paper's results must be whole.
	Interrupted bool
	// Stdout gets the summary table, the comparison sections, the mean
	// ranks and the closing line; Stderr what could not be written.
	Stdout, Stderr io.Writer
	// Stamp, when not nil, is called on each results file before it is
	// written (bench records its provenance).
	Stamp func(*results.File)
	// Written, when not nil, is called with every results file written
	// before stdout gets the summary (bench prints the stacks of the
	// policies that panicked).
	Written func([]*results.File)
}

// PaperWritten says what WritePaper wrote.
type PaperWritten struct {
	Dir  string   // where
	Done []string // the scenarios written, in PaperRuns order
	Left []string // interrupted: the scenarios not finished, not written
	// Failed counts the outputs that could not be written (a figure, a
	// report, index.html), each named on Stderr when it failed.
	Failed int
}

// WritePaper writes into o.Dir what a paper run played (All's results
// of PaperScenarios): per experiment (PaperExperiments) its results
// file, text report, LaTeX tables and figures; the mean-ranks figure;
// index.html, one page of every experiment; paper.tex, the wide policy x
// experiment table and the mean-rank table; with added policies the
// comparison sections, as comparison.txt, .md, .csv, .json and .tex. It
// prints the summary table, the comparison sections and the mean ranks
// to o.Stdout. An output that cannot be written costs only itself: it
// is named on o.Stderr at once, everything else is written and
// PaperWritten.Failed counts it. The error is stdout's.
func WritePaper(played *AllResults, o PaperOutput) (*PaperWritten, error) {
	dir, cmpOpt := o.Dir, o.Compare
	pw := &PaperWritten{Dir: dir}
	warn := func(err error) {
		pw.Failed++
		fmt.Fprintf(o.Stderr, "bench: %v\n", err)
	}
	var all []*results.File
	cmpOf := map[string]*compare.Scenario{} // by experiment
	written := map[string]*results.File{}   // by the name of the files written
	var exps []Experiment
	for i, pr := range PaperRuns {
		f := played.Files[i]
		if o.Interrupted && !played.Finished[i] {
			pw.Left = append(pw.Left, pr.Scenario)
			continue
		}
		if f == nil {
			continue
		}
		pw.Done = append(pw.Done, pr.Scenario)
		if o.Stamp != nil {
			o.Stamp(f)
		}
		all = append(all, f)
		exps = append(exps, PaperExperiments(i, f, played.Added, cmpOpt)...)
	}
	// A policy keeps its colour across the run: by order of first
	// appearance over the experiments in the page's order (PaperOrder).
	styles := plot.Styles{}
	for _, name := range PaperOrder {
		for _, e := range exps {
			if e.Name == name {
				styles.AddFile(e.File)
			}
		}
	}
	for _, e := range exps {
		styles.AddFile(e.File) // any experiment PaperOrder lacks
	}
	for _, e := range exps {
		if e.ComparisonErr != nil {
			fmt.Fprintf(o.Stderr, "bench: warning: %s: no comparison section: %v\n", e.File.Scenario.Name, e.ComparisonErr)
		}
		cmpOf[e.Name] = e.Comparison
		if err := writeReport(dir, e.Name, e.File, o.Formats, plot.Options{LogX: o.LogX, LogY: o.LogY, Styles: styles}); err != nil {
			warn(err)
		}
		written[e.Name] = e.Page
	}
	var cmps []*compare.Scenario // in the order of the experiments, as index.html shows them
	for _, name := range PaperOrder {
		if c := cmpOf[name]; c != nil {
			cmps = append(cmps, c)
		}
	}
	var page []*results.File // the experiments in the page's order
	for _, name := range PaperOrder {
		if f := written[name]; f != nil {
			page = append(page, f)
		}
	}
	// The one mean rank (host/ranktest) of every output: over the
	// experiments of the page, a sweep counted once with its base
	// instance (the same run).
	var ranks *ranktest.Analysis
	var rankText []string
	if len(page) > 0 {
		ranks = ranktest.Across(page, cmpOpt.Metric, cmpOpt.Alpha)
		rankText = htmlreport.RanksText(ranks)
		if ranks.Friedman != nil {
			if _, err := plot.WriteFigure(htmlreport.RanksFigure(ranks), dir, "mean_ranks", o.Formats...); err != nil {
				warn(err)
			}
		}
	}
	summary := PaperSummaryFiles(page, played.Added)
	var sum *compare.Summary
	if len(cmps) > 0 {
		sum = compare.Summarize(cmps, ranks) // across the runs, as stdout prints it
	}
	if len(page) > 0 {
		index := filepath.Join(dir, "index.html")
		opts := htmlreport.Options{Title: "regretbench: the ReMax paper's experiments", LogX: o.LogX, LogY: o.LogY, Styles: styles, Summary: summary,
			MeanRanks: page, Metric: cmpOpt.Metric, Alpha: cmpOpt.Alpha, Comparison: sum}
		if err := htmlreport.WriteFile(index, page, opts); err != nil {
			warn(fmt.Errorf("%s: %w", index, err))
		}
		var b bytes.Buffer
		tex := filepath.Join(dir, "paper.tex")
		if err := compare.WritePaperLatex(&b, summary, ranks, cmpOpt); err != nil {
			warn(fmt.Errorf("%s: %w", tex, err))
		} else if err := safeio.WriteFile(tex, b.Bytes()); err != nil {
			warn(fmt.Errorf("%s: %w", tex, err))
		}
	}
	if o.Written != nil {
		o.Written(all)
	}
	if err := paperSummary(o.Stdout, summary); err != nil {
		return pw, err
	}
	if sum != nil {
		if err := writeComparisons(o.Stdout, dir, sum); err != nil {
			warn(err)
		}
	}
	if len(rankText) > 0 {
		fmt.Fprintln(o.Stdout, "\nMean ranks across experiments")
		for _, l := range rankText {
			fmt.Fprintln(o.Stdout, termsafe.String(l))
		}
	}
	fmt.Fprintf(o.Stdout, "\n%d experiments (%d scenario runs) in %.1f s wall; results in %s/\n", len(written), len(all), played.Elapsed.Seconds(), dir)
	return pw, nil
}

// Interrupted is the error of an interrupted paper run, whose cause is
// the signal: which scenarios it wrote and which it did not finish.
func (pw *PaperWritten) Interrupted(cause error) error {
	wrote := "none"
	if len(pw.Done) > 0 {
		wrote = strings.Join(pw.Done, ", ")
	}
	notDone := "none"
	if len(pw.Left) > 0 {
		notDone = strings.Join(pw.Left, ", ")
	}
	return fmt.Errorf("%v: finished scenarios written to %s: %s; not finished: %s", cause, pw.Dir, wrote, notDone)
}

// Err is nil when every output was written, else an error counting those
// that were not (each named on stderr when it failed).
func (pw *PaperWritten) Err() error {
	if pw.Failed == 0 {
		return nil
	}
	return fmt.Errorf("%d outputs could not be written (named above); everything else was, in %s/", pw.Failed, pw.Dir)
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
// LaTeX tables, as --format latex writes them) and the figures of f into
// dir; the text and LaTeX tables are followed by f's comparison section,
// if any. What cannot be written costs only itself: writeReport writes
// the rest and returns an error naming each failure.
func writeReport(dir, name string, f *results.File, formats []string, po plot.Options) error {
	var errs []error
	if err := f.WriteFile(filepath.Join(dir, name+".json")); err != nil {
		errs = append(errs, err)
	}
	txt := filepath.Join(dir, name+".txt")
	if err := writeTables(txt, f, report.FormatTable); err != nil {
		errs = append(errs, fmt.Errorf("report %s: %w", txt, err))
	}
	tex := filepath.Join(dir, name+".tex")
	if err := writeTables(tex, f, report.FormatLatex); err != nil {
		errs = append(errs, fmt.Errorf("LaTeX tables %s: %w", tex, err))
	}
	if _, err := plot.WriteWith(f, dir, po, formats...); err != nil {
		errs = append(errs, fmt.Errorf("%s figures: %w", name, err))
	}
	return errors.Join(errs...)
}

// writeTables writes f's tables and its comparison section, if any, in
// format to path.
func writeTables(path string, f *results.File, format report.Format) error {
	cmp, err := compare.FromFile(f)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := report.Render(&b, f, report.Options{Format: format}, compare.Section(cmp), report.Figures{}); err != nil {
		return err
	}
	return safeio.WriteFile(path, b.Bytes())
}

// PaperSummaryFiles are the experiments of page (in PaperOrder) as the
// summary table and paper.tex show them, each scenario its own rows: a
// sweep without the rows it shares with its base instance (PaperBaseLabels
// and the added policies, the same run), which the base's rows show.
func PaperSummaryFiles(page []*results.File, added []string) []*results.File {
	var out []*results.File
	for _, f := range page {
		base := ""
		for _, pr := range PaperRuns {
			if pr.Scenario == f.Scenario.Name {
				base = pr.Base
			}
		}
		if base == "" {
			out = append(out, f)
			continue
		}
		g := *f
		g.Policies = nil
		for _, p := range f.Policies {
			if !slices.Contains(PaperBaseLabels, p.Label) && !slices.Contains(added, p.Label) {
				g.Policies = append(g.Policies, p)
			}
		}
		out = append(out, &g)
	}
	return out
}

// paperSummary writes the caption and the text table of
// report.SummaryTable.
func paperSummary(w io.Writer, files []*results.File) error {
	st := report.SummaryTable(files)
	fmt.Fprintln(w, st.Caption)
	return st.Render(w, table.Text)
}
