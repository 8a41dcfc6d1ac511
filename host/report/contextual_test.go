package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/internal/latextest"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/report/reporttest"
	"github.com/regretbench/regretbench/host/results"
)

func contextualFile() *results.File {
	return reporttest.Contextual("wine", 6, 100, reporttest.ContextualPolicies...)
}

// TestContextualGolden: every table format of a contextual run, as
// golden files: regret and pv_loss, the context in the title, and none of
// the underestimation metrics, which a contextual run does not compute.
func TestContextualGolden(t *testing.T) {
	f := contextualFile()
	for _, tc := range []struct {
		name   string
		format report.Format
		at     []int
	}{
		{"contextual_table.golden", report.FormatTable, nil},
		{"contextual_markdown.golden", report.FormatMarkdown, nil},
		{"contextual_csv.golden", report.FormatCSV, nil},
		{"contextual_latex.golden", report.FormatLatex, nil},
		{"contextual_table_at.golden", report.FormatTable, []int{50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := report.Write(&b, f, report.Options{Format: tc.format, At: tc.at}); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
			out := b.String()
			for _, absent := range []string{metric.Underestimation, metric.RegretUnder, metric.RegretNotUnder, "share under", "Separated"} {
				if strings.Contains(out, absent) {
					t.Errorf("%s shows %q, which a contextual run does not compute", tc.name, absent)
				}
			}
			for _, want := range []string{"pv_loss", "LinUCB"} {
				if !strings.Contains(strings.ReplaceAll(out, `\_`, "_"), want) {
					t.Errorf("%s lacks %q", tc.name, want)
				}
			}
			if tc.format == report.FormatTable && !strings.Contains(out, "wine: K=3, d=13 (dataset wine, 178 rows), T=100, 6 runs, seed 7") {
				t.Errorf("title does not say the context:\n%s", out)
			}
		})
	}
}

// TestContextualTables: the tables as data (what the HTML report lays
// out): the regret table's columns, pv_loss equal to regret / T on a
// dataset, no separated-regret table.
func TestContextualTables(t *testing.T) {
	f := contextualFile()
	tabs := report.TableData(f, nil)
	var names []string
	for _, tab := range tabs {
		names = append(names, tab.Name)
	}
	if !slices.Equal(names, []string{"regret", "distribution"}) {
		t.Errorf("tables %v, want regret and distribution", names)
	}
	reg := tabs[0]
	if !slices.Equal(reg.Header, []string{"policy", "regret", "pv_loss", "seconds", "status"}) {
		t.Errorf("regret header %v", reg.Header)
	}
	// LinUCB errs in 8 to 11 of 100 rounds (8.5 on average).
	if r := reg.Rows[0]; r[0] != "LinUCB" || !strings.HasPrefix(r[1], "8.50 ±") || !strings.HasPrefix(r[2], "0.0850 ±") {
		t.Errorf("LinUCB row %v, want regret 8.50 and pv_loss 0.0850", r)
	}
	if r := reg.Rows[3]; r[0] != "Broken" || r[2] != "-" || r[4] != "FAILED" {
		t.Errorf("failed row %v", r)
	}
}

// TestContextualLatexCompiles: the contextual LaTeX table compiles and
// shows regret and pv_loss.
func TestContextualLatexCompiles(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "contextual_latex.golden"))
	if err != nil {
		t.Fatal(err)
	}
	text := latextest.Compile(t, string(body))
	latextest.Contains(t, text, "Table 1", "progressive-validation loss", "0.0850", "LinUCB", "failed")
}

// TestSummaryTableContextual: bench paper's summary table of files of
// both kinds shows each file's metrics and "n/a" for the others'; of
// contextual files alone, regret and pv_loss only; of context-free files
// alone, what it always did (the golden tests of bench paper hold it).
func TestSummaryTableContextual(t *testing.T) {
	ctx, free := contextualFile(), small(t)
	for _, tc := range []struct {
		name   string
		files  []*results.File
		header []string
	}{
		{"contextual", []*results.File{ctx}, []string{"scenario", "policy", "regret", "pv_loss", "seconds"}},
		{"context-free", []*results.File{free}, append(append([]string{"scenario", "policy"}, metric.Names[:]...), "seconds")},
		{"both", []*results.File{free, ctx}, append(append([]string{"scenario", "policy"}, metric.Names[:]...), "pv_loss", "seconds")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := report.SummaryTable(tc.files)
			if !slices.Equal(st.Header, tc.header) || len(st.Right) != len(st.Header) {
				t.Fatalf("header %v (%d alignments), want %v", st.Header, len(st.Right), tc.header)
			}
			for _, r := range st.Rows {
				if len(r) != len(st.Header) {
					t.Errorf("row %v: %d cells, %d columns", r, len(r), len(st.Header))
				}
				isCtx := r[0] == "wine"
				for j, h := range st.Header {
					na := r[j] == report.NotComputed
					if r[2] == "FAILED" {
						continue
					}
					switch h {
					case metric.Underestimation, metric.RegretUnder, metric.RegretNotUnder:
						if na != isCtx {
							t.Errorf("%s %s %s = %q", r[0], r[1], h, r[j])
						}
					case metric.PVLoss:
						if na == isCtx {
							t.Errorf("%s %s %s = %q", r[0], r[1], h, r[j])
						}
					}
				}
			}
		})
	}
}
