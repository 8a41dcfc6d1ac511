package plot

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/regretbench/regretbench/host/results"
)

// palette is Okabe and Ito's eight colours ("Color Universal Design",
// 2008): told apart with every common form of colour blindness, and in
// print. They are handed out in this order, so that neighbours in it
// differ most (orange and vermillion, sky blue and blue are apart) and
// yellow, the hardest to see on white, comes last.
var palette = []color.NRGBA{
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0xf0, 0xe4, 0x42, 0xff}, // yellow
}

// dashes are the line patterns of the rounds of the palette: solid for
// the first eight labels, then dashed, dotted and dash-dotted.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2.5)},
	{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
}

// glyphs mark the lines of the later rounds (filled shapes, no outline),
// so that a policy can be told apart where its dash pattern cannot be
// (the separated-regret figure, whose dashes tell its two series apart).
var glyphs = []draw.GlyphDrawer{nil, draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.SquareGlyph{}}

// MaxDistinct is how many labels get distinct styles: eight colours times
// four dash patterns. Past it, (colour, dash) pairs repeat.
var MaxDistinct = len(palette) * len(dashes)

// Style is how a policy's lines are drawn: its colour, its dash pattern
// (nil: solid) and the glyph marking its lines (nil: none).
type Style struct {
	Color  color.NRGBA
	Dashes []vg.Length
	Glyph  draw.GlyphDrawer
	// slot is the style's place in the order of NewStyles; -1 for a
	// policy's own colour.
	slot int
}

// Styles maps policy labels to line styles. Build it with NewStyles or
// RunStyles and grow it with Add, so that a label keeps its style in
// every figure drawn with it.
type Styles map[string]Style

// Palette maps policy labels to line colours.
type Palette map[string]color.NRGBA

// NewStyles assigns every label a style by its order of first appearance
// in labels: the first eight labels take the eight colours of the palette
// in its order, solid and unmarked; the next eight take them again with
// dashed lines and circles, then dotted lines and triangles, then
// dash-dotted lines and squares. So no two of up to MaxDistinct labels
// share a (colour, dash pattern) pair, nor a (colour, glyph) pair, and
// the first eight are the most distinct.
func NewStyles(labels []string) Styles {
	st := Styles{}
	st.Add(labels, nil)
	return st
}

// Add gives each label of labels that st lacks the next style in order
// (see NewStyles): the labels st holds keep theirs. A label with a
// colour in colors (a policy's own, results.Policy.Color) is drawn in it,
// solid, and takes no slot of the palette.
func (st Styles) Add(labels []string, colors map[string]color.NRGBA) {
	next := 0
	for _, s := range st {
		if s.slot >= 0 {
			next = max(next, s.slot+1)
		}
	}
	for _, l := range labels {
		if _, ok := st[l]; ok {
			continue
		}
		if c, ok := colors[l]; ok {
			st[l] = Style{Color: c, slot: -1}
			continue
		}
		r := (next / len(palette)) % len(dashes)
		st[l] = Style{Color: palette[next%len(palette)], Dashes: dashes[r], Glyph: glyphs[r], slot: next}
		next++
	}
}

// AddFile adds the labels of f's policies that drew (not failed), in
// f's order, each in its own colour when it has one (results.Policy.Color;
// a colour that does not parse is ignored here: Color's readers check it).
func (st Styles) AddFile(f *results.File) {
	var labels []string
	colors := map[string]color.NRGBA{}
	for _, p := range f.Policies {
		if p.Status == results.StatusFailed || len(p.Checkpoints) == 0 {
			continue
		}
		labels = append(labels, p.Label)
		if p.Color != "" {
			if c, err := ParseColor(p.Color); err == nil {
				colors[p.Label] = c
			}
		}
	}
	st.Add(labels, colors)
}

// RunStyles returns the styles of the policies of files, by order of
// first appearance across them (files in order, each file's policies in
// its order): the styles of every figure of one run, so that a policy
// keeps its colour across the figures of every scenario.
func RunStyles(files ...*results.File) Styles {
	st := Styles{}
	for _, f := range files {
		st.AddFile(f)
	}
	return st
}

// NewPalette returns the colours of NewStyles(labels).
func NewPalette(labels []string) Palette {
	pal := Palette{}
	for l, s := range NewStyles(labels) {
		pal[l] = s.Color
	}
	return pal
}

// ParseColor parses a colour written "#RRGGBB" (hex digits, either case),
// as a policy's `color:` in a scenario file.
func ParseColor(s string) (color.NRGBA, error) {
	if len(s) != 7 || s[0] != '#' || strings.Trim(s[1:], "0123456789abcdefABCDEF") != "" {
		return color.NRGBA{}, fmt.Errorf("colour %q: want #RRGGBB, six hex digits such as \"#0072B2\"", s)
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.NRGBA{}, fmt.Errorf("colour %q: %w", s, err)
	}
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}, nil
}
