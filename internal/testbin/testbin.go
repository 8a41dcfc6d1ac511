// Package testbin builds the executables that tests run (bench, the
// shipped plugins, test fixtures) with go build, and shares them between
// test processes.
//
// Each test process used to link its own copies in a temporary directory:
// five links of 20-35 MB executables took 8-15 s of a test run on two
// cores, every run. Build instead has go build write into a cache
// directory, under os.UserCacheDir()/regretbench-test, one per checkout
// (module root) and set of build tags. go build relinks an executable
// there only when what it would link differs (it compares the build ID
// the file records with the one it computes from the current sources,
// flags and toolchain), so the cache is never stale, and an up-to-date
// executable costs the check alone, about 0.3 s for five. A file lock
// keeps concurrent test processes (go test ./... runs several packages at
// once) from building into the same directory together.
//
// The executables are then hard-linked (copied across file systems) to
// the names the caller asks for. A later relink replaces the cache's file,
// it does not write into it, so a test's links keep running the binary it
// was given.
//
// The cache is bounded: a checkout's directory goes when the checkout is
// gone, after a day unused, or when more recently used ones fill MaxKeep
// (prune.go).
//
// REGRETBENCH_TEST_CACHE=off builds into a fresh temporary directory
// instead, as before; REGRETBENCH_TEST_CACHE=DIR uses DIR as the cache.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// CacheEnv names the environment variable that moves the cache ("DIR") or
// turns it off ("off").
const CacheEnv = "REGRETBENCH_TEST_CACHE"

// Main is one main package to build.
type Main struct {
	// Pkg is an import path, or a directory relative to the build
	// directory ("./testdata/faulty", "../../cmd/bench-plugin-klucb", ".").
	Pkg string
	// Name is the executable's file name in the destination directory,
	// or its slash-separated path there ("plugins/bench-plugin-ts").
	Name string
}

// Options are the go build options of one Build.
type Options struct {
	// Dir is the directory go build runs in, "" for the current one: it
	// decides the module (examples/ucb1 is a module of its own).
	Dir string
	// Tags are the build tags (go build -tags).
	Tags []string
}

// Build builds every main package with one go build and places its
// executable in dir under its Name, creating dir. The go build's output,
// when it fails, is part of the error.
func Build(dir string, opts Options, mains ...Main) error {
	if len(mains) == 0 {
		return nil
	}
	buildDir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return fmt.Errorf("testbin: build directory %q: %w", opts.Dir, err)
	}
	// Packages named by directory become absolute, so that the same
	// package built from two test packages' directories is one
	// executable of the cache.
	pkgs := make([]string, len(mains))
	bases := map[string]string{}
	for i, m := range mains {
		p := m.Pkg
		if p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
			p = filepath.Join(buildDir, p)
		}
		pkgs[i] = p
		// go build -o DIR/ names each executable after the last element
		// of its package path.
		base := path.Base(filepath.ToSlash(p))
		if other, ok := bases[base]; ok && other != p {
			return fmt.Errorf("testbin: %s and %s would both be built as %s: build them in two calls", other, p, base)
		}
		bases[base] = p
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("testbin: %w", err)
	}

	cache, unlock, err := cacheDir(buildDir, opts.Tags)
	if err != nil {
		return err
	}
	if cache == "" { // no cache: build where the executables go
		tmp, err := os.MkdirTemp(dir, ".build-")
		if err != nil {
			return fmt.Errorf("testbin: %w", err)
		}
		defer os.RemoveAll(tmp)
		cache, unlock = tmp, func() {}
	}
	defer unlock()

	args := []string{"build"}
	if len(opts.Tags) > 0 {
		args = append(args, "-tags", strings.Join(opts.Tags, ","))
	}
	args = append(args, "-o", cache+string(filepath.Separator))
	args = append(args, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = buildDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("testbin: go %s (in %s): %w\n%s", strings.Join(args, " "), buildDir, err, out)
	}
	for i, m := range mains {
		src := filepath.Join(cache, path.Base(filepath.ToSlash(pkgs[i])))
		dst := filepath.Join(dir, filepath.FromSlash(m.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("testbin: %w", err)
		}
		if err := linkOrCopy(src, dst); err != nil {
			return fmt.Errorf("testbin: placing %s: %w", m.Pkg, err)
		}
	}
	return nil
}

// cacheDir returns the cache directory for executables built in buildDir
// with tags, locked until unlock is called; "" when there is no cache.
func cacheDir(buildDir string, tags []string) (dir string, unlock func(), err error) {
	dir, err = cacheRoot(buildDir, tags)
	if dir == "" || err != nil {
		return "", nil, err
	}
	return lockDir(dir, filepath.Join(dir, ".lock"))
}

// cacheRoot returns (creating it) the cache directory for buildDir's
// module and tags, unlocked; "" when there is no cache.
func cacheRoot(buildDir string, tags []string) (string, error) {
	root := os.Getenv(CacheEnv)
	switch root {
	case "off":
		return "", nil
	case "":
		user, err := os.UserCacheDir()
		if err != nil {
			return "", nil // no home: no cache
		}
		root = filepath.Join(user, "regretbench-test")
	}
	// One directory per module (checkout or worktree) and set of tags:
	// two checkouts with different sources would otherwise relink each
	// other's executables on every run.
	mod := moduleRoot(buildDir)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s", mod, strings.Join(tags, ","))
	dir := filepath.Join(root, hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("testbin: cache directory (%s=off to do without): %w", CacheEnv, err)
	}
	touch(dir, mod)
	return dir, nil
}

// lockDir locks dir with the lock file at path: dir and its unlock, or ""
// where the system has no file locks (then there is no sharing).
func lockDir(dir, path string) (string, func(), error) {
	unlock, err := lock(path)
	if errors.Is(err, errNoLock) {
		return "", nil, nil // without a lock, no sharing
	}
	if err != nil {
		return "", nil, fmt.Errorf("testbin: locking the cache directory %s: %w", dir, err)
	}
	return dir, unlock, nil
}

// Dir returns the directory name of the cache of buildDir's module,
// created and locked until unlock is called, for a test that has the go
// command (or make) build into a directory of its own and would rather
// not relink everything on every run: go install with GOBIN set to it,
// make with BIN set to it. As in Build, the go command then relinks an
// executable there only when what it would link differs. The lock is a
// file beside the directory, not in it. With no cache (CacheEnv=off, no
// home, no file locks) it returns "" and the caller uses a temporary
// directory.
func Dir(buildDir, name string) (dir string, unlock func(), err error) {
	buildDir, err = filepath.Abs(buildDir)
	if err != nil {
		return "", nil, fmt.Errorf("testbin: build directory: %w", err)
	}
	root, err := cacheRoot(buildDir, nil)
	if root == "" || err != nil {
		return "", func() {}, err
	}
	dir = filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("testbin: %w", err)
	}
	dir, unlock, err = lockDir(dir, dir+".lock")
	if dir == "" && err == nil {
		unlock = func() {}
	}
	return dir, unlock, err
}

// moduleRoot is the directory of the go.mod that governs dir, or dir.
func moduleRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// linkOrCopy makes dst the file src, by a hard link when it can.
func linkOrCopy(src, dst string) error {
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// errNoLock is lock's error where the system has no flock.
var errNoLock = errors.New("no file locks on this system")
