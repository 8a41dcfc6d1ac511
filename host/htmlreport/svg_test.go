package htmlreport

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

// TestCheckSVGTakesThePlotter: every figure host/plot draws passes,
// without its XML declaration and comment, whole.
func TestCheckSVGTakesThePlotter(t *testing.T) {
	f, err := results.ReadFile(filepath.Join("testdata", "small.json"))
	if err != nil {
		t.Fatal(err)
	}
	figs, err := plot.Figures(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, fig := range figs {
		var b bytes.Buffer
		if err := fig.Encode(&b, "svg"); err != nil {
			t.Fatal(err)
		}
		got, err := checkSVG(b.Bytes())
		if err != nil {
			t.Errorf("%s: %v", fig.Name, err)
			continue
		}
		s := string(got)
		if !strings.HasPrefix(s, "<svg") || !strings.HasSuffix(s, "</svg>") || strings.Contains(s, "<?xml") {
			t.Errorf("%s: want the bare <svg> element, got %.60q...%.20q", fig.Name, s, s[len(s)-20:])
		}
		if !bytes.HasSuffix(bytes.TrimSpace(b.Bytes()), []byte(s)) {
			t.Errorf("%s: the element was changed, not only cut out", fig.Name)
		}
	}
}

// TestCheckSVGRefuses: markup the plotter does not write is refused, so
// the one piece of the page not built by a template cannot carry a
// script, a handler or a link.
func TestCheckSVGRefuses(t *testing.T) {
	const open = `<svg width="1pt" height="1pt" viewBox="0 0 1 1" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">`
	for _, c := range []struct{ name, doc, want string }{
		{"no svg", `<html></html>`, "no <svg>"},
		{"script", open + `<script>alert(1)</script></svg>`, "<script>"},
		{"handler", open + `<g onload="alert(1)"></g></svg>`, "onload"},
		{"link", open + `<path xlink:href="http://example.com/x" d="M0,0"/></svg>`, "href"},
		{"image", open + `<image href="x.png"/></svg>`, "<image>"},
		{"foreign", open + `<foreignObject><p>x</p></foreignObject></svg>`, "<foreignObject>"},
		{"style element", open + `<style>@import url(x.css);</style></svg>`, "<style>"},
		{"unclosed", open + `<g>`, "well-formed"},
		{"two roots", open + `</svg>` + open + `</svg>`, "root"},
		{"wrong namespace", `<svg xmlns="http://example.com/ns"></svg>`, "root"},
		{"html root", `<svg xmlns="http://www.w3.org/2000/svg"></svg><script>x</script>`, "<script>"},
		{"trailing text", open + `</svg>junk`, "outside"},
	} {
		_, err := checkSVG([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one naming %q", c.name, err, c.want)
		}
	}
}
