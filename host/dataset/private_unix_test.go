//go:build unix

package dataset

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadFileRefusesFIFO: a named pipe without a writer named as a
// private dataset is refused at once, not waited on.
func TestReadFileRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe.csv")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v, want a refusal naming %s", err, path)
	}
}
