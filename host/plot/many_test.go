package plot_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

// many returns the small fixture with n ok policies: copies of its first,
// labelled "policy 00", "policy 01", ..., each's regret scaled so that
// no two lines coincide, and its final regrets heavy-tailed (one
// replication in ten 50 times the others).
func many(t *testing.T, n int) *results.File {
	t.Helper()
	f := small(t)
	src := f.Policies[0]
	f.Policies = nil
	for i := range n {
		p := *src
		p.Label = fmt.Sprintf("policy %02d", i)
		scale := 1 + float64(i)/4
		p.Regret.Mean = scaled(src.Regret.Mean, scale)
		p.Under.Mean = scaled(src.Under.Mean, scale)
		p.RegretUnder.Mean = scaled(src.RegretUnder.Mean, scale)
		p.RegretNot.Mean = scaled(src.RegretNot.Mean, scale)
		var fin []float64
		for r := range 40 {
			v := scale * (5 + math.Mod(float64(r*7), 3))
			if r%10 == 3 {
				v *= 50
			}
			fin = append(fin, v)
		}
		p.Final = map[string][]float64{"regret": fin}
		f.Policies = append(f.Policies, &p)
	}
	return f
}

func scaled(x []float64, s float64) []float64 {
	out := slices.Clone(x)
	for i := range out {
		out[i] *= s
	}
	return out
}

// svgText is a <text> element of a figure: where it starts and what it
// says.
type svgText struct {
	X    float64
	Text string
}

// texts returns every <text> of the SVG at path.
func texts(t *testing.T, path string) []svgText {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []svgText
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "text" {
			continue
		}
		var x float64
		for _, a := range se.Attr {
			if a.Name.Local == "x" {
				x, _ = strconv.ParseFloat(a.Value, 64)
			}
		}
		var s string
		if err := d.DecodeElement(&s, &se); err != nil {
			t.Fatal(err)
		}
		out = append(out, svgText{x, s})
	}
	return out
}

// lineXs returns the x coordinates of every vertex of the data lines.
func lineXs(lines []svgPath) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range lines {
		for _, f := range strings.FieldsFunc(p.D, func(r rune) bool { return r == 'M' || r == 'L' }) {
			xs, _, _ := strings.Cut(f, ",")
			if x, err := strconv.ParseFloat(xs, 64); err == nil {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	return lo, hi
}

// TestTwentyOnePolicies: with 21 policies no two lines share a stroke
// colour and dash pattern, in the regret figure (linear and log t) and
// the underestimation figure; the legend is beside the axes (every label
// starts right of every line), at 11pt; and the log axes have three or
// more labelled ticks.
func TestTwentyOnePolicies(t *testing.T) {
	f := many(t, 21)
	for _, logX := range []bool{false, true} {
		dir := t.TempDir()
		if _, err := plot.WriteWith(f, dir, plot.Options{LogX: logX}, "svg"); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"regret", "underestimation"} {
			path := filepath.Join(dir, "small_"+name+".svg")
			_, lines := dataLines(t, path)
			pairs := map[string]bool{}
			for _, l := range lines {
				pairs[strings.ToUpper(l.style("stroke"))+" "+l.style("stroke-dasharray")] = true
			}
			if len(lines) != 21 || len(pairs) != 21 {
				t.Errorf("%s (log t %v): %d data lines in %d distinct (colour, dash) pairs, want 21 and 21", name, logX, len(lines), len(pairs))
			}
			_, right := lineXs(lines)
			var legend int
			for _, tx := range texts(t, path) {
				if strings.HasPrefix(tx.Text, "policy ") {
					legend++
					if tx.X <= right {
						t.Errorf("%s: legend entry %q at x=%g, inside the axes (lines reach x=%g)", name, tx.Text, tx.X, right)
					}
				}
			}
			if legend != 21 {
				t.Errorf("%s: %d legend entries, want 21", name, legend)
			}
			data, _ := os.ReadFile(path)
			if !strings.Contains(string(data), "font-size:11px\">policy 00<") {
				t.Errorf("%s: legend not at 11pt", name)
			}
		}
	}
	// Log axes: three or more labelled ticks on the y axis (left of the
	// lines), with the data within a decade or spanning several.
	for _, span := range [][2]float64{{2, 8}, {1, 10}, {0.5, 3}, {3, 40000}} {
		f := many(t, 3)
		for _, p := range f.Policies {
			for i := range p.Under.Mean {
				a := float64(i) / float64(len(p.Under.Mean)-1)
				p.Under.Mean[i] = span[0] * math.Pow(span[1]/span[0], a)
			}
		}
		dir := t.TempDir()
		if _, err := plot.Write(f, dir, "svg"); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "small_underestimation.svg")
		_, lines := dataLines(t, path)
		left, _ := lineXs(lines)
		var yLabels []string
		for _, tx := range texts(t, path) {
			if _, err := strconv.ParseFloat(tx.Text, 64); err == nil && tx.X < left {
				yLabels = append(yLabels, tx.Text)
			}
		}
		if len(yLabels) < 3 {
			t.Errorf("underestimation over %v: y tick labels %q, want three or more", span, yLabels)
		}
	}
}

