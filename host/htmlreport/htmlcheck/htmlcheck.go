// Package htmlcheck checks that a page written by host/htmlreport is
// valid whatever went into it, for the tests of htmlreport and of bench
// report and bench paper: UTF-8 without a character that HTML or XML 1.0
// forbids, a tree (golang.org/x/net/html) whose ids are unique and whose
// in-page links lead somewhere, every inline SVG well-formed XML
// (encoding/xml, strict), and no JSON \u003c-style escape shown as text.
package htmlcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Allowed reports whether r may stand in both an HTML page (no parse
// error) and an XML 1.0 document.
func Allowed(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r':
		return true
	case r < 0x20, r >= 0x7F && r <= 0x9F, r >= 0xD800 && r <= 0xDFFF,
		r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE, r > utf8.MaxRune:
		return false
	}
	return true
}

// Page checks page and returns its tree and every problem found (none for
// a valid page). The tree is nil only when the page cannot be parsed.
func Page(page []byte) (*html.Node, []error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !utf8.Valid(page) {
		bad("the page is not valid UTF-8")
	}
	for i, r := range string(page) {
		if !Allowed(r) || (r == utf8.RuneError && !bytes.HasPrefix(page[i:], []byte("\uFFFD"))) {
			bad("the page holds %U at byte %d: %q", r, i, page[max(0, i-40):min(len(page), i+40)])
			break
		}
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, append(errs, fmt.Errorf("the page does not parse: %w", err))
	}
	ids := map[string]int{}
	var links []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch {
				case a.Key == "id":
					ids[a.Val]++
					if a.Val == "" || strings.ContainsAny(a.Val, " \t\n\r\f") {
						bad("<%s id=%q>: an id must be non-empty, without spaces", n.Data, a.Val)
					}
				case a.Key == "href" && strings.HasPrefix(a.Val, "#"):
					links = append(links, a.Val[1:])
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for id, n := range ids {
		if n > 1 {
			bad("id %q is used %d times", id, n)
		}
	}
	for _, l := range links {
		if ids[l] != 1 {
			bad("the link #%s leads to no element", l)
		}
	}
	for i, svg := range SVGs(page) {
		if err := WellFormed(svg); err != nil {
			bad("inline SVG %d is not well-formed XML: %v", i+1, err)
		}
	}
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
		if bytes.Contains(page, []byte(esc)) {
			bad("the page shows the JSON escape %s", esc)
		}
	}
	return doc, errs
}

// SVGs returns the inline <svg> elements of page, as written.
func SVGs(page []byte) [][]byte {
	var out [][]byte
	for rest := page; ; {
		i := bytes.Index(rest, []byte("<svg"))
		if i < 0 {
			return out
		}
		j := bytes.Index(rest[i:], []byte("</svg>"))
		if j < 0 {
			return append(out, rest[i:]) // WellFormed says it is not closed
		}
		out = append(out, rest[i:i+j+len("</svg>")])
		rest = rest[i+j:]
	}
}

// WellFormed reads every token of the XML document doc with encoding/xml
// in strict mode and returns the first error.
func WellFormed(doc []byte) error {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
