package report_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/report"
)

// section stands for the comparison section: one line naming the format
// it was asked for.
func section(w io.Writer, f report.Format) error {
	_, err := fmt.Fprintf(w, "SECTION %s\n", f)
	return err
}

// TestRender: each format prints the tables, then the section (after an
// empty line in csv, none in json); with a figure directory the figures
// are written and listed after the tables in the table format only.
func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       report.Options
		want    []string // in this order
		section string   // how the output ends: "" for no section
		figures bool
	}{
		{"table", report.Options{Format: report.FormatTable}, []string{"Regret at T=200", "+----"}, "\nSECTION table\n", false},
		{"table at", report.Options{At: []int{10, 100}}, []string{"regret t=10", "regret t=100"}, "\nSECTION table\n", false},
		{"markdown", report.Options{Format: report.FormatMarkdown}, []string{"**small:", "|:---"}, "\nSECTION markdown\n", false},
		{"latex", report.Options{Format: report.FormatLatex}, []string{`\begin{tabular}`}, "\nSECTION latex\n", false},
		{"csv", report.Options{Format: report.FormatCSV}, []string{"scenario,policy,metric,t,mean,se\n"}, "\n\nSECTION csv\n", false},
		{"json", report.Options{Format: report.FormatJSON}, []string{`"schema": "regretbench/results/v1"`}, "", false},
		{"table figures", report.Options{Format: report.FormatTable}, []string{"SECTION table\n", "\nFigures:\n", "  ", "small_regret.png\n"}, "", true},
		{"csv figures", report.Options{Format: report.FormatCSV}, nil, "\n\nSECTION csv\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "figs")
			fig := report.Figures{Formats: []string{"png"}}
			if tc.figures {
				fig.Dir = dir
			}
			var b bytes.Buffer
			if err := report.Render(&b, small(t), tc.o, section, fig); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order %q):\n%s", w, tc.want, out)
				}
				rest = rest[i+len(w):]
			}
			if tc.section != "" && !strings.HasSuffix(out, tc.section) {
				t.Errorf("output does not end with %q:\n%s", tc.section, out)
			}
			if tc.section == "" && !tc.figures && strings.Contains(out, "SECTION") {
				t.Errorf("json output holds the section:\n%s", out)
			}
			if tc.o.Format == report.FormatCSV {
				table, _, _ := strings.Cut(out, "\n\n")
				if _, err := csv.NewReader(strings.NewReader(table)).ReadAll(); err != nil {
					t.Errorf("csv output does not parse (figure paths mixed in?): %v", err)
				}
			}
			figs, _ := filepath.Glob(filepath.Join(dir, "small_*"))
			if tc.figures && len(figs) != 7 { // 3 metrics, the distribution, 3 diagnostics
				t.Errorf("wrote %d figures: %v", len(figs), figs)
			}
		})
	}
	// No section: the tables alone.
	var with, without bytes.Buffer
	if err := report.Render(&without, small(t), report.Options{}, nil, report.Figures{}); err != nil {
		t.Fatal(err)
	}
	if err := report.Write(&with, small(t), report.Options{}); err != nil {
		t.Fatal(err)
	}
	if with.String() != without.String() {
		t.Errorf("Render without a section or figures differs from Write:\n%s\nvs\n%s", without.String(), with.String())
	}
}

// TestRenderFiguresError: a figure that cannot be written costs only
// itself: the tables and section are printed, the other figures written
// and listed, and the error is a *FiguresError naming the figure.
func TestRenderFiguresError(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "small_regret.png")
	if err := os.Mkdir(blocked, 0o755); err != nil { // a directory where the figure goes
		t.Fatal(err)
	}
	var b bytes.Buffer
	err := report.Render(&b, small(t), report.Options{}, section, report.Figures{Dir: dir, Formats: []string{"png"}})
	var fe *report.FiguresError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "small_regret.png") {
		t.Fatalf("err %v (%T), want a *FiguresError naming small_regret.png", err, err)
	}
	if out := b.String(); !strings.Contains(out, "SECTION table\n") || !strings.Contains(out, "small_underestimation.png\n") || strings.Contains(out, "small_regret.png\n") {
		t.Errorf("output lacks the section or the written figures, or lists the blocked one:\n%s", out)
	}
	if figs, _ := filepath.Glob(filepath.Join(dir, "small_*.png")); len(figs) != 7 { // 6 written, and the blocking directory
		t.Errorf("%d figures, want the 6 others written: %v", len(figs), figs)
	}
}

// TestRenderTablesError: a round that is not a checkpoint is a
// *TablesError, found before anything is printed or drawn.
func TestRenderTablesError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	var b bytes.Buffer
	err := report.Render(&b, small(t), report.Options{At: []int{7}}, section, report.Figures{Dir: dir})
	var te *report.TablesError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "round 7 is not a checkpoint") {
		t.Fatalf("err %v (%T), want a *TablesError for round 7", err, err)
	}
	if b.Len() > 0 {
		t.Errorf("printed %q", b.String())
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("figures drawn despite the error (stat: %v)", err)
	}
}
