package table

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/internal/termsafe/termsafetest"
)

// small is a table with a text column, a number column and a text
// column, the number column aligned right.
func small() Table {
	t := Table{Header: []string{"policy", "regret", "status"}, Right: []bool{false, true, false}, Math: []bool{false, true, false}}
	t.Append("ReMax", "6.36 ± 1.42", "ok")
	t.Append("KL-UCB, c=0", "10.00 ± 11.00", "ok")
	t.Append("Broken", "-", "FAILED")
	return t
}

func render(t *testing.T, tab Table, f Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := tab.Render(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRenderLayout: each format lays out the same table as bench's golden
// files do: ASCII borders and Markdown with number columns aligned right,
// CSV as RFC 4180, LaTeX as a booktabs tabular with numbers in math
// mode and "-" as an en dash.
func TestRenderLayout(t *testing.T) {
	for _, tc := range []struct {
		f    Format
		want string
	}{
		{Text, `+-------------+---------------+--------+
|   policy    |    regret     | status |
+-------------+---------------+--------+
| ReMax       |   6.36 ± 1.42 | ok     |
| KL-UCB, c=0 | 10.00 ± 11.00 | ok     |
| Broken      |             - | FAILED |
+-------------+---------------+--------+
`},
		{Markdown, `|   policy    |    regret     | status |
|:------------|--------------:|:-------|
| ReMax       |   6.36 ± 1.42 | ok     |
| KL-UCB, c=0 | 10.00 ± 11.00 | ok     |
| Broken      |             - | FAILED |
`},
		{CSV, "policy,regret,status\nReMax,6.36 ± 1.42,ok\n\"KL-UCB, c=0\",10.00 ± 11.00,ok\nBroken,-,FAILED\n"},
		{LaTeX, `\begin{tabular}{lrl}
\toprule
policy & regret & status \\
\midrule
ReMax & $6.36 \pm 1.42$ & ok \\
KL-UCB, c=0 & $10.00 \pm 11.00$ & ok \\
Broken & -- & FAILED \\
\bottomrule
\end{tabular}
`},
	} {
		if got := render(t, small(), tc.f); got != tc.want {
			t.Errorf("format %d:\n%s\nwant\n%s", tc.f, got, tc.want)
		}
	}
	if err := (&Table{}).Render(&bytes.Buffer{}, Format(99)); err == nil {
		t.Error("unknown format: no error")
	}
}

// TestRightAlignment: in the text and Markdown tables every cell of a
// right-aligned column ends in the same column of the line, every cell
// of a left-aligned one starts in the same column, whatever the widths.
func TestRightAlignment(t *testing.T) {
	tab := Table{Header: []string{"a", "n"}, Right: []bool{false, true}}
	for _, s := range []string{"x", "longer label", "é"} {
		tab.Append(s, strings.Repeat("9", len(s)))
	}
	for _, f := range []Format{Text, Markdown} {
		var ends, starts []int
		for _, line := range strings.Split(strings.TrimSpace(render(t, tab, f)), "\n") {
			cells := strings.Split(line, "|")
			if len(cells) != 4 || strings.Trim(cells[1], ":-+ ") == "" || cells[1] == "  a  " {
				continue // border, alignment or header row
			}
			if strings.TrimSpace(cells[2]) == "n" {
				continue
			}
			ends = append(ends, utf8.RuneCountInString(strings.TrimRight(line[:strings.LastIndex(line, "|")], " ")))
			starts = append(starts, strings.Index(line, strings.TrimSpace(cells[1])))
		}
		if len(ends) != 3 {
			t.Fatalf("format %d: %d rows read back", f, len(ends))
		}
		for i := range ends {
			if ends[i] != ends[0] || starts[i] != starts[0] {
				t.Errorf("format %d: number ends at %v, label starts at %v", f, ends, starts)
			}
		}
	}
}

func TestEscapeMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"KL-UCB, c=0", "KL-UCB, c=0"},
		{"snake_case kkt_gap x2_3 é_ü", "snake_case kkt_gap x2_3 é_ü"}, // between letters: never emphasis
		{"_x_ a_ _b __c__ a_.", `\_x\_ a\_ \_b \_\_c\_\_ a\_.`},
		{"a|b", `a\|b`},
		{"*x* **y**", `\*x\* \*\*y\*\*`},
		{"`code`", "\\`code\\`"},
		{"~~old~~", `\~\~old\~\~`},
		{`C:\dir\`, `C:\\dir\\`},
		{"<img src=x> </b> <!-- <?x <http://e>", `\<img src=x> \</b> \<!-- \<?x \<http://e>`},
		{"&lt; &#60; & a&b", `\&lt; \&#60; & a\&b`},
		{"[x](http://e) ![i](u) [r][1] [d]: u [n]", `[x\](http://e) ![i\](u) [r\][1] [d\]: u [n]`},
		{"# not a heading > nor a quote", "# not a heading > nor a quote"}, // in a cell, no line starts
		{"esc\x1b[2J\u202e", `esc\\x1b[2J\\u202e`},                         // termsafe first, then its backslashes
		// numbers as numfmt and the comparison tables write them: untouched
		{"6.36 ± 1.42", "6.36 ± 1.42"}, {"<1e-4", "<1e-4"}, {"<1%", "<1%"}, {"[+1.39, +2.32]", "[+1.39, +2.32]"},
		{"-1.2e+300 ± 2.3e+298", "-1.2e+300 ± 2.3e+298"}, {"+20.0%", "+20.0%"}, {"1/4", "1/4"}, {"-", "-"}, {"", ""},
	} {
		if got := EscapeMarkdown(tc.in); got != tc.want {
			t.Errorf("EscapeMarkdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLines: text that starts lines (a gate footnote, a list item) has
// #, > and [ escaped at the start of each of its lines too, and keeps
// its newlines in Markdown and Text; LaTeX and CSV get their own.
func TestLines(t *testing.T) {
	in := "# head\n> quote\n[d]: http://e\nx # > [\tend\r"
	for _, tc := range []struct {
		f    Format
		want string
	}{
		{Markdown, "\\# head\n\\> quote\n\\[d\\]: http://e\nx # > [\tend\\\\r"},
		{Text, "# head\n> quote\n[d]: http://e\nx # > [\tend\\r"},
		{CSV, in},
		{LaTeX, LatexText(in)},
	} {
		if got := Lines(tc.f, in); got != tc.want {
			t.Errorf("Lines(%d) = %q, want %q", tc.f, got, tc.want)
		}
	}
	if got, want := Line(Markdown, in), EscapeMarkdown(in); got != want || strings.Contains(got, "\n") {
		t.Errorf("Line(Markdown) = %q, want %q on one line", got, want)
	}
}

// hostile draws a cell from the characters that would break a table in
// some format: Markdown's markup, LaTeX's specials, CSV's quote and
// separator, controls, bidi overrides and invalid UTF-8.
func hostile(rng *rand.Rand) string {
	const alphabet = "\\|*_`~<>&[]()#!:-/x1 ,\"\n\t\r\x1b\x00\u202eé"
	runes := []rune(alphabet)
	var b strings.Builder
	for range 1 + rng.IntN(10) {
		b.WriteRune(runes[rng.IntN(len(runes))])
	}
	if rng.IntN(8) == 0 {
		b.WriteString("\xff")
	}
	return b.String()
}

// unescapeMarkdown undoes backslash escapes, as a Markdown reader does.
func unescapeMarkdown(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\|*_`~<>&[]#", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitRow splits a Markdown table row on the | that are not escaped.
func splitRow(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			cur.WriteByte(line[i])
			cur.WriteByte(line[i+1])
			i++
		case line[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, cur.String())
}

// markupLeft returns the markup a Markdown cell still holds once its
// escapes are taken out: what could end the cell, start emphasis, code,
// strikeout, an HTML tag or entity, or a link.
func markupLeft(cell string) string {
	var rest strings.Builder
	for i := 0; i < len(cell); i++ {
		if cell[i] == '\\' && i+1 < len(cell) {
			rest.WriteString("  ")
			i++
			continue
		}
		rest.WriteByte(cell[i])
	}
	r := rest.String()
	if i := strings.IndexAny(r, "|*`~"); i >= 0 {
		return r[i:]
	}
	for i := 0; i < len(r); i++ {
		next := byte(' ')
		if i+1 < len(r) {
			next = r[i+1]
		}
		switch r[i] {
		case '_':
			before, _ := utf8.DecodeLastRuneInString(r[:i])
			after, _ := utf8.DecodeRuneInString(r[i+1:])
			word := func(x rune) bool { return unicode.IsLetter(x) || unicode.IsDigit(x) }
			if !word(before) || !word(after) {
				return r[i:]
			}
		case '<':
			if isASCIILetter(next) || strings.IndexByte("/!?", next) >= 0 {
				return r[i:]
			}
		case '&':
			if isASCIILetter(next) || next == '#' {
				return r[i:]
			}
		case ']':
			if strings.IndexByte("([:", next) >= 0 {
				return r[i:]
			}
		}
	}
	return ""
}

// TestHostileCells: whatever its cells hold, a table keeps its shape and
// its text in every format. In Text, every row stays on one line and no
// control character reaches the terminal. In Markdown, the
// same, each cell read back (escapes undone) is the cell shown on a
// terminal, and no markup is left in it. CSV reads back to the cells as
// they are. LaTeX leaves no special character outside its escapes.
func TestHostileCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 4))
	for range 300 {
		tab := Table{Header: []string{"a", "b", "c"}, Right: []bool{false, true, false}, Math: []bool{false, false, false}}
		for range 3 {
			tab.Append(hostile(rng), hostile(rng), hostile(rng))
		}
		txt := render(t, tab, Text)
		if raw := termsafetest.Raw(txt); raw != "" {
			t.Fatalf("text table leaves a %s:\n%s", raw, txt)
		}
		if n := strings.Count(txt, "\n"); n != 3+len(tab.Rows)+1 {
			t.Fatalf("text table of %d lines, want %d:\n%s", n, 3+len(tab.Rows)+1, txt)
		}

		md := render(t, tab, Markdown)
		lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
		if len(lines) != 2+len(tab.Rows) {
			t.Fatalf("markdown of %d lines for %d rows:\n%s", len(lines), len(tab.Rows), md)
		}
		for i, line := range lines[2:] {
			cells := splitRow(line)
			if len(cells) != 2+len(tab.Header) {
				t.Fatalf("markdown row %q has %d cells, want %d", line, len(cells)-2, len(tab.Header))
			}
			for j, c := range cells[1 : len(cells)-1] {
				c = strings.TrimSpace(c)
				if got, want := unescapeMarkdown(c), strings.TrimSpace(termsafe.String(tab.Rows[i][j])); got != want {
					t.Fatalf("markdown cell %q reads %q, want %q", c, got, want)
				}
				if m := markupLeft(c); m != "" {
					t.Fatalf("markdown cell %q (from %q) leaves markup at %q", c, tab.Rows[i][j], m)
				}
			}
		}

		rows, err := csv.NewReader(strings.NewReader(render(t, tab, CSV))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rows[1:] {
			for j, c := range r {
				// encoding/csv writes \r\n inside a quoted field as \r\n
				// and reads it back as \n, as RFC 4180 readers do.
				if want := strings.ReplaceAll(tab.Rows[i][j], "\r\n", "\n"); c != want && strings.ReplaceAll(c, "\r\n", "\n") != want {
					t.Fatalf("csv cell %q, want %q", c, want)
				}
			}
		}

		tex := render(t, tab, LaTeX)
		body := tex[strings.Index(tex, "\\midrule\n")+len("\\midrule\n") : strings.Index(tex, "\\bottomrule")]
		for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
			line = strings.TrimSuffix(line, ` \\`)
			for _, e := range escapes {
				line = strings.ReplaceAll(line, e, " ")
			}
			line = strings.ReplaceAll(line, " & ", " ")
			if i := strings.IndexAny(line, "\\&%$#_{}~^<>|[]*\n\t\x1b\x00"); i >= 0 {
				t.Fatalf("LaTeX row leaves a special at %q:\n%s", line[i:], tex)
			}
		}
	}
}

