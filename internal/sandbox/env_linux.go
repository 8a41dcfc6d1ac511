package sandbox

// Environment scrubbing: what of bench's environment a confined plugin
// gets.

import "strings"

// scrub keeps of env only the protocol's variables, PATH and LANG, and
// sets HOME and TMPDIR to dir.
func scrub(env []string, dir string, protocol func(string) bool) []string {
	var out []string
	hasPath := false
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case k == "PATH":
			hasPath = true
			out = append(out, kv)
		case k == "LANG", protocol != nil && protocol(k):
			out = append(out, kv)
		}
	}
	if !hasPath {
		out = append(out, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return append(out, "HOME="+dir, "TMPDIR="+dir)
}

func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
