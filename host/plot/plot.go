// Package plot draws the figures of a results file with gonum.org/v1/plot,
// as PNG, SVG or PDF, one figure per metric:
//
//   - NAME_regret: cumulative regret against the round t, mean and a band
//     of one standard error per policy;
//   - NAME_underestimation: cumulative underestimation on log-log axes;
//   - NAME_separated: regret_under (dashed) and regret_not_under (solid),
//     one colour (and glyph) per policy;
//   - NAME_regret_distribution: the final regret of every replication, one
//     box plot per policy, on a log axis when the values are heavy-tailed;
//   - NAME_diag_DIAG: each plugin diagnostic (such as kkt_gap) against t on
//     a log t axis, with a log y axis when its values are positive and span
//     a decade or more.
//
// NAME is the scenario's name. A policy keeps its style in every figure
// (see NewStyles), and, drawn with Options.Styles (RunStyles), in every
// figure of a run: one of Okabe and Ito's eight colour-blind-safe colours
// by order of first appearance, and past eight policies a dash pattern
// and a glyph too, so that no two of up to 32 policies look alike; a
// policy's own colour (`color:` in its scenario entry) wins. In a
// changing environment the regret figures name the dynamic regret and
// draw each breakpoint of `changes:` as a dotted vertical line.
// Options.LogY draws the regret and separated figures on a log y axis;
// the regret figure has one anyway when its final values span more than
// two decades (AutoLogY). With more than six policies, or when
// no corner of the axes is free, the legend is drawn beside the axes (the
// figure grows taller when it needs to). Failed policies are left out.
// Options.LogX draws the regret and separated figures on a log t axis
// too. A policy whose underestimation or diagnostic is 0 at every
// checkpoint is not drawn as a flat line: the figure says so in a line
// of text under it (Figure.Notes). MeanRanks draws the mean ranks of
// policies across experiments, with the Nemenyi critical difference.
//
// Text from the results file (the scenario's name, policy labels,
// diagnostic names) is drawn as host/internal/markupsafe.Line makes it: a
// control character, a noncharacter or a byte of invalid UTF-8 shows as an
// escape such as \x1b, so that every SVG is well-formed XML whatever the
// names hold.
//
// Log axes need positive values: a point whose value is zero or negative is
// left out of a log-axis figure (cumulative underestimation is zero until
// the best arm is first underestimated, so its curve starts at the first
// positive checkpoint), and a figure with no positive value at all falls
// back to a linear axis. Bands of one standard error are drawn on linear
// value axes only (regret, and diagnostics with a linear y axis); the
// separated-regret figure has none, to keep its two line styles legible.
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/image/font/sfnt"
	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/regretbench/regretbench/host/internal/markupsafe"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/results"
)

// Figure size: 7 x 4.5 inches, so PNGs at DPI are 840 x 540 pixels and SVGs
// 504 x 324 points; fonts are sized to be read at that size.
const (
	Width  = 7 * vg.Inch
	Height = 4.5 * vg.Inch
	DPI    = 120
)

// Formats are the file formats Write accepts, by file extension.
var Formats = []string{"png", "svg", "pdf"}

// DefaultFormats are what Write produces when given none.
var DefaultFormats = []string{"png", "svg"}

// ParseFormats parses a comma-separated list such as "png,svg".
func ParseFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" || slices.Contains(out, f) {
			continue
		}
		if !slices.Contains(Formats, f) {
			return nil, fmt.Errorf("unknown figure format %q (want png, svg or pdf)", f)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no figure format given (want png, svg or pdf)")
	}
	return out, nil
}

// Write draws every figure of f into dir (created if missing) in each
// format (DefaultFormats when none) and returns the paths written, in
// figure order. File names are NAME_METRIC.FORMAT with the scenario's name
// made safe for file systems. A figure that cannot be drawn or written
// costs only itself: Write goes on with the others and returns, with the
// paths it wrote, an error naming each file it could not write and why.
func Write(f *results.File, dir string, formats ...string) ([]string, error) {
	return WriteWith(f, dir, Options{}, formats...)
}

