package htmlcheck

import (
	"strings"
	"testing"
)

// TestPageSees: the checker finds each kind of problem it is for, and
// none in a clean page, so that a clean result means something.
func TestPageSees(t *testing.T) {
	const svg = `<svg xmlns="http://www.w3.org/2000/svg"><text>a &amp; b</text></svg>`
	page := func(body string) string {
		return "<!DOCTYPE html><html><head><title>t</title></head><body>" + body + "</body></html>"
	}
	for _, c := range []struct{ name, page, want string }{
		{"clean", page(`<p id="a"><a href="#a">x</a></p>` + svg), ""},
		{"duplicate id", page(`<p id="a"></p><div id="a"></div>`), `id "a" is used 2 times`},
		{"empty id", page(`<p id=""></p>`), "must be non-empty"},
		{"dangling link", page(`<a href="#nowhere">x</a>`), "#nowhere leads to no element"},
		{"control", page("<p>a\x01b</p>"), "U+0001"},
		{"noncharacter", page("<p>a\uFFFEb</p>"), "U+FFFE"},
		{"invalid UTF-8", page("<p>a\xffb</p>"), "not valid UTF-8"},
		{"svg control", page(`<svg xmlns="http://www.w3.org/2000/svg"><text>` + "\x01" + `</text></svg>`), "inline SVG 1 is not well-formed"},
		{"svg markup", page(`<svg xmlns="http://www.w3.org/2000/svg"><text>a & b</text></svg>`), "inline SVG 1 is not well-formed"},
		{"svg unclosed", page(`<svg xmlns="http://www.w3.org/2000/svg"><g>`), "inline SVG 1 is not well-formed"},
		{"json escape", page(`<code>{"a":"\u003cb\u003e"}</code>`), `\u003c`},
	} {
		doc, errs := Page([]byte(c.page))
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		got := strings.Join(msgs, "\n")
		switch {
		case doc == nil:
			t.Errorf("%s: no tree", c.name)
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s: %s", c.name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: found %q, want %q", c.name, got, c.want)
		}
	}
}