// TestBold: a bold cell is bold in Markdown only, its text escaped.
func TestBold(t *testing.T) {
	tab := Table{Header: []string{"verdict"}, Right: []bool{false}}
	tab.Append("worse*")
	tab.Bold(0, 0)
	if md := render(t, tab, Markdown); !strings.Contains(md, `| **worse\*** |`) {
		t.Errorf("markdown:\n%s", md)
	}
	if txt := render(t, tab, Text); strings.Contains(txt, "**") || !strings.Contains(txt, "| worse* ") {
		t.Errorf("text:\n%s", txt)
	}
}

// TestLatexCells: in LaTeX, a header's $...$ spans are math and the rest
// is escaped; an empty cell stays empty (a policy's cells written once);
// "-" is the en dash in every column.
func TestLatexCells(t *testing.T) {
	tab := Table{Header: []string{"regret $t=50$", "99% CI", "$p$ (Holm)", "a$b"}, Right: []bool{true, true, true, false}, Math: []bool{true, false, true, false}}
	tab.Append("", "-", "<1e-4", "x_y")
	got := render(t, tab, LaTeX)
	for _, want := range []string{`regret $t=50$ & 99\% CI & $p$ (Holm) & a\$b \\`, ` & -- & $<10^{-4}$ & x\_y \\`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