// WriteWith is Write with the figures drawn as o says.
func WriteWith(f *results.File, dir string, o Options, formats ...string) ([]string, error) {
	if len(formats) == 0 {
		formats = DefaultFormats
	}
	formats, err := ParseFormats(strings.Join(formats, ","))
	if err != nil {
		return nil, err
	}
	figs, err := FiguresWith(f, o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	base := fileSafe(f.Scenario.Name)
	var paths []string
	var errs []error
	for _, fig := range figs {
		for _, format := range formats {
			path := filepath.Join(dir, base+"_"+fig.Name+"."+format)
			if err := save(fig, path, format); err != nil {
				errs = append(errs, fmt.Errorf("figure %s: %w", path, err))
				continue
			}
			paths = append(paths, path)
		}
	}
	return paths, errors.Join(errs...)
}

// Figure is one figure and the name of the metric it shows ("regret",
// "underestimation", "separated", "diag_kkt_gap", ...). Names are unique
// among the figures of a file and hold only letters, digits, '.', '-' and
// '_': two diagnostics whose names differ only in other characters get
// "diag_NAME" and "diag_NAME-2".
type Figure struct {
	Name string
	// Metric is what the figure shows as a reader names it: the metric
	// ("regret", "underestimation", ...) or, for a diagnostic, its own
	// name (markupsafe.Line of it), not the file-safe slug of Name.
	Metric string
	// LogY reports whether the figure's value axis is logarithmic.
	LogY bool
	Plot *gonumplot.Plot
	// legend, when set, is drawn to the right of the axes instead of
	// inside them: no corner of the data area was free for it.
	legend *gonumplot.Legend
	// yLabel, when set, is drawn by Draw instead of by gonum: for a log y
	// axis gonum reserves the label's room around the arithmetic middle of
	// the range, near the top, which leaves a blank band under the title.
	yLabel string
	// Notes are lines of text drawn under the axes (and put in the HTML
	// report's caption): what the figure leaves out and why, such as a
	// diagnostic that is 0 throughout for some policy.
	Notes []string
	// empty, when set, is the one line the figure shows in place of
	// axes: it has nothing to draw.
	empty string
	// height is the figure's height when taller than Height (a legend of
	// many policies, box plots of many policies).
	height vg.Length
}

// Size is the figure's width and height: Width, and Height or more.
func (fig Figure) Size() (w, h vg.Length) {
	return Width, max(Height, fig.height)
}

// noteSize is the font size of Notes.
const noteSize = 10

// Draw draws the figure on c.
func (fig Figure) Draw(c draw.Canvas) {
	if fig.empty != "" {
		t := fig.Plot.Title.TextStyle
		t.XAlign, t.YAlign = draw.XCenter, draw.YTop
		mid := (c.Min.X + c.Max.X) / 2
		c.FillText(t, vg.Point{X: mid, Y: c.Max.Y}, fig.Plot.Title.Text)
		sty := t
		sty.Font.Size = labelSize
		sty.YAlign = draw.YCenter
		c.FillText(sty, vg.Point{X: mid, Y: (c.Min.Y + c.Max.Y) / 2}, fig.empty)
		return
	}
	if len(fig.Notes) > 0 {
		sty := fig.Plot.X.Label.TextStyle
		sty.Font.Size = noteSize
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
		y := c.Min.Y
		for i := len(fig.Notes) - 1; i >= 0; i-- {
			c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, fig.Notes[i])
			y += sty.Height(fig.Notes[i]) + vg.Points(2)
		}
		c = draw.Crop(c, 0, 0, y-c.Min.Y+vg.Points(4), 0)
	}
	if fig.yLabel != "" {
		sty := fig.Plot.Y.Label.TextStyle
		h := sty.Height(fig.yLabel)
		descent := sty.FontExtents().Descent
		// Centred on the axes: below the title, above the x axis (about
		// 40pt of ticks and label).
		mid := (c.Min.Y + vg.Points(40) + c.Max.Y - titleHeight(fig.Plot)) / 2
		sty.Rotation += math.Pi / 2
		c.FillText(sty, vg.Point{X: c.Min.X + h - descent, Y: mid}, fig.yLabel)
		c = draw.Crop(c, h+fig.Plot.Y.Label.Padding, 0, 0, 0)
	}
	if fig.legend == nil {
		fig.Plot.Draw(c)
		return
	}
	r := fig.legend.Rectangle(draw.Canvas{})
	lw := r.Max.X - r.Min.X + vg.Points(10)
	fig.Plot.Draw(draw.Crop(c, 0, -lw, 0, 0))
	// Level with the top of the axes: below the title.
	fig.legend.YOffs = -titleHeight(fig.Plot)
	fig.legend.Draw(draw.Crop(c, c.Max.X-c.Min.X-lw+vg.Points(8), 0, 0, 0))
}

func titleHeight(p *gonumplot.Plot) vg.Length {
	if p.Title.Text == "" {
		return 0
	}
	return p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding
}

// Options adjust the figures.
type Options struct {
	// LogX draws the regret and separated figures on a log t axis (the
	// underestimation and diagnostic figures always have one).
	LogX bool
	// LogY draws the regret and separated figures on a log y axis. The
	// regret figure gets one without it when its final values span more
	// than two decades (AutoLogY).
	LogY bool
	// Styles, when set, are the styles of the run the file belongs to
	// (RunStyles over its files, or a Styles grown with AddFile as they
	// come): a policy keeps its colour in the figures of every file
	// drawn with them. Labels it lacks are added after its own, in the
	// file's order. Nil: the file's own (RunStyles(f)).
	Styles Styles
}

