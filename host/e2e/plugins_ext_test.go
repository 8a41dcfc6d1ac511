package e2e_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// repoRoot is the module root, from this file's location.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test source")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// linkOrCopy puts a copy of src at dst with src's mode, by a hard link when
// the file system allows one.
func linkOrCopy(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(src, dst) == nil {
		return
	}
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, st.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

// freshPluginDir returns a fresh plugin directory holding the named shipped
// plugins from binDir, so a test can add its own without changing what the
// other tests of the package find in binDir.
func freshPluginDir(t *testing.T, shippedNames ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plugins")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range shippedNames {
		linkOrCopy(t, filepath.Join(binDir, "plugins", "bench-plugin-"+n), filepath.Join(dir, "bench-plugin-"+n))
	}
	return dir
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of go-plugin's
// logger.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
