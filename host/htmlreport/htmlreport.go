// Package htmlreport writes results files as one self-contained HTML page:
// for each experiment its scenario, the regret, separated-regret and
// diagnostics tables (the data of host/report), every figure of host/plot
// inline as SVG and what is needed to reproduce it (bench version, each
// plugin's version and SHA-256, the command line, the host and the date),
// plus a comparison section when one is given; on request (Options
// Summary, MeanRanks: bench paper) a table of final values across runs
// and the mean ranks of the policies across experiments (Friedman test,
// Nemenyi critical difference and their figure; see host/ranktest).
//
// The page loads nothing: the style sheet is inline, the figures are
// inline SVG, and the one font the figures' text uses is embedded once as
// a data URL, a subset with only the glyphs of the figures' text (a fifth
// of the font; see subsetTTF). A policy has one colour in every
// experiment's figures (plot.RunStyles over the page's files, or
// Options.Styles); past 8 policies an experiment's figures are shown one
// a row, full width, for their long legends. In a changing environment
// the facts, tables and captions name the dynamic regret. It has no script, and its Content-Security-Policy forbids
// any load but inline styles and data-URL fonts and images, so that even
// a bug could not make it reach the network. It is built with html/template from the
// templates embedded under templates/; the only markup not produced by a
// template is the figures' SVG, which is checked to hold only what
// host/plot draws (see checkSVG).
//
// The page is valid whatever the results files hold: a character that
// HTML does not allow in a document (a control, a noncharacter, invalid
// UTF-8) shows as an escape (see host/internal/markupsafe), every id is
// unique (an experiment's is "exp-N-NAME", N its place in the page, and
// the ids of its tables and figures start with it), and a figure that
// cannot be drawn costs only itself: the page says so in its place, and
// Write returns a *PartialError naming it (so does a comparison section
// that cannot be recomputed).
package htmlreport

import (
	"bytes"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/internal/markupsafe"
	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/results"
)

//go:embed templates
var templateFS embed.FS

var page = template.Must(template.New("report.html.tmpl").Funcs(funcs).ParseFS(templateFS, "templates/*.tmpl"))

// funcs format the comparison's numbers as its text rendering does
// (host/compare, host/internal/numfmt).
var funcs = template.FuncMap{
	"pm": numfmt.PM,
	"delta": func(d compare.Diff) string {
		delta, _ := compare.DeltaText(d)
		return delta
	},
	"ci": func(d compare.Diff) string {
		_, ci := compare.DeltaText(d)
		return ci
	},
	"pval":         numfmt.P,
	"showFeedback": compare.ShowsFeedback,
	"feedback":     compare.FeedbackName,
	"leftOut":      compare.LeftOutNotes,
	"holm":         compare.HolmNote,
	"rank":         func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) },
	"fixed2":       func(x float64) string { return fmt.Sprintf("%.2f", x) },
	"pct": func(f float64) string {
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".") + "%"
	},
	"first":    func(i int) bool { return i == 0 },
	"matrix":   matrixView,
	"notes":    compare.Notes,
	"totals":   compare.TotalsOrder,
	"totRank":  compare.RankText,
	"totNotes": compare.TotalsNotes,
	"totTitle": compare.TotalsTitle,
	"sub1":     func(x float64) float64 { return 1 - x },
}

// styleSheet is the page's CSS: our own file, inlined.
var styleSheet = func() template.CSS {
	b, err := templateFS.ReadFile("templates/style.css")
	if err != nil {
		panic(err)
	}
	return template.CSS(b)
}()

