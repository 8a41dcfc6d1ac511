package plot_test

import (
	"encoding/xml"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

// small is the report package's fixture: three ok policies (one with the
// diagnostics adam_steps, kkt_gap and support_size) and a failed one.
func small(t *testing.T) *results.File {
	t.Helper()
	f, err := results.ReadFile(filepath.Join("..", "report", "testdata", "small.json"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func okLabels(f *results.File) []string {
	var out []string
	for _, p := range f.Policies {
		if p.Status != results.StatusFailed {
			out = append(out, p.Label)
		}
	}
	return out
}

// TestWrite: every figure is written in both formats under the documented
// names, the PNGs decode at Width x Height at DPI, the SVGs parse as XML
// and declare the same size in points.
func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs") // Write creates it
	paths, err := plot.Write(small(t), dir, "png", "svg")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	var want []string
	for _, m := range []string{"regret", "underestimation", "separated", "regret_distribution", "diag_adam_steps", "diag_kkt_gap", "diag_support_size"} {
		want = append(want, "small_"+m+".png", "small_"+m+".svg")
	}
	if !slices.Equal(names, want) {
		t.Fatalf("wrote %v\nwant %v", names, want)
	}
	wantW, wantH := int(plot.Width.Points()/72*plot.DPI), int(plot.Height.Points()/72*plot.DPI) // 840 x 540
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(p) {
		case ".png":
			cfg, format, err := image.DecodeConfig(fh)
			if err != nil || format != "png" {
				t.Errorf("%s: not a PNG: %v (%s)", p, err, format)
			} else if cfg.Width != wantW || cfg.Height != wantH {
				t.Errorf("%s: %dx%d pixels, want %dx%d", p, cfg.Width, cfg.Height, wantW, wantH)
			}
		case ".svg":
			svg, err := parseSVG(fh)
			if err != nil {
				t.Errorf("%s: %v", p, err)
			} else if w, h := fmt.Sprintf("%gpt", plot.Width.Points()), fmt.Sprintf("%gpt", plot.Height.Points()); svg.Width != w || svg.Height != h {
				t.Errorf("%s: size %s x %s, want %s x %s", p, svg.Width, svg.Height, w, h)
			}
		}
		fh.Close()
	}
}

type svgDoc struct {
	XMLName xml.Name  `xml:"svg"`
	Width   string    `xml:"width,attr"`
	Height  string    `xml:"height,attr"`
	Paths   []svgPath `xml:",any"`
}

// svgPath is any element; only <path> (gonum writes every line, band and
// tick as one) is looked at, recursively through groups.
type svgPath struct {
	XMLName xml.Name
	D       string    `xml:"d,attr"`
	Style   string    `xml:"style,attr"`
	Inner   []svgPath `xml:",any"`
}

func parseSVG(r io.Reader) (*svgDoc, error) {
	var doc svgDoc
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("not valid SVG/XML: %w", err)
	}
	return &doc, nil
}

func (d *svgDoc) paths() []svgPath {
	var out []svgPath
	var walk func([]svgPath)
	walk = func(ps []svgPath) {
		for _, p := range ps {
			if p.XMLName.Local == "path" {
				out = append(out, p)
			}
			walk(p.Inner)
		}
	}
	walk(d.Paths)
	return out
}

func (p svgPath) style(key string) string {
	for _, kv := range strings.Split(p.Style, ";") {
		if k, v, ok := strings.Cut(kv, ":"); ok && k == key {
			return v
		}
	}
	return ""
}

// vertices counts the points of a path ("M" and "L" commands).
func (p svgPath) vertices() int { return strings.Count(p.D, "M") + strings.Count(p.D, "L") }

func hex(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// near reports whether two #RRGGBB colours differ by at most 2 per channel.
func near(a, b string) bool {
	var r1, g1, b1, r2, g2, b2 int
	fmt.Sscanf(a, "#%02X%02X%02X", &r1, &g1, &b1)
	fmt.Sscanf(b, "#%02X%02X%02X", &r2, &g2, &b2)
	d := func(x, y int) bool { return x-y <= 2 && y-x <= 2 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

// readSVG parses the SVG file at path.
func readSVG(t *testing.T, path string) *svgDoc {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	doc, err := parseSVG(fh)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// dataLines returns the stroked paths with more than two vertices, by
// stroke colour: the data lines. Legend thumbnails, ticks, axes and grid
// lines are two-point paths.
func dataLines(t *testing.T, path string) (map[string]int, []svgPath) {
	t.Helper()
	doc := readSVG(t, path)
	byColour := map[string]int{}
	var lines []svgPath
	for _, p := range doc.paths() {
		stroke := strings.ToUpper(p.style("stroke"))
		if stroke == "" || stroke == "NONE" || p.vertices() <= 2 {
			continue
		}
		byColour[stroke]++
		lines = append(lines, p)
	}
	return byColour, lines
}

// TestLinesPerPolicy: the regret SVG has exactly one data line per ok
// policy, each in that policy's palette colour, and one translucent band
// per policy; the separated SVG has two lines per policy, one dashed.
func TestLinesPerPolicy(t *testing.T) {
	f := small(t)
	dir := t.TempDir()
	if _, err := plot.Write(f, dir, "svg"); err != nil {
		t.Fatal(err)
	}
	labels := okLabels(f)
	pal := plot.NewPalette(labels)

	byColour, lines := dataLines(t, filepath.Join(dir, "small_regret.svg"))
	if len(lines) != len(labels) {
		t.Errorf("regret figure has %d data lines, want one per policy (%d)", len(lines), len(labels))
	}
	for _, l := range labels {
		if n := byColour[hex(pal[l])]; n != 1 {
			t.Errorf("regret figure: %d lines in %s's colour %s, want 1", n, l, hex(pal[l]))
		}
	}
	// Bands: filled, translucent, in the policy's colour.
	fh, _ := os.Open(filepath.Join(dir, "small_regret.svg"))
	doc, err := parseSVG(fh)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	bands := map[string]int{}
	for _, p := range doc.paths() {
		if op := p.style("fill-opacity"); op != "" && op != "1" {
			bands[strings.ToUpper(p.style("fill"))]++
		}
	}
	if len(bands) != len(labels) {
		t.Errorf("regret figure: bands in %d colours, want one per policy: %v", len(bands), bands)
	}
	for _, l := range labels {
		n := 0
		for c, k := range bands {
			if near(c, hex(pal[l])) { // translucent colours round through premultiplied alpha
				n += k
			}
		}
		if n != 1 {
			t.Errorf("regret figure: %d bands in %s's colour, want 1 (bands %v)", n, l, bands)
		}
	}

	byColour, lines = dataLines(t, filepath.Join(dir, "small_separated.svg"))
	dashed := 0
	for _, p := range lines {
		if d := p.style("stroke-dasharray"); d != "" && d != "none" {
			dashed++
		}
	}
	if len(lines) != 2*len(labels) || dashed != len(labels) {
		t.Errorf("separated figure: %d lines (%d dashed), want %d (%d dashed)", len(lines), dashed, 2*len(labels), len(labels))
	}
	for _, l := range labels {
		if n := byColour[hex(pal[l])]; n != 2 {
			t.Errorf("separated figure: %d lines in %s's colour, want 2", n, l)
		}
	}
}

// TestPalette: colours go by order of first appearance: the first eight
// labels get the eight colours of the palette, distinct, in its order; a
// label keeps its colour when later labels are added; RunStyles over the
// files of a run gives a policy the same colour in every file, and the
// figures of two files drawn with it draw each policy in that colour; a
// policy's own colour (results.Policy.Color) wins.
func TestPalette(t *testing.T) {
	var labels []string
	for i := range 8 {
		labels = append(labels, fmt.Sprintf("policy %d", i))
	}
	p := plot.NewPalette(labels)
	want := []string{"#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442"}
	seen := map[string]bool{}
	for i, l := range labels {
		seen[hex(p[l])] = true
		if got := hex(p[l]); got != want[i] {
			t.Errorf("label %d: %s, want %s (Okabe-Ito in order)", i, got, want[i])
		}
	}
	if len(seen) != 8 {
		t.Errorf("8 labels got %d distinct colours", len(seen))
	}
	if a := plot.NewPalette(append(slices.Clone(labels), "late")); a["policy 3"] != p["policy 3"] {
		t.Error("policy 3 changed colour when a later label was added")
	}

	// Two files of one run: the second has a policy the first lacks,
	// first, and one of its own colour.
	f1, f2 := small(t), small(t)
	f2.Scenario.Name = "second"
	extra := *f2.Policies[0]
	extra.Label = "Newcomer"
	f2.Policies = append([]*results.Policy{&extra}, f2.Policies...)
	f2.Policies[1].Color = "#123456"
	st := plot.RunStyles(f1, f2)
	for _, l := range okLabels(f1) {
		if fmt.Sprint(st[l]) != fmt.Sprint(plot.NewStyles(okLabels(f1))[l]) {
			t.Errorf("%s: run style differs from the first file's own", l)
		}
	}
	if got := hex(st["Newcomer"].Color); got != want[len(okLabels(f1))] {
		t.Errorf("Newcomer, first seen in the second file: %s, want the next colour %s", got, want[len(okLabels(f1))])
	}
	own := plot.RunStyles(f2)
	if got := hex(own[f2.Policies[1].Label].Color); got != "#123456" {
		t.Errorf("a policy's own colour: %s, want #123456", got)
	}
	dir := t.TempDir()
	for _, f := range []*results.File{f1, f2} {
		if _, err := plot.WriteWith(f, dir, plot.Options{Styles: st}, "svg"); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"small", "second"} {
		byColour, _ := dataLines(t, filepath.Join(dir, name+"_regret.svg"))
		for _, l := range okLabels(f1) {
			if byColour[hex(st[l].Color)] != 1 {
				t.Errorf("%s_regret.svg: %d lines in %s's run colour %s, want 1 (colours %v)", name, byColour[hex(st[l].Color)], l, hex(st[l].Color), byColour)
			}
		}
	}
}

// TestLogAxesWithZeros: zeros (an underestimation count that stays 0, a
// diagnostic that is 0 throughout) must neither panic on a log axis nor
// stop the figures from being written.
func TestLogAxesWithZeros(t *testing.T) {
	f := small(t)
	for _, p := range f.Policies {
		if p.Status == results.StatusFailed {
			continue
		}
		for i := range p.Under.Mean {
			p.Under.Mean[i], p.Under.SE[i] = 0, 0
		}
		for name, d := range p.Diagnostics {
			for i := range d.Mean {
				d.Mean[i] = 0
			}
			p.Diagnostics[name] = d
		}
	}
	if _, err := plot.Write(f, t.TempDir(), "png"); err != nil {
		t.Fatal(err)
	}
}

func TestErrors(t *testing.T) {
	if _, err := plot.Write(small(t), t.TempDir(), "gif"); err == nil || !strings.Contains(err.Error(), "gif") {
		t.Errorf("format gif: err = %v", err)
	}
	f := small(t)
	f.Policies = f.Policies[3:] // only the failed one
	if _, err := plot.Write(f, t.TempDir()); err == nil {
		t.Error("a file without results plotted")
	}
}
