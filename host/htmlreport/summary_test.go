package htmlreport_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/results"
)

// experiments returns n copies of the small fixture named e1, e2, ...,
// whose policies' final regrets are shifted so that their ranks differ
// from one experiment to the next.
func experiments(t *testing.T, n int) []*results.File {
	var out []*results.File
	for i := range n {
		f := read(t, "small.json")
		f.Scenario.Name = fmt.Sprintf("e%d", i+1)
		for j, p := range f.Policies {
			if v := p.Final["regret"]; v != nil {
				for r := range v {
					v[r] += float64(((j * (i + 1)) % 3) * 100)
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// TestSummaryAndMeanRanks: with Summary and MeanRanks set (as bench paper
// sets them), the page has the overall table of final values (one row per
// policy of each file, as stdout prints it) and a mean-rank section with
// its figure and the test's N, k, alpha and CD stated beside it; with one
// experiment the section says why there is no figure.
func TestSummaryAndMeanRanks(t *testing.T) {
	files := experiments(t, 3)
	o := fixed
	o.Summary, o.MeanRanks, o.Alpha = files, files, 0.05
	var b bytes.Buffer
	if err := htmlreport.Write(&b, files, o); err != nil {
		t.Fatal(err)
	}
	doc := checkPage(t, b.Bytes())
	tables := all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "summary-table" })
	if len(tables) != 1 {
		t.Fatalf("%d summary tables, want 1", len(tables))
	}
	rows := all(tables[0], func(n *html.Node) bool { return n.Data == "tr" })
	want := 1 // the header
	for _, f := range files {
		want += len(f.Policies)
	}
	if len(rows) != want {
		t.Errorf("summary table: %d rows, want %d (a header and one per policy of each file)", len(rows), want)
	}
	if s := text(tables[0]); !strings.Contains(s, "Final values at T") || !strings.Contains(s, "FAILED") || !strings.Contains(s, "e3") {
		t.Errorf("summary table lacks its caption, a failed row or an experiment:\n%s", s)
	}
	sec := all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "mean-ranks" })
	if len(sec) != 1 {
		t.Fatalf("%d mean-rank sections, want 1", len(sec))
	}
	if n := len(all(sec[0], tag("svg"))); n != 1 {
		t.Errorf("mean-rank section: %d figures, want 1", n)
	}
	s := text(sec[0])
	for _, want := range []string{"N = 3 experiments (e1, e2, e3)", "k = 3 policies", "Friedman test", "χ²_F =", "Iman–Davenport F_F =",
		"Nemenyi post-hoc test at α = 0.05", "q_α = 2.344", "CD = q_α √(k(k+1)/(6N)) = 2.344 √(3·4/(6·3)) = 1.91", "Not ranked (missing from or failed in some experiment): Broken."} {
		if !strings.Contains(s, want) {
			t.Errorf("mean-rank section does not say %q:\n%s", want, s)
		}
	}
	rt := all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "mean-ranks-table" })
	if len(rt) != 1 || len(all(rt[0], func(n *html.Node) bool { return n.Data == "tr" })) != 4 {
		t.Error("no mean-rank table of a header and the 3 policies")
	}
	// One experiment: no figure, and why.
	o.Summary, o.MeanRanks = nil, files[:1]
	b.Reset()
	if err := htmlreport.Write(&b, files[:1], o); err != nil {
		t.Fatal(err)
	}
	doc = checkPage(t, b.Bytes())
	sec = all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "mean-ranks" })
	if len(sec) != 1 || len(all(sec[0], tag("svg"))) != 0 || !strings.Contains(text(sec[0]), "No mean-rank figure: the report has 1 experiment, and ranks across experiments need at least 2.") {
		t.Errorf("one experiment: the section should say why there is no figure")
	}
	if strings.Contains(b.String(), `id="summary-table"`) {
		t.Error("a summary table without Summary")
	}
}

// TestHonestCD: the mean-rank figure's axis spans the ranks 1..k, and when
// the critical difference separates no pair, the figure's notes and the
// page's text say so in one line, with the experiments it would take;
// with enough experiments they say nothing of the kind.
func TestHonestCD(t *testing.T) {
	for _, n := range []int{2, 40} {
		files := experiments(t, n)
		a := ranktest.Across(files, "regret", 0.01)
		if a.Friedman == nil {
			t.Fatalf("n=%d: no test: %s", n, a.Reason)
		}
		fig := htmlreport.RanksFigure(a)
		if fig.Plot.X.Min != 1 || fig.Plot.X.Max != float64(a.Friedman.K) {
			t.Errorf("n=%d: axis %v..%v, want 1..%d", n, fig.Plot.X.Min, fig.Plot.X.Max, a.Friedman.K)
		}
		text := strings.Join(htmlreport.RanksText(a), "\n")
		said := strings.Contains(text, "no pair of the") && strings.Contains(strings.Join(fig.Notes, "\n"), "no pair separated")
		if said != !a.Separates() {
			t.Errorf("n=%d: CD %.2f, spread %.2f: said %v\n%s\n%v", n, a.CD, a.Spread(), said, text, fig.Notes)
		}
		if n == 2 && (a.Separates() || !strings.Contains(text, fmt.Sprintf("N = %d experiments to separate", ranktest.NeededN(a.Friedman.K, 0.01, a.Spread())))) {
			t.Errorf("n=2: want no pair separated and the N it would take:\n%s", text)
		}
	}
}
