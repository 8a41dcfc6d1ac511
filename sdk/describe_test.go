package sdk

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestWriteDescription: `PLUGIN describe` writes < > & as they are, not
// \u003c \u003e \u0026 (encoding/json's HTML escaping), and its output
// reads back to the same description.
func TestWriteDescription(t *testing.T) {
	const doc = `must be > 0 & < 1; <b>bold</b>`
	p := Plugin{Name: "p", Version: "1 <&>", New: func(Session, Replica) (Policy, error) { return nil, nil },
		Params: []Param{{Name: "x", Type: Float, Default: 0.5, Doc: doc}}}
	c, err := newCore(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeDescription(&b, c.describe()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
		if strings.Contains(out, esc) {
			t.Errorf("describe writes %s:\n%s", esc, out)
		}
	}
	if !strings.Contains(out, `"Doc": "`+doc+`"`) || !strings.Contains(out, `"Version": "1 <&>"`) {
		t.Errorf("describe does not write the doc and the name as they are:\n%s", out)
	}
	var back description
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Params[0].Doc != doc || back.Version != p.Version {
		t.Errorf("read back: %v, %+v", err, back)
	}
}