// AutoLogYDecades is how many decades the regret figure's final values
// must span, beyond which it is drawn on a log y axis without LogY.
const AutoLogYDecades = 2

// AutoLogY reports whether values (the final values of the policies a
// figure draws) span more than AutoLogYDecades decades: the largest
// positive one over the smallest positive one exceeds 10^AutoLogYDecades.
// Non-positive and non-finite values are left out; fewer than two
// positive values never make a log axis.
func AutoLogY(values []float64) bool {
	lo, hi, n := math.Inf(1), 0.0, 0
	for _, v := range values {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi, n = math.Min(lo, v), math.Max(hi, v), n+1
		}
	}
	return n >= 2 && hi/lo > math.Pow(10, AutoLogYDecades)
}

// Figures builds the figures of f without writing them.
func Figures(f *results.File) ([]Figure, error) { return FiguresWith(f, Options{}) }

// FiguresWith builds the figures of f as o says, without writing them.
func FiguresWith(f *results.File, o Options) ([]Figure, error) {
	var ok []*results.Policy
	for _, p := range f.Policies {
		if p.Status != results.StatusFailed && len(p.Checkpoints) > 0 {
			ok = append(ok, p)
		}
	}
	if len(ok) == 0 {
		return nil, fmt.Errorf("figures: scenario %q has no policy with results", f.Scenario.Name)
	}
	st := maps.Clone(o.Styles)
	if st == nil {
		st = Styles{}
	}
	st.AddFile(f)
	b := builder{f: f, policies: ok, st: st, opt: o}
	figs := []Figure{
		b.regret(),
		b.underestimation(),
		b.separated(),
		b.distribution(),
	}
	if f.Scenario.Context != nil {
		// A contextual run: its progressive-validation loss, and no
		// underestimation figures, which it does not compute.
		figs = []Figure{b.regret(), b.pvLoss(), b.distribution()}
	}
	names := b.diagNames()
	figNames := diagFigureNames(names)
	for i, name := range names {
		figs = append(figs, b.diagnostic(name, figNames[i]))
	}
	return figs, nil
}

// diagFigureNames returns the figure name of each diagnostic: "diag_" and
// the name made safe for file systems, with "-2", "-3", ... after a name
// that an earlier diagnostic's already made (as "a b" and "a_b" both make
// "a_b"), unique among them all.
func diagFigureNames(names []string) []string {
	out := make([]string, len(names))
	taken := map[string]bool{}
	for _, n := range names {
		taken[fileSafe(n)] = true // each safe name is kept by its first diagnostic
	}
	first := map[string]bool{}
	for i, n := range names {
		s := fileSafe(n)
		if !first[s] {
			first[s] = true
			out[i] = "diag_" + s
			continue
		}
		c := s
		for k := 2; taken[c]; k++ {
			c = s + "-" + strconv.Itoa(k)
		}
		taken[c] = true
		out[i] = "diag_" + c
	}
	return out
}

func save(fig Figure, path, format string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fig.Encode(out, format); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Encode draws the figure at the default size (Width x Height) in format
// ("png", "svg" or "pdf") to w: the bytes Write puts in a file. An SVG is
// a standalone document that loads nothing: its text names fonts by
// family (see FontFaces) rather than embedding them. A panic while drawing
// (gonum panics on what it cannot draw) is returned as an error, so that
// one figure cannot cost the others.
func (fig Figure) Encode(w io.Writer, format string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing figure %s as %s panicked: %v", fig.Name, format, r)
		}
	}()
	var c vg.CanvasWriterTo
	fw, fh := fig.Size()
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(fw, fh), vgimg.UseDPI(DPI))}
	case "svg":
		c = vgsvg.New(fw, fh)
	case "pdf":
		c = vgpdf.New(fw, fh)
	default:
		return fmt.Errorf("unknown figure format %q (want png, svg or pdf)", format)
	}
	// A margin keeps the last tick label and the title off the edge.
	dc := draw.New(c)
	dc.SetColor(color.White) // the margin too, not only the plot
	dc.Fill(dc.Rectangle.Path())
	m := vg.Points(8)
	fig.Draw(draw.Crop(dc, m, -m, m/2, -m/2))
	_, err = c.WriteTo(w)
	return err
}

