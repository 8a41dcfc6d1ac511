package results

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileSpecialFiles: a FIFO (which blocked forever), a device
// (/dev/zero read until out of memory) and a directory are refused at
// once, a file over MaxFileSize unread, each naming the file once.
func TestReadFileSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make the FIFO this test reads from (mkfifo, not supported by this file system?): %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, encoded(t, validFile()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "not a regular file (a named pipe (FIFO))"},
		{"/dev/zero", "not a regular file (a character device)"},
		{dir, "not a regular file (a directory)"},
		{big, "file too large (more than 1 GiB)"},
		{filepath.Join(dir, "none.json"), "no such file or directory"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := ReadFile(tc.path); done <- err }()
			var err error
			select { // a hang check, not a timing assertion
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("ReadFile still running after a minute")
			}
			if want := "results " + tc.path + ": " + tc.want; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %v, want it to start with %q", err, want)
			}
			if err != nil && strings.Count(err.Error(), tc.path) != 1 {
				t.Errorf("error names the path more than once: %v", err)
			}
		})
	}
}

// TestWriteFileTargets: WriteFile replaces only a regular file, never a
// symbolic link, a FIFO or a directory; a new file gets 0666 less the
// umask, as figures and os.Create do, and an existing file keeps its mode.
func TestWriteFileTargets(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make the FIFO this test reads from (mkfifo, not supported by this file system?): %v", err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		mode fs.FileMode // the path's type, unchanged after the refusal
		want string
	}{
		{link, fs.ModeSymlink, "it is a symbolic link"},
		{fifo, fs.ModeNamedPipe, "it is a named pipe (FIFO)"},
		{sub, fs.ModeDir, "it is a directory"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			err := validFile().WriteFile(tc.path)
			if want := "results " + tc.path + ": not a regular file: " + tc.want; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %v, want it to start with %q", err, want)
			}
			fi, err := os.Lstat(tc.path)
			if err != nil || fi.Mode().Type() != tc.mode {
				t.Errorf("%s is now %v (%v), want type %v", tc.path, fi.Mode(), err, tc.mode)
			}
		})
	}
	if data, _ := os.ReadFile(target); string(data) != "keep" {
		t.Errorf("the symbolic link's target was written: %q", data)
	}

	for _, tc := range []struct {
		name     string
		existing fs.FileMode // 0: no file yet
		want     fs.FileMode
	}{
		{"new file", 0, 0o644},
		{"private file", 0o600, 0o600},
		{"group-writable file", 0o664, 0o664},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "r.json")
			if tc.existing != 0 {
				if err := os.WriteFile(p, []byte("old"), tc.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := validFile().WriteFile(p); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != tc.want {
				t.Errorf("mode %v, want %v", fi.Mode(), tc.want)
			}
			if _, err := ReadFile(p); err != nil {
				t.Errorf("the file written does not read back: %v", err)
			}
		})
	}
}
