package table

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestText: every character LaTeX reads as markup is written as itself,
// by hand-checked escapes; what needs none is left alone.
func TestLatexText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"KL-UCB, c=0", "KL-UCB, c=0"},
		{"ReMax é", "ReMax é"},
		{"a&b", `a\&b`},
		{"100%", `100\%`},
		{"$5", `\$5`},
		{"#2", `\#2`},
		{"snake_case", `snake\_case`},
		{"{x}", `\{x\}`},
		{"a~b", `a\textasciitilde{}b`},
		{"x^2", `x\textasciicircum{}2`},
		{`C:\dir`, `C:\textbackslash{}dir`},
		{`\end{tabular}`, `\textbackslash{}end\{tabular\}`},
		{`\\`, `\textbackslash{}\textbackslash{}`},
		{"a<b>c|d", `a\textless{}b\textgreater{}c\textbar{}d`},
		{"[5pt] row", `{[}5pt{]} row`},
		{"*star", `{*}star`},
		{"a--b", `a-{}-b`},
		{"a---b", `a-{}-{}-b`},
		{"line\nbreak", `line\textbackslash{}nbreak`}, // termsafe's \n, then escaped
		{"esc\x1b[2J", `esc\textbackslash{}x1b{[}2J`},
		{"", ""},
	} {
		if got := LatexText(tc.in); got != tc.want {
			t.Errorf("LatexText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// escapes are every sequence Text writes for a special character.
var escapes = []string{`\textbackslash{}`, `\textasciitilde{}`, `\textasciicircum{}`, `\textless{}`, `\textgreater{}`, `\textbar{}`,
	`\&`, `\%`, `\$`, `\#`, `\_`, `\{`, `\}`, `{[}`, `{]}`, `{*}`, `-{}`}

// TestTextLeavesNoMarkup: for hostile strings drawn from LaTeX's special
// characters, what Text writes holds, once its escapes are taken out, no
// special character, no "--" and no control character: nothing a label
// could use to end a cell, a row or the tabular, open a group or math,
// or comment out the rest of the line.
func TestLatexTextLeavesNoMarkup(t *testing.T) {
	const alphabet = "\\&%$#_{}~^<>|[]*-x \n\t\x1b\x00é"
	rng := rand.New(rand.NewPCG(1, 2))
	runes := []rune(alphabet)
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		in := b.String()
		out := LatexText(in)
		rest := out
		for _, e := range escapes {
			rest = strings.ReplaceAll(rest, e, " ")
		}
		if i := strings.IndexAny(rest, "\\&%$#_{}~^<>|[]*\n\t\x1b\x00"); i >= 0 || strings.Contains(rest, "--") {
			t.Fatalf("LatexText(%q) = %q leaves markup: %q", in, out, rest)
		}
	}
}

func TestLatexMath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"6.36 ± 1.42", `$6.36 \pm 1.42$`},
		{"0 ± 0", `$0 \pm 0$`},
		{"1.235e+300 ± 2.3e+298", `$1.235\times 10^{300} \pm 2.3\times 10^{298}$`},
		{"1.23e-05", `$1.23\times 10^{-5}$`},
		{"<1e-4", `$<10^{-4}$`},
		{"+1.85", `$+1.85$`},
		{"[+1.39, +2.32]", `$[+1.39, +2.32]$`},
		{"36%", `$36\%$`},
		{"<1%", `$<1\%$`},
		{"-", LatexNA},
		{"", LatexNA},
		{"FAILED", "FAILED"},
		{"NaN", "NaN"},
	} {
		if got := LatexMath(tc.in); got != tc.want {
			t.Errorf("LatexMath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCommentStaysComment: every line of a comment starts with "%", so
// that no text, newlines in it included, reaches the typeset output.
func TestLatexCommentStaysComment(t *testing.T) {
	var b bytes.Buffer
	LatexComment(&b, "title\n\\end{tabular}\r\\bye\x1b")
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "% ") {
			t.Errorf("line %q is not a comment", line)
		}
	}
}

func TestTabular(t *testing.T) {
	var b bytes.Buffer
	tabular(&b, []string{"policy", "regret"}, []bool{false, true}, [][]string{{"A", "$1$"}, {"B", LatexNA}})
	want := `\begin{tabular}{lr}
\toprule
policy & regret \\
\midrule
A & $1$ \\
B & -- \\
\bottomrule
\end{tabular}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