// fileSafe replaces what is not a letter, digit, '.', '-' or '_' by '_'.
func fileSafe(s string) string {
	if s == "" {
		return "results"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

// Font sizes, chosen to be read at the default figure size.
const (
	titleSize  = 13
	labelSize  = 12
	tickSize   = 10
	legendSize = 11
	lineWidth  = 1.75
	bandAlpha  = 56 // of 255: bands stay light where they overlap
)

// maxInsideLegend is the most policies whose legend may be drawn inside
// the axes: a longer one goes beside them.
const maxInsideLegend = 6

// builder holds what every figure of a file shares.
type builder struct {
	f        *results.File
	policies []*results.Policy
	st       Styles
	opt      Options
}

// name is the scenario's name as figures show it.
func (b *builder) name() string { return markupsafe.Line(b.f.Scenario.Name) }

// legend adds a policy's entry to p's legend, its label as figures show it.
func legend(p *gonumplot.Plot, label string, thumbs ...gonumplot.Thumbnailer) {
	p.Legend.Add(markupsafe.Line(label), thumbs...)
}

func (b *builder) newPlot(title, ylabel string) *gonumplot.Plot {
	p := gonumplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = "round t"
	p.Y.Label.Text = ylabel
	for _, a := range []*gonumplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = labelSize
		a.Tick.Label.Font.Size = tickSize
		a.Tick.Marker = ticks{linearTicks{}}
	}
	p.Legend.TextStyle.Font.Size = legendSize
	p.Legend.ThumbnailWidth = vg.Points(28)
	p.Legend.Padding = vg.Points(1.5)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

func (b *builder) runs() int {
	return len(b.policies[0].Final[metric.Regret])
}

// curve is one line of a figure, kept to place the legend.
type curve []plotter.XY

func (b *builder) line(pts curve, c color.Color, dashed bool) *plotter.Line {
	var d []vg.Length
	if dashed {
		d = dashes[1]
	}
	return newLine(pts, c, d)
}

func newLine(pts curve, c color.Color, d []vg.Length) *plotter.Line {
	l, err := plotter.NewLine(plotter.XYs(pts))
	if err != nil {
		panic(err) // only non-finite values; the points were checked
	}
	l.Color = c
	l.Width = vg.Points(lineWidth)
	l.Dashes = d
	return l
}

// markerCount is how many glyphs mark a line whose style has one.
const markerCount = 5

// styled draws pts as policy k's line (the k-th of the figure) in style
// s, with dash pattern d, and, when s has a glyph, markerCount glyphs
// spread along it (each policy's shifted along t, so that lines that
// coincide show every glyph). It returns what to add to the plot and the
// legend's thumbnails.
func (b *builder) styled(pts curve, s Style, d []vg.Length, k int, logX bool) []gonumplot.Plotter {
	l := newLine(pts, s.Color, d)
	out := []gonumplot.Plotter{l}
	if s.Glyph == nil || len(pts) == 0 {
		return out
	}
	tx := func(x float64) float64 { return x }
	if logX {
		tx = math.Log
	}
	lo, hi := tx(pts[0].X), tx(pts[len(pts)-1].X)
	phase := 0.2 + 0.6*float64(k%7)/7
	var marks plotter.XYs
	last := -1
	for i := range markerCount {
		x := lo + (hi-lo)*(float64(i)+phase)/markerCount
		j, _ := slices.BinarySearchFunc(pts, x, func(p plotter.XY, x float64) int {
			switch {
			case tx(p.X) < x:
				return -1
			case tx(p.X) > x:
				return 1
			}
			return 0
		})
		j = min(j, len(pts)-1)
		if j != last {
			marks = append(marks, pts[j])
			last = j
		}
	}
	sc, err := plotter.NewScatter(marks)
	if err != nil {
		panic(err) // the points were checked
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: s.Color, Radius: vg.Points(3), Shape: s.Glyph}
	return append(out, sc)
}

// thumbs returns the legend thumbnails among ps.
func thumbs(ps []gonumplot.Plotter) []gonumplot.Thumbnailer {
	var out []gonumplot.Thumbnailer
	for _, p := range ps {
		if t, ok := p.(gonumplot.Thumbnailer); ok {
			out = append(out, t)
		}
	}
	return out
}

// band is the area between mean-se and mean+se, lower edge clipped at
// floor (the metrics of design §5 cannot be negative). Checkpoints whose
// mean or SE is not finite are left out, and edges beyond ±maxValue are
// clipped there; nil when fewer than two checkpoints remain.
func band(t []int, mean, se []float64, floor float64, c color.NRGBA) *fill {
	var keep []int
	for i := range t {
		if i < len(mean) && i < len(se) && finite(mean[i]) && finite(se[i]) {
			keep = append(keep, i)
		}
	}
	if len(keep) < 2 {
		return nil
	}
	clip := func(y float64) float64 { return math.Max(-maxValue, math.Min(maxValue, y)) }
	var ring []plotter.XY
	for _, i := range keep {
		ring = append(ring, plotter.XY{X: float64(t[i]), Y: clip(math.Max(mean[i]-se[i], floor))})
	}
	for k := len(keep) - 1; k >= 0; k-- {
		i := keep[k]
		ring = append(ring, plotter.XY{X: float64(t[i]), Y: clip(mean[i] + se[i])})
	}
	c.A = bandAlpha // NRGBA: not premultiplied, so the hue survives
	return &fill{ring: ring, color: c}
}

// maxValue bounds what an axis shows: a quarter of the largest float64,
// so that the axis span and the arithmetic of ticks stay finite.
const maxValue = math.MaxFloat64 / 4

// settle gives an axis a range that gonum can draw and tick, whatever the
// data: gonum pads an empty range by ±1, which reaches zero or below on a
// log axis (a panic: "Values must be greater than 0 for a log scale") and
// changes nothing at 1e300; and a range that is infinite or denormal
// leaves no round ticks. It returns false when a log axis has no positive
// range at all: the caller then draws it linear.
func settle(a *gonumplot.Axis, log bool) bool {
	lo, hi := a.Min, a.Max
	if math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
		lo, hi = math.Inf(1), math.Inf(-1) // no usable data
	}
	lo, hi = math.Max(lo, -maxValue), math.Min(hi, maxValue)
	if log {
		switch {
		case lo > hi: // no data
			lo, hi = 1, 10
		case !(lo > 0):
			return false
		case lo == hi:
			if l := lo / 10; l > 0 {
				lo = l
			}
			if h := hi * 10; h <= maxValue {
				hi = h
			}
			if lo == hi {
				return false
			}
		}
		a.Min, a.Max = lo, hi
		return true
	}
	if lo > hi { // no data
		lo, hi = 0, 1
	}
	span, scale := hi-lo, math.Max(math.Abs(lo), math.Abs(hi))
	switch {
	case lo == hi && lo-1 < lo && hi+1 > hi:
		lo, hi = lo-1, hi+1 // as gonum pads it
	case !(span >= 1e-300) || !(span > scale*1e-12):
		// Empty, denormal or within a few ulps: centre a readable range.
		c, half := lo/2+hi/2, scale/2
		if half < 1e-300 {
			half = 1
		}
		lo, hi = c-half, c+half
	}
	a.Min, a.Max = lo, hi
	return true
}

// fill is a filled polygon with no outline. plotter.Polygon strokes its
// outline even with a nil line colour (black in PNG).
type fill struct {
	ring  []plotter.XY
	color color.Color
}

// Plot implements gonumplot.Plotter.
func (f *fill) Plot(c draw.Canvas, p *gonumplot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, len(f.ring))
	for i, xy := range f.ring {
		pts[i] = vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
	}
	pts = c.ClipPolygonXY(pts)
	if len(pts) == 0 {
		return
	}
	var path vg.Path
	path.Move(pts[0])
	for _, pt := range pts[1:] {
		path.Line(pt)
	}
	path.Close()
	c.SetColor(f.color)
	c.Fill(path)
}