// Options adjust a report.
type Options struct {
	// Title is the page's title; empty gives one from the files.
	Title string
	// Now is the report's date; zero means time.Now.
	Now time.Time
	// Version is the bench build writing the report; empty means
	// results.HostVersion().
	Version string
	// Comparison is the comparison across experiments (wins, ties and
	// losses, mean rank) shown at the top of the page, as bench paper
	// prints it. Nil means the summary of the comparison sections the
	// files carry (see compare.FromFile); each experiment shows its own
	// section in any case.
	Comparison *compare.Summary
	// LogX draws the regret and separated figures on a log t axis (see
	// plot.Options).
	LogX bool
	// LogY draws the regret and separated figures on a log y axis (see
	// plot.Options; the regret figure may have one anyway).
	LogY bool
	// Styles are the policies' styles in the figures (plot.Styles), so
	// that the page draws a policy as the run's figure files do; nil
	// means plot.RunStyles over the files in page order.
	Styles plot.Styles
	// Summary, when set, is shown at the top of the page as one table of
	// every policy's final values at T across these files (as bench paper
	// prints it on stdout).
	Summary []*results.File
	// Tables, when set, are shown after the summary under "Across
	// scenarios": tables of the whole run, such as a suite's policy x
	// scenario table and the bake-off's summary (host/compare), each with
	// its caption. Every row must have a cell per header, and Right one
	// value per header.
	Tables []*report.Table
	// MeanRanks, when set, are the experiments (results files) over which
	// the page ranks the policies: the Friedman test, the Nemenyi critical
	// difference and their figure (see ranktest.Across), for Metric at
	// Alpha (compare.DefaultOptions when empty).
	MeanRanks []*results.File
	// Metric and Alpha are those of MeanRanks.
	Metric string
	Alpha  float64
}

// PartialError is the error of Write and WriteFile when they wrote the
// page but could not draw some of its parts (a figure, an experiment's
// comparison section): the page says so in each one's place, and Failed
// names each and why.
type PartialError struct {
	Failed []string // such as "experiment 2 (\"obd\"): figure regret: why"
}

func (e *PartialError) Error() string {
	n := "1 part"
	if len(e.Failed) != 1 {
		n = fmt.Sprintf("%d parts", len(e.Failed))
	}
	return fmt.Sprintf("report: %s of the page could not be drawn (the page says so in their place): %s", n, strings.Join(e.Failed, "; "))
}

