package htmlreport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
)

// What host/plot's SVG figures are made of. checkSVG refuses anything
// else, so that the one piece of markup the page takes from outside its
// templates can hold no script, no event handler and no link.
var (
	svgElements = map[string]bool{"svg": true, "g": true, "path": true, "text": true}
	svgAttrs    = map[string]bool{
		"width": true, "height": true, "viewBox": true, "transform": true,
		"d": true, "style": true, "x": true, "y": true,
	}
	svgNS = "http://www.w3.org/2000/svg"
)

// maxSVG bounds one figure: host/plot's are tens of kilobytes.
const maxSVG = 16 << 20

// checkSVG returns the <svg> element of an SVG document drawn by
// host/plot, ready to be put inline in the page: the XML declaration and
// comments before it are dropped. It refuses a document that is not
// well-formed XML, holds more than one root, or uses an element or
// attribute host/plot does not draw (only svg, g, path and text; no
// href, no on* handler, no script); text is already escaped by the
// plotter and is checked to stay text.
func checkSVG(doc []byte) (template.HTML, error) {
	if len(doc) > maxSVG {
		return "", fmt.Errorf("SVG of %d bytes, over the %d bytes a figure may take", len(doc), maxSVG)
	}
	start := bytes.Index(doc, []byte("<svg"))
	if start < 0 {
		return "", errors.New("not an SVG document: no <svg> element")
	}
	body := bytes.TrimSpace(doc[start:])
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("SVG is not well-formed: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if t.Name.Local != "svg" || t.Name.Space != svgNS {
					return "", fmt.Errorf("SVG root is <%s>, want <svg xmlns=%q>", t.Name.Local, svgNS)
				}
			}
			if !svgElements[t.Name.Local] || t.Name.Space != svgNS {
				return "", fmt.Errorf("SVG holds a <%s> element, which the plotter does not draw", t.Name.Local)
			}
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "xmlns", a.Name.Space == "" && a.Name.Local == "xmlns":
					// namespace declarations
				case a.Name.Space == "" && svgAttrs[a.Name.Local]:
				default:
					return "", fmt.Errorf("SVG <%s> has an attribute %s:%s, which the plotter does not write", t.Name.Local, a.Name.Space, a.Name.Local)
				}
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return "", errors.New("SVG has text outside its root element")
			}
		case xml.ProcInst, xml.Directive:
			return "", errors.New("SVG holds a processing instruction or directive after its root")
		}
	}
	if roots != 1 || depth != 0 {
		return "", fmt.Errorf("SVG has %d root elements, want one <svg>", roots)
	}
	return template.HTML(body), nil
}
