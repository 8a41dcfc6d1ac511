package results_test

import (
	"testing"

	"github.com/regretbench/regretbench/host/results"
)

// TestSamePolicy: the one rule of policy compatibility names the first
// field that differs, and compares parameters as a file records them.
func TestSamePolicy(t *testing.T) {
	base := func() *results.Policy {
		return &results.Policy{Label: "TS", Plugin: "ts", PluginVersion: "1.0.0", PluginSHA256: "ab", Params: map[string]any{"inflation": 1.0}}
	}
	for _, tc := range []struct {
		name   string
		change func(p *results.Policy)
		want   string
	}{
		{"same", func(*results.Policy) {}, ""},
		{"resolved int as read float", func(p *results.Policy) { p.Params = map[string]any{"inflation": 1} }, ""},
		{"label", func(p *results.Policy) { p.Label = "X" }, "label"},
		{"plugin", func(p *results.Policy) { p.Plugin = "klucb" }, "plugin"},
		{"build before version", func(p *results.Policy) { p.PluginSHA256, p.PluginVersion = "cd", "2" }, "plugin_sha256"},
		{"version", func(p *results.Policy) { p.PluginVersion = "2" }, "plugin_version"},
		{"feedback", func(p *results.Policy) { p.Feedback = "delay 5" }, "feedback"},
		{"params", func(p *results.Policy) { p.Params = map[string]any{"inflation": 2.0} }, "params"},
		{"params absent", func(p *results.Policy) { p.Params = nil }, "params"},
		{"checkpoints are not identity", func(p *results.Policy) { p.Checkpoints = []int{1} }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			tc.change(p)
			if got := results.SamePolicy(base(), p); got != tc.want {
				t.Errorf("SamePolicy = %q, want %q", got, tc.want)
			}
		})
	}
}
