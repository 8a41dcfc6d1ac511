package testbin_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/testbin"
)

// module writes a module of one main package, hello, that prints msg.
func module(t *testing.T, dir, msg string) {
	t.Helper()
	for name, text := range map[string]string{
		"go.mod":         "module example.com/tb\n\ngo 1.22\n",
		"hello/main.go":  "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(" + `"` + msg + `"` + ") }\n",
		"second/main.go": "package main\n\nfunc main() {}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func run(t *testing.T, exe string) string {
	t.Helper()
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	return string(out)
}

// cached is the one executable named hello in the cache directory.
func cached(t *testing.T, cache string) os.FileInfo {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(cache, "*", "hello"))
	if err != nil || len(found) != 1 {
		t.Fatalf("cache holds %v (%v), want one hello", found, err)
	}
	fi, err := os.Stat(found[0])
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestBuildShares: a second Build of unchanged sources, from another
// destination, reuses the cached executable (the same file, not a relink);
// a change of the sources relinks it, while the links given out before
// keep running the old program.
func TestBuildShares(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(testbin.CacheEnv, cache)
	src := t.TempDir()
	module(t, src, "one")
	opts := testbin.Options{Dir: src}

	first := t.TempDir()
	if err := testbin.Build(first, opts, testbin.Main{Pkg: "./hello", Name: "plugins/bench-plugin-a"}); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(first, "plugins", "bench-plugin-a")
	if got := run(t, a); got != "one" {
		t.Fatalf("built program prints %q, want one", got)
	}
	c1 := cached(t, cache)

	second := t.TempDir()
	if err := testbin.Build(second, opts, testbin.Main{Pkg: "example.com/tb/hello", Name: "b"}, testbin.Main{Pkg: "./second", Name: "c"}); err != nil {
		t.Fatal(err)
	}
	c2 := cached(t, cache)
	if !os.SameFile(c1, c2) {
		t.Errorf("unchanged sources were linked again")
	}
	fb, err := os.Stat(filepath.Join(second, "b"))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fb, c2) {
		t.Errorf("the executable given out is not the cached one")
	}

	module(t, src, "two")
	third := t.TempDir()
	if err := testbin.Build(third, opts, testbin.Main{Pkg: "./hello", Name: "d"}); err != nil {
		t.Fatal(err)
	}
	if got := run(t, filepath.Join(third, "d")); got != "two" {
		t.Errorf("after a change of the sources the program prints %q, want two", got)
	}
	if os.SameFile(c2, cached(t, cache)) {
		t.Errorf("changed sources were not linked again")
	}
	if got := run(t, a); got != "one" {
		t.Errorf("an executable given out before the change now prints %q, want one", got)
	}
}

// TestBuildErrors: a package that does not compile fails with go build's
// message; two packages with one file name fail before building.
func TestBuildErrors(t *testing.T) {
	t.Setenv(testbin.CacheEnv, t.TempDir())
	src := t.TempDir()
	module(t, src, "one")
	if err := os.WriteFile(filepath.Join(src, "second", "main.go"), []byte("package main\n\nfunc main() { undefinedName() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := testbin.Build(t.TempDir(), testbin.Options{Dir: src}, testbin.Main{Pkg: "./second", Name: "x"})
	if err == nil || !strings.Contains(err.Error(), "undefined: undefinedName") || !strings.Contains(err.Error(), src) {
		t.Errorf("got %v, want go build's error naming undefinedName and the directory", err)
	}
	if err := os.MkdirAll(filepath.Join(src, "other", "hello"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = testbin.Build(t.TempDir(), testbin.Options{Dir: src}, testbin.Main{Pkg: "./hello", Name: "x"}, testbin.Main{Pkg: "./other/hello", Name: "y"})
	if err == nil || !strings.Contains(err.Error(), "would both be built as hello") {
		t.Errorf("got %v, want an error naming the clash", err)
	}
}

// TestBuildWithoutCache: with the cache off, Build still builds.
func TestBuildWithoutCache(t *testing.T) {
	t.Setenv(testbin.CacheEnv, "off")
	src := t.TempDir()
	module(t, src, "three")
	dst := t.TempDir()
	if err := testbin.Build(dst, testbin.Options{Dir: src}, testbin.Main{Pkg: "./hello", Name: "h"}); err != nil {
		t.Fatal(err)
	}
	if got := run(t, filepath.Join(dst, "h")); got != "three" {
		t.Errorf("prints %q, want three", got)
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 1 {
		t.Errorf("the destination holds %d entries, want the executable alone", len(ents))
	}
}

// TestDir: Dir gives a module a directory of the cache per name, empty
// (its lock beside it), where go install relinks only what changed: a
// second install of unchanged sources keeps the file, a change relinks it.
// With the cache off it gives "" for a temporary directory.
func TestDir(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(testbin.CacheEnv, cache)
	src := t.TempDir()
	module(t, src, "one")
	install := func(dir string) os.FileInfo {
		t.Helper()
		cmd := exec.Command("go", "install", "./hello")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOBIN="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go install: %v\n%s", err, out)
		}
		fi, err := os.Stat(filepath.Join(dir, "hello"))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	dir, unlock, err := testbin.Dir(src, "gobin")
	if err != nil || dir == "" || !strings.HasPrefix(dir, cache+string(filepath.Separator)) {
		t.Fatalf("Dir: %q, %v; want a directory under %s", dir, err, cache)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a new directory holds %v", ents)
	}
	first := install(dir)
	unlock()
	again, unlock, err := testbin.Dir(src, "gobin")
	if err != nil || again != dir {
		t.Fatalf("Dir again: %q, %v; want %q", again, err, dir)
	}
	if !os.SameFile(first, install(dir)) {
		t.Errorf("unchanged sources were linked again")
	}
	module(t, src, "two")
	install(dir)
	if got := run(t, filepath.Join(dir, "hello")); got != "two" {
		t.Errorf("after a change the installed program prints %q, want two", got)
	}
	unlock()
	if other, unlock, err := testbin.Dir(src, "make"); err != nil || other == dir {
		t.Errorf("Dir of another name: %q, %v; want another directory than %q", other, err, dir)
	} else {
		unlock()
	}

	t.Setenv(testbin.CacheEnv, "off")
	if off, unlock, err := testbin.Dir(src, "gobin"); off != "" || err != nil || unlock == nil {
		t.Errorf("with the cache off: %q, %v, unlock %v; want \"\", nil and a no-op", off, err, unlock != nil)
	}
}
