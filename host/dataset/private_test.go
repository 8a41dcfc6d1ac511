package dataset

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadFile: a private CSV file is read with or without a header, its
// labels mapped to 0..K-1 in increasing order, and its SHA-256 kept; a
// malformed one is refused naming the line.
func TestReadFile(t *testing.T) {
	for _, c := range []struct {
		name, text string
		features   []string
		x          []float64
		y          []int
		classes    []string
		err        string
	}{
		{name: "header", text: "a, b ,label\n1,2,5\n3,4,-1\n", features: []string{"a", "b"}, x: []float64{1, 2, 3, 4}, y: []int{1, 0}, classes: []string{"-1", "5"}},
		{name: "no header", text: "0.5,1e3,2\n-1,0,0\n7,8,2\n", features: []string{"x1", "x2"}, x: []float64{0.5, 1e3, -1, 0, 7, 8}, y: []int{1, 0, 1}, classes: []string{"0", "2"}},
		{name: "ragged", text: "1,2,0\n3,1\n", err: "line 2: 2 fields, want 3"},
		{name: "label", text: "1,2,0\n3,4,x\n", err: "line 2: label \"x\" is not an integer"},
		{name: "feature", text: "1,2,0\n3,NaN,1\n", err: "line 2: feature 2: \"NaN\" is not a finite number"},
		{name: "one class", text: "1,2,3\n3,4,3\n", err: "one class"},
		{name: "empty", text: "a,b,y\n", err: "no rows"},
		{name: "one field", text: "1\n", err: "line 1: 1 field(s)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mine.csv")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ReadFile(path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), path) {
					t.Fatalf("got %v, want an error naming %s with %q", err, path, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Name != "mine" || len(d.SHA256) != 64 || !slices.Equal(d.Features, c.features) || !slices.Equal(d.X, c.x) ||
				!slices.Equal(d.Y, c.y) || !slices.Equal(d.Classes, c.classes) || d.N != len(c.y) || d.K != len(c.classes) || d.D != len(c.features) {
				t.Errorf("got %+v", d)
			}
		})
	}
}
