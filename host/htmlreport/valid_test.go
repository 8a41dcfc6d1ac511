package htmlreport_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/htmlreport/htmlcheck"
	"github.com/regretbench/regretbench/host/results"
)

// hostileFiles are results files whose names hold what neither XML nor
// HTML can carry as it is (controls, noncharacters, invalid UTF-8) and
// markup, and whose scenario names made colliding ids before ids were
// numbered: "small" twice, and "small-regret", whose section id was the
// first experiment's regret table's.
func hostileFiles(t *testing.T) []*results.File {
	t.Helper()
	bad := read(t, "small.json")
	bad.Scenario.Name = "sc\x01\x1b[2J</text>]]>&\"'\xff\uFFFE"
	bad.Scenario.Description = "desc\x00\x07\u0085\uFDD0 </p><b>&amp;"
	labels := []string{"R\uFFFEx\x01", "bad\xed\xa0\x80utf8 ]]>", "</text><script>x</script>&\"'"}
	i := 0
	for _, p := range bad.Policies {
		if p.Status == results.StatusFailed {
			p.Error = "crashed\x1b[31m\uFFFF </code>"
			continue
		}
		p.Label = labels[i]
		i++
		p.Params = map[string]any{"note": "<b>&</b>\x01"}
		if d, ok := p.Diagnostics["kkt_gap"]; ok {
			p.Diagnostics["gap\uFFFE\x07</text>"] = d
			p.Diagnostics["a b"] = d
			p.Diagnostics["a_b"] = d
		}
	}
	spec := compare.Spec{Policies: []string{labels[0]}, Baselines: []string{labels[2]}}
	if _, err := compare.Attach(bad, spec, compare.DefaultOptions); err != nil {
		t.Fatal(err)
	}
	again := read(t, "small.json")
	collide := read(t, "small.json")
	collide.Scenario.Name = "small-regret"
	return []*results.File{read(t, "small.json"), bad, again, collide, read(t, "hostile.json")}
}

// checkPage checks that raw is a valid page (see htmlcheck.Page) and
// returns its tree.
func checkPage(t *testing.T, raw []byte) *html.Node {
	t.Helper()
	doc, errs := htmlcheck.Page(raw)
	for _, err := range errs {
		t.Error(err)
	}
	if doc == nil {
		t.FailNow()
	}
	if len(htmlcheck.SVGs(raw)) == 0 {
		t.Error("the page has no inline SVG")
	}
	return doc
}

