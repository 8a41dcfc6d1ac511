// Package table is the one home of bench's tables, as benchstat's texttab
// is benchstat's: a Table value (a header, rows of cells, which columns
// are numbers) that every table of bench is built as (the report tables
// of bench run and bench report, the comparison section of --with and
// --compare-to, the gate's verdict, bench paper's summary), rendered in
// each output format by one renderer with one escaping per format, so
// that a label reads the same in every table:
//
//   - Text: ASCII borders (tablewriter), numbers aligned right. Control
//     characters of every cell are shown as Go escapes (\x1b, \n,
//     \u202e) by host/internal/termsafe: nothing reaches the terminal raw.
//   - Markdown: a GitHub-flavoured table (tablewriter), numbers aligned
//     right. Control characters as in Text (a terminal shows Markdown
//     too), then, with a backslash: backslash, |, *, backtick and ~
//     everywhere; _ unless it stands between two letters or digits
//     (kkt_gap stays as it is: CommonMark never reads it as emphasis);
//     < before a letter, /, ! or ? (a tag, a comment, an autolink); &
//     before a letter or # (an entity); ] before (, [ or : (a link); and
//     at the start of a footnote's line, #, > and [.
//   - CSV: RFC 4180 (encoding/csv), cells as they are; fields holding a
//     comma, quote or newline are quoted.
//   - LaTeX: a booktabs tabular, text cells through LatexText (which
//     escapes \ & % $ # _ { } ~ ^ and prints < > | [ ] * and -- as
//     themselves), number cells through LatexMath (math mode: \pm,
//     powers of ten); LatexNA, an en dash, for a missing value.
//
// Cells are plain text: labels and names as the results files hold them,
// numbers as host/internal/numfmt writes them (6.36 ± 1.42,
// 1.2e+300 ± 2.3e+298, +20.0%, [+1.39, +2.32], <1e-4, 99%; numfmt.PM is
// the one "mean ± standard error" of bench). Numbers need no escape in
// any format. "-" is the missing value of every format.
//
// The metrics' names in every table come from one list, metric.Names
// (package host/metric).
package table
