package plot

import (
	"hash/fnv"
	"image/color"
	"slices"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is Okabe and Ito's eight colours ("Color Universal Design",
// 2008): told apart with every common form of colour blindness, and in
// print.
var palette = []color.NRGBA{
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0xf0, 0xe4, 0x42, 0xff}, // yellow
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
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
}

// Styles maps policy labels to line styles.
type Styles map[string]Style

// Palette maps policy labels to line colours.
type Palette map[string]color.NRGBA

// NewStyles assigns every label a style that depends on the label, not
// on its position: a label's FNV-1a hash picks its colour among the
// eight, and when two labels want the same colour the later one in sorted
// order takes the next free one. Once all eight colours are taken, the
// next eight labels take them again with dashed lines and circles, then
// dotted lines and triangles, then dash-dotted lines and squares: so no
// two of up to MaxDistinct labels share a (colour, dash pattern) pair,
// nor a (colour, glyph) pair. A label keeps its style across every figure
// of a file, and across files unless its slot is contended there.
func NewStyles(labels []string) Styles {
	sorted := slices.Clone(labels)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	st := make(Styles, len(sorted))
	taken := make([]bool, len(palette))
	free, round := len(palette), 0
	for _, l := range sorted {
		if free == 0 { // all eight used: start the next round
			clear(taken)
			free = len(palette)
			round++
		}
		h := fnv.New32a()
		h.Write([]byte(l))
		i := int(h.Sum32() % uint32(len(palette)))
		for taken[i] {
			i = (i + 1) % len(palette)
		}
		taken[i] = true
		free--
		r := round % len(dashes)
		st[l] = Style{Color: palette[i], Dashes: dashes[r], Glyph: glyphs[r]}
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
