//go:build linux

package procrun

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSweep: Sweep removes the private directories whose owner is gone
// (no such pid, another start time, another boot) with their markers, and
// keeps those of a live owner, those with a malformed marker, and what a
// symbolic link named like one points to.
func TestSweep(t *testing.T) {
	tmp := t.TempDir()
	target := t.TempDir() // what a planted link points to
	if err := os.WriteFile(filepath.Join(target, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	me := os.Getpid()
	for _, c := range []struct {
		name, marker string
		link         bool
	}{
		{"live", "", false},
		{"dead-pid", fmt.Sprintf("%d %s %s", 1<<30, startTime(me), bootID()), false},
		{"reused-pid", fmt.Sprintf("%d 1 %s", me, bootID()), false},
		{"other-boot", fmt.Sprintf("%d %s 00000000-0000-0000-0000-000000000000", me, startTime(me)), false},
		{"malformed", "nonsense", false},
		{"link", fmt.Sprintf("%d 1 %s", 1<<30, bootID()), true},
	} {
		dir := filepath.Join(tmp, "plugin-dir-"+c.name)
		if c.link {
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if c.marker == "" {
			if err := MarkOwner(dir); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(dir+ownerSuffix, []byte(c.marker+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, p := range Sweep(tmp) {
		got = append(got, filepath.Base(p))
	}
	slices.Sort(got)
	if want := []string{"plugin-dir-dead-pid", "plugin-dir-other-boot", "plugin-dir-reused-pid"}; !slices.Equal(got, want) {
		t.Errorf("swept %v, want %v", got, want)
	}
	for _, n := range []string{"plugin-dir-dead-pid", "plugin-dir-other-boot", "plugin-dir-reused-pid"} {
		for _, p := range []string{n, n + ownerSuffix} {
			if _, err := os.Lstat(filepath.Join(tmp, p)); err == nil {
				t.Errorf("%s is left", p)
			}
		}
	}
	for _, p := range []string{"plugin-dir-live", "plugin-dir-live" + ownerSuffix, "plugin-dir-malformed", "plugin-dir-link"} {
		if _, err := os.Lstat(filepath.Join(tmp, p)); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "keep")); err != nil {
		t.Errorf("the link's target was swept: %v", err)
	}
}
