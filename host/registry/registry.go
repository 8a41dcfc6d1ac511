// Package registry finds plugin executables: a scenario's `plugin: NAME` is
// the file bench-plugin-NAME in the plugin directory.
package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/regretbench/regretbench/host/internal/safeio"
)

// Prefix is the file-name prefix of plugin executables; it keeps `bench
// plugins` from running unrelated files.
const Prefix = "bench-plugin-"

// Dir is a plugin directory.
type Dir struct {
	Path string
}

// Find returns the executable of plugin name, as an absolute path, or an
// error saying where it looked and what it found there. Whatever the
// directory holds under the plugin's file name, except a directory, is
// returned without being opened, a dangling symbolic link and a FIFO
// included: Check then says what is wrong with it, so that such a file
// fails its own policies and `bench plugins` lists it as FAILED.
func (d Dir) Find(name string) (string, error) {
	p := filepath.Join(d.Path, Prefix+name)
	st, err := os.Lstat(p)
	if err == nil && !st.IsDir() {
		// Absolute, so that exec never looks a bare name up in PATH (a
		// relative --plugin-dir . would give "bench-plugin-NAME").
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
		return p, nil
	}
	found, lerr := d.Names()
	switch {
	case lerr != nil:
		return "", fmt.Errorf("plugin %q: looked for %s: %w", name, p, lerr)
	case len(found) == 0:
		return "", fmt.Errorf("plugin %q: no %s%s in %s, which holds no plugins (build them with `make build`, or set --plugin-dir / BENCH_PLUGIN_DIR)", name, Prefix, name, d.Path)
	}
	return "", fmt.Errorf("plugin %q: no %s%s in %s; found: %s (set --plugin-dir / BENCH_PLUGIN_DIR to look elsewhere)", name, Prefix, name, d.Path, strings.Join(found, ", "))
}

// ErrNotExecutable matches (errors.Is) the errors of Check and SHA256 for
// a plugin path that is not a regular executable file.
var ErrNotExecutable = errors.New("not a regular executable file")

// notExecutable is a plugin path that is not a regular executable file,
// and what it is instead.
type notExecutable struct{ path, what string }

func (e *notExecutable) Error() string        { return "plugin " + e.path + ": " + e.what }
func (e *notExecutable) Is(target error) bool { return target == ErrNotExecutable }

// Check refuses a plugin path that is not a regular executable file once
// its symbolic links are resolved, from the file's metadata alone: nothing
// is opened, so that a FIFO (whose open blocks until a writer comes) or a
// link to /dev/zero (which never ends) cannot hang bench. The error names
// the path and what it is: "a named pipe (FIFO)", "a symbolic link to
// /dev/zero, a character device", "a dangling symbolic link to TARGET",
// "a symbolic link loop", or a file without an exec bit.
func Check(path string) error {
	var link string // the target when path is a symbolic link
	if lst, err := os.Lstat(path); err != nil {
		return fmt.Errorf("plugin %s: %w", path, bareErr(err))
	} else if lst.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(path); err != nil {
			return fmt.Errorf("plugin %s: a symbolic link that cannot be read: %w", path, bareErr(err))
		}
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return &notExecutable{path, "a symbolic link loop (to " + link + ")"}
	case errors.Is(err, fs.ErrNotExist) && link != "":
		return &notExecutable{path, "a dangling symbolic link to " + link + " (which does not exist)"}
	case err != nil:
		return fmt.Errorf("plugin %s: %w", path, bareErr(err))
	}
	what := safeio.Kind(st.Mode())
	if link != "" {
		what = "a symbolic link to " + link + ", " + what
	}
	switch {
	case !st.Mode().IsRegular():
		return &notExecutable{path, what + ", not a regular executable file"}
	case st.Mode()&0o111 == 0:
		return &notExecutable{path, fmt.Sprintf("not an executable file (mode %v; chmod +x it)", st.Mode())}
	}
	return nil
}

// bareErr drops the *fs.PathError wrapper, whose path the message names
// already.
func bareErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// Names lists the plugin names in the directory, sorted.
func (d Dir) Names() ([]string, error) {
	ents, err := os.ReadDir(d.Path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutPrefix(e.Name(), Prefix); ok && !e.IsDir() && n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// SHA256 returns the hex SHA-256 of the plugin executable at path. What
// Check refuses is refused before it is opened, and the file is opened
// without blocking and checked again once open, so that a FIFO swapped in
// meanwhile is refused rather than waited on.
func SHA256(path string) (string, error) {
	if err := Check(path); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("plugin %s: %w", path, bareErr(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("plugin %s: %w", path, bareErr(err))
	}
	if !st.Mode().IsRegular() {
		return "", &notExecutable{path, safeio.Kind(st.Mode()) + ", not a regular executable file"}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("plugin %s: %w", path, bareErr(err))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Default returns the default plugin directory: plugins/ beside the running
// executable, so `make build` yields bin/bench and bin/plugins/.
func Default() string {
	exe, err := os.Executable()
	if err != nil {
		return "plugins"
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Join(filepath.Dir(exe), "plugins")
}