// Write renders files as one HTML page to w. Each file is one experiment,
// in the order given. When some figures (or comparison sections) cannot
// be drawn, it writes the page all the same and returns a *PartialError.
func Write(w io.Writer, files []*results.File, o Options) error {
	if len(files) == 0 {
		return fmt.Errorf("report: no results file to show")
	}
	p, err := build(files, o)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.Execute(&b, p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	// html/template escapes markup, not the characters no HTML document
	// may hold: those show as escapes, wherever in the page they came.
	if _, err := w.Write(markupsafe.Bytes(b.Bytes())); err != nil {
		return err
	}
	if len(p.failed) > 0 {
		return &PartialError{Failed: p.failed}
	}
	return nil
}

// WriteFile writes the page of files to path, atomically (a temporary
// file renamed over path). When some figures (or comparison sections)
// cannot be drawn, it writes the page all the same and returns a
// *PartialError.
func WriteFile(path string, files []*results.File, o Options) error {
	var b bytes.Buffer
	err := Write(&b, files, o)
	var partial *PartialError
	if err != nil && !errors.As(err, &partial) {
		return err
	}
	if err := safeio.WriteFile(path, b.Bytes()); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return err
}

// pageData is what the template shows.
type pageData struct {
	Title       string
	Style       template.CSS
	FontFaces   template.CSS
	Date        string
	Version     string
	Experiments []*experiment
	// Comparison is the summary across experiments; shown when it covers
	// more than one.
	Comparison *compare.Summary
	// Summary is the table of final values across the runs; nil when not
	// asked for.
	Summary *report.Table
	// Tables are the tables across the experiments (Options.Tables).
	Tables []*report.Table
	// Ranks is the mean-rank section; nil when not asked for.
	Ranks *ranks
	// failed names each part (figure, comparison section) that could not
	// be drawn, and why.
	failed []string
}

type experiment struct {
	// ID is the section's anchor, "exp-N-NAME": unique in the page, and
	// the start of the ids of its tables ("-table-"), figures ("-fig-"),
	// comparison ("-comparison", "-comparison-table") and plugins table.
	ID          string
	Name        string
	Title       string // as the text report's title line
	Description string
	Incomplete  bool
	Facts       []fact
	Tables      []report.Table
	// Comparison is the experiment's comparison section, recomputed from
	// its policies (compare.FromFile); nil when it has none.
	Comparison *compare.Scenario
	// ComparisonError says why the file's comparison section could not
	// be recomputed; "" when it could.
	ComparisonError string
	Failures        []failure
	Figures         []figure
	// OneColumn puts the figures one a row, full width: past
	// maxTwoColumnPolicies policies their legends are long.
	OneColumn bool
	// FiguresError says why no figure could be drawn at all; "" when
	// they could (each figure says why it failed, if it did).
	FiguresError string
	Repro        repro
}

type fact struct{ Name, Value string }

type failure struct{ Label, Plugin, Error string }

type figure struct {
	ID      string
	Name    string // host/plot's name: regret, diag_kkt_gap, ...
	Caption string
	SVG     template.HTML
	Error   string // why the figure could not be drawn; "" when drawn
}

type repro struct {
	Version, Host, Date string
	Command             string
	Plugins             []pluginRow
}

type pluginRow struct {
	Label, Plugin, Version, SHA256, Sandbox, Params string
}

func build(files []*results.File, o Options) (*pageData, error) {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	version := o.Version
	if version == "" {
		version = results.HostVersion()
	}
	p := &pageData{
		Title:      o.Title,
		Style:      styleSheet,
		Date:       now.UTC().Format("2006-01-02 15:04 UTC"),
		Version:    version,
		Comparison: o.Comparison,
	}
	if o.Summary != nil {
		p.Summary = summaryTable(o.Summary)
	}
	for _, t := range o.Tables {
		if len(t.Right) != len(t.Header) || slices.ContainsFunc(t.Rows, func(r []string) bool { return len(r) != len(t.Header) }) {
			return nil, fmt.Errorf("report: table %q: rows and alignments must have a cell per header", t.Name)
		}
		p.Tables = append(p.Tables, t)
	}
	// The one mean rank (host/ranktest): of o.MeanRanks, or else of the
	// page's experiments, in every table and figure of the page.
	rankFiles := o.MeanRanks
	if rankFiles == nil {
		rankFiles = files
	}
	analysis := ranktest.Across(rankFiles, metricOf(o), alphaOf(o))
	if o.MeanRanks != nil {
		p.Ranks = meanRanks(analysis)
		if p.Ranks.Error != "" {
			p.failed = append(p.failed, "mean-rank figure: "+p.Ranks.Error)
		}
	}
	if p.Title == "" {
		p.Title = "regretbench report: " + files[0].Scenario.Name
		if len(files) > 1 {
			p.Title = fmt.Sprintf("regretbench report: %d experiments", len(files))
		}
	}
	// One style per policy across the page: a policy keeps its colour in
	// every experiment's figures.
	po := plot.Options{LogX: o.LogX, LogY: o.LogY, Styles: o.Styles}
	if po.Styles == nil {
		po.Styles = plot.RunStyles(files...)
	}
	var cmps []*compare.Scenario
	for i, f := range files {
		e := buildExperiment(f, anchor(i, f.Scenario.Name), po)
		where := fmt.Sprintf("experiment %d (%q)", i+1, f.Scenario.Name)
		if e.ComparisonError != "" {
			p.failed = append(p.failed, where+": comparison: "+e.ComparisonError)
		}
		if e.FiguresError != "" {
			p.failed = append(p.failed, where+": figures: "+e.FiguresError)
		}
		for _, fig := range e.Figures {
			if fig.Error != "" {
				p.failed = append(p.failed, where+": figure "+fig.Name+": "+fig.Error)
			}
		}
		p.Experiments = append(p.Experiments, e)
		if e.Comparison != nil {
			cmps = append(cmps, e.Comparison)
		}
	}
	// The font, once, with the glyphs of the figures' text only.
	text := map[rune]bool{}
	if p.Ranks != nil {
		svgText(text, p.Ranks.SVG)
	}
	for _, e := range p.Experiments {
		for _, fig := range e.Figures {
			svgText(text, fig.SVG)
		}
	}
	ff, err := fontFaces(text)
	if err != nil {
		return nil, err
	}
	p.FontFaces = ff
	if p.Comparison == nil && len(cmps) > 0 {
		p.Comparison = compare.Summarize(cmps, analysis)
	}
	if p.Comparison != nil && len(p.Comparison.Scenarios) < 2 {
		p.Comparison = nil // one experiment's section says it all
	}
	return p, nil
}

// maxAnchorName bounds the part of an anchor taken from a name.
const maxAnchorName = 48

// anchor returns the id of the i-th experiment (from 0), named name:
// "exp-", i+1, "-" and the name's first letters, digits, '-' and '_'
// (others made '_'). The number makes it unique in the page, and since a
// '-' follows it, no id that starts with one experiment's starts with
// another's.
func anchor(i int, name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() == maxAnchorName {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return "exp-" + strconv.Itoa(i+1) + "-" + b.String()
}

func buildExperiment(f *results.File, id string, po plot.Options) *experiment {
	sc := f.Scenario
	e := &experiment{
		ID:          id,
		Name:        sc.Name,
		Title:       report.Title(f),
		Description: sc.Description,
		Incomplete:  !f.Complete,
		Tables:      report.TableData(f, nil),
	}
	cmp, err := compare.FromFile(f)
	if err != nil {
		e.ComparisonError = err.Error()
	}
	e.Comparison = cmp
	means := make([]string, len(sc.Means))
	for i, m := range sc.Means {
		means[i] = strconv.FormatFloat(m, 'g', -1, 64)
	}
	noise := strconv.FormatFloat(sc.NoiseSD, 'g', -1, 64)
	if sc.NoiseKnown != nil {
		if *sc.NoiseKnown {
			noise += " (known to the policies)"
		} else {
			noise += " (not given to the policies)"
		}
	}
	runs := strconv.Itoa(sc.Runs)
	if f.Shard.Count > 1 {
		runs += fmt.Sprintf(" (this file: shard %d/%d)", f.Shard.Index, f.Shard.Count)
	}
	e.Facts = []fact{
		{"reward family", sc.Family},
		{"arms", strconv.Itoa(sc.Arms)},
		{"means", strings.Join(means, ", ")},
		{"noise sd", noise},
		{"horizon T", strconv.Itoa(sc.Horizon)},
		{"replications", runs},
		{"seed", seedFact(sc)},
		{"initial pulls per arm", strconv.Itoa(sc.InitPulls)},
	}
	if sc.Context != nil {
		e.Facts = contextFacts(f, runs)
	}
	if plot.Dynamic(f) {
		e.Facts = append(e.Facts, fact{"regret", "dynamic regret: against the best arm of each round"})
	}
	if ch := changesFact(sc); ch != "" {
		e.Facts = append(e.Facts, fact{"changing means", ch})
	}
	if sc.Streams != "" {
		e.Facts = append(e.Facts, fact{"reward streams", sc.Streams})
	}
	if a := report.AuditOutcome(f); a != "" {
		e.Facts = append(e.Facts, fact{"audit", a})
	}
	for _, p := range f.Policies {
		params, err := plainJSON(p.Params)
		if err != nil {
			params = "(not shown: " + err.Error() + ")"
		}
		e.Repro.Plugins = append(e.Repro.Plugins, pluginRow{Label: p.Label, Plugin: p.Plugin, Version: orNone(p.PluginVersion), SHA256: orNone(p.PluginSHA256), Sandbox: orNone(p.SandboxShown()), Params: params})
		if p.Status == results.StatusFailed {
			e.Failures = append(e.Failures, failure{Label: p.Label, Plugin: p.Plugin, Error: p.Error})
		}
	}
	b := f.Bench
	if b == nil {
		b = &results.BenchInfo{}
	}
	e.Repro = repro{Version: orNone(b.Version), Host: orNone(b.Host), Date: orNone(b.Date), Command: orNone(shellQuote(b.Command)), Plugins: e.Repro.Plugins}
	e.Figures, e.FiguresError = figures(f, e.ID, po)
	e.OneColumn = len(okPolicies(f)) > maxTwoColumnPolicies
	return e
}

// contextFacts are the facts of a contextual scenario (report.Contextual):
// its contexts (dataset or model, dimension d, arms K) in place of the
// means and noise it does not have, and what its regret and pv_loss are.
func contextFacts(f *results.File, runs string) []fact {
	sc, c := f.Scenario, f.Scenario.Context
	facts := []fact{
		{"contexts", report.ContextText(f)},
		{"context dimension d", strconv.Itoa(c.Dim)},
		{"arms K", strconv.Itoa(sc.Arms)},
		{"reward family", sc.Family},
		{"horizon T", strconv.Itoa(sc.Horizon)},
		{"replications", runs},
		{"seed", seedFact(sc)},
		{"regret", "against the best arm for each context"},
		{"pv_loss", "progressive-validation loss: the mean of 1 - reward over the rounds so far"},
		{"not computed", "underestimation, regret_under, regret_not_under (no arm is best in every round)"},
	}
	if c.Model == "" {
		facts[8].Value += " (on a dataset: regret / t, the online error rate)"
	}
	return facts
}

// plainJSON returns v as one line of JSON with < > & written as they are:
// json.Marshal would write them \u003c \u003e \u0026, which the page
// would show as such. The template escapes the text for the page.
func plainJSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// seedFact shows a scenario's seed: the integer, or a secret's 0x form
// marked as such (the report shows what reproduces the run).
func seedFact(sc results.Scenario) string {
	if sc.Seed.Secret() {
		return sc.Seed.String() + " (secret)"
	}
	return sc.Seed.String()
}

// orNone returns s, or "not recorded" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// shellQuote joins args into a command line a POSIX shell reads back as
// args.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@+%") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// maxTwoColumnPolicies is the most policies whose figures the page
// shows two a row.
const maxTwoColumnPolicies = 8

// changesFact says how the means of sc change, for the facts of its
// experiment; "" when they do not.
func changesFact(sc results.Scenario) string {
	var pts []string
	for _, c := range sc.Changes {
		pts = append(pts, "("+floats(c.Means)+") from round "+strconv.Itoa(c.At))
	}
	if len(pts) > 0 {
		return "breakpoints: " + strings.Join(pts, "; ")
	}
	for _, c := range sc.Drift {
		pts = append(pts, "("+floats(c.Means)+") at round "+strconv.Itoa(c.At))
	}
	if len(pts) > 0 {
		return "linear drift to " + strings.Join(pts, ", then ")
	}
	if r := sc.RandomChanges; r != nil {
		return fmt.Sprintf("random breakpoints: Poisson, %s a round; means redrawn %s", strconv.FormatFloat(r.Rate, 'g', -1, 64), plainOr(r.Means))
	}
	return ""
}

// floats joins xs as the facts show means.
func floats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ", ")
}

