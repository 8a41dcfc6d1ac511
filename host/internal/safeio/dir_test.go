package safeio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOutDir: an output file needs an existing, writable directory;
// a directory output created if missing needs its path to be a directory
// or nothing, and its nearest existing ancestor to be a writable
// directory.
func TestCheckOutDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		mkdir bool
		want  string // "" when accepted
	}{
		{filepath.Join(dir, "r.json"), false, ""},
		{"r.json", false, ""}, // the working directory
		{file, false, ""},     // replaced by WriteFile
		{filepath.Join(dir, "no", "r.json"), false, "directory " + filepath.Join(dir, "no") + " does not exist"},
		{filepath.Join(file, "r.json"), false, file + " is not a directory (it is a regular file)"},
		{dir, true, ""},
		{filepath.Join(dir, "a", "b", "c"), true, ""},
		{"figs", true, ""},
		{file, true, "it is a regular file, not a directory"},
		{filepath.Join(file, "a", "b"), true, file + " is not a directory (it is a regular file)"},
		{filepath.Join(dir, "a") + "/", true, ""},
	} {
		err := CheckOutDir(tc.path, tc.mkdir)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckOutDir(%q, %v): %v", tc.path, tc.mkdir, err)
		case tc.want != "" && (!errors.Is(err, ErrNoDir) || !strings.HasSuffix(err.Error(), tc.want)):
			t.Errorf("CheckOutDir(%q, %v) = %v, want ErrNoDir ending in %q", tc.path, tc.mkdir, err, tc.want)
		}
	}
	if os.Geteuid() == 0 {
		return // root may write anywhere
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, mkdir := range []bool{false, true} {
		if err := CheckOutDir(filepath.Join(ro, "x"), mkdir); err == nil || !strings.Contains(err.Error(), "cannot create files in directory "+ro) {
			t.Errorf("read-only directory, mkdir %v: %v", mkdir, err)
		}
	}
}
