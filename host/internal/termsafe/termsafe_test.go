package termsafe

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/regretbench/regretbench/host/internal/termsafe/termsafetest"
)

// hostile holds what a hostile plugin or file would put in a string: a
// terminal retitle (OSC ... BEL), a screen clear (CSI 2 J), a bidi
// override, a C1 CSI, DEL and a byte of invalid UTF-8.
const hostile = "v1\x1b]0;pwned\x07\x1b[2J\u202egnp.exe\u009b31m\x7f\xff"

// TestEscape: each kind of control is escaped as Go's strconv does, the
// rest (backslashes, quotes, accents, CJK, emoji, U+FFFD itself) is left
// alone, and Text keeps newlines and tabs where String escapes them.
func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in, str, text string
	}{
		{"", "", ""},
		{"TS x2 (ε=0.1) 名前 🎰 \\ \" ' \ufffd", "TS x2 (ε=0.1) 名前 🎰 \\ \" ' \ufffd", "TS x2 (ε=0.1) 名前 🎰 \\ \" ' \ufffd"},
		{hostile, `v1\x1b]0;pwned\a\x1b[2J\u202egnp.exe\u009b31m\x7f\xff`, `v1\x1b]0;pwned\a\x1b[2J\u202egnp.exe\u009b31m\x7f\xff`},
		{"a\nb\tc\r\n", `a\nb\tc\r\n`, "a\nb\tc\\r\n"},
		{"\x00\x01\b\f\v\x1f", `\x00\x01\b\f\v\x1f`, `\x00\x01\b\f\v\x1f`},
		{"\u0080\u0085\u009f\u00a0", `\u0080\u0085\u009f` + "\u00a0", `\u0080\u0085\u009f` + "\u00a0"},
		{"\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", `\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069`, `\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069`},
		{"cut \xe2\x80", `cut \xe2\x80`, `cut \xe2\x80`}, // a rune truncated mid-sequence
	} {
		if got := String(tc.in); got != tc.str {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.str)
		}
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if Safe(tc.in) != (tc.in == tc.str) {
			t.Errorf("Safe(%q) = %v", tc.in, Safe(tc.in))
		}
	}
}

// TestEscapesAsStrconv: every rune String escapes is escaped exactly as
// strconv.Quote writes it, and every rune of the Basic Multilingual Plane
// either is escaped that way or is left as it is.
func TestEscapesAsStrconv(t *testing.T) {
	for r := rune(0); r <= 0xffff; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // surrogates are not runes of UTF-8
		}
		s := string(r)
		got := String(s)
		if got == s {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Errorf("%U is not escaped", r)
			}
			continue
		}
		if want := strings.Trim(strconv.Quote(s), `"`); got != want {
			t.Errorf("String(%U) = %s, strconv.Quote writes %s", r, got, want)
		}
	}
}

// TestNothingRawSurvives: whatever the input, the output of String holds
// no byte below 0x20, no DEL, no C1 or bidi control, and is valid UTF-8;
// the output of Text the same, but for newlines and tabs. The check is
// termsafetest's, written apart from the escaping.
func TestNothingRawSurvives(t *testing.T) {
	inputs := []string{hostile, termsafetest.Hostile, strings.Repeat(hostile+"\n\t\r", 3)}
	var all []byte
	for b := 0; b < 256; b++ {
		all = append(all, byte(b))
	}
	inputs = append(inputs, string(all))
	for r := rune(0x80); r < 0x3000; r++ {
		all = utf8.AppendRune(all, r)
	}
	inputs = append(inputs, string(all))
	for _, in := range inputs {
		for name, f := range map[string]func(string) string{"String": String, "Text": Text} {
			out := f(in)
			if raw := termsafetest.Raw(out); raw != "" {
				t.Errorf("%s leaves a %s", name, raw)
			}
			if name == "String" && strings.ContainsAny(out, "\n\t") {
				t.Errorf("String leaves a newline or tab")
			}
		}
	}
}

// TestWriter: what is written through Writer reaches the terminal as
// Text escapes it, and Write reports the caller's length.
func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	msg := "bench: plugin x: open: " + hostile + "\n  plugin stderr (last lines):\n    \x1b[31mred\x1b[0m\tx\n"
	n, err := w.Write([]byte(msg))
	if err != nil || n != len(msg) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(msg))
	}
	if got, want := b.String(), Text(msg); got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	if strings.Count(b.String(), "\n") != 3 {
		t.Errorf("lines not kept: %q", b.String())
	}
}

// TestSafeStringsAreNotCopied: the common case, a string with nothing to
// escape, costs no allocation.
func TestSafeStringsAreNotCopied(t *testing.T) {
	s := "KL-UCB c=3 regretbench-go/0.1.0 ± 名前"
	if n := testing.AllocsPerRun(100, func() { _ = String(s); _ = Text(s + "\n") }); n > 1 { // the concatenation
		t.Errorf("%v allocations for safe strings", n)
	}
}
