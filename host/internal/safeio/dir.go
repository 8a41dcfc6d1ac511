package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNoDir is returned (wrapped) by CheckDir and CheckOutDir for an output
// whose directory is missing, is not a directory, or cannot be written.
var ErrNoDir = errors.New("no directory to write in")

// CheckDir checks that dir is an existing directory this process may
// create files in (write and search permission, as access(2) decides; a
// read-only file system counts as not writable), without writing
// anything. The error names dir and says what is wrong.
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: directory %s does not exist", ErrNoDir, dir)
	case err != nil:
		return fmt.Errorf("%w: directory %s: %w", ErrNoDir, dir, bare(err))
	case !st.IsDir():
		return fmt.Errorf("%w: %s is not a directory (it is %s)", ErrNoDir, dir, Kind(st.Mode()))
	}
	if err := writable(dir); err != nil {
		return fmt.Errorf("%w: cannot create files in directory %s: %w", ErrNoDir, dir, err)
	}
	return nil
}

// CheckOutDir checks, before anything runs, that the file path can be
// written when the run ends (WriteFile creates its temporary file beside
// it): its directory exists, is a directory and is writable. With
// mkdir, path is a directory that the writer creates if missing (with
// os.MkdirAll): it must be a directory if it exists, and its nearest
// existing ancestor a writable directory.
func CheckOutDir(path string, mkdir bool) error {
	if !mkdir {
		return CheckDir(parent(path))
	}
	for p := filepath.Clean(path); ; {
		st, err := os.Stat(p)
		if err == nil {
			if p == filepath.Clean(path) && !st.IsDir() {
				return fmt.Errorf("%w: it is %s, not a directory", ErrNoDir, Kind(st.Mode()))
			}
			return CheckDir(p)
		}
		up := filepath.Dir(p)
		if up == p {
			return CheckDir(p) // the root itself is missing: says so
		}
		p = up
	}
}

// parent is the directory of path, "." for a bare name.
func parent(path string) string {
	return filepath.Dir(filepath.Clean(path))
}