// DataRange implements gonumplot.DataRanger.
func (f *fill) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(plotter.XYs(f.ring))
}

// points returns the finite (t, y) pairs, keeping only positive ones when
// positive is set (for log axes).
func points(t []int, y []float64, positive bool) curve {
	var c curve
	for i := range t {
		if i >= len(y) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) || (positive && y[i] <= 0) || t[i] <= 0 {
			continue
		}
		c = append(c, plotter.XY{X: float64(t[i]), Y: y[i]})
	}
	return c
}

// Dynamic reports whether the file's environment changes (changes,
// drift or random_changes): its regret is then dynamic regret, against
// the best arm of each round, and figures and tables say so.
func Dynamic(f *results.File) bool {
	sc := f.Scenario
	return len(sc.Changes) > 0 || len(sc.Drift) > 0 || sc.RandomChanges != nil
}

// regretName is what the figures call the regret of the file.
func (b *builder) regretName() string {
	if Dynamic(b.f) {
		return "dynamic regret"
	}
	return "regret"
}

func (b *builder) regret() Figure {
	var finals []float64
	for _, pol := range b.policies {
		if n := len(pol.Regret.Mean); n > 0 {
			finals = append(finals, pol.Regret.Mean[n-1])
		}
	}
	logY := b.opt.LogY || AutoLogY(finals)
	stat := "mean ± 1 SE"
	if logY {
		stat = "mean" // no band on a log axis: its lower edge may reach 0
	}
	p := b.newPlot(fmt.Sprintf("%s: cumulative %s (%s, %d runs)", b.name(), b.regretName(), stat, b.runs()), "cumulative "+b.regretName())
	logX := b.logX(p)
	var curves []curve
	// Every band before any line, so no band veils another policy's line.
	for _, pol := range b.policies {
		if logY {
			break
		}
		if f := band(pol.Checkpoints, pol.Regret.Mean, pol.Regret.SE, 0, b.st[pol.Label].Color); f != nil {
			p.Add(f)
		}
	}
	for k, pol := range b.policies {
		pts := points(pol.Checkpoints, pol.Regret.Mean, logY)
		s := b.st[pol.Label]
		ps := b.styled(pts, s, s.Dashes, k, logX)
		p.Add(ps...)
		legend(p, pol.Label, thumbs(ps)...)
		curves = append(curves, pts)
	}
	notes := b.breakpoints(p)
	logY = b.logY(p, logY, finals)
	fig := b.figure(metric.Regret, p, curves, logX, logY, len(b.policies))
	fig.Metric = b.regretName()
	fig.Notes = append(fig.Notes, notes...)
	return fig
}

