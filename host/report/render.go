package report

import (
	"fmt"
	"io"

	"github.com/regretbench/regretbench/host/internal/termsafe"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

// Section writes a section that follows the tables, in their format: the
// comparison section (compare.Section).
type Section func(w io.Writer, format Format) error

// Figures say whether and how Render draws a results file's figures.
type Figures struct {
	Dir          string   // the directory the figures go into; "" for none
	Formats      []string // figure formats (plot.DefaultFormats when none)
	plot.Options          // how they are drawn
}

// Render writes f to w in o.Format followed by section, when not nil,
// and with fig.Dir writes the figures (plot.WriteWith). The section
// follows the tables (table, markdown, latex) or the long-form CSV after
// an empty line (csv, with its own header); json has none, as the
// results file holds its comparison. With the table format the figures'
// paths follow, one a line; other formats print only the data, so the
// output stays machine readable.
//
// An error of the tables is a *TablesError. A figure that cannot be
// written costs only itself: when figures alone failed, everything else
// was printed and every other figure written, and the error is a
// *FiguresError.
func Render(w io.Writer, f *results.File, o Options, section Section, fig Figures) error {
	if err := Write(w, f, o); err != nil {
		return &TablesError{err}
	}
	format, _ := ParseFormat(string(o.Format)) // Write has checked it
	if section != nil && format != FormatJSON {
		if format == FormatCSV {
			fmt.Fprintln(w)
		}
		if err := section(w, format); err != nil {
			return err
		}
	}
	if fig.Dir == "" {
		return nil
	}
	paths, err := plot.WriteWith(f, fig.Dir, fig.Options, fig.Formats...)
	if format == FormatTable && len(paths) > 0 {
		fmt.Fprintf(w, "\nFigures:\n")
		for _, p := range paths {
			fmt.Fprintf(w, "  %s\n", termsafe.String(p))
		}
	}
	if err != nil {
		return &FiguresError{err}
	}
	return nil
}

// TablesError is Render's error when the tables could not be written
// (a round of Options.At that is not a checkpoint, or w failed).
type TablesError struct{ Err error }

func (e *TablesError) Error() string { return e.Err.Error() }
func (e *TablesError) Unwrap() error { return e.Err }

// FiguresError is Render's error when only figures could not be written:
// the output was printed and every other figure written, so a run goes on
// to write its results.
type FiguresError struct{ Err error }

func (e *FiguresError) Error() string { return e.Err.Error() }
func (e *FiguresError) Unwrap() error { return e.Err }
