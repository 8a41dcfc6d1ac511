package htmlreport

import (
	"testing"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"github.com/regretbench/regretbench/host/plot"
)

// TestFontSubset: the subset of the figures' font draws the characters it
// was made for exactly as the whole font does (same glyph, outline and
// advance, same kerning), has no outline for any other character, parses
// as a font, and is a fraction of the whole.
func TestFontSubset(t *testing.T) {
	faces, err := plot.FontFaces()
	if err != nil {
		t.Fatal(err)
	}
	whole := faces[0].TTF
	kept := "failure_mode: cumulative regret (mean ± 1 SE, 20 runs) ÅÉ0123456789×"
	text := map[rune]bool{}
	for _, r := range kept {
		text[r] = true
	}
	sub, err := subsetTTF(whole, text)
	if err != nil {
		t.Fatal(err)
	}
	if len(sub) > len(whole)/4 {
		t.Errorf("subset of %d characters: %d bytes, whole font %d: want at most a quarter", len(text), len(sub), len(whole))
	}
	fw, err := sfnt.Parse(whole)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := sfnt.Parse(sub)
	if err != nil {
		t.Fatalf("the subset does not parse: %v", err)
	}
	var bw, bs sfnt.Buffer
	ppem := fixed.I(1000)
	for _, r := range kept + "fi" {
		gw, err1 := fw.GlyphIndex(&bw, r)
		gs, err2 := fs.GlyphIndex(&bs, r)
		if err1 != nil || err2 != nil || gw != gs {
			t.Fatalf("%q: glyph %d (%v) in the font, %d (%v) in the subset", r, gw, err1, gs, err2)
		}
		aw, _ := fw.GlyphAdvance(&bw, gw, ppem, 0)
		as, _ := fs.GlyphAdvance(&bs, gs, ppem, 0)
		sw, _ := fw.LoadGlyph(&bw, gw, ppem, nil)
		nw := len(sw)
		ss, err := fs.LoadGlyph(&bs, gs, ppem, nil)
		if err != nil {
			t.Fatalf("%q: the subset's glyph does not load: %v", r, err)
		}
		if aw != as {
			t.Errorf("%q: advance %v in the subset, %v in the font", r, as, aw)
		}
		switch {
		case text[r] && len(ss) != nw:
			t.Errorf("%q: %d segments in the subset, %d in the font", r, len(ss), nw)
		case !text[r] && r != ' ' && len(ss) != 0:
			t.Errorf("%q, not in the text: %d segments, want an empty glyph", r, len(ss))
		}
	}
	a, _ := fw.GlyphIndex(&bw, 'A')
	v, _ := fw.GlyphIndex(&bw, 'V')
	kw, _ := fw.Kern(&bw, a, v, ppem, 0)
	ks, _ := fs.Kern(&bs, a, v, ppem, 0)
	if kw != ks || kw == 0 {
		t.Errorf("kerning of AV: %v in the subset, %v in the font (want equal, not 0)", ks, kw)
	}
	for tag := range dropTables {
		tables, _ := tableDirectory(sub)
		if tables[tag] != nil {
			t.Errorf("the subset keeps table %s", tag)
		}
	}
}