// logY sets p's y axis to log scale when on, its lower end a decade
// below the smallest positive final value (rounded down to a power of
// ten), so that the rounds near 1, whose regret is near 0, do not stretch
// the axis over decades nobody reads. It reports whether it did: not when
// no value is positive.
func (b *builder) logY(p *gonumplot.Plot, on bool, finals []float64) bool {
	if !on {
		return false
	}
	lo := math.Inf(1)
	for _, v := range finals {
		if v > 0 && !math.IsInf(v, 0) {
			lo = math.Min(lo, v)
		}
	}
	if math.IsInf(lo, 1) {
		return false
	}
	p.Y.Scale = gonumplot.LogScale{}
	p.Y.Tick.Marker = ticks{logTicks{}}
	if floor := math.Pow(10, math.Floor(math.Log10(lo/10))); floor > p.Y.Min {
		p.Y.Min = floor
	}
	return true
}

// breakpoints draws a dotted vertical line at each breakpoint of the
// file's changes (the rounds whose means differ from the round before)
// within the horizon, and returns the note saying so; none for a
// stationary environment, a drift or random breakpoints (which differ
// in every replication).
func (b *builder) breakpoints(p *gonumplot.Plot) []string {
	var at []string
	for _, c := range b.f.Scenario.Changes {
		if c.At < 1 || c.At > b.f.Scenario.Horizon {
			continue
		}
		p.Add(&vline{x: float64(c.At)})
		at = append(at, strconv.Itoa(c.At))
	}
	if len(at) == 0 {
		return nil
	}
	what := "the breakpoint: the means change from round " + at[0] + " on."
	if len(at) > 1 {
		what = "the breakpoints: the means change from rounds " + strings.Join(at[:len(at)-1], ", ") + " and " + at[len(at)-1] + " on."
	}
	return []string{"Dotted vertical lines mark " + what}
}

// vline is a dotted grey vertical line across the data area at x: a
// breakpoint. It sets no data range.
type vline struct{ x float64 }

// Plot implements gonumplot.Plotter.
func (v *vline) Plot(c draw.Canvas, p *gonumplot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(1), Dashes: dashes[2]}, x, c.Min.Y, x, c.Max.Y)
}

// logX sets p's x axis to log scale when the options say so, and reports
// whether it did.
func (b *builder) logX(p *gonumplot.Plot) bool {
	if b.opt.LogX {
		p.X.Scale = gonumplot.LogScale{}
		p.X.Tick.Marker = ticks{logTicks{}}
	}
	return b.opt.LogX
}

// figure settles p's axes, places its legend (beside the axes when it
// has more than maxInsideLegend policies, or no corner is free) and
// returns the figure.
func (b *builder) figure(name string, p *gonumplot.Plot, curves []curve, logX, logY bool, policies int) Figure {
	for _, ax := range []struct {
		a   *gonumplot.Axis
		log *bool
	}{{&p.X, &logX}, {&p.Y, &logY}} {
		if !settle(ax.a, *ax.log) {
			*ax.log = false
			ax.a.Scale = gonumplot.LinearScale{}
			ax.a.Tick.Marker = ticks{linearTicks{}}
			settle(ax.a, false)
		}
	}
	fig := Figure{Name: name, Metric: name, LogY: logY, Plot: p}
	if logY {
		fig.yLabel, p.Y.Label.Text = p.Y.Label.Text, ""
	}
	if policies > maxInsideLegend || !placeLegend(p, curves, logX, logY) {
		l := p.Legend
		l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
		fig.legend = &l
		p.Legend = gonumplot.NewLegend()
		r := l.Rectangle(draw.Canvas{})
		fitTitle(p, Width-vg.Points(16)-(r.Max.X-r.Min.X+vg.Points(10)))
		// Tall enough for the legend below the title, with the margins.
		fig.height = r.Max.Y - r.Min.Y + titleHeight(p) + vg.Points(24)
	} else {
		fitTitle(p, Width-vg.Points(16))
	}
	return fig
}

