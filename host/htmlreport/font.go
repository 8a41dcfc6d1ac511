package htmlreport

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"

	"golang.org/x/image/font/sfnt"
)

// The page embeds the figures' font once, as a subset: every table of
// the TrueType file but the outlines of the glyphs no figure's text uses,
// which are emptied (their glyph ids, advances, kerning and character
// map stay as they are, so nothing else needs renumbering). Liberation
// Serif's outlines are 311 kB of its 393 kB: the subset of a report's
// few dozen characters is a fifth of the font.
//
// The layout tables (GSUB, GPOS, GDEF) are dropped too: host/plot lays
// text out from the character map and the kern table alone, with no
// ligature or contextual form, and without them a browser does the same
// (it kerns from the kern table), so that the text of a figure takes the
// width it was laid out with. A ligature glyph, whose outline the subset
// would have emptied, can then never be asked for.

// dropTables are the tables the subset leaves out: the layout tables
// (see above), the per-glyph device tables that would describe emptied
// glyphs, and a signature the subset would break.
var dropTables = map[string]bool{"GSUB": true, "GPOS": true, "GDEF": true, "hdmx": true, "LTSH": true, "VDMX": true, "DSIG": true}

// subsetTTF returns the TrueType font ttf with the outline of every glyph
// emptied but .notdef's, those the characters of text map to, and the
// components of those, and without dropTables; its glyph names go too
// (post format 3).
func subsetTTF(ttf []byte, text map[rune]bool) ([]byte, error) {
	f, err := sfnt.Parse(ttf)
	if err != nil {
		return nil, err
	}
	tables, err := tableDirectory(ttf)
	if err != nil {
		return nil, err
	}
	head, maxp, loca, glyf := tables["head"], tables["maxp"], tables["loca"], tables["glyf"]
	if len(head) < 54 || len(maxp) < 6 || glyf == nil || loca == nil {
		return nil, errors.New("not a TrueType font with head, maxp, loca and glyf tables")
	}
	n := int(binary.BigEndian.Uint16(maxp[4:]))
	long := binary.BigEndian.Uint16(head[50:]) == 1
	offsets := make([]int, n+1)
	for i := range offsets {
		switch {
		case long && len(loca) >= 4*(i+1):
			offsets[i] = int(binary.BigEndian.Uint32(loca[4*i:]))
		case !long && len(loca) >= 2*(i+1):
			offsets[i] = 2 * int(binary.BigEndian.Uint16(loca[2*i:]))
		default:
			return nil, fmt.Errorf("loca table too short for %d glyphs", n)
		}
		if offsets[i] > len(glyf) || (i > 0 && offsets[i] < offsets[i-1]) {
			return nil, fmt.Errorf("loca offset %d of glyph %d out of order or past glyf", offsets[i], i)
		}
	}
	glyph := func(g int) []byte { return glyf[offsets[g]:offsets[g+1]] }

	keep := map[int]bool{0: true}
	var queue []int
	var buf sfnt.Buffer
	for r := range text {
		if g, err := f.GlyphIndex(&buf, r); err == nil && g != 0 && int(g) < n && !keep[int(g)] {
			keep[int(g)] = true
			queue = append(queue, int(g))
		}
	}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		comps, err := components(glyph(g))
		if err != nil {
			return nil, fmt.Errorf("glyph %d: %w", g, err)
		}
		for _, c := range comps {
			if c >= n {
				return nil, fmt.Errorf("glyph %d: component %d past the %d glyphs", g, c, n)
			}
			if !keep[c] {
				keep[c] = true
				queue = append(queue, c)
			}
		}
	}

	var newGlyf bytes.Buffer
	newLoca := make([]byte, 4*(n+1))
	for g := range n {
		binary.BigEndian.PutUint32(newLoca[4*g:], uint32(newGlyf.Len()))
		if keep[g] {
			newGlyf.Write(glyph(g))
			for newGlyf.Len()%4 != 0 {
				newGlyf.WriteByte(0)
			}
		}
	}
	binary.BigEndian.PutUint32(newLoca[4*n:], uint32(newGlyf.Len()))
	newHead := slices.Clone(head)
	binary.BigEndian.PutUint16(newHead[50:], 1) // long loca offsets
	binary.BigEndian.PutUint32(newHead[8:], 0)  // checkSumAdjustment, set below
	tables["head"], tables["loca"], tables["glyf"] = newHead, newLoca, newGlyf.Bytes()
	if post := tables["post"]; len(post) >= 32 {
		post = slices.Clone(post[:32])
		binary.BigEndian.PutUint32(post, 0x00030000) // format 3: no glyph names
		tables["post"] = post
	}
	for tag := range dropTables {
		delete(tables, tag)
	}
	return writeSFNT(tables), nil
}