// plainOr is v as one line of JSON, or why not.
func plainOr(v any) string {
	s, err := plainJSON(v)
	if err != nil {
		return "(not shown: " + err.Error() + ")"
	}
	return s
}

// captions say what each figure of host/plot shows, by figure name.
var captions = map[string]string{
	"regret":              "Cumulative regret against the round t: mean and a band of one standard error per policy.",
	"underestimation":     "Cumulative underestimation of the best arm, log-log axes (points at zero are left out).",
	"separated":           "Regret split by whether the best arm's empirical mean was below the second-best: regret_under (dashed) and regret_not_under (solid).",
	"pv_loss":             "Progressive-validation loss against the round t (the mean of 1 - reward over the rounds so far, the contextual bandit bake-off's metric): mean and a band of one standard error per policy.",
	"regret_distribution": "Final regret of every replication, one box plot per policy: box the quartiles, line the median, whiskers within 1.5 IQR, dots the replications beyond, × the mean; a log axis when the values are heavy-tailed.",
}

// regretCaption is the caption of the regret or separated figure fig:
// dynamic regret in a changing environment, and the axes as drawn.
func regretCaption(fig plot.Figure, dynamic bool, po plot.Options) string {
	what := "regret"
	if dynamic {
		what = "dynamic regret (each round's best arm the reference)"
	}
	var b strings.Builder
	if fig.Name == "regret" {
		b.WriteString("Cumulative " + what + " against the round t: ")
		if fig.LogY {
			b.WriteString("mean per policy, on a log y axis (no band)")
			if !po.LogY {
				b.WriteString(": the final values span more than two decades")
			}
			b.WriteString(".")
		} else {
			b.WriteString("mean and a band of one standard error per policy.")
		}
	} else {
		b.WriteString(strings.ToUpper(what[:1]) + what[1:] + " split by whether the best arm's empirical mean was below the second-best: regret_under (dashed) and regret_not_under (solid).")
		if fig.LogY {
			b.WriteString(" Log y axis.")
		}
	}
	if po.LogX {
		b.WriteString(" Log t axis.")
	}
	return b.String()
}

