package results

import (
	"bytes"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/seed"
)

// TestDecodeRefusesMisreadKeys: a key that matches a field only when case
// is ignored, and a key given twice in one object, are refused wherever
// they are, naming the object and the key. Before, encoding/json took
// "Seed" for "seed" and kept the last of two keys, so that a "Seed" added
// after "seed" silently changed the seed a file reports.
func TestDecodeRefusesMisreadKeys(t *testing.T) {
	valid := string(encoded(t, validFile()))
	// edit inserts extra right after the first occurrence of after.
	edit := func(after, extra string) string {
		t.Helper()
		i := strings.Index(valid, after)
		if i < 0 {
			t.Fatalf("the valid file lacks %q", after)
		}
		i += len(after)
		return valid[:i] + extra + valid[i:]
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"Seed after seed", edit(`"seed": 1,`, ` "Seed": 2,`),
			`scenario: key "Seed" differs from the field "seed" only in case (a JSON reader would take it for "seed"); keys are case-sensitive`},
		{"Seed alone", strings.Replace(valid, `"seed": 1,`, `"Seed": 2,`, 1), `scenario: key "Seed" differs from the field "seed" only in case`},
		{"escaped Seed", edit(`"seed": 1,`, ` "\u0053eed": 2,`), `scenario: key "Seed" differs from the field "seed" only in case`},
		{"long s folds to s", edit(`"seed": 1,`, ` "ſeed": 2,`), `scenario: key "ſeed" differs from the field "seed" only in case`},
		{"top level", edit(`"complete": true,`, ` "Complete": false,`), `key "Complete" differs from the field "complete" only in case`},
		{"in a policy", edit(`"label": "TS",`, ` "LABEL": "X",`), `policies[0]: key "LABEL" differs from the field "label" only in case`},
		{"in a series", edit(`"regret": {`, ` "Mean": [9, 9],`), `policies[0].regret: key "Mean" differs from the field "mean" only in case`},
		{"in a map value's struct", edit(`"gap": {`, ` "SE": [9, 9],`), `policies[0].diagnostics.gap: key "SE" differs from the field "se" only in case`},
		{"duplicate seed", edit(`"seed": 1,`, ` "seed": 2,`), `scenario: key "seed" appears twice (a JSON reader would keep only the last)`},
		{"duplicate top-level key", edit(`"complete": true,`, ` "complete": false,`), `key "complete" appears twice`},
		{"duplicate in a map", edit(`"final": {`, ` "regret": [9, 9, 9],`), `policies[0].final: key "regret" appears twice`},
		{"duplicate, escaped", edit(`"seed": 1,`, ` "s\u0065ed": 2,`), `scenario: key "seed" appears twice`},
		{"duplicate in the comparison", strings.Replace(valid, "\n}", `, "comparison": {"metric": "regret", "metric": "underestimation"}}`, 1),
			`comparison: key "metric" appears twice`},
		{"duplicate in params", edit(`"params": {`, `"c": 1, "c": 2`), `policies[0].params: key "c" appears twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode: %v, want an error with %q", err, tc.want)
			}
		})
	}
	// What stays accepted: map keys that differ in case, keys holding
	// dots, escapes of the field's own name, and the valid file itself.
	for _, data := range []string{
		valid,
		edit(`"params": {`, `"c": 1, "C": 2, "a.b": 3`),
		strings.Replace(valid, `"seed": 1,`, `"s\u0065ed": 1,`, 1),
	} {
		f, err := Decode([]byte(data))
		if err != nil {
			t.Errorf("refused: %v\n%s", err, data)
		} else if f.Scenario.Seed != seed.Int(1) {
			t.Errorf("seed %v, want 1", f.Scenario.Seed)
		}
	}
	// A file that is not JSON is still the decoder's to describe.
	if _, err := Decode(bytes.TrimSuffix([]byte(valid), []byte("}\n"))); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("truncated: %v", err)
	}
}