// tableDirectory returns the tables of a TrueType file by tag.
func tableDirectory(ttf []byte) (map[string][]byte, error) {
	if len(ttf) < 12 {
		return nil, errors.New("font file too short")
	}
	if v := binary.BigEndian.Uint32(ttf); v != 0x00010000 && v != 0x74727565 { // 1.0 or 'true'
		return nil, fmt.Errorf("not a TrueType font (version %#x)", v)
	}
	num := int(binary.BigEndian.Uint16(ttf[4:]))
	if len(ttf) < 12+16*num {
		return nil, errors.New("font table directory truncated")
	}
	tables := make(map[string][]byte, num)
	for i := range num {
		rec := ttf[12+16*i:]
		off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		if uint64(off)+uint64(length) > uint64(len(ttf)) {
			return nil, fmt.Errorf("font table %q past the end of the file", rec[:4])
		}
		tables[string(rec[:4])] = ttf[off : off+length]
	}
	return tables, nil
}

// components returns the glyph ids a composite glyph is made of; none for
// a simple or empty one.
func components(g []byte) ([]int, error) {
	if len(g) < 10 || int16(binary.BigEndian.Uint16(g)) >= 0 {
		return nil, nil
	}
	const (
		argsAreWords   = 0x0001
		haveScale      = 0x0008
		moreComponents = 0x0020
		haveXYScale    = 0x0040
		haveTwoByTwo   = 0x0080
	)
	var out []int
	p := 10
	for {
		if len(g) < p+4 {
			return nil, errors.New("composite glyph truncated")
		}
		flags := binary.BigEndian.Uint16(g[p:])
		out = append(out, int(binary.BigEndian.Uint16(g[p+2:])))
		p += 4
		if flags&argsAreWords != 0 {
			p += 4
		} else {
			p += 2
		}
		switch {
		case flags&haveScale != 0:
			p += 2
		case flags&haveXYScale != 0:
			p += 4
		case flags&haveTwoByTwo != 0:
			p += 8
		}
		if flags&moreComponents == 0 {
			return out, nil
		}
	}
}

// writeSFNT lays out a TrueType file of tables: the directory sorted by
// tag, each table 4-byte aligned with its checksum, and head's
// checkSumAdjustment (whose slot must hold 0) set for the whole file.
func writeSFNT(tables map[string][]byte) []byte {
	tags := make([]string, 0, len(tables))
	for t := range tables {
		tags = append(tags, t)
	}
	slices.Sort(tags)
	num := len(tags)
	entry := 0
	for 1<<(entry+1) <= num {
		entry++
	}
	var out bytes.Buffer
	hdr := make([]byte, 12+16*num)
	binary.BigEndian.PutUint32(hdr, 0x00010000)
	binary.BigEndian.PutUint16(hdr[4:], uint16(num))
	binary.BigEndian.PutUint16(hdr[6:], uint16(16<<entry))
	binary.BigEndian.PutUint16(hdr[8:], uint16(entry))
	binary.BigEndian.PutUint16(hdr[10:], uint16(16*num-16<<entry))
	off := len(hdr)
	var body bytes.Buffer
	headAt := -1
	for i, t := range tags {
		data := tables[t]
		rec := hdr[12+16*i:]
		copy(rec, t)
		binary.BigEndian.PutUint32(rec[4:], checksum(data))
		binary.BigEndian.PutUint32(rec[8:], uint32(off+body.Len()))
		binary.BigEndian.PutUint32(rec[12:], uint32(len(data)))
		if t == "head" {
			headAt = off + body.Len()
		}
		body.Write(data)
		for body.Len()%4 != 0 {
			body.WriteByte(0)
		}
	}
	out.Write(hdr)
	out.Write(body.Bytes())
	b := out.Bytes()
	if headAt >= 0 {
		binary.BigEndian.PutUint32(b[headAt+8:], 0xB1B0AFBA-checksum(b))
	}
	return b
}

// checksum is the TrueType table checksum: the sum of big-endian uint32s,
// the last padded with zeros.
func checksum(b []byte) uint32 {
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		var w [4]byte
		copy(w[:], b[i:])
		sum += binary.BigEndian.Uint32(w[:])
	}
	return sum
}

// svgText adds to runes every character of the text of the SVG documents
// (host/plot's, checked by checkSVG): what the figures' font must draw.
func svgText(runes map[rune]bool, docs ...template.HTML) {
	for _, doc := range docs {
		d := xml.NewDecoder(bytes.NewReader([]byte(doc)))
		for {
			tok, err := d.Token()
			if err == io.EOF || err != nil {
				break // checkSVG has parsed it: no error but EOF
			}
			if t, ok := tok.(xml.CharData); ok {
				for _, r := range string(t) {
					runes[r] = true
				}
			}
		}
	}
}
