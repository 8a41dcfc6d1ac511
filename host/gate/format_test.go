package gate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/internal/termsafe/termsafetest"
	"github.com/regretbench/regretbench/host/results"
)

// TestWriteFormats: the JSON verdict holds no NaN (a missing or failed
// policy has no delta) and lists regressions and failures; the Markdown
// one escapes labels and is a Markdown table; an unknown format is refused.
func TestWriteFormats(t *testing.T) {
	const n = 50
	base := baseValues(n)
	failed := policy("Crashy", nil)
	failed.Status, failed.Error = results.StatusFailed, "plugin exited at round 12"
	b := file(1, n, policy("TS", base), policy("a|b_c", base), policy("Crashy", base), policy("Gone", base))
	c := file(1, n, policy("TS", plus(base, exact(n, 20, 10))), policy("a|b_c", base), failed)
	rep, err := Compare(b, c, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var js strings.Builder
	if err := Write(&js, rep, "b.json", "c.json", "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Regressions []string                     `json:"regressions"`
		Failures    []string                     `json:"failures"`
		Rows        []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal([]byte(js.String()), &doc); err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	if strings.Join(doc.Regressions, ",") != "TS" || strings.Join(doc.Failures, ",") != "Crashy,Gone" {
		t.Errorf("regressions %v failures %v", doc.Regressions, doc.Failures)
	}
	if _, has := doc.Rows[2]["delta"]; has || string(doc.Rows[2]["verdict"]) != `"FAILED"` {
		t.Errorf("failed row %v: want verdict FAILED and no delta", doc.Rows[2])
	}
	var md strings.Builder
	if err := Write(&md, rep, "b.json", "c.json", "markdown"); err != nil {
		t.Fatal(err)
	}
	// host/table's Markdown escaping: | ends a cell, so it is escaped; an
	// underscore between two letters never starts emphasis, so it is not.
	if s := md.String(); !strings.Contains(s, `| a\|b_c `) || !strings.Contains(s, "**worse**") || !strings.Contains(s, "|:---") {
		t.Errorf("markdown:\n%s", s)
	}
	if err := Write(&md, rep, "b", "c", "xml"); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestWriteJSONPlainText: the JSON verdict writes labels with < > & as
// they are, not \u003c \u003e \u0026, and reads back to them.
func TestWriteJSONPlainText(t *testing.T) {
	const n = 50
	base := baseValues(n)
	const label = `<b>R&D</b>`
	rep, err := Compare(file(1, n, policy(label, base)), file(1, n, policy(label, base)), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	var js strings.Builder
	if err := Write(&js, rep, "b.json", "c.json", "json"); err != nil {
		t.Fatal(err)
	}
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
		if strings.Contains(js.String(), esc) {
			t.Errorf("the JSON verdict holds %s:\n%s", esc, js.String())
		}
	}
	var doc struct {
		Rows []struct {
			Label string `json:"label"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(js.String()), &doc); err != nil || len(doc.Rows) != 1 || doc.Rows[0].Label != label {
		t.Errorf("read back: %v %+v\n%s", err, doc, js.String())
	}
}

// TestChangesParamsPlainText: "What changed" shows parameters with < > &
// as they are, as a scenario gives them.
func TestChangesParamsPlainText(t *testing.T) {
	const n = 50
	base := baseValues(n)
	b, c := policy("P", base), policy("P", base)
	b.Params = map[string]any{"note": "<a>&"}
	c.Params = map[string]any{"note": "<b>&"}
	rep, err := Compare(file(1, n, b), file(1, n, c), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if want := `P: params {"note":"<a>&"} -> {"note":"<b>&"}`; len(rep.Changes) != 1 || rep.Changes[0] != want {
		t.Errorf("changes %q, want [%q]", rep.Changes, want)
	}
}

// TestHostileStrings: labels, scenario names, file names and failures'
// errors (with their quoted stderr lines) from results files that hold
// terminal escapes, a bidi override and a C1 control are escaped in the
// table and Markdown verdicts, a failure's lines kept; the JSON verdict
// keeps them raw. Before, a label could retitle or clear the terminal of
// whoever gated the file.
func TestHostileStrings(t *testing.T) {
	const hostile, shown = termsafetest.Hostile, termsafetest.Shown
	const n = 50
	base := baseValues(n)
	crash := policy("C"+hostile, nil)
	crash.Status, crash.Error = results.StatusFailed, "boom"+hostile+"\n  plugin stderr (last lines):\n    said"+hostile
	b := file(1, n, policy("A"+hostile, base), policy("C"+hostile, base))
	c := file(1, n, policy("A"+hostile, plus(base, exact(n, 20, 10))), crash)
	b.Scenario.Name, c.Scenario.Name = "s"+hostile, "t"+hostile
	rep, err := Compare(b, c, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	md := func(s string) string { return strings.ReplaceAll(s, `\`, `\\`) } // Markdown escapes backslashes
	for _, tc := range []struct {
		format string
		want   []string
	}{
		{"table", []string{"against baseline b" + shown + ".json", "| A" + shown, "\n| C" + shown,
			"boom" + shown + "\n  plugin stderr (last lines):\n    said" + shown + "\n", `"s\x1b]0;pwned\a\x1b[2J\u202e\u009b"`}},
		{"markdown", []string{"| A" + md(shown), "boom" + md(shown) + "\n  plugin stderr (last lines):\n    said" + md(shown) + "\n"}},
	} {
		var out strings.Builder
		if err := Write(&out, rep, "b"+hostile+".json", "c.json", tc.format); err != nil {
			t.Fatal(err)
		}
		termsafetest.Check(t, tc.format, out.String(), tc.want...)
	}
	var js strings.Builder
	if err := Write(&js, rep, "b.json", "c.json", "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Failures []string `json:"failures"`
	}
	if err := json.Unmarshal([]byte(js.String()), &doc); err != nil || len(doc.Failures) != 1 || doc.Failures[0] != "C"+hostile {
		t.Errorf("json: failures %q (%v), want the raw label", doc.Failures, err)
	}
}

// TestWriteTableExtremeValues: huge values (1e150, whose squares still fit
// a float64), or a baseline mean of 1e-150 that makes delta a huge
// percentage, stay a few characters per cell, in text and in Markdown,
// and are still readable.
func TestWriteTableExtremeValues(t *testing.T) {
	const n = 40
	huge := exact(n, 1e150, 1e149)
	tiny := exact(n, 1e-150, 1e-151)
	b := file(1, n, policy("Huge", huge), policy("Tiny", tiny), policy("Plain", baseValues(n)))
	c := file(1, n, policy("Huge", plus(huge, exact(n, 1e149, 1e148))), policy("Tiny", plus(tiny, exact(n, 1, 0.1))), policy("Plain", baseValues(n)))
	rep, err := Compare(b, c, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "markdown"} {
		var out strings.Builder
		if err := Write(&out, rep, "b.json", "c.json", format); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(line, "|") || strings.HasPrefix(line, "+") {
				if len(line) > 160 {
					t.Errorf("%s: a table line of %d characters:\n%s", format, len(line), s)
					break
				}
			}
		}
		for _, want := range []string{"1.000e+150 ± 1.6e+148", "1.000e-150 ± 1.6e-152", "+10.0%", "+1e+152%"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: no %q in\n%s", format, want, s)
			}
		}
	}
}
