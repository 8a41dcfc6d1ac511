package plot

import (
	"hash/fnv"
	"image/color"
	"slices"
)

// palette is Tableau 10 (matplotlib's default cycle): ten hues that stay
// apart on white and in print.
var palette = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0x7f, 0x7f, 0x7f, 0xff}, // grey
	{0xbc, 0xbd, 0x22, 0xff}, // olive
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// Palette maps policy labels to line colours.
type Palette map[string]color.NRGBA

// NewPalette assigns every label a colour that depends on the label, not
// on its position: a label's FNV-1a hash picks its slot in the ten-colour
// palette, and when two labels want the same slot the later one in sorted
// order takes the next free slot. So a label keeps its colour across every
// figure of a file, and across files unless its slot is contended there.
// Past ten labels colours repeat.
func NewPalette(labels []string) Palette {
	sorted := slices.Clone(labels)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	pal := make(Palette, len(sorted))
	taken := make([]bool, len(palette))
	free := len(palette)
	for _, l := range sorted {
		if free == 0 { // all ten used: start a second round
			clear(taken)
			free = len(palette)
		}
		h := fnv.New32a()
		h.Write([]byte(l))
		i := int(h.Sum32() % uint32(len(palette)))
		for taken[i] {
			i = (i + 1) % len(palette)
		}
		taken[i] = true
		free--
		pal[l] = palette[i]
	}
	return pal
}
