package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/table"
)

// LaTeX for a paper as it is (every table bench writes as LaTeX): each table a
// floating table with \caption and \label, booktabs rules, numbers in
// siunitx S columns (aligned on the decimal point, mean \pm SE as a
// value with its uncertainty), and the best value of each column in bold,
// with every value not significantly different from it by paired tests
// (Holm-adjusted, as the text tables), not by its digits.
// A document \inputs it with
//
//	\usepackage{booktabs}
//	\usepackage{siunitx}
//	\usepackage{graphicx}
//
// (graphicx shrinks a table wider than the text to its width, as one of
// 20 policies x 9 experiments is). LatexPreamble is those lines.
const LatexPreamble = "\\usepackage{booktabs}\n\\usepackage{siunitx}\n\\usepackage{graphicx}\n"

// siSetup is set at the start of each table environment (so only for it):
// the uncertainty after \pm, and bold numbers when a cell says \bfseries.
const siSetup = `\sisetup{separate-uncertainty=true, reset-text-series=false, text-series-to-math=true, propagate-math-font=true}`

// LatexLabel is a \label key made of s: letters, digits and - only.
func LatexLabel(prefix, s string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// SICell writes mean ± SE (or a plain number when se < 0) as an S-column
// cell, bold when asked; a value that is not a finite number is {--}.
func SICell(mean, se float64, bold bool) string {
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return "{--}"
	}
	var c string
	if se < 0 {
		c = strconv.FormatFloat(mean, 'f', 2, 64)
	} else {
		c = strings.Replace(numfmt.PM(mean, se), " ± ", " +- ", 1)
		if strings.ContainsAny(c, "∞NaIn") {
			return "{" + table.LatexText(c) + "}"
		}
	}
	if bold {
		return `\bfseries ` + c
	}
	return c
}

// siFormat is the table-format of an S column holding cells (SICell's):
// the widest integer part, decimals and uncertainty digits.
func siFormat(cells []string) string {
	in, dec, unc := 1, 0, 0
	for _, c := range cells {
		c = strings.TrimPrefix(c, `\bfseries `)
		if strings.HasPrefix(c, "{") {
			continue
		}
		v, u, hasU := strings.Cut(c, " +- ")
		v = strings.TrimPrefix(v, "-")
		ip, fp, _ := strings.Cut(v, ".")
		in, dec = max(in, len(ip)), max(dec, len(fp))
		if hasU {
			digits := strings.TrimLeft(strings.ReplaceAll(u, ".", ""), "0")
			unc = max(unc, len(digits), 1)
		}
	}
	f := strconv.Itoa(in)
	if dec > 0 {
		f += "." + strconv.Itoa(dec)
	}
	if unc > 0 {
		f += "(" + strconv.Itoa(unc) + ")"
	}
	return f
}

// LatexTable is a floating table: caption, label, column spec (columns
// of S cells carry their table-format), header and rows already escaped.
type LatexTable struct {
	Caption, Label string
	Wide           bool     // table*, across both columns of a two-column paper
	Cols           []string // "l", "r", "c", or "S" (formatted from its cells)
	Header         []string
	Rows           [][]string
	Comments       []string // written as LaTeX comments above it
}

// Write writes t.
func (t LatexTable) Write(w io.Writer) {
	env := "table"
	if t.Wide {
		env = "table*"
	}
	fmt.Fprintln(w)
	for _, c := range t.Comments {
		table.LatexComment(w, c)
	}
	fmt.Fprintf(w, "\\begin{%s}[htbp]\n\\centering\n\\small\n%s\n", env, siSetup)
	fmt.Fprintf(w, "\\caption{%s}\n\\label{%s}\n", t.Caption, t.Label)
	spec := make([]string, len(t.Cols))
	for j, c := range t.Cols {
		spec[j] = c
		if c == "S" {
			var cells []string
			for _, r := range t.Rows {
				cells = append(cells, r[j])
			}
			spec[j] = "S[table-format=" + siFormat(cells) + "]"
		}
	}
	// Shrunk to the text width when wider, never enlarged.
	fmt.Fprintf(w, "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%%\n")
	fmt.Fprintf(w, "\\begin{tabular}{%s}\n\\toprule\n", strings.Join(spec, " "))
	h := make([]string, len(t.Header))
	for j, c := range t.Header {
		h[j] = c
		if t.Cols[j] == "S" {
			h[j] = "{" + c + "}"
		}
	}
	fmt.Fprintf(w, "%s \\\\\n\\midrule\n", strings.Join(h, " & "))
	for _, r := range t.Rows {
		fmt.Fprintf(w, "%s \\\\\n", strings.Join(r, " & "))
	}
	fmt.Fprintf(w, "\\bottomrule\n\\end{tabular}}\n\\end{%s}\n", env)
}
