package htmlreport_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

// withPolicies returns small.json with n ok policies, copies of its first
// ("policy 00", ...), named name.
func withPolicies(t *testing.T, name string, n int) *results.File {
	t.Helper()
	f := read(t, "small.json")
	f.Scenario.Name = name
	base := f.Policies[0]
	f.Policies = nil
	for i := range n {
		p := *base
		p.Label = fmt.Sprintf("policy %02d", i)
		p.Diagnostics = nil
		f.Policies = append(f.Policies, &p)
	}
	return f
}

// TestManyPoliciesPage: past 8 policies an experiment's figures are one a
// row (two a row up to 8); the page embeds the figures' font once, a
// subset, so that a page of two experiments of 20 policies stays small;
// and a policy has one colour in every experiment's figures, by order of
// first appearance across the page.
func TestManyPoliciesPage(t *testing.T) {
	few, many := withPolicies(t, "few", 8), withPolicies(t, "many", 20)
	// The second experiment meets its policies in another order: they
	// keep the colours the first gave them.
	rev := withPolicies(t, "reversed", 20)
	for i, j := 0, len(rev.Policies)-1; i < j; i, j = i+1, j-1 {
		rev.Policies[i], rev.Policies[j] = rev.Policies[j], rev.Policies[i]
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, []*results.File{few, many, rev}, fixed); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	divs := regexp.MustCompile(`<div class="figures[^"]*">`).FindAllString(page, -1)
	if want := []string{`<div class="figures">`, `<div class="figures one-column">`, `<div class="figures one-column">`}; fmt.Sprint(divs) != fmt.Sprint(want) {
		t.Errorf("figure grids %q, want %q (one column past 8 policies)", divs, want)
	}
	if !strings.Contains(page, ".figures.one-column { grid-template-columns: 1fr; }") {
		t.Error("the style sheet lacks the one-column rule")
	}
	if n := strings.Count(page, "@font-face"); n != 1 {
		t.Errorf("%d @font-face rules, want 1", n)
	}
	font := regexp.MustCompile(`base64,([A-Za-z0-9+/=]*)\)`).FindStringSubmatch(page)
	if font == nil {
		t.Fatal("no embedded font")
	}
	faces, err := plot.FontFaces()
	if err != nil {
		t.Fatal(err)
	}
	// Measured: the whole font is 393 kB (524 kB in base64), the subset
	// of these figures' text about 75 kB.
	if got, whole := len(font[1])*3/4, len(faces[0].TTF); got > whole/4 {
		t.Errorf("embedded font of %d bytes, the whole font %d: want a subset, at most a quarter", got, whole)
	}
	if n := len(page); n > 1<<20 {
		t.Errorf("page of 3 experiments (8, 20 and 20 policies): %d bytes, want under 1 MiB", n)
	}
	// Colours: the regret figure of each experiment draws policy 00 in
	// black and policy 09 in orange (the second round of the palette).
	st := plot.RunStyles(few, many, rev)
	for _, id := range []string{"exp-2-many-fig-regret", "exp-3-reversed-fig-regret"} {
		fig := figureSVG(t, page, id)
		for _, l := range []string{"policy 00", "policy 09", "policy 19"} {
			c := st[l].Color
			hex := fmt.Sprintf("stroke:#%02X%02X%02X;stroke-width:1.75", c.R, c.G, c.B)
			if !strings.Contains(fig, hex) {
				t.Errorf("%s: no line %s for %s", id, hex, l)
			}
		}
	}
	if c := st["policy 00"].Color; c.R != 0 || c.G != 0 || c.B != 0 {
		t.Errorf("policy 00, first seen: %v, want black", c)
	}
	if c := st["policy 08"]; c.Color != st["policy 00"].Color || c.Dashes == nil {
		t.Errorf("policy 08: %v, want policy 00's colour, dashed", c)
	}
}

// figureSVG returns the <figure> of id in page.
func figureSVG(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<figure id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no figure %s", id)
	}
	j := strings.Index(page[i:], "</figure>")
	return page[i : i+j]
}

// TestChangingPage: the page of a changing environment names the dynamic
// regret in its facts, tables and captions, lists the breakpoints, and
// its regret figure marks them.
func TestChangingPage(t *testing.T) {
	f := read(t, "small.json")
	f.Scenario.Changes = []results.Change{{At: 60, Means: []float64{0.5, 0.8, 0.9}}}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, []*results.File{f}, fixed); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<dd>dynamic regret: against the best arm of each round</dd>",
		"<dd>breakpoints: (0.5, 0.8, 0.9) from round 60</dd>",
		"<caption>Dynamic regret at T=200",
		`>dynamic regret</th>`,
		"<figcaption>Cumulative dynamic regret (each round&#39;s best arm the reference) against the round t",
		"Dotted vertical lines mark the breakpoint: the means change from round 60 on.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestDiagnosticCaptionName: a diagnostic's caption names it as the
// plugin does, not by the file-safe slug of its figure's name
// (hit_rate____ for "hit_rate (%)").
func TestDiagnosticCaptionName(t *testing.T) {
	f := read(t, "small.json")
	for _, p := range f.Policies {
		if d, ok := p.Diagnostics["support_size"]; ok {
			p.Diagnostics["hit_rate (%)"] = d
		}
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, []*results.File{f}, fixed); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, `<figure id="exp-1-small-fig-diag_hit_rate____">`) {
		t.Fatal("no figure diag_hit_rate____ (the slug of its id)")
	}
	if cap := figureSVG(t, page, "exp-1-small-fig-diag_hit_rate____"); !strings.Contains(cap, "<figcaption>Plugin diagnostic hit_rate (%) against t") {
		t.Errorf("caption of hit_rate (%%): %s", cap[strings.Index(cap, "<figcaption>"):])
	}
	if strings.Contains(page, "diagnostic hit_rate____") {
		t.Error("a caption shows the slug hit_rate____")
	}
}
