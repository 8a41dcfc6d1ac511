// Package registry finds plugin executables: a scenario's `plugin: NAME` is
// the file bench-plugin-NAME in the plugin directory.
package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Prefix is the file-name prefix of plugin executables; it keeps `bench
// plugins` from running unrelated files.
const Prefix = "bench-plugin-"

// Dir is a plugin directory.
type Dir struct {
	Path string
}

// Find returns the executable of plugin name, as an absolute path,, or an error saying where it
// looked and what it found there.
func (d Dir) Find(name string) (string, error) {
	p := filepath.Join(d.Path, Prefix+name)
	st, err := os.Stat(p)
	if err == nil && !st.IsDir() {
		// Absolute, so that exec never looks a bare name up in PATH (a
		// relative --plugin-dir . would give "bench-plugin-NAME").
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
		return p, nil
	}
	found, lerr := d.Names()
	switch {
	case lerr != nil:
		return "", fmt.Errorf("plugin %q: looked for %s: %w", name, p, lerr)
	case len(found) == 0:
		return "", fmt.Errorf("plugin %q: no %s%s in %s, which holds no plugins (build them with `make build`, or set --plugin-dir / BENCH_PLUGIN_DIR)", name, Prefix, name, d.Path)
	}
	return "", fmt.Errorf("plugin %q: no %s%s in %s; found: %s (set --plugin-dir / BENCH_PLUGIN_DIR to look elsewhere)", name, Prefix, name, d.Path, strings.Join(found, ", "))
}

// Names lists the plugin names in the directory, sorted.
func (d Dir) Names() ([]string, error) {
	ents, err := os.ReadDir(d.Path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutPrefix(e.Name(), Prefix); ok && !e.IsDir() && n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// SHA256 returns the hex SHA-256 of the file at path.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Default returns the default plugin directory: plugins/ beside the running
// executable, so `make build` yields bin/bench and bin/plugins/.
func Default() string {
	exe, err := os.Executable()
	if err != nil {
		return "plugins"
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Join(filepath.Dir(exe), "plugins")
}