// fitTitle makes p's title fit in width w, centred over the axes: a
// title wider than that (a long scenario name, a legend beside the axes)
// is broken after its "NAME:" into two lines, and set smaller, down to
// tickSize, while a line is still too wide.
func fitTitle(p *gonumplot.Plot, w vg.Length) {
	t := &p.Title
	if t.Text == "" || t.TextStyle.Width(t.Text) <= w {
		return
	}
	if name, rest, ok := strings.Cut(t.Text, ": "); ok && !strings.Contains(t.Text, "\n") {
		t.Text = name + ":\n" + rest
	}
	for t.TextStyle.Width(t.Text) > w && t.TextStyle.Font.Size > tickSize {
		t.TextStyle.Font.Size -= 0.5
	}
}

func (b *builder) underestimation() Figure {
	p := b.newPlot(fmt.Sprintf("%s: cumulative underestimation (mean, %d runs)", b.name(), b.runs()), "rounds with best arm underestimated")
	n := len(b.policies)
	series, ses, cps := make([][]float64, n), make([][]float64, n), make([][]int, n)
	for i, pol := range b.policies {
		series[i], ses[i], cps[i] = pol.Under.Mean, pol.Under.SE, pol.Checkpoints
	}
	return b.lines(metric.Underestimation, metric.Underestimation, p, cps, series, ses, 0, true, true)
}

// pvLoss is the figure of a contextual run's progressive-validation loss
// against the round (the bake-off's plot): the mean of 1 - reward over
// the rounds so far, mean and a band of one SE per policy, on a log t
// axis when asked (Options.LogX).
func (b *builder) pvLoss() Figure {
	p := b.newPlot(fmt.Sprintf("%s: progressive-validation loss (mean ± 1 SE, %d runs)", b.name(), b.runs()), "pv_loss (mean of 1 - reward so far)")
	n := len(b.policies)
	series, ses, cps := make([][]float64, n), make([][]float64, n), make([][]int, n)
	for i, pol := range b.policies {
		if pol.PVLoss != nil {
			series[i], ses[i], cps[i] = slices.Clone(pol.PVLoss.Mean), pol.PVLoss.SE, pol.Checkpoints
		}
	}
	return b.lines(metric.PVLoss, metric.PVLoss, p, cps, series, ses, 0, b.opt.LogX, false)
}

// lines draws one line per policy (series[i] at checkpoints cps[i]; nil
// means the policy lacks it) on log x and, when possible, log y axes; on a
// linear y axis, with a band of one SE (ses[i]) clipped below at floor. A
// series that is 0 at every checkpoint is not drawn: a note under the
// axes names its policies (what, in the note, names the series), and a
// figure with nothing else shows only that line.
func (b *builder) lines(name, what string, p *gonumplot.Plot, cps [][]int, series, ses [][]float64, floor float64, logX, logY bool) Figure {
	var zero []string
	drawn := 0
	for i, pol := range b.policies {
		if series[i] == nil {
			continue
		}
		if allZero(series[i]) {
			zero = append(zero, markupsafe.Line(pol.Label))
			series[i] = nil
			continue
		}
		drawn++
	}
	var notes []string
	if len(zero) > 0 {
		who := strings.Join(zero, ", ")
		if drawn == 0 {
			who = "every policy"
		}
		notes = append(notes, fmt.Sprintf("%s is 0 at every checkpoint for %s (not drawn).", what, who))
	}
	if drawn == 0 && len(zero) > 0 {
		return Figure{Name: name, Metric: what, Plot: p, Notes: notes, empty: notes[0]}
	}
	logY = logY && anyPositive(series)
	var curves []curve
	var lines []gonumplot.Plotter // added after every band
	for i, pol := range b.policies {
		if series[i] == nil {
			continue
		}
		pts := points(cps[i], series[i], logY)
		if len(pts) == 0 {
			continue
		}
		s := b.st[pol.Label]
		if !logY && len(pts) == len(cps[i]) && len(ses[i]) == len(cps[i]) {
			if f := band(cps[i], series[i], ses[i], floor, s.Color); f != nil {
				p.Add(f)
			}
		}
		ps := b.styled(pts, s, s.Dashes, i, logX)
		lines = append(lines, ps...)
		legend(p, pol.Label, thumbs(ps)...)
		curves = append(curves, pts)
	}
	p.Add(lines...)
	if logX {
		p.X.Scale = gonumplot.LogScale{}
		p.X.Tick.Marker = ticks{logTicks{}}
	}
	if logY {
		p.Y.Scale = gonumplot.LogScale{}
		p.Y.Tick.Marker = ticks{logTicks{}}
	}
	fig := b.figure(name, p, curves, logX, logY, len(curves))
	fig.Metric = what
	fig.Notes = notes
	return fig
}

