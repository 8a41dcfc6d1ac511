package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// python is Debian's Python, which has the readers the script needs
// (python3-rdata, python3-pandas); a pyenv or venv python3 first on PATH
// may not.
const python = "/usr/bin/python3"

// missingStatus is convert.py's exit status when a Debian package's file
// or a Python module it reads with is missing (MISSING in the script).
const missingStatus = 3

func gunzip(t *testing.T, what string, raw []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return out
}

// TestConvertReproducible: tools/datasets/convert.py, run again from the
// Debian packages, writes every embedded file's text again, byte for
// byte, so that the committed data is what the committed script makes of
// the packages. It compares the decompressed CSV: another zlib may
// compress the same text to other bytes (TestGolden pins the compressed
// files). It skips, saying what is missing, where the packages are not
// installed (CI does not install them), and under -short (the script
// takes several seconds).
func TestConvertReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips running tools/datasets/convert.py (several seconds); go test without -short runs it")
	}
	if _, err := os.Stat(python); err != nil {
		t.Skipf("no %s (Debian's python3) to run tools/datasets/convert.py: %v", python, err)
	}
	out := t.TempDir()
	cmd := exec.Command(python, filepath.Join("..", "..", "tools", "datasets", "convert.py"), "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == missingStatus {
		t.Skipf("the Debian packages are not installed: %s", strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		t.Fatalf("convert.py: %v\n%s", err, stderr.String())
	}
	for _, name := range Names() {
		embedded, err := File(name)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := os.ReadFile(filepath.Join(out, name+".csv.gz"))
		if err != nil {
			t.Errorf("convert.py wrote no %s: %v", name, err)
			continue
		}
		if !bytes.Equal(gunzip(t, "embedded "+name, embedded), gunzip(t, "fresh "+name, fresh)) {
			t.Errorf("%s: convert.py now writes another text than the embedded file's", name)
		}
		if !bytes.Equal(embedded, fresh) {
			t.Logf("%s: same text, other compressed bytes (another zlib?)", name)
		}
	}
	extra, err := filepath.Glob(filepath.Join(out, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(extra) != len(Names()) {
		t.Errorf("convert.py wrote %d files, %d datasets ship", len(extra), len(Names()))
	}
}
