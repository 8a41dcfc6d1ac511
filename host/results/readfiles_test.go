package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFiles reads files in order, and stops at the first bad one with
// ReadFile's error, which names it.
func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := validFile().WriteFile(good); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema": "x"`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		paths   []string
		wantErr string // "": read, one file per path
	}{
		{[]string{good, good}, ""},
		{nil, ""},
		{[]string{good, bad, filepath.Join(dir, "missing.json")}, "results " + bad + ": "},
	} {
		files, err := ReadFiles(tc.paths)
		if tc.wantErr == "" {
			if err != nil || len(files) != len(tc.paths) {
				t.Errorf("ReadFiles(%q) = %d files, %v", tc.paths, len(files), err)
			}
			for i, f := range files {
				if f == nil || f.Scenario.Name != validFile().Scenario.Name {
					t.Errorf("ReadFiles(%q)[%d] = %+v", tc.paths, i, f)
				}
			}
			continue
		}
		if files != nil || err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
			t.Errorf("ReadFiles(%q) = %d files, %v; want the error %q…", tc.paths, len(files), err, tc.wantErr)
		}
	}
}