// allZero reports whether s holds values and every one is 0.
func allZero(s []float64) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return len(s) > 0
}

func anyPositive(series [][]float64) bool {
	for _, s := range series {
		for _, v := range s {
			if v > 0 && !math.IsInf(v, 0) {
				return true
			}
		}
	}
	return false
}

func (b *builder) separated() Figure {
	p := b.newPlot(fmt.Sprintf("%s: separated %s (mean, %d runs)", b.name(), b.regretName(), b.runs()), "cumulative "+b.regretName())
	logX := b.logX(p)
	logY := b.opt.LogY
	var curves []curve
	// The dash pattern tells the two series apart; a policy is told by its
	// colour and, past eight policies, its glyph.
	for k, pol := range b.policies {
		s := b.st[pol.Label]
		not := points(pol.Checkpoints, pol.RegretNot.Mean, logY)
		under := points(pol.Checkpoints, pol.RegretUnder.Mean, logY)
		pn := b.styled(not, s, nil, k, logX)
		pu := b.styled(under, s, dashes[1], k, logX)
		p.Add(pn...)
		p.Add(pu...)
		legend(p, pol.Label, thumbs(pn)...)
		curves = append(curves, not, under)
	}
	// A key for the two line styles, in grey after the policies.
	grey := color.Gray{Y: 110}
	p.Legend.Add("regret_not_under (solid)", b.line(nil, grey, false))
	p.Legend.Add("regret_under (dashed)", b.line(nil, grey, true))
	notes := b.breakpoints(p)
	var finals []float64
	for _, pol := range b.policies {
		for _, s := range [][]float64{pol.RegretNot.Mean, pol.RegretUnder.Mean} {
			if n := len(s); n > 0 {
				finals = append(finals, s[n-1])
			}
		}
	}
	logY = b.logY(p, logY, finals)
	fig := b.figure("separated", p, curves, logX, logY, len(b.policies))
	fig.Metric = "separated " + b.regretName()
	fig.Notes = append(fig.Notes, notes...)
	return fig
}

func (b *builder) diagNames() []string {
	var names []string
	for _, pol := range b.policies {
		for name := range pol.Diagnostics {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// diagnostic draws the diagnostic name as the figure figName.
func (b *builder) diagnostic(name, figName string) Figure {
	n := len(b.policies)
	series, ses, cps := make([][]float64, n), make([][]float64, n), make([][]int, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, pol := range b.policies {
		d, ok := pol.Diagnostics[name]
		if !ok {
			continue
		}
		series[i], ses[i], cps[i] = d.Mean, d.SE, d.Checkpoints
		if allZero(d.Mean) {
			continue // not drawn: it does not set the axis
		}
		for _, v := range d.Mean {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	// Log y when the values are positive and span a decade or more
	// (a KKT gap shrinking towards zero); a count such as a support size
	// reads better on a linear axis.
	logY := lo > 0 && hi/lo >= 10
	stat := "mean ± 1 SE"
	if logY {
		stat = "mean"
	}
	shown := markupsafe.Line(name)
	p := b.newPlot(fmt.Sprintf("%s: diagnostic %s (%s, %d runs)", b.name(), shown, stat, b.runs()), shown)
	return b.lines(figName, shown, p, cps, series, ses, math.Inf(-1), true, logY)
}

// FontFace is a font that the text of SVG figures names by family: a page
// that shows the figures inline embeds it once (a CSS @font-face rule with
// the TrueType data), so that the text is drawn with the metrics the
// figure was laid out with, on any machine, without loading anything.
type FontFace struct {
	Family string // as the SVG's font-family names it
	TTF    []byte // the TrueType file
}

// FontFaces returns the fonts the figures' text uses.
func FontFaces() ([]FontFace, error) {
	face := font.DefaultCache.Lookup(gonumplot.DefaultFont, tickSize)
	var buf sfnt.Buffer
	family, err := face.Face.Name(&buf, sfnt.NameIDFamily)
	if err != nil {
		return nil, fmt.Errorf("figure font %s: %w", gonumplot.DefaultFont.Typeface, err)
	}
	var ttf bytes.Buffer
	if _, err := face.Face.WriteSourceTo(nil, &ttf); err != nil {
		return nil, fmt.Errorf("figure font %s: %w", family, err)
	}
	return []FontFace{{Family: family, TTF: ttf.Bytes()}}, nil
}
