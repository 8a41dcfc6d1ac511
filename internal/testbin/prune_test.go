package testbin

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPrune: the cache keeps the directories of checkouts that exist and
// were used lately, at most MaxKeep of them, and removes the others,
// except one whose lock a building process holds.
func TestPrune(t *testing.T) {
	root := t.TempDir()
	checkout := t.TempDir()
	if err := os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	mk := func(name, mod string, used time.Time) string {
		t.Helper()
		d := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if mod != "" {
			if err := os.WriteFile(filepath.Join(d, rootFile), []byte(mod), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, usedFile), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(d, usedFile), used, used); err != nil {
			t.Fatal(err)
		}
		return d
	}
	keep := map[string]bool{
		mk("recent", checkout, now.Add(-time.Minute)):                         true,
		mk("gone", filepath.Join(checkout, "deleted"), now.Add(-time.Minute)): false,
		mk("old", checkout, now.Add(-MaxAge-time.Hour)):                       false,
		mk("legacy", "", now.Add(-2*MaxAge)):                                  false, // made before .root
	}
	// MaxKeep more, older than "recent", idle beyond busyAge: the
	// oldest of them is one too many.
	for i := 0; i < MaxKeep; i++ {
		d := mk(fmt.Sprintf("n%02d", i), checkout, now.Add(-busyAge-time.Duration(i+1)*time.Minute))
		keep[d] = i < MaxKeep-1
	}
	// An old one whose lock is held is being built in: it stays.
	busy := mk("busy", checkout, now.Add(-2*MaxAge))
	unlock, err := lock(filepath.Join(busy, ".lock"))
	if err != nil {
		t.Skipf("no file locks here: %v", err)
	}
	defer unlock()
	keep[busy] = true

	prune(root, now)
	for d, want := range keep {
		_, err := os.Stat(d)
		if got := err == nil; got != want {
			t.Errorf("%s: kept %v, want %v", filepath.Base(d), got, want)
		}
	}
}
