package plot_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/plot"
	"github.com/regretbench/regretbench/host/results"
)

// Hostile names: what a results file, a scenario or a plugin may put where
// a figure draws text. XML 1.0 cannot hold a control character (but tab,
// newline and carriage return), U+FFFE, U+FFFF or invalid UTF-8 at all;
// the others are markup that must stay text.
const (
	hostileScenario = "sc\x01\x1b[2J</text>]]>&\"'\xff"
	hostileDiag     = "gap\uFFFE\x07</text>"
)

// hostileLabels are those of the fixture's three ok policies.
var hostileLabels = []string{"R\uFFFEx\x01", "bad\xed\xa0\x80utf8 ]]>", "</text><script>x</script>&amp;\"'"}

// hostile returns the small fixture with hostile names everywhere a
// figure draws text: the scenario, every ok policy's label and a
// diagnostic; plus two diagnostics whose file-safe names collide.
func hostile(t *testing.T) *results.File {
	t.Helper()
	f := small(t)
	f.Scenario.Name = hostileScenario
	i := 0
	for _, p := range f.Policies {
		if p.Status == results.StatusFailed {
			continue
		}
		p.Label = hostileLabels[i]
		i++
		if d, ok := p.Diagnostics["kkt_gap"]; ok {
			p.Diagnostics[hostileDiag] = d
			p.Diagnostics["a b"] = d
			p.Diagnostics["a_b"] = d
			p.Diagnostics["a_b-2"] = d
		}
	}
	return f
}

// strictXML reads every token of an XML document with encoding/xml in
// strict mode and returns the text of its <text> elements.
func strictXML(r io.Reader) ([]string, error) {
	d := xml.NewDecoder(r)
	d.Strict = true
	var texts []string
	in := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return texts, nil
		}
		if err != nil {
			return texts, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			in = t.Name.Local == "text"
			if in {
				texts = append(texts, "")
			}
		case xml.EndElement:
			in = false
		case xml.CharData:
			if in {
				texts[len(texts)-1] += string(t)
			}
		}
	}
}

// TestHostileNamesSVG: with control characters, noncharacters, invalid
// UTF-8 and markup in the scenario's name, the labels and a diagnostic's
// name, every SVG written is well-formed XML (encoding/xml, strict), and
// the names are drawn as text, their bad characters as visible escapes.
func TestHostileNamesSVG(t *testing.T) {
	dir := t.TempDir()
	paths, err := plot.Write(hostile(t), dir, "svg", "png", "pdf")
	if err != nil {
		t.Fatal(err)
	}
	var svgs, names []string
	for _, p := range paths {
		if filepath.Ext(p) == ".svg" {
			svgs = append(svgs, p)
		}
		names = append(names, filepath.Base(p))
	}
	// Eleven figures, each in three formats: four, and one per diagnostic
	// (three of the fixture's, the hostile one and three whose file-safe
	// names collide, told apart).
	const base = "sc___2J__text_________"
	for _, want := range []string{"regret", "diag_gap____text_", "diag_a_b", "diag_a_b-2", "diag_a_b-3"} {
		if !slices.Contains(names, base+want+".svg") {
			t.Errorf("no %s among %v", base+want+".svg", names)
		}
	}
	if len(svgs) != 11 || len(paths) != 33 {
		t.Errorf("wrote %d files, %d SVG: %v", len(paths), len(svgs), names)
	}
	var all []string
	for _, p := range svgs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts, err := strictXML(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s is not well-formed XML: %v", filepath.Base(p), err)
		}
		all = append(all, texts...)
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{
		`sc\x01\x1b[2J</text>]]>&"'\xff: cumulative regret`,
		`R\ufffex\x01`, `bad\xed\xa0\x80utf8 ]]>`, `</text><script>x</script>&amp;"'`,
		`diagnostic gap\ufffe\a</text>`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no figure text holds %q", want)
		}
	}
}

// TestWriteGoesOn: a figure that cannot be written costs only itself: the
// others are written and the error names the one that failed.
func TestWriteGoesOn(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "small_separated.svg")
	if err := os.Mkdir(blocked, 0o755); err != nil { // a file cannot be created there
		t.Fatal(err)
	}
	paths, err := plot.Write(small(t), dir, "svg", "png")
	if err == nil || !strings.Contains(err.Error(), blocked) {
		t.Fatalf("err = %v, want one naming %s", err, blocked)
	}
	if len(paths) != 13 || slices.Contains(paths, blocked) {
		t.Errorf("wrote %d figures, want the 13 others: %v", len(paths), paths)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}
