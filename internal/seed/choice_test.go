package seed

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseChoice: "random" chooses a fresh secret, which Draw draws anew
// each time; anything else is a seed as Parse reads it, with its errors.
func TestParseChoice(t *testing.T) {
	for _, tc := range []struct {
		text   string
		random bool
		seed   string // the seed's String, when not random
		err    string
	}{
		{text: "random", random: true},
		{text: "42", seed: "42"},
		{text: "0x" + hex64, seed: "0x" + hex64},
		{text: "Random", err: `invalid seed: "Random": 'R' is not a digit`},
		{text: "-4", err: "invalid seed: \"-4\": negative"},
		{text: "", err: "invalid seed: empty"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			c, err := ParseChoice(tc.text)
			if tc.err != "" {
				if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q...", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.Draw()
			if err != nil {
				t.Fatal(err)
			}
			if c.Random != tc.random || (!tc.random && s.String() != tc.seed) || s.Secret() != (tc.random || strings.HasPrefix(tc.seed, "0x")) {
				t.Errorf("ParseChoice(%q) = %+v drawing %v", tc.text, c, s)
			}
			if again, _ := c.Draw(); tc.random && again == s {
				t.Errorf("Draw drew the secret %v twice", s)
			}
		})
	}
}

// TestReadFile: a seed file's seed, surrounding space ignored; "random"
// and malformed seeds are refused without the path; read's errors are
// returned as they are. Exposed tells a secret its group or others may
// read, never an integer.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		mode          fs.FileMode
		seed          string
		err           string
		exposed       bool
	}{
		{name: "integer", content: "42\n", mode: 0o644, seed: "42"},
		{name: "secret", content: "  0x" + hex64 + "\n\n", mode: 0o600, seed: "0x" + hex64},
		{name: "exposed secret", content: "0x" + hex64, mode: 0o640, seed: "0x" + hex64, exposed: true},
		{name: "random", content: "random\n", mode: 0o600, err: `holds "random", but a seed file holds the seed itself (an integer or 0x followed by 64 hex digits)`},
		{name: "bad", content: "0x12\n", mode: 0o600, err: "invalid seed: 0x followed by 2 hex digits; a secret seed has exactly 64 (for the integer seed 18, write it in decimal)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			s, err := ReadFile(path, os.ReadFile)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || s.String() != tc.seed {
				t.Fatalf("ReadFile = %v, %v; want %s", s, err, tc.seed)
			}
			if perm, exposed := Exposed(path, s); exposed != tc.exposed || (exposed && perm != tc.mode) {
				t.Errorf("Exposed = %04o, %v; want %04o, %v", perm, exposed, tc.mode, tc.exposed)
			}
		})
	}
	refused := errors.New("not a regular file (a directory)")
	if _, err := ReadFile(dir, func(string) ([]byte, error) { return nil, refused }); err != refused {
		t.Errorf("ReadFile returned %v, want read's error as it is", err)
	}
}

// TestAnnounce: a secret seed is announced without being shown; an
// integer seed is not announced.
func TestAnnounce(t *testing.T) {
	secret, err := Parse("0x" + hex64)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    Seed
		want string
	}{
		{Int(42), ""},
		{secret, "bench: seed: secret (shown after the run)\n"},
	} {
		var b strings.Builder
		Announce(&b, tc.s)
		if b.String() != tc.want {
			t.Errorf("Announce(%s) wrote %q, want %q", tc.s.Abbrev(), b.String(), tc.want)
		}
	}
}
