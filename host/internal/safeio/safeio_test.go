package safeio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestCheckYAML: the expanded size and depth are measured through
// aliases, shared anchors are counted once per use, and the first value
// beyond a bound is the line reported.
func TestCheckYAML(t *testing.T) {
	lim := YAMLLimits{Depth: 4, Nodes: 20}
	for _, tc := range []struct {
		name, doc string
		want      string // "" when accepted
	}{
		{"flat", "a: 1\nb: [1, 2, 3]\n", ""},
		{"at the depth", "a: {b: [1]}\n", ""}, // map, map, list, scalar: 4
		{"beyond the depth", "a: {b: [[1]]}\n", "nested more than 4 levels deep (line 1)"},
		{"alias within the bounds", "a: &x [1, 2]\nb: *x\n", ""},
		{"alias deepens", "a: &x [[1]]\nb: {c: *x}\n", "alias *x nests its anchor (line 1) more than 4 levels deep (line 2)"},
		{"aliases multiply", "a: &x [1, 2, 3, 4]\nb: [*x, *x, *x, *x]\n", "more than 20 values once aliases are expanded (an alias bomb?) (line 2)"},
		{"cycle", "a: &x [1, *x]\n", "alias *x is used inside its own anchor &x (line 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.doc), &doc); err != nil {
				t.Fatal(err)
			}
			err := CheckYAML(&doc, lim)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestWriteFileLeavesNoTemporary: a refused or failed write leaves the
// directory as it was.
func TestWriteFileLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "d"), []byte("x")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("writing over a directory: %v, want ErrNotRegular", err)
	}
	if err := WriteFile(filepath.Join(dir, "none", "f"), []byte("x")); !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), dir) {
		t.Errorf("writing into a missing directory: %v, want ErrNotExist without the path", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only d/", len(ents))
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1 GiB", 1 << 20: "1 MiB", 3 << 10: "3 KiB", 1000: "1000 bytes"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
