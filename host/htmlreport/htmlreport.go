// Package htmlreport writes results files as one self-contained HTML page:
// for each experiment its scenario, the regret, separated-regret and
// diagnostics tables (the data of host/report), every figure of host/plot
// inline as SVG and what is needed to reproduce it (bench version, each
// plugin's version and SHA-256, the command line, the host and the date),
// plus a comparison section when one is given.
//
// The page loads nothing: the style sheet is inline, the figures are
// inline SVG, and the one font the figures' text uses is embedded once as
// a data URL. It has no script, and its Content-Security-Policy forbids
// any load but inline styles and data-URL fonts and images, so that even
// a bug could not make it reach the network. It is built with html/template from the
// templates embedded under templates/; the only markup not produced by a
// template is the figures' SVG, which is checked to hold only what
// host/plot draws (see checkSVG).
package htmlreport

import (
	"bytes"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/host/plot"
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
	"pval":         compare.PText,
	"showFeedback": compare.ShowsFeedback,
	"feedback":     compare.FeedbackName,
	"leftOut":      compare.LeftOutNotes,
	"holm":         compare.HolmNote,
	"rank":         func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) },
	"fixed2":       func(x float64) string { return fmt.Sprintf("%.2f", x) },
	"pct": func(f float64) string {
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".") + "%"
	},
	"first": func(i int) bool { return i == 0 },
	"sub1":  func(x float64) float64 { return 1 - x },
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
}

// Write renders files as one HTML page to w. Each file is one experiment,
// in the order given.
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
	_, err = w.Write(b.Bytes())
	return err
}

// WriteFile writes the page of files to path, atomically (a temporary
// file renamed over path).
func WriteFile(path string, files []*results.File, o Options) error {
	var b bytes.Buffer
	if err := Write(&b, files, o); err != nil {
		return err
	}
	if err := safeio.WriteFile(path, b.Bytes()); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
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
}

type experiment struct {
	ID          string // anchor, unique in the page
	Name        string
	Title       string // as the text report's title line
	Description string
	Incomplete  bool
	Facts       []fact
	Tables      []report.Table
	// Comparison is the experiment's comparison section, recomputed from
	// its policies (compare.FromFile); nil when it has none.
	Comparison *compare.Scenario
	Failures   []failure
	Figures    []figure
	Repro      repro
}

type fact struct{ Name, Value string }

type failure struct{ Label, Plugin, Error string }

type figure struct {
	ID      string
	Caption string
	SVG     template.HTML
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
	if p.Title == "" {
		p.Title = "regretbench report: " + files[0].Scenario.Name
		if len(files) > 1 {
			p.Title = fmt.Sprintf("regretbench report: %d experiments", len(files))
		}
	}
	ff, err := fontFaces()
	if err != nil {
		return nil, err
	}
	p.FontFaces = ff
	used := map[string]bool{}
	var cmps []*compare.Scenario
	for i, f := range files {
		e, err := buildExperiment(f, used)
		if err != nil {
			return nil, fmt.Errorf("report: experiment %d (%s): %w", i+1, f.Scenario.Name, err)
		}
		p.Experiments = append(p.Experiments, e)
		if e.Comparison != nil {
			cmps = append(cmps, e.Comparison)
		}
	}
	if p.Comparison == nil && len(cmps) > 0 {
		p.Comparison = compare.Summarize(cmps)
	}
	if p.Comparison != nil && len(p.Comparison.Scenarios) < 2 {
		p.Comparison = nil // one experiment's section says it all
	}
	return p, nil
}

// anchor returns an id made of the name's letters, digits, '-' and '_',
// unique among used.
func anchor(name string, used map[string]bool) string {
	base := "exp-" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
	id := base
	for n := 2; used[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	used[id] = true
	return id
}

func buildExperiment(f *results.File, used map[string]bool) (*experiment, error) {
	sc := f.Scenario
	e := &experiment{
		ID:          anchor(sc.Name, used),
		Name:        sc.Name,
		Title:       report.Title(f),
		Description: sc.Description,
		Incomplete:  !f.Complete,
		Tables:      report.TableData(f, nil),
	}
	cmp, err := compare.FromFile(f)
	if err != nil {
		return nil, err
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
	if sc.Streams != "" {
		e.Facts = append(e.Facts, fact{"reward streams", sc.Streams})
	}
	for _, p := range f.Policies {
		params, err := json.Marshal(p.Params)
		if err != nil {
			return nil, fmt.Errorf("policy %q: params: %w", p.Label, err)
		}
		e.Repro.Plugins = append(e.Repro.Plugins, pluginRow{Label: p.Label, Plugin: p.Plugin, Version: orNone(p.PluginVersion), SHA256: orNone(p.PluginSHA256), Sandbox: orNone(p.Sandbox), Params: string(params)})
		if p.Status == results.StatusFailed {
			e.Failures = append(e.Failures, failure{Label: p.Label, Plugin: p.Plugin, Error: p.Error})
		}
	}
	b := f.Bench
	if b == nil {
		b = &results.BenchInfo{}
	}
	e.Repro = repro{Version: orNone(b.Version), Host: orNone(b.Host), Date: orNone(b.Date), Command: orNone(shellQuote(b.Command)), Plugins: e.Repro.Plugins}
	figs, err := figures(f, e.ID)
	if err != nil {
		return nil, err
	}
	e.Figures = figs
	return e, nil
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

// captions say what each figure of host/plot shows, by figure name.
var captions = map[string]string{
	"regret":          "Cumulative regret against the round t: mean and a band of one standard error per policy.",
	"underestimation": "Cumulative underestimation of the best arm, log-log axes (points at zero are left out).",
	"separated":       "Regret split by whether the best arm's empirical mean was below the second-best: regret_under (dashed) and regret_not_under (solid).",
}

func figures(f *results.File, prefix string) ([]figure, error) {
	if len(okPolicies(f)) == 0 {
		return nil, nil // every policy failed: nothing to draw
	}
	figs, err := plot.Figures(f)
	if err != nil {
		return nil, err
	}
	var out []figure
	for _, fig := range figs {
		var b bytes.Buffer
		if err := fig.Encode(&b, "svg"); err != nil {
			return nil, fmt.Errorf("figure %s: %w", fig.Name, err)
		}
		svg, err := checkSVG(b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", fig.Name, err)
		}
		caption, ok := captions[fig.Name]
		if !ok {
			caption = "Plugin diagnostic " + strings.TrimPrefix(fig.Name, "diag_") + " against t (log t axis)."
		}
		out = append(out, figure{ID: prefix + "-" + fig.Name, Caption: caption, SVG: svg})
	}
	return out, nil
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
// that their text has the metrics it was laid out with on any machine.
func fontFaces() (template.CSS, error) {
	faces, err := plot.FontFaces()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range faces {
		if strings.Trim(f.Family, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -") != "" {
			return "", fmt.Errorf("figure font family %q: unexpected characters", f.Family)
		}
		fmt.Fprintf(&b, "@font-face{font-family:%q;font-style:normal;font-weight:normal;src:url(data:font/ttf;base64,%s) format(\"truetype\");}\n",
			f.Family, base64.StdEncoding.EncodeToString(f.TTF))
	}
	return template.CSS(b.String()), nil
}
