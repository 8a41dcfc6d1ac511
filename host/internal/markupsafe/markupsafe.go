// Package markupsafe makes text from results files, scenarios and plugins
// (scenario names, policy labels, diagnostic names, errors) safe to put in
// an XML 1.0 or HTML document: the SVG figures of host/plot and the page
// of host/htmlreport. Escaping markup (< & and quotes) is the business of
// whoever writes the document (html/template, gonum's SVG canvas); what
// no escaping can carry is a character the document may not hold at all,
// and such a character makes an SVG that no XML parser reads and an HTML
// page that is not valid. This package replaces those characters by a
// visible escape, so that the text stays readable and two labels that
// differ only there still read apart.
package markupsafe

import (
	"unicode/utf8"

	"github.com/regretbench/regretbench/host/internal/termsafe"
)

// Text returns s with every character that XML 1.0 or HTML does not allow
// in a document replaced by a visible escape, as Go writes it in a quoted
// string (by termsafe.Escape, the loop host/internal/termsafe shows text
// on a terminal with):
//
//   - a byte that is not part of valid UTF-8 (so also an unpaired
//     surrogate's encoding) as \xHH;
//   - a C0 control other than tab, newline and carriage return, and DEL,
//     as \a \b \f \v or \xHH (a form feed too: XML forbids it);
//   - a C1 control (U+0080..U+009F) as \u00HH;
//   - a noncharacter (U+FDD0..U+FDEF and U+nFFFE, U+nFFFF of every plane)
//     as \uHHHH or \UHHHHHHHH.
//
// Everything else, markup characters included, is left as it is. Text
// returns s itself when nothing needs replacing.
func Text(s string) string { return escape(s, false) }

// Line is Text that also escapes tab, newline and carriage return (as \t,
// \n and \r): for text that must stay on one line, such as a figure's
// title or a legend entry.
func Line(s string) string { return escape(s, true) }

// Bytes is Text for a whole document: it returns b itself when nothing
// needs replacing.
func Bytes(b []byte) []byte {
	s := string(b)
	if e := escape(s, false); e != s {
		return []byte(e)
	}
	return b
}

func escape(s string, line bool) string {
	if line {
		return termsafe.Escape(s, func(r rune) bool { return !allowed(r) || r == '\t' || r == '\n' || r == '\r' })
	}
	return termsafe.Escape(s, func(r rune) bool { return !allowed(r) })
}

// allowed reports whether r may stand in an XML 1.0 document and in HTML
// text without a parse error: XML's Char production less the controls and
// noncharacters HTML reports.
func allowed(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r':
		return true
	case r < 0x20, r >= 0x7F && r <= 0x9F:
		return false
	case r >= 0xD800 && r <= 0xDFFF: // surrogates (not in valid UTF-8)
		return false
	case r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		return false
	case r > utf8.MaxRune:
		return false
	}
	return true
}
