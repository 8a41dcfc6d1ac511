package sdk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/wire"
)

// names returns n distinct names.
func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("d%d", i)
	}
	return out
}

// TestPluginLimits: the SDK tells an author at once, when it checks the
// Plugin value, that a declaration is beyond what bench accepts. Serve and
// the host's in-process connections (wire.InProcess) all check it as
// newCore does; the host's own refusal of such a plugin is tested in
// internal/client (TestDescribeLimits).
func TestPluginLimits(t *testing.T) {
	ok := func(Session, []Replica) (BatchPolicy, error) { return nil, nil }
	for _, c := range []struct {
		name string
		p    Plugin
		want string
	}{
		{"20,000 diagnostics", Plugin{Diagnostics: names(20000)}, "sdk: plugin p: declares 20000 diagnostics, more than the 64 allowed (sdk.MaxDiagnostics)"},
		{"duplicate diagnostic", Plugin{Diagnostics: []string{"a", "a"}}, `diagnostic "a" is declared twice`},
		{"long name", Plugin{Params: []Param{{Name: strings.Repeat("p", 65), Type: Int, Default: 1}}}, "longer than 64 bytes (sdk.MaxNameLen)"},
		{"empty param name", Plugin{Params: []Param{{Type: Int, Default: 1}}}, "parameter 1 has an empty name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.p.Name, c.p.NewBatch = "p", ok
			_, err := newCore(c.p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("newCore: %v, want an error containing %q", err, c.want)
			}
			// What the conformance kit and the host's in-process
			// connections call: the same check, before serving.
			if _, err := wire.InProcess(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("wire.InProcess: %v, want an error containing %q", err, c.want)
			}
		})
	}
	// At the limits exactly, a plugin is fine.
	p := Plugin{Name: strings.Repeat("p", MaxNameLen), NewBatch: ok, Diagnostics: names(MaxDiagnostics)}
	for _, n := range names(MaxParams) {
		p.Params = append(p.Params, Param{Name: n, Type: String, Default: strings.Repeat("s", MaxTextLen), Doc: strings.Repeat("d", MaxTextLen)})
	}
	if _, err := newCore(p); err != nil {
		t.Fatalf("a plugin at every limit: %v", err)
	}
}

// TestPluginParamErrors: a parameter whose default or allowed value is
// missing or of another type than declared gets params.Validate's words,
// which say what the parameter wants, not the wire encoder's.
func TestPluginParamErrors(t *testing.T) {
	ok := func(Session, []Replica) (BatchPolicy, error) { return nil, nil }
	for _, c := range []struct {
		name string
		p    Param
		want string
	}{
		{"missing default", Param{Name: "n", Type: Int}, `sdk: plugin p: parameter "n": default: want int`},
		{"int32 default", Param{Name: "n", Type: Int, Default: int32(1)}, `sdk: plugin p: parameter "n": default: want int`},
		{"string allowed for an int", Param{Name: "n", Type: Int, Default: int64(1), Allowed: []any{int64(1), "x"}}, `sdk: plugin p: parameter "n": allowed value: want int`},
		// params.Validate takes it, the wire cannot carry it: refused now
		// rather than by Describe once the plugin runs.
		{"float32 default", Param{Name: "x", Type: Float, Default: float32(1)}, `sdk: plugin p: parameter "x" default: unsupported parameter value float32 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := newCore(Plugin{Name: "p", NewBatch: ok, Params: []Param{c.p}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("newCore: %v, want an error containing %q", err, c.want)
			}
		})
	}
}
