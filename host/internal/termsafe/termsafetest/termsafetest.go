// Package termsafetest checks, for tests, that output meant for a
// terminal holds nothing a terminal would act on: it is written apart from
// package termsafe, so that a test does not check the escaping with the
// escaping's own code.
package termsafetest

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Hostile is what a hostile plugin or file puts in a string: a terminal
// retitle (OSC 0 ; ... BEL), a screen clear (CSI 2 J), a right-to-left
// override and a C1 control (the 8-bit CSI). Shown is how bench shows it.
const (
	Hostile = "\x1b]0;pwned\x07\x1b[2J\u202e\u009b"
	Shown   = `\x1b]0;pwned\a\x1b[2J\u202e\u009b`
)

// Raw describes the first character of s that must not reach a terminal
// raw: a C0 control other than newline and tab, DEL, a C1 control, a bidi
// control (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)
// or a byte of invalid UTF-8; "" when there is none.
func Raw(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("invalid UTF-8 byte %#x at %d after ...%q", s[i], i, s[max(i-40, 0):i])
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x61c ||
			r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return fmt.Sprintf("raw %U at %d after ...%q", r, i, s[max(i-40, 0):i])
		}
		i += size
	}
	return ""
}

// Check fails t when out holds a raw control character (see Raw), or
// lacks any of want.
func Check(t testing.TB, what, out string, want ...string) {
	t.Helper()
	if c := Raw(out); c != "" {
		t.Errorf("%s: %s; all of it:\n%q", what, c, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
}
