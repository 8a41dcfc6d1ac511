package results

import (
	"bytes"
	"encoding/json"
	"strings"
)

// FormatParams writes resolved parameters as messages show them: compact
// JSON, keys sorted, < > & as they are (not \u003c \u003e \u0026, the
// default of encoding/json, for JSON put inside HTML).
func FormatParams(params map[string]any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		return "(unprintable)"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// SamePolicy names the first field, as results files spell it, in which
// b differs from a, two records of what must be one policy run by one
// plugin build: label, plugin, plugin_sha256, plugin_version, feedback or
// params (compared as a file records them, through JSON, so that resolved
// parameters compare equal to the same ones read back from a file); ""
// when none does. It is the one rule of policy compatibility: bench merge
// checks each shard's policy against the first shard's with it, and
// bench run --resume a kept policy against the one it would run now. Each
// caller phrases the difference in its own terms. Checkpoints are not
// part of it: they align traces, and each caller checks them where it
// must (a failed shard has none).
func SamePolicy(a, b *Policy) string {
	switch {
	case a.Label != b.Label:
		return "label"
	case a.Plugin != b.Plugin:
		return "plugin"
	case a.PluginSHA256 != b.PluginSHA256:
		return "plugin_sha256"
	case a.PluginVersion != b.PluginVersion:
		return "plugin_version"
	case a.Feedback != b.Feedback:
		return "feedback"
	}
	pa, err1 := json.Marshal(a.Params)
	pb, err2 := json.Marshal(b.Params)
	if err1 != nil || err2 != nil || !bytes.Equal(pa, pb) {
		return "params"
	}
	return ""
}
