package htmlreport_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/internal/numfmt"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/ranktest"
	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/seed"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixed are the options of every test page: a fixed date and version, so
// the page is the same on every run.
var fixed = htmlreport.Options{Now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC), Version: "v0.0.0-test"}

func read(t *testing.T, name string) *results.File {
	t.Helper()
	f, err := results.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// render writes the page of the named fixtures and parses it.
func render(t *testing.T, names ...string) ([]byte, *html.Node) {
	t.Helper()
	var files []*results.File
	for _, n := range names {
		files = append(files, read(t, n))
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, files, fixed); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), doc
}

// all returns the elements under n for which keep is true, in document
// order.
func all(n *html.Node, keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && keep(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	return slices.Contains(strings.Fields(v), class)
}

// text returns the text under n, with runs of white space made one space.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && (n.Data == "td" || n.Data == "th" || n.Data == "dt" || n.Data == "dd") {
			b.WriteString(" ") // cells read apart
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// TestPageStructure: one section per results file, in order, with unique
// anchors the table of contents links to; the scenario facts; the three
// tables with one row per policy; every figure of host/plot inline as
// SVG; and the reproducibility facts of the file.
func TestPageStructure(t *testing.T) {
	_, doc := render(t, "small.json", "hostile.json")
	if h1 := all(doc, tag("h1")); len(h1) != 1 || text(h1[0]) != "regretbench report: 2 experiments" {
		t.Errorf("want one h1 'regretbench report: 2 experiments', got %d", len(h1))
	}
	sections := all(doc, func(n *html.Node) bool { return n.Data == "section" && hasClass(n, "experiment") })
	if len(sections) != 2 {
		t.Fatalf("%d experiment sections, want 2", len(sections))
	}
	var ids []string
	for _, s := range sections {
		id, _ := attr(s, "id")
		ids = append(ids, id)
	}
	if ids[0] == ids[1] || ids[0] != "exp-1-small" {
		t.Errorf("section ids %v: want unique ids, the first exp-1-small", ids)
	}
	var links []string
	for _, a := range all(doc, tag("a")) {
		href, _ := attr(a, "href")
		links = append(links, href)
	}
	if want := []string{"#" + ids[0], "#" + ids[1]}; !slices.Equal(links, want) {
		t.Errorf("table of contents links %v, want %v", links, want)
	}

	f := read(t, "small.json")
	s := sections[0]
	facts := map[string]string{}
	for _, d := range all(s, tag("div")) {
		dt, dd := all(d, tag("dt")), all(d, tag("dd"))
		if len(dt) == 1 && len(dd) == 1 {
			facts[text(dt[0])] = text(dd[0])
		}
	}
	for k, v := range map[string]string{
		"reward family": "gaussian", "arms": "3", "means": "0.9, 0.8, 0.5", "noise sd": "0.5",
		"horizon T": "200", "replications": "8", "seed": "3", "initial pulls per arm": "1",
		"bench version": "v1.2.3 0123456789ab", "command": "bench --scenario small.yaml --out small.json",
		"host": "lab-7", "date": "2026-11-26T10:00:00Z",
	} {
		if facts[k] != v {
			t.Errorf("fact %q = %q, want %q", k, facts[k], v)
		}
	}

	tables := map[string]*html.Node{}
	for _, tb := range all(s, tag("table")) {
		id, _ := attr(tb, "id")
		tables[strings.TrimPrefix(strings.TrimPrefix(id, ids[0]+"-"), "table-")] = tb
	}
	for name, rows := range map[string]int{"regret": 4, "separated": 3, "diagnostics": 3, "plugins": 4} {
		tb := tables[name]
		if tb == nil {
			t.Errorf("no %s table", name)
			continue
		}
		if len(all(tb, tag("caption"))) != 1 || len(all(tb, tag("thead"))) != 1 {
			t.Errorf("%s table: want a caption and a thead", name)
		}
		body := all(tb, tag("tbody"))
		if got := len(all(body[0], tag("tr"))); got != rows {
			t.Errorf("%s table: %d rows, want %d", name, got, rows)
		}
	}
	// Numbers are right-aligned, labels are row headers.
	if tb := tables["regret"]; tb != nil {
		row := all(all(tb, tag("tbody"))[0], tag("tr"))[0]
		if th := all(row, tag("th")); len(th) != 1 || text(th[0]) != "ReMaxGrad M=2" {
			t.Errorf("regret row header: %v", text(row))
		}
		if td := all(row, tag("td")); len(td) != 4 || !hasClass(td[0], "num") || text(td[0]) != "6.36 ± 1.42" || hasClass(td[3], "num") {
			t.Errorf("regret row cells: %q", text(row))
		}
	}
	if tb := tables["plugins"]; tb != nil {
		for _, p := range f.Policies {
			want, version := p.PluginSHA256, p.PluginVersion
			if want == "" {
				want = "not recorded"
			}
			if version == "" {
				version = "not recorded"
			}
			if !strings.Contains(text(tb), p.Label+" "+p.Plugin+" "+version+" "+want) {
				t.Errorf("plugins table lacks %s %s %s %s:\n%s", p.Label, p.Plugin, version, want, text(tb))
			}
		}
	}
	if fl := all(s, func(n *html.Node) bool { return hasClass(n, "failures") }); len(fl) != 1 || !strings.Contains(text(fl[0]), "Broken (plugin broken): plugin bench-plugin-broken: exited during round 17") {
		t.Errorf("failed policy not shown with its error")
	}

	figs, err := plot.Figures(f)
	if err != nil {
		t.Fatal(err)
	}
	got := all(s, tag("figure"))
	if len(got) != len(figs) {
		t.Fatalf("%d figures, want %d (every figure of host/plot)", len(got), len(figs))
	}
	for i, fig := range got {
		if id, _ := attr(fig, "id"); id != ids[0]+"-fig-"+figs[i].Name {
			t.Errorf("figure %d id %q, want %q", i, id, ids[0]+"-fig-"+figs[i].Name)
		}
		svg := all(fig, tag("svg"))
		if len(svg) != 1 || len(all(svg[0], tag("path"))) == 0 || len(all(fig, tag("figcaption"))) != 1 {
			t.Errorf("figure %s: want one inline svg with paths and a caption", figs[i].Name)
		}
	}

	// The second file records no bench info: the page says so.
	if !strings.Contains(text(sections[1]), "command not recorded") {
		t.Errorf("a file without bench info should read 'not recorded'")
	}
}

// TestHostileText: labels, descriptions and errors from a results file are
// text: none becomes an element or an attribute.
func TestHostileText(t *testing.T) {
	raw, doc := render(t, "hostile.json")
	if n := len(all(doc, tag("script"))); n != 0 {
		t.Errorf("%d script elements", n)
	}
	if n := len(all(doc, tag("img"))); n != 0 {
		t.Errorf("%d img elements", n)
	}
	for _, n := range all(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			if strings.HasPrefix(strings.ToLower(a.Key), "on") {
				t.Errorf("<%s> has an event handler %s", n.Data, a.Key)
			}
		}
	}
	body := text(doc)
	for _, want := range []string{`<script>alert("desc")</script> & "quotes"`, `<img src=http://evil.example/x.png onerror=alert(1)>`, `</code><script>alert(2)</script>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
	if bytes.Contains(raw, []byte("<script")) {
		t.Errorf("raw page holds <script")
	}
}

// resourceAttr matches an attribute that can make a browser load
// something, and its value.
var resourceAttr = regexp.MustCompile(`(?i)\b(src|href|xlink:href|srcset|action|poster|data)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)

// TestLoadsNothing: no element that loads a resource, no src/href with a
// URL (only in-page anchors), no CSS import or url() but data URLs, and a
// Content-Security-Policy that forbids any load.
func TestLoadsNothing(t *testing.T) {
	raw, doc := render(t, "small.json", "hostile.json")
	for _, el := range []string{"script", "link", "img", "iframe", "object", "embed", "video", "audio", "source", "base", "form"} {
		if n := len(all(doc, tag(el))); n != 0 {
			t.Errorf("%d <%s> elements", n, el)
		}
	}
	for _, n := range all(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			if (k == "src" || k == "href" || strings.HasSuffix(k, ":href") || k == "srcset") && !strings.HasPrefix(a.Val, "#") {
				t.Errorf("<%s %s=%q>: only in-page links are allowed", n.Data, a.Key, a.Val)
			}
		}
	}
	// The same at the byte level, so that nothing the parser reads as text
	// (the hostile label is text) hides an attribute.
	for _, m := range resourceAttr.FindAllSubmatch(raw, -1) {
		v := strings.Trim(string(m[2]), `"'`)
		if strings.HasPrefix(v, "#") {
			continue
		}
		if strings.Contains(strings.ToLower(v), "http://") || strings.Contains(strings.ToLower(v), "https://") || strings.HasPrefix(v, "//") {
			// Only inside text: the hostile label, escaped.
			if !bytes.Contains(raw, []byte("&lt;img src="+v)) {
				t.Errorf("resource URL %s=%s", m[1], m[2])
			}
		}
	}
	styles := all(doc, tag("style"))
	if len(styles) != 1 {
		t.Fatalf("%d style elements, want 1", len(styles))
	}
	css := text(styles[0])
	if strings.Contains(css, "@import") {
		t.Errorf("style sheet imports another")
	}
	for _, u := range regexp.MustCompile(`url\(([^)]{0,40})`).FindAllStringSubmatch(css, -1) {
		if !strings.HasPrefix(u[1], "data:") {
			t.Errorf("CSS url(%s...) is not a data URL", u[1])
		}
	}
	var csp string
	for _, m := range all(doc, tag("meta")) {
		if v, _ := attr(m, "http-equiv"); strings.EqualFold(v, "Content-Security-Policy") {
			csp, _ = attr(m, "content")
		}
	}
	if !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q does not forbid loads by default", csp)
	}
}

