package run

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/host/scenario"
)

// pluginNameRE is the scenario files' rule for plugin names.
var pluginNameRE = regexp.MustCompile(`^[a-z0-9_-]+$`)

// ParseWith parses one added policy's SPEC (bench run --with SPEC):
// PLUGIN[:k=v,k=v...][@LABEL]. Before the first unescaped '@', a backslash escapes the next character, so that
// values may hold ',', '=', '@' or '\'; the label after it is literal.
// Values are decoded as YAML scalars, so they get the types a scenario
// file would give them.
func ParseWith(spec string) (scenario.Policy, error) {
	if !utf8.ValidString(spec) {
		// A results file holds UTF-8 only: the label would be stored as
		// U+FFFD, and --resume would then append a second policy of
		// that label, which bench gate refuses.
		return scenario.Policy{}, fmt.Errorf("not valid UTF-8 (the bytes %s)", invalidBytes(spec))
	}
	// Split off the label at the first unescaped '@'.
	head, label, hasLabel := spec, "", false
	for i := 0; i < len(spec); i++ {
		if spec[i] == '\\' {
			i++
			continue
		}
		if spec[i] == '@' {
			head, label, hasLabel = spec[:i], spec[i+1:], true
			break
		}
	}
	// Split head on unescaped separators, unescaping as we go.
	var fields []string // plugin, then k=v items
	var cur strings.Builder
	var seps []byte // the separator that ended each field
	for i := 0; i < len(head); i++ {
		c := head[i]
		switch {
		case c == '\\':
			if i+1 == len(head) {
				return scenario.Policy{}, errors.New("a trailing backslash escapes nothing")
			}
			i++
			cur.WriteByte(0) // marks the next byte as escaped
			cur.WriteByte(head[i])
		case c == ':' && len(fields) == 0, c == ',' && len(fields) > 0:
			fields = append(fields, cur.String())
			seps = append(seps, c)
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	fields = append(fields, cur.String())
	unescape := func(s string) string { return strings.ReplaceAll(s, "\x00", "") }
	p := scenario.Policy{Plugin: unescape(fields[0]), Params: map[string]any{}}
	if len(seps) > 0 && len(fields) == 2 && fields[1] == "" {
		return p, errors.New("':' is followed by no parameter (write PLUGIN alone for the defaults)")
	}
	if p.Plugin == "" {
		return p, errors.New("no plugin name (want PLUGIN[:NAME=VALUE,...][@LABEL])")
	}
	if strings.ContainsRune(fields[0], 0) || !pluginNameRE.MatchString(p.Plugin) {
		return p, fmt.Errorf("invalid plugin name %q (want [a-z0-9_-]+, the NAME of bench-plugin-NAME)", p.Plugin)
	}
	for _, item := range fields[1:] {
		// The first unescaped '=' splits name and value.
		eq := -1
		for i := 0; i < len(item); i++ {
			if item[i] == 0 {
				i++
				continue
			}
			if item[i] == '=' {
				eq = i
				break
			}
		}
		if eq < 0 {
			return p, fmt.Errorf("parameter %q has no '=VALUE'", unescape(item))
		}
		name, raw := unescape(item[:eq]), unescape(item[eq+1:])
		if name == "" {
			return p, fmt.Errorf("'=%s' has no parameter name", raw)
		}
		if name == feedbackKey {
			if p.Feedback != nil {
				return p, errors.New("feedback is given twice")
			}
			fb, err := parseFeedback(raw)
			if err != nil {
				return p, err
			}
			p.Feedback = fb
			continue
		}
		if _, dup := p.Params[name]; dup {
			return p, fmt.Errorf("parameter %q is given twice", name)
		}
		v, err := yamlScalar(raw)
		if err != nil {
			return p, fmt.Errorf("parameter %q: %w", name, err)
		}
		p.Params[name] = v
	}
	p.Label = p.Plugin
	if hasLabel {
		if label == "" {
			return p, errors.New("'@' is followed by no label")
		}
		p.Label = label
	}
	if strings.TrimSpace(p.Label) != p.Label || strings.IndexFunc(p.Label, unicode.IsControl) >= 0 {
		return p, fmt.Errorf("label %q has leading or trailing spaces or control characters", p.Label)
	}
	return p, nil
}

// invalidBytes lists the bytes of s that are not UTF-8, escaped: "\xff at
// byte 3, \xfe at byte 7".
func invalidBytes(s string) string {
	var parts []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			parts = append(parts, fmt.Sprintf("\\x%02x at byte %d", s[i], i))
		}
		i += n
	}
	return strings.Join(parts, ", ")
}

// feedbackKey is the SPEC key that sets the policy's feedback mode in
// place of the scenario's; it is not passed to the plugin.
const feedbackKey = "feedback"

// parseFeedback parses the value of feedback= in a --with SPEC: delay:D,
// geometric:MEAN or batch:B, the forms of a scenario's `feedback:`
// ({delay: D}, {delay: {geometric: MEAN}}, {batch: B}), checked as a
// scenario file's are.
func parseFeedback(raw string) (*scenario.Feedback, error) {
	const forms = "delay:D, geometric:MEAN or batch:B"
	kind, val, ok := strings.Cut(raw, ":")
	if raw == "immediate" {
		return nil, errors.New("feedback=immediate: write feedback=delay:0, which gives a policy exactly what immediate feedback gives (and is compared as such); without feedback= the policy has the scenario's own feedback")
	}
	if !ok || val == "" {
		return nil, fmt.Errorf("feedback=%s: want %s", raw, forms)
	}
	v, err := yamlScalar(val)
	if err != nil {
		return nil, fmt.Errorf("feedback=%s: %w", raw, err)
	}
	var fb scenario.Feedback
	switch kind {
	case "delay":
		fb.Delay = v
	case "geometric":
		fb.Delay = map[string]any{"geometric": v}
	case "batch":
		fb.Batch = v
	default:
		return nil, fmt.Errorf("feedback=%s: unknown mode %q (want %s)", raw, kind, forms)
	}
	if _, err := fb.Mode(); err != nil {
		return nil, fmt.Errorf("feedback=%s: %w", raw, err)
	}
	return &fb, nil
}

// yamlScalar decodes raw as a scenario file decodes a parameter's value.
func yamlScalar(raw string) (any, error) {
	if raw == "" {
		return "", nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(raw), &n); err != nil {
		return nil, fmt.Errorf("value %q is not a YAML scalar: %w", raw, err)
	}
	if len(n.Content) != 1 || n.Content[0].Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("value %q is not a scalar (a number, bool or string; quote it or escape , = @ with a backslash)", raw)
	}
	var v any
	if err := n.Content[0].Decode(&v); err != nil {
		return nil, fmt.Errorf("value %q: %w", raw, err)
	}
	if v == nil {
		return nil, fmt.Errorf("value %q is null", raw)
	}
	return v, nil
}
