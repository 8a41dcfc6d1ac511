package htmlreport_test

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/metric"
	"github.com/regretbench/regretbench/host/report"
	"github.com/regretbench/regretbench/host/report/reporttest"
	"github.com/regretbench/regretbench/host/results"
)

// contextualPage is the page of small.json (context-free) and a
// contextual run, with the summary table and the mean ranks of both, as
// bench paper and a suite write it.
func contextualPage(t *testing.T) []byte {
	t.Helper()
	ctx := reporttest.Contextual("wine", 6, 100, reporttest.ContextualPolicies...)
	files := []*results.File{read(t, "small.json"), ctx}
	o := fixed
	o.Summary, o.MeanRanks = files, files
	// The suite's tables, of the contextual file (a suite's are all
	// contextual).
	b, err := compare.NewBakeoff(files[1:], metric.Regret, compare.BakeoffAlpha)
	if err != nil {
		t.Fatal(err)
	}
	o.Tables = []*report.Table{compare.SuiteTable(files[1:], metric.PVLoss), b.Table()}
	var page bytes.Buffer
	if err := htmlreport.Write(&page, files, o); err != nil {
		t.Fatal(err)
	}
	return page.Bytes()
}

// TestContextualPage: a contextual experiment shows its context (the
// dataset, d, K) in place of the means and noise it has not, pv_loss
// beside regret, its pv_loss figure, and none of the underestimation
// tables and figures, which it does not compute; the context-free
// experiment on the same page keeps them. The page is valid (checkPage)
// and its outline is a golden file. The tables across scenarios (the
// pv_loss table and the bake-off, Options.Tables) follow the summary.
func TestContextualPage(t *testing.T) {
	raw := contextualPage(t)
	doc := checkPage(t, raw)
	sections := all(doc, func(n *html.Node) bool { return n.Data == "section" && hasClass(n, "experiment") })
	if len(sections) != 2 {
		t.Fatalf("%d experiment sections, want 2", len(sections))
	}
	ids := func(s *html.Node) map[string]bool {
		out := map[string]bool{}
		for _, n := range all(s, func(n *html.Node) bool { _, ok := attr(n, "id"); return ok }) {
			id, _ := attr(n, "id")
			out[id] = true
		}
		return out
	}
	free, ctx := ids(sections[0]), ids(sections[1])
	for _, id := range []string{"exp-1-small-table-separated", "exp-1-small-fig-underestimation", "exp-1-small-fig-separated"} {
		if !free[id] {
			t.Errorf("the context-free experiment lacks %s", id)
		}
	}
	for _, id := range []string{"exp-2-wine-table-regret", "exp-2-wine-fig-regret", "exp-2-wine-fig-pv_loss", "exp-2-wine-fig-regret_distribution"} {
		if !ctx[id] {
			t.Errorf("the contextual experiment lacks %s", id)
		}
	}
	for id := range ctx {
		if strings.Contains(id, "separated") || strings.Contains(id, "underestimation") {
			t.Errorf("the contextual experiment has %s", id)
		}
	}
	facts := map[string]string{}
	for _, d := range all(sections[1], tag("div")) {
		if dt, dd := all(d, tag("dt")), all(d, tag("dd")); len(dt) == 1 && len(dd) == 1 {
			facts[text(dt[0])] = text(dd[0])
		}
	}
	for k, v := range map[string]string{"contexts": "dataset wine, 178 rows", "context dimension d": "13", "arms K": "3", "horizon T": "100", "replications": "6"} {
		if facts[k] != v {
			t.Errorf("fact %q = %q, want %q", k, facts[k], v)
		}
	}
	for _, k := range []string{"means", "noise sd", "initial pulls per arm"} {
		if _, ok := facts[k]; ok {
			t.Errorf("the contextual experiment has the fact %q", k)
		}
	}
	head := text(all(sections[1], tag("thead"))[0])
	if !strings.Contains(head, "pv_loss") || strings.Contains(head, "underestimation") {
		t.Errorf("regret table header %q: want pv_loss, not underestimation", head)
	}
	for _, id := range []string{"across", "across-0", "across-1"} {
		if !strings.Contains(string(raw), `id="`+id+`"`) {
			t.Errorf("the page lacks the suite's %s", id)
		}
	}
	golden(t, "contextual.outline", []byte(outline(doc)))
}

// TestContextualReportInBrowser: the page with a contextual experiment
// loads in a real browser with no console message, requests nothing but
// itself, and every figure is built as SVG.
func TestContextualReportInBrowser(t *testing.T) {
	needChromium(t)
	raw := contextualPage(t)
	v := load(t, raw)
	if len(v.console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(v.console, "\n"))
	}
	if len(v.served) != 1 || v.served[0] != "GET /report.html" {
		t.Errorf("requests to the page's server: %q, want only GET /report.html", v.served)
	}
	if got, want := strings.Count(v.dom, "<svg"), strings.Count(string(raw), "<svg"); got != want || want == 0 {
		t.Errorf("the loaded DOM has %d svg elements, the page %d", got, want)
	}
	if !strings.Contains(v.dom, `id="exp-2-wine-fig-pv_loss"`) {
		t.Errorf("the loaded DOM lacks the pv_loss figure")
	}
}
