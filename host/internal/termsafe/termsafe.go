// Package termsafe escapes text that bench shows on a terminal but did
// not write itself: a plugin's version, SDK string, parameter docs and
// defaults, its error messages and stderr lines, scenario names and the
// labels of results files from other machines. Raw, such text could
// retitle the terminal (ESC ] 0 ; ... BEL), clear it (ESC [ 2 J), recolour
// or hide what follows, or reorder a line with a bidi override so that
// it reads as something else.
//
// Every table, listing and message meant for a terminal passes the
// strings it did not write through String (one line) or Text (a message
// that may span lines), or is written through Writer. Formats for other
// programs (CSV, JSON, results files) keep the raw strings; their
// encoders quote them.
//
// The escapes are Go's (strconv.Quote's): \a \b \f \n \r \t \v, \xNN for
// the other C0 controls, DEL and each byte of invalid UTF-8, \uNNNN for
// the C1 controls (U+0080 to U+009F) and the bidi controls (U+061C,
// U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069). Everything else,
// backslashes and quotes included, is left as it is: the escaping is for
// reading, not for parsing back.
package termsafe

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with every control character escaped, newlines and
// tabs included: for a value shown on one line (a label, a name, a
// version, a table cell). s is returned as it is when it holds nothing to
// escape.
func String(s string) string { return escape(s, false) }

// Text returns s with every control character escaped except newline and
// tab: for a message that may span lines, such as an error quoting a
// plugin's stderr, whose line structure is kept (each line escaped on its
// own; a carriage return is escaped, so that no line can overwrite
// another).
func Text(s string) string { return escape(s, true) }

// Safe reports whether String(s) is s: s holds no control character,
// newlines and tabs included, and is valid UTF-8.
func Safe(s string) bool { return unsafeAt(s, unsafeInString) < 0 }

// Writer returns a writer that writes to w what it is given, escaped as
// Text escapes it. Each Write is escaped on its own, so callers write
// whole messages (as fmt.Fprintf does); a Write that succeeds reports
// len(p) bytes written.
func Writer(w io.Writer) io.Writer { return textWriter{w} }

type textWriter struct{ w io.Writer }

func (t textWriter) Write(p []byte) (int, error) {
	s := string(p)
	if _, err := io.WriteString(t.w, escape(s, true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escape escapes s; keepLines keeps newlines and tabs.
func escape(s string, keepLines bool) string {
	if keepLines {
		return Escape(s, unsafeInText)
	}
	return Escape(s, unsafeInString)
}

// unsafeInString and unsafeInText report a rune that String and Text
// escape.
func unsafeInString(r rune) bool { return unsafeIn(r, false) }
func unsafeInText(r rune) bool   { return unsafeIn(r, true) }

func unsafeIn(r rune, keepLines bool) bool {
	if r < utf8.RuneSelf {
		return !safeByte(byte(r), keepLines)
	}
	return unsafeRune(r)
}

// Escape returns s with every rune for which unsafe reports true, and
// every byte of invalid UTF-8, written as Go's strconv.Quote writes it:
// \a \b \f \n \r \t \v, \xHH for another ASCII byte or a byte of invalid
// UTF-8, \uHHHH, \UHHHHHHHH. It returns s itself when nothing needs an
// escape. It is the one escaping loop of String, Text and of
// host/internal/markupsafe, which differ only in what they escape.
func Escape(s string, unsafe func(r rune) bool) string {
	i := unsafeAt(s, unsafe)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < utf8.RuneSelf && unsafe(r):
			escapeByte(&b, s[i])
		case unsafe(r) && r <= 0xffff:
			b.WriteString(`\u`)
			hex(&b, r, 4)
		case unsafe(r):
			b.WriteString(`\U`)
			hex(&b, r, 8)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeAt returns the index of the first byte of s to escape, -1 when
// there is none.
func unsafeAt(s string, unsafe func(r rune) bool) int {
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return i
			}
		}
		if unsafe(r) {
			return i
		}
		i += size
	}
	return -1
}

// safeByte reports whether the ASCII byte c is shown as it is.
func safeByte(c byte, keepLines bool) bool {
	switch {
	case c >= 0x20 && c != 0x7f:
		return true
	case keepLines:
		return c == '\n' || c == '\t'
	}
	return false
}

// unsafeRune reports a rune at or above U+0080 that is escaped: a C1
// control or a bidi control.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Bidi_Control, r)
}

const hexDigits = "0123456789abcdef"

// escapeByte writes c as strconv.Quote would: a named escape or \xNN.
func escapeByte(b *strings.Builder, c byte) {
	switch c {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\v':
		b.WriteString(`\v`)
	default:
		b.WriteString(`\x`)
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xf])
	}
}

// hex writes the n lowercase hex digits of r.
func hex(b *strings.Builder, r rune, n int) {
	for shift := 4 * (n - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}