// TestValidPageAnyInput: whatever the results files' names hold, the page
// is valid (see checkPage), shows the names with their bad characters as
// escapes, and keeps every figure.
func TestValidPageAnyInput(t *testing.T) {
	files := hostileFiles(t)
	var b bytes.Buffer
	if err := htmlreport.Write(&b, files, fixed); err != nil {
		t.Fatal(err)
	}
	doc := checkPage(t, b.Bytes())
	body := text(doc)
	for _, want := range []string{
		`sc\x01\x1b[2J</text>]]>&"'\xff\ufffe`,
		"desc\uFFFD" + `\a\u0085\ufdd0 </p><b>&amp;`, // html/template makes NUL U+FFFD
		`R\ufffex\x01`, `bad\xed\xa0\x80utf8 ]]>`, `</text><script>x</script>&"'`,
		`crashed\x1b[31m\uffff </code>`,
		`{"note":"<b>&</b>\u0001"}`, // the JSON of the parameters, as JSON writes it
		`gap\ufffe\a</text>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page's text lacks %q", want)
		}
	}
	sections := all(doc, func(n *html.Node) bool { return n.Data == "section" && hasClass(n, "experiment") })
	if len(sections) != len(files) {
		t.Fatalf("%d sections, want %d", len(sections), len(files))
	}
	// The bad file: every figure drawn (four, and one per diagnostic:
	// the three of the fixture and three added), none failed.
	if got := len(all(sections[1], tag("svg"))); got != 10 {
		t.Errorf("the hostile experiment has %d figures, want 10", got)
	}
	if n := len(all(doc, func(n *html.Node) bool { return hasClass(n, "figure-failed") })); n != 0 {
		t.Errorf("%d figures failed", n)
	}
}

// TestFigureFailureCostsOnlyItself: a figure that cannot be drawn is
// named in its place in the page, with why; the others and the other
// experiments are all there; Write and WriteFile return a *PartialError
// naming it, and WriteFile writes the page.
func TestFigureFailureCostsOnlyItself(t *testing.T) {
	defer htmlreport.FailFigure("separated", "no room on the canvas")()
	files := []*results.File{read(t, "small.json"), read(t, "hostile.json")}
	path := filepath.Join(t.TempDir(), "r.html")
	err := htmlreport.WriteFile(path, files, fixed)
	var fe *htmlreport.PartialError
	if !errors.As(err, &fe) || len(fe.Failed) != 2 || !strings.Contains(fe.Failed[0], `experiment 1 ("small"): figure separated: no room on the canvas`) {
		t.Fatalf("err = %v, want a PartialError naming the separated figure of both experiments", err)
	}
	raw, rerr := os.ReadFile(path)
	if rerr != nil {
		t.Fatalf("the page was not written: %v", rerr)
	}
	doc := checkPage(t, raw)
	figs := all(doc, tag("figure"))
	var drawn, failed []string
	for _, f := range figs {
		id, _ := attr(f, "id")
		if len(all(f, tag("svg"))) == 1 {
			drawn = append(drawn, id)
		}
		if w := all(f, func(n *html.Node) bool { return hasClass(n, "figure-failed") }); len(w) == 1 {
			failed = append(failed, id)
			if !strings.Contains(text(w[0]), "Figure separated could not be drawn: no room on the canvas") {
				t.Errorf("the failed figure's note: %q", text(w[0]))
			}
		}
	}
	if want := []string{"exp-1-small-fig-separated", "exp-2-small-fig-separated"}; !slices.Equal(failed, want) {
		t.Errorf("failed figures %v, want %v", failed, want)
	}
	if len(drawn) != len(figs)-2 || len(drawn) < 8 {
		t.Errorf("%d of %d figures drawn, want all but the two failed", len(drawn), len(figs))
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, files, fixed); !errors.As(err, &fe) || !bytes.Equal(b.Bytes(), raw) {
		t.Errorf("Write: err %v, and a page that differs from WriteFile's: %v", err, !bytes.Equal(b.Bytes(), raw))
	}
}

// TestComparisonFailureCostsOnlyItself: a comparison section that cannot
// be recomputed (its stored labels are not the policies': JSON wrote a
// label's invalid UTF-8 as U+FFFD) is named in its place; the rest of the
// page is there, and Write returns a *PartialError naming it.
func TestComparisonFailureCostsOnlyItself(t *testing.T) {
	f := read(t, "small.json")
	f.Policies[1].Label = "T\xffS"
	if _, err := compare.Attach(f, compare.Spec{Policies: []string{"T\xffS"}, Baselines: []string{"ReMaxGrad M=2"}}, compare.DefaultOptions); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err := htmlreport.Write(&b, []*results.File{f, read(t, "small.json")}, fixed)
	var pe *htmlreport.PartialError
	if !errors.As(err, &pe) || len(pe.Failed) != 1 || !strings.HasPrefix(pe.Failed[0], `experiment 1 ("small"): comparison: `) {
		t.Fatalf("err = %v, want a PartialError naming the comparison", err)
	}
	doc := checkPage(t, b.Bytes())
	if n := len(all(doc, func(n *html.Node) bool { return n.Data == "section" && hasClass(n, "experiment") })); n != 2 {
		t.Errorf("%d sections, want 2", n)
	}
	if !strings.Contains(text(doc), "The comparison section could not be recomputed: results comparison:") {
		t.Error("the page does not say the comparison could not be recomputed")
	}
	if n := len(all(doc, tag("svg"))); n != 14 {
		t.Errorf("%d figures, want 14", n)
	}
}
