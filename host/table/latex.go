package table

// LaTeX: booktabs tabulars (\toprule, \midrule, \bottomrule) to \input
// into a paper's table environment, with no preamble. The only package
// they need is booktabs.
//
// Text from results files (labels, scenario and diagnostic names) goes
// through LatexText, which escapes what LaTeX would read as markup;
// numbers as the text tables write them (host/internal/numfmt) go
// through LatexMath.

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/regretbench/regretbench/host/internal/termsafe"
)

// LatexText escapes s for a tabular cell in text mode. Control characters are
// first made visible as termsafe writes them (a newline as \n, shown as
// such); then the characters LaTeX gives a meaning are written as
// themselves: \ & % $ # _ { } ~ ^, and < > | (which the default OT1 font
// encoding would print as other glyphs), [ ] and * (which \\ or \midrule
// would take as an optional argument at the start of a row), and a "-"
// before another "-" (which would join into a dash).
func LatexText(s string) string {
	s = termsafe.String(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '&', '%', '$', '#', '_', '{', '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		case '<':
			b.WriteString(`\textless{}`)
		case '>':
			b.WriteString(`\textgreater{}`)
		case '|':
			b.WriteString(`\textbar{}`)
		case '[', ']', '*':
			b.WriteByte('{')
			b.WriteByte(c)
			b.WriteByte('}')
		case '-':
			b.WriteByte('-')
			if i+1 < len(s) && s[i+1] == '-' {
				b.WriteString("{}")
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// LatexNA is the cell of a value that does not apply or is missing (a failed
// policy's, an untested difference's): an en dash.
const LatexNA = "--"

var sci = regexp.MustCompile(`([0-9.]+)e([+-])0*([0-9]+)`)

// LatexMath writes a number cell as bench's text tables write it ("6.36 ±
// 1.42", "1.2e+300 ± 2.3e+298", "+1.85", "[+1.39, +2.32]", "<1e-4",
// "36%") in math mode: ± as \pm, scientific notation as a power of ten,
// % escaped. "-", the text tables' missing value, is LatexNA; a cell with no
// digit is written as text.
func LatexMath(cell string) string {
	if cell == "-" || cell == "" {
		return LatexNA
	}
	if !strings.ContainsAny(cell, "0123456789") {
		return LatexText(cell)
	}
	s := strings.ReplaceAll(cell, " ± ", ` \pm `)
	s = sci.ReplaceAllStringFunc(s, func(m string) string {
		p := sci.FindStringSubmatch(m)
		exp := p[3]
		if p[2] == "-" {
			exp = "-" + exp
		}
		if p[1] == "1" {
			return `10^{` + exp + `}`
		}
		return p[1] + `\times 10^{` + exp + `}`
	})
	s = strings.ReplaceAll(s, "%", `\%`)
	return "$" + s + "$"
}

// LatexComment writes text as LaTeX comment lines ("% text"), one per line of
// text, control characters made visible: what a table says around it
// (its title, caption and footnotes), kept with it but not typeset.
func LatexComment(w io.Writer, text string) {
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(w, "%% %s\n", termsafe.String(line))
	}
}

// tabular writes a booktabs tabular: header and rows are cells already
// escaped (LatexText, LatexMath), right says which columns are right-aligned.
func tabular(w io.Writer, header []string, right []bool, rows [][]string) {
	spec := make([]byte, len(right))
	for i, r := range right {
		spec[i] = 'l'
		if r {
			spec[i] = 'r'
		}
	}
	fmt.Fprintf(w, "\\begin{tabular}{%s}\n\\toprule\n", spec)
	fmt.Fprintf(w, "%s \\\\\n\\midrule\n", strings.Join(header, " & "))
	for _, r := range rows {
		fmt.Fprintf(w, "%s \\\\\n", strings.Join(r, " & "))
	}
	fmt.Fprintf(w, "\\bottomrule\n\\end{tabular}\n")
}