// TestStylesDistinct: up to plot.MaxDistinct labels get distinct (colour,
// dash) pairs and distinct (colour, glyph) pairs; the first eight are
// solid and unmarked.
func TestStylesDistinct(t *testing.T) {
	for _, n := range []int{1, 8, 9, 21, 24, plot.MaxDistinct} {
		var labels []string
		for i := range n {
			labels = append(labels, fmt.Sprintf("label %d", i))
		}
		st := plot.NewStyles(labels)
		dash, glyph := map[string]bool{}, map[string]bool{}
		solid := 0
		for _, l := range labels {
			s := st[l]
			dash[fmt.Sprint(s.Color, s.Dashes)] = true
			glyph[fmt.Sprintf("%v %T", s.Color, s.Glyph)] = true
			if s.Dashes == nil && s.Glyph == nil {
				solid++
			}
		}
		if len(dash) != n || len(glyph) != n || solid != min(n, 8) {
			t.Errorf("%d labels: %d (colour, dash) pairs, %d (colour, glyph) pairs, %d solid unmarked; want %d, %d, %d", n, len(dash), len(glyph), solid, n, n, min(n, 8))
		}
	}
}

// TestZeroDiagnosticIsSaid: a diagnostic that is 0 at every checkpoint
// for a policy is not drawn for it: the figure's notes say so in one
// line; when it is 0 for every policy the figure has no line at all and
// says so.
func TestZeroDiagnosticIsSaid(t *testing.T) {
	f := small(t)
	var withDiag *results.Policy
	for _, p := range f.Policies {
		if len(p.Diagnostics) > 0 {
			withDiag = p
		}
	}
	// Give a second policy a kkt_gap that is 0 throughout.
	d := withDiag.Diagnostics["kkt_gap"]
	zero := results.DiagSeries{Checkpoints: d.Checkpoints, Mean: make([]float64, len(d.Mean)), SE: make([]float64, len(d.SE))}
	other := f.Policies[1]
	if other == withDiag {
		other = f.Policies[0]
	}
	other.Diagnostics = map[string]results.DiagSeries{"kkt_gap": zero}
	figs, err := plot.Figures(f)
	if err != nil {
		t.Fatal(err)
	}
	fig := figure(t, figs, "diag_kkt_gap")
	want := "kkt_gap is 0 at every checkpoint for " + other.Label + " (not drawn)."
	if !slices.Equal(fig.Notes, []string{want}) {
		t.Errorf("notes %q, want %q", fig.Notes, want)
	}
	dir := t.TempDir()
	if _, err := plot.Write(f, dir, "svg"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "small_diag_kkt_gap.svg")
	if _, lines := dataLines(t, path); len(lines) != 1 {
		t.Errorf("kkt_gap: %d lines, want 1 (the zero series not drawn)", len(lines))
	}
	if !slices.ContainsFunc(texts(t, path), func(x svgText) bool { return x.Text == want }) {
		t.Errorf("kkt_gap's SVG does not say %q", want)
	}
	// Zero for every policy: no line, one sentence.
	withDiag.Diagnostics["kkt_gap"] = zero
	if _, err := plot.Write(f, dir, "svg", "png"); err != nil {
		t.Fatal(err)
	}
	if _, lines := dataLines(t, path); len(lines) != 0 {
		t.Errorf("kkt_gap, zero for all: %d lines, want 0", len(lines))
	}
	want = "kkt_gap is 0 at every checkpoint for every policy (not drawn)."
	if !slices.ContainsFunc(texts(t, path), func(x svgText) bool { return x.Text == want }) {
		t.Errorf("kkt_gap's SVG does not say %q", want)
	}
}

