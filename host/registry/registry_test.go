package registry

import (
	"crypto/sha256"
	"encoding/hex"
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

// TestPath: the search path is every --plugin-dir in order, then the
// entries of BENCH_PLUGIN_PATH, then the shipped directories beside bench;
// a name is the first executable of that name on it, and List names the
// later ones it shadows. A BENCH_PLUGIN_PATH entry that does not exist is
// skipped; a --plugin-dir that does not exist fails the lookup before a
// later directory is searched.
func TestPath(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string, names ...string) string {
		t.Helper()
		d := filepath.Join(root, dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(d, Prefix+n), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	a, b := mk("a", "x", "only-a"), mk("b", "x", "z")
	c, d := mk("c", "x", "y"), mk("d", "y", "z", "only-d")
	missing := filepath.Join(root, "missing")
	p := NewPath([]string{a, b}, c+":"+missing+"::"+d)

	shipped := Beside()
	want := Path{{a, FromFlag}, {b, FromFlag}, {c, FromEnv}, {missing, FromEnv}, {d, FromEnv}}
	want = append(want, shipped...)
	if !slices.Equal(p, want) {
		t.Fatalf("NewPath = %v\nwant %v", p, want)
	}
	if len(shipped) != 2 || shipped[0].Origin != Shipped || shipped[1].Path != filepath.Dir(shipped[0].Path) || filepath.Base(shipped[0].Path) != "plugins" {
		t.Errorf("Beside = %v, want plugins/ beside the executable, then its own directory", shipped)
	}

	for _, tc := range []struct {
		name, dir string
		shadowed  []string
	}{
		{"x", a, []string{b, c}},
		{"only-a", a, nil},
		{"z", b, []string{d}},
		{"y", c, []string{d}},
		{"only-d", d, nil},
	} {
		got, err := p.Find(tc.name)
		if w := filepath.Join(tc.dir, Prefix+tc.name); err != nil || got != w {
			t.Errorf("Find(%q) = %q, %v; want %q", tc.name, got, err, w)
		}
		var pl *Plugin
		l := p.List()
		for i := range l.Plugins {
			if l.Plugins[i].Name == tc.name {
				pl = &l.Plugins[i]
			}
		}
		if pl == nil || pl.Path != got {
			t.Fatalf("List has %q as %+v, want it at %s as Find has it", tc.name, pl, got)
		}
		var sh []string
		for _, s := range pl.Shadowed {
			sh = append(sh, filepath.Dir(s.Path))
		}
		if !slices.Equal(sh, tc.shadowed) {
			t.Errorf("%s shadows %v, want %v", tc.name, sh, tc.shadowed)
		}
	}
	l := p.List()
	var names []string
	for _, pl := range l.Plugins {
		names = append(names, pl.Name)
	}
	if !slices.IsSorted(names) || len(names) != 5 {
		t.Errorf("List names %v, want the five, sorted", names)
	}
	if st := l.Dirs[3]; st.Path != missing || !errors.Is(st.Err, os.ErrNotExist) {
		t.Errorf("the missing BENCH_PLUGIN_PATH entry: %+v, want not-exist", st)
	}

	// Not found: every directory searched is named, and what was found.
	_, err := p.Find("nope")
	if err == nil {
		t.Fatal("Find(nope) succeeded")
	}
	for _, w := range []string{`plugin "nope"`, Prefix + "nope", a + " (--plugin-dir)", d + " (BENCH_PLUGIN_PATH)", "found: only-a, only-d, x, y, z"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Find(nope): %v; want it to name %q", err, w)
		}
	}
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Name != "nope" || !strings.HasSuffix(err.Error(), "(add a plugin directory or BENCH_PLUGIN_PATH)") ||
		!strings.HasSuffix(nf.Text("X"), "(add X)") {
		t.Errorf("Find(nope): %v; want a NotFoundError whose Text names how to add a directory", err)
	}

	// A --plugin-dir that does not exist is an error, even for a plugin
	// that a later directory holds: a typo must not run another plugin.
	bad := NewPath([]string{missing, a}, "")
	if got, err := bad.Find("x"); err == nil || !strings.Contains(err.Error(), missing+" (--plugin-dir)") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Find with a missing --plugin-dir = %q, %v; want an error naming it", got, err)
	}
}

// TestNewPathDedupes: a directory named twice, by the same path or through
// a symbolic link, is searched once, where it first appears (a shipped
// directory named in BENCH_PLUGIN_PATH is searched there), so that its
// plugins are not reported as shadowing themselves.
func TestNewPathDedupes(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	shipped := Beside()
	p := NewPath([]string{dir, dir + "/.", link}, dir+":"+shipped[0].Path)
	want := Path{{dir, FromFlag}, {shipped[0].Path, FromEnv}, shipped[1]}
	if !slices.Equal(p, want) {
		t.Errorf("NewPath = %v, want %v", p, want)
	}
}

// TestSHA256Memo: a file hashed before is not read again while unchanged,
// and its new content is hashed once it changes.
func TestSHA256Memo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench-plugin-x")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(content string) string {
		h := sha256.Sum256([]byte(content))
		return hex.EncodeToString(h[:])
	}
	write("#!/bin/sh\necho one\n")
	for i := range 2 {
		got, err := SHA256(path)
		if err != nil || got != sum("#!/bin/sh\necho one\n") {
			t.Fatalf("call %d: SHA256 = %q, %v; want the content's", i, got, err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if key, ok := fileKey(st); ok {
		if _, memo := sums.Load(key); !memo {
			t.Errorf("the hash of %s was not kept", path)
		}
	}
	// Another size: a new identity however coarse the clock's timestamps.
	write("#!/bin/sh\necho two, longer\n")
	if got, err := SHA256(path); err != nil || got != sum("#!/bin/sh\necho two, longer\n") {
		t.Fatalf("after a change: SHA256 = %q, %v; want the new content's", got, err)
	}
	// The same size: the modification time tells (set apart here, as a
	// coarse clock could give the two writes one timestamp).
	write("#!/bin/sh\necho TWO, LONGER\n")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if got, err := SHA256(path); err != nil || got != sum("#!/bin/sh\necho TWO, LONGER\n") {
		t.Fatalf("after a same-size change: SHA256 = %q, %v; want the new content's", got, err)
	}
}
