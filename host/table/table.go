package table

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/regretbench/regretbench/host/internal/termsafe"
)

// Format is an output format of Render.
type Format int

// The formats of Render.
const (
	Text Format = iota
	Markdown
	CSV
	LaTeX
)

// Table is a table as data: what Render draws in every format, and what
// other renderers (the HTML report) lay out their own way.
type Table struct {
	// Name identifies the table among those of a report ("regret",
	// "separated", "summary", ...).
	Name string
	// Caption says what the table shows; Render does not write it (each
	// format sets captions its own way: see Caption).
	Caption string
	// Header is the header row, in bench's own words. In LaTeX, a span
	// between two $ is math and is written as it is.
	Header []string
	// Right says which columns are aligned right (numbers).
	Right []bool
	// Math says which columns hold numbers that LaTeX writes in math
	// mode (LatexMath); the other columns are text (LatexText). Nil:
	// none.
	Math []bool
	// Rows are the cells, plain text.
	Rows [][]string

	bold map[[2]int]bool // cells shown in bold in Markdown
}

// Append adds a row of cells.
func (t *Table) Append(cells ...string) { t.Rows = append(t.Rows, cells) }

// Bold shows the cell at row and col in bold in Markdown (a gate's
// "worse" verdict); the other formats show it as it is.
func (t *Table) Bold(row, col int) {
	if t.bold == nil {
		t.bold = map[[2]int]bool{}
	}
	t.bold[[2]int{row, col}] = true
}

// Render writes t (header and rows, no caption) in format f.
func (t *Table) Render(w io.Writer, f Format) error {
	switch f {
	case Text, Markdown:
		return t.renderTW(w, f == Markdown)
	case CSV:
		cw := csv.NewWriter(w)
		if err := cw.Write(t.Header); err != nil {
			return err
		}
		if err := cw.WriteAll(t.Rows); err != nil {
			return err
		}
		return cw.Error()
	case LaTeX:
		header := make([]string, len(t.Header))
		for i, h := range t.Header {
			header[i] = latexHeader(h)
		}
		rows := make([][]string, len(t.Rows))
		for i, r := range t.Rows {
			rows[i] = make([]string, len(r))
			for j, c := range r {
				switch {
				case c == "":
				case c == "-":
					c = LatexNA
				case j < len(t.Math) && t.Math[j]:
					c = LatexMath(c)
				default:
					c = LatexText(c)
				}
				rows[i][j] = c
			}
		}
		tabular(w, header, t.Right, rows)
		return nil
	}
	return fmt.Errorf("table: unknown format %d", f)
}

// renderTW draws t with tablewriter: ASCII borders, or Markdown.
func (t *Table) renderTW(w io.Writer, md bool) error {
	align := make([]tw.Align, len(t.Right))
	for i, r := range t.Right {
		align[i] = tw.AlignLeft
		if r {
			align[i] = tw.AlignRight
		}
	}
	var r tw.Renderer = renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})
	if md {
		r = renderer.NewMarkdown()
	}
	tab := tablewriter.NewTable(w,
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	header := make([]any, len(t.Header))
	for i, h := range t.Header {
		header[i] = termsafe.String(h) // bench's words: nothing Markdown escapes
	}
	tab.Header(header...)
	for i, r := range t.Rows {
		row := make([]any, len(r))
		for j, c := range r {
			switch {
			case !md:
				c = termsafe.String(c)
			case t.bold[[2]int{i, j}]:
				c = "**" + EscapeMarkdown(c) + "**"
			default:
				c = EscapeMarkdown(c)
			}
			row[j] = c
		}
		if err := tab.Append(row); err != nil {
			return err
		}
	}
	return tab.Render()
}

// latexHeader escapes a header cell for LaTeX, but for its math spans
// (between two $), which are written as they are.
func latexHeader(h string) string {
	parts := strings.Split(h, "$")
	if len(parts)%2 == 0 { // an unpaired $: all text
		return LatexText(h)
	}
	for i := range parts {
		if i%2 == 0 {
			parts[i] = LatexText(parts[i])
		}
	}
	return strings.Join(parts, "$")
}

// Line escapes text bench did not write (a scenario's name, a label, a
// note) for one line around a table in format f: its control characters
// made visible (termsafe) in Text and Markdown, then Markdown's own
// characters in Markdown; LatexText in LaTeX; nothing in CSV.
func Line(f Format, s string) string {
	switch f {
	case Text:
		return termsafe.String(s)
	case Markdown:
		return EscapeMarkdown(s)
	case LaTeX:
		return LatexText(s)
	}
	return s
}

// Lines is Line for text that may span lines (a note quoting a plugin's
// stderr): newlines and tabs are kept, each line escaped on its own.
func Lines(f Format, s string) string {
	switch f {
	case Text:
		return termsafe.Text(s)
	case Markdown:
		return escapeMarkdown(termsafe.Text(s), true)
	}
	return Line(f, s)
}

// Caption writes a table's caption (bench's own words) as the report
// tables set it: on a line of its own after a blank line, and in
// Markdown followed by a blank line too, or GitHub reads the table's
// header row as part of the caption's paragraph.
func Caption(w io.Writer, f Format, text string) {
	text = termsafe.String(text)
	if f == Markdown {
		fmt.Fprintf(w, "\n%s\n\n", escapeMarkdown(text, false))
		return
	}
	fmt.Fprintf(w, "\n%s\n", text)
}