// TestOutline is a golden file of the page's outline: headings, captions
// and table cells, so that a change to what the page shows is seen in
// review (the raw page embeds a font and SVG, too long for a golden file).
func TestOutline(t *testing.T) {
	_, doc := render(t, "small.json")
	golden(t, "small.outline", []byte(outline(doc)))
}

// outline is the outline of a page: headings, captions and table cells,
// one a line, indented by depth.
func outline(doc *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node, int)
	walk = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "h1", "h2", "h3", "caption", "figcaption", "dt", "dd", "p", "li":
				b.WriteString(strings.Repeat("  ", depth) + n.Data + ": " + text(n) + "\n")
				return
			case "tr":
				var cells []string
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode {
						cells = append(cells, text(c))
					}
				}
				b.WriteString(strings.Repeat("  ", depth) + "| " + strings.Join(cells, " | ") + "\n")
				return
			case "svg":
				b.WriteString(strings.Repeat("  ", depth) + "svg\n")
				return
			case "style", "head":
				return
			}
			depth++
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth)
		}
	}
	walk(doc, 0)
	return b.String()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./host/htmlreport -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./host/htmlreport -update rewrites it); got:\n%s", name, got)
	}
}

// TestNoFiles: a report needs a results file.
func TestNoFiles(t *testing.T) {
	var b bytes.Buffer
	if err := htmlreport.Write(&b, nil, fixed); err == nil || b.Len() != 0 {
		t.Errorf("no files: err %v, wrote %d bytes", err, b.Len())
	}
}

