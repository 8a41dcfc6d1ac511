package plot_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gonumplot "gonum.org/v1/plot"

	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

// TestAutoLogY: a log y axis when the positive values span more than two
// decades, never on fewer than two positive values.
func TestAutoLogY(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []float64
		want   bool
	}{
		{"one decade", []float64{2, 20}, false},
		{"exactly two decades", []float64{0.5, 50}, false},
		{"just over two decades", []float64{0.5, 50.1}, true},
		{"issue 34: exp3 against the best", []float64{0.3, 2.1, 4.8, 55}, true},
		{"zeros and negatives left out", []float64{0, -100, 1, 50}, false},
		{"one positive value", []float64{0, 1e6}, false},
		{"none", nil, false},
	} {
		if got := plot.AutoLogY(c.values); got != c.want {
			t.Errorf("%s: AutoLogY(%v) = %v, want %v", c.name, c.values, got, c.want)
		}
	}
}

// regretFigure returns f's regret figure drawn as o says.
func regretFigure(t *testing.T, f *results.File, o plot.Options) plot.Figure {
	t.Helper()
	figs, err := plot.FiguresWith(f, o)
	if err != nil {
		t.Fatal(err)
	}
	return figure(t, figs, "regret")
}

// TestLogY: the regret figure is on a log y axis with --log-y, and
// without it once a policy's final regret is more than 100 times
// another's (its lower end a decade under the smallest final value, its
// title "mean" without a band); otherwise linear with bands.
func TestLogY(t *testing.T) {
	isLog := func(fig plot.Figure) bool {
		_, ok := fig.Plot.Y.Scale.(gonumplot.LogScale)
		return ok && fig.LogY
	}
	f := small(t)
	if fig := regretFigure(t, f, plot.Options{}); isLog(fig) || !strings.Contains(fig.Plot.Title.Text, "mean ± 1 SE") {
		t.Errorf("small (final regrets 6.4 to 8.6): log y %v, title %q; want linear with bands", isLog(fig), fig.Plot.Title.Text)
	}
	if fig := regretFigure(t, f, plot.Options{LogY: true}); !isLog(fig) {
		t.Error("--log-y: the regret figure is not on a log y axis")
	}
	figs, err := plot.FiguresWith(f, plot.Options{LogY: true})
	if err != nil {
		t.Fatal(err)
	}
	if sep := figure(t, figs, "separated"); !isLog(sep) {
		t.Error("--log-y: the separated figure is not on a log y axis")
	}
	// One policy 200 times worse than the best: log y without asking.
	worst := f.Policies[1]
	for i := range worst.Regret.Mean {
		worst.Regret.Mean[i] *= 200 * f.Policies[0].Regret.Mean[len(f.Policies[0].Regret.Mean)-1] / worst.Regret.Mean[len(worst.Regret.Mean)-1]
	}
	f.Policies[0].Regret.Mean[0] = 1e-6 // would stretch the axis over five decades nobody reads
	fig := regretFigure(t, f, plot.Options{})
	if !isLog(fig) || strings.Contains(fig.Plot.Title.Text, "SE") {
		t.Fatalf("final regrets 200x apart: log y %v, title %q; want a log y axis, means only", isLog(fig), fig.Plot.Title.Text)
	}
	if lo := fig.Plot.Y.Min; !(lo == 0.1) { // best final 6.36: a decade under, rounded down
		t.Errorf("log y axis starts at %g, want 0.1", lo)
	}
	if err := fig.Encode(new(strings.Builder), "svg"); err != nil {
		t.Errorf("log y regret figure: %v", err)
	}
}

// TestBreakpointsDrawn: the regret and separated figures of a
// piecewise-stationary environment draw a dotted vertical line at each
// breakpoint within the horizon, say so in a note, and name the dynamic
// regret; a stationary one has neither.
func TestBreakpointsDrawn(t *testing.T) {
	f := small(t)
	f.Scenario.Changes = []results.Change{{At: 60, Means: []float64{0.5, 0.8, 0.9}}, {At: 150, Means: []float64{0.9, 0.8, 0.5}}}
	dir := t.TempDir()
	figs, err := plot.FiguresWith(f, plot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"regret", "separated"} {
		fig := figure(t, figs, name)
		if !strings.Contains(fig.Plot.Title.Text, "dynamic regret") || !strings.Contains(fig.Metric, "dynamic regret") {
			t.Errorf("%s: title %q, metric %q; want dynamic regret named", name, fig.Plot.Title.Text, fig.Metric)
		}
		if note := strings.Join(fig.Notes, " "); !strings.Contains(note, "rounds 60 and 150") {
			t.Errorf("%s: notes %q do not name the breakpoints", name, fig.Notes)
		}
		path := filepath.Join(dir, name+".svg")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := fig.Encode(out, "svg"); err != nil {
			t.Fatal(err)
		}
		out.Close()
		if n := verticalDotted(t, path); n != 2 {
			t.Errorf("%s: %d dotted vertical lines, want 2 (one per breakpoint)", name, n)
		}
	}
	stationary := regretFigure(t, small(t), plot.Options{})
	if strings.Contains(stationary.Plot.Title.Text, "dynamic") || len(stationary.Notes) > 0 {
		t.Errorf("stationary: title %q, notes %q", stationary.Plot.Title.Text, stationary.Notes)
	}
}

// verticalDotted counts the grey dotted two-point vertical paths of the
// SVG at path.
func verticalDotted(t *testing.T, path string) int {
	t.Helper()
	doc := readSVG(t, path)
	n := 0
	for _, p := range doc.paths() {
		if strings.EqualFold(p.style("stroke"), "#5A5A5A") && p.style("stroke-dasharray") != "" && p.vertices() == 2 {
			n++
		}
	}
	return n
}

// TestLongTitleFits: a title wider than the figure (a long scenario name,
// a legend beside the axes) is broken after the name and fits.
func TestLongTitleFits(t *testing.T) {
	f := small(t)
	f.Scenario.Name = "changing_garivier_moulines_with_a_much_longer_name_than_the_figure"
	fig := regretFigure(t, f, plot.Options{})
	title := fig.Plot.Title
	if !strings.Contains(title.Text, ":\n") {
		t.Errorf("title %q not broken after the name", title.Text)
	}
	if w := title.TextStyle.Width(title.Text); w > plot.Width-16 {
		t.Errorf("title %q is %v wide, the figure %v", title.Text, w, plot.Width)
	}
}
