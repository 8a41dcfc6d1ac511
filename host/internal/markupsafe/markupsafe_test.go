package markupsafe

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, text, line string }{
		{"plain ReMax c2=2", "plain ReMax c2=2", "plain ReMax c2=2"},
		{`</text>]]>&"'<b>`, `</text>]]>&"'<b>`, `</text>]]>&"'<b>`},
		{"a\x01b\x1b[31m", `a\x01b\x1b[31m`, `a\x01b\x1b[31m`},
		{"nul\x00", `nul\x00`, `nul\x00`},
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r", `tab\tnl\ncr\r`},
		{"ff\fdel\x7f", `ff\fdel\x7f`, `ff\fdel\x7f`},
		{"\a\b\v\x0e", `\a\b\v\x0e`, `\a\b\v\x0e`},
		{"c1\u0085\u009b", `c1\u0085\u009b`, `c1\u0085\u009b`},
		{"x\uFFFEy\uFFFF", `x\ufffey\uffff`, `x\ufffey\uffff`},
		{"\uFDD0\uFDEF\U0001FFFE\U0010FFFF", `\ufdd0\ufdef\U0001fffe\U0010ffff`, `\ufdd0\ufdef\U0001fffe\U0010ffff`},
		{"bad\xff\xfe", `bad\xff\xfe`, `bad\xff\xfe`},
		{"surrogate\xed\xa0\x80", `surrogate\xed\xa0\x80`, `surrogate\xed\xa0\x80`},
		{"cut é\xc3", `cut é\xc3`, `cut é\xc3`},
		{"ok ± é 漢 \uFFFD \U0001F600 \uFFFD", "ok ± é 漢 \uFFFD \U0001F600 \uFFFD", "ok ± é 漢 \uFFFD \U0001F600 \uFFFD"},
		{"", "", ""},
	} {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := string(Bytes([]byte(c.in))); got != c.text {
			t.Errorf("Bytes(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

// xmlText reports whether s, escaped for markup, is the text of an element
// that a strict XML parser reads back as s.
func xmlText(s string) error {
	var b bytes.Buffer
	b.WriteString("<t>")
	// Not xml.EscapeText, which would replace what XML refuses.
	b.WriteString(strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s))
	b.WriteString("</t>")
	d := xml.NewDecoder(&b)
	d.Strict = true
	for {
		_, err := d.Token()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// FuzzText: whatever the input, Text's output is valid UTF-8 that XML
// reads, holds no control but tab, newline and carriage return (Line's
// none at all), and is the input itself when that was already fine.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "ReMax", "a\x00b", "\uFFFE", "\xff", "\xed\xa0\x80", "\u0085", "</text>]]>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Text(s), Line(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%q: output %q is not valid UTF-8", s, out)
			}
			if err := xmlText(out); err != nil {
				t.Fatalf("%q: output %q is not XML text: %v", s, out, err)
			}
			for _, r := range out {
				if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7F && r <= 0x9F) {
					t.Fatalf("%q: output %q holds control %U", s, out, r)
				}
			}
		}
		if strings.ContainsAny(Line(s), "\t\n\r") {
			t.Fatalf("Line(%q) holds a line break or tab", s)
		}
		if xmlText(s) == nil && !strings.ContainsFunc(s, func(r rune) bool {
			return (r >= 0x7F && r <= 0x9F) || (r >= 0xFDD0 && r <= 0xFDEF) || r&0xFFFE == 0xFFFE
		}) && Text(s) != s {
			t.Fatalf("Text(%q) = %q changed text XML takes as it is", s, Text(s))
		}
	})
}
