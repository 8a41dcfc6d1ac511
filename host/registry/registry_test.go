package registry

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestCheckRefusesWithoutOpening: what is not a regular executable file,
// once symbolic links are resolved, is refused by Check and SHA256 from
// its metadata, naming the path and what it is, and Find returns it (so
// that the refusal, not "no such plugin", is what the user reads). A FIFO
// or a link to /dev/zero hung SHA256 (open blocks for a FIFO; /dev/zero
// never ends), and a dangling link came back from Find as "" and was
// reported as "plugin : stat : ...".
func TestCheckRefusesWithoutOpening(t *testing.T) {
	dir := t.TempDir()
	put := func(name string, make func(p string) error) {
		t.Helper()
		if err := make(filepath.Join(dir, Prefix+name)); err != nil {
			t.Skipf("%s: %v", name, err)
		}
	}
	put("ok", func(p string) error { return os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755) })
	put("noexec", func(p string) error { return os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644) })
	put("fifo", func(p string) error { return syscall.Mkfifo(p, 0o755) })
	put("zero", func(p string) error { return os.Symlink("/dev/zero", p) })
	put("dangling", func(p string) error { return os.Symlink("nowhere/bench-plugin-x", p) })
	put("loop", func(p string) error { return os.Symlink(Prefix+"loop", p) })
	put("todir", func(p string) error { return os.Symlink(dir, p) })
	put("tofifo", func(p string) error { return os.Symlink(Prefix+"fifo", p) })
	for _, tc := range []struct {
		name string
		want string // "" for accepted
	}{
		{"ok", ""},
		{"noexec", "not an executable file (mode -rw-r--r--; chmod +x it)"},
		{"fifo", "a named pipe (FIFO), not a regular executable file"},
		{"zero", "a symbolic link to /dev/zero, a character device, not a regular executable file"},
		{"dangling", "a dangling symbolic link to nowhere/bench-plugin-x (which does not exist)"},
		{"loop", "a symbolic link loop (to " + Prefix + "loop)"},
		{"todir", "a symbolic link to " + dir + ", a directory, not a regular executable file"},
		{"tofifo", "a symbolic link to " + Prefix + "fifo, a named pipe (FIFO)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, err := Dir{Path: dir}.Find(tc.name)
			if want := filepath.Join(dir, Prefix+tc.name); err != nil || path != want {
				t.Fatalf("Find = %q, %v; want %q", path, err, want)
			}
			done := make(chan error, 1)
			go func() {
				_, err := SHA256(path)
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a hang check, not a timing assertion
				t.Fatalf("SHA256(%s) still running after a minute", path)
			}
			cerr := Check(path)
			if tc.want == "" {
				if err != nil || cerr != nil {
					t.Errorf("refused: SHA256 %v, Check %v", err, cerr)
				}
				return
			}
			for _, e := range []error{err, cerr} {
				if e == nil || !errors.Is(e, ErrNotExecutable) {
					t.Fatalf("error %v, want ErrNotExecutable", e)
				}
				if msg := e.Error(); !strings.HasPrefix(msg, "plugin "+path+": ") || !strings.Contains(msg, tc.want) {
					t.Errorf("error %q, want %q after the path", msg, tc.want)
				}
			}
		})
	}
	// Names lists every entry Find returns, and no directory.
	if err := os.Mkdir(filepath.Join(dir, Prefix+"adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	names, err := Dir{Path: dir}.Names()
	if want := []string{"dangling", "fifo", "loop", "noexec", "ok", "todir", "tofifo", "zero"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("Names = %v, %v; want %v", names, err, want)
	}
}
