package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// validHead is a valid scenario; the hostile part is appended under an
// extra key, which would be refused as unknown if it were ever decoded.
const validHead = "environment: {means: [1, 0], noise_sd: 1}\nhorizon: 10\nruns: 1\npolicies: [{plugin: ts}]\n"

// aliasBomb returns a scenario of a few hundred bytes whose last line
// expands to 9^levels values: each level is a list of nine aliases of the
// level below.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString(validHead)
	b.WriteString("x0: &x0 [a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "x%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*x%d, ", i-1), 9), ", "))
	}
	return b.String()
}

// returnsWithin runs f and fails the test if it has not returned after a
// generous bound: a hang check, not a timing assertion (before the bounds
// these inputs took minutes to hours, or forever).
func returnsWithin[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("%s: still running after a minute", what)
	}
	panic("unreachable")
}

// TestHostileYAML: an alias bomb, deep nesting, an alias inside its own
// anchor and an oversized file are refused before anything expands an alias,
// with a message naming the file and the line at fault.
func TestHostileYAML(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want []string
	}{
		// 9^20 values in 1 KB: before the bounds it never finished.
		{"alias bomb", aliasBomb(20), []string{"bomb.yaml", "more than 250000 values once aliases are expanded", "(line 10)"}},
		// 9^7: 4.8 million values, 1.7 s before the bounds.
		{"small alias bomb", aliasBomb(7), []string{"bomb.yaml", "more than 250000 values", "(line 10)"}},
		{"deep mappings", validHead + "x: " + strings.Repeat("{a: ", 2000) + "1" + strings.Repeat("}", 2000) + "\n",
			[]string{"bomb.yaml", "nested more than 64 levels deep", "(line 5)"}},
		{"deep lists", validHead + "x: " + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + "\n",
			[]string{"bomb.yaml", "nested more than 64 levels deep", "(line 5)"}},
		{"deep block lists", validHead + "x:\n" + deepBlock(100),
			[]string{"bomb.yaml", "nested more than 64 levels deep"}},
		{"deep through an alias", validHead + "d: &d " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\ne: " + strings.Repeat("[", 40) + "*d" + strings.Repeat("]", 40) + "\n",
			[]string{"bomb.yaml", "alias *d nests its anchor (line 5) more than 64 levels deep", "(line 6)"}},
		{"alias in its own anchor", validHead + "x: &a [1, *a]\n",
			[]string{"bomb.yaml", "alias *a is used inside its own anchor &a (line 5)"}},
		{"too large", validHead + "description: \"" + strings.Repeat("x", MaxFileSize) + "\"\n",
			[]string{"bomb.yaml", "file too large", "the limit is 1 MiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := returnsWithin(t, "Parse", func() error {
				_, err := Parse("bomb.yaml", []byte(tc.data))
				return err
			})
			if err == nil {
				t.Fatal("accepted")
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *scenario.Error: %v", err, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

// deepBlock nests n block lists, one per line.
func deepBlock(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", 2*i+2) + "-\n")
	}
	return b.String()
}

// TestYAMLWithinBounds: aliases, merge keys and long lists that stay
// within the bounds are still accepted.
func TestYAMLWithinBounds(t *testing.T) {
	var cps strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&cps, "%d, ", i)
	}
	for name, data := range map[string]string{
		"anchors": `
environment: {means: &m [1, 0], noise_sd: 1}
horizon: 10
runs: 1
policies: [&p {plugin: klucb}, {<<: *p, label: K2}]
`,
		"20000 checkpoints": "environment: {means: [1, 0], noise_sd: 1}\nhorizon: 20000\nruns: 1\npolicies: [{plugin: ts}]\ncheckpoints: [" + strings.TrimSuffix(cps.String(), ", ") + "]\n",
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Parse("ok.yaml", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Policies) == 0 || len(s.Checkpoints) == 0 {
				t.Fatalf("parsed %+v", s)
			}
		})
	}
}

// TestLoadSpecialFiles: a FIFO (which blocked forever), a device (from
// which /dev/zero read until out of memory) and a directory are refused at
// once, naming the file and what it is; so is a file over the size cap.
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make the FIFO this test reads from (mkfifo, not supported by this file system?): %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(validHead), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want string
	}{
		{fifo, "not a regular file (a named pipe (FIFO))"},
		{"/dev/zero", "not a regular file (a character device)"},
		{dir, "not a regular file (a directory)"},
		{big, "file too large (more than 1 MiB)"},
		{filepath.Join(dir, "none.yaml"), "no such file or directory"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			err := returnsWithin(t, "Load", func() error { _, err := Load(tc.path); return err })
			if err == nil {
				t.Fatal("accepted")
			}
			if want := "scenario " + tc.path + ": " + tc.want; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q, want it to start with %q", err, want)
			}
			if strings.Count(err.Error(), tc.path) != 1 {
				t.Errorf("error names the path more than once: %v", err)
			}
		})
	}
}
