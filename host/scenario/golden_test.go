package scenario

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/shipped.golden from the current code")

// dumpScenario renders every field of s, unexported ones and the Go type
// of each parameter value included, so that two scenarios with the same
// dump are equal field for field (floats print exactly in JSON).
func dumpScenario(t *testing.T, s *Scenario) string {
	t.Helper()
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(data)
	fmt.Fprintf(&b, "\ndefaultCheckpoints: %v\n", s.defaultCheckpoints)
	for i, p := range s.Policies {
		keys := make([]string, 0, len(p.Params))
		for k := range p.Params {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "policies[%d].params.%s: %T %v\n", i, k, p.Params[k], p.Params[k])
		}
	}
	for _, f := range []struct {
		name string
		fb   *Feedback
	}{{"feedback", s.Feedback}} {
		if f.fb != nil {
			fmt.Fprintf(&b, "%s: delay %T %v, batch %T %v\n", f.name, f.fb.Delay, f.fb.Delay, f.fb.Batch, f.fb.Batch)
		}
	}
	for i, p := range s.Policies {
		if p.Feedback != nil {
			fmt.Fprintf(&b, "policies[%d].feedback: delay %T %v, batch %T %v\n", i, p.Feedback.Delay, p.Feedback.Delay, p.Feedback.Batch, p.Feedback.Batch)
		}
	}
	return b.String()
}

// TestShippedDecodeUnchanged: every shipped scenario decodes to the same
// Scenario value, field for field and type for type, as it did when
// scenario files were read through viper and mapstructure
// (testdata/shipped.golden was written by that code with -update).
func TestShippedDecodeUnchanged(t *testing.T) {
	var b strings.Builder
	for _, name := range Shipped() {
		s, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "=== %s\n%s\n", name, dumpScenario(t, s))
	}
	golden := filepath.Join("testdata", "shipped.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("shipped scenarios decode differently from %s at line %d:\ngot  %s\nwant %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("shipped scenarios decode differently from %s: %d lines, want %d", golden, len(gl), len(wl))
	}
}