// TestAllFailedAndIncomplete: a run whose every policy failed, interrupted,
// still gives a page: the failures with their errors, no figures, and the
// incomplete warning.
func TestAllFailedAndIncomplete(t *testing.T) {
	f := read(t, "small.json")
	f.Complete = false
	for _, p := range f.Policies {
		if p.Status != results.StatusFailed {
			p.Status, p.Error = results.StatusFailed, "plugin "+p.Plugin+": killed"
		}
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, []*results.File{f}, fixed); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(all(doc, tag("figure"))); n != 0 {
		t.Errorf("%d figures for a run without results", n)
	}
	fl := all(doc, func(n *html.Node) bool { return hasClass(n, "failures") })
	if len(fl) != 1 || len(all(fl[0], tag("li"))) != 4 || !strings.Contains(text(fl[0]), "TS (plugin ts): plugin ts: killed") {
		t.Errorf("want the four failures with their errors")
	}
	if w := all(doc, func(n *html.Node) bool { return hasClass(n, "warn") }); len(w) != 1 || !strings.Contains(text(w[0]), "Incomplete") {
		t.Errorf("want the incomplete warning")
	}
}

// TestComparison: a results file that carries a comparison section (as a
// run with --with writes it) gets it in its experiment's section, and two
// such files get the wins, ties and losses across them at the top, linked
// from the table of contents.
func TestComparison(t *testing.T) {
	var files []*results.File
	for _, n := range []string{"small.json", "small.json"} {
		f := read(t, n)
		spec := compare.Spec{Policies: []string{"TS"}, Baselines: []string{"ReMaxGrad M=2", "KL-UCB, c=0", "Broken"}}
		if _, err := compare.Attach(f, spec, compare.DefaultOptions); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	want, err := compare.FromFile(files[0])
	if err != nil {
		t.Fatal(err)
	}

	var b bytes.Buffer
	if err := htmlreport.Write(&b, files[:1], fixed); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "comparison" })); n != 0 {
		t.Errorf("one experiment: %d summaries across experiments, want none", n)
	}
	tb := all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "exp-1-small-comparison-table" })
	if len(tb) != 1 {
		t.Fatalf("no comparison table in the experiment's section")
	}
	rows := all(all(tb[0], tag("tbody"))[0], tag("tr"))
	if len(rows) != 4 {
		t.Fatalf("%d comparison rows, want one per policy of the matrix (4)", len(rows))
	}
	p := want.Policies[0]
	first := text(rows[0])
	d := p.Diffs[0]
	delta, ci := compare.DeltaText(d)
	sym := map[compare.Outcome]string{compare.Win: "W", compare.Tie: "T", compare.Loss: "L"}[d.Outcome]
	for _, cell := range []string{"TS", numfmt.PM(p.Mean, p.SE), fmt.Sprintf("/%d", p.Ranked), "·", sym} {
		if !strings.Contains(first, cell) {
			t.Errorf("first comparison row %q lacks %q", first, cell)
		}
	}
	dt := all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "exp-1-small-comparison-deltas" })
	if len(dt) != 1 || !strings.Contains(text(dt[0]), delta+" "+ci) {
		t.Errorf("no table of the paired differences with %s %s", delta, ci)
	}
	if last := text(rows[3]); !strings.Contains(last, "Broken FAILED - -") {
		t.Errorf("the failed baseline's row %q: want FAILED and no test", last)
	}
	if notes := text(doc); !strings.Contains(notes, "TS against Broken: not tested") {
		t.Errorf("the untested pair's note is missing")
	}
	if notes := text(doc); !strings.Contains(notes, "Holm-adjusted over the 2 comparisons of this table") {
		t.Errorf("the table does not say which Holm family its p-values are adjusted over")
	}

	b.Reset()
	if err := htmlreport.Write(&b, files, fixed); err != nil {
		t.Fatal(err)
	}
	doc, err = html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	sec := all(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "comparison" })
	if len(sec) != 1 || !strings.Contains(text(sec[0]), "Comparison across 2 experiments") {
		t.Fatalf("two experiments: want the summary across them")
	}
	// The page's mean rank is ranktest's over its experiments: here one
	// run twice, counted once, so none.
	sum := compare.Summarize([]*compare.Scenario{want, want}, ranktest.Across(files, "regret", 0.01))
	tot := text(all(sec[0], tag("tbody"))[0])
	for _, r := range sum.Totals {
		if r.Scenarios != 1 {
			t.Errorf("%s: in %d scenarios; one run twice counts once", r.Label, r.Scenarios)
		}
		row := fmt.Sprintf("%s %s %d %d %d %d", r.Label, compare.RankText(r), r.Scenarios, r.Wins, r.Ties, r.Losses)
		if !strings.Contains(tot, row) {
			t.Errorf("totals %q lack %q", tot, row)
		}
	}
	var links []string
	for _, a := range all(doc, tag("a")) {
		href, _ := attr(a, "href")
		links = append(links, href)
	}
	for _, l := range []string{"#comparison", "#exp-1-small-comparison", "#exp-2-small-comparison"} {
		if !slices.Contains(links, l) {
			t.Errorf("no link to %s in %v", l, links)
		}
	}
}

