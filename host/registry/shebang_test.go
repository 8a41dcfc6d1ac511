package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShimWarningStatic: ShimWarning names a #! interpreter that is a
// script in a shims directory (pyenv's, asdf's), directly or through a
// symbolic link, and nothing else: not the same script elsewhere, not a
// binary in a shims directory, not a script that is no plugin script.
func TestShimWarningStatic(t *testing.T) {
	dir := t.TempDir()
	write := func(path, content string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	shimScript := "#!/usr/bin/env bash\nexec \"$PYENV_ROOT/libexec/pyenv\" exec python3 \"$@\"\n"
	shim := write(filepath.Join(dir, "pyenv", "shims", "python3"), shimScript)
	wrap := write(filepath.Join(dir, "wrap", "python3"), shimScript)
	binary := write(filepath.Join(dir, "bin-shims", "shims", "python3"), "\x7fELF not a script")
	link := filepath.Join(dir, "venv", "bin", "python3")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shim, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, content string
		shim          bool
	}{
		{"shim", "#!" + shim + "\nprint()\n", true},
		{"shim through a link", "#!" + link + "\n", true},
		{"shim with an argument", "#!" + shim + " -u\n", true},
		{"wrapper elsewhere", "#!" + wrap + "\n", false},
		{"binary in shims", "#!" + binary + "\n", false},
		{"system python", "#!/usr/bin/python3\n", false},
		{"not a script", "\x7fELF", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(filepath.Join(t.TempDir(), "bench-plugin-x"), c.content)
			got := ShimWarning(p)
			if (got != "") != c.shim {
				t.Fatalf("ShimWarning = %q, want a warning: %v", got, c.shim)
			}
			if c.shim && (!strings.HasPrefix(got, "plugin "+p+": ") || !strings.Contains(got, "Permission denied") || !strings.Contains(got, "is a shim")) {
				t.Errorf("ShimWarning = %q: want it to name the plugin, say it is a shim, and the failure it causes", got)
			}
		})
	}
}