func figure(t *testing.T, figs []plot.Figure, name string) plot.Figure {
	t.Helper()
	for _, f := range figs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %s", name)
	return plot.Figure{}
}

// TestDistribution: the regret_distribution figure draws one box per
// policy from its per-replication final regrets, labelled by policy, the
// first at the top; on a log axis when a policy's worst replication is
// ten times its median or more, on a linear one otherwise.
func TestDistribution(t *testing.T) {
	for _, c := range []struct {
		name  string
		heavy bool
	}{{"heavy-tailed", true}, {"light-tailed", false}} {
		f := many(t, 21)
		if !c.heavy {
			for _, p := range f.Policies {
				for i, v := range p.Final["regret"] {
					p.Final["regret"][i] = math.Min(v, 40)
				}
			}
		}
		figs, err := plot.Figures(f)
		if err != nil {
			t.Fatal(err)
		}
		fig := figure(t, figs, "regret_distribution")
		_, log := fig.Plot.X.Scale.(gonumplot.LogScale)
		if log != c.heavy {
			t.Errorf("%s: log axis %v, want %v", c.name, log, c.heavy)
		}
		var labels []string
		for _, tk := range fig.Plot.Y.Tick.Marker.Ticks(fig.Plot.Y.Min, fig.Plot.Y.Max) {
			labels = append(labels, tk.Label)
		}
		if len(labels) != 21 || labels[20] != "policy 00" || labels[0] != "policy 20" {
			t.Errorf("%s: y labels %q, want the 21 policies, policy 00 at the top", c.name, labels)
		}
		if _, h := fig.Size(); h < vg.Points(21*16) {
			t.Errorf("%s: %v high, too short for 21 rows", c.name, h)
		}
		dir := t.TempDir()
		if _, err := plot.Write(f, dir, "svg"); err != nil {
			t.Fatal(err)
		}
		// One box (a closed, stroked rectangle) per policy, in its colour.
		st := plot.NewStyles(okLabels(f))
		fh, _ := os.Open(filepath.Join(dir, "small_regret_distribution.svg"))
		doc, err := parseSVG(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		boxes := map[string]int{}
		for _, p := range doc.paths() {
			if p.vertices() == 5 && p.style("stroke-width") == "1.5" {
				boxes[strings.ToUpper(p.style("stroke"))]++
			}
		}
		for _, l := range okLabels(f) {
			if boxes[hex(st[l].Color)] == 0 {
				t.Errorf("%s: no box in %s's colour", c.name, l)
			}
		}
	}
}

// TestMeanRanksFigure: one row per policy, best at the top, labelled with
// its mean rank; a bar of ± CD/2 per policy in its colour; the x axis
// spans the ranks 1..k and no more (a bar past either end is cut there).
func TestMeanRanksFigure(t *testing.T) {
	labels := []string{"A", "B", "C"}
	ranks := []float64{2.5, 1.2, 2.3}
	fig := plot.MeanRanks(labels, ranks, 1.5, "title")
	if fig.Name != "mean_ranks" {
		t.Errorf("name %q", fig.Name)
	}
	var got []string
	for _, tk := range fig.Plot.Y.Tick.Marker.Ticks(fig.Plot.Y.Min, fig.Plot.Y.Max) {
		got = append(got, tk.Label)
	}
	if want := []string{"A  2.50", "C  2.30", "B  1.20"}; !slices.Equal(got, want) { // bottom to top
		t.Errorf("rows %q, want %q", got, want)
	}
	if fig.Plot.X.Min != 1 || fig.Plot.X.Max != 3 {
		t.Errorf("x axis [%g, %g], want the ranks [1, 3]", fig.Plot.X.Min, fig.Plot.X.Max)
	}
	dir := t.TempDir()
	paths, err := plot.WriteFigure(fig, dir, "mean_ranks", "svg")
	if err != nil || len(paths) != 1 {
		t.Fatal(paths, err)
	}
	fh, _ := os.Open(paths[0])
	doc, err := parseSVG(fh)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	st := plot.NewStyles(labels)
	bars := map[string]bool{}
	for _, p := range doc.paths() {
		if p.style("stroke-width") == "3" {
			bars[strings.ToUpper(p.style("stroke"))] = true
		}
	}
	for _, l := range labels {
		if !bars[hex(st[l].Color)] {
			t.Errorf("no bar in %s's colour", l)
		}
	}
}