// TestSecretSeedFact: a sealed run's page shows its secret seed in the 0x
// form, marked secret, in the facts and in the title line.
func TestSecretSeedFact(t *testing.T) {
	f := read(t, "small.json")
	secret, err := seed.Parse("0x" + strings.Repeat("5d", 32))
	if err != nil {
		t.Fatal(err)
	}
	f.Scenario.Seed = secret
	var b bytes.Buffer
	if err := htmlreport.Write(&b, []*results.File{f}, fixed); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]string{}
	for _, d := range all(doc, tag("div")) {
		if dt, dd := all(d, tag("dt")), all(d, tag("dd")); len(dt) == 1 && len(dd) == 1 {
			facts[text(dt[0])] = text(dd[0])
		}
	}
	if want := secret.String() + " (secret)"; facts["seed"] != want {
		t.Errorf("fact seed = %q, want %q", facts["seed"], want)
	}
	if !strings.Contains(text(doc), "seed "+secret.String()) {
		t.Error("the page's title line lacks the secret seed")
	}
}

// TestAuditFact: an audited experiment shows the audit's outcome among its
// facts (all matched, or which policy failed), an unaudited one none.
func TestAuditFact(t *testing.T) {
	for _, ok := range []bool{true, false} {
		f := read(t, "small.json")
		for i, p := range f.Policies {
			p.Audit = &results.Audit{Replications: []uint64{0, 3, 9}, OK: ok || i != 0}
		}
		var b bytes.Buffer
		if err := htmlreport.Write(&b, []*results.File{f, read(t, "small.json")}, fixed); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var audits []string
		for _, d := range all(doc, tag("div")) {
			if dt, dd := all(d, tag("dt")), all(d, tag("dd")); len(dt) == 1 && len(dd) == 1 && text(dt[0]) == "audit" {
				audits = append(audits, text(dd[0]))
			}
		}
		if len(audits) != 1 {
			t.Fatalf("ok=%v: %d audit facts, want 1 (the audited experiment's only): %q", ok, len(audits), audits)
		}
		want := "3 replications of each policy replayed alone: all matched the run"
		if !ok {
			want = "3 replications of each policy replayed alone: FAILED for " + f.Policies[0].Label
		}
		if !strings.Contains(audits[0], want) {
			t.Errorf("ok=%v: audit fact %q, want it to contain %q", ok, audits[0], want)
		}
	}
}
