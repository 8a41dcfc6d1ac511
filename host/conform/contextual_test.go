package conform

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/conformance"
	"github.com/regretbench/regretbench/internal/testbin"
)

// contextualRules are the kit's contextual rules, and rules a contextual-only
// plugin skips.
var contextualRules = []string{"describe", "valid-arms", "contextual-arms", "contextual-deterministic", "contextual-batch-split", "contextual-only"}

// TestContextualExecutable checks a contextual-only plugin executable
// (testdata/ctxeps) with the contextual rules, over every transport it
// offers, launched as bench conform launches it: they pass, and the
// context-free rule valid-arms is skipped. Built for protocol 2, the same
// plugin is not contextual: the contextual rules are skipped, saying why.
func TestContextualExecutable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	for _, c := range []struct {
		name string
		tags []string
	}{{"protocol 3", nil}, {"protocol 2", []string{"regretbench_proto2"}}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			m := testbin.Main{Pkg: "github.com/regretbench/regretbench/host/conform/testdata/ctxeps", Name: "bench-plugin-ctxeps"}
			if err := testbin.Build(dir, testbin.Options{Tags: c.tags}, m); err != nil {
				t.Fatal(err)
			}
			exe := filepath.Join(dir, "bench-plugin-ctxeps")
			var failed, skipped, passed []string
			trs := conformance.CheckExecutable(t.Context(), exe, launcher(nil), func(r conformance.Result) {
				switch {
				case r.Err != nil:
					failed = append(failed, r.Name()+": "+r.Err.Error())
				case r.Skipped != "":
					skipped = append(skipped, r.Name()+": "+r.Skipped)
				default:
					passed = append(passed, r.Name())
				}
			}, conformance.Quick(), conformance.WithSeed(0x5eed), conformance.WithRules(contextualRules...))
			if len(failed) > 0 {
				t.Fatalf("failures:\n%s", strings.Join(failed, "\n"))
			}
			if len(trs) < 2 {
				t.Errorf("transports %v, want the step socket, the stream and unary Step", trs)
			}
			all := strings.Join(skipped, "\n")
			for _, tr := range trs {
				if c.tags == nil {
					for _, r := range contextualRules[2:] {
						if !contains(passed, r+"/"+tr) {
							t.Errorf("%s/%s did not pass; skipped:\n%s", r, tr, all)
						}
					}
					if !strings.Contains(all, "valid-arms/"+tr+": the plugin plays only contextual sessions") {
						t.Errorf("valid-arms/%s not skipped for a contextual-only plugin:\n%s", tr, all)
					}
				} else if !strings.Contains(all, "contextual-arms/"+tr+": the plugin does not play contextual sessions (protocol 2") {
					t.Errorf("contextual-arms/%s not skipped for a protocol 2 plugin:\n%s", tr, all)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
