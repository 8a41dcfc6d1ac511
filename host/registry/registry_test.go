package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindRelativeDir: a plugin found in a relative directory comes back
// as an absolute path, so that exec never searches PATH for it (with
// --plugin-dir . the joined path has no slash at all).
func TestFindRelativeDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, Prefix+"x"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, rel := range []string{".", "./", "../" + filepath.Base(dir)} {
		p, err := Dir{Path: rel}.Find("x")
		if err != nil {
			t.Fatalf("Find in %q: %v", rel, err)
		}
		if !filepath.IsAbs(p) {
			t.Errorf("Find in %q = %q, want an absolute path", rel, p)
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			t.Errorf("Find in %q = %q: %v", rel, p, err)
		}
	}
}
