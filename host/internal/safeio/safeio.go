// Package safeio reads and writes the files bench is given by strangers:
// scenario files from pull requests, results files from other machines,
// config files. Reads refuse anything but a regular file at once (a FIFO
// would block forever, /dev/zero would fill the memory) and stop at a size
// cap; writes replace only regular files, atomically, never through a
// symbolic link, and keep an existing file's permissions. CheckYAML bounds
// the work a YAML document can cause once its aliases are expanded.
//
// Errors name no path: callers prefix the file and its role ("scenario
// x.yaml: ...", "results r.json: ..."), so that it is not repeated.
package safeio

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrTooLarge is returned (wrapped) by ReadFile for a file beyond its cap.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is returned (wrapped) for a path that is not a regular
// file: a directory, a FIFO, a device, a socket, or (for writes) a
// symbolic link.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile reads the regular file at path, at most limit bytes. A FIFO,
// device, directory or socket is refused before any read, so that neither
// a named pipe without a writer nor /dev/zero can hang or exhaust bench; a
// file larger than limit is refused with ErrTooLarge. Symbolic links to a
// regular file are followed.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// Open opens the regular file at path for a reader that streams it, such
// as a json.Decoder, with the checks of ReadFile: anything but a regular
// file is refused before any read, a file larger than limit at once, and
// a file that grows beyond limit while it is read fails the read that
// crosses the limit with ErrTooLarge. Errors name no path.
func Open(path string, limit int64) (io.ReadCloser, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, bare(err)
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should path have become a FIFO since the Stat, opening
	// it still returns at once (and the Fstat below refuses it).
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, bare(err)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, bare(err)
	}
	if err := regular(fi); err != nil {
		f.Close()
		return nil, err
	}
	if fi.Size() > limit {
		f.Close()
		return nil, tooLarge(limit)
	}
	return &capped{f: f, left: limit, limit: limit}, nil
}

// capped reads f and fails with ErrTooLarge past its limit.
type capped struct {
	f     *os.File
	left  int64 // bytes that may still be read
	limit int64
}

func (c *capped) Read(p []byte) (int, error) {
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1] // one byte more than allowed tells a file that grew
	}
	n, err := c.f.Read(p)
	if int64(n) > c.left {
		return 0, tooLarge(c.limit)
	}
	c.left -= int64(n)
	return n, bare(err)
}

func (c *capped) Close() error { return c.f.Close() }

func tooLarge(limit int64) error {
	return fmt.Errorf("%w (more than %s); refusing to read it", ErrTooLarge, Bytes(limit))
}

// Bytes formats a size cap for messages: "1 MiB", "1 GiB", "512 bytes".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// regular refuses anything but a regular file, naming what it is.
func regular(fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))
}

// Kind names the type of a file of mode m for messages: "a directory",
// "a named pipe (FIFO)", "a character device", "a regular file"...
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}

// bare drops the *fs.PathError wrapper ("open PATH: ...") from err, whose
// path the caller already names; errors.Is(err, fs.ErrNotExist) still
// holds.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// CheckOut checks that path may be (re)written as an output: it does not
// exist yet or is a regular file, not a symbolic link. It returns the
// existing file's information, or nil when there is none.
func CheckOut(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, bare(err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: it is a symbolic link; refusing to replace it (give the path it points to)", ErrNotRegular)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: it is %s; refusing to replace it", ErrNotRegular, Kind(fi.Mode()))
	}
	return fi, nil
}

// SameFile reports whether a and b name the same existing file (after
// following symbolic links), as os.SameFile decides. A path that does
// not exist is the same as nothing.
func SameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// WriteFile writes data to path atomically: a temporary file in the same
// directory, renamed over path, so that a crash never leaves a
// half-written file. It refuses to replace anything but a regular file
// (CheckOut). A new file gets mode 0666 less the umask, as os.Create
// gives; an existing file keeps its mode.
func WriteFile(path string, data []byte) error {
	old, err := CheckOut(path)
	if err != nil {
		return err
	}
	tmp, err := createTemp(path)
	if err != nil {
		return bare(err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return bare(err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if old != nil {
		if err := tmp.Chmod(old.Mode().Perm()); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return bare(err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return bare(err)
	}
	return nil
}

// createTemp creates a new file beside path with mode 0666, which the
// kernel reduces by the umask (os.CreateTemp would give 0600).
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	for range 100 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+".tmp"+hex.EncodeToString(r[:]))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("cannot create a temporary file beside %s", base)
}
