package table

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/regretbench/regretbench/host/internal/termsafe"
)

// EscapeMarkdown escapes s, text bench did not write, for a cell or a
// line of GitHub-flavoured Markdown: its control characters are made
// visible first (termsafe.String: a cell stays on one line), then every
// character that Markdown would read as markup is backslash-escaped, so
// that the text reads as it is and cannot end the cell or start anything:
//
//   - \ | * ` and ~ (escapes, the cell's end, emphasis, code, strikeout),
//     wherever they are;
//   - _ unless it stands between two letters or digits (where CommonMark
//     never reads it as emphasis: snake_case stays as it is);
//   - < before a letter, /, ! or ? (an HTML tag, comment or autolink);
//     "<1e-4" stays as it is;
//   - & before a letter or # (an entity such as &lt;);
//   - ] before ( [ or : (a link, an image, a link definition).
//
// Numbers as host/internal/numfmt writes them ("6.36 ± 1.42", "<1e-4",
// "[+1.39, +2.32]", "-") hold nothing to escape, so number columns go
// through it all the same. Text that starts a line of its own (Lines)
// also has # > and [ escaped at the start of each line (a heading, a
// quote, a link definition).
func EscapeMarkdown(s string) string { return escapeMarkdown(termsafe.String(s), false) }

// escapeMarkdown escapes s, whose control characters are already made
// visible (newlines may be kept); lines says its lines start lines of
// the document.
func escapeMarkdown(s string, lines bool) string {
	if !strings.ContainsAny(s, "\\|*`~_<&[]#>") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		esc := false
		switch c {
		case '\\', '|', '*', '`', '~':
			esc = true
		case '_':
			esc = !(wordBefore(s, i) && wordAfter(s, i+1))
		case '<':
			esc = i+1 < len(s) && (isASCIILetter(s[i+1]) || strings.IndexByte("/!?", s[i+1]) >= 0)
		case '&':
			esc = i+1 < len(s) && (isASCIILetter(s[i+1]) || s[i+1] == '#')
		case ']':
			esc = i+1 < len(s) && strings.IndexByte("([:", s[i+1]) >= 0
		case '#', '>', '[':
			esc = lines && (i == 0 || s[i-1] == '\n')
		}
		if esc {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// wordBefore reports whether the rune before s[i] is a letter or digit.
func wordBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// wordAfter reports whether the rune at s[i] is a letter or digit.
func wordAfter(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