// encodeSVG draws a figure as SVG (a variable so that a test can make a
// figure fail).
var encodeSVG = func(fig plot.Figure, w io.Writer) error { return fig.Encode(w, "svg") }

// figures returns the figures of f, their ids prefix+"-fig-"+name. A
// figure that cannot be drawn, or whose SVG checkSVG refuses, is returned
// with its Error set and no SVG; when none can be drawn at all, figures
// returns why.
func figures(f *results.File, prefix string, po plot.Options) ([]figure, string) {
	if len(okPolicies(f)) == 0 {
		return nil, "" // every policy failed: nothing to draw
	}
	figs, err := plot.FiguresWith(f, po)
	if err != nil {
		return nil, err.Error()
	}
	var out []figure
	for _, fig := range figs {
		caption, ok := captions[fig.Name]
		if !ok {
			// The diagnostic's own name, not the file-safe slug of the
			// figure's (hit_rate____ for "hit_rate (%)").
			caption = "Plugin diagnostic " + fig.Metric + " against t (log t axis)."
			if fig.LogY {
				caption = "Plugin diagnostic " + fig.Metric + " against t, mean per policy (log-log axes)."
			}
		}
		if fig.Name == "regret" || fig.Name == "separated" {
			caption = regretCaption(fig, plot.Dynamic(f), po)
			if report.Contextual(f) {
				caption = strings.Replace(caption, "Cumulative regret", "Cumulative regret (against the best arm for each context)", 1)
			}
		}
		if fig.Name == "pv_loss" && po.LogX {
			caption += " Log t axis."
		}
		for _, n := range fig.Notes {
			caption += " " + n
		}
		fg := figure{ID: prefix + "-fig-" + fig.Name, Name: fig.Name, Caption: caption}
		var b bytes.Buffer
		if err := encodeSVG(fig, &b); err != nil {
			fg.Error = err.Error()
		} else if fg.SVG, err = checkSVG(b.Bytes()); err != nil {
			fg.Error = err.Error()
		}
		out = append(out, fg)
	}
	return out, ""
}

func okPolicies(f *results.File) []*results.Policy {
	var ok []*results.Policy
	for _, p := range f.Policies {
		if p.Status != results.StatusFailed && len(p.Checkpoints) > 0 {
			ok = append(ok, p)
		}
	}
	return ok
}

// fontFaces returns the @font-face rules that embed the figures' font, so
// that their text has the metrics it was laid out with on any machine:
// once for the page, a subset with the glyphs of the characters of text
// (subsetTTF); none when no figure has text.
func fontFaces(text map[rune]bool) (template.CSS, error) {
	if len(text) == 0 {
		return "", nil
	}
	faces, err := plot.FontFaces()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range faces {
		if strings.Trim(f.Family, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -") != "" {
			return "", fmt.Errorf("figure font family %q: unexpected characters", f.Family)
		}
		ttf, err := subsetTTF(f.TTF, text)
		if err != nil {
			return "", fmt.Errorf("figure font %s: subset: %w", f.Family, err)
		}
		fmt.Fprintf(&b, "@font-face{font-family:%q;font-style:normal;font-weight:normal;src:url(data:font/ttf;base64,%s) format(\"truetype\");}\n",
			f.Family, base64.StdEncoding.EncodeToString(ttf))
	}
	return template.CSS(b.String()), nil
}
